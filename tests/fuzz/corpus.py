"""Logs to fuzz around: every rule example and near-miss, the samples and the healthy logs; and
the part of a diagnosis a user sees, for comparing two diagnoses."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, settings

from bot.matcher import Diagnosis, default_matcher
from bot.service import Denpex

ROOT = Path(__file__).resolve().parents[2]
# DENPEX_FUZZ_SCALE=20 runs every property twenty times as long (a deeper search, by hand or nightly).
SCALE = float(os.environ.get("DENPEX_FUZZ_SCALE") or 1)


def fuzz(max_examples: int) -> settings:
    """Hypothesis settings for these tests: no deadline (a loaded CI box), examples scaled."""
    return settings(max_examples=max(1, int(max_examples * SCALE)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@cache
def denpex() -> Denpex:
    return Denpex(default_matcher())


@cache
def corpus() -> tuple[tuple[str, str], ...]:
    """(name, log) for every example log the repository holds."""
    logs: list[tuple[str, str]] = []
    for rule in denpex().rulebook:
        logs += [(f"{rule.id}/match/{i}", e.log) for i, e in enumerate(rule.examples)]
        logs += [(f"{rule.id}/near-miss/{i}", e.log) for i, e in enumerate(rule.near_misses)]
    for folder in ("samples", "healthy"):
        logs += [(f"{folder}/{p.name}", p.read_text()) for p in sorted((ROOT / "tests" / "data" / folder).glob("*.log"))]
    return tuple(logs)


def verdict(d: Diagnosis) -> tuple:
    """Everything a reply shows: entries, roles, confidence, ranks, evidence, collateral, unmatched."""
    return (
        [(m.id, m.role, m.confidence, round(m.score, 6), tuple(m.ranks),
          tuple((e.line, e.rank, e.text) for e in m.evidence)) for m in d.matches],
        d.initiating_rank,
        [(c.id, tuple(c.ranks)) for c in d.collateral],
        d.unmatched,
    )  # fmt: skip
