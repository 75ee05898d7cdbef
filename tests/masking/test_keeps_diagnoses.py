"""Masking keeps logs diagnosable: every rule's examples diagnose the same after masking."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.masking import mask
from bot.matcher import Matcher, load_rulebook

ROOT = Path(__file__).resolve().parents[2]
BOOK = load_rulebook(ROOT / "rules")
MATCHER = Matcher(BOOK)
EXAMPLES = [(r, ex) for r in BOOK for ex in r.examples]
HEALTHY = sorted((ROOT / "tests" / "data" / "healthy").glob("*.log"))


@pytest.mark.parametrize(("rule", "example"), EXAMPLES, ids=[f"{r.id}:{e.name[:40]}" for r, e in EXAMPLES])
def test_example_diagnoses_the_same_after_masking(rule, example):
    """Root cause, initiating rank and line count survive masking."""
    before = MATCHER.diagnose(example.log)
    masked = mask(example.log).text
    after = MATCHER.diagnose(masked)
    assert masked.count("\n") == example.log.count("\n")
    assert [m.id for m in after.matches][:1] == [rule.id]
    assert after.initiating_rank == before.initiating_rank


@pytest.mark.parametrize("path", HEALTHY, ids=[p.name for p in HEALTHY])
def test_healthy_log_stays_healthy_after_masking(path):
    """Placeholders never make a healthy log look like a failure."""
    assert MATCHER.diagnose(mask(path.read_text()).text).matches == []
