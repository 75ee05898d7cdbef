"""Apply collected replacements to a chunk in one go, keeping every newline in place."""

from __future__ import annotations

from bot.masking.placeholders import PlaceholderTable

# (start, end, kind, value): replace text[start:end] with the placeholder of `value`, or with
# `value` itself when kind is "" (the blanked continuation of a PEM block).
Edit = tuple[int, int, str, str]


def _non_overlapping(edits: list[Edit]) -> list[Edit]:
    """Left to right; at one start the longest span wins; a span overlapping a kept one is dropped."""
    edits.sort()
    kept: list[Edit] = []
    pos = -1
    last_start = -1
    for edit in edits:
        start = edit[0]
        if start == last_start:
            kept[-1] = edit  # same start, sorted by end: this one is longer
            pos = edit[1]
        elif start >= pos:
            kept.append(edit)
            last_start, pos = start, edit[1]
    return kept


def apply_edits(text: str, edits: list[Edit], table: PlaceholderTable) -> str:
    """Replace the spans of `edits` in `text`.

    Placeholders are assigned here, in text order, so numbering follows first appearance.
    A span that crosses line ends keeps its newlines after the placeholder: the matcher
    reports evidence by line number, so masking never moves a line.
    """
    if not edits:
        return text
    out: list[str] = []
    append = out.append
    put = table.put
    pos = 0
    for start, end, kind, value in _non_overlapping(edits):
        append(text[pos:start])
        append(put(kind, value) if kind else value)
        if end - start > 1 and "\n" in text[start:end]:
            append("\n" * text.count("\n", start, end))
        pos = end
    append(text[pos:])
    return "".join(out)
