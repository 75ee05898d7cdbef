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

# A framed line: box-drawing bars at both ends (one or more, nested panels), the line's
# content between them with its indent and its padding (ASCII `|` is left out: a shell pipe
# or a Markdown table is no box a value folds in).
_BARS = "│┃║"
_FRAMED = re.compile(r"[ \t]*(?:[" + _BARS + r"][ \t]*)+(?P<body>[^\n]*?)[ \t]*(?:[" + _BARS + r"][ \t]*)+\r?\Z")
# A chat message's header: Slack's `name  10:42 AM` (or the clock alone, for a message that
# follows its sender's), Teams' and IRC-like `[10:42 AM] name:`, Discord's `name — Today at
# 10:42`. A name holds no `=` (a `KEY=value` line is content).
_CLOCK = r"\[?\d{1,2}:\d{2}(?::\d{2})?(?:[ \t\u202f]?[AaPp][Mm])?\]?"
_CHAT_HEADER = re.compile(
    r"^[ \t]*(?:"
    r"\[(?:\d{1,2}/\d{1,2}/\d{2,4},?[ \t])?\d{1,2}:\d{2}(?::\d{2})?(?:[ \t\u202f]?[AaPp][Mm])?\][ \t]+[^\s=:<>][^=:\n<>]{0,60}:?"
    r"|[^\s=][^=\n]{0,60}?[ \t]+—[ \t]+(?:Today at|Yesterday at|\d{1,2}/\d{1,2}/\d{2,4},?)[ \t]+\d{1,2}:\d{2}(?:[ \t\u202f]?[AaPp][Mm])?"
    r"|(?:[^\s=][^=\n]{0,60}?[ \t]{2,})?" + _CLOCK + r"|[^\s=][^=\n]{0,60}?[ \t]+\[?\d{1,2}:\d{2}[ \t\u202f]?[AaPp][Mm]\]?"
    r")[ \t]*\r?$",
    re.M,
)


def reading_view(text: str) -> tuple[list[tuple[int, int]], set[int]] | None:
    """(start, end) in `text` of each line's content as a wrap reads it: framed lines without
    their bars, indent and padding, chat headers left out; and which of those lines a header
    stood above. None when no line is framed and no header stands in the text (the text reads
    as it is)."""
    framed = any(bar in text for bar in _BARS)
    headers = {m.start() for m in _CHAT_HEADER.finditer(text)}
    if not framed and not headers:
        return None
    spans: list[tuple[int, int]] = []
    resumed: set[int] = set()
    after_header = False
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        if start in headers:
            after_header = True
            start = end + 1
            continue
        if after_header:
            resumed.add(len(spans))
            after_header = False
        if framed and (m := _FRAMED.match(text, start, end)) is not None:
            spans.append((m.start("body"), m.end("body")))
        else:
            spans.append((start, end - (text[end - 1 : end] == "\r")))
        start = end + 1
    return spans, resumed
