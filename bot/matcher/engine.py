"""The matcher: scan a log once, score every rule, decide root cause and collateral.

Text flows through in chunks of whole lines (`Scan.feed`), so a file of any size is read once
and never held whole; only what the verdict needs is kept: per rule, the signatures hit, the
first hit of each (signature, rank), and the first hit per rank.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

import regex

from bot.dbcache import derived_literals
from bot.literals import DIGITS_AS_ZERO
from bot.matcher.blanking import Blanker, Literals
from bot.matcher.digit_anchors import (
    DigitContext,
    anchored_digits,
    digit_contexts,
    with_digits_as_zero,
)
from bot.matcher.lines import LineFacts, LineReader, parse_line, strip_prefixes
from bot.matcher.model import Diagnosis, Stats
from bot.matcher.prefilter import Condition, Prefilter
from bot.matcher.required import DERIVATION_VERSION, required_literals, score
from bot.matcher.rulebook import Rule, Rulebook, Signature
from bot.matcher.salient import (
    EXCEPTION_ONLY,
    PROBE_KEYWORDS,
    UNSETTLING_PROBES,
    WORLD_KEYWORDS,
    WORLD_SIZE_AT,
    LogFacts,
    repeat_effect,
)
from bot.matcher.verdict import decide

# A regex gets this long on one line before the line is skipped for that signature and
# counted in stats.regex_timeouts: one hostile line costs milliseconds, never a hang.
REGEX_TIMEOUT_S = 0.05
# Matching looks at the head of a line; a megabyte line of tensor dump holds no error text
# past this point that a signature is written for.
MAX_LINE_CHARS = 16_384
# The prefilter samples this much of a log, with every literal in its database, before it
# settles on a database for what follows (a paste is one piece: it is never resampled).
LEARN_BYTES = 4 * 1024 * 1024
# A log changes shape as it goes (an env and pip dump, then training lines): every
# RESAMPLE_EVERY bytes the prefilter samples RESAMPLE_BYTES again with every literal, and
# chooses anew; those bytes cost the full database's price (about 3% of a long log).
RESAMPLE_EVERY = 32 * 1024 * 1024
RESAMPLE_BYTES = 1024 * 1024
# Sooner when the log plainly changed shape: twice RESAMPLE_BYTES in a row (a failure's burst
# of lines is shorter) bring more than RESHAPED_RATIO times the candidate lines per byte the
# last sample saw, and RESHAPED_LINES more (an env dump, then Megatron iterations that print
# seven literals a line on a database chosen on the dump); at least RESHAPED_AFTER bytes after
# the last sample began, so a log whose pace swings costs at most one sample in that many bytes.
RESHAPED_RATIO = 2
RESHAPED_LINES = 500
RESHAPED_AFTER = 4 * RESAMPLE_BYTES
# A piece shorter than this is read without emptying settled lines (`blanking`): the fixed cost
# of a substitution (copying the piece, compiling the keys settled since the last one) is more
# than the few lines it would empty. `denpex watch` and a stream fed line by line stay as cheap.
BLANK_MIN_BYTES = 16 * 1024
# A settled key is emptied from later pieces once this many of its lines were counted one by
# one: a regex of a line costs about as much to compile as a few dozen lines cost to count (a
# k8s-json line of 8 KB, a few hundred), and a shape printed a handful of times never pays.
BLANK_AFTER = 64
# Hits kept per (rule, signature, rank): the verdict needs the first, evidence a few.
_KEEP_PER_KEY = 2


@dataclass(slots=True)  # one per first hit of a (signature, rank): 10k ranks make 30k of them
class Hit:
    line: int
    rank: int | None
    host: str | None
    text: str
    signature: str
    ts_kind: str | None
    ts_value: float | None
    ts_text: str | None


@dataclass
class RuleHits:
    """What one rule saw in the log."""

    rule: Rule
    signatures: set[str] = field(default_factory=set)
    hits: list[Hit] = field(default_factory=list)
    first_by_rank: dict[int, Hit] = field(default_factory=dict)
    count: int = 0
    _kept: dict[tuple[str, int | None], int] = field(default_factory=dict)

    def saturated(self, signature: str, rank: int | None, line: int) -> bool:
        """Would a hit of `signature` on `rank` at `line` only add to the count? (Its key holds
        its hits already, and the rank's first hit is on an earlier line.)"""
        if self._kept.get((signature, rank), 0) < _KEEP_PER_KEY:
            return False
        if rank is None:
            return True
        held = self.first_by_rank.get(rank)
        return held is not None and held.line <= line

    def add(self, hit: Hit) -> None:
        self.count += 1
        self.signatures.add(hit.signature)
        key = (hit.signature, hit.rank)
        n = self._kept.get(key, 0)
        if n < _KEEP_PER_KEY:
            self._kept[key] = n + 1
            self.hits.append(hit)
        if hit.rank is not None:
            held = self.first_by_rank.get(hit.rank)
            # The earliest line, not the first added: a window hit is added once its lines are in.
            if held is None or hit.line < held.line:
                self.first_by_rank[hit.rank] = hit

    def without_ranks(self, ranks: set[int]) -> RuleHits:
        """These hits with `ranks` read as naming no rank (`LineReader.group_numbered`)."""
        hits = [replace(h, rank=None) if h.rank in ranks else h for h in self.hits]
        firsts = {r: h for r, h in self.first_by_rank.items() if r not in ranks}
        return replace(self, hits=hits, first_by_rank=firsts)

    @property
    def score(self) -> float:
        """Noisy-OR of the distinct signatures hit: independent evidence adds up, repeats don't."""
        miss = 1.0
        weights = {s.name: s.weight for s in self.rule.signatures}
        for name in self.signatures:
            miss *= 1.0 - weights[name]
        return 1.0 - miss


@dataclass
class _Window:
    """A window signature's first line, its facts, and the continuation lines read so far."""

    line: int
    rule: Rule
    sig: Signature
    shape: bytes | None  # the window's digits as its verdict reads them (`_Plan.windows`)
    parts: list[str]
    facts: LineFacts


def _extend(win: _Window, chunk: bytes, pos: int, end: int, reader: LineReader) -> bool:
    """Add the whole lines of `chunk[pos:end]` that continue `win` (prefixes stripped; a line
    of another rank ends it). True when the window is complete, False when `end` came first."""
    while len(win.parts) < win.sig.lines:
        if pos >= end:
            return False
        nl = chunk.find(b"\n", pos, end)
        other, message = rank_and_message(_decode(chunk, pos, nl if nl >= 0 else end), reader)
        if other is not None and other != win.facts.rank:
            return True
        win.parts.append(message)
        pos = nl + 1 if nl >= 0 else end
    return True


class _Plan:
    """What to do with a line, given the conditions it meets (shared by every such line)."""

    __slots__ = ("digit_contexts", "floods", "nccl_init_only", "probes", "rules", "shape", "windows")

    def __init__(
        self, rules: tuple[tuple[Rule, tuple[Signature, ...], regex.Pattern[str] | None], ...], probes: frozenset[str]
    ):
        # The rules whose keyword gate the line passes, each with the signatures that can match
        # and, for two or more, one regex matching where any of them does (`_any_of`).
        self.rules = rules
        self.probes = probes
        # Signatures that span lines: opened on every line they may start, each with how its
        # lines become their shape, on which its verdict is decided once (`Scan._close_window`).
        self.windows = tuple(
            (rule, sig, _shape_table((sig,), unless=True)) for rule, sigs, _ in rules for sig in sigs if sig.lines > 1
        )
        # How a line becomes its shape, on which the one-line signatures' verdict is decided
        # once (`Scan._line`): digits they cannot tell apart read as one (see _shape_table).
        one_line = [sig for _, sigs, _ in rules for sig in sigs if sig.lines == 1]
        self.shape = _shape_table(one_line)
        # Where those regexes can tell digits apart (None: anywhere); the shape key keeps the
        # digits there and reads every other as 0 (`_shape_key`).
        self.digit_contexts = _digit_contexts(one_line) if self.shape is not None else None
        # Whether a flood of these lines can be settled (`_Flood`): no window to open, no probe
        # but `exception` (whose effect a repeat of a line's message and rank repeats), and a
        # verdict that the line with every digit as 0 and its anchored digits decide.
        self.floods = (
            not self.windows
            and probes <= EXCEPTION_ONLY
            and (not one_line or (self.shape is not None and self.digit_contexts is not None))
        )
        # NCCL's `Init START`/`Init COMPLETE` lines of a big job (one per rank and communicator,
        # a line in twenty of nccl-native) with no rule to run: only NCCL's own prefix is read.
        self.nccl_init_only = not rules and probes == _NCCL_INIT_ONLY



class _Flood:
    """The lines of one plan that read the same with every digit as 0 (one `coarse` shape), and,
    per rank and anchored digits (`key`), the whole effect of a further such line, once a line
    of that key has left nothing for one more to change: the `RuleHits` it only adds to the
    count of (every signature it matches holds its hits for the rank, `RuleHits.saturated`), and
    whether it moves `LogFacts.last_error_line` (`salient.repeat_effect`). Only ASCII lines of at
    most MAX_LINE_CHARS without a CR: their text is their bytes, so a rank and a digit's place on
    the line are the same in both."""

    __slots__ = ("done", "error", "marks", "rank_at", "rank_to", "repeats", "shape")

    def __init__(self, rank: tuple[int, int] | None, marks: tuple[int, ...], shape: bytes | None, error: bool):
        self.rank_at, self.rank_to = rank or (0, 0)
        self.marks = marks
        self.shape = shape
        self.error = error
        self.done: dict[object, tuple[RuleHits, ...]] = {}
        self.repeats: dict[object, int] = {}  # per settled key, its lines counted since

    def key(self, raw: bytes) -> object:
        """What, beside the coarse shape, decides a line's effect: its rank's digits and the
        digits at the places where the plan's patterns tell digits apart, read as they do
        (`Scan._shape_key`'s, so it decides the verdict too)."""
        rank = raw[self.rank_at : self.rank_to]
        if not self.marks:
            return rank
        return rank, bytes([raw[p] for p in self.marks]).translate(self.shape)


# A shape whose lines can never be settled (not ASCII, a probe that reads more): looked up, never matched.
_NEVER = _Flood(None, (), None, False)


_QUANTIFIER = regex.compile(r"\{\d+(?:,\d*)?\}")
_DIGIT_RANGE = regex.compile(r"(\d)-(\d)")
# Bytes of line shapes kept per scan; past it, a log of endlessly new shapes starts the cache
# again, so memory stays bounded whatever the log (a shape can be a 64 KB line).
_SHAPES_BYTES = 16 << 20


def _digit_features(sig: Signature, *, unless: bool = False) -> list[frozenset[str]] | None:
    """The sets of digits `sig` singles out: each digit its patterns spell out (literally, or in
    an escape) and each range like `[1-9]`. `\\d`, `0-9` and `{m,n}` counts treat all digits
    alike and single out none. None when a pattern has a backreference (it compares text).
    Only the pattern, unless `unless`: a line-shape verdict is the pattern's and `unless` is
    tested on the line, where a window's verdict (`Scan._close_window`) is both patterns'."""
    features: list[frozenset[str]] = []
    patterns = (sig.pattern, sig.unless_pattern) if unless and sig.unless_pattern is not None else (sig.pattern,)
    for pattern in patterns:
        if _BACKREFERENCE.search(pattern):
            return None
        rest = _QUANTIFIER.sub("", pattern).replace("\\d", "").replace("\\D", "").replace("0-9", "")
        for low, high in _DIGIT_RANGE.findall(rest):
            features.append(frozenset(str(d) for d in range(int(low), int(high) + 1)))
        rest = _DIGIT_RANGE.sub("", rest)
        features.extend(frozenset(c) for c in rest if c in "0123456789")
    return features


def _shape_table(sigs: Iterable[Signature], *, unless: bool = False) -> bytes | None:
    """A bytes.translate table mapping each digit to the first digit that no signature of
    `sigs` tells from it (two digits are alike when every set `_digit_features` gives holds both
    or neither), or None when the line itself must be the shape (a backreference, or no two
    digits alike). One byte for one byte: lengths, offsets and every class a line meets stay,
    so each signature answers the same on the shape as on the line."""
    features: set[frozenset[str]] = set()
    for sig in sigs:
        found = _digit_features(sig, unless=unless)
        if found is None:
            return None
        features.update(found)
    first: dict[tuple[bool, ...], str] = {}
    image = "".join(first.setdefault(tuple(d in f for f in sorted(features, key=sorted)), d) for d in "0123456789")
    if len(set(image)) == 10:
        return None
    return bytes.maketrans(b"0123456789", image.encode())


def _digit_contexts(sigs: Iterable[Signature]) -> tuple[DigitContext, ...] | None:
    """Every context in which one of `sigs`' patterns tells digits apart, or None (somewhere
    without a literal before it)."""
    found: set[DigitContext] = set()
    for sig in sigs:
        contexts = _contexts_of(sig.pattern)
        if contexts is None:
            return None
        found |= contexts
    return with_digits_as_zero(frozenset(found))


_contexts_of = lru_cache(maxsize=4096)(digit_contexts)  # plans share signatures


@lru_cache(maxsize=4096)
def _reads_no_digit(pattern: str) -> bool:
    """Does `pattern` answer the same on a line whatever digits it holds? (No atom of it tells
    one digit from another, and no backreference compares them.)"""
    return _BACKREFERENCE.search(pattern) is None and _contexts_of(pattern) == frozenset()


def _any_of(sigs: tuple[Signature, ...]) -> regex.Pattern[str] | None:
    """One regex that finds a match exactly where one of `sigs` does, or None.

    A timed search costs a fixed 1.5 us in the regex module before any matching, more than most
    signatures take on a line; a line that matches none of a rule's signatures (nearly every
    line that passes a keyword gate) then pays it once, not once per signature. Patterns with
    backreferences are left out: their group numbers would shift.
    """
    if len(sigs) < 2 or any(sig.lines > 1 for sig in sigs):
        return None  # a window signature reads past the line the combined regex would test
    parts = []
    for sig in sigs:
        pattern = sig.pattern
        flag, body = ("i", pattern[4:]) if pattern.startswith("(?i)") else ("", pattern)
        # Other inline flags would reach past their own alternative (the regex module applies
        # a global flag to the whole pattern wherever it stands).
        if _BACKREFERENCE.search(body) or _INLINE_FLAGS.search(body):
            return None
        parts.append(f"(?{flag}:{body})")
    try:
        return regex.compile("|".join(parts))
    except regex.error:
        return None


_NEWLINE = re.compile(b"\n")
_BACKREFERENCE = regex.compile(r"\\[1-9]|\(\?P=|\\g<|\(\?\(")
_INLINE_FLAGS = regex.compile(r"\(\?[a-zA-Z]+\)")


_PLAN_CACHE_MAX = 20_000
_NCCL_INIT_ONLY = frozenset({"nccl_init"})


class Matcher:
    """A compiled rulebook. Thread-safe: each diagnosis gets its own `Scan`.

    The prefilter holds one condition per signature: its rule's keyword gate and, where the
    signature's regex has literals at least as selective as the keywords, one of those; and
    one per probe. The set of conditions a line meets decides, once per distinct set (`plan`),
    which signatures can match at all: only those regexes run, each with a timeout.
    """

    def __init__(self, rulebook: Rulebook, *, prefilter: bool = True, regex_timeout_s: float = REGEX_TIMEOUT_S):
        self.rulebook = rulebook
        self.use_prefilter = prefilter
        self.regex_timeout_s = regex_timeout_s
        # Each signature's condition: its rule's keyword gate and, when the regex has literals
        # at least as selective, one of those. Signatures with equal conditions share one.
        owners: dict[Condition, list[tuple[str, int] | str]] = {}
        self._derived: dict[str, tuple[frozenset[str] | None, ...]] = {}
        required = derived_literals(
            ((sig.pattern, sig.lines > 1) for rule in rulebook for sig in rule.signatures),
            lambda pattern, window: required_literals(pattern, first_line=window),
            DERIVATION_VERSION,
        )
        for rule in rulebook:
            gate = frozenset(k for k in (*rule.keywords, *(k for s in rule.signatures for k in s.keywords)) if k)
            # A window signature is opened on the line its match begins on: only the literals
            # of the match's opening (before anything that can match a newline) are on it.
            derived = tuple(_useful_literals(required[sig.pattern, sig.lines > 1], gate) for sig in rule.signatures)
            self._derived[rule.id] = derived
            if not gate:
                continue  # a rule without keywords has no gate to pass: it never runs
            for i, words in enumerate(derived):
                owners.setdefault(Condition(gate, words), []).append((rule.id, i))
        for probe, words in PROBE_KEYWORDS.items():
            owners.setdefault(Condition(frozenset(words)), []).append(probe)
        self.prefilter = Prefilter(owners, direct=WORLD_KEYWORDS)
        self.blanking = Literals(
            self.prefilter.words, list(WORLD_KEYWORDS), [w for p in sorted(UNSETTLING_PROBES) for w in PROBE_KEYWORDS[p]]
        )
        self._cond_sigs = [tuple(o for o in owners[c] if not isinstance(o, str)) for c in self.prefilter.conditions]
        self._cond_probes = [frozenset(o for o in owners[c] if isinstance(o, str)) for c in self.prefilter.conditions]
        self._plans: dict[frozenset[int], _Plan] = {}
        self._all_rules = tuple((rule, rule.signatures, None) for rule in rulebook)
        self._probe_words = tuple((kw.encode(), p) for p, words in PROBE_KEYWORDS.items() for kw in words)
        self._naive_plans: dict[frozenset[str], _Plan] = {}
        self._any_cache: dict[tuple[str, tuple[Signature, ...]], regex.Pattern[str] | None] = {}

    def plan(self, conditions: frozenset[int]) -> _Plan:
        """The plan for lines meeting exactly the prefilter's `conditions` (cached)."""
        plan = self._plans.get(conditions)
        if plan is not None:
            return plan
        armed: dict[str, set[int]] = {}
        probes: set[str] = set()
        for c in conditions:
            for rid, i in self._cond_sigs[c]:
                armed.setdefault(rid, set()).add(i)
            probes |= self._cond_probes[c]
        todo = []
        for rid in sorted(armed):
            rule = self.rulebook.get(rid)
            sigs = tuple(sig for i, sig in enumerate(rule.signatures) if i in armed[rid])
            key = (rid, sigs)
            if key not in self._any_cache:
                self._any_cache[key] = _any_of(sigs)
            todo.append((rule, sigs, self._any_cache[key]))
        plan = _Plan(tuple(todo), frozenset(probes))
        if len(self._plans) >= _PLAN_CACHE_MAX:
            self._plans.clear()  # a log of endlessly new mixes of conditions: stay bounded
        self._plans[conditions] = plan
        return plan

    def condition_label(self, index: int) -> str:
        """What the prefilter's condition `index` stands for: `rule/signature` names and
        `probe:name`s (for a benchmark or a profile that reports which conditions lines meet)."""
        sigs = [f"{rid}/{self.rulebook.get(rid).signatures[k].name}" for rid, k in self._cond_sigs[index]]
        return ", ".join(sigs + [f"probe:{p}" for p in sorted(self._cond_probes[index])])

    def naive_plan(self, probes: frozenset[str]) -> _Plan:
        plan = self._naive_plans.get(probes)
        if plan is None:
            plan = self._naive_plans[probes] = _Plan(self._all_rules, probes)
        return plan

    def scan(self, *, whole: bool = False) -> Scan:
        """A new diagnosis. `whole`: the log comes as one piece (a paste), so no sample of it
        is taken to choose a database for pieces that never come (the counting costs a paste
        about a tenth of its time)."""
        return Scan(self, sample=not whole)

    def diagnose(self, text: str) -> Diagnosis:
        """Diagnose a whole log held in memory (a paste)."""
        scan = self.scan(whole=True)
        scan.feed(text.encode("utf-8", "surrogatepass"))
        return scan.finish()

    def diagnose_chunks(self, chunks: Iterable[bytes]) -> Diagnosis:
        """Diagnose a log read in pieces; pieces may split lines anywhere."""
        scan = self.scan()
        for chunk in chunks:
            scan.feed(chunk)
        return scan.finish()


def _useful_literals(reqs: tuple[frozenset[str], ...], gate: frozenset[str]) -> frozenset[str] | None:
    """Of a signature's required sets `reqs`, the one to test beside its rule's keywords `gate`,
    or None (the keywords alone gate it).

    Only a set at least as selective as the keywords (longer literals are rarer); among those,
    first one that does not merely restate a keyword: in `The client socket has failed to
    connect to \\S+ \\(errno: (?:110 ...|113 ...))` the keyword is in the first literal, so a
    flood of `errno: 99` retries would meet it on every line, where `(errno: 110` it never meets.
    """
    useful = [r for r in reqs if score(r) >= score(gate)]
    if not useful:
        return None
    return max(useful, key=lambda r: (not _restates(r, gate), score(r)))


def _restates(req: frozenset[str], gate: frozenset[str]) -> bool:
    """Does every literal of `req` hold a keyword of `gate` (so a line meeting it meets the gate)?"""
    return all(any(k in w for k in gate) for w in req if w.isascii())


class Scan:
    """One diagnosis in progress: feed bytes, then `finish()`."""

    def __init__(self, matcher: Matcher, *, sample: bool = True):
        self.m = matcher
        self.by_rule: dict[str, RuleHits] = {}
        self.facts = LogFacts()
        self.lines = 0
        self.bytes = 0
        self.regex_timeouts = 0
        self._carry = b""
        self._end = 0
        self._windows: list[_Window] = []  # window signatures waiting for the next piece
        # (plan, line shape) -> the (rule, signature) pairs that match lines of that shape.
        self._shapes: dict[tuple[_Plan, bytes], tuple[tuple[Rule, Signature], ...]] = {}
        self._shapes_bytes = 0
        # (rule id, window signature, the window's lines as their shape) -> the lines its match
        # spans (0: no match), as `_window_verdict` decided on the first window of that shape.
        self._window_spans: dict[tuple[str, str, bytes], int] = {}
        self._window_spans_bytes = 0
        # (plan, line with digits as 0) -> where its digits in the plan's digit contexts are.
        self._marks: dict[tuple[_Plan, bytes], tuple[int, ...]] = {}
        self._reader = LineReader()  # line facts, each line shape's layout worked out once
        # (plan, line with digits as 0) -> the lines of that shape whose effect is settled.
        # Kept when a new sample changes the prefilter's database, as the blanker's lines are:
        # the database decides which conditions a line is found to meet, never what it does. A
        # condition's derived side is required by its signature's regex, so a signature a new
        # database lets a line meet on its keywords alone (`Prefilter.choose_relaxed`) matches
        # only a line that meets it in full, and a line that reads as a settled one holds the
        # same literals (their digits are pinned, `blanking`); a probe's keywords are never
        # left out. (They were settled again from nothing after each sample: c10d-retry read
        # ~100 ms of retries one by one each 32 MB.)
        self._floods: dict[tuple[_Plan, bytes], _Flood] = {}
        self._floods_bytes = 0
        # The settled keys' lines, emptied from each later piece before it is scanned.
        self._blanker = Blanker(matcher.blanking)
        self._source: tuple[bytes, int, int, int, list[int] | None] | None = None  # see `_original`
        self._started = time.perf_counter()
        # The prefilter's database for this log: every literal until a sample of the log shows
        # which ones it prints on line after line (`Prefilter.choose`). None: naive.
        self.variant = matcher.prefilter.full if matcher.use_prefilter else None
        self._samples = sample and matcher.use_prefilter
        self._sample: Counter[frozenset[int]] | None = Counter() if self._samples else None
        self._reports: Counter[int] = Counter()  # each literal's reports in the sample
        self._sampled_at = 0  # where the current or last sample started (bytes)
        self._sample_bytes = LEARN_BYTES  # how long the current sample runs
        self._sample_lines = 0  # candidate lines in the current sample
        self._density = 0.0  # candidate lines per byte in the last sample
        self._pace = [0, 0]  # candidate lines and bytes since the last look at the pace
        self._fast = 0  # looks in a row that found the pace well above the last sample's
        self._reshaped = False  # the log changed shape since the last sample: sample again

    def left_out(self) -> list[str]:
        """The literals this scan's prefilter database leaves out, as its sample of the log chose
        (`Prefilter.choose`); empty before the sample is taken or on the naive path."""
        if self.variant is None:
            return []
        return sorted(self.m.prefilter.words[i] for i in self.variant.dropped)

    def feed(self, data: bytes) -> None:
        """Take the next piece of the log; a trailing partial line waits for the next piece."""
        if not data:
            return
        self.bytes += len(data)
        start = 0
        if self._carry:
            # Finish the carried line on its own: joining it to the whole piece would copy it.
            nl = data.find(b"\n")
            if nl < 0:
                self._carry += data
                return
            head = self._carry + data[: nl + 1]
            self._carry = b""
            self._process(head, 0, len(head))
            start = nl + 1
        cut = data.rfind(b"\n", start) + 1
        if cut == 0:
            self._carry = data[start:]
            return
        self._carry = data[cut:] if cut < len(data) else b""
        self._process(data, start, cut)

    def _process(self, chunk: bytes, begin: int, end: int) -> None:
        """Match the whole lines of `chunk[begin:end]` (`begin` is 0 or just past a newline,
        `end` just past a newline)."""
        m = self.m
        base = self.lines
        pos, line_no = begin, base
        self._end = end  # past it the chunk holds no whole line: a window stops there
        if self._windows:
            self._resume_windows(chunk, begin, end)
        if m.use_prefilter:
            plans = m._plans
            plan_for = m.plan
            if self._sample is None and self._samples and (self._reshaped or self.bytes - self._sampled_at >= RESAMPLE_EVERY):
                # Sample again with every literal: what the log prints now may not be what
                # it printed when the database was chosen.
                self.variant, self._sample, self._reports = m.prefilter.full, Counter(), Counter()
                self._sampled_at, self._sample_bytes = self.bytes, RESAMPLE_BYTES
                self._sample_lines, self._reshaped = 0, False
                # The settled floods stand whatever the database (see `_floods`); a flood that
                # stopped paying may have come back (an evaluation paused it): tried again.
                self._blanker.retry()
            last_error = 0
            if self._blanker and end - begin >= BLANK_MIN_BYTES:
                blanked = self._blanker.blank(chunk, begin, end, plain=self.facts.plain())
                if blanked.emptied:
                    # Windows read on from where their first line ends: in the piece as it came.
                    self._source = (chunk, begin, end, base, None)
                    chunk, begin, end, pos = blanked.chunk, blanked.begin, blanked.end, blanked.begin
                    last_error = blanked.last_error
            sample = self._sample
            lines, world_hits = m.prefilter.candidate_lines(
                chunk, end, start=begin, variant=self.variant, seen=sample, reports=self._reports if sample is not None else None
            )
            if sample is not None:
                self._sample_lines += len(lines)
                if self.bytes - self._sampled_at >= self._sample_bytes:
                    self.variant = m.prefilter.choose(sample, reports=self._reports)
                    self._sample = None
                    self._density = self._sample_lines / max(self.bytes - self._sampled_at, 1)
                    self._pace, self._fast = [0, 0], 0
            elif self._samples:
                pace = self._pace
                pace[0] += len(lines)
                pace[1] += end - begin
                if pace[1] >= RESAMPLE_BYTES:
                    fast = pace[0] > RESHAPED_RATIO * self._density * pace[1] + RESHAPED_LINES
                    self._fast = self._fast + 1 if fast else 0
                    self._reshaped = self._fast >= 2 and self.bytes - self._sampled_at >= RESHAPED_AFTER
                    self._pace = [0, 0]
            floods, facts = self._floods, self.facts
            for start, stop, conditions in lines:
                plan = plans.get(conditions) or plan_for(conditions)
                line_no += chunk.count(b"\n", pos, start)
                pos = start
                if plan.nccl_init_only:
                    # No rule to run: the line's one use is `_line`'s NCCL-init probe, read here.
                    facts.observe_nccl_init(_decode(chunk, start, stop))
                    continue
                if plan.floods and stop - start <= MAX_LINE_CHARS:
                    # A retry loop or a warning per step: once a line's shape and rank have left
                    # nothing for a repeat to change, a repeat only adds to counts (`_Flood`).
                    raw = chunk[start:stop]
                    shape = (plan, raw.translate(DIGITS_AS_ZERO))
                    flood = floods.get(shape)
                    if flood is not None:
                        key = flood.key(raw)
                        counted = flood.done.get(key)
                        if counted is not None and (not plan.probes or facts.plain()):
                            for hits in counted:
                                hits.count += 1
                            if flood.error:
                                facts.last_error_line = line_no + 1
                            repeats = flood.repeats[key] = flood.repeats.get(key, 0) + 1
                            if repeats == BLANK_AFTER:
                                # Repeated enough to pay for its regex: emptied from the next piece on.
                                self._blanker.add(raw, (flood.rank_at, flood.rank_to), flood.marks, flood.shape,
                                                  counted, flood.error, bool(plan.probes))  # fmt: skip
                            continue
                    matched = self._line(line_no + 1, chunk, start, stop, plan)
                    self._settle(shape, raw, flood, line_no + 1, matched)
                    continue
                self._line(line_no + 1, chunk, start, stop, plan)
            if world_hits:
                # The largest stated size is all that counts: keep it here, tell the facts once.
                world_at = WORLD_SIZE_AT.match
                largest = 0
                for _, at in world_hits:
                    found = world_at(chunk, at)
                    if found:
                        size = int(found[found.lastindex])
                        if largest < size <= 1_000_000:
                            largest = size
                if largest:
                    self.facts.observe_world_size(largest)
            if last_error:
                # Every error line before it has set `last_error_line` to its own number by now.
                self.facts.last_error_line = max(self.facts.last_error_line or 0, base + last_error)
            self._source = None
        else:
            observe_world_size = self.facts.observe_world_size
            for start, stop, probes in _every_line(chunk, begin, end, m._probe_words):
                line_no += chunk.count(b"\n", pos, start)
                pos = start
                self._line(line_no + 1, chunk, start, stop, m.naive_plan(probes))
                for found in WORLD_SIZE_AT.finditer(chunk, start, stop):
                    observe_world_size(int(found[1] or found[2] or found[3]))
        self.lines = line_no + chunk.count(b"\n", pos, end)

    def _line(
        self, line_no: int, chunk: bytes, start: int, stop: int, plan: _Plan
    ) -> tuple[tuple[Rule, Signature], ...] | None:
        """Match one candidate line and note what it shows; the (rule, signature) pairs whose
        one-line regexes match it (None: a regex ran out of time), for `_settle`."""
        text: str | None = None
        facts: LineFacts | None = None
        matched: tuple[tuple[Rule, Signature], ...] | None = ()
        if plan.windows:
            # A window's hit needs the line's facts, and so, then, do its one-line signatures:
            # read once, here (a watchdog line of every rank opens one).
            text = _decode(chunk, start, stop)
            facts = self._reader.facts(text)
            for rule, sig, shape in plan.windows:
                self._open_window(line_no, rule, sig, shape, text, facts, chunk, stop)
        if plan.rules and not self.m.use_prefilter:
            # The naive path, the reference the tests hold the prefilter and this cache to.
            text = text if text is not None else _decode(chunk, start, stop)
            matched = self._match(plan, text)
        elif plan.rules:
            # A flood of one line (a retry loop, a warning per step) pays its regexes once:
            # later lines of the same shape reuse the verdict.
            raw = chunk[start : min(stop, start + MAX_LINE_CHARS * 4)]
            key = (plan, self._shape_key(plan, raw))
            matched = self._shapes.get(key)
            if matched is None:
                if text is None:
                    text = _decode(chunk, start, stop)
                matched = self._match(plan, text)
                if matched is not None:
                    self._shapes_bytes += len(raw)
                    if self._shapes_bytes > _SHAPES_BYTES:
                        self._shapes.clear()
                        self._marks.clear()
                        self._shapes_bytes = len(raw)
                    self._shapes[key] = matched
        for rule, sig in matched or ():
            if text is None:
                text = _decode(chunk, start, stop)
            if sig.unless is not None:
                # Decided on the line itself, not its shape: the shape keeps only the digits
                # the patterns can tell apart (and a line a pattern matches is rare).
                found = _timed_search(sig.unless, text, self.m.regex_timeout_s)
                if found is None:
                    self.regex_timeouts += 1
                if found is not False:
                    continue
            hits = self.by_rule.get(rule.id)
            if hits is None:
                hits = self.by_rule[rule.id] = RuleHits(rule)
            if facts is None:
                # A rule that fires on line after line of every rank (NCCL's channel lines)
                # keeps two hits per rank: a further one is counted, its time not read.
                if hits.saturated(sig.name, self._reader.prefix(text)[0], line_no):
                    hits.count += 1
                    continue
                facts = self._reader.facts(text)
            ts = facts.timestamp
            hits.add(
                Hit(
                    line=line_no,
                    rank=facts.rank,
                    host=facts.host,
                    text=text,
                    signature=sig.name,
                    ts_kind=ts.kind if ts else None,
                    ts_value=ts.value if ts else None,
                    ts_text=ts.text if ts else None,
                )
            )
        if plan.probes:
            if text is None:
                text = _decode(chunk, start, stop)
            if plan.probes == _NCCL_INIT_ONLY:
                # NCCL's `Init COMPLETE` lines come by the thousand in big jobs; reading them
                # needs NCCL's own prefix only, not the launcher prefixes or the timestamp.
                self.facts.observe_nccl_init(text)
                return matched
            if facts is not None:
                rank, message_start = facts.rank, facts.message_start
            else:
                rank, message_start = self._reader.prefix(text)
            self.facts.observe(line_no, text[message_start:], rank, plan.probes)
        return matched

    def _settle(
        self,
        shape: tuple[_Plan, bytes],
        raw: bytes,
        flood: _Flood | None,
        line_no: int,
        matched: tuple[tuple[Rule, Signature], ...] | None,
    ) -> None:
        """After `_line` on `raw` (at most MAX_LINE_CHARS, of the coarse `shape`), which matched
        `matched` (None: a regex ran out of time on it): note its key in the shape's `_Flood`
        when a further line of that key would only add to counts."""
        plan, coarse = shape
        if flood is None:
            flood = self._new_flood(plan, raw, coarse)
            self._charge_floods(len(coarse))
            self._floods[shape] = flood
        if flood is _NEVER or (plan.probes and not self.facts.plain()):
            return
        key = flood.key(raw)
        if key in flood.done:
            return
        if matched is None:
            return
        rank = int(raw[flood.rank_at : flood.rank_to]) if flood.rank_to else None
        counted = []
        for rule, sig in matched:
            if sig.unless is not None:
                # An unless that tells no digit from another answers the same on every line of
                # the shape; one that does (`loss: [1-9]`) would need its digits in the key, which
                # on Megatron's iteration lines is every digit after a colon: never settled.
                if not _reads_no_digit(sig.unless.pattern):
                    return
                barred = _timed_search(sig.unless, raw.decode("ascii"), self.m.regex_timeout_s)
                if barred is None:
                    return
                if barred:
                    continue
            hits = self.by_rule.get(rule.id)
            # Saturation only grows, line by line: a later line of this rank is saturated too.
            if hits is None or not hits.saturated(sig.name, rank, line_no):
                return
            counted.append(hits)
        flood.done[key] = tuple(counted)
        self._charge_floods(64)

    def _charge_floods(self, size: int) -> None:
        """Count `size` bytes more in `_floods`; past _SHAPES_BYTES, a log of endlessly new
        shapes or ranks starts it again, so memory stays bounded whatever the log."""
        self._floods_bytes += size
        if self._floods_bytes + self._blanker.size > _SHAPES_BYTES:
            self._floods.clear()
            self._blanker.clear()
            self._floods_bytes = size

    def _new_flood(self, plan: _Plan, raw: bytes, coarse: bytes) -> _Flood:
        """The `_Flood` of the lines of `plan` shaped `coarse`, from one of them (`raw`)."""
        if not coarse.isascii() or coarse.endswith(b"\r"):
            return _NEVER
        text = raw.decode("ascii")
        error = False
        if plan.probes:
            found = repeat_effect(text[self._reader.prefix(text)[1] :], plan.probes)
            if found is None:
                return _NEVER
            error = found
        marks: tuple[int, ...] = ()
        if plan.rules:
            marks = tuple(anchored_digits(coarse, plan.digit_contexts or ()))
        return _Flood(self._reader.rank_span(text), marks, plan.shape, error)

    def _shape_key(self, plan: _Plan, raw: bytes) -> object:
        """What decides the one-line signatures of `plan` on the line `raw` (lines with equal
        keys get the same verdict): the line with digits read as `plan.shape` maps them, or,
        where the plan's patterns tell digits apart only behind literals (`digit_anchors`) and
        the line is ASCII (its bytes are its characters), the line with every digit read as 0
        and beside it the places and classes of the digits in those contexts. The places depend
        on the digit-less shape alone, so they are found once per shape."""
        if plan.shape is None:
            return raw
        contexts = plan.digit_contexts
        if contexts is None or not raw.isascii():
            return raw.translate(plan.shape)
        coarse = raw.translate(DIGITS_AS_ZERO)
        marks = self._marks.get((plan, coarse))
        if marks is None:
            marks = self._marks[plan, coarse] = tuple(anchored_digits(coarse, contexts))
        return (coarse, marks, bytes([raw[p] for p in marks]).translate(plan.shape))

    def _match(self, plan: _Plan, text: str) -> tuple[tuple[Rule, Signature], ...] | None:
        """The (rule, signature) pairs of `plan` whose one-line regexes match `text` (window
        signatures are `plan.windows`). None when a regex ran out of time (not a verdict to
        remember for the line's shape)."""
        timeout = self.m.regex_timeout_s
        matched: list[tuple[Rule, Signature]] = []
        timed_out = False
        for rule, sigs, any_rx in plan.rules:
            if any_rx is not None and _timed_search(any_rx, text, timeout) is False:
                continue
            for sig in sigs:
                if sig.lines > 1:
                    continue
                found = _timed_search(sig.compiled, text, timeout)
                if found is None:
                    self.regex_timeouts += 1
                    timed_out = True
                elif found:
                    matched.append((rule, sig))
        return None if timed_out else tuple(matched)

    def _open_window(
        self,
        line_no: int,
        rule: Rule,
        sig: Signature,
        shape: bytes | None,
        text: str,
        facts: LineFacts,
        chunk: bytes,
        stop: int,
    ) -> None:
        """A window signature on its first line: join the lines after it. When the piece of the
        log ends first, the window is finished at the start of the next piece: a diagnosis never
        depends on where the input was cut."""
        win = _Window(line_no, rule, sig, shape, [text], facts)
        if self._source is not None:
            chunk, stop = self._original(line_no)
        if _extend(win, chunk, stop + 1, self._end, self._reader):
            self._close_window(win)
        else:
            self._windows.append(win)

    def _original(self, line_no: int) -> tuple[bytes, int]:
        """The piece as it came, and where line `line_no` of it ends there (its newline), while
        the matcher reads the piece with settled lines emptied (`_source`)."""
        assert self._source is not None
        chunk, begin, end, base, ends = self._source
        if ends is None:
            ends = [found.start() for found in _NEWLINE.finditer(chunk, begin, end)]
            self._source = (chunk, begin, end, base, ends)
        return chunk, ends[line_no - base - 1]

    def _close_window(self, win: _Window) -> None:
        subject = "\n".join(win.parts)
        # A watchdog line of every rank opens a window on lines that differ only in digits its
        # patterns cannot tell apart: the windows of one shape get one verdict.
        key = None
        if win.shape is not None:
            key = (win.rule.id, win.sig.name, subject.encode("utf-8", "surrogatepass").translate(win.shape))
        spans = self._window_spans.get(key) if key is not None else None
        if spans is None:
            spans = self._window_verdict(win, subject)
            if spans is None:
                self.regex_timeouts += 1
                return
            if key is not None:
                self._window_spans_bytes += len(key[2])
                if self._window_spans_bytes > _SHAPES_BYTES:
                    self._window_spans.clear()
                    self._window_spans_bytes = len(key[2])
                self._window_spans[key] = spans
        if not spans:
            return
        # The evidence is the lines the match spans: a message whole on its first line does
        # not take the unrelated line after it (a progress bar) along.
        spanned = win.parts[:spans]
        facts = win.facts
        ts = facts.timestamp
        hits = self.by_rule.get(win.rule.id)
        if hits is None:
            hits = self.by_rule[win.rule.id] = RuleHits(win.rule)
        hits.add(
            Hit(
                line=win.line,
                rank=facts.rank,
                host=facts.host,
                text=" ".join(spanned),
                signature=win.sig.name,
                ts_kind=ts.kind if ts else None,
                ts_value=ts.value if ts else None,
                ts_text=ts.text if ts else None,
            )
        )

    def _window_verdict(self, win: _Window, subject: str) -> int | None:
        """How many of the window's lines (`subject`, joined) its signature's match spans; 0
        when it has none that begins on the first line, None when a regex ran out of time."""
        first = _first_match(win.sig, subject, self.m.regex_timeout_s)
        if first is None:
            return None
        # The match must begin on the window's first line: text that only a later line holds
        # is that line's own (its window or a one-line signature), not this line's.
        if first is False or first.start() > len(win.parts[0]):
            return 0
        return subject.count("\n", 0, first.end()) + 1

    def _resume_windows(self, chunk: bytes, begin: int, end: int) -> None:
        waiting, self._windows = self._windows, []
        for win in waiting:
            if _extend(win, chunk, begin, end, self._reader):
                self._close_window(win)
            else:
                self._windows.append(win)

    def finish(self) -> Diagnosis:
        """Flush the last partial line and decide."""
        if self._carry:
            tail = self._carry + b"\n"
            self._carry = b""
            self._process(tail, 0, len(tail))
        for win in self._windows:  # the log ended first: match on the lines there are
            self._close_window(win)
        self._windows = []
        elapsed = int((time.perf_counter() - self._started) * 1000)
        stats = Stats(bytes=self.bytes, lines=self.lines, elapsed_ms=elapsed, regex_timeouts=self.regex_timeouts)
        return self.decide(stats)

    def decide(self, stats: Stats) -> Diagnosis:
        """The verdict on the lines read so far. A rank a bare `[Rank r]` granted and a later
        line showed to be a subgroup's is read as none; the scan's own hits keep it, as a later
        line may still show it global (`LineReader.group_numbered`)."""
        rule_hits, facts = list(self.by_rule.values()), self.facts
        withdrawn = self._reader.group_numbered()
        if withdrawn:
            rule_hits = [rh.without_ranks(withdrawn) for rh in rule_hits]
            facts = facts.without_ranks(withdrawn)
        return decide(rule_hits, facts, stats)


def _first_match(sig: Signature, text: str, timeout: float) -> regex.Match[str] | bool | None:
    """`sig`'s first match in `text`, or False (none, or its `unless` matches too); None when a
    regex ran out of time twice (see `_timed_search`)."""
    for _ in range(2):
        try:
            found = sig.compiled.search(text, timeout=timeout)
            break
        except TimeoutError:
            continue
    else:
        return None
    if found is None:
        return False
    if sig.unless is not None:
        barred = _timed_search(sig.unless, text, timeout)
        if barred is None:
            return None
        if barred:
            return False
    return found


def _timed_search(rx: regex.Pattern[str], text: str, timeout: float) -> bool | None:
    """Does `rx` match `text`? None when it ran out of time twice.

    The regex module measures the timeout in the process's CPU time (CLOCK_PROCESS_CPUTIME_ID),
    every thread's: with other diagnoses running in the bot's threads, a normal search can see
    its budget spent by them, so a timed-out search gets one more try; a pathological one times
    out twice (bounded). Reading that clock is a system call, about 0.8 us, twice per search.
    """
    for _ in range(2):
        try:
            return rx.search(text, timeout=timeout) is not None
        except TimeoutError:
            continue
    return None


def rank_and_message(line: str, reader: LineReader | None = None) -> tuple[int | None, str]:
    """`(parse_line(line).rank, strip_prefixes(line))`: what the probes need of a line.

    Most lines of a big log open with torchrun's `[rankN]:` (or `[defaultN]:`) and nothing
    else a launcher adds; for those the answer is read off without a regex or the timestamp
    work. Anything else, or anything that might stack another prefix, takes the full path.
    """
    if line.startswith("[rank"):
        head = 5
    elif line.startswith("[default"):
        head = 8
    else:
        head = 0
    if head:
        close = line.find("]:", head, head + 8)
        if close > head:
            digits = line[head:close]
            rest = line[close + 2 :]
            if digits.isascii() and digits.isdigit() and not (rest[:1] == "[" or rest[:1].isdigit()):
                return int(digits), rest[1:] if rest[:1] == " " else rest
    if reader is not None:  # each line shape's layout worked out once
        rank, message_start = reader.prefix(line)
        return rank, line[message_start:]
    return parse_line(line).rank, strip_prefixes(line)


def _decode(chunk: bytes, start: int, stop: int) -> str:
    """The text of one line as the signatures see it: decoded, no CR, at most MAX_LINE_CHARS."""
    return chunk[start : min(stop, start + MAX_LINE_CHARS * 4)].decode("utf-8", "replace").rstrip("\r")[:MAX_LINE_CHARS]


def _every_line(chunk: bytes, start: int, end: int, probe_words: tuple[tuple[bytes, str], ...]):
    """The naive path: every rule's regexes on every line (baseline and equivalence tests).

    Probes still go by their keywords: they are part of the verdict, not of the prefilter.
    """
    while start < end:
        stop = chunk.find(b"\n", start, end)
        if stop < 0:
            stop = end
        low = chunk[start:stop].lower()
        yield start, stop, frozenset(p for kw, p in probe_words if kw in low)
        start = stop + 1
