"""A parser of the regex subset the rules are written in, for reasoning about what they match.

It reads the `regex` package's default (version 0) syntax as far as our rules use it: literals
and escapes, `.`, classes, groups (capturing, named, non-capturing, atomic), alternation,
greedy / lazy / possessive quantifiers, anchors and `\\b`, lookarounds, backreferences and the
flags `i`, `s`, `m`. Anything else (verbose or full-case mode, fuzzy matching, POSIX classes,
conditionals, `\\p{..}`, ...) raises `Unsupported`: a caller reasoning about matches must then
assume nothing. The tree keeps only what such reasoning needs; it is never used to match.

Our own parser, not `regex`'s private one: the rules are ours, and a construct this file does
not know is refused loudly instead of silently changing meaning when a dependency changes.
"""

from __future__ import annotations

from dataclasses import dataclass


class Unsupported(ValueError):
    """The pattern uses syntax outside the subset (the message says which, and where)."""


@dataclass(frozen=True, slots=True)
class Char:
    """One literal character; `fold`: matched case-insensitively."""

    char: str
    fold: bool


@dataclass(frozen=True, slots=True)
class CharSet:
    """One character from `chars` (None: from a set too large or negated to list).

    `digits`: the ASCII digits the set matches (a set that matches some digits but not all
    tells digits apart); `spaces`: it matches whitespace only (`\\s`, `[ \\t]`)."""

    chars: frozenset[str] | None
    fold: bool
    digits: frozenset[str] = frozenset()
    spaces: bool = False
    only_digits: bool = False  # `\d`, `[0-9]`: on an ASCII line, digits and nothing else


@dataclass(frozen=True, slots=True)
class Empty:
    """Consumes nothing: an anchor, a word boundary, a lookaround, a comment."""


@dataclass(frozen=True, slots=True)
class Look:
    """A lookaround: consumes nothing, but its pattern `sub` reads the text around."""

    sub: Node


@dataclass(frozen=True, slots=True)
class Opaque:
    """Some text, possibly none, that depends on the subject (a backreference)."""


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    branches: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    sub: Node
    low: int
    high: int | None  # None: unbounded


Node = Char | CharSet | Empty | Look | Opaque | Seq | Alt | Repeat

DIGITS = frozenset("0123456789")
# Escapes standing for one character of a class too large to list, with the ASCII digits each matches.
_CLASS_ESCAPES = {"d": DIGITS, "w": DIGITS, "S": DIGITS, "D": frozenset(), "W": frozenset(), "s": frozenset()}
_ZERO_WIDTH_ESCAPES = frozenset("bBAZ")
_CONTROL_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "e": "\x1b"}
_FLAGS = frozenset("ism")
# Largest class listed member by member; a bigger one is `CharSet(None)`.
_MAX_LISTED = 16


def parse(pattern: str) -> Node:
    """The tree of `pattern`, or `Unsupported`.

    Version 0 of `regex` applies an inline flag group like `(?i)` to the whole pattern wherever
    it stands, so one found after the start is taken as global and the parse starts over.
    """
    flags: frozenset[str] = frozenset()
    while True:
        parser = _Parser(pattern, flags)
        try:
            tree = parser.alternation()
        except _Restart as restart:
            flags = flags | restart.flags
            continue
        if parser.pos != len(pattern):
            raise Unsupported(f"unbalanced ')' at {parser.pos}")
        return tree


class _Restart(Exception):
    def __init__(self, flags: frozenset[str]):
        self.flags = flags


class _Parser:
    def __init__(self, pattern: str, flags: frozenset[str]):
        self.p = pattern
        self.pos = 0
        self.flags = flags

    def fail(self, what: str) -> Unsupported:
        return Unsupported(f"{what} at {self.pos} of {self.p!r}")

    def peek(self, ahead: int = 0) -> str:
        i = self.pos + ahead
        return self.p[i] if i < len(self.p) else ""

    def alternation(self) -> Node:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return branches[0] if len(branches) == 1 else Alt(tuple(branches))

    def sequence(self) -> Node:
        items: list[Node] = []
        while self.peek() not in ("", "|", ")"):
            atom = self.atom()
            items.append(self.quantified(atom))
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def quantified(self, atom: Node) -> Node:
        ch = self.peek()
        if ch == "*":
            low, high = 0, None
            self.pos += 1
        elif ch == "+":
            low, high = 1, None
            self.pos += 1
        elif ch == "?":
            low, high = 0, 1
            self.pos += 1
        elif ch == "{":
            low, high = self.counts()
        else:
            return atom
        if self.peek() in ("?", "+"):  # lazy or possessive: the same strings match
            self.pos += 1
        if self.peek() in ("*", "+", "?", "{"):
            raise self.fail("a quantifier on a quantifier")
        return Repeat(atom, low, high)

    def counts(self) -> tuple[int, int | None]:
        close = self.p.find("}", self.pos)
        body = self.p[self.pos + 1 : close] if close >= 0 else ""
        low_text, comma, high_text = body.partition(",")
        if close < 0 or not (low_text.isdigit() or (comma and not low_text)) or (high_text and not high_text.isdigit()):
            raise self.fail("a '{' that is not a count (fuzzy matching or a bare brace)")
        if not comma and not low_text:
            raise self.fail("an empty count")
        self.pos = close + 1
        low = int(low_text) if low_text else 0
        high = (int(high_text) if high_text else None) if comma else low
        if high is not None and high < low:
            raise self.fail("a count whose minimum exceeds its maximum")
        return low, high

    def atom(self) -> Node:
        ch = self.peek()
        fold = "i" in self.flags
        if ch == "(":
            return self.group()
        if ch == "[":
            return self.charset()
        if ch in ("*", "+", "?", "{"):
            raise self.fail("nothing to repeat")
        self.pos += 1
        if ch == ".":
            return CharSet(None, fold, DIGITS)
        if ch in ("^", "$"):
            return Empty()
        if ch == "\\":
            return self.escape(in_class=False)
        return Char(ch, fold)

    def escape(self, *, in_class: bool) -> Node:
        """The escape after a backslash (already consumed)."""
        ch = self.peek()
        if not ch:
            raise self.fail("a trailing backslash")
        self.pos += 1
        fold = "i" in self.flags
        if ch in _CLASS_ESCAPES:
            return CharSet(None, fold, _CLASS_ESCAPES[ch], spaces=ch == "s", only_digits=ch == "d")
        if not in_class and ch in _ZERO_WIDTH_ESCAPES:
            return Empty()
        if not in_class and ch in "123456789":
            while self.peek().isdigit():
                self.pos += 1
            return Opaque()
        if not in_class and ch == "g" and self.peek() == "<":
            close = self.p.find(">", self.pos)
            if close < 0:
                raise self.fail("an unterminated \\g<")
            self.pos = close + 1
            return Opaque()
        if ch in _CONTROL_ESCAPES:
            return Char(_CONTROL_ESCAPES[ch], fold)
        if ch == "x":
            return Char(self.hex_digits(2), fold)
        if ch == "u":
            return Char(self.hex_digits(4), fold)
        if ch == "0":
            return Char("\0", fold)
        if in_class and ch == "b":
            return Char("\b", fold)
        if ch.isascii() and ch.isalnum():
            raise self.fail(f"the escape \\{ch}")
        return Char(ch, fold)

    def hex_digits(self, n: int) -> str:
        text = self.p[self.pos : self.pos + n]
        if len(text) != n or any(c not in "0123456789abcdefABCDEF" for c in text):
            raise self.fail("a malformed hex escape")
        self.pos += n
        return chr(int(text, 16))

    def group(self) -> Node:
        self.pos += 1  # (
        saved = self.flags
        zero_width = False
        if self.peek() == "?":
            self.pos += 1
            kind = self.peek()
            if kind in (":", ">"):
                self.pos += 1
            elif kind in ("=", "!"):
                self.pos += 1
                zero_width = True
            elif kind == "<" and self.peek(1) in ("=", "!"):
                self.pos += 2
                zero_width = True
            elif kind == "P" and self.peek(1) == "=":
                close = self.p.find(")", self.pos)
                if close < 0 or not self.p[self.pos + 2 : close].isidentifier():
                    raise self.fail("a malformed (?P=name)")
                self.pos = close + 1
                return Opaque()  # a backreference by name
            elif (kind == "P" and self.peek(1) == "<") or kind == "<":
                close = self.p.find(">", self.pos)
                name = self.p[self.pos + (2 if kind == "P" else 1) : close]
                if close < 0 or not name.isidentifier():
                    raise self.fail("a malformed group name")
                self.pos = close + 1
            elif kind == "#":
                close = self.p.find(")", self.pos)
                if close < 0:
                    raise self.fail("an unterminated comment")
                self.pos = close + 1
                return Empty()
            else:
                return self.flag_group()
        sub = self.alternation()
        if self.peek() != ")":
            raise self.fail("a missing ')'")
        self.pos += 1
        self.flags = saved
        return Look(sub) if zero_width else sub

    def flag_group(self) -> Node:
        """`(?ism)` (global in version 0) or `(?i-s:...)` (scoped); the `(?` is consumed."""
        start = self.pos
        while self.peek() and self.peek() in _FLAGS | {"-"}:
            self.pos += 1
        on, _, off = self.p[start : self.pos].partition("-")
        end = self.peek()
        if not on + off or end not in (":", ")") or (off and end == ")"):
            raise self.fail("a group or flag this parser does not know")
        self.pos += 1
        if end == ")":
            if not set(on) <= self.flags:
                raise _Restart(frozenset(on))
            return Empty()
        saved = self.flags
        self.flags = (self.flags | frozenset(on)) - frozenset(off)
        sub = self.alternation()
        if self.peek() != ")":
            raise self.fail("a missing ')'")
        self.pos += 1
        self.flags = saved
        return sub

    def charset(self) -> Node:
        self.pos += 1  # [
        fold = "i" in self.flags
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        chars: set[str] = set()
        digits: set[str] = set()
        spaces = True
        listed = True
        first = True
        while True:
            ch = self.peek()
            if not ch:
                raise self.fail("an unterminated '['")
            if ch == "]" and not first:
                self.pos += 1
                break
            first = False
            if ch == "[":
                raise self.fail("a '[' inside a set (POSIX class or nested set)")
            low = self.class_member()
            if isinstance(low, CharSet):  # \\d, \\s ... inside the set
                listed = False
                digits |= low.digits
                spaces = spaces and low.spaces
                continue
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                high = self.class_member()
                if isinstance(high, CharSet) or ord(high) < ord(low):
                    raise self.fail("a bad range in a set")
                digits |= {d for d in DIGITS if low <= d <= high}
                spaces = False
                if ord(high) - ord(low) >= _MAX_LISTED:
                    listed = False
                else:
                    chars.update(chr(c) for c in range(ord(low), ord(high) + 1))
            else:
                chars.add(low)
                digits |= {low} & DIGITS
                spaces = spaces and low.isspace()
        matched = frozenset(DIGITS - digits if negated else digits)
        if negated or not listed or len(chars) > _MAX_LISTED:
            return CharSet(None, fold, matched, spaces=spaces and not negated)
        return CharSet(frozenset(chars), fold, matched, spaces=spaces, only_digits=bool(chars) and chars <= DIGITS)

    def class_member(self) -> str | CharSet:
        """One character of a set, or the class a class escape (`\\d` inside `[...]`) stands for."""
        ch = self.peek()
        self.pos += 1
        if ch != "\\":
            return ch
        node = self.escape(in_class=True)
        if isinstance(node, Char | CharSet):
            return node.char if isinstance(node, Char) else node
        raise self.fail("an escape that is no character inside a set")


__all__ = ["DIGITS", "Alt", "Char", "CharSet", "Empty", "Look", "Node", "Opaque", "Repeat", "Seq", "Unsupported", "parse"]
