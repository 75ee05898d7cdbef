"""`denpex lookup` / `/denpex <error string>`: the entries a pasted error line points at.

Signatures first (the line diagnosed as a one-line log), then a ranked text search over what a
reader would recognise: titles, symptom lines, tags, keywords and the summary.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import regex

from bot.matcher.engine import Matcher
from bot.matcher.near_words import NearWords
from bot.matcher.plain_words import GREETINGS, PLAIN_WORDS
from bot.matcher.rulebook import Rule
from bot.matcher.vague_words import VAGUE_WORDS

_WORD = regex.compile(r"[a-z][a-z0-9_]{2,}|\d{2,}")
# Field weights: a word in the title says more than a word in the summary.
_FIELDS = (("title", 3.0), ("symptoms", 2.0), ("keywords", 2.0), ("tags", 1.5), ("summary", 1.0))
# A word read through a typo ("memroy" as "memory") says a little less than the word typed right.
_TYPO_WEIGHT = 0.8
# A word in more than this share of the entries ("error", "failed") names no failure by itself.
_GENERIC_SHARE = 0.4
# From this many words typed, a text hit must share most of them (both of two: "hello world"
# shares "world" with the world-size entries and names none of them).
_SENTENCE_WORDS = 2
# A question put to the bot ("is this hardware?", "what does this mean?") asks about a
# diagnosis; it names no failure unless a signature matches it. Error lines that end in a
# question ("Did you mean ...?") name their failure first and do not start this way.
_QUESTION = regex.compile(
    r"\s*(?:is|are|was|were|what|whats|why|how|can|could|should|does|do|did|will|would|which|who|where|when)\b"
    r"[^\n]*\?\s*", regex.IGNORECASE)
# A query whose naming words more entries than this share ("cuda error": 85 of ~300) names an
# area, not a failure: five of them listed would be a guess.
_BROAD_ENTRIES = 25


@dataclass(frozen=True)
class LookupHit:
    rule: Rule
    score: float
    how: str  # "signature" | "text"


def _shares(fields: dict[str, Counter[str]], known: set[str]) -> bool:
    """Does an entry's index hold one of `known` (a typed word and the words it may stand for)?"""
    return any(w in counts for w in known for counts in fields.values())


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in PLAIN_WORDS]


def _greetings(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w in GREETINGS}


class Lookup:
    """A text index over the rulebook, built once next to a Matcher."""

    def __init__(self, matcher: Matcher):
        self.matcher = matcher
        self._docs: list[tuple[Rule, dict[str, Counter[str]]]] = []
        df: Counter[str] = Counter()
        for rule in matcher.rulebook:
            fields = {
                "title": Counter(_words(rule.title + " " + rule.id.replace("-", " "))),
                "symptoms": Counter(_words(" ".join(s.line for s in rule.symptoms))),
                "keywords": Counter(_words(" ".join(rule.keywords))),
                "tags": Counter(_words(" ".join(rule.tags))),
                "summary": Counter(_words(rule.summary)),
            }
            self._docs.append((rule, fields))
            df.update(set().union(*fields.values()))
        n = max(1, len(self._docs))
        self._idf = {w: math.log(1 + n / c) for w, c in df.items()}
        self._near = NearWords(df)
        self._generic = {w for w, c in df.items() if c > _GENERIC_SHARE * n}

    def search(self, query: str, limit: int = 5) -> list[LookupHit]:
        query = query.strip()
        if not query:
            return []
        hits: list[LookupHit] = []
        seen: set[str] = set()
        diagnosis = self.matcher.diagnose(query)
        for m in diagnosis.matches:
            rule = self.matcher.rulebook.get(m.id)
            if rule is not None and m.id not in seen:
                hits.append(LookupHit(rule, 1.0 + m.score, "signature"))
                seen.add(m.id)
        if _QUESTION.fullmatch(query):
            return hits[:limit]
        # Each word typed, and the index's words that stand for it (itself, or its typo's fixes).
        asked = {typed: {typed} | self._near.correct(typed) for typed in _words(query)}
        greeted = len(_greetings(query))
        words = dict.fromkeys(asked, 1.0)
        for typed, known in asked.items():
            for fixed in known - {typed}:
                words.setdefault(fixed, _TYPO_WEIGHT)
        scored = []
        for rule, fields in self._docs:
            if rule.id in seen:
                continue
            score = 0.0
            for name, weight in _FIELDS:
                counts = fields[name]
                score += sum(weight * trust * self._idf.get(w, 0.0) for w, trust in words.items() if w in counts)
            if score > 0 and self._enough(asked, fields, greeted):
                scored.append((score, rule))
        if scored:
            top = max(s for s, _ in scored)
            for score, rule in sorted(scored, key=lambda x: (-x[0], x[1].id)):
                # Keep text hits within reach of the best: a shared word like "timeout" alone
                # should not list half the knowledge base.
                if score < 0.35 * top:
                    break
                hits.append(LookupHit(rule, score / (top * 1.01), "text"))
        return hits[:limit]

    def too_general(self, query: str) -> bool:
        """Does `query` name no failure in particular? No signature matches it, and its words
        either only say that something broke ("training failed", "my job crashed") or name an
        area that more than `_BROAD_ENTRIES` entries share ("cuda error", "nccl error"). A typo
        counts as the words it stands for ("trainng failed")."""
        typed = _words(query)
        if not typed or self.matcher.diagnose(query).matches:
            return False
        if _QUESTION.fullmatch(query):
            return True
        naming = [{w} | self._near.correct(w) for w in typed if w not in VAGUE_WORDS and w not in self._generic]
        if not naming:
            # Only words half the entries use ("this is not an error") say nothing at all of
            # a failure: "No entry matches" answers them, as before.
            return any(w in VAGUE_WORDS and w not in self._generic for w in typed)
        fits = sum(1 for _, fields in self._docs if all(_shares(fields, known) for known in naming))
        return fits > _BROAD_ENTRIES

    def _enough(self, asked: dict[str, set[str]], fields: dict[str, Counter[str]], greeted: int = 0) -> bool:
        """Does an entry share enough of the query to be listed for it? A word other than a
        generic one ("this is not an error" shares only "error" with half the entries), and,
        for a sentence, most of its words: "some random string that matches nothing" shares
        "string" with Arrow's offset overflow, which is not what it asks about. Tokens with
        digits (line numbers, versions, hex ids) and short unknown words are not counted. Greetings
        typed (`greeted`) are counted and never shared: "hello world" is small talk."""
        shared = {typed for typed, known in asked.items() if _shares(fields, known)}
        if not shared - self._generic:
            return False
        # A short word no entry holds is a fragment or a typo too short to read ("disk ful").
        counted = [typed for typed in asked if typed.isalpha() and (len(typed) > 3 or typed in shared)]
        total = len(counted) + greeted
        return total < _SENTENCE_WORDS or 2 * len(shared & set(counted)) > total
