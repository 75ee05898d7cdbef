"""Digits outside the contexts `digit_contexts` gives cannot change whether a pattern matches.

The property the line-shape cache rests on: two ASCII lines that differ only in digits, and
not in the digits standing in the pattern's contexts (`anchored_digits`), are matched alike.
Patterns come from the subset the rules use, rich in digit atoms behind literals (`errno: 110`,
`iterations:\\s*[1-9]`, `1(?:\\.0)?`); lines are built to match them, then their other digits
are changed.
"""

from __future__ import annotations

import pytest
import regex
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.literals import DIGITS_AS_ZERO
from bot.matcher.digit_anchors import (
    DigitContext,
    anchored_digits,
    digit_contexts,
    with_digits_as_zero,
)

_TEXT = "ab: x"
leaf = st.one_of(
    st.sampled_from([*list(_TEXT), "0", "1", "7"]),
    st.text(_TEXT + "019", min_size=2, max_size=5).map(lambda t: t.replace(" ", "\\s")),
    st.sampled_from(["[1-9]", "[01]", "[^0]", "\\d", "\\d+", "\\s*", "\\s+", " ", ".", "\\S", "\\w", "\\b", "[0-9a]",
                     "(?:\\.0)?", "\\D", "[^1-9]"]),
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    quantifier = st.sampled_from(["*", "+", "?", "{2}", "{0,2}", "{1,3}"])
    return st.one_of(
        st.lists(children, min_size=2, max_size=4).map("".join),
        st.lists(children, min_size=2, max_size=3).map(lambda b: "(?:" + "|".join(b) + ")"),
        st.tuples(children, quantifier).map(lambda t: f"(?:{t[0]}){t[1]}"),
        st.tuples(st.sampled_from(["(?=", "(?!"]), children).map(lambda t: f"{t[0]}{t[1]})"),
        children.map(lambda c: f"(?i:{c})"),
    )


# Literal text before digit atoms, as the rules write them, mixed with anything of the subset.
anchored = st.lists(
    st.tuples(st.text(_TEXT, min_size=1, max_size=3), st.recursive(leaf, _combine, max_leaves=3)).map("".join),
    min_size=1,
    max_size=4,
).map("".join)
patterns = st.one_of(anchored, st.recursive(leaf, _combine, max_leaves=8), st.recursive(anchored, _combine, max_leaves=3))


def _compiles(pattern: str) -> bool:
    try:
        regex.compile(pattern)
    except regex.error:
        return False
    return True


# Derandomized: random patterns can nest quantifiers badly; a fixed sequence of examples cannot
# turn a CI run into a hang, and the searches are timed besides.
@settings(max_examples=700, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_digits_outside_the_contexts_do_not_change_a_match(data):
    pattern = data.draw(patterns)
    assume(_compiles(pattern))
    contexts = digit_contexts(pattern)
    assume(contexts is not None)
    try:
        core = data.draw(st.from_regex(pattern, fullmatch=True, alphabet=st.sampled_from("ab: x0123456789\t")))
    except Exception:
        core = ""
    line = data.draw(st.text("ab: 019", max_size=4)) + core + data.draw(st.text("ab: 019", max_size=4))
    assume(line.isascii())
    # The engine finds the places on the line with every digit read as 0 (its shape).
    zeroed = with_digits_as_zero(contexts)
    marks = anchored_digits(line.encode().translate(DIGITS_AS_ZERO), zeroed)
    assert set(marks) >= set(anchored_digits(line.encode(), tuple(sorted(contexts))))
    # Every other digit replaced, as another line of the same shape would have it.
    digits = data.draw(st.lists(st.sampled_from("0123456789"), min_size=len(line), max_size=len(line)))
    other = "".join(d if c.isdigit() and i not in marks else c for i, (c, d) in enumerate(zip(line, digits, strict=True)))
    try:
        found, found_other = regex.search(pattern, line, timeout=1), regex.search(pattern, other, timeout=1)
    except TimeoutError:
        assume(False)  # a pattern that backtracks past a second says nothing about digits
    assert bool(found) == bool(found_other), (pattern, line, other, contexts)


@pytest.mark.parametrize(
    ("pattern", "contexts"),
    [
        (r"number of nan iterations:\s*[1-9]", {DigitContext(b"number of nan iterations:", spaces=True)}),
        (r"errno: (?:110|113)", {DigitContext(b"errno: "), DigitContext(b"errno: 1"), DigitContext(b"errno: 11")}),
        (r"loss scale: 1(?:\.0)?\b", {DigitContext(b"loss scale: "), DigitContext(b"loss scale: 1.")}),
        (r"(?i)Rank [1-9]\d*", {DigitContext(b"rank ")}),
        (r"exitcode: [1-9]+", {DigitContext(b"exitcode: ", digits=True)}),
        (r"step \d+: loss \S+", set()),  # every digit alike: no context at all
        (r"^[1-9]", None),  # nothing literal before it
        (r"(\d) then \1", None),  # a backreference compares digits anywhere
        (r"x(?=1)", None),  # a lookaround reading a digit
        (r"\d+\.0", {DigitContext(b".")}),  # behind a number: the dot alone is the (weaker) literal
    ],
    ids=["spaces", "alternation", "optional-tail", "ignorecase", "digit-run", "blind", "unanchored",
         "backreference", "lookahead", "behind-a-number"],
)
def test_digit_contexts(pattern, contexts):
    got = digit_contexts(pattern)
    assert got == (None if contexts is None else frozenset(contexts))


def test_anchored_digits_are_the_digits_behind_the_literals():
    line = b"[2025-11-30 01:07:15] iteration 825 | loss scale: 1.0 | number of nan iterations:   0 | NUMBER OF NAN ITERATIONS:7"
    contexts = (DigitContext(b"loss scale: "), DigitContext(b"number of nan iterations:", spaces=True))
    marks = anchored_digits(line, contexts)
    assert [chr(line[p]) for p in marks] == ["1", "0", "7"]
    assert line[marks[1] - 3 : marks[1]] == b"   "
