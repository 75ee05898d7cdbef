"""The line gate: a gated detector runs only on the lines its gate finds.

A row of the detectors table is gated when it declares `line_anchors` (literal words, any
case) or a `line_trigger` (a Hyperscan pattern over one line). A gated row promises
(tests/masking/test_gate.py checks it, row by row) that every match it makes lies within one
line on which one of its anchor words or its trigger matches, that it reads nothing beyond
that line, and that every whole-text check it makes (`"dgx" in text`) answers the same on
those lines as on the whole text. Then running it on those lines alone (or on any lines that
include them), joined in order, finds the same edits in the same order (so the same placeholders and learned names), at a
fraction of the cost: most lines of a log hold no `dgx`, no MAC address, no `::`.

The gates of every gated row of a stage are compiled into ONE Hyperscan database, scanned
once over the stage's text: a row's gate is read from its row, so a new row cannot be missed.
A trigger is a necessary condition, not the row's pattern: it must match on every line where
the row can match. It is matched on the text with each non-ASCII character read as `?` (one
byte per character, so offsets are character offsets), so it may require only ASCII
characters the row's own pattern requires (`[0-9A-Fa-f]`, not `\\w` or `\\d`, which match
non-ASCII letters and digits in Python); it must never match a newline; `^` and `$` are a
line's start and end.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Sequence
from typing import Protocol

import hyperscan

from bot.dbcache import block_database
from bot.literals import hyperscan_literal, one_byte, scan_in_thread
from bot.masking.edits import Edit


class GatedRow(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def line_anchors(self) -> tuple[str, ...]: ...
    @property
    def line_trigger(self) -> str: ...


class Gate:
    """The lines of a text on which each gated row's anchor words or trigger match."""

    def __init__(self, rows: Sequence[GatedRow]) -> None:
        self.names = [row.name for row in rows]
        expressions: list[tuple[int, str]] = []
        for row in rows:
            words = "|".join(hyperscan_literal(w) for w in sorted({w.lower() for w in row.line_anchors}))
            alternatives = [f"(?i:{words})" if words else "", f"(?:{row.line_trigger})" if row.line_trigger else ""]
            if not any(alternatives):
                raise ValueError(f"{row.name}: a gated row needs line anchors or a line trigger")
            # `.*$` to the line's end: Hyperscan reports one match per pattern and end offset,
            # so a line reports once however many anchors it holds (a callback each would
            # cost more than the scan on lines that all hold one, as NCCL's do).
            expressions.append((len(expressions), "(?:" + "|".join(a for a in alternatives if a) + ").*$"))
        # Built from the detectors table alone (never from a log): kept on disk (bot/dbcache.py).
        self._db = block_database(expressions, hyperscan.HS_FLAG_MULTILINE)
        # Scratch space serves one scan at a time: one per thread (the bot's workers).
        self._local = threading.local()

    def spans(self, text: str, lines: int | None = None) -> dict[str, list[tuple[int, int]]]:
        """Row name -> the (start, end) of its lines, newline included, in text order: the lines
        its gate matches, or the whole text where those are more than half the lines.

        `lines`: the text's number of lines, when the caller knows it (the masker counts a
        piece once: its stages keep its lines). Any count gives the same edits, only sooner
        or later the whole text."""
        data = one_byte(text)
        ends: list[list[int]] = [[] for _ in self.names]

        def hit(idx: int, _from: int, to: int, _flags: int, _context: object) -> None:
            ends[idx].append(to)  # the end of the line (before its newline)

        scan_in_thread(self._db, self._local, data, hit)
        rfind, size = data.rfind, len(data)
        # A row on most lines (every NCCL line holds a node name) is given the whole text:
        # a row finds the same on any lines that include its own (the promise above), and
        # cutting out the few others would cost more than they do.
        if lines is None:
            lines = data.count(b"\n") + (not data.endswith(b"\n"))
        half = lines // 2
        return {
            name: [(0, size)] if len(row_ends) > half else [(rfind(b"\n", 0, to) + 1, min(to + 1, size)) for to in sorted(row_ends)]
            for name, row_ends in zip(self.names, ends, strict=True)
        }


def gated_text(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[int], list[int]]:
    """The candidate lines joined, with where each starts in the joined text and in `text`."""
    joined_starts: list[int] = []
    pos = 0
    for start, end in spans:
        joined_starts.append(pos)
        pos += end - start
    return "".join(text[s:e] for s, e in spans), joined_starts, [s for s, _ in spans]


def remap(edits: list[Edit], joined_starts: list[int], text_starts: list[int]) -> list[Edit]:
    """Edits found in the joined lines, moved to where those lines stand in the text."""
    out: list[Edit] = []
    for start, end, kind, value in edits:
        i = bisect_right(joined_starts, start) - 1
        shift = text_starts[i] - joined_starts[i]
        out.append((start + shift, end + shift, kind, value))
    return out
