"""The benchmark script keeps working: generator and runner at a tiny size (no timing asserts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_runs_at_a_tiny_size(tmp_path):
    results = tmp_path / "RESULTS.md"
    proc = subprocess.run(
        [
            sys.executable, str(ROOT / "bench" / "bench_matcher.py"),
            "--sizes", "0.2", "--budget", "2", "--mask-budget", "30", "--paste-runs", "2",
            "--scale-rules", "150", "--tmp", str(tmp_path), "--results", str(results),
        ],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = results.read_text()
    for section in ("## Machine", "## Throughput and memory", "## Rules scaling", "## 5,000-line paste"):
        assert section in text
    assert "root cuda-oom rank" in text, text
    assert "DIFFERENT" not in text
    assert "failed:" not in proc.stdout, proc.stdout[-3000:]  # every mode's child ran to the end
    assert "NCCL prefix split by the C scanner" in text
    assert not list(tmp_path.glob("denpex-bench-*")), "generated logs are deleted"


def test_generator_buries_the_failure_deep(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import loggen
    finally:
        sys.path.remove(str(ROOT / "bench"))
    path = tmp_path / "log.log"
    meta = loggen.generate_file(str(path), 200_000)
    data = path.read_bytes()
    assert len(data) == meta["bytes"] and 150_000 < len(data) < 400_000
    oom = data.find(b"OutOfMemoryError")
    assert oom > len(data) // 2, "the failure sits past the middle, under the chatter"
    assert data.count(b"NCCL INFO") > data.count(b"\n") // 2
    assert data.count(b"Watchdog caught") >= 8
