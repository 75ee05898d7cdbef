"""The real bot in HTTP mode (`denpex serve --http`, a subprocess) against the Slack stand-in
and a real Redis on a spare database. Tests send correctly signed requests over HTTP and read
back what the bot posted."""

from __future__ import annotations

import atexit
import hashlib
import hmac
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis

from bot.store import keys
from bot.store.claims import Claims
from tests.ports import free_port
from tests.redis_server import flushable_redis_base
from tests.slack.fake_slack import BOT_TOKEN, TEAM_ID, FakeSlack

ROOT = Path(__file__).resolve().parents[2]
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
SLACK_TEST_DB = int(os.environ.get("DENPEX_SLACK_TEST_REDIS_DB", "12"))
UPLOAD_CAP = 2_000_000
INFLATED_CAP = 10_000_000
# The bot's timers at test speed: the paste window, the looks for a post of unknown outcome,
# the jitter on a 429's Retry-After and the back-off between 5xx retries. Production keeps
# its defaults; tests run the same code paths in tens of milliseconds. The paste window is
# the one wait a loaded machine can outlast between a test's consecutive posts (a three-part
# paste was once read as two logs with 0.5 s under a full suite and a benchmark): 1 s.
FAST_TIMERS = {
    "DENPEX_PASTE_WINDOW_S": "1.0",
    "DENPEX_POST_LOOKS_5XX_S": "0.05",
    "DENPEX_POST_LOOKS_TIMEOUT_S": "0,0.3,0.6",
    "DENPEX_RETRY_JITTER_S": "0.05",
    "DENPEX_RETRY_BACKOFF_S": "0.05",
    "DENPEX_FILE_SHARED_GRACE_S": "0.3",
}


# The bots' logs: one folder for the session, removed at exit, so no run leaves files in the
# temporary folder (a failing start-up already prints the log's tail).
_BOT_LOGS = Path(tempfile.mkdtemp(prefix="denpex-test-bots-"))
atexit.register(shutil.rmtree, _BOT_LOGS, True)


def slack_redis_url() -> str:
    base = flushable_redis_base()
    return urlunsplit(urlsplit(base)._replace(path=f"/{SLACK_TEST_DB}", query=""))


def sign(body: bytes, ts: int | None = None, secret: str = SIGNING_SECRET) -> dict[str, str]:
    ts = int(time.time()) if ts is None else ts
    base = f"v0:{ts}:".encode() + body
    sig = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": str(ts), "X-Slack-Signature": sig}


@dataclass
class Reply:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Bot:
    """A running bot process and how to talk to it."""

    url: str
    proc: subprocess.Popen
    redis_url: str
    env: dict[str, str]

    def post(self, body: bytes, content_type: str, headers: dict[str, str] | None = None,
             sign_it: bool = True, ts: int | None = None) -> Reply:
        hdrs = {"Content-Type": content_type}
        if sign_it:
            hdrs.update(sign(body, ts))
        hdrs.update(headers or {})
        req = urllib.request.Request(self.url + "/slack/events", data=body, headers=hdrs, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return Reply(r.status, r.read())
        except urllib.error.HTTPError as e:
            return Reply(e.code, e.read())

    def event(self, event: dict[str, Any], event_id: str | None = None, team: str = TEAM_ID,
              headers: dict[str, str] | None = None) -> Reply:
        body = {
            "token": "legacy",
            "team_id": team,
            "api_app_id": "A0DENPEX",
            "event": event,
            "type": "event_callback",
            "event_id": event_id or f"Ev{time.time_ns()}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": team, "user_id": "UBOT0001", "is_bot": True}],
        }
        return self.post(json.dumps(body).encode(), "application/json", headers)

    def command(self, text: str, team: str = TEAM_ID, user: str = "U0ALICE", response_url: str = "") -> Reply:
        return self.post(self.command_body(text, team, user, response_url), "application/x-www-form-urlencoded")

    @staticmethod
    def command_body(text: str, team: str = TEAM_ID, user: str = "U0ALICE", response_url: str = "") -> bytes:
        """A `/denpex` request's form body, as Slack sends it (signed by `post`, or by the test)."""
        form = {
            "token": "legacy", "team_id": team, "team_domain": "test", "channel_id": "C0LOGS",
            "channel_name": "training", "user_id": user, "user_name": "alice", "command": "/denpex",
            "text": text, "api_app_id": "A0DENPEX", "response_url": response_url or "http://127.0.0.1:9/unused",
            # Unique per invocation, as Slack's are (two identical signed bodies are a replay).
            "trigger_id": f"{time.time_ns()}.738474920.8088930838d88f008e0",
        }  # fmt: skip
        return urllib.parse.urlencode(form).encode()

    def action(self, action_id: str, value: str, channel: str = "C0LOGS", thread_ts: str = "1700000000.000100",
               team: str = TEAM_ID, user: str = "U0ALICE") -> Reply:
        payload = {
            "type": "block_actions",
            "team": {"id": team, "domain": "test"},
            "user": {"id": user, "username": "alice", "team_id": team},
            "api_app_id": "A0DENPEX",
            "container": {"type": "message", "message_ts": "1700000001.000200", "channel_id": channel,
                          "is_ephemeral": False, "thread_ts": thread_ts},
            "channel": {"id": channel, "name": "training"},
            "message": {"type": "message", "ts": "1700000001.000200", "thread_ts": thread_ts, "text": "x"},
            "trigger_id": "1.2.3",
            "actions": [{"action_id": action_id, "block_id": "b", "value": value, "type": "button",
                         "action_ts": str(time.time())}],
        }
        body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(body, "application/x-www-form-urlencoded")

    def get(self, path: str) -> Reply:
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as r:
                return Reply(r.status, r.read())
        except urllib.error.HTTPError as e:
            return Reply(e.code, e.read())


def start_bot(fake: FakeSlack, redis_url: str, extra_env: dict[str, str] | None = None) -> Bot:
    port = free_port()
    env = {
        **os.environ,
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": fake.api_url,
        "REDIS_URL": redis_url,
        "DENPEX_MAX_UPLOAD_BYTES": str(UPLOAD_CAP),
        "DENPEX_MAX_INFLATED_BYTES": str(INFLATED_CAP),
        "DENPEX_DOWNLOAD_TIMEOUT_S": "2",
        "DENPEX_LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        **FAST_TIMERS,
        **(extra_env or {}),
    }
    env.pop("SLACK_APP_TOKEN", None)
    log_path = _BOT_LOGS / f"denpex-bot-{port}.log"
    log_file = open(log_path, "w")  # noqa: SIM115 - kept open for the process's life
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--http", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT,
    )
    bot = Bot(f"http://127.0.0.1:{port}", proc, redis_url, env)
    bot.log_path = log_path  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"bot exited at start-up: {log_path.read_text()[-2000:]}")
        try:
            if bot.get("/healthz").status == 200:
                return bot
        except OSError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"bot did not start: {log_path.read_text()[-2000:]}")


def wait_handled(bot: Bot, *stamps: str, channel: str = "C0LOGS", team: str = TEAM_ID,
                 timeout: float = 20.0) -> None:
    """Wait until the bot has finished with the messages posted at `stamps` (their claims are
    done: answered, or found to need no answer) and holds no open claim at all. The bot
    releases a claim only after its last Slack call for the message, so what a test reads
    afterwards is final: no fixed sleep needed to assert that nothing (more) happened."""
    deadline = time.monotonic() + timeout
    claim_keys = [keys.dedupe(team, f"claim:message:{channel}:{ts}") for ts in stamps]
    with redis.Redis.from_url(bot.redis_url) as r:
        while True:
            done = all(r.hget(k, "state") == b"done" for k in claim_keys)
            if done and r.zcard(Claims.pending_key()) == 0:
                return
            if time.monotonic() > deadline:
                states = {k: r.hget(k, "state") for k in claim_keys}
                raise AssertionError(f"the bot did not finish with {stamps} in {timeout} s: {states}")
            time.sleep(0.02)


def quiesce(bot: Bot, fake: FakeSlack, quiet_s: float = 0.1, max_s: float = 10.0) -> None:
    """Wait until the bot holds no open claim and has made no Slack call for `quiet_s`, so a
    test's trailing work (the final reaction, a click's answer) never lands in the next
    test's record."""
    deadline = time.monotonic() + max_s
    with redis.Redis.from_url(bot.redis_url) as r:
        while r.zcard(Claims.pending_key()) and time.monotonic() < deadline:
            time.sleep(0.02)
    while time.monotonic() < deadline:
        with fake.lock:
            last = fake.calls[-1].at if fake.calls else 0.0
        if time.time() - last >= quiet_s:
            return
        time.sleep(0.02)


def stop_bot(bot: Bot) -> None:
    bot.proc.terminate()
    try:
        bot.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        bot.proc.kill()


@pytest.fixture(scope="session")
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="session")
def bot_process(fake_slack: FakeSlack) -> Iterator[Bot]:
    url = slack_redis_url()
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).flushdb()
    except redis.ConnectionError as exc:
        pytest.fail(f"Slack tests need a Redis at {url} (set REDIS_URL): {exc}")
    bot = start_bot(fake_slack, url)
    yield bot
    stop_bot(bot)


@contextmanager
def fresh_state(bot: Bot, fake: FakeSlack) -> Iterator[redis.Redis]:
    """A clean Redis database and an empty Slack call record around one test."""
    r = redis.Redis.from_url(bot.redis_url)
    r.flushdb()
    fake.reset()
    try:
        yield r
    finally:
        r.flushdb()
        r.close()


@pytest.fixture
def bot(bot_process: Bot, fake_slack: FakeSlack) -> Iterator[Bot]:
    """The shared bot, with a clean Redis database and an empty call record; afterwards, the
    bot has finished the test's work, so none of it lands in the next test's record, and
    nothing the test made it do escaped as a crash into its log."""
    log_path = Path(bot_process.log_path)  # type: ignore[attr-defined]
    start = log_path.stat().st_size
    with fresh_state(bot_process, fake_slack):
        yield bot_process
        quiesce(bot_process, fake_slack)
    assert_no_crash_since(log_path, start)


# What a crash leaves in the bot's log: a traceback, or Bolt's one line for a lazy listener's
# exception (which it logs without one).
CRASH_MARKS = ("Traceback", "Failed to run an internal function")


def assert_no_crash_since(log_path: Path, start: int) -> None:
    """No crash in the bot's log past byte `start`: every fault the test made was handled."""
    with log_path.open("rb") as fh:
        fh.seek(start)
        new = fh.read().decode("utf-8", "replace")
    for mark in CRASH_MARKS:
        assert mark not in new, new[max(0, new.find(mark) - 300):][:3000]


@pytest.fixture
def bot_without_redis(fake_slack: FakeSlack) -> Iterator[Bot]:
    """A second bot whose Redis does not answer (a free port), on a clean call record."""
    fake_slack.reset()
    dead = start_bot(fake_slack, f"redis://127.0.0.1:{free_port()}/0")
    try:
        yield dead
    finally:
        stop_bot(dead)
