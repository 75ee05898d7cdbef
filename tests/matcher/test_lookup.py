"""The lookup's text search: plain English never makes a hit, and a one-letter typo of a word
the knowledge base uses still finds its entry."""

from __future__ import annotations

import pytest

from bot.matcher.near_words import NearWords
from bot.service import Denpex


@pytest.fixture(scope="module")
def denpex() -> Denpex:
    return Denpex()


@pytest.mark.parametrize("query", [
    "frobnicator exploded while reticulating splines",
    "please help, everything is on fire since yesterday",
    "asdf qwerty zxcv",
    "this is not an error",
    "some random string that matches nothing",
    "lorem ipsum dolor sit amet",
])
def test_words_that_name_no_failure_find_nothing(denpex: Denpex, query: str) -> None:
    assert denpex.lookup(query) == []


@pytest.mark.parametrize("query,first", [
    # One edit off a word the entry uses.
    ("CUDA out of memroy", "cuda-oom"),
    ("nccl watchdog timout", "nccl-watchdog-timeout"),
    ("Segmentaton fault", "native-segfault"),
    ("disk ful", "disk-full"),
    # Sentences sharing most of their words with the entry (no signature matches these).
    ("CUDA out of memory", "cuda-oom"),
    ("connection reset by peer", "gloo-peer-closed"),
    ("address already in use", "c10d-address-in-use"),
    ("ImportError: cannot import name 'foo' from 'bar'", "import-name-version-skew"),
    ("loss scale minimum reached", "fp16-loss-scale-min"),
])
def test_the_entry_a_lookup_names_comes_first(denpex: Denpex, query: str, first: str) -> None:
    hits = denpex.lookup(query)
    assert hits and hits[0].rule.id == first, [h.rule.id for h in hits]


@pytest.mark.parametrize("typed,known", [
    ("memroy", "memory"),  # neighbours swapped
    ("memry", "memory"),  # a letter dropped
    ("memmory", "memory"),  # a letter added
    ("menory", "memory"),  # a letter changed
])
def test_one_edit_finds_the_known_word(typed: str, known: str) -> None:
    assert NearWords(["memory", "timeout"]).correct(typed) == {known}


@pytest.mark.parametrize("typed", ["memory", "mem", "mmeroy", "mem0ry", "timeoutt_x"])
def test_known_short_far_or_non_words_are_not_corrected(typed: str) -> None:
    """Known words, words under five letters, two edits away, or with digits: left alone."""
    assert NearWords(["memory", "timeout"]).correct(typed) == set()


@pytest.mark.parametrize("query", [
    "training failed", "my job crashed", "trainng failed", "cuda error", "nccl error", "rank 3 died",
    "RuntimeError: CUDA error",
])
def test_words_naming_no_failure_in_particular_are_too_general(denpex: Denpex, query: str) -> None:
    """Only that something broke, or an area dozens of entries share: no entry is picked."""
    assert denpex.too_general(query)


@pytest.mark.parametrize("query", [
    "out of memory", "loss is nan", "segmentation fault", "nccl watchdog timeout", "process killed",
    "CUDA error: an illegal memory access was encountered", "this is not an error", "asdf qwerty zxcv",
])
def test_words_naming_a_failure_or_nothing_are_not_too_general(denpex: Denpex, query: str) -> None:
    """A word that narrows, a signature match, or no failure word at all ("No entry matches")."""
    assert not denpex.too_general(query)


@pytest.mark.parametrize("query", [
    "hello world",  # "world" alone is the world-size entries' word, not what was said
    "good morning everyone",
    "deploy went fine",
    "lunch at noon?",  # "lunch" is one letter off "launch", "noon" no entry's word
    "thanks everyone",
])
def test_small_talk_sharing_one_word_with_an_entry_lists_nothing(denpex: Denpex, query: str) -> None:
    """Two or three words of which an entry shares one are not a lookup of that entry."""
    assert denpex.lookup(query) == [], [h.rule.id for h in denpex.lookup(query)]


@pytest.mark.parametrize("query", ["is this hardware?", "what does this mean?", "How do I fix it?",
                                   "can you look at my run?"])
def test_a_question_to_the_bot_lists_nothing_and_is_too_general(denpex: Denpex, query: str) -> None:
    """A question asks about a diagnosis; it names no failure, so nothing is guessed for it."""
    assert denpex.lookup(query) == []
    assert denpex.too_general(query)


@pytest.mark.parametrize("query,first", [
    ("hey, nccl watchdog timeout", "nccl-watchdog-timeout"),
    ("thanks, loss is nan again", "loss-nan"),
    ("segmentation fault", "native-segfault"),
    ("disk full", "disk-full"),
    ("CUDA error: out of memory?", "cuda-oom"),  # a question mark after an error line
])
def test_a_failure_named_with_a_greeting_or_two_words_still_comes_first(denpex: Denpex, query: str, first: str) -> None:
    """Greetings count against a text hit, but an entry sharing the rest still leads."""
    hits = denpex.lookup(query)
    assert hits and hits[0].rule.id == first, [h.rule.id for h in hits]
    assert not denpex.too_general(query)
