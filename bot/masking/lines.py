"""Bounded line geometry: where the line around a position starts and ends.

Every lookup is capped at REACH characters on each side. An unbounded `rfind("\\n")` from
each of many hits on one multi-megabyte line would make masking quadratic; with the cap a
hit costs at most REACH steps and a very long line is seen in windows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

REACH = 4096


def line_start(text: str, pos: int, reach: int = REACH) -> int:
    """Start of the line holding `pos`, or `pos - reach` when the line starts further back."""
    lo = max(0, pos - reach)
    return text.rfind("\n", lo, pos) + 1 or lo


def line_end(text: str, pos: int, reach: int = REACH) -> int:
    """End of the line holding `pos` (its newline or the text end), at most `pos + reach`."""
    hi = min(len(text), pos + reach)
    end = text.find("\n", pos, hi)
    return hi if end == -1 else end


def starts_line(text: str, pos: int) -> bool:
    """True when only blanks stand between the start of the line and `pos`."""
    start = line_start(text, pos, 256)
    return (start == 0 or text[start - 1] == "\n") and not text[start:pos].strip()


class LinePattern:
    """A pattern anchored at line starts, scanned without `(?m)^`.

    `re` tries `(?m)^` at every position; a leading literal `\\n` lets it skip to candidate
    positions in C. The first line of the text is tried on its own.
    """

    __slots__ = ("_first", "_rest")

    def __init__(self, body: str, flags: int = 0) -> None:
        self._first = re.compile(body, flags)
        self._rest = re.compile(r"\n" + body, flags)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        first = self._first.match(text)
        if first is not None:
            yield first
        yield from self._rest.finditer(text, first.end() if first is not None else 0)
