"""Which topic a follow-up question is about: nearest neighbours over shipped examples.

Each question becomes a TF-IDF vector of its words, word pairs and character n-grams (the
n-grams carry typos: "verfy" shares most of "verify"'s trigrams), and is compared by cosine
with every example of bot/followup/examples.yaml. A topic's score is the mean of its two
closest examples, so one stray example cannot win alone. Below MIN_SCORE, or nearest to the
`unknown` examples (chatter), the question is not recognised: the caller then offers the
closest topics instead of guessing.

Written here rather than taken from scikit-learn: a few hundred short examples need forty
lines of arithmetic, not a dependency of tens of megabytes; no network, no model file.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

import yaml

from bot.followup.topics import BY_NAME, UNKNOWN

EXAMPLES = Path(__file__).with_name("examples.yaml")
# Tuned on tests/followup/evalset_tuning.yaml (never on the held-out part).
MIN_SCORE = 0.18
NGRAMS = (2, 3, 4)
CHAR_WEIGHT = 1.0  # character n-grams against whole words (1.0 did best on the tuning part)
NEIGHBOURS = 2

_WEIGHTS: dict[str, float] = {}  # filled below, once the weights are defined
_APOSTROPHE = re.compile(r"['’`]")
_NON_WORD = re.compile(r"[^a-z0-9]+")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Recognition:
    """The topic a question is about (UNKNOWN when none is close enough), and every topic
    ranked by score, best first, for "did you mean" buttons."""

    topic: str
    score: float
    ranked: tuple[tuple[str, float], ...]

    @property
    def chatter(self) -> bool:
        """The closest examples are the `unknown` ones ("thanks", "ok", "see you tomorrow"):
        talk between people, not a question the bot failed to place."""
        return bool(self.ranked) and self.ranked[0][0] == UNKNOWN and self.score >= MIN_SCORE

    def closest(self, n: int) -> list[str]:
        """The `n` best topics that can be answered (never UNKNOWN itself)."""
        return [t for t, _ in self.ranked if t != UNKNOWN][:n]


def normalise(text: str) -> list[str]:
    """Lower-case words; apostrophes dropped ("isn't" -> "isnt"), every digit read as 0."""
    text = _APOSTROPHE.sub("", text.lower())
    text = _DIGIT.sub("0", text)
    return _NON_WORD.sub(" ", text).split()


def features(text: str) -> Counter[str]:
    words = normalise(text)
    out: Counter[str] = Counter()
    for w in words:
        out["w:" + w] += 1
        padded = f" {w} "
        for n in NGRAMS:
            for i in range(len(padded) - n + 1):
                out["c:" + padded[i : i + n]] += 1
    for a, b in pairwise(words):
        out[f"b:{a} {b}"] += 1
    return out


_WEIGHTS.update({"c:": CHAR_WEIGHT})


class Recognizer:
    """Fitted once on (topic, example) pairs; `recognise` is pure and thread-safe."""

    def __init__(self, examples: list[tuple[str, str]]) -> None:
        unknown_topics = sorted({t for t, _ in examples} - set(BY_NAME) - {UNKNOWN})
        if unknown_topics:
            raise ValueError(f"examples name topics that do not exist: {', '.join(unknown_topics)}")
        docs = [features(q) for _, q in examples]
        df: Counter[str] = Counter()
        for d in docs:
            df.update(d.keys())
        n = len(docs)
        self._idf = {f: math.log((1 + n) / (1 + c)) + 1 for f, c in df.items()}
        self._vectors = [(topic, self._vector(d)) for (topic, _), d in zip(examples, docs, strict=True)]

    def _vector(self, counts: Counter[str]) -> dict[str, float]:
        # Unseen features get the highest idf: a rare word in a question is still a word.
        top = max(self._idf.values(), default=1.0)
        vec = {}
        for f, c in counts.items():
            weight = _WEIGHTS.get(f[:2], 1.0)
            vec[f] = weight * (1 + math.log(c)) * self._idf.get(f, top)
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {f: v / norm for f, v in vec.items()}

    def recognise(self, question: str) -> Recognition:
        q = self._vector(features(question))
        sims: dict[str, list[float]] = {}
        for topic, vec in self._vectors:
            small, large = (q, vec) if len(q) < len(vec) else (vec, q)
            sims.setdefault(topic, []).append(sum(v * large.get(f, 0.0) for f, v in small.items()))
        scores = {}
        for topic, values in sims.items():
            best = sorted(values, reverse=True)[:NEIGHBOURS]
            scores[topic] = sum(best) / len(best)
        ranked = tuple(sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])))
        topic, score = ranked[0] if ranked else (UNKNOWN, 0.0)
        if score < MIN_SCORE:
            topic = UNKNOWN
        return Recognition(topic, score, ranked)


def load_examples(path: Path = EXAMPLES) -> list[tuple[str, str]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must map each topic to a list of example questions")
    return [(topic, str(q)) for topic, questions in data.items() for q in questions]


@cache
def default_recognizer() -> Recognizer:
    return Recognizer(load_examples())


def recognise(question: str) -> Recognition:
    """The topic of `question` by the shipped examples."""
    return default_recognizer().recognise(question)
