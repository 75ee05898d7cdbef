"""A plain string as a Hyperscan expression, for the matcher's and the masker's databases.

Hyperscan reads PCRE syntax, so every byte that could be syntax (and every non-ASCII byte) is
written as `\\xHH`; ASCII letters and digits stay as they are, which keeps `HS_FLAG_CASELESS`
and database dumps readable.
"""

from __future__ import annotations


def hyperscan_literal(word: str) -> str:
    """`word`'s UTF-8 bytes as an expression that matches exactly them."""
    return "".join(chr(b) if b < 128 and chr(b).isalnum() else f"\\x{b:02x}" for b in word.encode("utf-8"))
