"""The shared matcher: raw log text in, `Diagnosis` out. Pure: no Slack, no Redis, no masking.

It reads the raw log, so a rule may read a real address or path; what leaves the process is
masked afterwards, at the egress (`bot.service.mask_diagnosis`). The CLI and the Slack bot both
come here.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from bot.matcher.engine import Matcher
from bot.matcher.model import Collateral, Diagnosis, Evidence, Match, Stats
from bot.matcher.rulebook import Rule, Rulebook, RuleError, default_rules_dir, load_rulebook

__all__ = [
    "Collateral",
    "Diagnosis",
    "Evidence",
    "Match",
    "Matcher",
    "Rule",
    "RuleError",
    "Rulebook",
    "Stats",
    "default_matcher",
    "load_rulebook",
]


@lru_cache(maxsize=4)
def _matcher_for(rules_dir: Path) -> Matcher:
    return Matcher(load_rulebook(rules_dir))


def default_matcher(rules_dir: Path | None = None) -> Matcher:
    """The matcher over `rules/` (or `$DENPEX_RULES_DIR`), built once per process."""
    return _matcher_for((rules_dir or default_rules_dir()).resolve())
