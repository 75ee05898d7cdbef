"""Twelfth audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

Slack's shapes used here, from its reference pages: chat.postMessage's error list names
`restricted_action_non_threadable_channel` ("Cannot post thread replies into a non_threadable
channel": a channel whose posting settings turn threads off)."""

from __future__ import annotations

import pytest

from tests.slack.conftest import Bot, quiesce, wait_handled
from tests.slack.events import OOM_PASTE, message, used
from tests.slack.fake_slack import FakeSlack


def posts(fake: FakeSlack) -> list:
    return fake.of("chat.postMessage")


def landed(fake: FakeSlack, channel: str = "C0LOGS") -> list[dict]:
    with fake.lock:
        return [dict(m) for m in fake.messages if m["channel"] == channel]


# --- a channel whose threads are turned off ---------------------------------------------------------

def test_a_log_in_a_channel_without_threads_is_answered_in_the_channel(bot: Bot, fake_slack):
    """A channel whose posting settings turn threads off refuses every threaded reply with
    `restricted_action_non_threadable_channel`. A log pasted there: the diagnosis posted in the
    channel itself, once, charged once, :white_check_mark: on the log (was: nothing posted,
    the charge refunded, :x:, the person left with no answer)."""
    fake_slack.no_threads.add("C0LOGS")
    ts = "1701200000.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    (answer,) = landed(fake_slack)
    assert answer["thread_ts"] == answer["ts"], answer  # a message of its own in the channel
    assert "CUDA Out of Memory" in (answer["text"] or ""), answer["text"]
    assert used(bot) == 1
    marks = [c.params["name"] for c in fake_slack.of("reactions.add")]
    assert marks[-1] == "white_check_mark", marks


@pytest.mark.parametrize("text", ["<@UBOT0001> hi", "<@UBOT0001>"], ids=["words", "alone"])
def test_a_mention_in_a_channel_without_threads_gets_its_help_in_the_channel(bot: Bot, fake_slack, text):
    """A mention of the bot there: the help posted in the channel, once (was: nothing)."""
    fake_slack.no_threads.add("C0LOGS")
    ts = "1701200010.000100"
    bot.event(message(text, ts))
    wait_handled(bot, ts, timeout=30)
    (answer,) = landed(fake_slack)
    assert answer["thread_ts"] == answer["ts"] and "help" in (answer["text"] or "").lower(), answer
    assert used(bot) == 0


def test_an_entry_clicked_under_a_diagnosis_in_a_channel_without_threads_is_posted_there(bot: Bot, fake_slack):
    """"Full entry" under such a diagnosis (a message of its own, so the click names no
    thread): the entry posted in the channel, once."""
    fake_slack.no_threads.add("C0LOGS")
    ts = "1701200020.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    (answer,) = landed(fake_slack)
    reply = bot.action("denpex_full_entry", "cuda-oom", thread_ts="")
    assert reply.status == 200
    quiesce(bot, fake_slack, quiet_s=0.5)
    entries = [m for m in landed(fake_slack) if m["ts"] != answer["ts"]]
    assert len(entries) == 1 and entries[0]["thread_ts"] == entries[0]["ts"], entries
    assert "cuda" in (entries[0]["text"] or "").lower()
