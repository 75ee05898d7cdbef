"""Real pasted logs where a second error line only reports what the root already names: cuBLAS
failing to get a handle after a CUDA OOM, Ray's memory monitor killing a task, the generic OOM line
under a fragmentation verdict. The root must stay the cause and the other entry be shown as collateral.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.matcher import default_matcher

ROOT = Path(__file__).resolve().parents[2]
MATCHER = default_matcher(ROOT / "rules")
THREADS = ROOT / "tests" / "data" / "threads"


@pytest.mark.parametrize(
    ("name", "collateral"),
    [
        ("cuda-oom--Mukosame-AODA-9.log", "cublas-error"),  # cuBLAS could not get a handle after the OOM
        ("host-oom-sigkill--real-stanford-flingbot-11.log", "ray-actor-died"),  # Ray's memory monitor killed it
        ("cuda-oom-fragmentation--Tianhao-Qi-Mask2DiT-4.log", "cuda-oom"),  # the OOM line itself
    ],
)
def test_the_message_that_reports_the_cause_is_collateral_not_root(name: str, collateral: str) -> None:
    d = MATCHER.diagnose((THREADS / name).read_text(encoding="utf-8"))
    assert d.root is not None and d.root.id == name.split("--", 1)[0], d.root
    assert collateral in [c.id for c in d.collateral], [c.id for c in d.collateral]
