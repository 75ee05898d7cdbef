"""Where in a line a signature can tell one digit from another.

Most digits of a training log's line (timestamps, step counts, losses, rates) are read by no
signature as anything but "a digit": `\\d`, `.` or `\\S` take any of them alike. A signature that
does tell digits apart (`number of nan iterations:\\s*[1-9]`, `errno: 110`) does so at atoms that
stand right behind literal text: the `[1-9]` only ever meets a digit that follows
`number of nan iterations:` and some whitespace. `digit_contexts` gives, for every such atom,
that literal and what may stand between it and the digit; a line's digits elsewhere cannot
change the signature's answer. The engine's line-shape key keeps the digits at those places and
reads every other digit as 0, so a flood of Megatron iteration lines is one shape.

A context is only ever weakened (a shorter literal, more that may stand between), never made
stronger, so the digits it marks are a superset of those the regex can read. A pattern with an
atom that tells digits apart without literal text before it, one inside a lookaround, or a
backreference (it compares digits anywhere) has no contexts: None.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.literals import DIGITS_AS_ZERO
from bot.matcher.regex_syntax import (
    DIGITS,
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

# Longest literal kept behind a digit (its tail is as good an anchor), and the most contexts one
# point of a pattern is tracked with (an alternation of many words).
_MAX_LITERAL = 48
_MAX_CONTEXTS = 64


@dataclass(frozen=True, order=True)
class DigitContext:
    """A digit the signature may read stands right after `literal` (lower-case ASCII), with
    between them only whitespace (when `spaces`) and digits (when `digits`), or nothing."""

    literal: bytes
    spaces: bool = False
    digits: bool = False


_START = DigitContext(b"")


class _Unanchored(Exception):
    """An atom that tells digits apart has no literal before it."""


def _tells_digits(node: Node) -> bool:
    if isinstance(node, Char):
        return node.char in DIGITS
    if isinstance(node, CharSet):
        return 0 < len(node.digits) < len(DIGITS)
    if isinstance(node, Seq):
        return any(_tells_digits(i) for i in node.items)
    if isinstance(node, Alt):
        return any(_tells_digits(b) for b in node.branches)
    if isinstance(node, Repeat | Look):
        return _tells_digits(node.sub)
    return False


def _is_spaces(node: Node) -> bool:
    return (isinstance(node, CharSet) and node.spaces) or (isinstance(node, Char) and node.char.isspace() and node.char.isascii())


class _Walk:
    def __init__(self) -> None:
        self.found: set[DigitContext] = set()

    def record(self, at: frozenset[DigitContext]) -> None:
        if any(not c.literal for c in at):
            raise _Unanchored
        self.found |= at

    def node(self, node: Node, at: frozenset[DigitContext]) -> frozenset[DigitContext]:
        """Walk `node` entered with the contexts `at`; the contexts after it."""
        if isinstance(node, Char):
            if node.char in DIGITS:
                self.record(at)
            return _extend(at, (node.char,))
        if isinstance(node, CharSet):
            if _tells_digits(node):
                self.record(at)
            if node.spaces:
                return frozenset(DigitContext(c.literal, True, c.digits) for c in at)
            if node.chars is not None and len(node.chars) <= 8:
                return _extend(at, tuple(sorted(node.chars)))
            return frozenset({_START})
        if isinstance(node, Empty):
            return at
        if isinstance(node, Look):
            if _tells_digits(node.sub):
                raise _Unanchored  # it reads digits around a point that has no literal of its own
            return at
        if isinstance(node, Opaque):
            raise _Unanchored  # a backreference compares whatever digits its group took
        if isinstance(node, Seq):
            for item in node.items:
                at = self.node(item, at)
            return at
        if isinstance(node, Alt):
            out: frozenset[DigitContext] = frozenset()
            for branch in node.branches:
                out |= self.node(branch, at)
            return out if len(out) <= _MAX_CONTEXTS else frozenset({_START})
        if isinstance(node, Repeat):
            return self.repeat(node, at)
        raise Unsupported(f"unknown node {node!r}")

    def repeat(self, node: Repeat, at: frozenset[DigitContext]) -> frozenset[DigitContext]:
        sub = node.sub
        if _is_spaces(sub):
            return frozenset(DigitContext(c.literal, True, c.digits) for c in at)
        only_digits = (isinstance(sub, Char) and sub.char in DIGITS) or (isinstance(sub, CharSet) and sub.only_digits)
        if only_digits:
            # A run of digits: each one stands behind the literal and the run so far.
            run = frozenset(DigitContext(c.literal, c.spaces, True) for c in at)
            if _tells_digits(sub):
                self.record(run)
            return run
        if isinstance(sub, Char | CharSet) and _tells_digits(sub):
            raise _Unanchored  # `[^0]*`: its digits may stand behind any text it took first
        if node.high is not None and node.high <= 1:
            once = self.node(sub, at)
            return once | at if node.low == 0 else once
        # A second time round, what stands before the sub-pattern is its own end: not a literal.
        self.node(sub, at | {_START})
        return frozenset({_START})


def _extend(at: frozenset[DigitContext], chars: tuple[str, ...]) -> frozenset[DigitContext]:
    """The contexts after one more character, one of `chars`."""
    out = set()
    for c in at:
        for ch in chars:
            if not ch.isascii():
                return frozenset({_START})
            # Whitespace or digits between literal and here: the literal starts afresh (weaker).
            head = c.literal if not (c.spaces or c.digits) else b""
            out.add(DigitContext((head + ch.lower().encode())[-_MAX_LITERAL:]))
    return frozenset(out) if len(out) <= _MAX_CONTEXTS else frozenset({_START})


def digit_contexts(pattern: str) -> frozenset[DigitContext] | None:
    """Every context in which `pattern` may read a digit as other than any digit (empty: it
    reads none so), or None when some digit it tells apart has no literal before it."""
    try:
        tree = parse(pattern)
        walk = _Walk()
        walk.node(tree, frozenset({_START}))
    except (_Unanchored, Unsupported):
        return None
    return frozenset(walk.found)


_SPACE_BYTES = frozenset(b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ")  # what str.isspace says of ASCII


def with_digits_as_zero(contexts: frozenset[DigitContext]) -> tuple[DigitContext, ...]:
    """`contexts` with every digit of their literals read as 0, for `anchored_digits` on a line
    whose digits are all read as 0: a literal's every occurrence in the line is one there, so
    the digits marked are as many or more, and they depend on the line's shape alone."""
    return tuple(sorted({DigitContext(c.literal.translate(DIGITS_AS_ZERO), c.spaces, c.digits) for c in contexts}))


def anchored_digits(line: bytes, contexts: tuple[DigitContext, ...]) -> list[int]:
    """Offsets of the digits of the ASCII `line` that stand in one of `contexts`, in order.

    The literal is looked for in the lower-cased line, which finds every place a case-sensitive
    or case-insensitive match could stand (ASCII folds only among ASCII letters).
    """
    low = line.lower()
    n = len(line)
    marks: set[int] = set()
    for ctx in contexts:
        lit = ctx.literal
        at = low.find(lit)
        while at >= 0:
            j = at + len(lit)
            while j < n:
                b = line[j]
                if 48 <= b <= 57:
                    marks.add(j)
                    if not ctx.digits:
                        break
                elif not (ctx.spaces and b in _SPACE_BYTES):
                    break
                j += 1
            at = low.find(lit, at + 1)
    return sorted(marks)


__all__ = ["DigitContext", "anchored_digits", "digit_contexts", "with_digits_as_zero"]
