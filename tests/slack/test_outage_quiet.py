"""Redis away while people go on talking: a log, a mention, a DM, a file or a question in a
diagnosis thread is told the service is unavailable (nothing charged); chatter the bot would
never have answered gets nothing, as it gets nothing when Redis is up. Without this, every
message in every channel the bot is in would get an outage notice for as long as Redis is down.

The real bot (HTTP mode) on a redis-server of its own, which the test stops."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.slack.conftest import Bot, start_bot, stop_bot
from tests.slack.events import all_text, message
from tests.slack.fake_slack import BOT_USER_ID, FakeFile, FakeSlack
from tests.store.conftest import REDIS_SERVER, PrivateRedis

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()
UNAVAILABLE = "temporarily unavailable"


@pytest.fixture
def outage(fake_slack: FakeSlack, tmp_path: Path) -> Iterator[Bot]:
    """A bot whose Redis has been stopped after it started."""
    if not os.path.exists(REDIS_SERVER):
        pytest.fail("redis-server is not on PATH")
    server = PrivateRedis(tmp_path)
    server.start()
    bot = start_bot(fake_slack, server.url, {"DENPEX_REDIS_TIMEOUT_S": "0.3", "DENPEX_REDIS_CONNECT_TIMEOUT_S": "0.2"})
    fake_slack.reset()
    server.stop()
    try:
        yield bot
    finally:
        stop_bot(bot)
        fake_slack.reset()


def _posted_under(fake: FakeSlack, thread_ts: str) -> list[str]:
    return [all_text(c) for c in fake.of("chat.postMessage") if c.params.get("thread_ts") == thread_ts]


def test_chatter_during_an_outage_gets_nothing_and_what_the_bot_answers_is_told(outage, fake_slack):
    """A log, a mention, a DM, a file and a recognised question in a thread get the notice in
    their thread; a greeting, a reply in someone's thread and prose naming no known failure
    get nothing."""
    bot = outage
    f = fake_slack.add_file(FakeFile(id="F0OUTAGE01", name="train.log", content=SAMPLE.encode()))
    told = {
        "1700300000.000100": message(SAMPLE, "1700300000.000100"),
        "1700300000.000200": {**message(f"<@{BOT_USER_ID}> are you there?", "1700300000.000200"), "type": "app_mention"},
        "1700300000.000300": message("hi", "1700300000.000300", channel="D0ALICE01", channel_type="im"),
        "1700300000.000400": message("", "1700300000.000400", subtype="file_share", files=[f]),
        # Maybe a diagnosis thread (only Redis knows): a question a follow-up would answer.
        "1700299998.000100": message("how do I confirm this?", "1700300000.000450", thread_ts="1700299998.000100"),
    }
    quiet = {
        "1700300000.000500": message("good morning all, standup in 5", "1700300000.000500"),
        "1700300000.000600": message("lol same", "1700300000.000600", thread_ts="1700299999.000100"),
        "1700300000.000700": message("anyone up for lunch?", "1700300000.000700", channel="C0RANDOM"),
        # Prose naming an error no entry matches: a quiet miss when Redis is up, so quiet now.
        "1700300000.000800": message("the deploy had an error again, ugh", "1700300000.000800"),
    }
    for ev in (*told.values(), *quiet.values()):
        assert bot.event(ev).status == 200
    for ts in told:
        (post,) = fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=15)
        assert UNAVAILABLE in all_text(post) and "Nothing was charged" in all_text(post)
    time.sleep(1.5)  # the quiet ones were received with the others; give their listeners time
    for ts, ev in quiet.items():
        assert _posted_under(fake_slack, ev.get("thread_ts") or ts) == [], ev["text"]
    assert len(fake_slack.of("chat.postMessage")) == len(told)


def test_what_needs_no_redis_still_works_during_an_outage(outage, fake_slack):
    """`/denpex help` and the Home tab need nothing from Redis: help as usual; the Home tab is
    published without the usage it cannot read, saying why."""
    bot = outage
    help_answer = bot.command("help").json()
    assert help_answer["response_type"] == "ephemeral" and "/denpex" in json.dumps(help_answer["blocks"])
    assert UNAVAILABLE not in help_answer["text"]
    assert bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"}).status == 200
    view = fake_slack.wait_for("views.publish", timeout=15)[0].params["view"]
    assert view["type"] == "home" and "redeem" in json.dumps(view)
    assert "Usage is temporarily unavailable" in json.dumps(view)
