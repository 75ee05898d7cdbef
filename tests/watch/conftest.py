"""The real bot in HTTP mode against the Slack stand-in and a private Redis (the Slack suite's
helpers), a Scale workspace, and the channel's ingest token got through `/denpex alerts connect`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import Store, StoreConfig

# The Slack suite's bot and stand-in, as they are: one bot process per session, a clean
# database and call record per test, the test's trailing work finished before the next.
from tests.slack.conftest import Bot, bot, bot_process, fake_slack  # noqa: F401
from tests.slack.fake_slack import TEAM_ID

TOKEN = re.compile(r"dpx1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


@pytest.fixture
def store(bot: Bot) -> Iterator[Store]:  # noqa: F811
    with Store(StoreConfig(url=bot.redis_url)) as s:
        yield s


def make_scale(store: Store, team: str = TEAM_ID) -> None:
    store.plans.grant(team, "scale", datetime.now(UTC) + timedelta(days=14))


def connect(bot: Bot, team: str = TEAM_ID) -> str:  # noqa: F811
    """The ingest token `/denpex alerts connect` shows (once) in the command's channel, C0LOGS."""
    reply = bot.command("alerts connect", team=team)
    assert reply.status == 200, reply.body
    found = TOKEN.search(reply.body.decode())
    assert found, f"no token in the answer: {reply.body[:500]!r}"
    return found.group()


@pytest.fixture
def token(bot: Bot, store: Store) -> str:  # noqa: F811
    make_scale(store)
    return connect(bot)
