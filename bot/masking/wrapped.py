"""Values a terminal wrapped: one long line cut at the window's width, its last word running on
over the lines below.

A log copied out of a terminal (or a chat that hard-wraps) holds `[rank0]: OPENAI_API_KEY=sk-pr`
on a line exactly as wide as the window, and the rest of the key alone on the next lines. Each
piece alone is no key: the detectors would mask the head under its key and leave the tail. The
secrets stage reads such a run of lines once more as the one line it was (`wrapped_edits`), and
keeps the edits that reach across a cut; the cuts' newlines stay after the placeholder
(edits.py), so no line moves.

A run: a line at least _MIN_WIDTH wide that holds a blank or a mark outside a token's letters
(a key, a prompt), or opens with `NAME=` at column 0, and ends in a token's letter, then lines
of token letters alone (no `=` but base64's padding, a digit somewhere or letters whose
cases mix as no word's do, not a number or a version standing alone), each as wide as the
first but the last, which may be narrower, and may go on after the key's rest with what the
line held after the key (a closing quote, the next flag or field). One cut at a width no
terminal opens with is a wrap too (a pane, a chat's column), unless the line below is whole as
it stands (a commit SHA, a digest, a UUID under a key line). A certificate's or a hex dump's
lines are token letters alone from their first line on, so they never open a run. (Token
letters include a JSON escape's backslash: a service account's `private_key` wraps as
`...\\nMIIE...` lines.)
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate, compress

from bot.literals import Words, one_byte
from bot.masking.edits import Edit
from bot.masking.frames import reading_view
from bot.masking.vendor import find_vendor_tokens

# The letters of tokens, keys and their encodings (base64, base64url, JWTs, URL-encoding).
_TOKEN = "A-Za-z0-9+/=_.~%\\\\-"
# A line of token letters alone, after a newline; or the run's last line, where the key's
# rest is followed by what the line held after the key: a closing quote, the next flag, the
# next field (`...Xb3l9O', seed=42)`, `...7b55b803 --output_dir /ckpt`, `...==;EndpointSuffix=`).
# (Possessive, and no `=` but base64's padding at the end: `KEY=value` lines, which a run
# never holds, fail at their `=` without a turn of the loop below, and nothing backtracks.
# A timestamp's `2026-12-05T10:` and a pdsh host's `node-3:` go on with a colon, which closes
# no value here; a rest must mix a digit and a letter, checked in the loop.)
_CONTINUATION = re.compile(
    r"\n(?P<tok>[" + _TOKEN.replace("=", "") + r"]++={0,2}(?:\\[nrt])*+\\?+)(?P<rest>[\"'`\t ,;)\]}>|&][^\r\n]*+)?(?=\r?\n|\Z)"
)
_LETTER = re.compile(r"[A-Za-z]")
# A container runtime's JSON log line ends its `log` value in an escaped newline
# (`...iPq==\n", "stream": "stdout"`, after base64's padding too), and a value quoted inside
# it in an escaped quote (`...Xb3l9\"}\n"`): the escapes close the value, so the shape of a
# run's last line is read without them (a tail of letters alone, base64's padding).
_ESCAPES_AT_END = re.compile(r"(?:\\[nrt])*\\?\Z")
_CLOSING_QUOTE = re.compile(r"[\"'`][,;)\]}]{0,3}")
_TOKEN_CHAR = re.compile(r"[" + _TOKEN + r"]")
_TOKEN_LINE = re.compile(r"[" + _TOKEN + r"]+\Z")
_DIGIT = re.compile(r"[0-9]")
# A line of words: lower, capitalised, CamelCase, all-caps (`Killed`, `ChildFailedError`,
# `HTTPError`, `SIGKILL`, `torch.distributed`), parts joined by `.`, `_` or `-`. Random
# letters of both cases are almost never that shape, and some keys have letters alone (a
# Hugging Face token: `hf_` and 34 of them): the rest of one holds no digit to tell it by.
_WORD = r"[A-Z]*[a-z]*(?:[A-Z][a-z]+)*"
_WORDS = re.compile(_WORD + r"(?:[._-]" + _WORD + r")*")
# A line of random letters at least this long is a key's rest without a digit.
_MIN_LETTERS_REST = 8
# A value of its own on the line under a key: a number, a percentage, a version, a word and
# a number (`0.5123`, `12345`, `100%`, `1e-05`, `v2.3.1`, `step_1200`, `epoch-3`). The rest
# of a random key is almost never that shape (six base62 letters all digits: 2 in 100,000),
# except a hex key's, whose rest may be digits alone: under a line ending in hex letters a
# line of hex letters still goes on.
_PLAIN_VALUE = re.compile(r"(?:[a-z]{2,}[_.-]?)*[vV]?[-+]?[0-9][0-9.,%eE+_-]*")
_HEX_TAIL = re.compile(r"[0-9a-f]{16}\Z")
_HEX = re.compile(r"[0-9a-f]+")
# A line of token letters alone that still holds a key: `NAME=value` (base64 pads only at
# its end, so a `=` before other letters is an assignment's).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=[^=]")
# What a line holds whole: a commit SHA, an image digest, a UUID.
_WHOLE_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Narrower windows than this hold no line worth wrapping a key on.
_MIN_WIDTH = 40
# One cut alone at a width terminals open with is a wrap whatever the line below holds; at
# another width, not when that line is a whole id (_WHOLE_ID). (A key printed just before a
# setting, `MISTRAL_API_KEY=...` above `TOKENIZERS_PARALLELISM=false`, is no run: `=`.)
_WINDOW_WIDTHS = frozenset((80, 100, 120, 132, 160, 200))
_WINDOW_WIDTHS_CR = _WINDOW_WIDTHS | {width + 1 for width in _WINDOW_WIDTHS}  # (with a CRLF line's `\r`)
# A key wrapped over more lines than this is a blob (a JWT at 40 columns is 25 lines): a run
# is read again whole as one line, and a base64 dump under a key must not become one.
_MAX_RUN_LINES = 64


# Tokens of one fixed length, and keys whose values have one: a line ending in such a token's
# head, the line below holding exactly the letters it lacks, is one token cut by the width,
# even when those few letters hold no digit (a Hugging Face token's are letters alone).
# (head at the line's end, the letters the rest may hold, the token's whole length; 0 when
# the rest's own shape says it is whole)
_FIXED_LENGTH: tuple[tuple[re.Pattern[str], re.Pattern[str], int], ...] = (
    (re.compile(r"(?<![\w-])(hf_[A-Za-z]{0,33})\Z"), re.compile(r"[A-Za-z]+"), 37),
    (re.compile(r"(?<![\w-])((?:gh[pousr]|npm)_[A-Za-z0-9]{1,35})\Z"), re.compile(r"[A-Za-z0-9]+"), 40),
    (re.compile(r"(?<![\w-])(glpat-[\w-]{1,19})\Z"), re.compile(r"[\w-]+"), 26),
    (re.compile(r"(?<![\w-])(github_pat_[A-Za-z0-9_]{1,81})\Z"), re.compile(r"[A-Za-z0-9_]+"), 93),
    # Slack's tokens end in 24 letters after their numbers; Stripe's keys in 24 or 99.
    (re.compile(r"(?<![\w-])xox[abposr]-[0-9-]{10,60}-([A-Za-z0-9]{1,23})\Z"), re.compile(r"[A-Za-z0-9]+"), 24),
    # (Cut inside its numbers, a Slack token's rest is the numbers' rest and the 24 letters.)
    (re.compile(r"(?<![\w-])xox[abposr]-[0-9]{1,14}-?([0-9]{0,14})\Z"), re.compile(r"[0-9]*-?[0-9]+-[A-Za-z0-9]{24}"), 0),
    (re.compile(r"(?<![\w-])[sr]k_(?:live|test)_([A-Za-z0-9]{1,23})\Z"), re.compile(r"[A-Za-z0-9]+"), 24),
    (re.compile(r"(?<![\w-])[sr]k_(?:live|test)_([A-Za-z0-9]{1,98})\Z"), re.compile(r"[A-Za-z0-9]+"), 99),
    # Anthropic's keys (`sk-ant-api03-` and 95 more, ending `AA`), OpenAI's project keys and
    # legacy user keys (`sk-` and 48 more).
    (re.compile(r"(?<![\w-])(sk-ant-(?:api|admin)0\d-[\w-]{1,94})\Z"), re.compile(r"[\w-]+"), 108),
    (re.compile(r"(?<![\w-])(sk-proj-[\w-]{1,155})\Z"), re.compile(r"[\w-]+"), 164),
    # NVIDIA's API keys: `nvapi-` and 64 more.
    (re.compile(r"(?<![\w-])(nvapi-[\w-]{1,63})\Z"), re.compile(r"[\w-]+"), 70),
    (re.compile(r"(?<![\w-])(sk-[A-Za-z0-9]{1,47})\Z"), re.compile(r"[A-Za-z0-9]+"), 51),
    (
        re.compile(r"(?i:aws_secret_access_key|secretaccesskey|aws-secret-access-key)[\"']?[ \t]*[:= \t][ \t]*[\"']?([A-Za-z0-9+/]{1,39})\Z"),
        re.compile(r"[A-Za-z0-9+/]+"),
        40,
    ),
    (re.compile(r"(?i:wandb_api_key)[\"']?[ \t]*[:=][ \t]*[\"']?([0-9a-f]{1,39})\Z"), re.compile(r"[0-9a-f]+"), 40),
)
_FIXED_REACH = 200
# A literal each head of _FIXED_LENGTH holds, found by the literal engine (one pass in C; a
# regex alternation over every piece cost a quarter of what this module added to `denpex
# mask`). Any case: the heads' own patterns decide.
_FIXED_HINT = Words(["hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "npm_", "glpat-", "sk-", "xox",
                     "k_live_", "k_test_", "ecret", "andb", "nvapi-"], fixed=True)


def _hint_ends(text: str) -> list[int]:
    """Where each literal of _FIXED_HINT ends in `text`, in order (overlapping ones too)."""
    return sorted(start + len(word) for word, starts in zip(_FIXED_HINT.words, _FIXED_HINT.starts(one_byte(text)), strict=True)
                  for start in starts)


def _completes_fixed_token(text: str, prev_end: int, tail: str, hints: list[int]) -> bool:
    """The line before ends in the head of a token of fixed length and `tail` is its rest.
    `hints`: where each literal of a head ends in `text`, in order (most lines below a line
    are no key's rest, and hold no such literal just above them)."""
    i = bisect_left(hints, prev_end - _FIXED_REACH)
    if i == len(hints) or hints[i] > prev_end:
        return False
    if len(tail) >= 4 and tail.isalpha() and tail.islower() and prev_end - text.rfind("\n", 0, prev_end) - 1 not in _WINDOW_WIDTHS:
        # Four random letters or more are all lower case rarely (1 in 16 of a Hugging Face
        # token's, 1 in 30 of a Slack token's); a lower-case word under a line a terminal did
        # not cut at its width is a word (`bkua` under a Slack token whose last part it would
        # fill to 24), not the token's rest. (Fewer letters cut off leave too little to tell.)
        return False
    before = text[max(0, prev_end - _FIXED_REACH) : prev_end]
    for head, letters, length in _FIXED_LENGTH:
        m = head.search(before)
        if m is not None and (length == 0 or len(m.group(1)) + len(tail) == length) and letters.fullmatch(tail):
            return True
    return False


def _bare_token_opens(text: str, prev_start: int, prev_end: int, start: int, end: int) -> bool:
    """A line of token letters alone opens a run when a vendor's token (a JWT, `hf_...`) starts
    it and goes on over the cut: a token `cat` from a file, wrapped from column 0. (A
    certificate's lines are token letters too, and no vendor's.)"""
    edits: list[Edit] = []
    find_vendor_tokens(text[prev_start:prev_end] + text[start:end], edits)
    return any(a == 0 and b > prev_end - prev_start for a, b, _, _ in edits)


def _continues_full_run(runs: list[list[int]], prev_end: int) -> bool:
    """The line ending at `prev_end` is a run's last and full: as wide as its first line, or,
    for a value that broke at its own width (base64 at 64 or 76) after a key that made the
    first line wider, as wide as its second."""
    if not runs or runs[-1][1] != prev_end:
        return False
    run = runs[-1]
    return run[3] == run[2] or (run[5] >= _MIN_WIDTH and run[3] == run[5])


def wrapped_runs(text: str, resumed: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """(start, end) of each run of lines that one wrapped line became (end: the last line's end).
    `resumed`: where lines start that a chat message's header stood above (frames.py): a value
    split over two messages goes on at any length, not at the first line's width."""
    if "\n" not in text:
        return []
    # [start, end, width, last line's width, lines, second line's width]
    runs: list[list[int]] = []
    hints: list[int] | None = None  # (found at the first line that needs them)
    for m in _CONTINUATION.finditer(text):
        start, end = m.start() + 1, m.end()
        width = end - start
        last = m.group("rest") is not None  # more than the key's rest: the run ends here
        tok = _ESCAPES_AT_END.sub("", m.group("tok")) if last else m.group("tok")
        line = "\n" + tok
        prev_end = start - 1 - (text[start - 2 : start - 1] == "\r")
        if last and (_DIGIT.search(line) is None or _LETTER.search(line) is None):
            # A key's last few letters may hold no digit: under full lines of a run that goes
            # on, with the value's closing quote alone after them, they close it (`...tuYEap'`
            # in a box's fold); alone, or with more after them, they are words.
            reject = not (
                _LETTER.search(line) is not None
                and _CLOSING_QUOTE.fullmatch(m.group("rest")) is not None
                and _continues_full_run(runs, prev_end)
            )
        elif "=" in line.rstrip("=") or (
            _DIGIT.search(line) is None and (len(line) - 1 < _MIN_LETTERS_REST or _WORDS.fullmatch(line, 1))
        ):
            # `KEY=value` opens a line of its own (base64 pads only at its end); a line without
            # a digit is words (`torch.distributed...ChildFailedError`, `Killed`), not the rest
            # of a key, whose random letters hold a digit in almost any stretch of a dozen, or
            # mix their cases as no word does (the last few letters of one may not: those few
            # go on only after the head of a token whose length is fixed, _FIXED_LENGTH).
            reject = True
        else:
            # A number or a step name printed under the key line is no part of the key.
            reject = _PLAIN_VALUE.fullmatch(line, 1) is not None and not (
                _HEX.fullmatch(line, 1) and _HEX_TAIL.search(text, max(0, prev_end - 16), prev_end)
            )
        # A fixed-length token's rest goes on where the shapes above turn it away, or under a
        # line too narrow to open a run.
        fixed = False
        if reject or prev_end - text.rfind("\n", 0, prev_end) - 1 < _MIN_WIDTH:
            if hints is None:
                hints = _hint_ends(text)
            fixed = _completes_fixed_token(text, prev_end, tok, hints)
        if reject and not fixed:
            continue
        if runs and runs[-1][1] == prev_end:
            run = runs[-1]
            if _continues_full_run(runs, prev_end) and width <= run[3] and run[4] < _MAX_RUN_LINES:
                run[1], run[3] = end, (-1 if last else width)
                run[4] += 1
                continue
        prev_start = text.rfind("\n", 0, prev_end) + 1
        prev_width = prev_end - prev_start
        if fixed or (
            prev_width >= _MIN_WIDTH
            and (width <= prev_width or start in resumed)
            and _TOKEN_CHAR.match(text, prev_end - 1)
            and (
                not _TOKEN_LINE.match(text, prev_start, prev_end)
                or _ASSIGNMENT.match(text, prev_start, prev_end)
                or _bare_token_opens(text, prev_start, prev_end, start, end)
            )
        ):
            runs.append([prev_start, end, prev_width, -1 if last else width, 2, width, _WHOLE_ID.fullmatch(line, 1) is not None])
    # (A run that ends in a key's rest and more text is a wrap at any width: a line of its
    # own does not open with a key's letters glued to a closing quote or the next flag.)
    # Cut once at a width no terminal opens with, a run is still a wrap (a pane, a chat's
    # column), unless its second line is whole as it stands: a commit, a digest or a UUID
    # printed under a key line is its own value.
    return [(run[0], run[1]) for run in runs if run[4] > 2 or run[2] in _WINDOW_WIDTHS or not run[6]]


# A URL's userinfo cut by the width inside the password (`postgresql://svc:Xk29` / `fLq8@db-3:5432/x`):
# the `@` that says it was userinfo is on the next line, so neither line shows a credential.
_URL_CUT = re.compile(r"://[^\s/@\"'<>`]{1,256}:[^\s/@\"'<>`]{0,512}\r?\n[^\s/@\"'<>`]{0,512}@")


def url_cut_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each pair of lines a URL's userinfo was cut over."""
    if "://" not in text:
        return []
    runs = []
    for m in _URL_CUT.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        runs.append((start, len(text) if end < 0 else end))
    return runs


# What a folded line's next line may hold before a value it carries on: the rest of the key's
# name, its closing quote, the separator and the value's opening quote (`SSWORD=`, `KEN=`,
# `word": "`, `'`); a value whose key or separator the fold cut is read only there.
_LEAD = re.compile(r"[\w.-]{0,48}[\"']?[ \t]*(?:[:=][ \t]*)?[\"']?")
# A line of its own after a line that happened to fill the window: an error, a level, a signal.
# What it holds is never read as the value of a key the line above ends in.
_DIAGNOSTIC = re.compile(
    r"[ \t]*(?:Traceback \(|[\w.]*(?:Error|Exception|Warning|Fault|Interrupt|Exit)\b|Killed\b|Segmentation fault"
    r"|NCCL (?:WARN|INFO)\b|(?:WARN(?:ING)?|ERROR|INFO|DEBUG|CRITICAL|FATAL|E\d{4}|W\d{4}|I\d{4})\b)"
)


# A command a shell reads over lines: ` \\` ends each line but the last.
_SHELL_CONTINUED = " \\\n"


def shell_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each command continued over lines with ` \\` (a flag on one line, its
    value on the next: `--db-password \\` then `    'value' \\`)."""
    runs: list[tuple[int, int]] = []
    # (A backslash first, found by memchr: most logs hold none, and a search for the three
    # characters stops at every line's end.)
    pos = text.find(_SHELL_CONTINUED) if "\\" in text else -1
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = pos + 2
        while True:
            # The next line's end, if that line is continued too (none after the text's last
            # line: `find` gives -1 there, which must not read the text's tail as a line end).
            nxt = text.find("\n", end + 1)
            if nxt < 0 or not text.startswith(_SHELL_CONTINUED, nxt - 2):
                break
            end = nxt
        end = len(text) if nxt < 0 else nxt
        runs.append((start, end))
        pos = text.find(_SHELL_CONTINUED, end)
    return runs


# A secret key's words, one of which a fold that cut a key or a value has near its cut (the
# key's name, or the key before a password's first letters): lines that merely fill the window
# (a worker's metrics, stripped of their colours, all 120 wide) are not read again. Matched on
# the lowered text: `re` skips to a word's first letter there, where `(?i:...)` tried every
# position (28 us a cut, 0.4 s of ray-train's 30 MB, every line of which is 120 wide).
# (`sid` only before its separator, as Twilio's key ends: NCCL's `busId 3a000` on every
# communicator's line, 132 wide on Ray's workers, is none.)
_KEY_HINT = re.compile(r"pass|pwd|secret|token|key|auth|cred|sig|login|sid[\"']?[ \t]*[:=]")
# (The words that can begin it, found in all of a text's runs at once by one Hyperscan scan:
# a run at a time, `re` or `in` cost more than the rest of the fold reading.)
_HINT_WORDS = Words(("pass", "pwd", "secret", "token", "key", "auth", "cred", "sig", "login", 'sid"', "sid'", "sid ", "sid\t", "sid:", "sid="), fixed=True)
_HINT_REACH = 80


def _key_near_cuts(text: str, start: int, end: int) -> bool:
    """Whether a secret key's word stands near one of the cuts of the run text[start:end]."""
    cut = text.find("\n", start, end)
    while cut >= 0:
        # (Read across the cut: a key's word may stand on both sides, `DB_PA` / `SSWORD`.)
        near = text[max(start, cut - _HINT_REACH) : cut].rstrip("\r\\") + text[cut + 1 : min(end, cut + 24)]
        if _KEY_HINT.search(near.lower()) is not None:
            return True
        cut = text.find("\n", cut + 1, end)
    return False


def window_runs(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, marked) of each run of lines a terminal or a pager folded at its width: lines
    of one window's width, then the line they go on in (`marked`: each full line's last column
    is the pager's `\\`, no part of the line)."""
    lines = text.split("\n")
    last = len(lines) - 1
    crlf = "\r" in text  # (a CRLF line's `\r` is no column; tqdm's bars hold `\r` mid-line)

    def width(k: int) -> int:
        return len(lines[k]) - (crlf and lines[k].endswith("\r"))

    # (Which lines are a window's wide, by their length, in C: they are few, and a step of
    # Python a line cost more than the split. Where each starts is summed from the last one's.)
    lengths = _WINDOW_WIDTHS_CR if crlf else _WINDOW_WIDTHS
    runs: list[tuple[int, int, bool]] = []
    after = 0
    seen, seen_start = 0, 0  # (a line's index and its start)
    for i in compress(range(last), map(lengths.__contains__, map(len, lines))):
        full = width(i)
        if i < after or full not in _WINDOW_WIDTHS or width(i + 1) == 0:
            continue
        start = seen_start + sum(map(len, lines[seen:i])) + i - seen
        seen, seen_start = i, start
        marked = text[start + full - 1] == "\\"
        j, end = i + 1, start + len(lines[i]) + 1  # (end: where line j starts)
        while j < last and j - i + 1 < _MAX_RUN_LINES and width(j) == full and (text[end + full - 1] == "\\") == marked and width(j + 1) != 0:
            end += len(lines[j]) + 1
            j += 1
        end += len(lines[j])
        runs.append((start, end, marked))
        after = j + 1
    if not runs:
        return runs
    # Only runs that hold a key's word anywhere, read as one line (most hold none: two NCCL lines
    # that happen to fill the window), are looked at cut by cut.
    pieces = [text[start:end].replace("\n", "").replace("\r", "").replace("\\", "") for start, end, _ in runs]
    offsets = list(accumulate((len(piece) + 1 for piece in pieces), initial=0))
    hinted = {bisect_right(offsets, at) - 1 for _, at, _ in _HINT_WORDS.find(one_byte("\n".join(pieces)))}
    return [run for k, run in enumerate(runs) if k in hinted and _key_near_cuts(text, run[0], run[1])]


def _to_text(pos: int, joined_starts: list[int], text_starts: list[int], *, at_end: bool) -> int:
    """Where a position of the joined line stands in the text; on a cut, the end of the line
    before it when it ends a span, the start of the line after when it starts one."""
    i = len(joined_starts) - 1
    while joined_starts[i] > pos or (at_end and i > 0 and joined_starts[i] == pos):
        i -= 1
    return text_starts[i] + pos - joined_starts[i]


def wrapped_edits(text: str, find: Callable[[str], list[Edit]], *, folds: bool = True) -> list[Edit]:
    """Edits `find` makes on each wrapped run read as one line, that reach across a cut, moved
    to where they stand in `text`; runs whose lines a box's frame or a chat header breaks
    (frames.py) too, read without them. `folds`: read lines a window's width folded too
    (window_runs); not when the text's lines are pieces of a log put side by side (learning's
    snippets), where a full line's next is no line it went on in."""
    out = _run_edits(text, find, folds=folds)
    read = reading_view(text)
    if read is not None:
        spans, resumed = read
        view = "\n".join(text[start:end] for start, end in spans)
        view_starts = _line_starts(spans)
        out.extend(_view_to_text(_run_edits(view, find, frozenset(view_starts[i] for i in resumed), folds=folds), spans, view_starts))
    return out


def _line_starts(spans: list[tuple[int, int]]) -> list[int]:
    """Where each span starts in the spans joined with newlines."""
    starts: list[int] = []
    pos = 0
    for start, end in spans:
        starts.append(pos)
        pos += end - start + 1
    return starts


def _view_to_text(edits: list[Edit], spans: list[tuple[int, int]], view_starts: list[int]) -> list[Edit]:
    """Edits found in the reading view, moved to the text: the placeholder where the value
    starts, the value's pieces on the lines below blanked (their frames and the headers
    between them stay)."""
    out: list[Edit] = []
    for first, last, kind, value in edits:
        i = bisect_right(view_starts, first) - 1
        j = bisect_right(view_starts, max(first, last - 1)) - 1
        for k in range(i, j + 1):
            line_start, (text_start, text_end) = view_starts[k], spans[k]
            a = max(first, line_start)
            b = min(last, line_start + text_end - text_start)
            if k == i:
                out.append((text_start + a - line_start, text_start + b - line_start, kind, value))
            elif b > a:
                out.append((text_start + a - line_start, text_start + b - line_start, "", ""))
    return out


def _run_edits(text: str, find: Callable[[str], list[Edit]], resumed: frozenset[int] = frozenset(), *, folds: bool = True) -> list[Edit]:
    """wrapped_edits on `text` read as it stands."""
    out: list[Edit] = []
    runs = [(start, end, "wrap") for start, end in wrapped_runs(text, resumed)]
    runs += [(start, end, "url") for start, end in url_cut_runs(text)]
    if folds:
        runs += [(start, end, "marked" if marked else "window") for start, end, marked in window_runs(text)]
        runs += [(start, end, "shell") for start, end in shell_runs(text)]
    for start, end, mode in runs:
        physical = text[start:end]
        pieces = [piece.removesuffix("\r") for piece in physical.split("\n")]
        if mode in ("marked", "shell"):
            pieces[:-1] = [piece[:-1] for piece in pieces[:-1]]
        joined = "".join(pieces)
        if mode == "shell" and not _key_near_cuts(physical, 0, len(physical)):
            continue
        # Where each piece starts in the joined line and in the text.
        joined_starts: list[int] = []
        text_starts: list[int] = []
        jpos, tpos = 0, start
        for piece in physical.split("\n"):
            joined_starts.append(jpos)
            text_starts.append(tpos)
            jpos += len(pieces[len(joined_starts) - 1])
            tpos += len(piece) + 1

        for a, b, kind, value in find(joined):
            first = _to_text(a, joined_starts, text_starts, at_end=False)
            last = _to_text(b, joined_starts, text_starts, at_end=True)
            # (Of a cut URL, every edit: its user stands on the first line whole, but only the
            # `@` on the next line says it is one.)
            if "\n" in text[first:last]:
                if mode in ("url", "wrap", "marked") or (mode == "window" and _folded_tail(joined, a, b, kind, joined_starts)):
                    out.append((first, last, kind, value))
            elif mode == "url" or (mode != "wrap" and _led_by_cut(joined, a, b, joined_starts)):
                out.append((first, last, kind, value))
    return out


# What a password's rest on a folded line holds that no token's letters do: a run of token
# letters (wrapped_runs) cannot go on over it. (Not a colon: a whole password ending a full
# line, a `host:pid:tid` prefix or a prompt under it is no rest of it.)
_PASSWORD_MARK = re.compile(r"[!#*@&$^]")
_NOT_PASSWORD = re.compile(r"[:<>]")
# What closes a value's rest on its line (as _CONTINUATION's `rest` opens).
_CLOSERS = frozenset("\"'`\t ,;)]}>|&")


def _folded_tail(joined: str, a: int, b: int, kind: str, joined_starts: list[int]) -> bool:
    """An edit across an unmarked fold whose rest wrapped_runs could not read: a password's with
    its marks (`...#Ag@`), or its last few letters; a rest the line goes on after. A value's rest of token letters alone is
    wrapped_runs' to judge (a whole key ending a full line, a word or a number below it)."""
    i = bisect_right(joined_starts, b - 1) - 1
    line_start = joined_starts[i]
    if _DIAGNOSTIC.match(joined, line_start) is not None:
        return False
    tail = joined[line_start:b]
    if kind == "password" and (len(tail) <= 3 or (_PASSWORD_MARK.search(tail) is not None and _NOT_PASSWORD.search(tail) is None)):
        return True
    if kind == "password" and b < len(joined) and joined[b] in "\"'" and a > 0 and joined[a - 1] == joined[b]:
        return True  # the rest closed by the quote that opened the value (`...QRvS',`)
    if a < joined_starts[i - 1] and "=" not in joined[a:b].rstrip("=") and (b == len(joined) or joined[b] in _CLOSERS):
        return True  # a whole folded line of the value above its rest: the value goes on
    # (An Anthropic key's `AA` under it.)
    # A rest the line goes on after (the next flag, a closing quote) that mixes a digit and a
    # letter as wrapped_runs' last line must, not a number or a step's name.
    line_end = joined_starts[i + 1] if i + 1 < len(joined_starts) else len(joined)
    return (
        b < line_end
        and joined[b] in _CLOSERS
        and _NOT_PASSWORD.search(tail) is None
        and _PLAIN_VALUE.fullmatch(tail) is None
        and _DIGIT.search(tail) is not None
        and _LETTER.search(tail) is not None
    )


def _led_by_cut(joined: str, a: int, b: int, joined_starts: list[int]) -> bool:
    """An edit on a folded run's later line that its key, cut by the fold, led to: the line holds
    only the key's rest and its separator before it, and is no line of its own (an error)."""
    i = bisect_right(joined_starts, a) - 1
    line_start = joined_starts[i]
    if i == 0 or _LEAD.fullmatch(joined, line_start, a) is None or _DIAGNOSTIC.match(joined, line_start) is not None:
        return False
    # A word alone (`Killed`, `ChildFailedError`) is a line's own, not a value the fold carried,
    # and so is a `host:pid:tid` prefix or a prompt under a full line with an empty value.
    return _WORDS.fullmatch(joined, a, b) is None and _NOT_PASSWORD.search(joined, a, b) is None
