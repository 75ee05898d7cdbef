"""Logs of twenty families written apart from the masker (tests/data/masking/families.py):
every planted secret and personal value is gone, every must-survive text is kept, read the
way `denpex mask` reads a log (learned whole first, then masked)."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from bot.masking import Masker

sys.path.insert(0, str(Path(__file__).parents[1] / "data" / "masking"))
import families

# Sorted names: the same ids in every process (pytest-xdist).
FAMILY_NAMES = sorted(families.FAMILIES)
SEEDS = (1, 7, 42)


def _log(name: str, seed: int) -> tuple[str, families.P]:
    persona = families.P(random.Random(f"{seed}-{name}"))
    return "\n".join(families.FAMILIES[name](persona)) + "\n", persona


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_family_is_masked_and_keeps_its_facts(name: str) -> None:
    for seed in SEEDS:
        text, persona = _log(name, seed)
        masker = Masker()
        masker.learn(text.encode())
        masked = masker.mask(text)
        assert masked.count("\n") == text.count("\n")
        leaked = [
            (kind, value)
            for kind, value in set(persona.planted)
            if re.search(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])", masked)
        ]
        assert not leaked, (seed, leaked)
        lost = [s for s in persona.survive if s not in masked]
        assert not lost, (seed, lost)
