"""Fault-injection tests: the real bot (HTTP mode, a subprocess), real Redis, the Slack stand-in.

Reuses tests/slack's machinery (start_bot, signing, the stand-in) with a bot tuned for fault
tests: short Slack and download timeouts, so a stall proves itself bounded in seconds, and a
larger upload cap for the 5 MB line. It runs on its own Redis database, so it never shares
state with tests/slack's bot. Tests that stop Redis start their own bot on a private server.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis

from bot.slack.listeners.messages import PASTE_WINDOW_S
from tests.redis_server import flushable_redis_base
from tests.slack.conftest import Bot, fresh_state, quiesce, start_bot, stop_bot, wait_handled
from tests.slack.events import all_text, message, used
from tests.slack.fake_slack import Call, FakeFile, FakeSlack
from tests.store.conftest import REDIS_SERVER, PrivateRedis

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()
RELIABILITY_DB = int(os.environ.get("DENPEX_RELIABILITY_TEST_REDIS_DB", "11"))
UPLOAD_CAP = 8_000_000
INFLATED_CAP = 20_000_000
SLACK_TIMEOUT_S = 2
DOWNLOAD_DEADLINE_S = 3
TUNED_ENV = {
    "DENPEX_SLACK_TIMEOUT_S": str(SLACK_TIMEOUT_S),
    "DENPEX_DOWNLOAD_TIMEOUT_S": "1",
    "DENPEX_DOWNLOAD_DEADLINE_S": str(DOWNLOAD_DEADLINE_S),
    "DENPEX_MAX_UPLOAD_BYTES": str(UPLOAD_CAP),
    "DENPEX_MAX_INFLATED_BYTES": str(INFLATED_CAP),
}
# Slack answers these when the bot is not a member of the channel.
_CHANNEL_METHODS = ("chat.postMessage", "chat.postEphemeral", "reactions.add", "reactions.remove")


class ReliabilityFake(FakeSlack):
    """The Slack stand-in, also recording which calls Slack accepted (a scripted failure is a
    call Slack refused), and answering `not_in_channel` for channels the bot is not in."""

    def __init__(self) -> None:
        super().__init__()
        self.accepted: list[Call] = []
        self.not_in: set[str] = set()

    def reset(self) -> None:
        super().reset()
        with self.lock:
            self.accepted.clear()
            self.not_in.clear()

    def answer(self, method: str, params: dict[str, Any], token: str | None) -> dict[str, Any]:
        if method in _CHANNEL_METHODS and params.get("channel") in self.not_in:
            return {"ok": False, "error": "not_in_channel"}
        result = super().answer(method, params, token)
        if result.get("ok"):
            with self.lock:
                self.accepted.append(Call(method, params, token, time.time()))
        return result

    def delivered(self, method: str, **match: Any) -> list[Call]:
        """Calls of `method` Slack accepted, whose params include `match`."""
        with self.lock:
            return [c for c in self.accepted if c.method == method and all(c.params.get(k) == v for k, v in match.items())]

    def wait_delivered(self, method: str, count: int = 1, timeout: float = 15.0, **match: Any) -> list[Call]:
        deadline = time.monotonic() + timeout
        while True:
            found = self.delivered(method, **match)
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} accepted {method} matching {match}, got {len(found)}: "
                                     f"{[(c.method, c.params.get('channel')) for c in self.calls]}")
            time.sleep(0.02)

    def add(self, name: str, content: bytes, **kw: Any) -> dict[str, Any]:
        """Register an upload; returns the `files[]` item of its file_share message."""
        return self.add_file(FakeFile(id=f"F{time.time_ns() % 10**12}", name=name, content=content, **kw))


def reliability_redis_url() -> str:
    base = flushable_redis_base()
    return urlunsplit(urlsplit(base)._replace(path=f"/{RELIABILITY_DB}", query=""))


def settle(seconds: float = 0.3) -> None:
    """Give lazy listeners time to act when the test asserts that nothing (more) happened,
    for requests that leave no claim to wait for (clicks, refused requests); a message is
    waited for with `wait_handled`, which needs no fixed sleep."""
    time.sleep(seconds)


def replies(rfake: ReliabilityFake, ts: str) -> list[Call]:
    """The posts Slack accepted in the thread of the message at `ts`."""
    return rfake.delivered("chat.postMessage", thread_ts=ts)


def paste(bot: Bot, text: str = SAMPLE, **extra: Any) -> str:
    """Post `text` as a new message in the channel; its ts (the thread of the answer)."""
    ts = new_ts()
    assert bot.event(message(text, ts, **extra)).status == 200
    return ts


def answered_once(bot: Bot, rfake: ReliabilityFake, ts: str, entry: str = "cuda-oom") -> Call:
    """Wait until the bot is done with the message at `ts`; it holds exactly one accepted
    answer naming `entry`, and the workspace was charged once."""
    wait_handled(bot, ts)
    posts = replies(rfake, ts)
    assert len(posts) == 1, [all_text(p)[:200] for p in posts]
    assert entry in all_text(posts[0])
    assert used(bot) == 1
    return posts[0]


def new_ts() -> str:
    return f"{time.time():.6f}"


@pytest.fixture(scope="session")
def rfake() -> Iterator[ReliabilityFake]:
    fake = ReliabilityFake().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="session")
def reliability_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of this suite's own (so no other test run on the machine shares its
    state), or database 11 of REDIS_URL's server where no redis-server binary is installed."""
    if os.path.exists(REDIS_SERVER):
        server = PrivateRedis(tmp_path_factory.mktemp("reliability-redis"))
        server.start()
        yield server.url
        server.stop()
        return
    url = reliability_redis_url()
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).flushdb()
    except redis.ConnectionError as exc:
        pytest.fail(f"reliability tests need a Redis at {url} (set REDIS_URL): {exc}")
    yield url


@pytest.fixture(scope="session")
def rbot_process(rfake: ReliabilityFake, reliability_redis: str) -> Iterator[Bot]:
    bot = start_bot(rfake, reliability_redis, TUNED_ENV)
    yield bot
    stop_bot(bot)


@pytest.fixture(scope="session")
def replica(rbot_process: Bot, rfake: ReliabilityFake) -> Iterator[Bot]:
    """A second bot process on the same Redis and the same Slack: two replicas."""
    bot = start_bot(rfake, rbot_process.redis_url, TUNED_ENV)
    yield bot
    stop_bot(bot)
    assert_no_crash(bot.log_path)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def pasting_pair(rbot_process: Bot, rfake: ReliabilityFake) -> Iterator[tuple[Bot, Bot]]:
    """Two more replicas on the same Redis and Slack, with production's paste window (3 s):
    a burst split across replicas must not be cut by a loaded test machine's pauses, which a
    1 s window is not proof against. Used with `rbot`, which gives them a clean state."""
    env = {**TUNED_ENV, "DENPEX_PASTE_WINDOW_S": str(PASTE_WINDOW_S)}
    pair = (start_bot(rfake, rbot_process.redis_url, env), start_bot(rfake, rbot_process.redis_url, env))
    yield pair
    for bot in pair:
        stop_bot(bot)
        assert_no_crash(bot.log_path)  # type: ignore[attr-defined]


@pytest.fixture
def rbot(rbot_process: Bot, rfake: ReliabilityFake) -> Iterator[Bot]:
    """The tuned bot, with a clean Redis database and an empty call record."""
    with fresh_state(rbot_process, rfake):
        assert rbot_process.proc.poll() is None, "the bot process died"
        log_path: Path = rbot_process.log_path  # type: ignore[attr-defined]
        log_start = log_path.stat().st_size
        yield rbot_process
        quiesce(rbot_process, rfake)
        assert rbot_process.proc.poll() is None, "the bot process died during the test"
        assert_no_crash(log_path, log_start)


def assert_no_crash(log_path: Path, start: int = 0) -> None:
    """No traceback in the bot's log since `start`: every fault was handled, none escaped."""
    with log_path.open("rb") as fh:
        fh.seek(start)
        new = fh.read().decode("utf-8", "replace")
    assert "Traceback" not in new, new[new.find("Traceback") - 300 :][:3000]


@pytest.fixture
def bot_on_private_redis(rfake: ReliabilityFake, tmp_path: Path) -> Iterator[tuple[Bot, PrivateRedis]]:
    """A tuned bot on its own persistent redis-server (append-only, fsync always), which the
    test may stop, restart or freeze; data survives a restart, as in production."""
    if not os.path.exists(REDIS_SERVER):
        pytest.skip("redis-server binary not found")
    server = PrivateRedis(tmp_path, "--appendonly", "yes", "--appendfsync", "always")
    server.start()
    rfake.reset()
    bot = start_bot(rfake, server.url, TUNED_ENV)
    try:
        yield bot, server
    finally:
        stop_bot(bot)
        server.stop()
