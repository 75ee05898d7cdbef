"""The matcher: scan a log once, score every rule, decide root cause and collateral.

Text flows through in chunks of whole lines (`Scan.feed`), so a file of any size is read once
and never held whole; only what the verdict needs is kept: per rule, the signatures hit, the
first hit of each (signature, rank), and the first hit per rank.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.matcher.lines import LineFacts, parse_line, strip_prefixes
from bot.matcher.model import Diagnosis, Stats
from bot.matcher.prefilter import Prefilter
from bot.matcher.rulebook import Rule, Rulebook
from bot.matcher.salient import PROBE_KEYWORDS, LogFacts
from bot.matcher.verdict import decide

# A regex gets this long on one line before the line is skipped for that signature and
# counted in stats.regex_timeouts: one hostile line costs milliseconds, never a hang.
REGEX_TIMEOUT_S = 0.05
# Matching looks at the head of a line; a megabyte line of tensor dump holds no error text
# past this point that a signature is written for.
MAX_LINE_CHARS = 16_384
# Hits kept per (rule, signature, rank): the verdict needs the first, evidence a few.
_KEEP_PER_KEY = 2


@dataclass
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

    def add(self, hit: Hit) -> None:
        self.count += 1
        self.signatures.add(hit.signature)
        key = (hit.signature, hit.rank)
        n = self._kept.get(key, 0)
        if n < _KEEP_PER_KEY:
            self._kept[key] = n + 1
            self.hits.append(hit)
        if hit.rank is not None and hit.rank not in self.first_by_rank:
            self.first_by_rank[hit.rank] = hit

    @property
    def score(self) -> float:
        """Noisy-OR of the distinct signatures hit: independent evidence adds up, repeats don't."""
        miss = 1.0
        weights = {s.name: s.weight for s in self.rule.signatures}
        for name in self.signatures:
            miss *= 1.0 - weights[name]
        return 1.0 - miss


class Matcher:
    """A compiled rulebook. Thread-safe: each diagnosis gets its own `Scan`."""

    def __init__(self, rulebook: Rulebook, *, prefilter: bool = True, regex_timeout_s: float = REGEX_TIMEOUT_S):
        self.rulebook = rulebook
        self.use_prefilter = prefilter
        self.regex_timeout_s = regex_timeout_s
        owners: dict[str, set[str]] = {}
        for rule in rulebook:
            for kw in rule.keywords:
                owners.setdefault(kw, set()).add(rule.id)
            for sig in rule.signatures:
                for kw in sig.keywords:
                    owners.setdefault(kw, set()).add(rule.id)
        for probe, words in PROBE_KEYWORDS.items():
            for kw in words:
                owners.setdefault(kw, set()).add("probe:" + probe)
        self.prefilter = Prefilter(owners)
        self._rule_ids = frozenset(rulebook.ids)
        self._probe_words = tuple(
            (kw.encode(), "probe:" + p) for p, words in PROBE_KEYWORDS.items() for kw in words
        )

    def scan(self) -> Scan:
        return Scan(self)

    def diagnose(self, text: str) -> Diagnosis:
        """Diagnose a whole log held in memory (a paste)."""
        scan = self.scan()
        scan.feed(text.encode("utf-8", "surrogatepass"))
        return scan.finish()

    def diagnose_chunks(self, chunks: Iterable[bytes]) -> Diagnosis:
        """Diagnose a log read in pieces; pieces may split lines anywhere."""
        scan = self.scan()
        for chunk in chunks:
            scan.feed(chunk)
        return scan.finish()


class Scan:
    """One diagnosis in progress: feed bytes, then `finish()`."""

    def __init__(self, matcher: Matcher):
        self.m = matcher
        self.by_rule: dict[str, RuleHits] = {}
        self.facts = LogFacts()
        self.lines = 0
        self.bytes = 0
        self.regex_timeouts = 0
        self._carry = b""
        self._started = time.perf_counter()

    def feed(self, data: bytes) -> None:
        """Take the next piece of the log; a trailing partial line waits for the next piece."""
        if not data:
            return
        self.bytes += len(data)
        if self._carry:
            data = self._carry + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            self._carry = data
            return
        self._carry = data[cut:]
        self._process(data[:cut])

    def _process(self, chunk: bytes) -> None:
        base = self.lines
        if self.m.use_prefilter:
            candidates = self.m.prefilter.candidate_lines(chunk)
        else:
            candidates = _every_line(chunk, self.m._rule_ids, self.m._probe_words)
        pos, line_no = 0, base
        for start, end, owners in candidates:
            line_no += chunk.count(b"\n", pos, start)
            pos = start
            self._line(line_no + 1, chunk[start : min(end, start + MAX_LINE_CHARS * 4)], owners)
        self.lines = base + chunk.count(b"\n")

    def _line(self, line_no: int, raw: bytes, owners: frozenset[str]) -> None:
        text = raw.decode("utf-8", "replace").rstrip("\r")[:MAX_LINE_CHARS]
        facts: LineFacts | None = None
        for owner in owners:
            if owner.startswith("probe:"):
                continue
            rule = self.m.rulebook.get(owner)
            if rule is None:
                continue
            for sig in rule.signatures:
                try:
                    found = sig.compiled.search(text, timeout=self.m.regex_timeout_s)
                    if found and sig.unless is not None:
                        found = not sig.unless.search(text, timeout=self.m.regex_timeout_s)
                except TimeoutError:
                    self.regex_timeouts += 1
                    continue
                if not found:
                    continue
                if facts is None:
                    facts = parse_line(text)
                ts = facts.timestamp
                hits = self.by_rule.get(rule.id)
                if hits is None:
                    hits = self.by_rule[rule.id] = RuleHits(rule)
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
        probes = {o[6:] for o in owners if o.startswith("probe:")}
        if probes:
            if facts is None:
                facts = parse_line(text)
            self.facts.observe(line_no, strip_prefixes(text), facts, probes)

    def finish(self) -> Diagnosis:
        """Flush the last partial line and decide."""
        if self._carry:
            self._process(self._carry + b"\n")
            self._carry = b""
        elapsed = int((time.perf_counter() - self._started) * 1000)
        stats = Stats(bytes=self.bytes, lines=self.lines, elapsed_ms=elapsed, regex_timeouts=self.regex_timeouts)
        return decide(list(self.by_rule.values()), self.facts, stats)


def _every_line(chunk: bytes, rule_ids: frozenset[str], probe_words: tuple[tuple[bytes, str], ...]):
    """The naive path: every rule's regexes on every line (baseline and equivalence tests).

    Probes still go by their keywords: they are part of the verdict, not of the prefilter.
    """
    start = 0
    n = len(chunk)
    while start < n:
        end = chunk.find(b"\n", start)
        if end < 0:
            end = n
        low = chunk[start:end].lower()
        probes = {owner for kw, owner in probe_words if kw in low}
        yield start, end, rule_ids | probes
        start = end + 1
