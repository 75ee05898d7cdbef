"""Bounded line geometry: where the line around a position starts and ends.

Every lookup is capped at REACH characters on each side. An unbounded `rfind("\\n")` from
each of many hits on one multi-megabyte line would make masking quadratic; with the cap a
hit costs at most REACH steps and a very long line is seen in windows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.launchers import LINE_PREFIX

REACH = 4096
# The start of the next line's text, in a pattern that reads two lines (a key, then its value
# alone on the next line): past the newline and the launcher's prefixes a rank's line carries.
NEXT_LINE = r"\r?\n" + LINE_PREFIX
# What may stand before a line's first word: launcher prefixes, then blanks.
_LEAD = re.compile(LINE_PREFIX + r"[ \t]*\Z")
_PREFIX = re.compile(LINE_PREFIX)


def line_start(text: str, pos: int, reach: int = REACH) -> int:
    """Start of the line holding `pos`, or `pos - reach` when the line starts further back."""
    lo = max(0, pos - reach)
    return text.rfind("\n", lo, pos) + 1 or lo


def line_end(text: str, pos: int, reach: int = REACH) -> int:
    """End of the line holding `pos` (its newline or the text end), at most `pos + reach`."""
    hi = min(len(text), pos + reach)
    end = text.find("\n", pos, hi)
    return hi if end == -1 else end


def past_prefix(text: str, pos: int, end: int) -> int:
    """Past the launcher prefixes at `pos`, a line's start (`end`: the line's end)."""
    return _PREFIX.match(text, pos, end).end()  # type: ignore[union-attr]  # matches empty


def starts_line(text: str, pos: int) -> bool:
    """True when only blanks, behind a launcher's line prefixes, stand between the start of the
    line and `pos`."""
    start = line_start(text, pos, 256)
    return (start == 0 or text[start - 1] == "\n") and _LEAD.match(text, start, pos) is not None


class LinePattern:
    """A pattern anchored at line starts, scanned without `(?m)^`.

    `re` tries `(?m)^` at every position; a leading literal `\\n` lets it skip to candidate
    positions in C. The first line of the text is tried on its own.

    The line may start with a launcher's prefixes (`[rank0]:`, ` 3: `, `worker-1: `,
    bot/launchers.py) before the body: what a rank prints reaches the log behind them. A
    pattern that reads columns by position, or is itself such a prefix, says
    `behind_prefix=False`.

    `gate`: a pattern that finds something inside every match of the body, found fast because
    it does not start at every line with the launcher prefixes (a literal head lets `re` skip
    to it in C). A text where it finds nothing is not scanned: trying the prefixes at every line
    start is what a LinePattern costs, and a whole-log `denpex mask` ran eleven of them over
    every piece for tables and rows that most logs never print.
    """

    __slots__ = ("_first", "_flags", "_gate", "_gate_source", "_rest", "_source")

    def __init__(self, body: str, flags: int = 0, *, behind_prefix: bool = True, gate: str | None = None) -> None:
        # PyTorch's `[rank3]: ` puts a blank after its colon: a body that does not start with
        # blanks of its own (a `git blame` row, a `who` row) starts past it.
        lead = "(?P<lead>" + (LINE_PREFIX + "(?:(?<=:) )?" if behind_prefix else "") + ")"
        self._source = lead + "(?:" + body + ")"
        self._gate_source = gate or None
        self._flags = flags
        # Compiled on first use (`_compile`): about 40 of these are built at import, 28 ms of
        # `import bot.masking`, and a log's text reaches few of them past their gate.
        self._first: re.Pattern[str] | None = None
        self._rest: re.Pattern[str] | None = None
        self._gate: re.Pattern[str] | None = None

    def _compile(self) -> tuple[re.Pattern[str], re.Pattern[str]]:
        if self._first is None or self._rest is None:
            self._first = re.compile(self._source, self._flags)
            self._rest = re.compile(r"\n" + self._source, self._flags)
        return self._first, self._rest

    @staticmethod
    def body_start(m: re.Match[str]) -> int:
        """Where the body of a match starts: past the newline and the line's prefixes."""
        return m.end("lead")

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if self._gate_source is not None:
            if self._gate is None:
                self._gate = re.compile(self._gate_source, self._flags)
            if self._gate.search(text) is None:
                return
        first_rx, rest_rx = self._compile()
        first = first_rx.match(text)
        if first is not None:
            yield first
        yield from rest_rx.finditer(text, first.end() if first is not None else 0)


# loguru's `diagnose=True` (better_exceptions) draws each variable's value under the source
# line of a traceback: `└` stands under the variable's first character, then its repr.
#     wandb.login(key=WANDB_KEY)
#     │               └ '<value>'
_ANNOTATION = re.compile(r"^(?P<lead>[ \t│]*)└ (?P<q>['\"])(?P<v>[^'\"\n]{1,4096})(?P=q)[ \t]*\r?$", re.MULTILINE)
_ANNOTATION_ONLY = re.compile(r"[ \t│]*(?:└ [^\n]*)?\r?\Z")
_VARIABLE = re.compile(r"[A-Za-z_][\w.]{0,127}")
_ANNOTATION_REACH = 16  # lines above an annotation its source line may be


def annotated_values(text: str) -> Iterator[tuple[str, re.Match[str]]]:
    """loguru's quoted values under a traceback's variables: (the variable's last name, the
    annotation's match, its value in group `v`). `└ ` must be in `text` for any."""
    if "└ " not in text:
        return
    for m in _ANNOTATION.finditer(text):
        column = len(m.group("lead"))
        end = m.start()
        for _ in range(_ANNOTATION_REACH):
            if end == 0:
                break
            start = text.rfind("\n", 0, end - 1) + 1
            line = text[start : end - 1]
            end = start
            if _ANNOTATION_ONLY.match(line):
                continue
            var = _VARIABLE.match(line, column)
            if var is not None and (column == 0 or not (line[column - 1].isalnum() or line[column - 1] == "_")):
                yield var.group().rpartition(".")[2], m
            break
