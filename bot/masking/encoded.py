"""Credentials base64-encoded whole: a credentials file, an env file or a config put through
`base64` (wrapped at 76 columns by default, `-w 0` on one line), as a CI step or a Secret's
manifest prints it. The letters say nothing; what they decode to does.

A run of base64 (one token of 40 letters or more standing alone, or whole lines of it, the
last one shorter) that decodes to text holding a credential the masker finds is masked whole:
its placeholder on the first line, the lines below it blank. Base64 of binary (a tensor, a
digest, a DER key's body) is not text, and text holding no credential is kept.
"""

from __future__ import annotations

import base64
import binascii
import re

from bot.literals import one_byte
from bot.masking.edits import Edit
from bot.masking.vendor import kind_of_value

# A token of 40 base64 letters or more that no other word runs into, standing on its own.
_TOKEN = re.compile(r"(?<![\w+/.%\\-])[A-Za-z0-9+/]{40,}={0,2}(?![\w+/=.%\\-])")
# Where runs of 40 base64 letters stand, found in C: the text as one byte a character (the
# stage's own, bot/literals.py), each such letter read as one mark, then a plain substring
# search (a regex tried at every position of a big log costs ten times as much, and a str's
# translate of non-ASCII text, a tqdm bar's, as much again).
_B64_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_AS_MARK = bytes(1 if byte in _B64_LETTERS else 0 for byte in range(256))
_RUN = b"\x01" * 40
_NOT_MARK = re.compile(b"[^\x01]")
# A line below it that goes on with the same run: base64 alone on its line.
_NEXT_LINE = re.compile(r"\n[ \t]*([A-Za-z0-9+/]{2,}={0,2})[ \t]*(?=\r?\n|\Z)")
_MIN_TEXT = 16
_MAX_RUN = 1 << 16
_SECRET_MARK = "<SECRET:"


def _decoded_text(letters: str) -> str | None:
    """The text `letters` are base64 of, or None (not base64, or binary)."""
    if len(letters) % 4 == 1:
        return None
    try:
        raw = base64.b64decode(letters + "=" * (-len(letters) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if len(text) < _MIN_TEXT or not all(ch.isprintable() or ch in "\n\r\t" for ch in text):
        return None
    return text


def _holds_credential(text: str) -> bool:
    # The masker itself says: whatever it masks as a secret in the decoded text. (Imported
    # here: the masker's table imports this module.)
    from bot.masking.masker import mask

    return _SECRET_MARK in str(mask(text).text)


def find_encoded_credentials(text: str, edits: list[Edit]) -> None:
    """Append an edit for every base64 run that decodes to text holding a credential."""
    starts = {edit[0] for edit in edits}
    judged: dict[str, bool] = {}  # a log repeats its lines; each run is decoded once per piece
    marks = one_byte(text).translate(_AS_MARK)
    pos = 0
    while (found := marks.find(_RUN, pos)) >= 0:
        after = _NOT_MARK.search(marks, found + 40)
        pos = len(marks) if after is None else after.start()
        m = _TOKEN.match(text, found)
        if m is None or m.start() in starts:
            continue  # not standing alone, or a value another row owns (`"auth": ...`)
        end = m.end()
        letters = [m.group()]
        width = len(m.group())
        # Whole lines of base64 below a whole line of it: `base64`'s wrap (76), openssl's (64).
        line_start = text.rfind("\n", 0, m.start()) + 1
        if not text[line_start : m.start()].strip() and text[end : end + 1] in ("\n", "\r", ""):
            while end - m.start() < _MAX_RUN and not letters[-1].endswith("="):
                nxt = _NEXT_LINE.match(text, end if text[end : end + 1] == "\n" else end + 1)
                if nxt is None or len(nxt.group(1)) > width or (len(letters) == 1 and width < 60):
                    break
                letters.append(nxt.group(1))
                end = nxt.end(1)
                if len(nxt.group(1)) < width:
                    break
        pos = max(pos, end)  # a run is read once, masked or not (a long dump is no quadratic)
        joined = "".join(letters)
        if joined not in judged:
            # Decoded first: most runs (a request's random id, a digest) are binary, and
            # telling a vendor's token by its shape cost several times the decoding.
            decoded = _decoded_text(joined)
            judged[joined] = (
                decoded is not None
                # A PEM block or a vendor's token in base64: their own rows name them.
                and not (joined.startswith("LS0tLS1CRUdJTi") or kind_of_value(joined) is not None)
                and _holds_credential(decoded)
            )
        if not judged[joined]:
            continue
        edits.append((m.start(), end, "encoded-credentials", joined))
