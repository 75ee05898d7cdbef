"""Fixtures shared with the store suite (a private redis-server, a movable clock) and the
Slack suite (the real bot over signed HTTP against the recording stand-in)."""

from tests.slack.conftest import bot, bot_process, fake_slack  # noqa: F401
from tests.store.conftest import clock, config, redis_dump, redis_url, store  # noqa: F401
