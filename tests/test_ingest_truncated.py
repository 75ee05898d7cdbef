"""A truncated .gz is diagnosed from what it holds, and says that the log ended early."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.ingest import ReadStatus, read_log

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log"
LOG = b"".join(b"[rank0]:step %d loss 1.0\n" % i for i in range(5000)) + b"[rank3]:torch.OutOfMemoryError: CUDA out of memory.\n"


def _read(data: bytes, piece: int | None = None) -> tuple[bytes, bool]:
    status = ReadStatus()
    chunks = [data] if piece is None else [data[i : i + piece] for i in range(0, len(data), piece)]
    return b"".join(read_log(chunks, status=status)), status.truncated


@pytest.mark.parametrize("piece", [None, 7, 4096])
def test_whole_gzip_and_concatenated_members_are_not_truncated(piece):
    gz = gzip.compress(LOG)
    assert _read(gz, piece) == (LOG, False)
    assert _read(gz + gz, piece) == (LOG + LOG, False)


@pytest.mark.parametrize("piece", [None, 7, 4096])
def test_a_cut_gzip_yields_what_it_holds_and_says_so(piece):
    gz = gzip.compress(LOG)
    text, truncated = _read(gz[: len(gz) // 2], piece)
    assert truncated and 0 < len(text) < len(LOG) and LOG.startswith(text)
    # A second member cut short counts too.
    text, truncated = _read(gz + gz[:40], piece)
    assert truncated and text.startswith(LOG)


def test_plain_text_is_never_truncated():
    assert _read(LOG) == (LOG, False)


def _denpex(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=ROOT, capture_output=True, timeout=120)


def test_cli_diagnoses_a_cut_gz_and_prints_the_notice(tmp_path):
    gz = gzip.compress(SAMPLE.read_bytes())
    cut = tmp_path / "train.log.gz"
    cut.write_bytes(gz[: len(gz) * 2 // 3])
    out = _denpex("diagnose", str(cut), "--format", "json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["stats"]["truncated"] is True and d["matches"][0]["id"] == "cuda-oom"
    assert "the log ends early" in _denpex("diagnose", str(cut)).stdout.decode()
    whole = tmp_path / "whole.log.gz"
    whole.write_bytes(gz)
    assert json.loads(_denpex("diagnose", str(whole), "--format", "json").stdout)["stats"]["truncated"] is False
    assert "ends early" not in _denpex("diagnose", str(whole)).stdout.decode()


def test_the_service_reports_a_cut_upload_as_the_bot_reads_it():
    """What Slack uploads go through (Denpex.diagnose_stream): a cut .gz gives stats.truncated,
    a whole one does not."""
    from bot.service import Denpex

    gz = gzip.compress(SAMPLE.read_bytes())
    app = Denpex()
    assert app.diagnose_stream([gz]).diagnosis.stats.truncated is False
    cut = app.diagnose_stream([gz[: len(gz) * 3 // 4]]).diagnosis
    assert cut.stats.truncated is True
    assert cut.to_dict()["stats"]["truncated"] is True
