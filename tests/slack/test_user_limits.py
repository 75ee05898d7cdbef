"""Per-user limits as Bolt listener middleware (bot.slack.user_limits): over the limit, a
lookup is answered with the limit message and an entry click is acknowledged, and nothing else
runs; other people and subcommands are not held to it; a replayed request is not counted."""

from __future__ import annotations

import redis

from tests.slack.conftest import Bot, quiesce, sign
from tests.slack.fake_slack import FakeSlack

PER_MINUTE = 30
QUERY = "torch.OutOfMemoryError: CUDA out of memory"
REFUSAL = ":warning: Too many lookups in a minute: wait a moment."
FORM = "application/x-www-form-urlencoded"


def looked_up(reply) -> bool:
    """The lookup ran: its ephemeral answer lists the matching entry."""
    return reply.status == 200 and "cuda-oom" in str(reply.json()["blocks"])


def bucket(bot: Bot, action: str, user: str = "U0ALICE") -> int:
    """How many requests of `action` by `user` the store counted in the last minute."""
    with redis.Redis.from_url(bot.redis_url) as r:
        (key,) = r.keys(f"*ratelimit:{action}:*{user}*")
        return r.zcard(key)


def test_the_lookup_past_the_limit_gets_the_limit_message_and_nothing_else(bot: Bot):
    """30 lookups in a minute are answered; the 31st gets only the ephemeral limit message, and is not counted."""
    for _ in range(PER_MINUTE):
        assert looked_up(bot.command(QUERY))
    over = bot.command(QUERY)
    assert over.status == 200
    assert over.json() == {"text": REFUSAL, "response_type": "ephemeral",
                           "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": REFUSAL}}]}
    assert bucket(bot, "lookup") == PER_MINUTE


def test_the_lookup_limit_is_per_person_and_only_for_lookups(bot: Bot):
    """Someone at the limit still gets help, show and quota; another person still gets lookups."""
    for _ in range(PER_MINUTE + 1):
        bot.command(QUERY)
    assert "Too many lookups" in bot.command(QUERY).json()["text"]
    assert "Denpex" in bot.command("help").json()["text"]
    assert "CUDA" in bot.command("show cuda-oom").json()["blocks"][0]["text"]["text"]
    assert "0 of 3" in bot.command("quota").json()["text"]
    assert looked_up(bot.command(QUERY, user="U0BOB"))


def test_a_replayed_lookup_is_not_counted_again(bot: Bot):
    """A signed lookup replayed at the limit's edge: answered again but not counted, so the next real lookup is still answered."""
    for _ in range(PER_MINUTE - 2):
        assert looked_up(bot.command(QUERY))
    body = bot.command_body(QUERY)
    headers = sign(body)
    assert looked_up(bot.post(body, FORM, headers=headers, sign_it=False))
    replay = bot.post(body, FORM, headers=headers, sign_it=False)
    assert replay.status == 200 and looked_up(replay)
    assert looked_up(bot.command(QUERY)), "the replay took the last lookup of the minute"
    assert bucket(bot, "lookup") == PER_MINUTE


def test_entry_clicks_past_the_limit_are_acknowledged_and_post_nothing(bot: Bot, fake_slack: FakeSlack):
    """30 entry clicks in a minute (under 30 diagnoses: the same entry twice in one thread is
    posted once) post 30 entries; the 31st is acked and posts nothing; another person's click
    posts."""
    threads = [f"17000001{i:02d}.000100" for i in range(PER_MINUTE + 1)]
    for thread in threads[:PER_MINUTE]:
        assert bot.action("denpex_full_entry", "cuda-oom", thread_ts=thread).status == 200
    fake_slack.wait_for("chat.postMessage", count=PER_MINUTE)
    over = bot.action("denpex_full_entry", "cuda-oom", thread_ts=threads[-1])
    assert over.status == 200 and over.body == b""
    assert bot.action("denpex_related_0", "nccl-watchdog-timeout", user="U0BOB").status == 200
    fake_slack.wait_for("chat.postMessage", count=PER_MINUTE + 1)
    quiesce(bot, fake_slack)
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == PER_MINUTE + 1
    assert "nccl-watchdog-timeout" in str(posts[-1].params["blocks"])
    assert bucket(bot, "entry") == PER_MINUTE
