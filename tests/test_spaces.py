"""Unicode spaces back to ASCII: one list for a paste's text and an upload's bytes."""

from __future__ import annotations

import sys
import unicodedata

from bot.spaces import UNICODE_SPACES, ascii_spaces, ascii_spaces_text


def test_every_unicode_space_separator_is_in_the_list() -> None:
    zs = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Zs"} - {" "}
    assert zs == set(UNICODE_SPACES)


def test_bytes_and_text_agree_and_leave_punctuation_and_line_breaks_alone() -> None:
    text = "a\u00a0b\u202fc\u3000d \u2014 \u2019quoted\u2019 \u2026\u2028e\n" + "".join(UNICODE_SPACES) + "\n"
    out = ascii_spaces_text(text)
    assert ascii_spaces(text.encode()) == out.encode()
    assert out.startswith("a b c d \u2014 \u2019quoted\u2019 \u2026\u2028e\n")
    assert out.count("\n") == text.count("\n") and not set(out) & set(UNICODE_SPACES)
    assert ascii_spaces(b"plain ascii\n") == b"plain ascii\n"
