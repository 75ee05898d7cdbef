"""The whole-piece guards (bot/masking/guards.py) answer exactly as `literal in text` would."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bot.masking  # noqa: F401  (every detector module declares its literals at import)
from bot.masking import guards

DECLARED = list(guards.declared())


def test_the_detectors_declare_their_guards() -> None:
    assert {"-----BEGIN", "IdentityFile", "HostName", "TIMESTAMP", "getenv(", "%40", '"log"'} <= set(DECLARED)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*DECLARED, *(w[:-1] for w in DECLARED), *(w[1:] for w in DECLARED), "é", "\n", " ", "?"]), max_size=12))
def test_holds_is_in(parts: list[str]) -> None:
    """On texts of the literals, their halves and non-ASCII characters (read as `?` by the scan)."""
    text = "".join(parts)
    for literal in DECLARED:
        assert guards.holds(text, literal) == (literal in text), (literal, text)


def test_each_text_is_answered_for_itself() -> None:
    """The answer kept for the last text is not given for another."""
    assert guards.holds("x -----BEGIN y", "-----BEGIN")
    assert not guards.holds("x -----BEGI y", "-----BEGIN")
    assert guards.holds("TIMESTAMP", "TIMESTAMP")


def test_an_undeclared_literal_is_refused() -> None:
    with pytest.raises(ValueError):
        guards.holds("anything", "not declared anywhere")
