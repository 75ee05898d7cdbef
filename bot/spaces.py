"""Unicode spaces back to the ASCII space, for every log whichever way it arrives.

A log copied from a web page (a CI run's page, a notebook, a wiki), or typed in Slack's
composer, carries no-break spaces (U+00A0), narrow no-break spaces (U+202F, which macOS and
ICU put before AM/PM) or other Unicode spaces where the program wrote ASCII spaces. Every
keyword and signature is written with ASCII spaces, so such a log would match nothing.

One list of characters, two forms: `ascii_spaces_text` for a paste's text (Slack's markup
is taken off as text), `ascii_spaces` for the bytes of an upload, a file or stdin, applied to
whole lines before the scan. Only spaces inside a line change: no line break is added or
taken away, so line numbers (the evidence's) stay those of the file; `stats.bytes` is counted
before, as read.
"""

from __future__ import annotations

import re

# Unicode's space separators (category Zs) other than U+0020. U+2028/U+2029 (line and
# paragraph separators) are left alone: reading them as line breaks would shift line numbers.
UNICODE_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"

_TEXT = str.maketrans(dict.fromkeys(UNICODE_SPACES, " "))
# In UTF-8, eleven of them (U+2000-U+200A, U+202F) share the lead `E2 80` with common
# punctuation (quotes, dashes, the ellipsis): one regex pass replaces those; the other four
# are each found with one `in`.
_PUNCTUATION_LEAD = b"\xe2\x80"
_PUNCTUATION_SPACES = re.compile(b"|".join(re.escape(e) for c in UNICODE_SPACES if (e := c.encode()).startswith(_PUNCTUATION_LEAD)))
_OTHERS = tuple(e for c in UNICODE_SPACES if not (e := c.encode()).startswith(_PUNCTUATION_LEAD))
# Each space's UTF-8 form holds one of these bytes. Looking for one byte is memchr; looking for
# a two- or three-byte sequence is several times slower, and a log of progress bars (`█`, `E2 96
# 88`) is non-ASCII in every piece: 30 MB of pdsh took 0.11 s in the five `in`s, 0.003 s here.
# (tests/test_spaces.py checks that every one of UNICODE_SPACES holds one.)
_TELLTALES = (b"\xa0", b"\x80", b"\x9f")


def ascii_spaces_text(text: str) -> str:
    """`text` with every Unicode space as an ASCII space."""
    return text.translate(_TEXT)


def ascii_spaces(data: bytes) -> bytes:
    """UTF-8 `data` (whole lines: a character is never cut) with every Unicode space as an
    ASCII space. A UTF-8 sequence cannot start inside another, so bytes are replaced safely.
    A chunk without a byte any of them holds (nearly every log's) is returned after a memchr or
    three."""
    if data.isascii() or not any(t in data for t in _TELLTALES):
        return data
    for encoded in _OTHERS:
        if encoded in data:
            data = data.replace(encoded, b" ")
    if _PUNCTUATION_LEAD in data:
        data = _PUNCTUATION_SPACES.sub(b" ", data)
    return data
