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

import functools
import re
import threading
from collections.abc import Iterable, Iterator

import hyperscan

from bot.dbcache import block_database
from bot.literals import hyperscan_literal, scan_in_thread

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
# The lead of their UTF-8 forms (E2 80 A8/A9), which a chunk may end in.
_PUNCTUATION_LEAD = b"\xe2\x80"
# Which of them a piece holds: one Hyperscan pass over its bytes (bot/literals.py), each
# character reported once. A search per character, even gated by a byte each holds, read a
# log of Ray's box-drawn tables (`│`, E2 94 82) at 156 MB/s, 6% of a core for `denpex watch`
# at 10 MB/s: that byte is in every line, and the `in`s and the regex over `E2 80` then ran
# over each piece whole; the pass reads it at 2 GB/s, and a log full of no-break spaces 3x
# faster too. Only the characters it found are replaced, each with one `bytes.replace`.
_ENCODED = tuple(_BYTES.items())


@functools.cache
def _characters() -> hyperscan.Database:
    # Written in our code: kept on disk and loaded on the next start (bot/dbcache.py).
    return block_database([(i, hyperscan_literal(c)) for i, c in enumerate(_REPLACEMENT)], hyperscan.HS_FLAG_SINGLEMATCH)


_SCRATCH = threading.local()


def ascii_spaces_text(text: str) -> str:
    """`text` with every Unicode space as an ASCII space, zero-width characters taken out and
    line separators as line breaks."""
    return text.translate(_TEXT)


def ascii_spaces(data: bytes) -> bytes:
    """UTF-8 `data` (whole lines: a character is never cut) as `ascii_spaces_text` would make
    its text. A UTF-8 sequence cannot start inside another, and each replacement is ASCII or
    nothing, so bytes are replaced safely and in any order. An ASCII chunk (nearly every
    log's) is returned after one C pass; another after one Hyperscan pass when it holds none
    of them."""
    if data.isascii():
        return data
    found: set[int] = set()
    scan_in_thread(_characters(), _SCRATCH, data, lambda idx, *_: found.add(idx))
    for idx in found:
        encoded, replacement = _ENCODED[idx]
        data = data.replace(encoded, replacement)
    return data


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
        if _SEPARATOR_BYTES.search(data):
            data = _SEPARATOR_BYTES.sub(b"\n", data)
        if data.endswith(b"\xe2"):
            data, carry = data[:-1], data[-1:]
        elif data.endswith(_PUNCTUATION_LEAD):
            data, carry = data[:-2], data[-2:]
        if data:
            yield data
    if carry:
        yield carry
