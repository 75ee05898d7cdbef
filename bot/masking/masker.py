"""The masking pipeline: passes in a fixed order, secrets first, personal data after.

Each stage collects edits from its detectors over the same text, then applies them at once.
Later stages run on the output of earlier ones and none of their patterns can match inside a
placeholder, so a secret is never half-replaced by a lower-priority detector, and masking
masked text changes nothing.

Masking is at the egress (docs/ARCHITECTURE.md): the matcher reads the raw log, and only what
leaves the process goes through `Masker.mask`. Names are still learned from the whole log:
`Masker.learn` reads every piece for the few lines that can teach a user or host name (an
automaton over literal anchor words finds them) so that `alice`, learned from `/home/alice/`
on line 3, is masked in an evidence line on line 90,000 that names her bare.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from itertools import repeat

from bot.literals import DIGITS_AS_ZERO, LinesWith, Words
from bot.masking.anchors import GATE_ONLY, WORDS, find_anchors, present_words
from bot.masking.cloud import ACCOUNT_TEACHING_WORDS
from bot.masking.containerlog import mask_entries
from bot.masking.detectors import BY_STAGE, Detector, Scan
from bot.masking.edits import Edit, apply_edits
from bot.masking.gate import Gate, gated_text, remap
from bot.masking.hosts import carry_prefix_hosts, learn_nccl_hosts_bytes, learn_pdsh_labels_bytes
from bot.masking.learned import mask_learned_names, mask_learned_secrets
from bot.masking.masked import MaskedText, seal
from bot.masking.names import SHORTLOG_WORDS
from bot.masking.owners import OWNER_LINE_WORDS
from bot.masking.pods import POD_LINE_WORDS
from bot.masking.state import LogState
from bot.masking.terminal import mask_through_terminal_codes
from bot.masking.wrapped import wrapped_edits
from bot.terminal import may_hold_codes

# The lines that can teach a name hold one of the detectors' anchor words, or `@`
# (`alice@login01`, e-mail addresses). Raw bytes, ASCII case folded, like the words.
# So do the words of the rows that learn a login from what a person's things are named
# (branches, namespaces, pods), which gate those rows by line and are no anchor words.
# So do the literals of cloud account ids' shapes: an id found once is masked where it recurs
# bare (`--format='value(projectNumber)'` answers, prose), in every piece.
_TEACHING_WORDS = [
    w for w in dict.fromkeys((*WORDS, "@", *SHORTLOG_WORDS, *OWNER_LINE_WORDS, *POD_LINE_WORDS, *ACCOUNT_TEACHING_WORDS)) if w not in GATE_ONLY
]
# A container log's entries hold their line ends JSON-escaped (`10:42 AM\\n"`): the words
# that end a line are looked for that way too (bot/masking/containerlog.py).
# Anchor words whose rows read them only as a word of their own: glued to a letter they are
# another word, and its line teaches nothing. NCCL's `nRanks 16 nNodes 2` holds `nodes ` on
# every comm line (150-200 lines of each MB of an NCCL log, a fifth of its learning's CPU).
_TEACHING = LinesWith(
    dict.fromkeys([*_TEACHING_WORDS, *(w.replace("\n", "\\n") for w in _TEACHING_WORDS if "\n" in w)]),
    not_after_letter=("nodes ",),
)


# Table headers teach with the rows under them (sacct, squeue, sinfo, ps, kubectl get pods):
# the header line and up to _TABLE_ROWS lines after it.
_TABLE_TEACHING = Words(["jobid ", "nodelist", "nominated node", " pid ", "ready   status"], fixed=True)
_TABLE_ROWS = 64

# Pointers and ids (`comm 0x7f3a9c0b2e10` in NCCL's init lines): numbers, not names.
_HEX_NUMBER = re.compile(rb"0[xX][0-9a-fA-F]{1,16}(?![0-9a-fA-F])")
# A request's, a file's or a task's UUID or hash (`cache-3f2a9c0b1e4d.arrow`), read on a line
# whose digits are 0 already: a hex run that mixes letters and digits. A loader that names a
# new shard, request or object on every line would otherwise be a new shape on every line, and
# each one a full mask (such a log learned at 3.6 MB/s). Like two account ids that differ only
# in digits, two hex values under one key on lines of one shape are learned once, not twice.
# Tried only on a line whose shape is new by its digits: the lookarounds cost ~10x
# `_HEX_NUMBER` on a line, and most teaching lines repeat a shape already read.
_HEX_ID = re.compile(
    rb"(?<![0-9A-Za-z])(?:[0a-f]{8}(?:-[0a-f]{4}){3}-[0a-f]{12}|(?=[0a-fA-F]*0)(?=[0a-fA-F]*[a-fA-F])[0a-fA-F]{8,})(?![0-9A-Za-z])"
)
# Where `_HEX_ID` can match: a run of hex digits and dashes of 8 or more. Its lookarounds make
# the regex engine try every position of a line (~20 ns a byte: most of learning's CPU on a
# server log of a new request id a line); this plain run is found 2-3x faster, and `_HEX_ID`
# then reads only the run with the one byte either side its lookarounds look at.
_HEX_RUN = re.compile(rb"[0a-fA-F][0a-fA-F-]{7,}")


def _hex_ids_as_one(shaped: bytes) -> bytes:
    """`_HEX_ID.sub(b"0x", shaped)`: each hex id of a digit-shaped line read as `0x`."""
    return _HEX_RUN.sub(_hex_run_as_one, shaped)


# A base64 id on a digit-shaped line (S3's `x-amz-id-2` and its like, new on every response):
# 16 or more base64 characters that mix capitals, small letters and digits, ended by their
# padding. The padding is asked for: a path or a login of mixed case and digits
# (`/scratch/JohnSmith0/Exp0`) spells no base64 id, and only an encoding ends in `=`. As with
# hex ids, two such values in lines of one shape are learned once, not twice, unless a secret's
# key stands in the snippet (`_b64_ids`).
_B64_ID = re.compile(
    rb"(?<![A-Za-z0-9+/=])(?=[A-Za-z0+/]*0)(?=[A-Za-z0+/]*[A-Z])(?=[A-Za-z0+/]*[a-z])[A-Za-z0+/]{16,}={1,2}(?![A-Za-z0-9+/=])"
)


# A secret's key among a snippet's words: its padded base64 values are then values, not ids
# (`password: cGFzc3dvcmQ=` of a Kubernetes secret's data, twice with two values), each learned.
# A key stands as a word before its `:` or `=`, not inside a base64 run (`...Kkey4X==`).
_SECRET_WORDS = (b"pass", b"secret", b"token", b"key", b"auth", b"pwd", b"cred")
_SECRET_KEY_WORD = re.compile(rb"(?i)(?<![A-Za-z0-9+/])(?:[a-z]+_)?(?:pass|secret|token|key|auth|pwd|cred)[\w-]*[\x22']?[ \t]*[:=]")


def _b64_ids(digits: bytes) -> bool:
    """Whether the snippet's padded base64 runs are ids (read as one shape) rather than values."""
    if b"=" not in digits:
        return False
    lowered = digits.lower()  # (the words found by memchr first: most snippets hold none)
    return not (any(word in lowered for word in _SECRET_WORDS) and _SECRET_KEY_WORD.search(digits))


def _line_shapes(digits: bytes) -> bytes:
    """The shape a teaching snippet is remembered by (its digits already 0): its base64 ids,
    hex numbers and hex ids each read as `0x`."""
    if _b64_ids(digits):  # (a base64 id ends in its padding; the regex costs ~20 ns a byte)
        digits = _B64_ID.sub(b"0x", digits)
    return _hex_ids_as_one(_HEX_NUMBER.sub(b"0x", digits))


# A digit-shaped snippet with every hex digit read as 0: its skeleton. Two snippets of one
# skeleton differ only in hex digits: in the hex numbers and ids `_line_shapes` reads as `0x`
# (a server's request lines, a new id each), or elsewhere (`USER=dan`, `USER=ben`).
_HEX_AS_ZERO = bytes.maketrans(b"abcdefABCDEF", b"000000000000")
# Skeletons remembered, each with the first snippet read of it: a log has a few that recur (a
# snippet is ~1 KB, a table's up to ~15 KB, kept three times over once it recurs).
_SKELETONS_MAX = 512


def _outside_ids(digits: bytes) -> int:
    """A digit-shaped snippet as a mask: 0xFF at each byte outside its hex numbers and hex ids
    (what `_line_shapes` keeps), 0 inside them; as a number, to AND with another's XOR."""
    kept = bytearray(b"\xff") * len(digits)
    for pattern in (_B64_ID, _HEX_NUMBER, _HEX_ID) if _b64_ids(digits) else (_HEX_NUMBER, _HEX_ID):
        for m in pattern.finditer(digits):
            kept[m.start() : m.end()] = bytes(m.end() - m.start())
    return int.from_bytes(kept)


def _hex_run_as_one(run: re.Match[bytes]) -> bytes:
    text, (start, end) = run.string, run.span()
    lo = max(0, start - 1)
    window = _HEX_ID.sub(b"0x", text[lo : end + 1])
    return window[start - lo : len(window) - (end < len(text))]


# Shorter secret values are not masked wherever they recur: `abc` would hit ordinary words.
_MIN_LEARNED_SECRET = 6
# Teaching-line shapes remembered across pieces (about 100 bytes each).
_TAUGHT_MAX = 50_000
# The line after a teaching line is read this far: it may hold the value of a key on the line
# before. A progress bar written to a file is one line of an epoch's updates (hundreds of KB):
# after a checkpoint line (`/checkpoint`) it was read whole each epoch, a new shape every time,
# through every detector (tqdm's log learned at 12 ms a MB, the NCCL families' at 2.5).
_VALUE_LINE_BYTES = 4096


@dataclass(frozen=True)
class MaskResult:
    text: MaskedText  # the masked text, same number of lines as the input
    counts: dict[str, int]  # kind -> number of values masked, e.g. {"hf-token": 1, "ip": 3}


class Masker:
    """Stateful masker for one log: placeholders stay consistent across calls.

    `mask` takes whole lines. A PEM block or Kubernetes `data:` block may open in one piece and
    close in a later one. Names learned anywhere (`/home/alice`, `MASTER_ADDR=`, an NCCL
    prefix), by `mask` or by `learn`, are masked in everything masked after.
    """

    def __init__(self) -> None:
        self._state = LogState()
        # Learning runs the same passes on the teaching lines and keeps only the names: its
        # own placeholders and open blocks must not shift what `mask` later emits.
        self._learning = LogState(
            users=self._state.users, hosts=self._state.hosts, names=self._state.names, teams=self._state.teams,
            org_domains=self._state.org_domains, path_users=self._state.path_users, learning=True,
        )
        # The digit shapes of the teaching lines already read: a log prints the same few
        # teaching lines (NCCL's `... via P2P/IPC`, a node list) in every piece, with other
        # numbers, and those teach nothing new (as within a piece, where lines that differ
        # only in digits are read once). Bounded: a log of endlessly new shapes forgets.
        self._taught: set[bytes] = set()
        # The first snippet read of each skeleton (`_HEX_AS_ZERO`), its lines among `_taught`;
        # once a second comes, as a number and where its ids are not (`_outside_ids`).
        self._read: dict[bytes, bytes | tuple[int, int]] = {}

    def mask(self, text: str) -> MaskedText:
        """Mask one piece of text (whole lines) and return it."""
        if not text:
            return seal(text)
        return seal(_mask_all(text, self._state))

    def learn(self, data: bytes) -> None:
        """Read a piece of the raw log (whole lines, UTF-8) for user and host names only.

        Costs one line per digit shape, found in C (no regex runs per line); the NCCL prefix
        regex and the anchor-word automaton read those lines only, and the passes run only
        on the distinct lines that hold an anchor word.
        """
        if not data:
            return
        # One line of each shape: a log repeats its lines with other numbers (steps, pids,
        # timestamps) a million times, and those teach nothing new. Nor do the NCCL prefixes
        # of hosts whose names differ only in digits (`gpu-node-017`, `gpu-node-018`): a
        # learned host's siblings are masked by its digit shape (bot/masking/learned.py).
        # (Cut once, each line translated by `map` in C: a third cheaper than cutting the
        # translated piece as well.)
        cut = data.split(b"\n")
        shapes = dict(zip(map(bytes.translate, cut, repeat(DIGITS_AS_ZERO)), cut, strict=True))
        data = b"\n".join(shapes.values())
        learn_nccl_hosts_bytes(data, self._learning)
        learn_pdsh_labels_bytes(data, self._learning)
        lines: dict[bytes, None] = {}
        end = -1
        for _, start, _ in _TABLE_TEACHING.find(data):
            if start <= end:
                continue
            begin = data.rfind(b"\n", 0, start) + 1
            end = begin
            for _ in range(_TABLE_ROWS + 1):
                end = data.find(b"\n", end + 1)
                if end < 0:
                    end = len(data)
                    break
            lines.setdefault(data[begin:end], None)
        for end in _TEACHING.ends(data):
            begin = data.rfind(b"\n", 0, end) + 1
            # The line and the one after it: a key can stand on one line and its value on the
            # next (`- name: DB_PASSWORD` / `value: ...`); of that line, as far as a value goes.
            after = data.find(b"\n", end + 1, end + 1 + _VALUE_LINE_BYTES)
            lines.setdefault(data[begin : min(len(data), end + 1 + _VALUE_LINE_BYTES) if after < 0 else after], None)
        taught, read = self._taught, self._read
        if len(taught) > _TAUGHT_MAX:
            taught.clear()
            read.clear()  # (its snippets' lines are no longer known to be taught)
        if len(read) > _SKELETONS_MAX:
            read.clear()
        new = []
        for snippet in lines:
            # A snippet of lines all read before (a key line and its value line, a table
            # header and its rows) teaches nothing new; a new line, key or value, is read with
            # the lines around it, which give it its meaning.
            digits = snippet.translate(DIGITS_AS_ZERO)
            skeleton = digits.translate(_HEX_AS_ZERO)
            known = read.get(skeleton)
            if known is None:
                read[skeleton] = digits
            else:
                if isinstance(known, bytes):  # its second snippet: worth the regexes
                    known = read[skeleton] = (int.from_bytes(known), _outside_ids(known))
                # Found in C: a snippet that differs from the first of its skeleton only inside
                # that one's hex numbers and ids (a request line's new id) reads as it did. (Its
                # own ids need not be ids by `_HEX_ID`'s letter: `00000000` for `0f3a9c0b`.)
                if not (int.from_bytes(digits) ^ known[0]) & known[1]:
                    continue
            line_shapes = _line_shapes(digits).split(b"\n")
            if not taught.issuperset(line_shapes):
                taught.update(line_shapes)
                new.append(snippet)
        if new:
            text = b"\n".join(new).decode("utf-8", "replace")
            learning = self._learning
            _mask_all(text, learning)
            learning.pem_open, learning.pem_escaped_open = False, False
            learning.data_indent, learning.open_table = None, None
            for value, kind in learning.table.recurring():
                if len(value) >= _MIN_LEARNED_SECRET:
                    self._state.secrets.setdefault(value, kind)

    @property
    def counts(self) -> dict[str, int]:
        """Kind -> number of values masked so far (by `mask`; learning counts nothing)."""
        return self._state.table.counts

    def host(self, name: str) -> MaskedText:
        """The placeholder of a name known to be a host (a line prefix's host field)."""
        self._state.learn_host(name)
        return self.mask(name)


# One Hyperscan database per stage over its gated rows' line anchors and triggers (gate.py).
_GATES: dict[str, Gate] = {stage: Gate([d for d in rows if d.gated]) for stage, rows in BY_STAGE if any(d.gated for d in rows)}


def _mask_all(text: str, state: LogState) -> str:
    """Mask `text`; container log entries (bot/masking/containerlog.py) as the lines they hold."""
    entries = mask_entries(text, lambda plain: _mask_text(plain, state))
    return _mask_text(text, state) if entries is None else entries


def _mask_text(text: str, state: LogState) -> str:
    """Mask plain text, terminal colour codes kept out of the detectors' way (terminal.py, which
    alone knows their forms)."""
    if may_hold_codes(text):
        return mask_through_terminal_codes(text, lambda clean: _mask_clean(clean, state))
    return _mask_clean(text, state)


def _mask_clean(text: str, state: LogState) -> str:
    """Run the detectors table's stages in order (bot/masking/detectors.py), then the
    learned names and secrets wherever they recur."""
    hits: list[tuple[str, int, int]] = []
    present: set[str] = set()
    line_count = text.count("\n") + (not text.endswith("\n"))  # for every stage's gate: one count
    for stage, detectors in BY_STAGE:
        if stage == "secrets":
            # Anchor words after the blocks stage; their positions hold for this stage only,
            # and which words are present stays true after it (placeholders add none).
            hits = find_anchors(text)
            present = present_words(text, hits)
        scan = Scan(text, hits, present, [], state)
        gate = _GATES.get(stage)
        row_lines = gate.spans(text, line_count) if gate is not None else {}
        for detector in detectors:
            if not detector.gated:
                detector.find(scan)
                continue
            lines = row_lines[detector.name]
            if lines:
                joined, joined_starts, text_starts = gated_text(text, lines)
                sub = Scan(joined, [], present, [], state)
                detector.find(sub)
                scan.edits.extend(remap(sub.edits, joined_starts, text_starts))
        if stage == "secrets":
            scan.edits.extend(wrapped_edits(text, partial(_line_edits, detectors=detectors, state=state), folds=not state.learning))
        masked = apply_edits(text, scan.edits, state.table)
        if masked is not text:
            carry_prefix_hosts(text, scan.edits, masked)  # (the leftover pass reads it again)
        text = masked
    text = mask_learned_secrets(text, state)  # (learning too: a secret put here is learned)
    # Learning keeps what the passes learn, not their text, and masking a learned name learns
    # nothing: it would only compile the names' automaton again for each piece that teaches one.
    return text if state.learning else mask_learned_names(text, state)


def _line_edits(line: str, detectors: tuple[Detector, ...], state: LogState) -> list[Edit]:
    """The edits a stage's detectors make on one line read alone (a wrapped line joined again):
    every row runs on it whole, which for a gated row finds what its gate would let it find."""
    hits = find_anchors(line)
    scan = Scan(line, hits, present_words(line, hits), [], state)
    for detector in detectors:
        detector.find(scan)
    return scan.edits


def mask(text: str) -> MaskResult:
    """Mask secrets and personal data in a whole log."""
    masker = Masker()
    masked = masker.mask(text)
    return MaskResult(text=masked, counts=masker.counts)
