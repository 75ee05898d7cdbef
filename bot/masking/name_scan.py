"""Find learned user and host names with one Hyperscan scan, as the learned-name regex would.

The regex in learned.py is an alternation of every learned name, longest first, between
`(?<![A-Za-z0-9<])` and `(?![A-Za-z0-9])`. Here a literal database reports every occurrence
of every name; the boundary checks and the leftmost, longest, non-overlapping choice are
applied in Python, so the cost is per occurrence, not per character, and adding a name costs
one database build per piece, not a regex build per name.
"""

from __future__ import annotations

import hyperscan as hs

from bot.hyperscan_literal import hyperscan_literal
from bot.masking.ascii_bytes import ascii_bytes

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_BEFORE = _WORD | {"<"}  # never inside one of our placeholders (`<USER-1>`)

Found = tuple[int, int, str]  # start, end, name


class TooManyNames(Exception):
    """More occurrences than are worth a callback each; use the regex instead."""


class NameScanner:
    """A database of the learned names, rebuilt when the set of names grows."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._db: hs.Database | None = None
        self._scratch: hs.Scratch | None = None

    def update(self, names: set[str]) -> None:
        if len(names) == len(self._names):
            return  # names are only ever added: the same size is the same set
        self._names = sorted(names)
        expressions = [hyperscan_literal(n).encode() for n in self._names]
        db = hs.Database(mode=hs.HS_MODE_BLOCK)
        db.compile(
            expressions=expressions,
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=[hs.HS_FLAG_SOM_LEFTMOST] * len(expressions),
        )
        self._db, self._scratch = db, hs.Scratch(db)

    def find(self, text: str, cap: int) -> list[Found]:
        """Whole-word occurrences, left to right, longest first at one start, none overlapping.

        Raises TooManyNames after `cap` raw occurrences.
        """
        if self._db is None:
            return []
        raw: list[tuple[int, int, int]] = []

        def on_match(name: int, start: int, end: int, _flags: int, _ctx: object) -> bool:
            raw.append((start, -end, name))
            return len(raw) > cap

        try:
            self._db.scan(ascii_bytes(text), match_event_handler=on_match, scratch=self._scratch)
        except hs.ScanTerminated:
            raise TooManyNames from None
        if not raw:
            return []
        raw.sort()
        found: list[Found] = []
        taken = 0
        n = len(text)
        for start, neg_end, name in raw:
            end = -neg_end
            if start < taken:
                continue
            if (start and text[start - 1] in _BEFORE) or (end < n and text[end] in _WORD):
                continue
            found.append((start, end, self._names[name]))
            taken = end
        return found
