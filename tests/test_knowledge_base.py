"""The knowledge base as a whole: lint, every rule's own examples, taxonomy coverage, healthy logs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.matcher import Matcher, default_matcher, load_rulebook
from bot.matcher.selftest import check_example

ROOT = Path(__file__).resolve().parents[1]
HEALTHY = sorted((ROOT / "tests" / "data" / "healthy").glob("*.log"))
PART_1 = {"network", "distributed", "hardware", "scheduler"}
PART_1_EXTRA = {"host-oom-sigkill", "k8s-oomkilled"}


def taxonomy() -> list[dict]:
    """The shared taxonomy beside the checkout when present, else the committed copy."""
    shared = ROOT.parent / "shared" / "taxonomy.yaml"
    path = shared if shared.exists() else ROOT / "tests" / "data" / "taxonomy.yaml"
    return yaml.safe_load(path.read_text())["classes"]


BOOK = load_rulebook(ROOT / "rules")
MATCHER = Matcher(BOOK)
NAIVE = Matcher(BOOK, prefilter=False)


def test_rules_lint_clean():
    """Every rule file loads and validates (schema, regexes, references)."""
    assert len(BOOK) >= 1


@pytest.mark.parametrize("part", ["part1", "part2"])
def test_every_taxonomy_id_has_a_rule(part):
    """Each class of the taxonomy has its rule file, in its category folder."""
    wanted = []
    for c in taxonomy():
        in_part1 = c["category"] in PART_1 or c["id"] in PART_1_EXTRA
        if (part == "part1") == in_part1:
            wanted.append(c)
    missing = [c["id"] for c in wanted if BOOK.get(c["id"]) is None]
    assert not missing, f"no rule for {missing}"
    wrong = [c["id"] for c in wanted if BOOK.get(c["id"]).category != c["category"]]
    assert not wrong, f"category differs from the taxonomy for {wrong}"


CASES = [(r, ex, "match") for r in BOOK for ex in r.examples] + [
    (r, ex, "near_miss") for r in BOOK for ex in r.near_misses
]


@pytest.mark.parametrize(
    ("rule", "example", "kind"), CASES, ids=[f"{r.id}:{k}:{e.name[:40]}" for r, e, k in CASES]
)
def test_rule_example(rule, example, kind):
    """A positive example diagnoses as its rule; a near-miss never produces it."""
    result = check_example(MATCHER, NAIVE, rule, example, kind)
    assert result.ok, result.problem


@pytest.mark.parametrize("path", HEALTHY, ids=[p.name for p in HEALTHY])
def test_healthy_log_gives_no_diagnosis(path):
    """A noisy but healthy run yields no match at all."""
    d = default_matcher(ROOT / "rules").diagnose(path.read_text(encoding="utf-8"))
    assert [m.id for m in d.matches] == []


def test_there_are_enough_healthy_logs():
    """The healthy corpus covers the stacks (at least 10 logs)."""
    assert len(HEALTHY) >= 10
