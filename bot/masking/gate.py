"""The line gate: a detector that declares `line_anchors` runs only on the lines holding one.

A gated detector promises (tests/test_masking_gate.py checks it) that every match it makes
lies within one line holding one of its anchor words, that it reads nothing beyond that line,
and that every literal its own whole-text checks test (`"dgx" in text`) is an anchor too. Then
running it on those lines alone, joined in order, finds the same edits in the same order (so
the same placeholders and learned names), at a fraction of the cost: most lines of a log hold
no `dgx`, `arn:` or `account`. One automaton pass finds every gated detector's lines at once.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import ahocorasick_rs as ac

from bot.masking.edits import Edit


class LineGate:
    """The lines of a text that hold an anchor word of each gated detector (case-insensitive)."""

    def __init__(self, anchors: Sequence[tuple[str, ...]]) -> None:
        words = sorted({w.lower() for group in anchors for w in group})
        self._owners: list[list[int]] = [[i for i, group in enumerate(anchors) if w in {a.lower() for a in group}] for w in words]
        self._count = len(anchors)
        # Overlapping matches: `dgx` inside `ec2-dgx` must not hide `ec2-` for another detector.
        self._ac = ac.BytesAhoCorasick([w.encode() for w in words], implementation=ac.Implementation.DFA)

    def spans(self, text: str) -> list[list[tuple[int, int]]]:
        """For each gated detector, the (start, end) of its candidate lines, newline included."""
        # One byte per character (non-ASCII becomes `?`, in no anchor), so offsets are
        # character offsets; ASCII-only lowering of bytes keeps them so.
        data = text.encode("ascii", errors="replace").lower()
        last: list[int] = [-1] * self._count
        spans: list[list[tuple[int, int]]] = [[] for _ in range(self._count)]
        for word, start, _ in self._ac.find_matches_as_indexes(data, overlapping=True):
            begin = data.rfind(b"\n", 0, start) + 1
            for owner in self._owners[word]:
                if last[owner] >= begin:
                    continue  # this line is already a candidate of that detector
                end = data.find(b"\n", start)
                end = len(data) if end < 0 else end + 1
                spans[owner].append((begin, end))
                last[owner] = end - 1
        return [sorted(set(group)) for group in spans]


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
