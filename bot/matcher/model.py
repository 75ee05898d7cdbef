"""Values the matcher hands out: the diagnosis contract of DESIGN.md as dataclasses."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Confidence = Literal["high", "medium", "low"]
Role = Literal["root", "collateral"]


@dataclass(frozen=True)
class Evidence:
    """One log line that a signature matched (already masked when the caller masked)."""

    line: int  # 1-based line number in the log
    rank: int | None
    text: str
    host: str | None = None
    timestamp: str | None = None


@dataclass(frozen=True)
class Match:
    """One rule that fired, with what it fired on."""

    id: str
    title: str
    category: str
    confidence: Confidence
    score: float
    role: Role
    ranks: list[int]
    evidence: list[Evidence]
    signatures: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Collateral:
    id: str
    ranks: list[int]


@dataclass(frozen=True)
class Stats:
    bytes: int
    lines: int
    elapsed_ms: int
    # Lines on which a regex ran out of time: reported, never hung on.
    regex_timeouts: int = 0
    # The input ended early (a .gz cut off before its end): the failure may be in the lost tail.
    # The matcher never knows this itself; whoever read the input sets it (`bot.ingest.ReadStatus`).
    truncated: bool = False


@dataclass(frozen=True)
class Diagnosis:
    """The answer for one log. `matches[0]` is the root cause; an empty list means healthy."""

    matches: list[Match]
    initiating_rank: int | None
    collateral: list[Collateral]
    unmatched: str | None
    stats: Stats

    @property
    def root(self) -> Match | None:
        return self.matches[0] if self.matches else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of DESIGN.md (`denpex diagnose --format json`)."""
        matches = []
        for m in self.matches:
            matches.append(
                {
                    "id": m.id,
                    "title": m.title,
                    "category": m.category,
                    "confidence": m.confidence,
                    "score": round(m.score, 3),
                    "role": m.role,
                    "ranks": m.ranks,
                    "evidence": [
                        {"line": e.line, "rank": e.rank, "text": e.text} for e in m.evidence
                    ],
                }
            )
        return {
            "matches": matches,
            "initiating_rank": self.initiating_rank,
            "collateral": [asdict(c) for c in self.collateral],
            "unmatched": self.unmatched,
            "stats": {
                "bytes": self.stats.bytes,
                "lines": self.stats.lines,
                "elapsed_ms": self.stats.elapsed_ms,
                "regex_timeouts": self.stats.regex_timeouts,
                "truncated": self.stats.truncated,
            },
        }
