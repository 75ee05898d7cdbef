"""Fifth audit of the Slack edge: the known gaps an outside end-to-end check found (Unicode
spaces in uploads, topic buttons of an expired thread, DM links on the Home tab, other slash
commands) and the behaviours SLACK.md implies that no other test ran yet, through the real bot
over signed HTTP against the recording stand-in and a real Redis.

Slack's shapes used here: a permalink's path is `/archives/<channel>/p<ts without the dot>`
(chat.getPermalink answers one); a slash command's form carries the `command` the workspace
configured, which need not be ours."""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Iterator

import pytest
import redis

from bot.store import keys
from tests.ports import free_port
from tests.slack.conftest import ROOT, Bot, slack_redis_url, wait_handled
from tests.slack.events import CHANNEL, all_text, ephemeral_show_click, message, used
from tests.slack.fake_slack import BOT_USER_ID, TEAM_ID, FakeFile
from tests.slack.fake_socket import FakeSocketMode

SAMPLE_TEXT = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()


@pytest.fixture(scope="module")
def sample() -> str:
    return SAMPLE_TEXT


def replies(fake) -> list:
    return fake.of("chat.postMessage")


# --- Unicode spaces in an upload -----------------------------------------------------------------

@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u3000"], ids=["nbsp", "narrow-nbsp", "ideographic"])
def test_an_uploaded_log_with_unicode_spaces_is_diagnosed(bot: Bot, fake_slack, sample, space):
    """A log file saved from a web page (a CI run's page, a notebook) with no-break or other
    Unicode spaces where it had spaces: diagnosed as the log it was, charged once, and no
    such space in what the bot posts."""
    f = fake_slack.add_file(FakeFile(id="F0NBSPUP01", name="train.log", content=sample.replace(" ", space).encode()))
    ts = "1700500000.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and used(bot) == 1
    assert space not in json.dumps(post.params, ensure_ascii=False)


def test_a_log_pasted_with_narrow_no_break_spaces_is_diagnosed(bot: Bot, fake_slack, sample):
    """The paste path reads the same list of spaces as an upload: U+202F (macOS puts it before
    AM/PM, web pages between numbers and units) as well as U+00A0."""
    ts = "1700500010.000100"
    bot.event(message(sample.replace(" ", "\u202f"), ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and used(bot) == 1


# --- a topic button of a thread whose context expired --------------------------------------------

def topic_button_of_an_expired_thread(bot: Bot, fake_slack, log: str, ts: str) -> dict:
    """A diagnosis of `log` posted at `ts`, a question under it the bot could not place (so
    topic buttons), then the thread's context gone as Redis drops it after its TTL (7 days):
    the first topic button."""
    bot.event(message(log, ts))
    wait_handled(bot, ts)
    q = f"{ts.split('.')[0]}.900001"
    bot.event(message("can you rerun it with NCCL_DEBUG=INFO?", q, thread_ts=ts))
    wait_handled(bot, q)
    buttons = [e for b in replies(fake_slack)[-1].params["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert buttons and buttons[0]["action_id"].startswith("denpex_followup_")
    with redis.Redis.from_url(bot.redis_url) as r:
        assert r.delete(keys.thread(TEAM_ID, CHANNEL, ts)) == 1
    return buttons[0]


def test_a_topic_button_clicked_after_the_threads_context_expired_says_so(bot: Bot, fake_slack, sample):
    """A topic button (under a question the bot could not place) clicked after the thread's
    context expired (DENPEX_THREAD_TTL_S, 7 days): an ephemeral word to the one who clicked,
    saying what happened and what to do (paste the log again); nothing posted to the thread."""
    ts = "1700500100.000100"
    button = topic_button_of_an_expired_thread(bot, fake_slack, sample, ts)
    posts_before = len(replies(fake_slack))
    assert bot.action(button["action_id"], button["value"], thread_ts=ts).status == 200
    (said,) = fake_slack.wait_for("chat.postEphemeral", user="U0ALICE")
    assert said.params["channel"] == CHANNEL and said.params.get("thread_ts") == ts
    words = all_text(said).lower()
    assert "expired" in words and "paste the log again" in words, words
    assert len(replies(fake_slack)) == posts_before


# --- the Home tab's link to a DM diagnosis -------------------------------------------------------

def home(bot: Bot, fake_slack, user: str) -> dict:
    before = len(fake_slack.of("views.publish"))
    bot.event({"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": "home"})
    return fake_slack.wait_for("views.publish", count=before + 1)[-1].params["view"]


def test_the_home_tab_links_a_dm_diagnosis_to_the_dm_not_as_a_channel(bot: Bot, fake_slack, sample):
    """A diagnosis made in the DM with the bot is listed on its asker's Home tab with a link
    that opens that DM (Slack's `app_redirect?app=<app id>&team=<team>`), never `<#D…>`, a
    channel link to a DM id that Slack renders as a broken channel; a public channel's
    diagnosis stays a channel link."""
    bot.event(message(sample, "1700500200.000100", channel="D0ALICEDM", channel_type="im"))
    bot.event(message(sample, "1700500201.000100"))
    wait_handled(bot, "1700500200.000100", channel="D0ALICEDM")
    wait_handled(bot, "1700500201.000100")
    shown = json.dumps(home(bot, fake_slack, "U0ALICE"))
    assert "<#D" not in shown
    assert f"<https://slack.com/app_redirect?app=A0DENPEX&team={TEAM_ID}|" in shown
    assert f"<#{CHANNEL}>" in shown


# --- a slash command that is not ours ------------------------------------------------------------

@pytest.mark.parametrize("text", ["CUDA out of memory", ""], ids=["with-text", "without-text"])
def test_a_slash_command_other_than_denpex_gets_an_ephemeral_word_naming_denpex(bot: Bot, fake_slack, text):
    """`/denpex-dev` (an old command a workspace still has pointed at the app): Slack would show
    the person "dispatch_failed" for a 404. Answered 200 in the ack, ephemerally, naming the
    command typed and `/denpex`; nothing posted, nothing charged."""
    body = Bot.command_body(text).replace(b"command=%2Fdenpex&", b"command=%2Fdenpex-dev&")
    assert b"command=%2Fdenpex-dev&" in body
    reply = bot.post(body, "application/x-www-form-urlencoded")
    assert reply.status == 200, reply.body[:200]
    answer = reply.json()
    assert answer.get("response_type") == "ephemeral"
    words = answer["text"] + json.dumps(answer.get("blocks") or [])
    assert "/denpex-dev" in words and "`/denpex" in words
    assert not replies(fake_slack) and used(bot) == 0


# --- Socket Mode: the same screening and outage answers as HTTP ----------------------------------

@pytest.fixture
def socket_mode(fake_slack) -> Iterator[FakeSocketMode]:
    ws = FakeSocketMode()
    fake_slack.socket_url = ws.url
    fake_slack.reset()
    yield ws
    fake_slack.socket_url = None
    ws.stop()


def test_over_socket_mode_with_redis_down_a_first_delivery_gets_the_notice_and_a_retry_nothing(fake_slack, socket_mode):
    """Socket Mode marks every envelope with `retry_attempt` (0 on a first delivery), which Bolt
    hands on as X-Slack-Retry-Num: 0. With Redis down, the first delivery of a log is answered
    with the outage notice in its thread, as over HTTP; the re-delivery (retry_attempt 1) posts
    nothing more."""
    from tests.slack.test_socket_mode import SocketBot, envelope_body

    bot = SocketBot(fake_slack, f"redis://127.0.0.1:{free_port()}/0")
    try:
        (conn,) = socket_mode.wait_connections(1)
        ts = f"{time.time():.6f}"
        socket_mode.wait_ack(socket_mode.send_event(conn, envelope_body(SAMPLE_TEXT, ts, "U0ALICE", "EvSOCKDOWN1")))
        (notice,) = fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=20)
        assert "temporarily unavailable" in all_text(notice)
        socket_mode.wait_ack(socket_mode.send_event(conn, envelope_body(SAMPLE_TEXT, ts, "U0ALICE", "EvSOCKDOWN1"),
                                                    retry_attempt=1))
        time.sleep(1.0)  # dropped in the middleware, or posted within a second: nothing to wait on
        assert len([c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == ts]) == 1
    finally:
        bot.stop()


def _envelope(conn, kind: str, payload: object) -> str:
    """An envelope of `kind` carrying `payload` as is, on the open connection."""
    import uuid

    envelope_id = str(uuid.uuid4())
    conn.send_text(json.dumps({"envelope_id": envelope_id, "type": kind, "payload": payload,
                               "accepts_response_payload": kind != "events_api", "retry_attempt": 0, "retry_reason": ""}))
    return envelope_id


MISSHAPEN_OVER_SOCKET = [
    ("events_api", {"token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "type": "event_callback",
                    "event_id": "EvSOCKBAD01", "event": "not an event"}),
    ("events_api", {"token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "type": "event_callback",
                    "event_id": "EvSOCKBAD02"}),
    ("interactive", {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE"}, "actions": "nope"}),
    ("interactive", {"type": "view_submission", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE"}, "view": None}),
]


def test_over_socket_mode_misshapen_envelopes_are_acknowledged_and_the_bot_answers_on(fake_slack, socket_mode):
    """What the HTTP screen refuses with a 400 before Bolt sees it (an event_callback without an
    event, an interaction without actions or view; a payload that is not an object slack_sdk
    itself drops before any handler) reaches Bolt directly over Socket Mode: each envelope is
    acknowledged (an unacknowledged one is re-delivered, malformed again), nothing is posted,
    and the next log is answered. A slash command not ours is answered in its ack, as over HTTP,
    and a click on the diagnosis (an `interactive` envelope) in the thread."""
    from tests.slack.test_socket_mode import SocketBot, command_body, envelope_body

    url = slack_redis_url()
    redis.Redis.from_url(url).flushdb()
    bot = SocketBot(fake_slack, url)
    try:
        (conn,) = socket_mode.wait_connections(1)
        for kind, payload in MISSHAPEN_OVER_SOCKET:
            socket_mode.wait_ack(_envelope(conn, kind, payload))
        ts = f"{time.time():.6f}"
        socket_mode.wait_ack(socket_mode.send_event(conn, envelope_body(SAMPLE_TEXT, ts, "U0ALICE", "EvSOCKGOOD1")))
        (post,) = fake_slack.wait_for("chat.postMessage", timeout=20)
        assert post.params["thread_ts"] == ts and "cuda-oom" in all_text(post)
        other = socket_mode.wait_ack(socket_mode.send_command(conn, {**command_body("quota"), "command": "/denpex-dev"}))
        assert other is not None and other["response_type"] == "ephemeral" and "`/denpex`" in other["text"]
        # A click arrives as an `interactive` envelope: acknowledged, answered in the thread.
        click = {"type": "block_actions", "team": {"id": TEAM_ID, "domain": "test"}, "api_app_id": "A0DENPEX",
                 "user": {"id": "U0ALICE", "team_id": TEAM_ID}, "trigger_id": f"{time.time_ns()}.socket.click",
                 "container": {"type": "message", "message_ts": post.params["thread_ts"], "channel_id": CHANNEL,
                               "is_ephemeral": False, "thread_ts": ts},
                 "channel": {"id": CHANNEL, "name": "training"},
                 "message": {"type": "message", "ts": f"{float(ts) + 1:.6f}", "thread_ts": ts, "text": "x"},
                 "actions": [{"action_id": "denpex_full_entry", "block_id": "b", "type": "button", "value": "cuda-oom",
                              "action_ts": str(time.time())}]}
        socket_mode.wait_ack(_envelope(conn, "interactive", click))
        entry = fake_slack.wait_for("chat.postMessage", count=2, timeout=20)[1]
        assert entry.params["thread_ts"] == ts and "CUDA Out of Memory" in all_text(entry)
        assert bot.proc.poll() is None
    finally:
        bot.stop()
        redis.Redis.from_url(url).flushdb()


# --- a response_url past its life ----------------------------------------------------------------

def test_a_button_on_an_old_ephemeral_lookup_answers_though_its_response_url_expired(bot: Bot, fake_slack):
    """"Show" under a private /denpex lookup clicked after its response_url expired (Slack keeps
    one for 30 minutes and 5 uses; the ephemeral message stays on screen longer): the entry
    still reaches that person alone, as an ephemeral message in the channel, not nothing."""
    payload = ephemeral_show_click(fake_slack.base + "/response/expired/T0TEST001", "1700500300.000100", "1.2.expired")
    body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
    assert bot.post(body, "application/x-www-form-urlencoded").status == 200
    (said,) = fake_slack.wait_for("chat.postEphemeral", user="U0ALICE")
    assert said.params["channel"] == CHANNEL and "CUDA Out of Memory" in all_text(said)
    assert replies(fake_slack) == []


# --- uploads and mentions in threads -------------------------------------------------------------

def test_a_log_file_uploaded_as_a_reply_is_answered_in_that_thread(bot: Bot, fake_slack, sample):
    """A file shared as a reply in a thread (its `file_share` message carries `thread_ts`): the
    diagnosis goes in that thread, not under the reply as a new one."""
    f = fake_slack.add_file(FakeFile(id="F0INTHREAD1", name="rank3.log", content=sample.encode()))
    parent, ts = "1700500400.000100", "1700500401.000100"
    bot.event(message("", ts, subtype="file_share", files=[f], thread_ts=parent))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == parent and "cuda-oom" in all_text(post) and used(bot) == 1


def test_a_mention_with_a_log_that_arrives_only_as_app_mention_is_diagnosed(bot: Bot, fake_slack, sample):
    """Where the `message` event never comes (a channel whose history the app cannot read), the
    `app_mention` alone carries the log: diagnosed once in its thread and charged once."""
    ts = "1700500410.000100"
    bot.event({"type": "app_mention", "channel": CHANNEL, "user": "U0ALICE", "text": f"<@{BOT_USER_ID}> {sample}",
               "ts": ts, "team": TEAM_ID})
    post = fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=20)[0]
    wait_handled(bot, ts)
    assert "cuda-oom" in all_text(post) and len(replies(fake_slack)) == 1 and used(bot) == 1


@pytest.mark.parametrize("mention", [True, False], ids=["mention", "no-mention"])
def test_a_question_in_a_thread_whose_context_expired_says_so(bot: Bot, fake_slack, sample, mention):
    """`@denpex how do I confirm this?` (or the question without the mention, which a live
    thread answers too) in a diagnosis thread older than the thread's context: one reply in
    the thread saying the diagnosis expired and to paste the log again, not help text as if
    nothing had been diagnosed. Talk between people there still gets nothing."""
    ts = "1700500120.000100"
    bot.event(message(sample, ts))
    wait_handled(bot, ts)
    with redis.Redis.from_url(bot.redis_url) as r:
        assert r.delete(keys.thread(TEAM_ID, CHANNEL, ts)) == 1
    chat = "1700500121.000050"
    bot.event(message("thanks, will do!", chat, thread_ts=ts))
    wait_handled(bot, chat)
    q = "1700500121.000100"
    text = f"<@{BOT_USER_ID}> how do I confirm this?" if mention else "how do I confirm this?"
    bot.event(message(text, q, thread_ts=ts))
    if mention:
        bot.event({"type": "app_mention", "channel": CHANNEL, "user": "U0ALICE", "text": text, "ts": q,
                   "thread_ts": ts, "team": TEAM_ID})
        time.sleep(1.5)  # the app_mention waits a second for the message event
    wait_handled(bot, q)
    posts = replies(fake_slack)
    assert len(posts) == 2, [all_text(p)[:200] for p in posts]
    words = all_text(posts[1]).lower()
    assert posts[1].params["thread_ts"] == ts and "expired" in words and "paste the log again" in words, words[:400]
