"""A login-node install has no Slack, Redis, waitress or cryptography: the CLI works without them,
and the commands that need them say which extra to install, in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log"

# Run the CLI as if the slack extra were not installed: a None in sys.modules makes both
# `import x` and importlib.util.find_spec("x") fail, like a missing package.
WITHOUT_SLACK = """
import sys
for name in ("slack_bolt", "slack_sdk", "redis", "waitress", "cryptography"):
    sys.modules[name] = None
from bot.cli import main
code = main(sys.argv[1:])
loaded = sorted(m for m in ("slack_bolt", "slack_sdk", "redis", "waitress", "cryptography") if sys.modules.get(m))
print("LOADED", loaded, file=sys.stderr)
sys.exit(code)
"""


def run_without_slack(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_SLACK, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


def test_diagnose_lookup_and_show_need_no_slack_extra():
    out = run_without_slack("diagnose", str(SAMPLE), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["matches"][0]["id"] == "cuda-oom"
    assert run_without_slack("lookup", "CUDA out of memory").returncode == 0
    assert run_without_slack("show", "cuda-oom").returncode == 0


def test_serve_codes_and_stats_name_the_missing_extra_in_one_line():
    for args in (("serve",), ("codes", "create", "--plan", "scale", "--days", "14"), ("stats", "feedback")):
        out = run_without_slack(*args)
        err = [line for line in out.stderr.splitlines() if not line.startswith("LOADED")]
        assert out.returncode == 2, out.stderr
        assert len(err) == 1 and "pip install 'denpex[slack]'" in err[0] and "redis" in err[0], err


def test_paid_plans_of_the_parser_follow_the_store():
    from bot.cli.codes import PAID_PLANS
    from bot.store import Plan

    assert set(PAID_PLANS) == {p.value for p in Plan if p is not Plan.FREE}
