"""Typos in a lookup: a query word the knowledge base never uses, read as the word one edit
away that it does use ("memroy" as "memory", "tiemout" as "timeout").

One edit is a letter dropped, added, changed, or two neighbours swapped. Words are matched by
their one-letter deletions (two words one edit apart share one), so no pair of words is ever
compared letter by letter. Short words are left alone: one edit turns most of them into
another real word.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

MIN_TYPO_LEN = 5


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def _one_edit_apart(a: str, b: str) -> bool:
    """Is `b` one drop, addition, change or swap of neighbours away from `a` (and not `a`)?"""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


class NearWords:
    """The index's own words, found again from a misspelling of one of them."""

    def __init__(self, vocabulary: Iterable[str]):
        self._known = set(vocabulary)
        self._by_key: dict[str, set[str]] = defaultdict(set)
        for word in self._known:
            if len(word) >= MIN_TYPO_LEN - 1 and word.isalpha():
                for key in _deletions(word) | {word}:
                    self._by_key[key].add(word)

    def correct(self, word: str) -> set[str]:
        """The known words one edit away from `word`; none when it is known, short or not a word."""
        if word in self._known or len(word) < MIN_TYPO_LEN or not word.isalpha():
            return set()
        found: set[str] = set()
        for key in _deletions(word) | {word}:
            found |= self._by_key.get(key, set())
        return {w for w in found if _one_edit_apart(word, w)}
