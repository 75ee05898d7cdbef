"""The family benchmark keeps working: every family is generated as its name says, buries the
failure where it should, and `denpex diagnose` finds it (tiny sizes, no timing asserts)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "bench_families.py"

sys.path.insert(0, str(ROOT / "bench"))
try:
    import loggen
finally:
    sys.path.remove(str(ROOT / "bench"))


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    results = tmp_path / "RESULTS.md"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--tmp", str(tmp_path), "--results", str(results), *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert results.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc, results.read_text()


def test_every_family_is_diagnosed_as_the_buried_failure(tmp_path):
    # 400 KB a family: test_family_shape proves each family's structure at that size (one
    # failure past the middle under chatter, collateral on other ranks, secrets to mask).
    proc, text = _run(tmp_path, "--sizes", "0.4", "--check", "--paste-runs", "0")
    assert "WRONG" not in text and "DIFFER" not in text, proc.stdout[-3000:]
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ") and line.endswith("| cuda-oom / cuda-oom |")}
    assert set(rows) == set(loggen.FAMILIES), text
    assert "Every diagnosis named the buried failure" in text
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert not list(tmp_path.glob("denpex-bench-*")), "generated logs are deleted"


def test_every_mode_runs_and_reports(tmp_path):
    modes = "diagnose,mask,rg"
    proc, text = _run(tmp_path, "--sizes", "0.2", "--families", "c10d-retry", "--modes", modes, "--paste-runs", "1", "--startup-runs", "0")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    for section in ("## Machine", "## 0.2 MB per family", "Slowest family per mode", "## 5,000-line paste", "## Issue 15's targets", "## Answers"):
        assert section in text, section
    assert re.search(r"- diagnose: \*\*[\d.,]+ MB/s\*\* on `c10d-retry`", text), text
    assert re.search(r"- mask: \*\*[\d.,]+ MB/s\*\*", text), text
    assert "rg -F" in text  # a figure when ripgrep is installed, n/a (and said so) when not
    assert "DIFFER" not in text


@pytest.mark.parametrize("family", list(loggen.FAMILIES))
def test_family_shape(tmp_path, family):
    path = tmp_path / f"{family}.log"
    size = 400_000
    meta = loggen.generate_file(str(path), size, family)
    data = path.read_bytes()
    assert len(data) == meta["bytes"] and 0.8 * size < len(data) < 1.5 * size
    assert meta["lines"] == data.count(b"\n")
    oom = data.find(b"OutOfMemoryError: CUDA out of memory. Tried to allocate")
    assert data.count(b"OutOfMemoryError: CUDA out of memory") == 1, "one failure"
    assert 0.55 < oom / len(data) < 0.9, "the failure sits past the middle, under chatter"
    assert data.count(b"Watchdog caught collective operation timeout") >= 4, "collateral on other ranks"
    assert data.rfind(b"Watchdog caught") > oom
    lines = data.decode("utf-8").split("\n")[:-1]
    # Numbers, timestamps, ranks vary: not one repeated line. A warning flood and an env dump
    # repeat much of their text by nature (the same warning each step, the same variables on
    # every rank), so they vary less.
    distinct = {"py-warnings": 0.03, "env-dump": 0.2}.get(family, 0.5)
    assert len(set(lines)) > distinct * len(lines)
    assert b"hf_" in data and b"/home/alice/" in data, "secrets and a user name for masking to find"

    def share(pattern: str) -> float:
        rx = re.compile(pattern)
        return sum(1 for s in lines if rx.search(s)) / len(lines)

    if family == "torchrun":
        assert share(r"^\[rank\d+\]:") > 0.9 and share(r"NCCL INFO") > 0.5
    elif family == "nccl-native":
        assert share(r"^[\w-]+:\d+:\d+ \[\d\] NCCL INFO ") > 0.5 and share(r"^\[rank") == 0
    elif family == "srun-label":
        assert share(r"^ *\d+: ") > 0.95 and share(r"iteration +\d+/ +\d+ \| consumed samples") > 0.1
    elif family == "pdsh":
        assert share(r"^worker-\d+: ") > 0.95 and share(r"\[Rank 0\] step=\d+") > 0.1
    elif family == "k8s-json":
        entries = [json.loads(s) for s in lines]
        assert all(set(e) == {"log", "stream", "time"} for e in entries)
        assert "\\u003c" in data.decode() and any(not e["log"].endswith("\n") for e in entries), "Go escapes, 16 KiB partials"
    elif family == "c10d-retry":
        assert share(r"\[c10d\] The client socket has failed to connect to \[[\w:.]+\]:29500 \(errno: 99") > 0.8
    elif family == "py-warnings":
        assert share(r"\.py:\d+: (?:User|Future)Warning: ") > 0.3
    elif family == "tqdm":
        assert max(s.count("\r") for s in lines) > 100 and re.search(r"(?:it/s|s/it), v_num=7, train_loss=[\d.]+\]Traceback", data.decode())
    elif family == "iterations":
        assert share(r"iteration +\d+/ +\d+ \|") > 0.1 and share(r"^\{'loss': ") > 0.05
    elif family == "env-dump":
        head = lines[: len(lines) // 3]
        assert sum(1 for s in head if re.match(r"^[A-Z_]+=", s)) > 0.5 * len(head)
    elif family == "s3-debug":
        ids = re.findall(r"'x-amz-id-2': '([A-Za-z0-9+/]{75}=)', 'x-amz-request-id': '[0-9A-F]{16}'", data.decode())
        assert share(r" - botocore\.parsers - DEBUG - Response headers: \{") > 0.2 and len(set(ids)) == len(ids) > 100
        assert share(r"^Loading cached processed dataset at /home/alice/\.cache/huggingface/datasets/") > 0.005
    elif family == "vllm-serve":
        ids = re.findall(r"Received request (chatcmpl-[0-9a-f]{32}): prompt: ", data.decode())
        assert share(r"^\(APIServer pid=\d+\) INFO[ :]") > 0.8 and len(set(ids)) == len(ids) > 100
        assert share(r'INFO:     [\d.]+:\d+ - "POST /v1/chat/completions HTTP/1\.1" 200 OK$') > 0.2



def test_the_matcher_benchmark_runs_on_public_api_and_reports(tmp_path):
    """bench_matcher.py (timed through bench/timing.py, the matcher read through its public API)
    still runs end to end on a tiny log and writes every section of its report."""
    results = tmp_path / "MATCHER.md"
    proc = subprocess.run(
        # The generator's smallest log (0.05 asks for less than its ~77 KB floor): the naive mode
        # reads all of it within its budget, so the prefilter-vs-naive comparison runs too.
        [sys.executable, str(ROOT / "bench" / "bench_matcher.py"), "--sizes", "0.05", "--repeat", "1", "--paste-runs", "1",
         "--no-rg", "--scale-rules", "0", "--tmp", str(tmp_path), "--results", str(results)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    text = results.read_text()
    for section in ("## Machine", "## Throughput and memory", "## 5,000-line paste", "## Lines the prefilter passed on"):
        assert section in text, section
    # Conditions are named by Matcher.condition_label, `rule/signature`, with their line counts
    # (which ones top the table depends on the rules and the generated log).
    assert re.search(r"^\| [a-z0-9-]+/[a-z0-9-]+ \| \d+ \|$", text, re.M), text[-1500:]
