"""Literals every match of a signature's regex contains, derived from its parse tree.

`required_literals(pattern)` gives sets of lower-case strings such that every match of the
pattern holds one string of each set, compared with ASCII case folding (as the prefilter
compares a line's bytes). `NET/IB\\s*:\\s*Got completion from peer` requires
`{"got completion from peer"}` (and `{"net/ib"}`); `(?:CUDA|HIP) out of memory` requires
`{"cuda out of memory", "hip out of memory"}`. The sets are a conjunction: a line must hold
one of each, so the matcher may pick whichever set a log is least likely to hold.

Sound by construction, never complete: a node this walk does not follow requires nothing, and
a pattern `regex_syntax` does not parse gives no sets at all. Under `(?i)` three ASCII letters
also match a non-ASCII character (`k` the Kelvin sign, `s` the long s, `i` the dotted capital
I), which lower-casing bytes would not show; such a pattern's sets also hold those characters,
so a line carrying one meets the set (`FOLDS`, checked against the `regex` package by the tests).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import regex

from bot.matcher.regex_syntax import (
    Alt,
    Char,
    CharSet,
    Empty,
    Look,
    Node,
    Opaque,
    Repeat,
    Seq,
    Unsupported,
    parse,
)

# What the derivation is, for the on-disk memo of its answers (dbcache.derived_literals): the
# bytes of this file and of the parser, and the version of the engine whose matching it predicts.
DERIVATION_VERSION = hashlib.sha256(
    Path(__file__).read_bytes() + (Path(__file__).parent / "regex_syntax.py").read_bytes() + regex.__version__.encode()
).hexdigest()[:16]
# A required set whose shortest string is shorter than this is too common to be worth it.
MIN_LITERAL = 4
# Caps on the sets of strings tracked while deriving (an alternation of 200 model names is fine
# as a set of 200 required literals; the product of two such sets is not).
_MAX_SET = 256
_MAX_LEN = 64
# The non-ASCII characters that a case-insensitive ASCII letter also matches in `regex`
# (simple case folding, the default without FULLCASE).
FOLDS: dict[str, str] = {"i": "\u0130", "k": "\u212a", "s": "\u017f"}
_FOLD_CHARS = frozenset(FOLDS.values())

Strings = frozenset[str]


class _Info:
    """What is known about the strings a node matches.

    `exact`: the finite set of strings the node matches, lower-cased (None: unknown or too many).
    `reqs`: sets of strings; every match holds one string of each.
    """

    __slots__ = ("exact", "reqs")

    def __init__(self, exact: Strings | None, reqs: tuple[Strings, ...] = ()):
        self.exact = exact
        self.reqs = reqs


_EMPTY = _Info(frozenset({""}))
_UNKNOWN = _Info(None)


def score(strings: Strings | None) -> tuple[int, int]:
    """How selective a required set is: its shortest string, then fewer strings (the fold
    characters a case-insensitive pattern adds are left out: they are rare in logs)."""
    words = [s for s in strings or () if s not in _FOLD_CHARS]
    if not words or "" in words:
        return (0, 0)
    return (min(len(s) for s in words), -len(words))


def _as_req(exact: Strings | None) -> tuple[Strings, ...]:
    if not exact or "" in exact:
        return ()
    return (_minimal(exact),)


def _best(reqs: tuple[Strings, ...]) -> Strings | None:
    return max(reqs, key=score, default=None)


def _minimal(words: Strings) -> Strings:
    """Drop a literal that contains another of the set: a line holding it holds the other."""
    if len(words) < 2:
        return words
    return frozenset(w for w in words if not any(o != w and o in w for o in words))


def _concat(left: Strings, right: Strings) -> Strings | None:
    if len(left) * len(right) > _MAX_SET:
        return None
    out = frozenset(a + b for a in left for b in right)
    # One long literal costs nothing; many long ones are a product growing out of bounds.
    if len(out) > 1 and any(len(s) > _MAX_LEN for s in out):
        return None
    return out


class _Walk:
    def __init__(self) -> None:
        self.folds: set[str] = set()  # fold characters the case-insensitive letters bring in

    def char(self, ch: str, fold: bool) -> str | None:
        """The lower-cased literal for one character, or None when bytes cannot show it."""
        if not ch.isascii() or ch in "\n\r":
            return None  # the line's text is decoded with 'replace'; lines hold no newline
        low = ch.lower()
        if fold and low in FOLDS:
            self.folds.add(FOLDS[low])
        return low

    def node(self, node: Node) -> _Info:
        if isinstance(node, Char):
            ch = self.char(node.char, node.fold)
            return _Info(frozenset({ch})) if ch is not None else _UNKNOWN
        if isinstance(node, CharSet):
            if node.chars is None:
                return _UNKNOWN
            chars = {self.char(c, node.fold) for c in node.chars}
            if None in chars or not 0 < len(chars) <= 4:
                return _UNKNOWN
            return _Info(frozenset(chars))  # type: ignore[arg-type]
        if isinstance(node, Empty | Look):
            return _EMPTY  # consumes nothing: literals on either side stay adjacent
        if isinstance(node, Opaque):
            return _UNKNOWN
        if isinstance(node, Seq):
            return self.sequence(node.items)
        if isinstance(node, Alt):
            return self.alternation(node.branches)
        if isinstance(node, Repeat):
            return self.repeat(node)
        raise Unsupported(f"unknown node {node!r}")

    def alternation(self, branches: tuple[Node, ...]) -> _Info:
        infos = [self.node(b) for b in branches]
        exact = None
        if all(i.exact is not None for i in infos):
            merged = frozenset().union(*(i.exact for i in infos))  # type: ignore[arg-type]
            exact = merged if len(merged) <= _MAX_SET else None
        # Every match is one branch's: it holds the best set of that branch.
        picks = [_best(i.reqs + _as_req(i.exact)) for i in infos]
        if any(p is None for p in picks):
            return _Info(exact)
        merged = frozenset().union(*picks)  # type: ignore[arg-type]
        return _Info(exact, (_minimal(merged),) if len(merged) <= _MAX_SET else ())

    def repeat(self, node: Repeat) -> _Info:
        sub = self.node(node.sub)
        low, high = node.low, node.high
        if low == 0:
            if high == 0:
                return _EMPTY
            if high == 1 and sub.exact is not None:
                return _Info(sub.exact | {""})
            return _UNKNOWN
        exact: Strings | None = None
        if high == low and sub.exact is not None and low <= 8:
            exact = frozenset({""})
            for _ in range(low):
                exact = _concat(exact, sub.exact) if exact is not None else None
        return _Info(exact, sub.reqs + _as_req(sub.exact))

    def sequence(self, items: tuple[Node, ...]) -> _Info:
        reqs: list[Strings] = []
        run: Strings = frozenset({""})  # exact strings of the current contiguous run
        whole: Strings | None = frozenset({""})
        for item in items:
            info = self.node(item)
            reqs.extend(info.reqs)
            if info.exact is not None:
                joined = _concat(run, info.exact)
                if joined is not None:
                    run = joined
                    whole = _concat(whole, info.exact) if whole is not None else None
                    continue
            # The run ends here: what it matched is required.
            reqs.extend(_as_req(run))
            run = info.exact if info.exact is not None else frozenset({""})
            whole = None
        reqs.extend(_as_req(run))
        return _Info(whole, tuple(reqs))


def required_literals(pattern: str, *, min_literal: int = MIN_LITERAL, first_line: bool = False) -> tuple[Strings, ...]:
    """Sets of lower-case literals, most selective first; every match of `pattern` holds one
    literal of each set. Sets whose shortest literal is under `min_literal` are left out;
    `()` when nothing useful can be proved (or the pattern is outside the parsed subset).

    `first_line`: only literals of the match's opening, before anything that can match a
    newline, so that a match that begins on a line holds them on that line (a signature that
    spans lines is opened on its first line).
    """
    try:
        tree = parse(pattern)
    except Unsupported:
        return ()
    if first_line:
        tree = _opening(tree)
    walk = _Walk()
    info = walk.node(tree)
    found = _drop_implied({_minimal(s) for s in info.reqs + _as_req(info.exact) if score(s)[0] >= min_literal})
    folds = frozenset(walk.folds)
    # Every set carries the pattern's fold characters: a line holding one may match unseen.
    return tuple(sorted((s | folds for s in found), key=lambda s: (-score(s)[0], -score(s)[1], sorted(s))))


def _opening(tree: Node) -> Node:
    """The leading items of `tree` up to the first that may match a newline."""
    items = tree.items if isinstance(tree, Seq) else (tree,)
    kept: list[Node] = []
    for item in items:
        if _may_match_newline(item):
            break
        kept.append(item)
    return Seq(tuple(kept))


def _may_match_newline(node: Node) -> bool:
    if isinstance(node, Char):
        return node.char == "\n"
    if isinstance(node, CharSet):
        return node.chars is None or "\n" in node.chars
    if isinstance(node, Empty | Look):
        return False
    if isinstance(node, Seq):
        return any(_may_match_newline(i) for i in node.items)
    if isinstance(node, Alt):
        return any(_may_match_newline(b) for b in node.branches)
    if isinstance(node, Repeat):
        return _may_match_newline(node.sub)
    return True  # a backreference: whatever the group took


def _drop_implied(sets: set[Strings]) -> list[Strings]:
    """Leave out a set that another implies (each literal of the other holds one of its own):
    `{"110 - connection timed out"}` beside `{" (errno: 110 - connection timed out"}`."""
    return [
        s for s in sets if not any(o != s and all(any(w in x for w in s) for x in o) for o in sets)
    ]


def unsupported_reason(pattern: str) -> str | None:
    """Why `pattern` is outside the subset the derivation reads, or None when it is inside."""
    try:
        parse(pattern)
    except Unsupported as exc:
        return str(exc)
    return None


def gate_is_proven(pattern: str, keywords: frozenset[str], *, first_line: bool = False) -> bool:
    """Does every match of `pattern` hold one of `keywords` (lower-case), as far as the
    derivation can tell? A line the keyword gate turns away then cannot match (up to the three
    non-ASCII case folds of `FOLDS`, which the gate's ASCII-lowered bytes cannot see either).
    False for a pattern outside the parsed subset."""
    try:
        tree = parse(pattern)
    except Unsupported:
        return False
    return _proven(_opening(tree) if first_line else tree, keywords)


def _proven(node: Node, keywords: frozenset[str]) -> bool:
    """Every match of `node` holds a keyword: one of its required sets is all keywords, or
    each branch of an alternation is proven, or a part every match of a sequence takes is.
    The parts matter where the sets alone fall short: an alternation keeps one set per branch
    (`/dev/shm.*No space` or `No space.*/dev/shm` keeps `no space` only), and a run of
    literals longer than `_MAX_LEN` is cut where a keyword may lie."""
    info = _Walk().node(node)
    sets = info.reqs + _as_req(info.exact)
    if any(all(any(k in w for k in keywords) for w in words) for words in sets):
        return True
    if isinstance(node, Alt):
        return all(_proven(b, keywords) for b in node.branches)
    if isinstance(node, Seq):
        return any(_proven(i, keywords) for i in node.items)
    if isinstance(node, Repeat) and node.low >= 1:
        return _proven(node.sub, keywords)
    return False


__all__ = ["DERIVATION_VERSION", "FOLDS", "MIN_LITERAL", "gate_is_proven", "required_literals", "score",
           "unsupported_reason"]  # fmt: skip
