"""What stands between a wrapped value's pieces without being part of it: a box's frame and a
chat message's header.

A terminal UI that draws a box (rich's tracebacks and their `locals` panel, rich panels)
folds a long value inside the box: `│ │ api_key = 'sk-proj-...` then `│ │           ...' │ │`,
the bars and the hanging indent on every line. A value pasted into a chat over two messages
has the second message's header between its pieces (`dana  10:42 AM`, `[10:42] dana:`,
`dana — Today at 10:42`). Neither piece alone shows the key; read without the frames and the
headers, the lines are a plain wrap again (wrapped.py).
"""

from __future__ import annotations

import re

from bot.literals import Words, one_byte

# A framed line: box-drawing bars at both ends (one or more, nested panels), the line's
# content between them with its indent and its padding (ASCII `|` is left out: a shell pipe
# or a Markdown table is no box a value folds in).
_BARS = "│┃║"
_FRAMED = re.compile(r"[ \t]*(?:[" + _BARS + r"][ \t]*)+(?P<body>[^\n]*?)[ \t]*(?:[" + _BARS + r"][ \t]*)+\r?\Z")
# A chat message's header: Slack's `name  10:42 AM`, Teams' `[10:42 AM] name`, a chat log's
# `[10:42] name:`, Discord's `name — Today at 10:42`. A name holds no `=` (a `KEY=value` line
# is content). (A 24-hour clock ending a line is left out: a log's own lines end in one too
# often to read past them.)
_CHAT_HEADER = re.compile(
    r"[ \t]*(?:"
    r"\[(?:\d{1,2}/\d{1,2}/\d{2,4},?[ \t])?\d{1,2}:\d{2}[ \t\u202f]?[AaPp][Mm]\][ \t]+[^\s=:<>][^=:\n<>]{0,60}:?"
    r"|\[\d{1,2}:\d{2}\][ \t]+[^\s=:<>][^=:\n<>]{0,60}:"
    r"|[^\s=][^=\n]{0,60}?[ \t]+—[ \t]+(?:Today at|Yesterday at)[ \t]+\d{1,2}:\d{2}(?:[ \t\u202f]?[AaPp][Mm])?"
    r"|(?:[^\s=][^=\n]{0,60}?[ \t]+)?\[?\d{1,2}:\d{2}[ \t\u202f]?[AaPp][Mm]\]?"
    r")[ \t]*\r?\Z"
)
# What each of those shapes holds, found by the literal engine on the stage's text (a regex
# sweep for a clock cost a second per 4 MB): the clock word before the line's end or a
# bracket, a bracketed clock of hours and minutes alone, Discord's day.
_HEADER_WORDS = Words(
    ["am\n", "pm\n", "am\r", "pm\r", "am]", "pm]", "day at ", "[00:00] ", "[0:00] "], fixed=True, any_digits=("[00:00] ", "[0:00] ")
)


def _line_at(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, (len(text) if end < 0 else end)


def _framed_lines(text: str) -> set[int]:
    """Where each line framed by a box's bars starts."""
    found: set[int] = set()
    for bar in _BARS:
        pos = text.find(bar)
        while pos >= 0:
            start, end = _line_at(text, pos)
            if _FRAMED.match(text, start, end) is not None:
                found.add(start)
            pos = text.find(bar, end)
    return found


def reading_view(text: str) -> tuple[list[tuple[int, int]], set[int]] | None:
    """(start, end) in `text` of each line's content as a wrap reads it, for the lines around a
    frame or a header: framed lines without their bars, indent and padding, chat headers left
    out, an empty span between lines that do not follow each other; and which of the spans a
    header stood above. None when no line is framed and no header stands in the text."""
    headers: set[int] = set()
    hints = [pos for starts in _HEADER_WORDS.starts(one_byte(text)) for pos in starts]
    if text[-2:].lower() in ("am", "pm"):
        hints.append(len(text) - 1)
    for pos in hints:
        start, end = _line_at(text, pos)
        if start not in headers and _CHAT_HEADER.match(text, start, end) is not None:
            headers.add(start)
    framed = _framed_lines(text)
    if not framed and not headers:
        return None
    # The lines to read: framed ones, and each header with the line above and the one below.
    wanted = set(framed)
    for start in headers:
        wanted.add(start)
        if start:
            wanted.add(_line_at(text, start - 1)[0])
        end = _line_at(text, start)[1]
        if end < len(text):
            wanted.add(end + 1)
    spans: list[tuple[int, int]] = []
    resumed: set[int] = set()
    after_header = False
    last_end = -2
    for start in sorted(wanted):
        end = _line_at(text, start)[1]
        if start != last_end + 1 and spans:
            spans.append((last_end, last_end))  # an empty line: no run reaches over the gap
            after_header = False
        last_end = end
        if start in headers:
            after_header = True
            continue
        if after_header:
            resumed.add(len(spans))
            after_header = False
        m = _FRAMED.match(text, start, end - (text[end - 1 : end] == "\r")) if start in framed else None
        if m is not None:
            spans.append((m.start("body"), m.end("body")))
        else:
            spans.append((start, end - (text[end - 1 : end] == "\r")))
    return spans, resumed
