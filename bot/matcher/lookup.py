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
from bot.matcher.plain_words import PLAIN_WORDS
from bot.matcher.rulebook import Rule

_WORD = regex.compile(r"[a-z][a-z0-9_]{2,}|\d{2,}")
# Field weights: a word in the title says more than a word in the summary.
_FIELDS = (("title", 3.0), ("symptoms", 2.0), ("keywords", 2.0), ("tags", 1.5), ("summary", 1.0))
# A word read through a typo ("memroy" as "memory") says a little less than the word typed right.
_TYPO_WEIGHT = 0.8


@dataclass(frozen=True)
class LookupHit:
    rule: Rule
    score: float
    how: str  # "signature" | "text"


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in PLAIN_WORDS]


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
        words = dict.fromkeys(_words(query), 1.0)
        for typed in list(words):
            for known in self._near.correct(typed):
                words.setdefault(known, _TYPO_WEIGHT)
        scored = []
        for rule, fields in self._docs:
            if rule.id in seen:
                continue
            score = 0.0
            for name, weight in _FIELDS:
                counts = fields[name]
                score += sum(weight * trust * self._idf.get(w, 0.0) for w, trust in words.items() if w in counts)
            if score > 0:
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
