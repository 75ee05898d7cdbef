"""The literal engine's word finder (bot/literals.py) against a plain reading of leftmost-longest."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.literals import Words

_ALPHABET = "abAB@ -:\n\xe9"


def _leftmost_longest(words: list[str], data: bytes) -> list[tuple[int, int, int]]:
    """At each position the longest word starting there (ASCII case folded), then past it."""
    low = data.lower()
    encoded = [w.encode().lower() for w in words]
    out, pos = [], 0
    while pos < len(low):
        best = max(
            ((len(w), -i) for i, w in enumerate(encoded) if low.startswith(w, pos)),
            default=None,
        )
        if best is None:
            pos += 1
            continue
        length, neg_i = best
        out.append((-neg_i, pos, pos + length))
        pos += length
    return out


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    words=st.lists(st.text(alphabet="abAB@ -:", min_size=1, max_size=4), min_size=1, max_size=6, unique_by=str.lower),
    text=st.text(alphabet=_ALPHABET, max_size=80),
)
def test_words_are_found_leftmost_longest_without_overlaps(words: list[str], text: str) -> None:
    """Each match is the leftmost, the longest of those starting there, and none overlap."""
    data = text.encode("utf-8")
    assert Words(words).find(data) == _leftmost_longest(words, data)


def test_case_is_folded_and_offsets_are_bytes() -> None:
    """`PASSWORD` is found by `password`, and not as its prefix `pass`."""
    found = Words(["pass", "password", "@"]).find(b"x PASSWORD=y alice@host")
    assert found == [(1, 2, 10), (2, 18, 19)]


def test_an_empty_word_is_refused() -> None:
    """An empty word would match at every position: a clear error, not a hang."""
    with pytest.raises(ValueError):
        Words(["ok", ""])
