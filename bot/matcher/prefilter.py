"""Prefilter: one Hyperscan pass over a chunk finds the lines worth a regex.

Two kinds of literal decide whether a line is worth a rule's regexes:
- the rule's **keywords** (`match.keywords`, per-signature `keywords`): the gate. A rule's
  signatures run only on lines holding one of them; that is the contract of `rules/README.md`.
- **required literals** derived from each signature's regex (`bot.matcher.required`): text
  that every match of the signature contains, such as `got completion from peer` in
  `NET/IB\\s*:\\s*Got completion from peer`. A line without one cannot match that signature.

Each signature becomes one line condition (`Condition`: a gate keyword and, when it has derived
literals, one of those too), each probe another. One database of all their literals
(`Prefilter`) reports which literals each line holds; which conditions that line meets is
decided once per distinct set of literals, and the matcher runs a signature only on lines that
meet its condition, so a keyword that healthy logs print on line after line (`nvls` in NCCL
INFO) costs a callback, never a regex. The diagnosis is exactly the one the keywords alone
give: a derived literal is only ever used as a condition that every match satisfies
(`tests/matcher/test_equivalence.py`, `tests/matcher/test_prefilter.py`).

Literals are lower-case and matched with ASCII case folding, as if against `bytes.lower()` of the
chunk. The library is Hyperscan (through `python-hyperscan`, whose wheels carry Vectorscan;
linear time, no backtracking): over the 100 MB benchmark log its scan takes about 0.09 s of
CPU, where `ahocorasick_rs` over a lowered copy took 0.26 s.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import hyperscan

from bot.dbcache import block_database
from bot.literals import hyperscan_literal


@dataclass(frozen=True)
class Condition:
    """A line qualifies when it holds one of `any_of` and, if `and_any_of` is set, one of those
    too (ASCII case-insensitive substrings, occurrences may overlap)."""

    any_of: frozenset[str]
    and_any_of: frozenset[str] | None = None


class Prefilter:
    """One Hyperscan database of every condition's literals; finds, per line, which conditions
    the line meets.

    Each distinct literal is its own plain-literal expression (Hyperscan's literal matchers),
    and which conditions a line meets is decided here from the set of literals on it, once per
    distinct set. Expressions that join two literals with a gap (`a[^\\n]*b`) would let
    Hyperscan report only the qualifying lines, but Vectorscan 5.4.12, the engine in the
    python-hyperscan wheels, misses some of those matches (this module's property test found
    one; upstream VectorCamp/vectorscan#382): a missed line is a missed diagnosis, so only
    literals go to the engine. Literals listed in `direct` are reported as (index into
    `direct`, start offset) for a caller that reads what follows them straight off the chunk
    (the world-size probe).

    Every literal reported costs a call into Python, and a healthy log can print one of them on
    line after line (`NVLS multicast support is not available` in NCCL INFO, where the rule
    wants `nvls` *and* a failure phrase). A condition with two sides needs only one side in the
    database: the other can be tested on the few lines the first turns up. `choose_dropped`
    picks, from what a sample of the log showed, the literals worth leaving out; `variant`
    gives the database without them. Any choice gives the same lines: a condition is only ever
    left with one side in the database, and the other side is then tested on the line itself.
    """

    def __init__(self, conditions: Iterable[Condition], direct: Iterable[str] = ()):
        self.conditions = list(conditions)
        self.direct = list(direct)
        # A literal spanning lines can never be on one line: it meets nothing.
        self.words = sorted({w for c in self.conditions for w in (*c.any_of, *(c.and_any_of or ())) if w and "\n" not in w})
        index = {w: i for i, w in enumerate(self.words)}
        self._encoded = [w.encode("utf-8") for w in self.words]
        # Each literal as a Hyperscan expression, spelled once: a log builds a database or
        # two as its samples choose (`variant`), each from these.
        self._expressions = [hyperscan_literal(w) for w in (*self.words, *self.direct)]
        # Per condition, both sides as literal indexes; per literal, the conditions it is in.
        self._sides: list[tuple[frozenset[int], frozenset[int] | None]] = []
        self._touches: list[set[int]] = [set() for _ in self.words]
        for ci, c in enumerate(self.conditions):
            first = frozenset(index[w] for w in c.any_of if w in index)
            second = None if c.and_any_of is None else frozenset(index[w] for w in c.and_any_of if w in index)
            self._sides.append((first, second))
            for i in first | (second or frozenset()):
                self._touches[i].add(ci)
        # Literals no choice may leave out: those of one-sided conditions, and any that stands
        # on both sides of a condition (leaving it out would leave neither side whole).
        self._pinned = frozenset(
            i
            for first, second in self._sides
            for i in (first if second is None else first & second)
        )
        # Literals on no condition's first side (the rule's keywords): only ever a derived
        # literal, which a variant may leave out untested (`choose_relaxed`).
        on_first = {i for first, _ in self._sides for i in first}
        self._second_only = frozenset(i for i in range(len(self.words)) if i not in on_first)
        self._single = [frozenset((i,)) for i in range(len(self.words))]
        self._direct_at = tuple(len(w.encode("utf-8")) for w in self.direct)
        self._first_direct = len(self.words)
        self._variants: dict[tuple[frozenset[int], frozenset[int]], Variant] = {}
        self._lock = threading.Lock()
        self.full = self.variant(frozenset())

    def variant(self, dropped: frozenset[int], relaxed: frozenset[int] = frozenset()) -> Variant:
        """The database without the literals `dropped` (indexes into `words`), built once.
        Those also in `relaxed` are not looked for at all: a condition whose derived side holds
        one is met wherever its keywords are (a superset of its lines, so a regex decides)."""
        key = (dropped, relaxed)
        found = self._variants.get(key)
        if found is not None:
            return found
        if not self.allows(dropped):
            raise ValueError("leaving out these literals would leave a condition with no side whole")
        if not relaxed <= dropped & self._second_only:
            raise ValueError("only derived literals left out of the database may go untested")
        with self._lock:
            found = self._variants.get(key)
            if found is None:
                if len(self._variants) >= _VARIANTS_MAX:
                    whole = (frozenset(), frozenset())
                    self._variants = {whole: self._variants[whole]}
                found = self._variants[key] = Variant(self, dropped, relaxed)
            return found

    def choose(self, seen: Counter[frozenset[int]], *, reports: Counter[int] | None = None) -> Variant:
        """The database for the rest of a log, from its sample: first the derived literals to
        stop looking for (`choose_relaxed`), then those to look for by hand (`choose_dropped`)."""
        relaxed = self.choose_relaxed(seen, reports=reports)
        return self.variant(self.choose_dropped(seen, reports=reports, relaxed=relaxed), relaxed)

    def choose_relaxed(
        self,
        seen: Counter[frozenset[int]],
        *,
        reports: Counter[int] | None = None,
        hot_lines: int | None = None,
        reports_per_line: int | None = None,
    ) -> frozenset[int]:
        """The derived literals not worth looking for, given the sample (as `choose_dropped`).

        A derived literal only narrows its condition below the rule's keywords; without it the
        condition is met on every line holding a keyword, and the signature's regex (once per
        line shape) decides. A Megatron iteration line holds seven literals of the `loss-nan`
        and `fp16-loss-scale-min` conditions and meets them all anyway: five of those reports
        are saved, every line. Worth it when the literal is reported far more often than the
        sample holds lines that would newly meet a condition (each then a candidate line).
        Greedy, most reported first; a condition already met on its keywords costs nothing more.
        """
        hot_lines = max(_HOT_LINES if hot_lines is None else hot_lines, 1)
        per_line = _REPORTS_PER_CANDIDATE if reports_per_line is None else reports_per_line
        on_lines: Counter[int] = Counter()
        for lits, n in seen.items():
            for i in lits:
                on_lines[i] += n
        saved = on_lines if reports is None else Counter({i: max(reports[i], on_lines[i]) for i in on_lines})
        relaxed: set[int] = set()
        opened: set[int] = set()  # conditions met on their keywords alone
        for i, n in sorted(saved.items(), key=lambda kv: (-kv[1], kv[0])):
            if n < hot_lines or i not in self._second_only:
                continue
            new = [self._sides[ci] for ci in self._touches[i] if ci not in opened]
            newly_met = sum(
                n_lines
                for lits, n_lines in seen.items()
                if any(lits & first and not lits & second for first, second in new)  # type: ignore[operator]
            )
            if n >= per_line * newly_met:
                relaxed.add(i)
                opened |= self._touches[i]
        return frozenset(relaxed)

    def allows(self, dropped: frozenset[int]) -> bool:
        """Whether a database without `dropped` still finds every line: each condition keeps a
        side with none of them (one-sided conditions keep their only side)."""
        return all(
            first.isdisjoint(dropped) or (second is not None and second.isdisjoint(dropped))
            for first, second in self._sides
        )

    def choose_dropped(
        self,
        seen: Counter[frozenset[int]],
        *,
        reports: Counter[int] | None = None,
        hot_lines: int | None = None,
        reports_per_test: int | None = None,
        relaxed: frozenset[int] = frozenset(),
    ) -> frozenset[int]:
        """The literals to leave out of the database, given `seen`: how many sampled lines held
        each set of literals (as `candidate_lines(..., seen=)` counts them), and `reports`: how
        often each literal was reported (`candidate_lines(..., reports=)`; default one a line).

        A literal goes when it is reported often and every condition it is in keeps its other
        side whole in the database, and when the lines on which that other side would then need
        testing by hand are few against the reports saved. Reports, not lines: a tqdm file's
        megabyte lines say `train_loss=` thousands of times each, every time a call into Python.
        Greedy, most reported first: a side that stands in for a dropped literal is kept whole
        from then on. `relaxed` (from `choose_relaxed`) are left out already, untested: the
        keywords of their conditions stay whole, and those conditions need no test.
        """
        hot_lines = max(_HOT_LINES if hot_lines is None else hot_lines, 1)
        reports_per_test = _REPORTS_PER_TEST if reports_per_test is None else reports_per_test
        on_lines: Counter[int] = Counter()
        for lits, n in seen.items():
            for i in lits:
                on_lines[i] += n
        saved = on_lines if reports is None else Counter({i: max(reports[i], on_lines[i]) for i in on_lines})
        dropped: set[int] = set(relaxed)
        kept_whole: set[int] = set(self._pinned)
        opened = {ci for i in relaxed for ci in self._touches[i]}  # met on their keywords alone
        for ci in opened:
            kept_whole |= self._sides[ci][0]
        for i, n in sorted(saved.items(), key=lambda kv: (-kv[1], kv[0])):
            if n < hot_lines or i in kept_whole or i in dropped:
                continue
            others: list[tuple[frozenset[int], frozenset[int]]] = []  # (own side, other side)
            ok = True
            for ci in self._touches[i]:
                if ci in opened:
                    continue  # `i` is on its derived side, which nothing tests any more
                first, second = self._sides[ci]
                assert second is not None  # one-sided conditions' literals are pinned
                own, other = (first, second) if i in first else (second, first)
                if other & dropped:
                    ok = False
                    break
                others.append((own, other))
            if not ok:
                continue
            gone = dropped | {i}
            to_test = sum(
                n_lines
                for lits, n_lines in seen.items()
                if any(lits & other and not lits & (own - gone) for own, other in others)
            )
            if n >= reports_per_test * to_test:
                dropped.add(i)
                for _, other in others:
                    kept_whole |= other
        return frozenset(dropped)

    def candidate_lines(
        self,
        chunk: bytes,
        end: int | None = None,
        *,
        start: int = 0,
        variant: Variant | None = None,
        seen: Counter[frozenset[int]] | None = None,
        reports: Counter[int] | None = None,
    ) -> tuple[list[tuple[int, int, frozenset[int]]], list[tuple[int, int]]]:
        """([(line start, line end, indexes of the conditions the line meets)], [(direct
        literal, start offset)]), both in order of position. Lines meeting none are left out.

        Only `chunk[start:end]` is scanned (`start` just past a newline, or 0); offsets are
        into `chunk`, and `line end` excludes the newline. `variant` (default: every literal)
        is the database to scan with; `seen`, when given, counts each set of literals found on
        a line, and `reports` each literal's reports, for `choose_dropped`.
        """
        variant = variant or self.full
        if variant.database is None:
            return [], []
        if end is None:
            end = len(chunk)
        grouped = _LineGrouper(chunk, start, self._single, self._first_direct, self._direct_at, count=reports is not None)
        window = chunk if start == 0 and end == len(chunk) else memoryview(chunk)[start:end]
        variant.database.scan(window, match_event_handler=grouped.hit, scratch=variant.scratch())
        if reports is not None:
            reports.update({i: n for i, n in enumerate(grouped.reports) if n})
        cached, resolve = variant.met.get, variant.resolve
        out = []
        for first, stop, lits in grouped.lines():
            if seen is not None:
                seen[lits] += 1
            entry = cached(lits)
            if entry is None:
                entry = resolve(lits)
            met, to_test = entry
            if to_test:
                low = chunk[first:stop].lower()
                extra = [ci for ci, words in to_test if any(w in low for w in words)]
                if extra:
                    met = met.union(extra)
            if met:
                out.append((first, stop, met))
        return out, grouped.direct


class Variant:
    """A `Prefilter`'s database without some literals, and what each set of literals the
    database reports on a line means under it: conditions met for sure, and conditions whose
    other side must be looked for on the line (it holds a literal left out)."""

    def __init__(self, prefilter: Prefilter, dropped: frozenset[int], relaxed: frozenset[int] = frozenset()):
        self.dropped = dropped
        self.relaxed = relaxed
        # Conditions met on their keywords alone: their derived side holds a relaxed literal.
        self._opened = frozenset(ci for i in relaxed for ci in prefilter._touches[i])
        self._p = prefilter
        expressions = [(i, e) for i, e in enumerate(prefilter._expressions) if i not in dropped]
        self.database = block_database(expressions, hyperscan.HS_FLAG_CASELESS) if expressions else None
        # Per distinct set of reported literals: (conditions met, ((condition, literals to look for), ...)).
        self.met: dict[frozenset[int], tuple[frozenset[int], tuple[tuple[int, tuple[bytes, ...]], ...]]] = {}
        # Scratch space belongs to one scan at a time: one per thread that scans.
        self._local = threading.local()

    def scratch(self) -> hyperscan.Scratch:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = hyperscan.Scratch(self.database)
        return scratch

    def resolve(self, lits: frozenset[int]) -> tuple[frozenset[int], tuple[tuple[int, tuple[bytes, ...]], ...]]:
        """What a line on which the database reported exactly `lits` means (cached)."""
        p, dropped = self._p, self.dropped
        candidates: set[int] = set()
        for i in lits:
            candidates |= p._touches[i]
        met: list[int] = []
        to_test: list[tuple[int, tuple[bytes, ...]]] = []
        for ci in sorted(candidates):
            first, second = p._sides[ci]
            has_first = not lits.isdisjoint(first)
            if second is None:
                if has_first:
                    met.append(ci)
                continue
            has_second = ci in self._opened or not lits.isdisjoint(second)
            if has_first and has_second:
                met.append(ci)
            elif has_first or has_second:
                # One side is on the line; the other is absent unless it holds a literal the
                # database leaves out (only ever one side does).
                missing = (second if has_first else first) & dropped
                if missing:
                    to_test.append((ci, tuple(p._encoded[i] for i in sorted(missing))))
        entry = (frozenset(met), tuple(to_test))
        if len(self.met) >= _MET_CACHE_MAX:
            self.met.clear()  # endlessly new mixes of literals: stay bounded
        self.met[lits] = entry
        return entry


# Distinct literal sets remembered with the conditions they meet, per variant.
_MET_CACHE_MAX = 20_000
# Databases kept per prefilter (each log settles on one; a bound for the odd one out).
_VARIANTS_MAX = 8
# A literal is worth leaving out when the sample shows it on at least this many lines, and on at
# least this many times as many lines as would then need a look by hand (a report into Python
# costs about a third of lowering a line and testing a few substrings on it).
_HOT_LINES = 64
_REPORTS_PER_TEST = 4
# A derived literal is worth no longer looking for when it is reported at least this many times
# as often as the sample holds lines that would then newly meet a condition: each such line
# becomes a candidate (its shape looked up, once per shape a regex), about eight reports' work.
_REPORTS_PER_CANDIDATE = 8


class _LineGrouper:
    """Turns expression hits (id, end offset) into lines with the set of literals each holds,
    and with `count`, counts each literal's reports (for a scan's sample) in `reports`."""

    __slots__ = ("_base", "_chunk", "_cur", "_direct_at", "_first_direct", "_merged", "_out", "_single",
                 "_start", "_stop", "_unordered", "direct", "reports")  # fmt: skip

    def __init__(
        self, chunk: bytes, base: int, single: list[frozenset[int]], first_direct: int, direct_at: tuple[int, ...],
        *, count: bool = False,
    ):
        self._chunk = chunk
        self._base = base
        self._single = single
        self._first_direct = first_direct
        self._direct_at = direct_at
        self._out: list[tuple[int, int, frozenset[int]]] = []
        self._start = self._stop = -1
        self._cur: frozenset[int] | set[int] = frozenset()
        self._merged = False
        self._unordered = False
        self.direct: list[tuple[int, int]] = []
        # A list, not a Counter: one report is one call into Python, and this is all it adds.
        self.reports: list[int] | None = [0] * first_direct if count else None

    def hit(self, idx: int, _from: int, to: int, _flags: int, _context: object) -> None:
        to += self._base
        if idx >= self._first_direct:
            k = idx - self._first_direct
            self.direct.append((k, to - self._direct_at[k]))
            return
        if self.reports is not None:
            self.reports[idx] += 1
        # No expression matches a newline, so the line holding the hit is the one holding to-1.
        if self._start < to <= self._stop:
            if not self._merged:
                self._cur, self._merged = set(self._cur), True
            self._cur.add(idx)
            return
        if to <= self._start:
            self._unordered = True  # not expected of Hyperscan's block mode; merged in lines()
        if self._start >= 0:
            self._out.append((self._start, self._stop, frozenset(self._cur) if self._merged else self._cur))
        chunk = self._chunk
        self._start = chunk.rfind(b"\n", 0, to - 1) + 1
        stop = chunk.find(b"\n", to - 1)
        self._stop = stop if stop >= 0 else len(chunk)
        self._cur, self._merged = self._single[idx], False

    def lines(self) -> list[tuple[int, int, frozenset[int]]]:
        if self._start >= 0:
            self._out.append((self._start, self._stop, frozenset(self._cur) if self._merged else self._cur))
        self._start = -1
        if self._unordered:
            merged: dict[tuple[int, int], frozenset[int]] = {}
            for start, stop, lits in self._out:
                merged[start, stop] = merged.get((start, stop), frozenset()) | lits
            self._out = [(start, stop, lits) for (start, stop), lits in sorted(merged.items())]
            self.direct.sort(key=lambda hit: hit[1])
        return self._out


__all__ = ["Condition", "Prefilter", "Variant"]
