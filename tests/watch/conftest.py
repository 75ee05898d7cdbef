"""The real bot in HTTP mode against the Slack stand-in and a private Redis (the Slack suite's
helpers), a Scale workspace, and the channel's ingest token got through `/denpex alerts connect`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import redis

from bot.store import Store, StoreConfig
from tests.slack.conftest import Bot, fresh_state, slack_redis_url, start_bot, stop_bot
from tests.slack.fake_slack import TEAM_ID, FakeSlack

TOKEN = re.compile(r"dpx1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


@pytest.fixture(scope="session")
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="session")
def bot_process(fake_slack: FakeSlack) -> Iterator[Bot]:
    url = slack_redis_url()
    redis.Redis.from_url(url, socket_connect_timeout=1).flushdb()
    bot = start_bot(fake_slack, url)
    yield bot
    stop_bot(bot)


@pytest.fixture
def bot(bot_process: Bot, fake_slack: FakeSlack) -> Iterator[Bot]:
    with fresh_state(bot_process, fake_slack):
        yield bot_process


@pytest.fixture
def store(bot: Bot) -> Iterator[Store]:
    with Store(StoreConfig(url=bot.redis_url)) as s:
        yield s


def make_scale(store: Store, team: str = TEAM_ID) -> None:
    store.plans.grant(team, "scale", datetime.now(UTC) + timedelta(days=14))


def connect(bot: Bot, team: str = TEAM_ID) -> str:
    """The ingest token `/denpex alerts connect` shows (once) in the command's channel, C0LOGS."""
    reply = bot.command("alerts connect", team=team)
    assert reply.status == 200, reply.body
    found = TOKEN.search(reply.body.decode())
    assert found, f"no token in the answer: {reply.body[:500]!r}"
    return found.group()


@pytest.fixture
def token(bot: Bot, store: Store) -> str:
    make_scale(store)
    return connect(bot)
