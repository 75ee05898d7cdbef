"""Literal prefilter: one Aho-Corasick pass over a chunk finds the lines worth a regex.

Two kinds of literal decide whether a line is worth a rule's regexes:
- the rule's **keywords** (`match.keywords`, per-signature `keywords`): the gate. A rule's
  signatures run only on lines holding one of them; that is the contract of `rules/README.md`.
- **required literals** derived from each signature's regex (`required_literals`): text that
  every match of the signature contains, such as `got completion from peer` in
  `NET/IB\\s*:\\s*Got completion from peer`. A line without one cannot match that signature.

One automaton (`Prefilter`) holds both, plus the built-in probes' keywords; per line it reports
which literals are there. The matcher runs a signature only where its rule's gate passes and
(when it has derived literals) one of them is present, so a keyword that healthy logs print on
line after line (`nvls` in NCCL INFO) costs a pass of the automaton, not regexes per line. The
diagnosis is exactly the one the keywords alone give: a derived literal is only ever used as a
condition that every match satisfies (`tests/matcher/test_equivalence.py`).

Literals are matched case-insensitively on ASCII-lowercased bytes, so byte offsets in the lowered
chunk are offsets in the original chunk too (`bytes.lower()` never changes a length).
The library is `ahocorasick_rs` (Rust's `aho-corasick`, DFA): about 0.5 GB/s here, where
Python's `re` on an alternation of literals manages a small fraction of that.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick_rs
from regex import _regex_core as _rc

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


class Prefilter:
    """One automaton over every literal; finds, per line, which literals the line holds."""

    def __init__(self, words: Iterable[str]):
        self.words = sorted({w for w in words if w and "\n" not in w})
        self._single = [frozenset((i,)) for i in range(len(self.words))]
        self._automaton = (
            ahocorasick_rs.BytesAhoCorasick(
                [w.encode("utf-8") for w in self.words], implementation=ahocorasick_rs.Implementation.DFA
            )
            if self.words
            else None
        )

    def index(self, word: str) -> int:
        return self.words.index(word)

    def candidate_lines(self, chunk: bytes, low: bytes | None = None, end: int | None = None):
        """[(line start, line end, indexes of the literals on the line)], in order.

        `line end` excludes the newline. `low` is `chunk.lower()` when the caller has it; only
        lines that start before `end` count.
        """
        if self._automaton is None:
            return []
        if low is None:
            low = chunk.lower()
        hits = self._automaton.find_matches_as_indexes(low, overlapping=True)
        if not hits:
            return []
        if end is None:
            end = len(chunk)
        single = self._single
        out = []
        append = out.append
        find, rfind = chunk.find, chunk.rfind
        cur_start = cur_end = -1
        cur: frozenset[int] | set[int] = frozenset()
        merged = False
        for idx, start, _stop in hits:
            # Literals hold no newline and hits come in order of their end, so the hits
            # of one line are contiguous.
            if start < cur_end:
                if not merged:
                    cur, merged = set(cur), True
                cur.add(idx)
                continue
            if start >= end:
                break
            if cur_start >= 0:
                append((cur_start, cur_end, frozenset(cur) if merged else cur))
            cur_start = rfind(b"\n", 0, start) + 1
            cur_end = find(b"\n", start)
            if cur_end < 0:
                cur_end = len(chunk)
            cur, merged = single[idx], False
        if cur_start >= 0:
            append((cur_start, cur_end, frozenset(cur) if merged else cur))
        return out


__all__ = ["MIN_LITERAL", "Prefilter", "required_literals"]
