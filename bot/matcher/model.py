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


# How the verdict (bot/matcher/verdict.py) tells the initiating rank, one per way it decides.
RANK_BASES = (
    "root_only_rank",  # the root cause's lines come from one rank only
    "root_first_timestamp",  # of several ranks with the root cause, the earliest by timestamp
    "elastic_first_failure",  # torchelastic's "Root Cause (first observed failure)" rank
    "root_first_line",  # of several ranks with the root cause, the first in the log
    "ray_pid",  # Ray Train's process-group line gave the actor's pid that rank
    "nccl_init_pid",  # NCCL's init line gave the `host:pid` that rank
    "spawn_process",  # torch.multiprocessing.spawn's `-- Process N terminated`
    "silent_rank",  # the one rank missing from an otherwise complete set of timeouts
    "launcher_first_failure",  # the first worker a launcher reports failed (agent, `--local_rank=N`)
    "gpu_index",  # the device index of a CUDA OOM, one process per GPU
    "first_own_error",  # the first rank with its own traceback (not a launcher's)
    "first_error_line",  # the rank of the first error line quoted
    "lowest_seq",  # the rank behind the others in collective sequence numbers
    "only_rank_seen",  # the cause's lines carry no rank; the rest of the excerpt shows one rank only
)
RANK_OFFSETS = ("host_offset", "node_offset")


@dataclass(frozen=True)
class Diagnosis:
    """The answer for one log. `matches[0]` is the root cause; an empty list means healthy."""

    matches: list[Match]
    initiating_rank: int | None
    collateral: list[Collateral]
    unmatched: str | None
    stats: Stats
    # Why `initiating_rank` is that rank, machine-readable (None when it is None), one of
    # RANK_BASES, with `+host_offset` / `+node_offset` when the rank was read as a local one
    # and made global with its host's (pdsh) or node's first global rank.
    rank_basis: str | None = None

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
            "rank_basis": self.rank_basis,
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
