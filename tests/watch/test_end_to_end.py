"""`denpex watch` on a real dying job, through the real bot over HTTP, into the Slack stand-in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.slack.conftest import ROOT, Bot
from tests.slack.fake_slack import FakeSlack

JOB = Path(__file__).with_name("multirank_job.py")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _blocks_text(params: dict) -> str:
    return str(params.get("text")) + " " + str(params.get("blocks"))


def test_alert_reaches_the_channel_before_the_job_dies(bot: Bot, fake_slack: FakeSlack, token: str, tmp_path: Path) -> None:
    """Rank 3's OOM is posted while the job still runs; the final alert updates that message."""
    go, pid_file = tmp_path / "go", tmp_path / "pid"
    env = {**bot.env, "DENPEX_ALERT_URL": bot.url, "DENPEX_ALERT_TOKEN": token, "DENPEX_JOB_ID": "job-e2e-1"}
    watch = subprocess.Popen(
        [sys.executable, "-m", "bot", "watch", "--", sys.executable, str(JOB), str(go), str(pid_file)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        posted = fake_slack.wait_for("chat.postMessage", timeout=15)[0]
        child = int(pid_file.read_text())
        assert _alive(child), "the alert came only after the job had died"
        text = _blocks_text(posted.params)
        assert "CUDA Out of Memory" in text and "cuda-oom" in text
        assert "rank 3" in text
        assert "ranks 0-2 are" in text and "Timeout(ms)=600000" in text and "stop the job now" in text
        assert posted.params["channel"] == "C0LOGS"
        go.touch()
        out, err = watch.communicate(timeout=30)
    finally:
        go.touch()
        if watch.poll() is None:
            watch.kill()
    assert watch.returncode == 1
    updated = fake_slack.wait_for("chat.update", timeout=10)[0]
    assert updated.params["ts"] == fake_slack.messages[0]["ts"]  # the alert's own message
    final = _blocks_text(updated.params)
    assert "Job failed" in final and "exit code 1" in final and "rank 3" in final
    # One message for the job: the final alert updated it, nothing was posted twice.
    assert len(fake_slack.of("chat.postMessage")) == 1
    assert b"Watchdog caught collective operation timeout" in err  # passed through
    assert b"denpex watch: ALERT: CUDA Out of Memory" in err
    assert out.count(b"Init COMPLETE") == 4
