"""The literal engine (bot/literals.py): its word finder against a plain reading of
leftmost-longest, its literal set against `in`."""

from __future__ import annotations

import hyperscan
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.literals import LiteralSet, Words, hyperscan_literal

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


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    words=st.lists(st.text(alphabet="abAB.-", min_size=1, max_size=5), min_size=1, max_size=6, unique=True),
    text=st.text(alphabet="abAB.- x", max_size=80),
)
def test_case_sensitive_words_with_boundaries_match_the_regex_alternation(words: list[str], text: str) -> None:
    """`caseless=False` with an `accept` predicate finds what the regex the learned names used
    to be masked with finds: `(?<![A-Za-z0-9<])(longest|...|shortest)(?![A-Za-z0-9])`."""
    import regex

    alternation = "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))
    rx = regex.compile(r"(?<![A-Za-z0-9<])(" + alternation + r")(?![A-Za-z0-9])")
    data = text.encode()

    def accept(start: int, end: int) -> bool:
        return (start == 0 or not chr(data[start - 1]).isalnum()) and (end == len(data) or not chr(data[end]).isalnum())

    got = [(start, end) for _, start, end in Words(words, caseless=False).find(data, accept)]
    assert got == [m.span() for m in rx.finditer(text)]


def test_a_refused_longest_match_gives_way_to_a_shorter_one() -> None:
    """`gpu-node-1.clusterX` is no whole word, `gpu-node-1` before the dot is."""
    words = Words(["gpu-node-1", "gpu-node-1.cluster"], caseless=False)
    data = b"at gpu-node-1.clusterX now; GPU-NODE-1"

    def accept(start: int, end: int) -> bool:
        return end == len(data) or not chr(data[end]).isalnum()

    assert [(data[s:e], i) for i, s, e in words.find(data, accept)] == [(b"gpu-node-1", 0)]


_LITERALS = ["ab", "a", ":x:", "B ", "\n", "-:", "A\nb"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_ALPHABET + "?\u00e9\u2588\ud800", max_size=40))
def test_a_literal_set_finds_what_in_finds(text: str) -> None:
    """Exactly the literals `in` finds, case and all, whatever non-ASCII characters (read as
    `?` by the scan) stand around them."""
    assert LiteralSet(_LITERALS).present(text) == {w for w in _LITERALS if w in text}


def test_a_literal_set_refuses_what_its_scan_cannot_tell_apart() -> None:
    for bad in (["é"], ["a?"], [""]):
        with pytest.raises(ValueError):
            LiteralSet(bad)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    words=st.lists(st.text(alphabet="abAB@ -:", min_size=1, max_size=4), min_size=1, max_size=6, unique_by=str),
    text=st.text(alphabet=_ALPHABET, max_size=80),
)
def test_word_starts_are_every_occurrence_overlaps_included(words: list[str], text: str) -> None:
    """`starts` lists every place each word occurs (case counts here), in order: `aa` twice in `aaa`."""
    data = text.encode("utf-8")
    expected = [[i for i in range(len(data)) if data.startswith(w.encode(), i)] for w in words]
    assert Words(words, caseless=False).starts(data) == expected


@settings(max_examples=200, deadline=None)
# The word is framed by `<` and `>` below: a word made of them would also match in the frame.
@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="<>"), min_size=1, max_size=12))
def test_a_literal_expression_is_its_bytes_letters_and_digits_as_they_are(word: str) -> None:
    """Every byte but an ASCII letter or digit is `\\xHH`; Hyperscan matches exactly the word."""
    data = word.encode("utf-8")
    expression = hyperscan_literal(word)
    assert expression == "".join(chr(b) if chr(b).isascii() and chr(b).isalnum() else f"\\x{b:02x}" for b in data)
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=[expression.encode()], ids=[0], elements=1, flags=[0])
    found: list[tuple[int, int]] = []
    db.scan(b"<" + data + b">", match_event_handler=lambda i, a, b, f, c: found.append((a, b)))
    assert [end for _, end in found] == [1 + len(data)]
