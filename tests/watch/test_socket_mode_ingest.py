"""In Socket Mode the bot has no events endpoint: alerts go to its health server's port."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
import redis

from bot.store import Store, StoreConfig
from tests.slack.conftest import slack_redis_url
from tests.slack.fake_slack import TEAM_ID, FakeSlack
from tests.slack.fake_socket import FakeSocketMode
from tests.slack.test_socket_mode import SocketBot
from tests.watch.test_ingest import body, send


@pytest.fixture
def socket_mode(fake_slack: FakeSlack) -> Iterator[FakeSocketMode]:
    ws = FakeSocketMode()
    fake_slack.socket_url = ws.url
    fake_slack.reset()
    redis.Redis.from_url(slack_redis_url()).flushdb()
    yield ws
    fake_slack.socket_url = None
    ws.stop()
    redis.Redis.from_url(slack_redis_url()).flushdb()


def test_alerts_reach_the_channel_through_the_health_port(fake_slack: FakeSlack, socket_mode: FakeSocketMode) -> None:
    url = slack_redis_url()
    with Store(StoreConfig(url=url)) as store:
        store.plans.grant(TEAM_ID, "scale", datetime.now(UTC) + timedelta(days=1))
        token = store.alerts.connect(TEAM_ID, "C0SOCK", "U0ALICE")
    bot = SocketBot(fake_slack, url)
    try:
        socket_mode.wait_connections(1)
        deadline = time.monotonic() + 30
        while not bot.healthy() and time.monotonic() < deadline:
            time.sleep(0.1)
        where = SimpleNamespace(url=f"http://127.0.0.1:{bot.port}")  # what send() reads of a bot
        status, answer, _ = send(where, token, body())  # type: ignore[arg-type]
        assert status == 200 and answer["channel"] == "C0SOCK", answer
        posted = fake_slack.wait_for("chat.postMessage")[0]
        assert "CUDA Out of Memory" in str(posted.params) and posted.params["channel"] == "C0SOCK"
        assert send(where, None, body())[0] == 401  # type: ignore[arg-type]
    finally:
        bot.stop()
