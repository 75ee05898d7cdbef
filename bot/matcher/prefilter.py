"""Prefilter: one Hyperscan pass over a chunk finds the lines worth a regex.

Two kinds of literal decide whether a line is worth a rule's regexes:
- the rule's **keywords** (`match.keywords`, per-signature `keywords`): the gate. A rule's
  signatures run only on lines holding one of them; that is the contract of `rules/README.md`.
- **required literals** derived from each signature's regex (`required_literals`): text that
  every match of the signature contains, such as `got completion from peer` in
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

import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import hyperscan
import regex
from regex import _regex_core as _rc

from bot.hyperscan_literal import hyperscan_literal
from bot.matcher.dbcache import block_database

# What the derivation below is, for the on-disk memo of its answers (dbcache.derived_literals):
# this file's bytes and the regex package's version, whose parser it walks.
DERIVATION_VERSION = hashlib.sha256(Path(__file__).read_bytes() + regex.__version__.encode()).hexdigest()[:16]
# A derived literal shorter than this is too common to be worth it: the keywords gate instead.
MIN_LITERAL = 4
# Caps on the sets of strings tracked while deriving (an alternation of 200 model names is fine
# as a set of 200 required literals; the product of two such sets is not).
_MAX_SET = 256
_MAX_LEN = 64
# Under IGNORECASE these ASCII letters also match a non-ASCII character (K, ſ, İ, ı), which
# lowercased bytes would not show: a case-insensitive literal is cut at them.
_FOLDS_OUTSIDE_ASCII = frozenset("iksIKS")


class _Info:
    """What is known about the strings a node matches.

    `exact`: the finite set of strings the node matches, lowercased (None: unknown or too many).
    `req`: a set of strings one of which every match contains (None: nothing required).
    """

    __slots__ = ("exact", "req")

    def __init__(self, exact: frozenset[str] | None, req: frozenset[str] | None):
        self.exact = exact
        self.req = req


_EMPTY = _Info(frozenset({""}), None)
_UNKNOWN = _Info(None, None)


def _score(strings: frozenset[str] | None) -> tuple[int, int]:
    """How selective a required set is: its shortest string, then fewer strings."""
    if not strings or "" in strings:
        return (0, 0)
    return (min(len(s) for s in strings), -len(strings))


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    return a if _score(a) >= _score(b) else b


def _as_req(exact: frozenset[str] | None) -> frozenset[str] | None:
    if not exact or "" in exact:
        return None
    return _minimal(exact)


def _minimal(words: frozenset[str]) -> frozenset[str]:
    """Drop a literal that contains another of the set: a line holding it holds the other."""
    if len(words) < 2:
        return words
    return frozenset(w for w in words if not any(o != w and o in w for o in words))


def _char(value: int, case_flags: int) -> str | None:
    """The lowercased literal a single-character node stands for, or None when it is not safe."""
    if value >= 128:
        return None  # non-ASCII: decoding with 'replace' and case folding make bytes unreliable
    ch = chr(value)
    if case_flags == 0:
        return ch.lower()
    if case_flags == _rc.IGNORECASE and ch not in _FOLDS_OUTSIDE_ASCII:
        return ch.lower()
    return None  # FULLCASE folds one character to several (ß ~ ss): not a plain literal


def _concat(left: frozenset[str], right: frozenset[str]) -> frozenset[str] | None:
    if len(left) * len(right) > _MAX_SET:
        return None
    out = frozenset(a + b for a in left for b in right)
    if any(len(s) > _MAX_LEN for s in out):
        return None
    return out


class _Unsupported(Exception):
    """A construct under which literals prove nothing (fuzzy matching)."""


def _walk(node: object) -> _Info:
    kind = type(node)
    if kind is _rc.Fuzzy:
        raise _Unsupported
    if kind is _rc.Character:
        if not node.positive or node.zerowidth:
            return _UNKNOWN if not node.zerowidth else _EMPTY
        ch = _char(node.value, node.case_flags)
        return _Info(frozenset({ch}), None) if ch is not None else _UNKNOWN
    if kind is _rc.Sequence:
        return _sequence(node.items)
    if kind is _rc.Branch:
        infos = [_walk(b) for b in node.branches]
        exact = None
        if all(i.exact is not None for i in infos):
            merged = frozenset().union(*(i.exact for i in infos))
            exact = merged if len(merged) <= _MAX_SET else None
        req = None
        reqs = [_better(i.req, _as_req(i.exact)) for i in infos]
        if all(r is not None for r in reqs):
            merged = frozenset().union(*reqs)
            req = merged if len(merged) <= _MAX_SET else None
        return _Info(exact, req)
    if kind in (_rc.Group, _rc.Atomic):
        return _walk(node.subpattern)
    if kind in (_rc.GreedyRepeat, _rc.LazyRepeat, _rc.PossessiveRepeat):
        sub = _walk(node.subpattern)
        lo, hi = node.min_count, node.max_count
        if lo == 0:
            if hi == 1 and sub.exact is not None:
                return _Info(sub.exact | {""}, None)
            return _Info(frozenset({""}) if hi == 0 else None, None)
        exact = None
        if hi == lo and sub.exact is not None and lo <= 8:
            exact = frozenset({""})
            for _ in range(lo):
                exact = _concat(exact, sub.exact) if exact is not None else None
        return _Info(exact, _better(sub.req, _as_req(sub.exact)))
    if kind is _rc.SetUnion and node.positive and not node.zerowidth:
        chars = set()
        for item in node.items:
            if type(item) is not _rc.Character or not item.positive:
                return _UNKNOWN
            ch = _char(item.value, node.case_flags | item.case_flags)
            if ch is None:
                return _UNKNOWN
            chars.add(ch)
        return _Info(frozenset(chars), None) if 0 < len(chars) <= 4 else _UNKNOWN
    if kind in _ZERO_WIDTH:
        return _EMPTY  # consumes nothing: literals on either side stay adjacent
    return _UNKNOWN  # anything else (classes, fuzzy matching, backreferences...) requires nothing


_ZERO_WIDTH = tuple(
    getattr(_rc, name)
    for name in (
        "Boundary", "DefaultBoundary", "DefaultEndOfWord", "DefaultStartOfWord", "EndOfLine",
        "EndOfLineU", "EndOfString", "EndOfStringLine", "EndOfStringLineU", "EndOfWord",
        "GraphemeBoundary", "LookAround", "SearchAnchor", "StartOfLine", "StartOfLineU",
        "StartOfString", "StartOfWord", "Keep",
    )
    if hasattr(_rc, name)
)  # fmt: skip


def _sequence(items: Iterable[object]) -> _Info:
    best: frozenset[str] | None = None
    run: frozenset[str] | None = frozenset({""})  # exact strings of the current contiguous run
    whole: frozenset[str] | None = frozenset({""})
    for item in items:
        info = _walk(item)
        best = _better(best, info.req)
        if info.exact is not None and run is not None:
            joined = _concat(run, info.exact)
            if joined is not None:
                run = joined
                whole = _concat(whole, info.exact) if whole is not None else None
                continue
        # The run ends here: what it matched is required.
        best = _better(best, _as_req(run))
        run = info.exact if info.exact is not None else frozenset({""})
        whole = None
    best = _better(best, _as_req(run))
    return _Info(whole, best)


def _parse(pattern: str):
    """The `regex` package's own parse tree of a pattern (so no dialect can differ), or None."""
    flags = 0
    for _ in range(4):
        source = _rc.Source(pattern)
        info = _rc.Info(flags, source.char_type, {})
        info.guess_encoding = _rc.UNICODE
        source.ignore_space = bool(info.flags & _rc.VERBOSE)
        try:
            tree = _rc._parse_pattern(source, info)
        except _rc._UnscopedFlagSet:
            flags = info.global_flags
            continue
        if not source.at_end() or info.flags & (_rc.LOCALE | _rc.FULLCASE):
            return None
        return tree
    return None


def required_literals(pattern: str) -> frozenset[str] | None:
    """Lower-case literals one of which every match of `pattern` contains, or None.

    None when nothing useful can be proved (no literal of `MIN_LITERAL` characters or more,
    or syntax this walk does not follow). Sound by construction: anything not understood
    requires nothing, so the answer can only be weaker, never wrong.
    """
    try:
        tree = _parse(pattern)
        if tree is None:
            return None
        info = _walk(tree)
    except Exception:  # fuzzy matching, or the internal parser API changed: derive nothing
        return None
    req = _better(info.req, _as_req(info.exact))
    if _score(req)[0] < MIN_LITERAL:
        return None
    return _minimal(req)


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
    """

    def __init__(self, conditions: Iterable[Condition], direct: Iterable[str] = ()):
        self.conditions = list(conditions)
        self.direct = list(direct)
        # A literal spanning lines can never be on one line: it meets nothing.
        self.words = sorted({w for c in self.conditions for w in (*c.any_of, *(c.and_any_of or ())) if w and "\n" not in w})
        index = {w: i for i, w in enumerate(self.words)}
        # For each literal, the conditions whose first side it is; per condition, both sides.
        self._touches: list[set[int]] = [set() for _ in self.words]
        self._second: list[frozenset[int] | None] = []
        for ci, c in enumerate(self.conditions):
            for w in c.any_of:
                if w in index:
                    self._touches[index[w]].add(ci)
            self._second.append(None if c.and_any_of is None else frozenset(index[w] for w in c.and_any_of if w in index))
        n = len(self.words)
        expressions = [(i, hyperscan_literal(w)) for i, w in enumerate(self.words)]
        expressions += [(n + k, hyperscan_literal(w)) for k, w in enumerate(self.direct)]
        self._single = [frozenset((i,)) for i in range(n)]
        self._direct_at = tuple(len(w.encode("utf-8")) for w in self.direct)
        self._first_direct = n
        self._met: dict[frozenset[int], frozenset[int]] = {}
        self._database = block_database(expressions, hyperscan.HS_FLAG_CASELESS) if expressions else None
        # Scratch space belongs to one scan at a time: one per thread that scans.
        self._local = threading.local()

    def _scratch(self) -> hyperscan.Scratch:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = hyperscan.Scratch(self._database)
        return scratch

    def conditions_met(self, lits: frozenset[int]) -> frozenset[int]:
        """The conditions a line holding exactly the literals `lits` meets (cached)."""
        met = self._met.get(lits)
        if met is None:
            candidates: set[int] = set()
            for i in lits:
                candidates |= self._touches[i]
            second = self._second
            met = frozenset(ci for ci in candidates if second[ci] is None or not lits.isdisjoint(second[ci]))  # type: ignore[arg-type]
            if len(self._met) >= _MET_CACHE_MAX:
                self._met.clear()  # endlessly new mixes of literals: stay bounded
            self._met[lits] = met
        return met

    def candidate_lines(
        self, chunk: bytes, end: int | None = None
    ) -> tuple[list[tuple[int, int, frozenset[int]]], list[tuple[int, int]]]:
        """([(line start, line end, indexes of the conditions the line meets)], [(direct
        literal, start offset)]), both in order of position. Lines meeting none are left out.

        `line end` excludes the newline. Only text before `end` is scanned.
        """
        if self._database is None:
            return [], []
        if end is None:
            end = len(chunk)
        grouped = _LineGrouper(chunk, self._single, self._first_direct, self._direct_at)
        self._database.scan(
            chunk if end == len(chunk) else chunk[:end], match_event_handler=grouped.hit, scratch=self._scratch()
        )
        cached, conditions_met = self._met.get, self.conditions_met
        out = []
        for start, stop, lits in grouped.lines():
            met = cached(lits)
            if met is None:
                met = conditions_met(lits)
            if met:
                out.append((start, stop, met))
        return out, grouped.direct


# Distinct literal sets remembered with the conditions they meet.
_MET_CACHE_MAX = 20_000


class _LineGrouper:
    """Turns expression hits (id, end offset) into lines with the set of conditions each meets."""

    __slots__ = ("_chunk", "_cur", "_direct_at", "_first_direct", "_merged", "_out", "_single",
                 "_start", "_stop", "_unordered", "direct")  # fmt: skip

    def __init__(self, chunk: bytes, single: list[frozenset[int]], first_direct: int, direct_at: tuple[int, ...]):
        self._chunk = chunk
        self._single = single
        self._first_direct = first_direct
        self._direct_at = direct_at
        self._out: list[tuple[int, int, frozenset[int]]] = []
        self._start = self._stop = -1
        self._cur: frozenset[int] | set[int] = frozenset()
        self._merged = False
        self._unordered = False
        self.direct: list[tuple[int, int]] = []

    def hit(self, idx: int, _from: int, to: int, _flags: int, _context: object) -> None:
        if idx >= self._first_direct:
            k = idx - self._first_direct
            self.direct.append((k, to - self._direct_at[k]))
            return
        # No expression matches a newline, so the line holding the hit is the one holding to-1.
        if self._start < to <= self._stop:
            if not self._merged:
                self._cur, self._merged = set(self._cur), True
            self._cur.add(idx)
            return
        if to <= self._start:
            self._unordered = True  # not expected of Hyperscan's block mode; merged in lines()
        self._flush()
        chunk = self._chunk
        self._start = chunk.rfind(b"\n", 0, to - 1) + 1
        stop = chunk.find(b"\n", to - 1)
        self._stop = stop if stop >= 0 else len(chunk)
        self._cur, self._merged = self._single[idx], False

    def _flush(self) -> None:
        if self._start >= 0:
            self._out.append((self._start, self._stop, frozenset(self._cur) if self._merged else self._cur))

    def lines(self) -> list[tuple[int, int, frozenset[int]]]:
        self._flush()
        self._start = -1
        if self._unordered:
            merged: dict[tuple[int, int], frozenset[int]] = {}
            for start, stop, lits in self._out:
                merged[start, stop] = merged.get((start, stop), frozenset()) | lits
            self._out = [(start, stop, lits) for (start, stop), lits in sorted(merged.items())]
            self.direct.sort(key=lambda hit: hit[1])
        return self._out


__all__ = ["DERIVATION_VERSION", "MIN_LITERAL", "Condition", "Prefilter", "required_literals"]
