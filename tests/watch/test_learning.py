"""What `denpex watch` learns while a job runs: every piece is learned as it passes
(`Masker.learn`), so a name taught anywhere in the log reaches a later alert masked. (A
faster watch that learned prefix hosts only from the log's head and its recent output was
tried and declined: this test is the leak it had.) No processes; no timing asserted."""

from __future__ import annotations

import pytest

from bot.service import Denpex

OOM = (b"[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 5 has a total capacity "
       b"of 79.15 GiB of which 2.87 GiB is free.")
HEALTHY = b"".join(b"[rank%d]:{'loss': 1.%d, 'grad_norm': 0.5, 'learning_rate': 3e-05, 'epoch': 0.01}\n" % (r % 8, r)
                   for r in range(200))
NCCL = (b"sakura:1234:1300 [5] NCCL INFO Channel 00/0 : 5[5] -> 6[6] via P2P/IPC\n"
        b"sakura:1234:1300 [5] NCCL INFO comm 0x55d0c0a0 rank 5 nranks 8 cudaDev 5 busId 9c000 - Init COMPLETE\n")


@pytest.fixture(scope="module")
def app() -> Denpex:
    return Denpex()


def test_a_host_named_only_mid_log_is_masked_in_a_late_alert(app: Denpex) -> None:
    """`sakura` is a host only through its NCCL prefixes (no detector masks it bare), named
    after the log's first pieces and long before the failure: the alert quoting it bare has
    it masked."""
    live = app.live()
    for piece in [HEALTHY, HEALTHY, NCCL, *[HEALTHY] * 6, OOM + b" Saving to ckpt-sakura-7 first\n"]:
        live.feed(piece)
    outcome = live.interim()
    assert outcome.report.root is not None and outcome.report.root.id == "cuda-oom"
    quoted = " ".join(e.text for e in outcome.diagnosis.root.evidence) if outcome.diagnosis.root else ""
    assert "sakura" not in quoted and "<HOST-1>" in quoted
