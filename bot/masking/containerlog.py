"""Container logs as Docker's json-file driver keeps them on a node (`/var/log/containers/`,
`/var/lib/docker/containers/`): one JSON object a line, the process's own line JSON-escaped in
its `"log"` string (`{"log":"  password: x\\n","stream":"stderr","time":"..."}`), `<`, `>` and
`&` as `\\u003c`, `\\u003e`, `\\u0026` (Go's encoder).

The detectors read lines as the process printed them: a YAML `password:` line, a value on the
line after its key, an `/etc/hosts` row. So the masker reads such entries decoded, one process
line per entry, and writes an entry back only where masking changed it. The rest of the object
(`"stream"`, `"time"`, any keys a collector added) is masked as text, beside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from bot.masking.guards import declare, holds
from bot.masking.placeholders import PLACEHOLDER_RX

# The literals this module tests a whole piece for, found by one scan (guards.py).
declare('"log"')

# The entry's `log` string at the start of the line, and the rest of the object.
# Only JSON's own escapes: a line with another (`\\x41`) is no entry, and is masked as text.
# Docker writes `{"log":"`; collectors that re-serialise (fluent-bit, Python's json) may put
# blanks around the colon.
# Runs of plain characters and whole escapes, possessive: there is one way to read a string,
# and `re` takes a run in one step where one character a step cost ten times as much.
_ENTRY = re.compile(
    r'(?P<head>\{[ \t]*"log"[ \t]*:[ \t]*)"(?P<log>(?:[^"\\\n]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+)"(?P<rest>[^\n]*)'
)
# An entry's string holds at most this many characters, an escape counting as one.
_MAX_CHARS = 65536
_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|.)")
# A lone surrogate (`\\ud800`) decodes to no text that can be written back as UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")
# Our placeholders, kept whole by a split (its group keeps them in the parts).
_PLACEHOLDER_CUT = re.compile("(" + PLACEHOLDER_RX.pattern + ")")


def _fits(log: str) -> bool:
    """The escaped string holds at most _MAX_CHARS characters."""
    return len(log) <= _MAX_CHARS or len(log) - sum(len(e) - 1 for e in _ESCAPE.findall(log)) <= _MAX_CHARS


def mask_entries(text: str, mask_text: Callable[[str], str]) -> str | None:
    """`text` with the `log` strings of its json-file entries masked as the lines they hold
    (`mask_text` masks plain text, whole lines, keeping their number); None when no line of
    `text` is an entry."""
    if not holds(text, '"log"'):
        return None
    lines = text.split("\n")
    entries = {i: m for i, line in enumerate(lines) if line.startswith("{") and (m := _ENTRY.fullmatch(line)) and _fits(m["log"])}
    # One decoding call for every entry: a JSON array of their strings.
    # strict=False: a raw tab in a hand-made entry reads as a tab, not as an error.
    logs = json.loads("[" + ",".join('"' + m["log"] + '"' for m in entries.values()) + "]", strict=False)
    # (One search over them all first: a lone surrogate is rare.)
    surrogates = _SURROGATE.search("".join(logs)) is not None
    decoded = {i: log for i, log in zip(entries, logs, strict=True) if not (surrogates and _SURROGATE.search(log))}
    entries = {i: entries[i] for i in decoded}  # a lone surrogate's line is read as plain text
    if not entries:
        return None
    view: list[str] = []
    # Per line of `text`: where its view lines start, how many, and an entry's line ending.
    layout: list[tuple[int, int, str]] = []
    for i, line in enumerate(lines):
        if i not in entries:
            layout.append((len(view), 1, ""))
            view.append(line)
            continue
        log = decoded[i]
        ending = "\n" if log.endswith("\n") else ""  # a 16 KiB partial has none
        parts = log[: len(log) - len(ending)].split("\n")
        layout.append((len(view), len(parts), ending))
        view.extend(parts)
    masked = mask_text("\n".join(view)).split("\n")
    rests = iter(mask_text("\n".join(m["rest"] for m in entries.values())).split("\n"))
    out: list[str] = []
    # The entries masking changed, written back: (index in `out`, head, encoded log, rest).
    changed: list[tuple[int, str, str, str]] = []
    go_style: list[int] = []  # those of `changed` whose entry had no raw `<`, `>` or `&`
    for i, (line, (first, count, ending)) in enumerate(zip(lines, layout, strict=True)):
        if i not in entries:
            out.append(masked[first])
            continue
        entry, rest = entries[i], next(rests)
        if masked[first : first + count] == view[first : first + count] and rest == entry["rest"]:
            out.append(line)  # nothing masked: the entry as it was, byte for byte
            continue
        raw = entry["log"]
        # In the style it came in: non-ASCII as `\\u` escapes where the entry had none raw.
        encoded = json.dumps("\n".join(masked[first : first + count]) + ending, ensure_ascii=raw.isascii())
        if "<" not in raw and ">" not in raw and "&" not in raw:
            go_style.append(len(changed))
        changed.append((len(out), entry["head"], encoded, rest))
        out.append("")
    if go_style:
        # Go's escapes for what the process printed; placeholders stay as they read everywhere
        # else (`<HOST-3>`), still valid JSON. One pass over those entries together (an encoded
        # string holds no newline), the text between placeholders escaped in C: a substitution
        # calling back per `<` cost more than the rest of writing an entry back.
        parts = _PLACEHOLDER_CUT.split("\n".join(changed[k][2] for k in go_style))
        parts[0::2] = [part.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") for part in parts[0::2]]
        for k, encoded in zip(go_style, "".join(parts).split("\n"), strict=True):
            at, head, _, rest = changed[k]
            changed[k] = (at, head, encoded, rest)
    for at, head, encoded, rest in changed:
        out[at] = head + encoded + rest
    return "\n".join(out)
