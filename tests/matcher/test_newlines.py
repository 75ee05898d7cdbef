"""The matcher's compiled newline count answers as bytes.count does, and CI has it built."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.matcher import engine


def test_the_newline_count_is_built():
    from bot.matcher import _newlines

    assert engine._count_newlines is _newlines.count


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=300).map(lambda b: b.replace(b"x", b"\n")), st.integers(-400, 400), st.integers(-400, 400))
def test_counts_as_bytes_count_does(data, start, end):
    assert engine._count_newlines(data, start, end) == data.count(b"\n", start, end)


def test_long_runs_and_refusals():
    data = (b"a" * 31 + b"\n") * 100_000 + b"\n" * 77
    assert engine._count_newlines(data, 0, len(data)) == data.count(b"\n") == 100_077
    assert engine._count_newlines(data, 5, len(data) - 5) == data.count(b"\n", 5, len(data) - 5)
    with pytest.raises(TypeError):
        engine._count_newlines("text", 0, 4)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        engine._count_newlines(data, 0)  # type: ignore[call-arg]
