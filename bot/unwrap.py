"""Lines a terminal cut at its width, joined back before the scan.

A log copied out of tmux, screen or a fixed-width terminal (and pasted into an issue or Slack)
arrives hard-wrapped: every long line cut into pieces of exactly the terminal's width, the cut
falling mid-word ("ProcessGroupNCCL'" / "s watchdog got stuck for 480 seconds"). Signatures read
one line (a few two), so such a paste matches nothing. tmux pads the last piece of each line with
spaces up to the width, so a piece that ends in two or more spaces closes its line.

The pieces are joined into the first line of their run and the others left empty: the line
count stays, so every line number the diagnosis cites is still the paste's own. Only the first
MAX_UNWRAP_BYTES of a log are looked at (`bot.service`): a terminal copy is a screenful, not a
megabyte, and a big log pays for that much once.
"""

from __future__ import annotations

import re
from itertools import pairwise

# Widths terminals are set to; narrower "runs" of equal lines are ordinary short lines.
_MIN_WIDTH = 60
_MAX_WIDTH = 512
# A run must show the width this many times in a row before anything is joined: three equal
# lengths by chance in a log's own lines (a table, a banner) are rare, and a table is excluded.
_MIN_RUN = 3
# How much of a log is looked at: a terminal copy is a screenful.
MAX_UNWRAP_BYTES = 256 * 1024
# A line that starts a new record is never the tail of the one before, whatever the lengths.
_NEW_RECORD = re.compile(
    rb"\s*(?:\[(?:rank|default)?\d|\d{4}-\d\d-\d\d|[IWEF]\d{4} |Traceback |File \"|frame #|\d{1,5}: \[)"
)
# Table rows (ASCII, and the box drawing rich and Ray print: U+2500-U+257F) start on a border.
_BOX = (b"\xe2\x94", b"\xe2\x95")
# Records of one shape (a repeated warning, a column-aligned table) agree on their first bytes;
# pieces of one wrapped line do not.
_PREFIX = 8
# Columns aligned with runs of spaces (kubectl, squeue, a summary table): rows, not pieces.
_COLUMNS = re.compile(rb"\S {3,}\S")


def _closes(line: bytes) -> bool:
    """The last piece of a wrapped line: tmux padded it to the width with spaces."""
    return line.rstrip(b"\r").endswith(b"  ")


def _table_row(line: bytes) -> bool:
    return line[:1] in (b"|", b"+") or line[:2] in _BOX


def _looks_wrapped(run: list[bytes]) -> bool:
    """Pieces of cut lines, not records that happen to share a length: no two neighbours open
    alike, and at least one cut falls inside a word or number (`indi` / `cates`)."""
    if any(a[:_PREFIX] == b[:_PREFIX] for a, b in pairwise(run)) or any(_COLUMNS.search(x) for x in run):
        return False
    # Some piece inside the run continues a line; records (`[rank3]:...`) of one length by
    # chance are all new records, and the line after them is no piece of theirs.
    if all(_NEW_RECORD.match(x) for x in run[1:-1]):
        return False
    return any(a.rstrip(b"\r")[-1:].isalnum() and b[:1].isalnum() for a, b in pairwise(run))


def unwrap_terminal(data: bytes) -> bytes:
    """`data` (whole lines) with each hard-wrapped line joined back, line count unchanged.

    A run is at least `_MIN_RUN` consecutive lines of one length W (a terminal width), none a
    table row. Within it, pieces are joined until one closes (ends padded) or the next line
    starts a new record or is longer than W; the joined text takes the first piece's place and
    each joined piece leaves an empty line.
    """
    if data.count(b"\n") < _MIN_RUN:
        return data
    lines = data.split(b"\n")
    lengths = [len(line) for line in lines]
    out: list[bytes] | None = None
    i = 0
    n = len(lines)
    while i < n:
        width = lengths[i]
        if not (_MIN_WIDTH <= width <= _MAX_WIDTH) or _table_row(lines[i]):
            i += 1
            continue
        end = i
        while end < n and lengths[end] == width and not _table_row(lines[end]):
            end += 1
        if end - i < _MIN_RUN or not _looks_wrapped(lines[i : end + 1]):
            i = max(end, i + 1)
            continue
        if out is None:
            out = list(lines)
        # Lines i..end-1 are the width; the line after the run may be the short last piece.
        j = i
        while j < end:
            start = j
            parts = [lines[j]]
            while (
                not _closes(lines[j])
                and j + 1 < n
                and lengths[j] == width
                and lengths[j + 1] <= width
                and lines[j + 1]
                and not _NEW_RECORD.match(lines[j + 1])
            ):
                j += 1
                parts.append(lines[j])
            if j > start:
                # (A CRLF paste's pieces each end in `\r`: only the last piece's is the line's end.)
                out[start] = b"".join(p.rstrip(b"\r") for p in parts[:-1]) + parts[-1]
                for k in range(start + 1, j + 1):
                    out[k] = b""
            j += 1
        i = max(j, end)
    return data if out is None else b"\n".join(out)
