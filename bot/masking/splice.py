"""Cut the hot runs of lines out of a piece, and put their masked text back in place."""

from __future__ import annotations

from bot.masking.prefilter import Run


def gather(text: str, runs: list[Run]) -> str:
    """The runs' text, concatenated: whole lines, in order."""
    return "".join([text[a:b] for a, b in runs])


def scatter(text: str, runs: list[Run], masked: str) -> str:
    """`text` with each run replaced by its part of `masked` (gather's text, masked).

    Masking keeps every newline, so each run's part is found by counting its lines.
    """
    lines = masked.split("\n")
    out: list[str] = []
    pos = 0  # in text
    line = 0  # in lines
    for a, b in runs:
        out.append(text[pos:a])
        newlines = text.count("\n", a, b)
        if b == len(text) and not text.endswith("\n"):
            out.append("\n".join(lines[line:]))  # the last run, ending without a newline
        else:
            out.append("\n".join(lines[line : line + newlines]) + "\n")
        line += newlines
        pos = b
    out.append(text[pos:])
    return "".join(out)
