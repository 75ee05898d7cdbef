"""The line gate: a detector that declares `line_anchors` runs only on the lines holding one.

A gated detector promises (tests/test_masking_gate.py checks it) that every match it makes
lies within one line holding one of its anchor words, that it reads nothing beyond that line,
and that every literal its own whole-text checks test (`"dgx" in text`) is an anchor too. Then
running it on those lines alone, joined in order, finds the same edits in the same order (so
the same placeholders and learned names), at a fraction of the cost: most lines of a log hold
no `dgx`, `arn:` or `account`. One automaton pass per gated row finds its lines.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from bot.literals import Words
from bot.masking.edits import Edit


class LineGate:
    """The lines of a text that hold one of a gated detector's anchor words (case-insensitive)."""

    def __init__(self, words: Sequence[str]) -> None:
        # Leftmost-longest, not overlapping: one hit per line is all the gate needs, and no
        # anchor spans a newline, so a line holding any anchor yields at least one hit.
        self._words = Words(sorted({w.lower() for w in words}))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The (start, end) of the lines holding an anchor, newline included, in text order."""
        # One byte per character (non-ASCII becomes `?`, in no anchor), so offsets are
        # character offsets.
        data = text.encode("ascii", errors="replace")
        spans: list[tuple[int, int]] = []
        end = -1
        for _, start, _ in self._words.find(data):
            if start < end:
                continue  # another anchor on a line already taken
            begin = data.rfind(b"\n", 0, start) + 1
            end = data.find(b"\n", start) + 1 or len(data)
            spans.append((begin, end))
        return spans


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
