"""Ninth audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

Slack's shapes used here, from its reference pages: the Web API answers most errors with HTTP
200 and `{"ok": false, "error": ...}`. Its common errors include `internal_error` and
`fatal_error` ("It's possible some aspect of the operation succeeded before the error was
raised"), `service_unavailable` and `request_timeout` (the POST data missing or truncated);
`ratelimited` tells the caller to wait `Retry-After` seconds. A `view_submission` is answered
with an empty 200 to close the modal; `app_home_opened` names the tab opened (`home`,
`messages`, `about`)."""

from __future__ import annotations

import json
import time
import urllib.parse

import pytest

from tests.slack.conftest import ROOT, Bot, wait_handled
from tests.slack.events import OOM_PASTE, all_text, file_shared, message, used
from tests.slack.fake_slack import TEAM_ID, FakeFile, FakeSlack

SAMPLE_TEXT = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()


def landed_in(fake: FakeSlack, thread_ts: str) -> list[dict]:
    """The messages Slack holds in a thread (what a person sees), not the attempts."""
    with fake.lock:
        return [m for m in fake.messages if m["thread_ts"] == thread_ts]


# --- Web API errors carried in a 200 body -------------------------------------------------------

@pytest.mark.parametrize("error", ["internal_error", "fatal_error", "service_unavailable", "request_timeout"])
@pytest.mark.parametrize("posted", [False, True], ids=["not-posted", "posted"])
def test_a_post_answered_with_a_transient_error_in_a_200_lands_once(bot: Bot, fake_slack, error, posted):
    """chat.postMessage answering HTTP 200 with `ok: false` and an error Slack calls transient
    (`internal_error`, `fatal_error`: some of the operation may have succeeded; a service
    hiccup; truncated POST data): the outcome is unknown, as after a 5xx. The diagnosis lands
    exactly once whether Slack posted it or not (looked for in the thread, then posted again
    only if absent), and is charged once."""
    fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": error}, posted=posted)
    ts = "1700900000.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    (answer,) = landed_in(fake_slack, ts)
    assert "cuda-oom" in (answer["text"] or "").lower() or "out of memory" in (answer["text"] or "").lower()
    assert used(bot) == 1


def test_a_post_answered_ratelimited_in_a_200_is_retried_after_retry_after(bot: Bot, fake_slack):
    """chat.postMessage answering `{"ok": false, "error": "ratelimited"}` with HTTP 200 (and a
    Retry-After), as a proxy or an older edge may: Slack posted nothing, so the reply is sent
    again after the wait and lands once, charged once."""
    fake_slack.fail("chat.postMessage", 200, retry_after=1, body={"ok": False, "error": "ratelimited"})
    ts = "1700900010.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    attempts = [c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == ts]
    assert len(attempts) == 2 and attempts[1].at - attempts[0].at >= 0.9
    assert len(landed_in(fake_slack, ts)) == 1 and used(bot) == 1


def test_files_info_ratelimited_in_a_200_is_retried_and_the_upload_answered(bot: Bot, fake_slack):
    """files.info answering `ratelimited` in a 200 body: looked up again after Retry-After and
    the upload diagnosed once (not "could not read the file")."""
    f = fake_slack.add_file(FakeFile(id="F0RATE200", name="train.log", content=SAMPLE_TEXT.encode()))
    fake_slack.fail("files.info", 200, retry_after=1, body={"ok": False, "error": "ratelimited"})
    ts = "1700900020.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    assert len(fake_slack.of("files.info")) == 2 and len(fake_slack.of("files.download")) == 1
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post) and used(bot) == 1


def test_a_follow_up_answer_rate_limited_lands_once(bot: Bot, fake_slack):
    """The answer to a question in a diagnosis thread meets a 429 with Retry-After: posted once
    after the wait, not lost and not doubled; the follow-up is not charged as a diagnosis."""
    ts = "1700900030.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    fake_slack.fail("chat.postMessage", 429, retry_after=1)
    q = "1700900030.000200"
    bot.event(message("how do I confirm this?", q, thread_ts=ts))
    wait_handled(bot, q)
    in_thread = landed_in(fake_slack, ts)
    assert len(in_thread) == 2 and used(bot) == 1
    assert "confirm" in (in_thread[1]["text"] or "").lower()


# --- interactions and Home ----------------------------------------------------------------------

def test_a_modal_submission_of_no_listener_closes_with_an_empty_200(bot: Bot, fake_slack):
    """A `view_submission` for a modal the bot has no listener for (another app's, an old
    version's): an empty 200, which closes the modal (a body that is not a response_action
    would show the person an error), nothing posted."""
    payload = {
        "type": "view_submission", "team": {"id": TEAM_ID, "domain": "test"},
        "user": {"id": "U0ALICE", "team_id": TEAM_ID}, "api_app_id": "A0DENPEX", "trigger_id": "9.9.9",
        "view": {"id": "V0MODAL", "type": "modal", "callback_id": "settings_modal", "team_id": TEAM_ID,
                 "state": {"values": {"b1": {"a1": {"type": "plain_text_input", "value": "hello"}}}},
                 "private_metadata": "", "hash": "1.abc"},
        "response_urls": [],
    }  # fmt: skip
    reply = bot.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(),
                     "application/x-www-form-urlencoded")
    assert reply.status == 200 and reply.body == b""
    assert not fake_slack.of("chat.postMessage") and not fake_slack.of("chat.postEphemeral")


def test_a_button_click_carrying_state_values_is_answered(bot: Bot, fake_slack):
    """A click on a diagnosis's button from a message that also holds inputs arrives with a
    `state.values` map (Slack sends it with every block_actions): the entry is posted in the
    thread once."""
    ts = "1700900040.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    payload = {
        "type": "block_actions", "team": {"id": TEAM_ID, "domain": "test"},
        "user": {"id": "U0ALICE", "username": "alice", "team_id": TEAM_ID}, "api_app_id": "A0DENPEX",
        "container": {"type": "message", "message_ts": "1700900041.000100", "channel_id": "C0LOGS",
                      "is_ephemeral": False, "thread_ts": ts},
        "channel": {"id": "C0LOGS", "name": "training"}, "trigger_id": "1.2.4",
        "message": {"type": "message", "ts": "1700900041.000100", "thread_ts": ts, "text": "x"},
        "state": {"values": {"blk": {"pick": {"type": "static_select", "selected_option": None}}}},
        "actions": [{"action_id": "denpex_full_entry", "block_id": "b", "value": "cuda-oom", "type": "button",
                     "action_ts": str(time.time())}],
    }  # fmt: skip
    before = len(landed_in(fake_slack, ts))
    reply = bot.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(),
                     "application/x-www-form-urlencoded")
    assert reply.status == 200
    fake_slack.wait_for("chat.postMessage", count=before + 1, timeout=10)
    time.sleep(0.3)
    assert len(landed_in(fake_slack, ts)) == before + 1


@pytest.mark.parametrize("tab", ["messages", "about"])
def test_opening_the_messages_or_about_tab_publishes_nothing(bot: Bot, fake_slack, tab):
    """`app_home_opened` for the Messages or About tab: 200, no views.publish (the Home tab is
    published when the Home tab is opened); the Home tab's own open still publishes."""
    assert bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": tab}).status == 200
    assert bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"}).status == 200
    fake_slack.wait_for("views.publish")
    time.sleep(0.3)
    assert len(fake_slack.of("views.publish")) == 1


# --- answers that are not Slack's JSON ----------------------------------------------------------

@pytest.mark.parametrize("raw,raw_type", [
    (b'{"ok": true, "channel": "C0LOGS", "ts": "17', "application/json"),
    (b"<html><body>Gateway says hello</body></html>", "text/html"),
    (b"", "application/json"),
    (b'{"ok": false}', "application/json"),
], ids=["cut-off-json", "html-page", "empty-body", "ok-false-without-error"])
@pytest.mark.parametrize("posted", [False, True], ids=["not-posted", "posted"])
def test_a_post_answered_200_with_a_body_that_is_not_slacks_json_lands_once(bot: Bot, fake_slack, raw, raw_type,
                                                                            posted):
    """chat.postMessage answered HTTP 200 with a body a proxy cut off mid-JSON, an HTML page,
    nothing, or `ok: false` naming no error: no word from Slack on whether it posted. The diagnosis lands exactly once (looked
    for in the thread, posted again only if absent), is charged once, and nothing crashes."""
    fake_slack.fail("chat.postMessage", 200, posted=posted, raw=raw, raw_type=raw_type)
    ts = "1700900050.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    assert len(landed_in(fake_slack, ts)) == 1
    assert used(bot) == 1


@pytest.mark.parametrize("answer", [
    {"body": {"ok": False, "error": "internal_error"}},
    {"body": {"ok": False, "error": "service_unavailable"}},
    {"raw": b'{"ok": true, "file": {"id": "F0', "raw_type": "application/json"},
    {"raw": b"<html>upstream hiccup</html>", "raw_type": "text/html"},
], ids=["internal_error", "service_unavailable", "cut-off-json", "html-page"])
def test_files_info_failing_transiently_in_a_200_is_asked_again_and_the_upload_answered(bot: Bot, fake_slack, answer):
    """files.info answering HTTP 200 with a transient error or a body that is not Slack's JSON
    (cut off, an HTML page) once: a read is safe to repeat, so it is asked again and the upload
    diagnosed once; not "is the bot allowed to see it (files:read)?", which blames a scope, and
    no crash."""
    f = fake_slack.add_file(FakeFile(id="F0TRANS200", name="train.log", content=SAMPLE_TEXT.encode()))
    fake_slack.fail("files.info", 200, **answer)
    ts = "1700900060.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    assert len(fake_slack.of("files.info")) == 2 and len(fake_slack.of("files.download")) == 1
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post) and "files:read" not in all_text(post) and used(bot) == 1


CUT_OFF = b'{"ok": true, "ts": "17'


def test_a_home_tab_publish_answered_with_a_cut_off_body_is_no_crash(bot: Bot, fake_slack):
    """views.publish answered 200 with a JSON body cut off: no crash in the bot (the tab was
    perhaps published; the next open publishes it again anyway)."""
    fake_slack.fail("views.publish", 200, raw=CUT_OFF)
    assert bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"}).status == 200
    fake_slack.wait_for("views.publish")
    assert bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"}).status == 200
    fake_slack.wait_for("views.publish", count=2)


def test_a_votes_thanks_answered_with_a_cut_off_body_is_no_crash(bot: Bot, fake_slack):
    """The ephemeral thanks for a feedback click answered 200 with a cut-off body: the vote
    counted, nothing more posted, no crash."""
    fake_slack.fail("chat.postEphemeral", 200, raw=CUT_OFF)
    assert bot.action("denpex_feedback_right", "cuda-oom").status == 200
    fake_slack.wait_for("chat.postEphemeral")
    time.sleep(0.3)
    assert len(fake_slack.of("chat.postEphemeral")) == 1


def test_a_look_for_an_unconfirmed_post_answered_with_a_cut_off_body_posts_once(bot: Bot, fake_slack):
    """A post of unknown outcome (a 503), and the look for it in the thread answered with a
    cut-off body: Slack would not show the thread, so the post is not repeated blindly; one
    message at most, no crash."""
    fake_slack.fail("chat.postMessage", 503, times=3, posted=True)
    fake_slack.fail("conversations.replies", 200, times=3, raw=CUT_OFF)
    ts = "1700900070.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    assert len(landed_in(fake_slack, ts)) == 1


def test_a_file_shared_alone_whose_files_info_hiccups_is_still_answered(bot: Bot, fake_slack):
    """An upload arriving only as `file_shared`, and files.info answering `internal_error` in a
    200 the first time: asked again, and the log answered once under its message (it was never
    answered: "files.info failed; nothing to answer under")."""
    ts = "1700900080.000100"
    fake_slack.add_file(FakeFile(id="F0SHRDHICC", name="train.log", content=OOM_PASTE.encode(),
                                 shares={"public": {"C0LOGS": [{"ts": ts, "channel_name": "training"}]}}))
    fake_slack.fail("files.info", 200, body={"ok": False, "error": "internal_error"})
    bot.event(file_shared("F0SHRDHICC"))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == ts and "cuda-oom" in all_text(post) and used(bot) == 1


def test_a_home_tab_publish_failing_with_a_5xx_then_succeeding_is_published(bot: Bot, fake_slack):
    """views.publish answering 503 once: published on the retry (a publish replaces the tab, so
    repeating it cannot double anything), no crash."""
    fake_slack.fail("views.publish", 503)
    assert bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"}).status == 200
    calls = fake_slack.wait_for("views.publish", count=2)
    assert calls[1].params["user_id"] == "U0ALICE" and calls[1].params["view"]["type"] == "home"


def test_files_info_rate_limited_for_long_says_so_not_a_scope(bot: Bot, fake_slack):
    """files.info answering 429 with a Retry-After of two minutes (past what the bot waits
    while the person does): told Slack is rate-limiting and to try again, not pointed at the
    files:read scope (which is fine); nothing downloaded or charged."""
    f = fake_slack.add_file(FakeFile(id="F0RATELONG", name="train.log", content=SAMPLE_TEXT.encode()))
    fake_slack.fail("files.info", 429, retry_after=120)
    ts = "1700900090.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    text = all_text(post)
    assert "rate-limit" in text and "files:read" not in text
    assert not fake_slack.of("files.download") and used(bot) == 0


@pytest.mark.parametrize("action", [
    {"type": "button", "value": "cuda-oom", "block_id": "b"},
    {"action_id": 5, "type": "button", "value": "cuda-oom", "block_id": "b"},
    {"action_id": None, "type": "button", "value": "cuda-oom", "block_id": "b"},
], ids=["no-action-id", "number", "null"])
def test_a_signed_click_whose_action_has_no_action_id_is_refused_without_a_crash(bot: Bot, fake_slack, action):
    """A signed block_actions whose action lacks a string `action_id` (Slack always sends one;
    a hand-made or fuzzed payload): 400, as for the other payloads Bolt would index blindly
    (was a 500 and Bolt's "Failed to run a middleware" traceback), and the next click answered."""
    payload = {
        "type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE", "team_id": TEAM_ID},
        "api_app_id": "A0DENPEX", "trigger_id": "1.2.10", "channel": {"id": "C0LOGS"},
        "container": {"type": "message", "message_ts": "1700900100.000100", "channel_id": "C0LOGS"},
        "actions": [action],
    }  # fmt: skip
    reply = bot.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(),
                     "application/x-www-form-urlencoded")
    assert reply.status == 400
    assert bot.action("denpex_feedback_right", "cuda-oom").status == 200
    fake_slack.wait_for("chat.postEphemeral")


def test_a_look_for_an_unconfirmed_post_rate_limited_still_finds_it(bot: Bot, fake_slack):
    """A post answered 503 after Slack posted it, and the look in the thread for it answered
    429 (Retry-After: 1; conversations.replies is tightly limited): the look is made again after
    the wait, finds the diagnosis, and it is not posted a second time; charged once."""
    fake_slack.fail("chat.postMessage", 503, posted=True)
    fake_slack.fail("conversations.replies", 429, retry_after=1)
    ts = "1700900110.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    assert len(fake_slack.of("conversations.replies")) == 2
    assert len(landed_in(fake_slack, ts)) == 1 and used(bot) == 1


def test_files_info_answering_a_page_every_time_is_told_as_a_hiccup(bot: Bot, fake_slack):
    """files.info answering an HTML page (HTTP 200) every time: one reply saying Slack had a
    hiccup and to try again, with none of the page in it and no scope blamed; nothing charged."""
    f = fake_slack.add_file(FakeFile(id="F0PAGEPAGE", name="train.log", content=SAMPLE_TEXT.encode()))
    fake_slack.fail("files.info", 200, times=3, raw=b"<html>upstream hiccup</html>", raw_type="text/html")
    ts = "1700900120.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    text = all_text(post)
    assert "hiccup" in text and "upstream" not in text and "files:read" not in text
    assert len(fake_slack.of("files.info")) == 3 and not fake_slack.of("files.download") and used(bot) == 0
