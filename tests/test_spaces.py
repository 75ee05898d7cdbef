"""Unicode spaces back to ASCII: one list for a paste's text and an upload's bytes."""

from __future__ import annotations

import sys
import unicodedata

from bot.spaces import (
    _TELLTALES,
    UNICODE_SPACES,
    ZERO_WIDTH,
    ascii_spaces,
    ascii_spaces_text,
    separators_as_newlines,
)


def test_every_unicode_space_separator_is_in_the_list() -> None:
    zs = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Zs"} - {" "}
    assert zs == set(UNICODE_SPACES)


def test_bytes_and_text_agree_and_leave_punctuation_and_line_breaks_alone() -> None:
    text = "a\u00a0b\u202fc\u3000d \u2014 \u2019quoted\u2019 \u2026e\n" + "".join(UNICODE_SPACES) + "\n"
    out = ascii_spaces_text(text)
    assert ascii_spaces(text.encode()) == out.encode()
    assert out.startswith("a b c d \u2014 \u2019quoted\u2019 \u2026e\n")
    assert out.count("\n") == text.count("\n") and not set(out) & set(UNICODE_SPACES)
    assert ascii_spaces(b"plain ascii\n") == b"plain ascii\n"


def test_zero_width_characters_are_taken_out_of_text_and_bytes_alike() -> None:
    text = "\ufeffCUDA\u200b out\u2060 of memory \u200d\U0001f468\u200d\U0001f4bb\n"
    out = ascii_spaces_text(text)
    assert out == "CUDA out of memory \u200d\U0001f468\u200d\U0001f4bb\n"  # joiners in emoji stay
    assert ascii_spaces(text.encode()) == out.encode() and not set(out) & set(ZERO_WIDTH)


def test_line_separators_are_line_breaks_in_text_and_in_bytes_cut_anywhere() -> None:
    text = "a\u2028b\u2029c \u2014 \u2026\u2028"
    assert ascii_spaces_text(text) == "a\nb\nc \u2014 \u2026\n" == "\n".join(text.splitlines()) + "\n"
    data = text.encode()
    for size in range(1, 8):
        pieces = [data[i : i + size] for i in range(0, len(data), size)]
        assert b"".join(separators_as_newlines(pieces)) == b"a\nb\nc \xe2\x80\x94 \xe2\x80\xa6\n", size
    assert list(separators_as_newlines([b"ends in a lead \xe2\x80"])) == [b"ends in a lead ", b"\xe2\x80"]


def test_each_space_holds_a_telltale_byte_so_a_piece_without_one_is_left_as_it_is() -> None:
    # `ascii_spaces` returns a piece holding none of `_TELLTALES` at once: that is only right
    # while every Unicode space's UTF-8 form holds one (a space added to the list must too).
    assert all(any(t in c.encode() for t in _TELLTALES) for c in UNICODE_SPACES + ZERO_WIDTH)
    bars = "step 3 \u2588\u2588\u258f| 12/400 caf\u00e9\n".encode()
    assert not any(t in bars for t in _TELLTALES)
    assert ascii_spaces(bars) == bars
    for space in UNICODE_SPACES + ZERO_WIDTH:
        assert ascii_spaces(bars + f"a{space}b\n".encode()) == bars + (b"a b\n" if space in UNICODE_SPACES else b"ab\n")


def test_a_piece_of_box_drawing_keeps_its_table_and_loses_its_spaces() -> None:
    # `─` (E2 94 80) holds the telltale 80 and `°` (C2 B0) the lead of U+00A0: the piece is
    # read on, and a space is found by its lead and, under E2, its second byte.
    table = "\u256d\u2500\u2500\u256e\n\u2502 25\u00b0C \u2502 \u2014 \u2019ok\u2019 \u2502\n\u2570\u2500\u2500\u256f\n".encode()
    assert ascii_spaces(table) == table
    for space in UNICODE_SPACES + ZERO_WIDTH:
        assert ascii_spaces(table + f"a{space}b\n".encode()) == table + (b"a b\n" if space in UNICODE_SPACES else b"ab\n")


def test_non_ascii_that_is_no_space_is_left_and_each_space_found_among_it() -> None:
    """Box drawing and bars share bytes with the spaces' UTF-8 forms (`│` E2 94 82, `…` E2 80
    A6 beside U+2009's E2 80 89): left as they are, whichever spaces stand among them, each
    space replaced wherever it recurs, several kinds in one piece."""
    table = "\u2502 trial_1 \u2502 RUNNING \u2502 step 3 \u2588\u2588\u258f| 12/400 caf\u00e9 \u2026 \u201cok\u201d\n".encode()
    assert ascii_spaces(table) == table
    for space in UNICODE_SPACES + ZERO_WIDTH:
        plain = b"a b\n" if space in UNICODE_SPACES else b"ab\n"
        assert ascii_spaces(table + f"a{space}b\n".encode() + table) == table + plain + table
        assert ascii_spaces(f"a{space}b\n".encode() * 3) == plain * 3
    mixed = "x\u00a0y\u202fAM\u200bz\u3000\u2502\ufeff\n".encode()
    assert ascii_spaces(mixed) == "x y AMz \u2502\n".encode() == ascii_spaces_text(mixed.decode()).encode()
