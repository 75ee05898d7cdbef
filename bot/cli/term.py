"""What the terminal the report goes to can show: colour (`--color`, NO_COLOR, TERM=dumb) and width."""

from __future__ import annotations

import os
import shutil
from typing import TextIO

COLOR_CHOICES = ("auto", "always", "never")
MIN_WIDTH, MAX_WIDTH = 40, 120


def use_color(choice: str, stream: TextIO) -> bool:
    """`always` and `never` as said; `auto`: a terminal, unless NO_COLOR is set (any value but
    empty, https://no-color.org) or TERM is `dumb`."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def width(stream: TextIO) -> int:
    """The terminal's width (COLUMNS first, as shutil reads it), kept between 40 and 120 so prose
    stays readable; 100 when the output is not a terminal and COLUMNS is unset."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty and not os.environ.get("COLUMNS"):
        return 100
    columns = shutil.get_terminal_size((100, 24)).columns
    return max(MIN_WIDTH, min(MAX_WIDTH, columns))
