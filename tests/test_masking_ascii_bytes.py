"""Masking's one-byte-per-character view of a piece is str.encode("ascii", errors="replace"),
from the compiled loop, for every kind of str; and CI has the loop built."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.masking import ascii_bytes as module


def test_the_compiled_loop_is_built():
    from bot.masking import _ascii

    assert module.ascii_bytes is _ascii.replaced


# ASCII, Latin-1, two-byte (tqdm's █▌) and four-byte characters, lone surrogates included.
@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.one_of(st.characters(max_codepoint=0x7F), st.characters(min_codepoint=0x80, max_codepoint=0xFF),
                                  st.sampled_from("█▌é٣\u2028\ufffd\U0001f600\ud800"), st.characters())))  # fmt: skip
def test_is_the_ascii_encoding_with_replacement(text):
    assert module.ascii_bytes(text) == text.encode("ascii", errors="replace")


def test_every_kind_at_length_and_refusals():
    for ch in ("a", "é", "█", "\U0001f600"):
        text = ("x" * 31 + ch) * 40_000
        assert module.ascii_bytes(text) == text.encode("ascii", errors="replace")
    assert module.ascii_bytes("") == b""
    with pytest.raises(TypeError):
        module.ascii_bytes(b"bytes")  # type: ignore[arg-type]
