"""Multi-line secrets: PEM/OpenSSH private key blocks and Kubernetes Secret `data:` blocks.

A block can open in one chunk and close in a later one; the open state lives in LogState.
Line structure is kept: a block's BEGIN and END lines stay (their label, `RSA PRIVATE KEY`,
`OPENSSH PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, says which key failed: a diagnostic fact, no
secret), its body becomes its placeholder on the first body line and empty lines after it, so
every later line keeps its number. The same key pasted as a multi-line block or `\\n`-escaped
inside JSON (a GCP service-account file) is treated the same way: what stands between the
markers, less the line breaks next to them, becomes one placeholder.
"""

from __future__ import annotations

import base64
import binascii
import re

from bot.masking.edits import Edit
from bot.masking.guards import declare, holds
from bot.masking.lines import past_prefix
from bot.masking.placeholders import PLACEHOLDER_RX
from bot.masking.state import LogState

# The literals this module tests a whole piece for, found by one scan (guards.py).
declare("-----BEGIN", "PRIVATE KEY-----", "ata:", "ata\"")

_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----")
# A BEGIN marker a terminal's width cut in two: the line ends in its first part (a one-line
# service-account JSON's `"private_key": "-----BEG`), the next line starts with the rest
# (`IN PRIVATE KEY-----\nMIIEv...`). Read across the cut, it is the marker it was. (One of its
# two parts holds `-----BEGIN` or `PRIVATE KEY-----` whole, wherever the cut falls.)
_CUT_BEGIN = re.compile(r"(?<!-)-{1,5}(?:B(?:E(?:G(?:I(?:N(?: [A-Z0-9 ]{0,40})?)?)?)?)?)?-{0,4}(?=\n)")
_END = re.compile(r"-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----")
# A body line of a multi-line block (stripped first): base64, an RFC 1421 header, or empty.
# (RFC 1421's headers of a legacy encrypted PEM key; RFC 4880's armor headers of a PGP key.)
_HEADERS = r"(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset|MessageID): "
_BODY_LINE = re.compile(r"(?:[A-Za-z0-9+/=]{1,200}|" + _HEADERS + r"[^\n]{0,200})?\Z")
_HEADER = re.compile(_HEADERS)
# The rest of a JSON string after an escaped BEGIN marker whose END is missing (truncated).
_ESCAPED_REST = re.compile(r"(?:[^\"\\\n]|\\.){0,16384}")
# The line breaks (escaped or not) and blanks between a marker and the key's letters: they
# stay beside the markers, so the placeholder stands where the letters stood.
_LEAD = re.compile(r"(?:\\[rn]|[ \t])*")
_TRAIL = re.compile(r"(?:\\[rn]|[ \t])*\Z")
_MAX_BLOCK_LINES = 400
# A line of an escaped key's string that a terminal cut: base64 letters and `\\n` escapes only
# (a cut may split an escape: a line ending in `\\`, the next starting with `n`).
_ESCAPED_BODY_LINE = re.compile(r"[A-Za-z0-9+/=\\]{0,400}")
# A line that ends in the first part of an escaped END marker (`\n-----END PRIVATE`): the
# width may cut it in the escape, the dashes or the label.
_CUT_END = re.compile(r"(?:\\(?:n(?:-{1,5}(?:E(?:N(?:D(?: [A-Z ]{0,30}-{0,4})?)?)?)?)?)?|-{1,5}(?:E(?:N(?:D(?: [A-Z ]{0,30}-{0,4})?)?)?)?)\Z")


# A key on one line (escaped JSON, space-separated) is a few KB; never search further.
_ONE_LINE_REACH = 1 << 16


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end == -1 else end


def _consume_body(text: str, pos: int, end: int, state: LogState) -> tuple[int, int, str, str]:
    """Walk body lines from `pos` (a line start). Return (first, end, body, how).

    `first` is where the first base64 line's letters start (-1 when none came yet): the RFC
    1421 headers of a legacy encrypted key before it (`Proc-Type: 4,ENCRYPTED`, `DEK-Info:
    AES-128-CBC,<iv>`: public by design, the passphrase protects the key) and a PGP key's
    armor headers (`Version: GnuPG v2`) stay, like the markers. `end` is the end of the last
    body line (`pos`'s own `end` when there is none): the END line stays. `how` is "closed"
    (END marker found), "stopped" (a line that is not PEM body: the block ends with the
    previous line, so a paste missing its END line costs one placeholder, never the rest of
    the log) or "open" (the chunk ended inside it).
    """
    body: list[str] = []
    first = -1
    n = len(text)
    while pos < n:
        line_end = _line_end(text, pos)
        line = text[pos:line_end]
        if _END.search(line) is not None:
            return first, end, "".join(body), "closed"
        # Behind a launcher's prefix (`node-a3: `, `[rank0]: `) when pdsh or torchrun relays
        # a `cat` of the key: every line of the block carries one. (A header's name reads as
        # a prefix too: the whole line is tried first.)
        letters = line.strip()
        if not _BODY_LINE.match(letters):
            letters = text[past_prefix(text, pos, line_end) : line_end].strip()
        if not _BODY_LINE.match(letters) or state.pem_lines >= _MAX_BLOCK_LINES:
            return first, end, "".join(body), "stopped"
        state.pem_lines += 1
        if letters and _HEADER.match(letters) is None:
            if first < 0:
                first = text.index(letters, pos, line_end)
            body.append(letters)
        if first >= 0:
            end = line_end
        pos = line_end + 1
    return first, end, "".join(body), "open"


def find_pem_blocks(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask private key blocks: multi-line, single-line, `\\n`-escaped, and across chunks.
    The markers stay; the letters between them become one placeholder."""
    pos = 0
    if state.pem_escaped_open:
        pos, state.pem_escaped_open = _mask_cut_escaped_body(text, -1, edits)
        pos = max(pos, 0)
    if state.pem_open:
        _, end, _, how = _consume_body(text, 0, 0, state)
        if end > 0:
            edits.append((0, end, "", ""))
        if how != "open":
            state.pem_open = False
        pos = end
    if not (holds(text, "-----BEGIN") or holds(text, "PRIVATE KEY-----")):
        return
    for marker_start, marker_end in _begin_markers(text, pos):
        if marker_start < pos:
            continue
        line_end = _line_end(text, marker_end)
        closing = _END.search(text, marker_end, min(line_end, marker_end + _ONE_LINE_REACH))
        if closing is not None:  # whole block on one line (escaped or space-separated)
            _mask_between(text, marker_end, closing.start(), edits)
            pos = closing.end()
            continue
        rest = text[marker_end : min(line_end, marker_end + 64)].strip(" \t\r")
        split = _SPLIT_STRING_TAIL.fullmatch(rest)
        if split is not None:  # pprint's split string: one quoted, escaped line of the key per line
            pos = _mask_split_string_body(text, line_end, split.group("q"), edits)
            continue
        if rest:  # a `\\n`-escaped block whose END was cut off: mask to the end of the string
            tail = _ESCAPED_REST.match(text, marker_end)
            end = tail.end() if tail is not None and tail.end() > marker_end else line_end
            before = len(edits)
            _mask_between(text, marker_end, end, edits)
            pos = end
            # The string goes on past the line (a one-line JSON cut at a width; the cut may
            # leave an escape's backslash at the line's end).
            if text[end:line_end] in ("", "\\"):
                typed = len(edits) == before  # no letters on the BEGIN line: the first cut line's
                pos, state.pem_escaped_open = _mask_cut_escaped_body(text, line_end, edits, typed=typed)
            continue
        if text.startswith("\\n", line_end + 1):  # the width cut right after the marker
            pos, state.pem_escaped_open = _mask_cut_escaped_body(text, line_end, edits, typed=True)
            continue
        state.pem_lines = 0
        first, end, body, how = _consume_body(text, line_end + 1, line_end, state)
        if body and PLACEHOLDER_RX.fullmatch(body) is None:
            edits.append((first, end, "private-key", body))
        if how == "open":
            state.pem_open = True
        pos = end


def _begin_markers(text: str, pos: int) -> list[tuple[int, int]]:
    """Where each BEGIN marker from `pos` starts and ends, in order: whole ones, and ones a
    terminal's width cut in two (their end on the next line)."""
    markers = [(m.start(), m.end()) for m in _BEGIN.finditer(text, pos)]
    cut = False
    for m in _CUT_BEGIN.finditer(text, pos):
        head = m.end() - m.start()
        whole = _BEGIN.match(text[m.start() : m.end()] + text[m.end() + 1 : m.end() + 49])
        if whole is not None and whole.end() > head:
            markers.append((m.start(), m.end() + 1 + whole.end() - head))
            cut = True
    return sorted(markers) if cut else markers


def _mask_cut_escaped_body(text: str, pos: int, edits: list[Edit], typed: bool = False) -> tuple[int, bool]:
    """Blank the lines that go on with an escaped key's string after `pos` (a line's end).

    A service-account JSON dumped on one line and cut at a terminal's width (`print`, a
    `kubectl logs` pane, a CI log's wrap) carries the key's `\\n`-escaped letters over many
    lines; each is base64 and escapes alone, up to the one holding the END marker, whose letters
    before it go too. The first placeholder stands on the BEGIN line; the lines after it stay
    as empty lines, as a multi-line block's do (with `typed`, when the BEGIN line held no
    letters, the placeholder stands on the first line of letters). Returns where the masked part ends, and
    whether the text ended still inside the string (the next chunk goes on with it)."""
    for _ in range(_MAX_BLOCK_LINES):
        start = pos + 1
        if start >= len(text):
            return pos, True
        end = _line_end(text, start)
        closing = _END.search(text, start, end)
        stop = closing.start() if closing is not None else end
        letters = text[start:stop]
        trail = _TRAIL.search(letters)
        letters = letters[: trail.start()] if trail is not None else letters
        if not _ESCAPED_BODY_LINE.fullmatch(letters):
            # The END marker cut by the width too (`...Jk\n-----END PRIV`): the letters before it go.
            cut_end = _CUT_END.search(text, start, end)
            if closing is None and cut_end is not None and _ESCAPED_BODY_LINE.fullmatch(text, start, cut_end.start()):
                if cut_end.start() > start:
                    edits.append((start, cut_end.start(), "", ""))
                return end, False
            break
        if letters:
            lead = _LEAD.match(letters)
            skip = lead.end() if typed and lead is not None else 0
            if typed and len(letters) > skip:
                edits.append((start + skip, start + len(letters), "private-key", letters[skip:]))
                typed = False
            else:
                edits.append((start, start + len(letters), "", ""))
        if closing is not None:
            return closing.end(), False
        pos = end
    return pos, False


# pprint (a notebook's `pprint(service_account_info)`, a repr a logger wraps) splits a long
# string after each `\n` into adjacent literals, one per line, aligned under the first:
# `'private_key': '-----BEGIN PRIVATE KEY-----\n'`, then `                'MIIEv...\n'`.
_SPLIT_STRING_TAIL = re.compile(r"(?:\\[rn])+(?P<q>['\"])")
_SPLIT_STRING_LINE = re.compile(r"[ \t]*(?P<q>['\"])(?P<v>[A-Za-z0-9+/=]{1,400})(?:\\[rn])*(?P=q)[ \t]*\Z")


def _mask_split_string_body(text: str, pos: int, quote: str, edits: list[Edit]) -> int:
    """Mask the key's letters in the split string's lines after `pos` (the BEGIN line's end):
    one placeholder on the first, the others blanked, up to the END marker's line or a line of
    another shape. Returns where the masked part ends."""
    spans: list[tuple[int, int]] = []
    for _ in range(_MAX_BLOCK_LINES):
        start = pos + 1
        if start >= len(text):
            break
        end = _line_end(text, start)
        m = _SPLIT_STRING_LINE.match(text, start, end)
        if m is None or m.group("q") != quote:
            break
        spans.append((m.start("v"), m.end("v")))
        pos = end
    if spans:
        body = "".join(text[a:b] for a, b in spans)
        edits.append((spans[0][0], spans[0][1], "private-key", body))
        edits.extend((a, b, "", "") for a, b in spans[1:])
    return pos


def _mask_between(text: str, start: int, end: int, edits: list[Edit]) -> None:
    """One placeholder for the key letters in text[start:end], the breaks beside them kept."""
    lead = _LEAD.match(text, start, end)
    start = lead.end() if lead is not None else start
    trail = _TRAIL.search(text, start, end)
    end = trail.start() if trail is not None else end
    # A key masked already (the markers stay around its placeholder) is not a new key.
    if end > start and PLACEHOLDER_RX.fullmatch(text, start, end) is None:
        edits.append((start, end, "private-key", text[start:end]))


# --- Kubernetes Secret data -------------------------------------------------------------------

_DATA_OPEN = re.compile(r"(?m)^(?P<indent>[ \t]*)(?:data|stringData):[ \t]*\r?$")
_DATA_JSON_OPEN = re.compile(r"\"(?:data|stringData)\"[ \t]*:[ \t]*\{")
# Greedy value, trailing blanks stripped in Python: a lazy value before `[ \t]*$` would retry
# the blank run from every position of a long line.
_YAML_ITEM = re.compile(r"(?P<indent>[ \t]+)(?P<key>[\w.\-]{1,253}):[ \t]+(?P<value>[^\s#][^\r\n]{0,16383})")
_JSON_ITEM = re.compile(r"\"(?P<key>[\w.\-]{1,253})\"[ \t]*:[ \t]*\"(?P<value>[^\"\n]{1,16384})\"")
_BLOCK_SCALAR = re.compile(r"[|>][0-9]?[+-]?[0-9]?\Z")
_B64_VALUE = re.compile(r"[A-Za-z0-9+/]{4,}={0,2}\Z")


def _is_base64_text(value: str) -> bool:
    """Secret `data` values are base64 of text; config values under `data:` are not."""
    if len(value) < 4 or len(value) % 4 or not _B64_VALUE.match(value):
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    return all(ch.isprintable() or ch in "\n\r\t" for ch in decoded)


def find_secret_data(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the values of Kubernetes Secret `data:`/`stringData:` blocks (YAML or JSON)."""
    pos = 0
    if state.data_indent is not None:
        pos = _yaml_block(text, 0, state.data_indent, False, edits)
        state.data_indent = None if pos < len(text) else state.data_indent
    if holds(text, "ata:"):
        for m in _DATA_OPEN.finditer(text, pos):
            if m.start() < pos:
                continue  # nested inside a block already walked
            indent = len(m.group("indent").expandtabs())
            string_data = "stringData" in m.group()
            pos = _yaml_block(text, m.end() + 1, indent, string_data, edits)
            if pos >= len(text):
                state.data_indent = indent
    if holds(text, "ata\""):
        walked = 0
        for m in _DATA_JSON_OPEN.finditer(text):
            if m.start() < walked:
                continue
            close = text.find("}", m.end(), m.end() + _ONE_LINE_REACH)
            close = min(len(text), m.end() + _ONE_LINE_REACH) if close == -1 else close
            for item in _JSON_ITEM.finditer(text, m.end(), close):
                value = item.group("value")
                if "stringData" in m.group() or _is_base64_text(value):
                    edits.append((item.start("value"), item.end("value"), "k8s-secret", value))
            walked = close


def _yaml_block(text: str, pos: int, indent: int, string_data: bool, edits: list[Edit]) -> int:
    """Mask `key: value` lines indented deeper than the `data:` line; return where it ends."""
    for _ in range(_MAX_BLOCK_LINES):
        if pos >= len(text):
            break
        line_end = _line_end(text, pos)
        line = text[pos:line_end]
        if line.strip():
            if len(line) - len(line.lstrip(" \t")) <= indent:
                return pos
            item = _YAML_ITEM.match(text, pos, line_end)
            if item is not None:
                value = item.group("value").rstrip().strip("\"'")
                if _BLOCK_SCALAR.match(value):
                    pass  # `tls.key: |`: YAML's block indicator; the lines under it are read as lines
                elif string_data or _is_base64_text(value):
                    vstart = item.start("value") + (1 if item.group("value")[:1] in "\"'" else 0)
                    edits.append((vstart, vstart + len(value), "k8s-secret", value))
        pos = line_end + 1
    return min(pos, len(text))
