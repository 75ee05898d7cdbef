"""Multi-workspace mode (OAuth installs): an alert is posted with its own workspace's token, and
a token of a workspace the app is not installed in is refused."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import Store, StoreConfig
from tests.slack import test_oauth as oauth
from tests.slack.conftest import Bot, fresh_state, slack_redis_url, start_bot, stop_bot
from tests.slack.fake_slack import FakeSlack
from tests.watch.test_ingest import body, send


@pytest.fixture(scope="module")
def multi_bot(fake_slack: FakeSlack) -> Iterator[Bot]:
    bot = start_bot(fake_slack, slack_redis_url(), {
        "SLACK_BOT_TOKEN": "", "SLACK_CLIENT_ID": oauth.CLIENT_ID, "SLACK_CLIENT_SECRET": oauth.CLIENT_SECRET,
        "DENPEX_TOKEN_KEY": oauth.TOKEN_KEY,
    })  # fmt: skip
    yield bot
    stop_bot(bot)


def test_each_workspace_alert_uses_its_own_token(multi_bot: Bot, fake_slack: FakeSlack) -> None:
    known = dict(fake_slack.tokens)
    try:
        with fresh_state(multi_bot, fake_slack), Store(StoreConfig(url=multi_bot.redis_url)) as store:
            oauth.install(multi_bot, fake_slack, "T0ALPHA01", "xoxb-alpha")
            for team in ("T0ALPHA01", "T0GHOST01"):
                store.plans.grant(team, "scale", datetime.now(UTC) + timedelta(days=1))
            alpha = store.alerts.connect("T0ALPHA01", "C0ALPHA", "U1")
            ghost = store.alerts.connect("T0GHOST01", "C0GHOST", "U1")
            status, answer, _ = send(multi_bot, alpha, body())
            assert status == 200 and answer["channel"] == "C0ALPHA"
            assert [c.params["channel"] for c in oauth.posts_by(fake_slack, "xoxb-alpha")] == ["C0ALPHA"]
            status, answer, _ = send(multi_bot, ghost, body())
            assert status == 403 and "T0GHOST01" in answer["error"] and "not installed" in answer["error"]
            assert len(fake_slack.of("chat.postMessage")) == 1
    finally:
        fake_slack.tokens.clear()
        fake_slack.tokens.update(known)
        fake_slack.oauth_codes.clear()
