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
_BYTES = re.compile(b"|".join(re.escape(c.encode()) for c in UNICODE_SPACES))
# The leading bytes of every character above, looked for first: one memchr-speed `in` each
# keeps a log without them (nearly every log) off the regex.
_LEADS = tuple(sorted({c.encode()[:2] for c in UNICODE_SPACES}))


def ascii_spaces_text(text: str) -> str:
    """`text` with every Unicode space as an ASCII space."""
    return text.translate(_TEXT)


def ascii_spaces(data: bytes) -> bytes:
    """UTF-8 `data` (whole lines: a character is never cut) with every Unicode space as an
    ASCII space. A UTF-8 sequence cannot start inside another, so bytes are replaced safely."""
    if not any(lead in data for lead in _LEADS):
        return data
    return _BYTES.sub(b" ", data)
