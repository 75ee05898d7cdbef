"""Ranked search over every entry's text, for questions the diagnosed entry does not cover
("what does vendor err 129 mean?").

BM25 over each entry's title, summary, root cause, mechanism, symptoms (line and meaning),
fix, confirmation checklist, answers and false positives. The question's own framing words
("what does ... mean") are dropped first, so the terms left are the ones to look up.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from bot.matcher.rulebook import Rule, Rulebook

K1 = 1.2
B = 0.75
_TOKEN = re.compile(r"[a-z0-9_]+(?:[.-][a-z0-9_]+)*")
# The framing of a question, not what it asks about. The second line: words of ordinary
# English that few entries happen to hold, so BM25 weighs them high ("what now?" would name
# whatever entry says "now").
_FRAMING = frozenset(
    ["a", "an", "the", "is", "it", "its", "this", "that", "what", "whats", "does", "do", "did", "mean", "means", "meaning", "which", "who", "how", "why", "when", "where", "you", "your", "we", "our", "i", "me", "my", "of", "in", "on", "at", "to", "for", "and", "or", "about", "any", "entry", "entries", "kb", "knowledge", "base", "search", "look", "up", "find", "know", "there", "have", "has", "tell", "explain", "error",
     "so", "now", "then", "should", "could", "would", "can", "will", "be", "been", "was", "were", "are", "am", "if", "but", "not", "no", "yes", "with", "from", "by", "as", "just", "also", "still", "next", "get", "got", "help", "idea", "ideas", "please", "thanks", "thank", "ok", "okay", "some", "something", "anything", "else", "happen", "happened", "happening", "here", "going", "try", "tried", "need", "want", "again", "same", "sure", "think", "maybe", "really", "hi", "hey"]
)


@dataclass(frozen=True)
class KbHit:
    rule: Rule
    score: float
    terms: tuple[str, ...]  # the question's terms this entry contains


def terms(text: str) -> list[str]:
    """Words of `text` without framing; an identifier also counts as its parts
    (`nccl_socket_ifname` is `nccl`, `socket`, `ifname` too, as an entry's id spells them)."""
    out = []
    for t in _TOKEN.findall(text.lower().replace("'", "").replace("’", "")):
        if t in _FRAMING:
            continue
        out.append(t)
        parts = [p for p in re.split(r"[_.-]", t) if p and p not in _FRAMING]
        if len(parts) > 1:
            out += parts
    return out


def _entry_text(rule: Rule) -> str:
    # The id and title twice: an entry named for the term is about it, not one that mentions it.
    parts = [rule.id.replace("-", " "), rule.title] * 2 + [rule.summary, rule.root_cause, rule.mechanism,
             rule.fix.summary, *rule.fix.steps, *rule.fix.env, *rule.confirm, *rule.answers.values(),
             *rule.falsepositives, *rule.tags]
    parts += [f"{s.line} {s.means}" for s in rule.symptoms]
    return "\n".join(parts)


class KbIndex:
    """BM25 over the rulebook's entries, built once."""

    def __init__(self, book: Rulebook) -> None:
        self._rules = list(book)
        self._docs = [Counter(terms(_entry_text(r))) for r in self._rules]
        self._lengths = [sum(d.values()) for d in self._docs]
        self._avg = sum(self._lengths) / max(1, len(self._lengths))
        df: Counter[str] = Counter()
        for d in self._docs:
            df.update(d.keys())
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self._titles = {r.id: set(terms(r.title)) for r in self._rules}
        title_df: Counter[str] = Counter(t for words in self._titles.values() for t in words)
        # A title word few entries share names its entry ("ChildFailedError", "Xid").
        self.naming_words = {r.id: {t for t in self._titles[r.id] if title_df[t] <= 2} for r in self._rules}

    def search(self, question: str, limit: int = 3) -> list[KbHit]:
        """Entries best first; an entry must contain at least one of the question's terms."""
        wanted = list(dict.fromkeys(terms(question)))
        hits = []
        for rule, doc, length in zip(self._rules, self._docs, self._lengths, strict=True):
            score, found = 0.0, []
            for t in wanted:
                tf = doc.get(t, 0)
                if not tf:
                    continue
                found.append(t)
                score += self._idf[t] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / self._avg))
            if found:
                hits.append(KbHit(rule, score, tuple(found)))
        hits.sort(key=lambda h: (-h.score, h.rule.id))
        return hits[:limit]


def named_entries(kb: KbIndex, question: str, limit: int = 8) -> list[Rule]:
    """Entries the question names: by at least half of their id's words ("the watchdog
    timeout" names `nccl-watchdog-timeout`) or by a word of their title that few others have
    ("ChildFailedError"); the best named first."""
    asked = set(terms(question))
    scored = []
    for rank, hit in enumerate(kb.search(question, limit)):
        words = hit.rule.id.split("-")
        cover = len(asked.intersection(words)) / len(words)
        if asked & kb.naming_words[hit.rule.id]:
            cover = max(cover, 1.0)
        if cover >= 0.5:
            scored.append((-cover, rank, hit.rule))
    return [rule for _, _, rule in sorted(scored, key=lambda x: (x[0], x[1]))]
