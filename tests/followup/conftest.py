"""Fixtures shared with the store suite (a private redis-server, a movable clock) and the
Slack suite (the real bot over signed HTTP against the recording stand-in)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.slack.conftest import (  # noqa: F401
    Bot,
    fake_slack,
    fresh_state,
    quiesce,
    slack_redis_url,
    start_bot,
    stop_bot,
)
from tests.slack.fake_slack import FakeSlack
from tests.store.conftest import clock, config, redis_dump, redis_url, store  # noqa: F401


@pytest.fixture(scope="session")
def unhurried_bot(fake_slack: FakeSlack) -> Iterator[Bot]:  # noqa: F811
    """The real bot with no paste window: a pasted log is answered at once, not after 3 s of
    waiting for more parts (these tests paste one message)."""
    bot = start_bot(fake_slack, slack_redis_url(), {"DENPEX_PASTE_WINDOW_S": "0"})
    yield bot
    stop_bot(bot)


@pytest.fixture
def bot(unhurried_bot: Bot, fake_slack: FakeSlack) -> Iterator[Bot]:  # noqa: F811
    """That bot, with a clean Redis database and an empty call record; afterwards, the bot has
    finished the test's work, so none of it lands in the next test's record."""
    with fresh_state(unhurried_bot, fake_slack):
        yield unhurried_bot
        quiesce(unhurried_bot, fake_slack)
