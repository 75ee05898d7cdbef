"""`denpex watch FILE...`: growing files followed through rotation and truncation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bot.service import Denpex
from bot.watch.child import StderrGate
from bot.watch.follow import Follower
from bot.watch.session import WatchSession
from tests.slack.conftest import ROOT

OOM = (b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 3 has a total capacity of "
       b"79.15 GiB of which 2.87 GiB is free.\n")
TIMEOUT = (b"[E1104 10:12:14.118204 3301 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
           b"timeout: WorkNCCL(SeqNum=2411, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
           b"600041 milliseconds before timing out.\n")


def _session() -> tuple[WatchSession, list[str]]:
    said: list[str] = []
    return WatchSession(Denpex(), "job-follow", said.append), said


def _follower(targets: list[str], session: WatchSession) -> Follower:
    follower = Follower(targets, session, StderrGate(os.open(os.devnull, os.O_WRONLY)))
    follower._rescanned = -1e9  # look for files at once
    return follower


def test_rotated_file_is_read_to_its_end_then_the_new_one(tmp_path: Path) -> None:
    """logrotate renames the log and a new one starts: the old tail and the new file both count."""
    log = tmp_path / "rank_3.log"
    log.write_bytes(b"step 1\n")
    session, said = _session()
    follower = _follower([str(log)], session)
    assert follower.poll() == 7
    with log.open("ab") as f:
        f.write(b"step 2\n")
    log.rename(tmp_path / "rank_3.log.1")
    log.write_bytes(OOM)
    follower.poll()
    outcome = session.end(None)
    assert outcome is not None and outcome.diagnosis.root is not None
    assert outcome.diagnosis.root.id == "cuda-oom"
    assert outcome.diagnosis.initiating_rank == 3  # from the file name
    assert outcome.diagnosis.stats.lines == 3
    assert any("ALERT: CUDA Out of Memory" in s for s in said)


def test_truncated_file_is_read_again_from_its_start(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_bytes(b"a long first run of the job\n" * 20)
    session, _ = _session()
    follower = _follower([str(log)], session)
    follower.poll()
    log.write_bytes(b"[rank2]: " + OOM)  # `> train.log` and a new run: shorter than before
    follower.poll()
    outcome = session.end(None)
    assert outcome is not None and outcome.diagnosis.root.id == "cuda-oom"
    assert outcome.diagnosis.initiating_rank == 2


def test_a_folder_gains_per_rank_logs_while_watched(tmp_path: Path) -> None:
    """Files a job creates later in a watched folder are followed too, each with its rank."""
    (tmp_path / "rank_0.log").write_bytes(b"starting\n")
    session, _ = _session()
    follower = _follower([str(tmp_path)], session)
    follower.poll()
    (tmp_path / "rank_1.log").write_bytes(b"[E1104 10:12:14.118204 3301 ProcessGroupNCCL.cpp:616] " + OOM)
    follower._rescanned = -1e9
    follower.poll()
    outcome = session.end(None)
    assert sorted(follower.files) == [str(tmp_path / "rank_0.log"), str(tmp_path / "rank_1.log")]
    assert outcome is not None and outcome.diagnosis.initiating_rank == 1


def test_watch_files_from_the_command_line(tmp_path: Path) -> None:
    """The CLI follows a folder of per-rank logs and stops after the idle time it was given."""
    (tmp_path / "rank_3.log").write_bytes(b"[rank3]: " + OOM)
    (tmp_path / "rank_0.log").write_bytes(b"[rank0]:" + TIMEOUT)
    p = subprocess.run([sys.executable, "-m", "bot", "watch", "--exit-after-idle", "0.5", str(tmp_path)],
                       cwd=ROOT, capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert b"ALERT: CUDA Out of Memory" in p.stderr and b"initiating rank 3" in p.stderr


def test_a_missing_file_is_waited_for_and_said_so(tmp_path: Path) -> None:
    missing = tmp_path / "later.log"
    p = subprocess.run([sys.executable, "-m", "bot", "watch", "--exit-after-idle", "0.3", str(missing)],
                       cwd=ROOT, capture_output=True, timeout=60)
    assert p.returncode == 0
    assert f"{missing} does not exist yet; waiting for it".encode() in p.stderr


def test_an_old_backlog_counts_the_watchdog_from_when_it_was_written(tmp_path: Path) -> None:
    """A log last written 5 minutes ago: its ranks' 10-minute watchdog fires in ~5 minutes."""
    import time as clock

    log = tmp_path / "train.log"
    init = b"".join(b"[rank%d]:node01:33%d1:33%d5 [%d] NCCL INFO comm 0x55%d rank %d nranks 4 cudaDev %d nvmlDev %d "
                    b"busId 1b000 commId 0x8c3b61f2a1d00e17 - Init COMPLETE\n" % ((r,) * 8) for r in range(4))
    log.write_bytes(init + b"[rank2]: " + OOM)
    os.utime(log, (clock.time() - 300, clock.time() - 300))
    session, _ = _session()
    follower = _follower([str(log)], session)
    follower.poll()
    session.end(None)
    (alert,) = [a for a in session.sent if a.kind == "alert"]
    assert alert.countdown is not None and 290 <= alert.countdown.fires_in_s <= 305


def test_sigterm_stops_following_cleanly(tmp_path: Path) -> None:
    """Without --exit-after-idle watch follows until told to stop; SIGTERM ends it with code 0."""
    import signal

    log = tmp_path / "rank_3.log"
    log.write_bytes(OOM)
    p = subprocess.Popen([sys.executable, "-m", "bot", "watch", str(log)], cwd=ROOT, stderr=subprocess.PIPE)
    assert p.stderr is not None
    assert b"ALERT: CUDA Out of Memory" in p.stderr.readline()
    p.send_signal(signal.SIGTERM)
    _, rest = p.communicate(timeout=30)
    assert p.returncode == 0
    assert b"Traceback" not in rest
