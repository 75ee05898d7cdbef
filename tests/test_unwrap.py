"""Hard-wrapped pastes (a terminal's copy, cut at its width) are joined back before the scan,
and logs whose own lines merely share a length are left as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import Denpex
from bot.unwrap import unwrap_terminal

ROOT = Path(__file__).resolve().parents[1]
THREADS = ROOT / "tests" / "data" / "threads"
WRAPPED = ROOT / "tests" / "data" / "wrapped" / "nccl-watchdog-timeout--om-ai-lab-VLM-R1-257.log"


@pytest.fixture(scope="module")
def app() -> Denpex:
    return Denpex()


def _root(app: Denpex, text: str) -> tuple[str | None, list[int]]:
    d = app.diagnose_text(text).diagnosis
    roots = [m for m in d.matches if m.role == "root"]
    return (roots[0].id, [e.line for e in roots[0].evidence]) if roots else (None, [])


def test_a_tmux_copy_cut_at_116_columns_is_read(app: Denpex) -> None:
    """om-ai-lab/VLM-R1#257: "ProcessGroupNCCL'" / "s watchdog got stuck", every piece 116
    wide and each line's last piece padded with spaces; unjoined, nothing in it matched."""
    raw = WRAPPED.read_bytes()
    joined = unwrap_terminal(raw)
    assert joined.count(b"\n") == raw.count(b"\n")
    first = joined.split(b"\n")[0]
    assert b"ProcessGroupNCCL's watchdog got stuck for 480 seconds" in first
    assert b"(TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC)" in first
    rule, lines = _root(app, WRAPPED.read_text(encoding="utf-8"))
    assert rule == "nccl-watchdog-timeout"
    assert lines == [1]  # the paste's own first line, where the wrapped message begins


@pytest.mark.parametrize(
    "name",
    [
        "cudnn-error--tensorflow-tensorflow-37606.log",  # cut at 100
        "deepspeed-zero3-rank-disagreement--hiyouga-LlamaFactory-4428.log",  # a rank hash cut in two
        "nccl-unhandled-error--PrimeIntellect-ai-prime-rl-1098.log",  # cut at 63, rank 18's timeout after it
    ],
)
def test_wrapped_excerpts_keep_their_cause_once_joined(app: Denpex, name: str) -> None:
    raw = (THREADS / name).read_bytes()
    assert unwrap_terminal(raw) != raw
    assert _root(app, raw.decode("utf-8"))[0] == name.split("--", 1)[0]


@pytest.mark.parametrize(
    "name",
    [
        "nccl-watchdog-timeout--aioz-ai-GCD-6.log",  # one watchdog line per rank, all 193 wide
        "xformers-no-operator--facebookresearch-xformers-971.log",  # a column-aligned table
        "unsloth-untrained-tokens--unslothai-unsloth-1024.log",  # rich's box drawing
        "k8s-node-memory-eviction--kubeflow-trainer-301.log",  # kubectl's padded columns
        "cuda-device-side-assert--milesial-Pytorch-UNet-375.log",  # the same assert per thread
    ],
)
def test_records_that_share_a_length_are_not_joined(name: str) -> None:
    raw = (THREADS / name).read_bytes()
    assert unwrap_terminal(raw) == raw


def test_a_crlf_copy_and_a_file_read_in_large_pieces_are_joined(app: Denpex) -> None:
    """The same paste with Windows line ends, and as the start of a file bigger than the part
    looked at (a file is read in pieces of a MB, more than MAX_UNWRAP_BYTES): both are read."""
    raw = WRAPPED.read_bytes()
    crlf = raw.replace(b"\n", b"\r\n")
    first = unwrap_terminal(crlf).split(b"\n")[0]
    assert b"ProcessGroupNCCL's watchdog got stuck for 480 seconds" in first, first[:200]
    assert _root(app, crlf.decode("utf-8"))[0] == "nccl-watchdog-timeout"
    filler = b"".join(b"{'loss': 1.%04d, 'learning_rate': 2e-05, 'epoch': 0.1}\n" % (i % 9999) for i in range(30_000))
    assert len(raw + filler) > 1_000_000
    outcome = app.diagnose_stream([raw + filler], mask=False)
    assert outcome.diagnosis.root is not None and outcome.diagnosis.root.id == "nccl-watchdog-timeout"
