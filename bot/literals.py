"""The one literal engine of the matcher and the masker: Hyperscan.

The matcher's prefilter (`bot/matcher/prefilter.py`) builds its databases from
`hyperscan_literal` expressions; the masker's anchor scans (`bot/masking/anchors.py`, the line
gate) use `Words`, which finds a set of words the way an Aho-Corasick automaton in
leftmost-longest mode would: at each position the leftmost word, the longest of those starting
there, and no overlaps. The teaching lines of `Masker.learn` are found by `LinesWith`: which
lines hold one of the words, one report a line.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Collection, Iterable
from typing import Generic, TypeVar

import hyperscan

from bot.dbcache import block_database, compile_block

T = TypeVar("T")


def hyperscan_literal(word: str) -> str:
    """`word`'s UTF-8 bytes as an expression that matches exactly them.

    Hyperscan reads PCRE syntax, so every byte that could be syntax (and every non-ASCII byte)
    is written as `\\xHH`; ASCII letters and digits stay as they are, which keeps
    `HS_FLAG_CASELESS` and database dumps readable.
    """
    # One C call over the bytes (each a code point below 256 once read as Latin-1): the prefilter
    # spells its ~2,400 literals at every start, 0.03 s as a loop over bytes in Python.
    return word.encode("utf-8").decode("latin-1").translate(_LITERAL_BYTES)


_LITERAL_BYTES = {b: chr(b) if b < 128 and chr(b).isalnum() else f"\\x{b:02x}" for b in range(256)}


# A line's or a name's digit shape: every ASCII digit read as 0, on UTF-8 (where a byte
# 0x30-0x39 is only ever a digit), so that lines or hosts that differ only in numbers are one.
# bytes.translate is several times faster than str.translate.
DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


def hyperscan_shape(word: str) -> str:
    """`word` as an expression in which each ASCII digit stands for any ASCII digit: the
    expression of `sc-061` matches `sc-064` too, and nothing longer or shorter."""
    return "".join("[0-9]" if 48 <= b <= 57 else hyperscan_literal(chr(b)) if b < 128 else f"\\x{b:02x}" for b in word.encode("utf-8"))


def scan_in_thread(db: hyperscan.Database, local: threading.local, data: bytes, hit: Callable[..., object]) -> None:
    """`db.scan(data)` with the calling thread's own scratch space, kept in `local`: a scratch
    serves one scan at a time, and the bot's workers scan the same databases at once."""
    scratch = getattr(local, "scratch", None)
    if scratch is None:
        scratch = local.scratch = hyperscan.Scratch(db)
    db.scan(data, match_event_handler=hit, scratch=scratch)


class Words:
    """A fixed set of words, found in bytes (leftmost-longest), ASCII case-insensitively unless
    `caseless=False`."""

    def __init__(
        self, words: Iterable[str], *, caseless: bool = True, fixed: bool = False, any_digits: Collection[str] = ()
    ) -> None:
        """`fixed=True` for a word list written in our code: its database is kept on disk
        (bot/dbcache.py) and loaded on the next start. A set learned from a log never is.
        The words also in `any_digits` match with any digits in place of theirs (hyperscan_shape)."""
        self.words = list(words)
        if not self.words or not all(self.words):
            raise ValueError("a word set needs words, and an empty word would match everywhere")
        # (A digit is one byte whatever it stands for: a match's start is its end less this.)
        self._lengths = [len(w.encode("utf-8")) for w in self.words]
        expressions = [(i, hyperscan_shape(w) if w in any_digits else hyperscan_literal(w)) for i, w in enumerate(self.words)]
        flags = hyperscan.HS_FLAG_CASELESS if caseless else 0
        self._db = block_database(expressions, flags) if fixed else compile_block(expressions, flags)
        # Scratch space serves one scan at a time: one per thread (the bot's workers).
        self._local = threading.local()

    def find(self, data: bytes, accept: Callable[[int, int], bool] | None = None) -> list[tuple[int, int, int]]:
        """(word index, start, end) of each match, in order of position, none overlapping.

        `accept(start, end)`, when given, rules on each match as the selection reaches it (a
        word boundary, say): a match it refuses gives way to the next longest one starting
        there, then to later ones, as a regex alternation with lookarounds would."""
        found: list[tuple[int, int, int]] = []
        lengths = self._lengths

        def hit(idx: int, _from: int, to: int, _flags: int, _context: object) -> None:
            found.append((to - lengths[idx], -to, idx))

        scan_in_thread(self._db, self._local, data, hit)
        # Hyperscan reports every match, overlapping ones too, by end offset: take the leftmost,
        # the longest of those starting there, then go on after its end.
        found.sort()
        out: list[tuple[int, int, int]] = []
        pos = 0
        for start, neg_end, idx in found:
            if start >= pos and (accept is None or accept(start, -neg_end)):
                pos = -neg_end
                out.append((idx, start, pos))
        return out

    def starts(self, data: bytes) -> list[list[int]]:
        """Where each word starts in `data`, overlapping matches too: one sorted list a word
        (for words without `any_digits`: a word's every match is as long as the word)."""
        found: list[list[int]] = [[] for _ in self.words]
        lengths = self._lengths

        def hit(idx: int, _from: int, to: int, _flags: int, _context: object) -> None:
            found[idx].append(to - lengths[idx])

        # Reported by end offset, so each word's starts come in order.
        scan_in_thread(self._db, self._local, data, hit)
        return found


class LinesWith:
    """The lines that hold one of a fixed set of words (ASCII case-insensitively): one report a
    line however many of the words it holds. `Words.find` reports every match, and a server's
    request line holds several (`max_tokens`, `stop_token_ids`, `<|im_start|>user`): on vLLM's
    log, 236k matches to find 33k lines, each a call into Python, were a third of learning's CPU.
    Each word is followed by the rest of its line (`[^\\n]*\\n`) in one expression, and
    Hyperscan reports an expression once at each end offset; a word that holds a line end
    (` am\\n`) ends its line itself.
    """

    def __init__(self, words: Iterable[str], *, not_after_letter: Collection[str] = ()) -> None:
        """`not_after_letter`: words that count only where no ASCII letter stands before them
        (`nodes ` of `nNodes 2` is no word of its own)."""
        words = list(words)
        if not words or not all(words):
            raise ValueError("a word set needs words, and an empty word would match everywhere")
        rest = "[^\\n]*\\n"
        plain = "|".join(hyperscan_literal(w) for w in words if "\n" not in w and w not in not_after_letter)
        if not plain:
            # `(?:)[^\n]*\n` would report every line of every text.
            raise ValueError("a line set needs a word that ends no line and counts after a letter")
        branches = [
            f"(?:{plain}){rest}",
            *(f"(?:^|[^A-Za-z]){hyperscan_literal(w)}{rest}" for w in not_after_letter),
            *(hyperscan_literal(w) for w in words if "\n" in w),
        ]
        self._db = block_database([(0, "|".join(f"(?:{b})" for b in branches))], hyperscan.HS_FLAG_CASELESS)
        self._local = threading.local()

    def ends(self, data: bytes) -> list[int]:
        """The offset of the line end (its `\\n`) of each line of `data` that holds a word, in
        order; a last line without one ends at `len(data)`."""
        found: list[int] = []

        def hit(_idx: int, _from: int, to: int, _flags: int, _context: object) -> None:
            found.append(to - 1)

        scan_in_thread(self._db, self._local, data if data.endswith(b"\n") else data + b"\n", hit)
        return found


class LastTextMemo(Generic[T]):
    """`fn` with its answer kept for the last text it was given (one per thread, the text
    compared by identity): the masker's passes over one stage read the very same text. Callers
    must not change what it returns."""

    def __init__(self, fn: Callable[[str], T]) -> None:
        self._fn = fn
        self._local = threading.local()
        functools.update_wrapper(self, fn)

    def __call__(self, text: str) -> T:
        local = self._local
        if getattr(local, "text", None) is not text:
            local.value = self._fn(text)
            local.text = text
        return local.value

    def keep(self, text: str, value: T) -> None:
        """Keep `value` as the answer for `text`, known without asking `fn` (to be what it
        would answer)."""
        self._local.text, self._local.value = text, value

    def held(self, text: str) -> T | None:
        """The answer for `text` if it is the last text given (in this thread), else None: for
        a caller that gains only when the answer is at hand, and must not push it out."""
        local = self._local
        return local.value if getattr(local, "text", None) is text else None


def last_text_memo(fn: Callable[[str], T]) -> LastTextMemo[T]:
    """`fn` kept for the last text it was given (LastTextMemo)."""
    return LastTextMemo(fn)


@last_text_memo
def one_byte(text: str) -> bytes:
    """`text` with every non-ASCII character as `?`: one byte per character, so offsets in it
    are offsets in `text`. (Kept for the last text: the masker's stage gate, anchor scan and
    literal tests all read the same stage text, and a text with one non-ASCII character costs
    a slow encode each time.)"""
    return text.encode("ascii", errors="replace")


def lowered_in_place(text: str) -> str:
    """`text` lower-cased with every character at its offset, for finding ASCII words whose
    offsets are then used in `text`. `str.lower` turns a few characters into two (`İ` into `i̇`),
    which would shift every offset after them; there, non-ASCII characters read as `?`."""
    low = text.lower()
    return low if len(low) == len(text) else one_byte(text).decode("ascii").lower()


class LiteralSet:
    """Which of a fixed set of literals occur in a text, exactly (case counts): one scan, at
    most one report per literal, where `literal in text` for each would sweep the text once
    per literal."""

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals = list(dict.fromkeys(literals))
        if not self.literals or not all(self.literals):
            raise ValueError("a literal set needs literals, and an empty one would be everywhere")
        # Looked for in `one_byte(text)`, where `?` also stands for any non-ASCII character.
        if not all(w.isascii() and "?" not in w for w in self.literals):
            raise ValueError("a literal set holds ASCII literals without `?`")
        # Fixed lists written in our code: the database is kept on disk (bot/dbcache.py).
        self._db = block_database([(i, hyperscan_literal(w)) for i, w in enumerate(self.literals)], hyperscan.HS_FLAG_SINGLEMATCH)
        self._local = threading.local()

    def present(self, text: str) -> set[str]:
        """The literals that occur in `text`."""
        found: set[str] = set()
        literals = self.literals

        def hit(idx: int, _from: int, _to: int, _flags: int, _context: object) -> None:
            found.add(literals[idx])

        # An ASCII literal without `?` occurs in `one_byte(text)` exactly where it does in `text`.
        scan_in_thread(self._db, self._local, one_byte(text), hit)
        return found
