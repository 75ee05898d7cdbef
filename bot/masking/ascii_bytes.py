"""A piece as Hyperscan reads it in masking: one byte per character, `?` outside ASCII.

Offsets into the bytes are offsets into the str, so what the scans find lands on the text.
The C loop (_ascii.c) does what str.encode("ascii", errors="replace") does, without going a
character at a time through error handling on the two-byte str that tqdm bars make.
"""

from __future__ import annotations

try:
    from bot.masking._ascii import replaced as ascii_bytes
except ImportError:  # not built here: the same bytes, more slowly

    def ascii_bytes(text: str) -> bytes:
        return text.encode("ascii", errors="replace")


__all__ = ["ascii_bytes"]
