"""README names every environment variable the code reads."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A quoted name that looks like one of ours, or a generic one read through os.environ / getenv.
OURS = re.compile(r"[\"']((?:DENPEX|SLACK|REDIS)_[A-Z0-9_]+)[\"']")
READ = re.compile(r"os\.(?:environ\.get|getenv)\(\s*[\"']([A-Z][A-Z0-9_]+)[\"']|os\.environ\[\s*[\"']([A-Z][A-Z0-9_]+)[\"']\s*\]")


def read_by_the_code() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        # Comments quote what logs show (`os.getenv("HF_TOKEN", ...)` in a traceback), not reads.
        text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
        names.update(OURS.findall(text))
        for a, b in READ.findall(text):
            names.add(a or b)
    return names


def test_every_environment_variable_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    names = read_by_the_code()
    assert {"DENPEX_RULES_DIR", "DENPEX_LOG_LEVEL", "DENPEX_REDIS_TIMEOUT_S", "NO_COLOR"} <= names
    missing = sorted(n for n in names if f"`{n}`" not in readme)
    assert missing == [], f"add these to README's environment table: {missing}"
