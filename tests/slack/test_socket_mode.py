"""Socket Mode end to end: `denpex serve` (no --http) opens its connection through
`apps.connections.open` on SLACK_API_URL, receives Events API envelopes over a local
WebSocket stand-in, acknowledges them, and answers; two connections share the events (a
re-sent envelope on the other one is answered once); a dropped connection reconnects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.store import Store, StoreConfig
from tests.slack.conftest import FAST_TIMERS, ROOT, free_port, slack_redis_url
from tests.slack.fake_slack import APP_TOKEN, BOT_TOKEN, TEAM_ID, FakeFile, FakeSlack
from tests.slack.fake_socket import FakeSocketMode

SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()


def envelope_body(text: str, ts: str, user: str, event_id: str) -> dict:
    return {
        "token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "type": "event_callback",
        "event_id": event_id, "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM_ID, "user_id": "UBOT0001", "is_bot": True}],
        "event": {"type": "message", "channel": "C0LOGS", "user": user, "text": text, "ts": ts,
                  "channel_type": "channel", "team": TEAM_ID},
    }  # fmt: skip


class SocketBot:
    def __init__(self, fake: FakeSlack, redis_url: str) -> None:
        self.port = free_port()
        env = {**os.environ, "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
               "SLACK_API_URL": fake.api_url, "REDIS_URL": redis_url, "PYTHONUNBUFFERED": "1",
               **FAST_TIMERS, "DENPEX_SOCKET_PING_S": "0.3"}
        env.pop("SLACK_SIGNING_SECRET", None)
        self.log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"denpex-socket-{self.port}.log"
        self.log = open(self.log_path, "w")  # noqa: SIM115 - kept open for the process's life
        self.proc = subprocess.Popen([sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                                     cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                return json.loads(r.read()).get("slack") is True
        except OSError:
            return False

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


@pytest.fixture
def socket_mode(fake_slack: FakeSlack) -> Iterator[FakeSocketMode]:
    ws = FakeSocketMode()
    fake_slack.socket_url = ws.url
    fake_slack.reset()
    url = slack_redis_url()
    redis.Redis.from_url(url).flushdb()
    yield ws
    fake_slack.socket_url = None
    ws.stop()
    redis.Redis.from_url(url).flushdb()


def test_two_socket_mode_connections_share_events_and_reconnect(fake_slack, socket_mode):
    """Two bots over Socket Mode: events on either connection are acked and answered once; a drop reconnects."""
    url = slack_redis_url()
    bots = [SocketBot(fake_slack, url), SocketBot(fake_slack, url)]
    try:
        first, second = socket_mode.wait_connections(2)
        assert len(fake_slack.of("apps.connections.open")) >= 2
        assert all(c.token == APP_TOKEN for c in fake_slack.of("apps.connections.open"))
        # One event on each connection (two people): each acknowledged and answered.
        t1, t2 = f"{time.time():.6f}", f"{time.time() + 1:.6f}"
        e1 = socket_mode.send_event(first, envelope_body(SAMPLE, t1, "U0ALICE", "EvSOCK0001"))
        e2 = socket_mode.send_event(second, envelope_body(SAMPLE, t2, "U0BOB", "EvSOCK0002"))
        socket_mode.wait_ack(e1)
        socket_mode.wait_ack(e2)
        fake_slack.wait_for("chat.postMessage", thread_ts=t1, timeout=20)
        fake_slack.wait_for("chat.postMessage", thread_ts=t2, timeout=20)
        # Slack re-sends the first event on the other connection: acked, not answered again.
        e3 = socket_mode.send_event(second, envelope_body(SAMPLE, t1, "U0ALICE", "EvSOCK0001"), retry_attempt=1)
        socket_mode.wait_ack(e3)
        time.sleep(0.3)  # a re-sent envelope is dropped before any listener: nothing to wait for
        assert len([c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == t1]) == 1
        # A dropped connection: the bot opens a new one through apps.connections.open.
        opened = len(fake_slack.of("apps.connections.open"))
        first.drop()
        deadline = time.monotonic() + 30
        while len(socket_mode.live()) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(socket_mode.live()) == 2, "the dropped connection was not re-opened"
        assert len(fake_slack.of("apps.connections.open")) > opened
        fresh = socket_mode.live()[-1]
        t3 = f"{time.time() + 2:.6f}"
        e4 = socket_mode.send_event(fresh, envelope_body(SAMPLE, t3, "U0CAROL", "EvSOCK0003"))
        socket_mode.wait_ack(e4)
        post = fake_slack.wait_for("chat.postMessage", thread_ts=t3, timeout=20)[0]
        assert "cuda-oom" in json.dumps(post.params)
        assert all(b.healthy() for b in bots)
        with Store(StoreConfig(url=url)) as store:
            assert store.quotas.status(TEAM_ID).used == 3
    finally:
        for b in bots:
            b.stop()


def command_body(text: str, user: str = "U0ALICE") -> dict:
    return {
        "token": "legacy", "team_id": TEAM_ID, "team_domain": "test", "channel_id": "C0LOGS",
        "channel_name": "training", "user_id": user, "user_name": "alice", "command": "/denpex", "text": text,
        "api_app_id": "A0DENPEX", "response_url": "http://127.0.0.1:9/unused", "trigger_id": f"{time.time_ns()}.1.socket",
    }  # fmt: skip


def test_slash_commands_over_socket_mode_answer_in_the_ack_and_hold_the_lookup_limit(fake_slack, socket_mode):
    """/denpex over Socket Mode: the answer rides in the ack's payload; past 30 lookups a minute, the limit message does."""
    bot = SocketBot(fake_slack, slack_redis_url())
    try:
        (conn,) = socket_mode.wait_connections(1)
        quota = socket_mode.wait_ack(socket_mode.send_command(conn, command_body("quota")))
        assert quota is not None and "0 of 3" in quota["text"] and quota["response_type"] == "ephemeral"
        for _ in range(30):
            answer = socket_mode.wait_ack(socket_mode.send_command(conn, command_body("CUDA out of memory")))
            assert answer is not None and "cuda-oom" in json.dumps(answer["blocks"])
        over = socket_mode.wait_ack(socket_mode.send_command(conn, command_body("CUDA out of memory")))
        assert over is not None and over["response_type"] == "ephemeral"
        assert over["text"] == ":warning: Too many lookups in a minute: wait a moment."
        other = socket_mode.wait_ack(socket_mode.send_command(conn, command_body("CUDA out of memory", user="U0BOB")))
        assert other is not None and "cuda-oom" in json.dumps(other["blocks"])
    finally:
        bot.stop()


def _envelope(event: dict, event_id: str) -> dict:
    return {**envelope_body("", "0", "U0ALICE", event_id), "event": event}


def test_an_upload_over_socket_mode_on_two_connections_is_answered_once(fake_slack, socket_mode):
    """Slack spreads an upload's two events over the open connections: `file_shared` on one
    replica, the `message` on the other, at once, then a `file_shared` that comes alone: each
    upload answered once, under its message (files.info's `shares` for the lone one)."""
    url = slack_redis_url()
    bots = [SocketBot(fake_slack, url), SocketBot(fake_slack, url)]
    try:
        first, second = socket_mode.wait_connections(2)
        t1, t2 = f"{time.time():.6f}", f"{time.time() + 1:.6f}"
        both = fake_slack.add_file(FakeFile(id="F0SOCKBOTH", name="rank3.log", content=SAMPLE.encode(),
                                            shares={"public": {"C0LOGS": [{"ts": t1}]}}))
        fake_slack.add_file(FakeFile(id="F0SOCKLONE", name="rank5.log", content=SAMPLE.encode(),
                                     shares={"public": {"C0LOGS": [{"ts": t2}]}}))
        shared = {"type": "file_shared", "channel_id": "C0LOGS", "user_id": "U0ALICE", "event_ts": t1}
        message = {"type": "message", "subtype": "file_share", "channel": "C0LOGS", "user": "U0ALICE", "text": "",
                   "ts": t1, "channel_type": "channel", "files": [both]}
        acks = [socket_mode.send_event(first, _envelope({**shared, "file_id": "F0SOCKBOTH", "file": {"id": "F0SOCKBOTH"}},
                                                        "EvSOCKFS01")),
                socket_mode.send_event(second, _envelope(message, "EvSOCKMSG1")),
                socket_mode.send_event(second, _envelope({**shared, "file_id": "F0SOCKLONE", "file": {"id": "F0SOCKLONE"},
                                                          "event_ts": t2}, "EvSOCKFS02"))]
        for envelope_id in acks:
            socket_mode.wait_ack(envelope_id)
        fake_slack.wait_for("chat.postMessage", thread_ts=t1, timeout=20)
        fake_slack.wait_for("chat.postMessage", thread_ts=t2, timeout=20)
        time.sleep(float(FAST_TIMERS["DENPEX_FILE_SHARED_GRACE_S"]) + 1.5)
        assert sorted(c.params["thread_ts"] for c in fake_slack.of("chat.postMessage")) == [t1, t2]
        assert len(fake_slack.of("files.download")) == 2
        with Store(StoreConfig(url=url)) as store:
            assert store.quotas.status(TEAM_ID).used == 2
    finally:
        for b in bots:
            b.stop()
