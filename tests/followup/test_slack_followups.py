"""Follow-ups through the real bot: signed HTTP in, the Slack stand-in records the replies, a real Redis keeps the thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.store.followup_quota import FREE_FOLLOWUPS_PER_DAY
from tests.slack.conftest import wait_handled
from tests.slack.events import CHANNEL, all_text, message
from tests.slack.fake_slack import BOT_USER_ID, TEAM_ID

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()


def diagnosed(bot, fake_slack, thread: str) -> None:
    bot.event(message(SAMPLE, thread))
    fake_slack.wait_for("chat.postMessage", thread_ts=thread)
    # The thread's context is kept once the reply is out: questions come after the bot is done.
    wait_handled(bot, thread, channel=CHANNEL)


def next_post(fake_slack, thread: str, send):
    """The first post in `thread` after `send()`. Every test has a thread of its own, so a
    late post of an earlier test cannot be read as this one's."""
    before = len([c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == thread])
    send()
    # Generous: a loaded CI machine can take seconds; a pass returns as soon as the post is in.
    return fake_slack.wait_for("chat.postMessage", count=before + 1, thread_ts=thread, timeout=30)[before]


def ask(bot, fake_slack, thread: str, text: str, n: int):
    ts = f"{thread.split('.')[0]}.{n:06d}"
    return next_post(fake_slack, thread, lambda: bot.event(message(text, ts, thread_ts=thread)))


def test_run_questions_are_answered_from_the_kept_diagnosis(bot, fake_slack):
    """'which rank failed first?' and 'show me the line' answer from this run, in the thread."""
    diagnosed(bot, fake_slack, "170009100.000100")
    rank = ask(bot, fake_slack, "170009100.000100", "which rank failed first?", 1)
    assert rank.params["thread_ts"] == "170009100.000100"
    assert "Initiating rank: 3" in all_text(rank) and "only rank" in all_text(rank)
    line = ask(bot, fake_slack, "170009100.000100", "show me teh line", 2)
    assert "OutOfMemoryError" in all_text(line) and "line 19" in all_text(line)


def test_unrecognised_question_gets_topic_buttons_that_answer(bot, fake_slack):
    """A question it cannot place gets the closest topics as buttons; clicking one answers that topic in the thread."""
    diagnosed(bot, fake_slack, "170009110.000100")
    post = ask(bot, fake_slack, "170009110.000100", "can you rerun it with NCCL_DEBUG=INFO?", 1)
    actions = [b for b in post.params["blocks"] if b["type"] == "actions"]
    assert actions, all_text(post)
    buttons = actions[0]["elements"]
    assert len(buttons) == 3 and all(b["action_id"].startswith("denpex_followup_") for b in buttons)
    assert "not sure" in all_text(post)
    chosen = buttons[0]
    answer = next_post(fake_slack, "170009110.000100", lambda: bot.action(chosen["action_id"], chosen["value"], channel=CHANNEL,
                                                      thread_ts="170009110.000100"))
    assert answer.params["thread_ts"] == "170009110.000100" and "not sure" not in all_text(answer)


def test_free_workspace_is_told_when_its_follow_ups_run_out(bot, fake_slack):
    """After the free plan's follow-ups for the day, the answer says so and how to get more."""
    diagnosed(bot, fake_slack, "170009120.000100")
    for n in range(1, FREE_FOLLOWUPS_PER_DAY + 1):
        assert "limit" not in all_text(ask(bot, fake_slack, "170009120.000100", "how do I confirm this?", n)).lower()
    over = ask(bot, fake_slack, "170009120.000100", "how do I confirm this?", FREE_FOLLOWUPS_PER_DAY + 1)
    assert "Daily follow-up limit reached" in all_text(over) and "/denpex redeem" in all_text(over)
    # Said once in the thread: more questions today get no copy of the notice.
    again = f"170009120.{FREE_FOLLOWUPS_PER_DAY + 2:06d}"
    bot.event(message("is this hardware?", again, thread_ts="170009120.000100"))
    wait_handled(bot, again, channel=CHANNEL)
    notices = [c for c in fake_slack.of("chat.postMessage")
               if c.params.get("thread_ts") == "170009120.000100" and "Daily follow-up limit" in all_text(c)]
    assert len(notices) == 1


def test_a_secret_in_a_question_is_neither_posted_nor_kept(bot, fake_slack):
    """A token pasted into a question never comes back: not in the answer, not in the buttons' values, not in Redis."""
    import redis

    diagnosed(bot, fake_slack, "170009130.000100")
    token = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
    post = ask(bot, fake_slack, "170009130.000100", f"hmm GITHUB_TOKEN={token} blah blah", 1)
    posted = all_text(post)
    assert token[:12] not in posted
    values = [e["value"] for b in post.params["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert values and all(token[:12] not in v for v in values)
    r = redis.Redis.from_url(bot.redis_url)
    assert not any(token[:12].encode() in (r.dump(k) or b"") for k in r.scan_iter())


def test_an_answer_slack_refused_is_not_counted(bot, fake_slack):
    """A follow-up answer Slack refuses is given back to the day's allowance."""
    from bot.store import Store, StoreConfig

    diagnosed(bot, fake_slack, "170009140.000100")
    fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": "is_archived"})
    next_post(fake_slack, "170009140.000100", lambda: bot.event(message("how do I confirm this?", "170009140.000001", thread_ts="170009140.000100")))
    ok = ask(bot, fake_slack, "170009140.000100", "how do I confirm this?", 2)
    assert "How to confirm" in all_text(ok)
    import time

    with Store(StoreConfig(url=bot.redis_url)) as store:
        deadline = time.monotonic() + 3
        while store.followup_quota.used(TEAM_ID) != 1 and time.monotonic() < deadline:
            time.sleep(0.05)  # the refund lands once the first handler has given up on its post
        assert store.followup_quota.used(TEAM_ID) == 1, "the refused answer was refunded, the posted one counted"


def test_one_person_asking_past_the_per_minute_limit_gets_nothing_more(bot, fake_slack):
    """On scale (no daily cap), 30 questions a minute by one person are answered; the 31st gets no post; another person's is answered."""
    from bot.slack.user_limits import FOLLOWUP
    from bot.store import Store, StoreConfig

    with Store(StoreConfig(url=bot.redis_url)) as store:
        (code,) = store.codes.create("scale", 14)
    assert "plan is on" in bot.command(f"redeem {code}").json()["text"]
    thread = "170009150.000100"
    diagnosed(bot, fake_slack, thread)
    for n in range(1, FOLLOWUP.per_minute + 1):
        assert "How to confirm" in all_text(ask(bot, fake_slack, thread, "how do I confirm this?", n))
    over = f"170009150.{FOLLOWUP.per_minute + 1:06d}"
    bot.event(message("how do I confirm this?", over, thread_ts=thread))
    wait_handled(bot, over, channel=CHANNEL)
    answered = len([c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == thread])
    assert answered == 1 + FOLLOWUP.per_minute
    bob = next_post(fake_slack, thread, lambda: bot.event({**message("how do I confirm this?", "170009150.999999",
                                                                     thread_ts=thread), "user": "U0BOB"}))
    assert "How to confirm" in all_text(bob)


@pytest.mark.parametrize("text", ["thanks!", "great, that worked", "will do", "<@U0ALICE01> can you check node 3?"],
                         ids=["thanks", "worked", "will-do", "to-a-colleague"])
def test_talk_between_people_in_the_thread_gets_nothing(bot, fake_slack, text):
    """The team talks a diagnosis over in its thread: thanks, acknowledgements and messages to a
    colleague get no "not sure what you are asking" from the bot; mentioned, it answers."""
    thread = "170009190.000100"
    diagnosed(bot, fake_slack, thread)
    bot.event(message(text, "170009190.000001", thread_ts=thread))
    wait_handled(bot, "170009190.000001", channel=CHANNEL)
    assert len([c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == thread]) == 1
    post = ask(bot, fake_slack, thread, f"<@{BOT_USER_ID}> tell me a joke", 2)
    assert "not sure" in all_text(post)
