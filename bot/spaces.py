"""Unicode spaces back to the ASCII space, for every log whichever way it arrives.

A log copied from a web page (a CI run's page, a notebook, a wiki), or typed in Slack's
composer, carries no-break spaces (U+00A0), narrow no-break spaces (U+202F, which macOS and
ICU put before AM/PM) or other Unicode spaces where the program wrote ASCII spaces. Every
keyword and signature is written with ASCII spaces, so such a log would match nothing.

Zero-width characters do the same to a word: a web page puts U+200B (zero-width space) or
U+2060 (word joiner) inside long words so they can wrap, and an editor may save a byte-order
mark (U+FEFF) that ends up mid-paste. They are taken out.

A rich-text editor (Word, Notes, a web page's editable area) writes U+2028/U+2029 (line and
paragraph separators) where the log had line breaks: they are line breaks again. A paste's
text already splits there (Python's `str.splitlines` does), so an upload's bytes do too, as
they are read (`separators_as_newlines`, in bot.ingest, before anything counts lines): one
such separator inside a real line moves the line numbers after it by one, where a log that is
all one separator-joined line would otherwise be a single line of megabytes.

One list of characters, two forms: `ascii_spaces_text` for a paste's text (Slack's markup
is taken off as text), `ascii_spaces` for the bytes of an upload, a file or stdin, applied to
whole lines before the scan; `stats.bytes` is counted before, as read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# Unicode's space separators (category Zs) other than U+0020.
UNICODE_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
# Invisible, and never in a program's output on purpose. U+200C/U+200D (zero-width non-joiner,
# joiner) stay: scripts and emoji sequences need them.
ZERO_WIDTH = "\u200b\u2060\ufeff"
LINE_SEPARATORS = "\u2028\u2029"

_REPLACEMENT = {**dict.fromkeys(UNICODE_SPACES, " "), **dict.fromkeys(ZERO_WIDTH, "")}
_TEXT = str.maketrans({**_REPLACEMENT, **dict.fromkeys(LINE_SEPARATORS, "\n")})
_BYTES = {c.encode(): r.encode() for c, r in _REPLACEMENT.items()}
# One regex search, not an `in` per separator: `in` slows to ~4 ms a MB on a log full of box
# drawing and block characters (E2 94.., E2 96..), the regex's literal prefix does not.
_SEPARATOR_BYTES = re.compile(b"|".join(re.escape(c.encode()) for c in LINE_SEPARATORS))
# Each replaced character's UTF-8 form holds one of these bytes. Looking for one byte is memchr;
# looking for a two- or three-byte sequence is several times slower, and a log of progress bars
# (`█`, `E2 96 88`) is non-ASCII in every piece: 30 MB of pdsh took 0.11 s in the five `in`s,
# 0.003 s here. (tests/test_spaces.py checks that every one of them holds one; BB is U+FEFF's.)
_TELLTALES = (b"\xa0", b"\x80", b"\x9f", b"\xbb")
# `80` is also the last byte of `─` (E2 94 80), which draws every Ray Tune status table and
# rich box: such a piece is told apart by the lead bytes. Every lead but E2 is found by memchr;
# E2 leads box drawing, blocks and arrows too, and the replaced characters it leads are
# `E2 80 ..` and `E2 81 ..`, which one regex with the literal prefix finds (0.5 ms a MB, where
# looking for each character in turn took 3.5 ms a MB of ray-train's log).
_LEADS = tuple(sorted({e[:1] for e in _BYTES} - {b"\xe2"}))
_E2_REPLACED = re.compile(b"\xe2[" + b"".join(re.escape(e[1:2]) for e in sorted(_BYTES) if e.startswith(b"\xe2")) + b"]")
_REPLACED = re.compile(b"|".join(re.escape(e) for e in _BYTES))


def ascii_spaces_text(text: str) -> str:
    """`text` with every Unicode space as an ASCII space, zero-width characters taken out and
    line separators as line breaks."""
    return text.translate(_TEXT)


def ascii_spaces(data: bytes) -> bytes:
    """UTF-8 `data` (whole lines: a character is never cut) as `ascii_spaces_text` would make
    its text. A UTF-8 sequence cannot start inside another, so bytes are replaced safely.
    A chunk without a byte any of them holds (nearly every log's) is returned after a memchr or
    four."""
    if data.isascii() or not any(t in data for t in _TELLTALES):
        return data
    if not any(lead in data for lead in _LEADS) and not _E2_REPLACED.search(data):
        return data
    return _REPLACED.sub(lambda m: _BYTES[m.group()], data)


def separators_as_newlines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """UTF-8 `chunks` (cut anywhere) with U+2028/U+2029 as `\\n`. A chunk ending in the first
    bytes of one is held back until the next completes it."""
    carry = b""
    for chunk in chunks:
        data = carry + chunk if carry else chunk
        carry = b""
        if data.isascii():
            yield data
            continue
        # Their last bytes (A8, A9) are rare in a log (box drawing and blocks are E2 94-96 80..BF,
        # but for `┨┩╨╩`), so two memchrs rule out a piece of Ray Tune tables or progress bars
        # before the search (0.6 ms a MB).
        if (b"\xa8" in data or b"\xa9" in data) and _SEPARATOR_BYTES.search(data):
            data = _SEPARATOR_BYTES.sub(b"\n", data)
        if data.endswith(b"\xe2"):
            data, carry = data[:-1], data[-1:]
        elif data.endswith(b"\xe2\x80"):  # the first two bytes of U+2028 and U+2029
            data, carry = data[:-2], data[-2:]
        if data:
            yield data
    if carry:
        yield carry
