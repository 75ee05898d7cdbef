"""Nineteenth audit of the Slack edge: Slack's other spelling of a rate limit, `/denpex help`
typed the way people type it, a log deleted before its answer, and `show <id>` typed in a
diagnosis thread. Signed HTTP against the real bot, the Slack stand-in recording every call, a
real Redis.

Slack's words used here, from its reference pages: chat.postMessage lists `rate_limited`
("Application has posted too many messages, read the Rate Limit documentation") beside the
Web API's common `ratelimited`; a deletion comes as a `message` of subtype `message_deleted`
naming the message's `deleted_ts`; slash commands "cannot be used in message threads" (Slack
answers "/denpex is not supported in threads. Sorry!" and sends nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.slack.conftest import Bot, assert_no_crash_since, start_bot, stop_bot, wait_handled
from tests.slack.events import CHANNEL, OOM_PASTE, all_text, message, used
from tests.slack.fake_slack import BOT_USER_ID, FakeFile, FakeSlack

HELP = "Denpex help"


def posts(fake: FakeSlack, channel: str = CHANNEL) -> list[Any]:
    return [c for c in fake.of("chat.postMessage") if c.params.get("channel") == channel]


def reactions(fake: FakeSlack, ts: str) -> list[str]:
    return [c.params.get("name") for c in fake.of("reactions.add") if c.params.get("timestamp") == ts]


# --- 1. `rate_limited`, chat.postMessage's own code for a rate limit ---------------------------------

def test_a_reply_slack_answers_rate_limited_is_posted_after_the_wait(bot: Bot, fake_slack: FakeSlack) -> None:
    """chat.postMessage answered `{"ok": false, "error": "rate_limited"}` (HTTP 200): Slack
    posted nothing, as after a 429; the diagnosis is posted again and lands once, charged once,
    :white_check_mark: (was taken as a refusal for good: nothing posted, :x:, not charged)."""
    ts = "1701900000.000100"
    fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": "rate_limited"})
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts, timeout=30)
    sent = posts(fake_slack)
    assert len(sent) == 2 and all(c.params.get("thread_ts") == ts for c in sent)
    assert "CUDA Out of Memory" in sent[-1].params["text"]
    assert used(bot) == 1
    assert "white_check_mark" in reactions(fake_slack, ts) and "x" not in reactions(fake_slack, ts)


def test_a_log_file_whose_files_info_answers_rate_limited_is_read(bot: Bot, fake_slack: FakeSlack) -> None:
    """files.info answered `rate_limited` once: asked again and the file read (was "could not
    read the file from Slack (rate_limited): is the bot allowed to see it (files:read)?.")."""
    ts = "1701900001.000100"
    fake_slack.fail("files.info", 200, body={"ok": False, "error": "rate_limited"})
    item = fake_slack.add_file(FakeFile("F19RATE", "train.log", OOM_PASTE.encode()))
    bot.event(message("", ts, subtype="file_share", files=[item]))
    wait_handled(bot, ts, timeout=30)
    assert len(fake_slack.of("files.info")) == 2 and len(fake_slack.of("files.download")) == 1
    sent = posts(fake_slack)
    assert len(sent) == 1 and "CUDA Out of Memory" in sent[0].params["text"]
    assert used(bot) == 1


def test_a_files_info_refusal_ending_in_a_question_has_no_stray_full_stop(bot: Bot, fake_slack: FakeSlack) -> None:
    ts = "1701900002.000100"
    fake_slack.fail("files.info", 200, body={"ok": False, "error": "missing_scope"})
    item = fake_slack.add_file(FakeFile("F19SCOPE", "train.log", OOM_PASTE.encode()))
    bot.event(message("", ts, subtype="file_share", files=[item]))
    wait_handled(bot, ts, timeout=30)
    said = posts(fake_slack)[0].params["text"]
    assert said.endswith("(files:read)?") and "?." not in said
    assert used(bot) == 0


# --- 2. help typed as a sentence, in mrkdwn, or to the bot ----------------------------------------------

@pytest.mark.parametrize("text", [
    "help.", "Help!", "`help`", "*help*", "_help_",
    "@denpex help", "@Denpex", f"<@{BOT_USER_ID}|denpex> help", f"<@{BOT_USER_ID}>",
    "\u200b", "\u200b \ufeff",
])
def test_help_typed_as_a_sentence_or_to_the_bot_gets_help(bot: Bot, text: str) -> None:
    """`/denpex help.`, `Help!`, `` `help` `` (the word copied from the help), the bot named
    first as in a mention (slash command and mention mixed up), or only zero-width characters
    (a copy from a page): the help (was "No entry matches", or for `@denpex help` a lookup
    listing an unrelated entry, echoing "@<USER-1>")."""
    reply = bot.command(text)
    assert reply.status == 200
    answer = reply.json()
    assert answer["response_type"] == "ephemeral"
    assert answer["text"].startswith(HELP), (text, answer["text"][:200])


@pytest.mark.parametrize("text", ["@denpex show cuda-oom", f"<@{BOT_USER_ID}|denpex> show cuda-oom",
                                  "`show` cuda-oom", "show: cuda-oom"])
def test_a_subcommand_addressed_to_the_bot_or_wrapped_is_run(bot: Bot, text: str) -> None:
    answer = bot.command(text).json()
    assert answer["text"].startswith("CUDA Out of Memory"), (text, answer["text"][:200])


def test_a_lookup_starting_with_another_handle_is_still_a_lookup(bot: Bot) -> None:
    """Only the bot's own name is dropped: `@torch.compile ...` is the error text."""
    answer = bot.command("@torch.compile failed: torch.OutOfMemoryError: CUDA out of memory").json()
    assert not answer["text"].startswith(HELP)
    assert "cuda-oom" in json.dumps(answer["blocks"])


# --- 3. a log deleted before its answer --------------------------------------------------------------

def _deleted(ts: str, at: str, channel: str = CHANNEL, text: str = OOM_PASTE) -> dict[str, Any]:
    """Slack's `message_deleted`: the message's `deleted_ts`, the message as it was."""
    return {"type": "message", "subtype": "message_deleted", "hidden": True, "channel": channel, "ts": at,
            "deleted_ts": ts, "event_ts": at, "channel_type": "channel",
            "previous_message": {"type": "message", "user": "U0ALICE", "text": text, "ts": ts}}


def test_a_log_deleted_before_its_delivery_was_read_gets_nothing(bot: Bot, fake_slack: FakeSlack) -> None:
    """The deletion read before the message (a late delivery, or Slack's retry of it after the
    person took it back): nothing posted or charged; a colleague's log after it is answered."""
    ts, nxt = "1701900100.000100", "1701900102.000100"
    assert bot.event(_deleted(ts, "1701900101.000100")).status == 200
    bot.event(message(OOM_PASTE, ts), headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    wait_handled(bot, ts, timeout=30)
    assert posts(fake_slack) == [] and fake_slack.of("reactions.add") == [] and used(bot) == 0
    bot.event(message(OOM_PASTE, nxt, user="U0BOB"))
    wait_handled(bot, nxt, timeout=30)
    assert len(posts(fake_slack)) == 1 and used(bot) == 1


def test_a_log_deleted_within_the_paste_window_is_not_answered(bot: Bot, fake_slack: FakeSlack) -> None:
    """A log pasted (in the wrong channel, with a secret in it) and deleted a moment later,
    before the paste window closed: no diagnosis under "This message was deleted.", no
    charge (was both). A log pasted in two messages whose first is deleted: the rest is read,
    answered once under the part that is left. A bot of its own with a 3 s window, so the
    deletion is read inside it however loaded the machine."""
    slow = start_bot(fake_slack, bot.redis_url, {"DENPEX_PASTE_WINDOW_S": "3"})
    slow_log = Path(slow.log_path)  # type: ignore[attr-defined]
    try:
        gone, first, second = "1701900200.000100", "1701900201.000100", "1701900201.000200"
        lines = OOM_PASTE.splitlines(keepends=True)
        slow.event(message(OOM_PASTE, gone))
        slow.event(message("".join(lines[:2]), first, channel="C0OTHER"))
        slow.event(message("".join(lines[2:]), second, channel="C0OTHER"))
        slow.event(_deleted(gone, "1701900200.500000"))
        slow.event(_deleted(first, "1701900201.500000", channel="C0OTHER", text="".join(lines[:2])))
        wait_handled(slow, gone, timeout=30)
        wait_handled(slow, first, second, channel="C0OTHER", timeout=30)
        assert posts(fake_slack) == [] and not reactions(fake_slack, gone)
        rest = posts(fake_slack, "C0OTHER")
        assert len(rest) == 1 and rest[0].params["thread_ts"] == second
        assert "CUDA Out of Memory" in rest[0].params["text"]
        assert used(bot) == 1
    finally:
        stop_bot(slow)
    assert_no_crash_since(slow_log, 0)


# --- 4. `show <id>` typed in a diagnosis thread -----------------------------------------------------

# Typed in the thread, and the entry each posts there (None: a question for the follow-up).
TYPED_IN_THREAD = [
    ("show nccl-socket-ifname", "nccl-socket-ifname"),
    (" /denpex show nccl-socket-ifname", "nccl-socket-ifname"),
    (f"<@{BOT_USER_ID}> show `cuda-oom-fragmentation`", "cuda-oom-fragmentation"),
    ("denpex show: cuda-oom-fragmentation", "cuda-oom-fragmentation"),
    ("show me the lines", None),
    ("show nccl-no-such-entry", None),
]


def test_show_typed_in_a_diagnosis_thread_posts_that_entry(bot: Bot, fake_slack: FakeSlack) -> None:
    """Slack refuses `/denpex` in a thread, so people type it as text (a space first), or ask
    the bot: `show <id>` of an entry (one the diagnosis names among its related entries, or
    any) posts that entry in the thread (was the lines that matched the thread's own entry,
    `cuda-oom`, as for "show me the lines"). Words that name no entry are still a question."""
    root = "1701900300.000100"
    bot.event(message(OOM_PASTE, root))
    wait_handled(bot, root, timeout=30)
    for n, (typed, entry) in enumerate(TYPED_IN_THREAD, start=1):
        asked = f"17019003{n:02d}.000200"
        before = len(posts(fake_slack))
        bot.event(message(typed, asked, thread_ts=root))
        wait_handled(bot, asked, timeout=30)
        sent = posts(fake_slack)[before:]
        assert len(sent) == 1 and sent[0].params["thread_ts"] == root, typed
        if entry is None:
            assert "The lines that matched cuda-oom" in sent[0].params["text"], typed
        else:
            assert f"`{entry}`" in all_text(sent[0]) and "The lines that matched" not in all_text(sent[0]), typed


def test_show_asked_of_the_bot_in_a_mention_or_its_dm_posts_the_entry(bot: Bot, fake_slack: FakeSlack) -> None:
    """`@denpex show cuda-oom` in a channel, `show nccl-socket-ifname` in the bot's DM: the
    entry in the message's thread (was the help); words naming no entry still get the help,
    and `show cuda-oom` to colleagues in a channel gets nothing."""
    asks = [(f"<@{BOT_USER_ID}> show cuda-oom", CHANNEL, "channel", "cuda-oom"),
            ("show nccl-socket-ifname", "D0DM19", "im", "nccl-socket-ifname"),
            (f"<@{BOT_USER_ID}> show me something", CHANNEL, "channel", None),
            ("show cuda-oom", "C0TALK19", "channel", "")]
    for n, (text, channel, kind, entry) in enumerate(asks, start=1):
        ts = f"17019004{n:02d}.000100"
        before = len(posts(fake_slack, channel))
        bot.event(message(text, ts, channel=channel, channel_type=kind))
        wait_handled(bot, ts, channel=channel, timeout=30)
        sent = posts(fake_slack, channel)[before:]
        if entry == "":
            assert sent == [], text
            continue
        assert len(sent) == 1 and sent[0].params["thread_ts"] == ts, text
        if entry is None:
            assert sent[0].params["text"].startswith(HELP), text
        else:
            assert f"`{entry}`" in all_text(sent[0]) and not sent[0].params["text"].startswith(HELP), text
