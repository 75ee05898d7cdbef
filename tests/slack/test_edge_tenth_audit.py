"""Tenth audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

Slack's shapes used here, from its reference pages: an ephemeral message (chat.postEphemeral)
is seen only by the user it names and is not kept: no API reads it back, so one whose post had
an unknown outcome (a 5xx: Slack may have posted it) cannot be looked for before it is sent
again. An upload arrives as a `message` with subtype `file_share` whose `files[]` carry the
`mimetype` and `filetype` Slack assigned (`image/png` / `png`, `application/pdf` / `pdf`)."""

from __future__ import annotations

import json
import time
import urllib.parse

import pytest

from bot.store import Store, StoreConfig
from tests.slack import test_edge_sixth_audit as e6
from tests.slack.conftest import Bot, Reply, quiesce, wait_handled
from tests.slack.events import OOM_PASTE, all_text, file_shared, message, used
from tests.slack.fake_slack import TEAM_ID, FakeFile, FakeSlack

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + b"stream" * 50


def posts_in(fake: FakeSlack, thread_ts: str) -> list:
    return [c for c in fake.of("chat.postMessage") if c.params.get("thread_ts") == thread_ts]


def downloads(fake: FakeSlack) -> list:
    return fake.of("files.download")


# --- an ephemeral answer Slack answered with a 5xx ----------------------------------------------

@pytest.mark.parametrize("status", [500, 503])
@pytest.mark.parametrize("vote", ["denpex_feedback_right", "denpex_feedback_wrong"])
def test_a_votes_thanks_answered_with_a_5xx_after_slack_posted_it_is_not_posted_again(bot: Bot, fake_slack, status, vote):
    """chat.postEphemeral (the thanks for a feedback vote) answered 500/503 after Slack had
    shown it: an ephemeral message cannot be looked for, so it is not sent again blindly (the
    person saw "Thanks" twice); the vote is counted once."""
    fake_slack.fail("chat.postEphemeral", status, posted=True)
    assert bot.action(vote, "cuda-oom").status == 200
    fake_slack.wait_for("chat.postEphemeral")
    quiesce(bot, fake_slack, quiet_s=0.6)
    assert len(fake_slack.of("chat.postEphemeral")) == 1
    with Store(StoreConfig(url=bot.redis_url)) as store:
        (row,) = [r for r in store.feedback.summary() if r.rule_id == "cuda-oom"]
    assert row.right + row.wrong == 1


def test_an_expired_topic_buttons_word_answered_with_a_5xx_is_not_posted_again(bot: Bot, fake_slack):
    """The ephemeral "this thread's context expired" for a topic button, answered 503 after
    Slack showed it: shown once."""
    fake_slack.fail("chat.postEphemeral", 503, posted=True)
    value = '{"t": "cuda-oom", "q": "which rank?"}'
    assert bot.action("denpex_followup_0", value, thread_ts="1701000000.000100").status == 200
    (said,) = fake_slack.wait_for("chat.postEphemeral")
    assert "expired" in all_text(said).lower()
    quiesce(bot, fake_slack, quiet_s=0.6)
    assert len(fake_slack.of("chat.postEphemeral")) == 1


# --- a screenshot or a PDF with no log ------------------------------------------------------------

def _image(fake: FakeSlack, name: str = "loss-curve.png", fid: str = "FIMG10001") -> dict:
    return fake.add_file(FakeFile(id=fid, name=name, content=PNG, filetype="png", mimetype="image/png"))


def _pdf(fake: FakeSlack, name: str = "report.pdf", fid: str = "FPDF10001") -> dict:
    return fake.add_file(FakeFile(id=fid, name=name, content=PDF, filetype="pdf", mimetype="application/pdf"))


ALONE = {  # what is uploaded, and the word for it
    "image": (FakeFile(id="FALONE001", name="loss-curve.png", content=PNG, filetype="png", mimetype="image/png"), "an image"),
    "pdf": (FakeFile(id="FALONE002", name="report.pdf", content=PDF, filetype="pdf", mimetype="application/pdf"), "a PDF"),
    "zip": (FakeFile(id="FALONE003", name="run-42.zip", content=b"PK\x03\x04" + bytes(200), filetype="zip",
                     mimetype="application/zip"), "an archive"),
    "video": (FakeFile(id="FALONE004", name="screen.mov", content=bytes(200), filetype="mov", mimetype="video/quicktime"),
              "a video"),
}


@pytest.mark.parametrize("kind", list(ALONE))
def test_a_screenshot_or_pdf_uploaded_alone_gets_a_word_about_images_or_pdfs(bot: Bot, fake_slack, kind):
    """A screenshot (a PDF, an archive, a screen recording) uploaded with no text: one reply
    in its thread saying what it is, that the bot does not read it, and what to send instead
    (the error as text, or the log file); not "I could not read this log", no :x: as for a
    failed diagnosis, nothing downloaded, nothing charged."""
    spec, word = ALONE[kind]
    f = fake_slack.add_file(spec)
    ts = "1701000100.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = posts_in(fake_slack, ts)
    words = all_text(post)
    assert f"{f['name']} is {word}, not a log file I read" in words, words
    assert "paste the error as text" in words, words
    assert "could not read this log" not in words, words
    assert not [c for c in fake_slack.of("reactions.add") if c.params.get("name") == "x"]
    assert not downloads(fake_slack)
    assert used(bot) == 0


def test_a_screenshot_arriving_only_as_file_shared_gets_the_word_under_its_message(bot: Bot, fake_slack):
    """A screenshot whose `message` event never comes (only `file_shared`): the same word,
    once, under the message files.info names."""
    ts = "1701000105.000100"
    fake_slack.add_file(FakeFile(id="FALONE005", name="nvidia-smi.png", content=PNG, filetype="png", mimetype="image/png",
                                 shares={"public": {"C0LOGS": [{"ts": ts}]}}))
    bot.event(file_shared("FALONE005"))
    wait_handled(bot, ts)
    (post,) = posts_in(fake_slack, ts)
    assert "nvidia-smi.png is an image, not a log file I read" in all_text(post)
    assert not downloads(fake_slack)


def test_several_screenshots_alone_get_one_word_naming_each(bot: Bot, fake_slack):
    """Two screenshots in one message, no text: one reply naming both."""
    a, b = _image(fake_slack, "a.png", "FIMG10002"), _image(fake_slack, "b.png", "FIMG10003")
    ts = "1701000110.000100"
    bot.event(message("", ts, subtype="file_share", files=[a, b]))
    wait_handled(bot, ts)
    (post,) = posts_in(fake_slack, ts)
    assert "a.png" in all_text(post) and "b.png" in all_text(post)


@pytest.mark.parametrize("kind", ["image", "pdf"])
def test_a_screenshot_or_pdf_with_talk_beside_it_in_a_channel_gets_nothing(bot: Bot, fake_slack, kind):
    """A screenshot of a loss curve (or a paper as a PDF) shared in a channel with words for
    colleagues ("look at this spike"): people talking, as chatter in a channel gets nothing;
    nothing posted, downloaded or charged."""
    f = _image(fake_slack) if kind == "image" else _pdf(fake_slack)
    ts = "1701000120.000100"
    bot.event(message("look at this spike at step 4k, any ideas?", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    assert not fake_slack.of("chat.postMessage")
    assert not downloads(fake_slack)
    assert used(bot) == 0


@pytest.mark.parametrize("kind", ["image", "pdf"])
@pytest.mark.parametrize("where", ["mention", "dm"])
def test_a_screenshot_or_pdf_sent_to_the_bot_with_words_gets_the_word(bot: Bot, fake_slack, kind, where):
    """The same upload with words addressed to the bot (a mention, or in its DM): the word
    about images (PDFs), not help and not silence."""
    f = _image(fake_slack) if kind == "image" else _pdf(fake_slack)
    ts = "1701000130.000100"
    if where == "mention":
        event = message("<@UBOT0001> what's wrong here?", ts, subtype="file_share", files=[f])
    else:
        event = message("what's wrong here?", ts, subtype="file_share", files=[f], channel="D0ALICE", channel_type="im")
    bot.event(event)
    wait_handled(bot, ts, channel=event["channel"])
    (post,) = [c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == ts]
    words = all_text(post)
    assert f["name"] in words and "not a log file I read" in words, words
    assert used(bot) == 0


def test_a_screenshot_beside_a_pasted_log_is_not_mentioned(bot: Bot, fake_slack):
    """A screenshot beside a pasted log: the log diagnosed, charged once, the image neither
    downloaded nor named."""
    f = _image(fake_slack)
    ts = "1701000140.000100"
    bot.event(message(f"```{OOM_PASTE}```", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = posts_in(fake_slack, ts)
    assert "loss-curve.png" not in all_text(post) and "out of memory" in all_text(post).lower()
    assert not downloads(fake_slack)
    assert used(bot) == 1


# --- /denpex spelled as people spell a request for help ----------------------------------------

@pytest.mark.parametrize("text", ["--help", "-h", "-help", "?", "??", "help?", "HELP?", "/?", "--HELP"])
def test_help_asked_as_a_flag_or_a_question_mark_gets_help(bot: Bot, text):
    """`/denpex --help`, `-h`, `?`, `help?`: how command-line and chat users ask for help. The
    help (an ephemeral list of what the bot does), not a lookup of the words (`--help` found an
    entry whose text holds "help"; `?` said "No entry matches"), and no lookup charged to the
    person's per-user limit."""
    answer = bot.command(text).json()
    assert answer["response_type"] == "ephemeral"
    assert answer["text"] == "Denpex help", answer["text"]


@pytest.mark.parametrize("text", ["show cuda-oom please", "show cuda-oom, thanks", "show `cuda-oom` now"])
def test_show_with_words_after_the_id_shows_the_entry(bot: Bot, text):
    """`/denpex show cuda-oom please`: the id is the first word; the entry, not "No entry with
    id `cuda-oom please`"."""
    answer = bot.command(text).json()
    assert "No entry" not in answer["text"], answer["text"]
    assert "cuda-oom" in str(answer["blocks"])


def test_show_of_an_unknown_id_with_words_after_it_still_says_no_entry(bot: Bot):
    assert "No entry with id" in bot.command("show no-such-entry please").json()["text"]


# --- clicks whose payload Slack would never send -------------------------------------------------

def _click(bot: Bot, action: dict, trigger: str, **fields) -> Reply:
    payload = {
        "type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE", "team_id": TEAM_ID},
        "api_app_id": "A0DENPEX", "trigger_id": trigger, "channel": {"id": "C0LOGS"},
        "container": {"type": "message", "message_ts": "1701000200.000200", "channel_id": "C0LOGS",
                      "thread_ts": "1701000200.000100"},
        "message": {"type": "message", "ts": "1701000200.000200", "thread_ts": "1701000200.000100", "text": "x"},
        "actions": [action], **fields,
    }  # fmt: skip
    return bot.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(), "application/x-www-form-urlencoded")


OUR_BUTTONS = ["denpex_feedback_right", "denpex_feedback_wrong", "denpex_related_0", "denpex_full_entry",
               "denpex_show_cuda-oom", "denpex_followup_0"]


@pytest.mark.parametrize("value", [5, True, {"id": "cuda-oom"}, ["cuda-oom"]], ids=["number", "true", "object", "list"])
def test_a_click_on_our_button_whose_value_is_not_a_string_is_acked_and_does_nothing(bot: Bot, fake_slack, value):
    """A signed click on one of our buttons whose `value` is a number, true, an object or a list
    (Slack's button value is a string: a hand-made or fuzzed payload): 200, nothing posted,
    no traceback (was "Denpex hit an internal error" and an AttributeError logged for each);
    the next real click answered."""
    for n, action_id in enumerate(OUR_BUTTONS):
        reply = _click(bot, {"action_id": action_id, "block_id": "b", "type": "button", "value": value}, f"1.2.{n}")
        assert reply.status == 200
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert not fake_slack.of("chat.postMessage") and not fake_slack.of("chat.postEphemeral")
    assert bot.action("denpex_feedback_right", "cuda-oom").status == 200
    fake_slack.wait_for("chat.postEphemeral")


@pytest.mark.parametrize("field", ["user", "container", "channel", "message"])
def test_a_click_whose_user_container_channel_or_message_is_not_an_object_is_refused(bot: Bot, fake_slack, field):
    """A signed block_actions whose `user`, `container`, `channel` or `message` is a string
    where Slack sends an object: 400 with X-Slack-No-Retry, as for the other payloads read
    blindly (was a traceback, Bolt's "Failed to run an internal function", and nothing said,
    or "internal error"); nothing posted; the next click answered. (`team` as a string Bolt
    reads as the id, as it does in other payloads: answered.)"""
    action = {"action_id": "denpex_related_0", "block_id": "b", "type": "button", "value": "cuda-oom"}
    reply = _click(bot, action, "1.3.1", **{field: "C0LOGS"})
    assert reply.status == 400  # (every 400 of the screen carries X-Slack-No-Retry: e7)
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert not fake_slack.of("chat.postMessage") and not fake_slack.of("chat.postEphemeral")
    assert bot.action("denpex_feedback_right", "cuda-oom").status == 200
    fake_slack.wait_for("chat.postEphemeral")


# --- events whose ids are not what Slack sends ----------------------------------------------------

def _signed_event(bot: Bot, event: dict, **envelope) -> Reply:
    body = {"type": "event_callback", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "event": event,
            "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM_ID, "user_id": "UBOT0001", "is_bot": True}], **envelope}
    return bot.post(json.dumps(body).encode(), "application/json")


PASTED = f"```{OOM_PASTE}```"
ODD_EVENTS = {
    # What Bolt reads before any listener (who and where): a number there was a TypeError, a 500
    # with waitress's traceback, and Slack re-sending it three times.
    "channel-number": ({"type": "message", "channel": 5, "user": "U0ALICE", "text": PASTED, "ts": "1701000300.000100"}, {}),
    "user-number": ({"type": "message", "channel": "C0LOGS", "user": 5, "text": PASTED, "ts": "1701000301.000100"}, {}),
    "user-true": ({"type": "app_mention", "channel": "C0LOGS", "user": True, "text": "<@UBOT0001> hi", "ts": "1701000302.000100"}, {}),
    "home-user-number": ({"type": "app_home_opened", "user": 7, "channel": "D0HOME", "tab": "home"}, {}),
    "edit-user-number": ({"type": "message", "subtype": "message_changed", "channel": "C0LOGS", "ts": "1701000303.000100",
                          "message": {"user": 5, "text": PASTED, "ts": "1701000300.000100"}}, {}),
    "authorizations-string": ({"type": "message", "channel": "C0LOGS", "user": "U0ALICE", "text": PASTED, "ts": "1701000304.000100"},
                              {"authorizations": "T0TEST001"}),
    "authorizations-of-numbers": ({"type": "message", "channel": "C0LOGS", "user": "U0ALICE", "text": PASTED, "ts": "1701000305.000100"},
                                  {"authorizations": [5]}),
    # What the bot keys a message's claim and reply by: an object there was "Denpex hit an
    # internal error"; a number for `ts` or `thread_ts` was the diagnosis *and* "Something went
    # wrong" under it.
    "channel-object": ({"type": "message", "channel": {"id": "C0LOGS"}, "user": "U0ALICE", "text": PASTED, "ts": "1701000306.000100"}, {}),
    "user-object": ({"type": "message", "channel": "C0LOGS", "user": {"id": "U0ALICE"}, "text": PASTED, "ts": "1701000307.000100"}, {}),
    "home-user-object": ({"type": "app_home_opened", "user": {"id": "U0ALICE"}, "channel": "D0HOME", "tab": "home"}, {}),
    "ts-number": ({"type": "message", "channel": "C0LOGS", "user": "U0ALICE", "text": PASTED, "ts": 1701000308.0001}, {}),
    "thread-ts-number": ({"type": "message", "channel": "C0LOGS", "user": "U0ALICE", "text": PASTED, "ts": "1701000309.000100",
                          "thread_ts": 1701000300.0001}, {}),
}


@pytest.mark.parametrize("case", list(ODD_EVENTS))
def test_an_event_whose_ids_are_not_what_slack_sends_is_refused_without_a_crash(bot: Bot, fake_slack, case):
    """A signed event whose user, channel or message stamp is a number (or, in a message, an
    object) where Slack sends a string id, or whose `authorizations` is no list of objects:
    400 with X-Slack-No-Retry like the other bodies refused for their shape; nothing posted,
    nothing charged, no traceback; the next log answered."""
    event, envelope = ODD_EVENTS[case]
    assert _signed_event(bot, event, **envelope).status == 400
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert not fake_slack.of("chat.postMessage") and not fake_slack.of("views.publish")
    assert used(bot) == 0
    ts = "1701000310.000100"
    assert _signed_event(bot, {"type": "message", "channel": "C0LOGS", "user": "U0ALICE", "text": PASTED, "ts": ts,
                               "channel_type": "channel"}).status == 200
    wait_handled(bot, ts)
    assert len(posts_in(fake_slack, ts)) == 1


# The real bot in Socket Mode against the stand-in's WebSocket (e6's fixture).
socket_bot = e6.socket_bot


def test_over_socket_mode_an_event_whose_ids_are_not_what_slack_sends_is_acknowledged(fake_slack, socket_bot):
    """The same events over Socket Mode: Bolt's context builder raised before any answer, so
    the envelope went unacknowledged and Slack would re-deliver it. Each is acknowledged,
    nothing posted, the next log answered."""
    _, ws = socket_bot
    (conn,) = ws.wait_connections(1)
    for case in ("channel-number", "user-number", "home-user-number", "ts-number"):
        event, envelope = ODD_EVENTS[case]
        ws.wait_ack(e6._send(conn, "events_api", {**e6._callback(event), **envelope}))
    ts = f"{time.time():.6f}"
    ws.wait_ack(e6._send(conn, "events_api", e6._callback(message(PASTED, ts))))
    (post,) = fake_slack.wait_for("chat.postMessage", timeout=20)
    assert post.params["thread_ts"] == ts and "out of memory" in all_text(post).lower()


@pytest.mark.parametrize("tokens", [["UBOT0001"], {"bot": "UBOT0001"}, {"oauth": 5, "bot": []}, {"bot": [5]}],
                         ids=["a-list", "bot-a-string", "oauth-a-number", "bot-ids-numbers"])
def test_a_tokens_revoked_whose_tokens_are_not_lists_of_ids_forgets_nothing(bot: Bot, fake_slack, tokens):
    """`tokens_revoked` carries `tokens: {"oauth": [user ids], "bot": [bot user ids]}`. One whose
    tokens are not that (a list, a string where the list goes, numbers): 400, and the
    workspace's data stays (a string for `bot` was taken as naming the bot and the workspace
    forgotten; a list was an AttributeError and a traceback)."""
    with Store(StoreConfig(url=bot.redis_url)) as store:
        store.history.record(TEAM_ID, "C0LOGS", "cuda-oom", "CUDA Out of Memory", "high", 3)
        assert _signed_event(bot, {"type": "tokens_revoked", "tokens": tokens}).status == 400
        quiesce(bot, fake_slack, quiet_s=0.5)
        assert store.history.recent(TEAM_ID, 5, viewer=None)


@pytest.mark.parametrize(("kind", "field"), [
    ("shortcut", "callback_id"), ("message_action", "callback_id"), ("dialog_submission", "callback_id"),
    ("interactive_message", "callback_id"), ("block_suggestion", "action_id"), ("dialog_suggestion", "callback_id"),
])
def test_an_interaction_whose_callback_or_action_id_is_a_number_is_refused_without_a_crash(bot: Bot, fake_slack, kind, field):
    """A signed shortcut, message action, legacy dialog or attachment button, or an options
    request whose `callback_id` / `action_id` is a number: Bolt's matchers search it as text (a
    TypeError: a 500 and "Failed to run a middleware" with a traceback). 400 with
    X-Slack-No-Retry, as for a click whose action_id is not a string (199); the next click
    answered."""
    payload = {"type": kind, "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE"}, "trigger_id": "1.4.1",
               "channel": {"id": "C0LOGS"}, "message": {"ts": "1701000400.000100", "text": "x"}, "value": "x",
               "actions": [{"name": "a", "value": "b"}], field: 5}
    reply = bot.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(), "application/x-www-form-urlencoded")
    assert reply.status == 400
    assert bot.action("denpex_feedback_right", "cuda-oom").status == 200
    fake_slack.wait_for("chat.postEphemeral")
