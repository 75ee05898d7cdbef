"""Which lines of a piece the secret, people, address and host passes can fire on.

One Hyperscan scan finds every anchor: a literal or short pattern that each match of those
passes must contain (the key and command words of anchors.py, vendor token prefixes, `@`,
`://`, dotted quads, `::`, private top-level labels, ...). A line with no anchor cannot be
changed by any of them, so the passes run on the lines with one (the hot lines, plus the
context their look-arounds read) and the rest of the piece (on a training log, almost all
NCCL chatter) skips them. Every anchor is a superset of its detector: a line reported cold
by mistake would change output, a line reported hot by mistake only costs time.
"""

from __future__ import annotations

from dataclasses import dataclass

import hyperscan as hs

from bot.hyperscan_literal import hyperscan_literal
from bot.masking.anchors import GATE_ONLY, WORDS
from bot.masking.ascii_bytes import ascii_bytes

# Literal anchors, matched without regard to case (a superset of the case-sensitive ones).
_TOKEN_PREFIXES = (
    # vendor.py: every branch's literal prefix.
    "hf_", "api_org_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "npm_", "r8_",
    "gsk_", "wandb_v1_", "sk_live_", "rk_live_", "sk-", "nvapi-", "xox", "xapp-", "glpat-",
    "gocspx-", "local-", "pypi-", "eyj", "ya29.", "q~", "hooks.slack.com/", "akia", "asia",
    "abia", "acca", "aiza", "fwogzxivyxdz", "iqojb3jpz2lu", "ls0tls1crudjti",
    # urls.py, people.py (e-mails, user@host), pairs.py (standalone Basic), addresses.py.
    "://", "@", "basic ", "::",
)
# Non-ASCII characters reach the scan as `?`, and a line holding one takes the full passes, so
# every cold line is ASCII and the patterns below mean the same as the passes' `\d`, `\w`.
# Found line by line, not by Hyperscan: one report per character would make a line of tqdm
# bars (`████▌`, forty updates to a line) report hundreds, and the piece give up on the scan.
_UNSURE = b"?"
# Pattern anchors, case-sensitive like the detectors they stand for.
_PATTERNS = (
    r"\]:[0-9]",  # hosts.py `[host]:port` (the `]:` gate word)
    r"[a-z0-9]{6}\.[a-z0-9]{16}",  # vendor.py kubeadm bootstrap tokens
    # addresses.py eight-group IPv6: both forms have a middle group of 3-4 digits between colons
    # (a `{1,4}`-per-group pattern costs Hyperscan twice the time of the whole anchor scan).
    r":[0-9A-Fa-f]{3,4}:",
    r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]",  # addresses.py IPv4
    r"==[0-9]",  # addresses.py looks for `==<version>` anywhere before an address
    r"[A-Za-z0-9+/]==",  # vendor.py Azure storage keys
    # hosts.py FQDNs: a dot and a top-level label.
    r"\.(?:internal|localdomain|lan|corp|intranet|local|intra|private|priv|cluster|svc|hpc"
    r"|com|net|org|edu|gov|mil|io|ai|dev|app|co|us|uk|eu|info|biz|tech|xyz|me)",
    r":[0-9]{1,6} NCCL",  # hosts.py: an NCCL prefix closed by a source location
)
# blocks.py: a PEM block or a Kubernetes Secret `data:` block opens (checked before the rest:
# only when one of these occurs, or a block is still open, can the block pass change text).
_BLOCK_LITERALS = ("-----begin", "ata:", 'ata"')
# Anchor words whose passes read neighbouring lines: pairs.py takes a `value:` on the next
# line after `- name: KEY`, and looks back up to 256 characters for `.netrc`'s `machine `;
# people.py looks back 200 characters for `://` before `/u/`.
_WORDS = tuple(w for w in WORDS if w not in GATE_ONLY)
CONTEXT_BEFORE = 256


def _compile() -> hs.Database:
    literals = (*_WORDS, *_TOKEN_PREFIXES, *_BLOCK_LITERALS)
    expressions = [hyperscan_literal(w).encode() for w in literals] + [p.encode() for p in _PATTERNS]
    flags = [hs.HS_FLAG_CASELESS] * len(literals) + [0] * len(_PATTERNS)
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    db.compile(expressions=expressions, ids=list(range(len(expressions))), elements=len(expressions), flags=flags)
    return db


ANCHORS = _compile()
_N_WORDS = len(_WORDS)
_FIRST_BLOCK = _N_WORDS + len(_TOKEN_PREFIXES)
_END_BLOCK = _FIRST_BLOCK + len(_BLOCK_LITERALS)

# More anchor hits than one per this many characters: the piece is mostly hot (or hostile
# input); the full passes are cheaper than a callback per hit.
_HITS_PER_CHAR = 1 / 512

Run = tuple[int, int]  # [start, end) of whole lines; end is after the newline or the text end


@dataclass
class Anchors:
    """Where a piece's anchors end (negative for words that need context), and whether a
    block pass can fire on it."""

    hits: list[int]
    blocks: bool


def scan_anchors(text: str, scratch: hs.Scratch) -> Anchors | None:
    """Every anchor in `text`; None when there are too many to be worth it."""
    data = ascii_bytes(text)  # one byte per character
    cap = max(64, int(len(text) * _HITS_PER_CHAR))
    hits: list[int] = []
    blocks = False

    def on_hit(pattern: int, _start: int, end: int, _flags: int, _ctx: object) -> bool:
        nonlocal blocks
        if pattern < _N_WORDS:
            hits.append(-end)
        else:
            hits.append(end)
            if _FIRST_BLOCK <= pattern < _END_BLOCK:
                blocks = True
        return len(hits) > cap  # True stops the scan

    try:
        ANCHORS.scan(data, match_event_handler=on_hit, scratch=scratch)
    except hs.ScanTerminated:
        return None
    at = data.find(_UNSURE)
    while at >= 0:  # the first `?` of each line that has one
        hits.append(at + 1)
        if len(hits) > cap:
            return None
        end = data.find(b"\n", at)
        if end < 0:
            break
        at = data.find(_UNSURE, end)
    return Anchors(hits, blocks)


def hot_runs(text: str, anchors: Anchors) -> list[Run]:
    """Runs of whole lines that the detector passes must see, in order.

    The first line and the last 64 characters' lines are always in: a few passes read
    `text[-k:]` through a negative index when a match sits at offset 0, so the piece and the
    gathered runs must start and end alike.
    """
    n = len(text)
    hits = sorted(anchors.hits, key=abs)
    lines: list[tuple[int, int, bool]] = [(0, _line_end(text, 0), False)]
    for hit in hits:
        pos = max(abs(hit) - 1, 0)  # last character of the match
        start, end, context = lines[-1]
        if pos < end:
            if hit < 0 and not context:
                lines[-1] = (start, end, True)
            continue
        lines.append((_line_start(text, pos, end), _line_end(text, pos), hit < 0))
    tail = max(_line_start(text, max(n - 64, 0), 0), lines[-1][1])
    if tail < n:
        lines.append((tail, n, False))
    return _merge(text, lines)


def _merge(text: str, lines: list[tuple[int, int, bool]]) -> list[Run]:
    """Add context lines and merge touching runs. `lines` is sorted and non-overlapping."""
    runs: list[list[int]] = []
    for start, end, context in lines:
        if context:
            start, end = _with_context(text, start, end, runs[-1] if runs else None)
        # Context can reach back over earlier runs: swallow every run it touches.
        while runs and start <= runs[-1][1]:
            first, last = runs.pop()
            start, end = min(start, first), max(end, last)
        runs.append([start, end])
    return [(a, b) for a, b in runs]


def _with_context(text: str, start: int, end: int, last: list[int] | None) -> tuple[int, int]:
    """The line [start, end), every line within CONTEXT_BEFORE characters before it, the next.

    Searches for the window's first line start no further back than the last run when the
    window starts after it, and not at all when it starts inside it; before the last run's
    start it searches unbounded, but the new run then starts left of every earlier search,
    so all searches together read each character at most once.
    """
    edge = max(start - CONTEXT_BEFORE, 0)
    if last is None or edge < last[0]:
        start = _line_start(text, edge, 0)
    elif edge >= last[1]:
        start = _line_start(text, edge, last[1])
    else:
        start = min(start, last[1])  # the window starts inside the last run
    return start, _line_end(text, end) if end < len(text) else end


def _line_end(text: str, pos: int) -> int:
    """Index after the newline that ends the line holding `pos` (or the text end)."""
    return text.find("\n", pos) + 1 or len(text)


def _line_start(text: str, pos: int, floor: int) -> int:
    """Start of the line holding `pos`, searching no further back than `floor` (a line start)."""
    return text.rfind("\n", floor, pos) + 1 or floor
