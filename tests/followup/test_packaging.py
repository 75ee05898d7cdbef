"""The recogniser's examples ship with the installed package, not only in a source checkout."""

from __future__ import annotations

import tomllib
from pathlib import Path

from bot.followup.recognizer import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_ships_the_followup_package_and_its_examples():
    """`bot.followup` is a listed package and examples.yaml is its package data (the wheel has no other copy)."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "bot.followup" in tool["packages"]
    assert EXAMPLES.name in tool["package-data"]["bot.followup"]
    assert EXAMPLES.parent == ROOT / "bot" / "followup"
