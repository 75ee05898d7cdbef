"""Eleventh audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

Slack's shapes used here, from its reference pages: `url_verification` carries a `challenge`
string the app echoes; a global shortcut (`type: shortcut`) carries a `trigger_id` (a modal can
be opened with it for 3 s) and no `response_url`; a message shortcut (`message_action`) carries
a `response_url`; a `response_url` takes up to 5 posts in 30 minutes; chat.postMessage answers
`msg_too_long` when the message's text is too long. In a shared (Slack Connect) channel a file of
the other organization comes in `files[]` as `file_access: access_denied`, with no name or URL;
a file past a free plan's file history limit is `mode: hidden_by_limit`, with no URL."""

from __future__ import annotations

import json
import time
import urllib.parse
from types import SimpleNamespace

import pytest

from tests.followup import test_slack_followups as fu
from tests.ports import free_port
from tests.slack import test_edge_sixth_audit as e6
from tests.slack import test_oauth as oa
from tests.slack.conftest import Bot, quiesce, wait_handled
from tests.slack.events import (
    LIVE_MRKDWN,
    OOM_PASTE,
    all_text,
    ephemeral_show_click,
    message,
    mrkdwn_strings,
    used,
)
from tests.slack.fake_slack import TEAM_ID, FakeFile, FakeSlack


def posts_in(fake: FakeSlack, thread_ts: str) -> list:
    return [c for c in fake.of("chat.postMessage") if c.params.get("thread_ts") == thread_ts]


def _interactive(bot: Bot, payload: dict):
    return bot.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(), "application/x-www-form-urlencoded")


# --- a handshake or a shortcut missing what Slack always sends -------------------------------------

@pytest.mark.parametrize("challenge", ["absent", None, 5, {"a": 1}, ""], ids=["absent", "null", "number", "object", "empty"])
def test_a_url_verification_without_a_challenge_string_is_refused(bot: Bot, fake_slack, challenge):
    """Slack's `url_verification` always carries a `challenge` string, which the app echoes to
    prove it owns the URL. One without it (absent, null, a number, an object, empty) is no
    handshake: 400 with X-Slack-No-Retry, not a 200 answering `{"challenge": null}`; the real
    handshake still answered."""
    body: dict = {"token": "legacy", "type": "url_verification"}
    if challenge != "absent":
        body["challenge"] = challenge
    reply = bot.post(json.dumps(body).encode(), "application/json")
    assert reply.status == 400, (reply.status, reply.body)
    good = bot.post(json.dumps({"token": "legacy", "type": "url_verification", "challenge": "3eZbrw1aB"}).encode(),
                    "application/json")
    assert good.status == 200 and good.json() == {"challenge": "3eZbrw1aB"}


def _shortcut(kind: str, callback_id: str | None, response_url: str, trigger: str) -> dict:
    payload = {"type": kind, "team": {"id": TEAM_ID, "domain": "test"}, "user": {"id": "U0ALICE", "team_id": TEAM_ID},
               "api_app_id": "A0DENPEX", "token": "legacy", "trigger_id": trigger, "action_ts": f"{time.time():.6f}"}
    if callback_id is not None:
        payload["callback_id"] = callback_id
    if kind == "message_action":
        payload.update({"channel": {"id": "C0LOGS", "name": "training"}, "message_ts": "1701100000.000100",
                        "message": {"type": "message", "user": "U0BOB", "ts": "1701100000.000100", "text": OOM_PASTE},
                        "response_url": response_url})
    return payload


@pytest.mark.parametrize("kind", ["shortcut", "message_action"])
def test_a_shortcut_without_a_callback_id_is_refused_without_a_crash(bot: Bot, fake_slack, kind):
    """Slack's shortcuts always name their `callback_id`. Without one, no listener (the
    catch-all for shortcuts of no listener included) matched: Bolt's 404 "unhandled request",
    which Slack shows the person as an error. 400 with X-Slack-No-Retry, as for the other
    payloads refused for their shape; the next click answered."""
    reply = _interactive(bot, _shortcut(kind, None, fake_slack.base + "/response/T0TEST001/x", "1.11.3"))
    assert reply.status == 400, (reply.status, reply.body)
    assert bot.action("denpex_feedback_right", "cuda-oom").status == 200
    fake_slack.wait_for("chat.postEphemeral")


# --- shortcuts the app has no listener for --------------------------------------------------------

@pytest.mark.parametrize("kind", ["shortcut", "message_action"])
def test_a_shortcut_of_no_listener_opens_a_modal_saying_what_denpex_does(bot: Bot, fake_slack, kind):
    """A global shortcut, or a message shortcut ("Diagnose this message"), that the app config
    names but the bot does not define: acknowledged at once (was too), then a modal opened
    with its trigger_id saying Denpex has no such shortcut and how to ask it (paste or upload
    a log, `/denpex`); was nothing at all, Slack showing no sign it ran. Nothing posted to a
    channel, nothing said through the response_url as well."""
    payload = _shortcut(kind, "diagnose_log", fake_slack.base + "/response/T0TEST001/shortcut", "1.11.1")
    reply = _interactive(bot, payload)
    assert reply.status == 200 and not reply.body
    (opened,) = fake_slack.wait_for("views.open")
    assert opened.params["trigger_id"] == "1.11.1"
    view = opened.params["view"]
    assert view["type"] == "modal" and len(view["title"]["text"]) <= 24
    words = json.dumps(view)
    assert "diagnose_log" in words and "/denpex" in words and "paste its log" in words, words
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert not fake_slack.of("chat.postMessage") and not fake_slack.responses


def test_a_shortcut_whose_modal_slack_refuses_is_no_crash(bot: Bot, fake_slack):
    """views.open refused (`expired_trigger_id`: the 3 s passed) or answered 500: logged,
    not opened twice, no traceback; the next shortcut gets its modal."""
    fake_slack.fail("views.open", 200, body={"ok": False, "error": "expired_trigger_id"})
    fake_slack.fail("views.open", 500)
    for trigger in ("1.11.4", "1.11.5"):
        assert _interactive(bot, _shortcut("shortcut", "diagnose_log", "", trigger)).status == 200
        fake_slack.wait_for("views.open", trigger_id=trigger)
    assert _interactive(bot, _shortcut("shortcut", "diagnose_log", "", "1.11.6")).status == 200
    fake_slack.wait_for("views.open", trigger_id="1.11.6")
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert len(fake_slack.of("views.open")) == 3


# The real bot in Socket Mode against the stand-in's WebSocket (e6's fixture).
socket_bot = e6.socket_bot


def test_over_socket_mode_a_shortcut_of_no_listener_opens_the_modal_and_one_without_an_id_is_acknowledged(fake_slack, socket_bot):
    """The same over Socket Mode: a shortcut the bot does not define is acknowledged and gets
    its modal; one without a callback_id is acknowledged and dropped (an envelope left
    unacknowledged is re-delivered)."""
    _, ws = socket_bot
    (conn,) = ws.wait_connections(1)
    ws.wait_ack(e6._send(conn, "interactive", _shortcut("shortcut", None, "", "1.11.7")))
    ws.wait_ack(e6._send(conn, "interactive", _shortcut("message_action", "diagnose_log", "", "1.11.8")))
    (opened,) = fake_slack.wait_for("views.open", timeout=20)
    assert opened.params["trigger_id"] == "1.11.8" and "diagnose_log" in json.dumps(opened.params["view"])


# --- an ephemeral answer through a response_url of unknown outcome --------------------------------

@pytest.mark.parametrize("how", ["reset", "5xx"])
def test_an_ephemeral_entry_whose_response_url_post_had_an_unknown_outcome_is_shown_once(bot: Bot, fake_slack, how):
    """"Show" under a private /denpex lookup; Slack shows the entry through the response_url,
    then the connection is reset before its 200 (or it answers 503). Bolt's `respond()` sent it
    again on a reset (slack_sdk's webhook client retries one), and the bot then sent it again
    by chat.postEphemeral as for an expired response_url: the person saw the entry two or three
    times. An answer of unknown outcome is not sent again: shown once."""
    payload = ephemeral_show_click(fake_slack.base + f"/response/{how}/T0TEST001", "1701100100.000100", f"1.11.{how}")
    assert _interactive(bot, payload).status == 200
    deadline = time.monotonic() + 10
    while not fake_slack.responses and time.monotonic() < deadline:
        time.sleep(0.02)
    # slack_sdk's webhook retry came 0.5-1.5 s later; its fallback by chat.postEphemeral after.
    time.sleep(2.5)
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert len(fake_slack.responses) == 1
    assert not fake_slack.of("chat.postEphemeral") and not fake_slack.of("chat.postMessage")


def test_an_ephemeral_entry_whose_response_url_cannot_be_reached_comes_by_post_ephemeral(bot: Bot, fake_slack):
    """The response_url refuses the connection (nothing sent, so nothing shown): the entry
    still reaches that person alone, by chat.postEphemeral, once."""
    payload = ephemeral_show_click(f"http://127.0.0.1:{free_port()}/response/T0TEST001", "1701100110.000100", "1.11.refused")
    assert _interactive(bot, payload).status == 200
    (said,) = fake_slack.wait_for("chat.postEphemeral")
    assert said.params["user"] == "U0ALICE" and "CUDA Out of Memory" in all_text(said)
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert len(fake_slack.of("chat.postEphemeral")) == 1 and not fake_slack.of("chat.postMessage")


def test_a_button_on_an_ephemeral_lookup_without_a_response_url_stays_private(bot: Bot, fake_slack):
    """"Show" under a private lookup whose click carries no `response_url`: the entry goes to
    that person alone by chat.postEphemeral (was posted to the channel, for everyone: what one
    person looked up privately is not posted there)."""
    payload = ephemeral_show_click("", "1701100120.000100", "1.11.nourl")
    del payload["response_url"]
    assert _interactive(bot, payload).status == 200
    (said,) = fake_slack.wait_for("chat.postEphemeral")
    assert said.params["user"] == "U0ALICE" and "CUDA Out of Memory" in all_text(said)
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert not fake_slack.of("chat.postMessage")


# --- msg_too_long ---------------------------------------------------------------------------------

def test_a_diagnosis_slack_calls_too_long_is_posted_shorter_once(bot: Bot, fake_slack):
    """chat.postMessage answering `msg_too_long` (Slack posted nothing): the diagnosis posted
    again shorter (its short fallback text alone), once, charged once, marked answered (was:
    taken as a refusal for good: nothing said, :x:, the charge refunded)."""
    fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": "msg_too_long"})
    ts = "1701100200.000100"
    bot.event(message(f"```{OOM_PASTE}```", ts))
    wait_handled(bot, ts)
    first, landed = posts_in(fake_slack, ts)
    assert first.params.get("blocks") and not landed.params.get("blocks")
    assert "out of memory" in landed.params["text"].lower()
    assert used(bot) == 1
    assert [c.params["name"] for c in fake_slack.of("reactions.add")][-1] == "white_check_mark"


def test_a_long_answer_slack_calls_too_long_keeps_its_blocks_with_a_shorter_text(bot: Bot, fake_slack):
    """An answer whose fallback text is long (an unmatched log quotes its most telling line)
    refused `msg_too_long`: first posted again with the text cut short and the blocks kept
    (they carry the answer); once."""
    fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": "msg_too_long"})
    ts = "1701100205.000100"
    line = "RuntimeError: the frobnicator " + "refused to frob the widget " * 100
    bot.event(message(f"```Traceback (most recent call last):\n{line}\n```", ts))
    wait_handled(bot, ts)
    first, landed = posts_in(fake_slack, ts)
    assert len(first.params["text"]) > 1000 >= len(landed.params["text"])
    assert landed.params.get("blocks") == first.params.get("blocks")


def test_a_diagnosis_slack_calls_too_long_every_time_charges_nothing(bot: Bot, fake_slack):
    """`msg_too_long` to the shorter post too: tried twice in all (nothing shorter is left to
    send), nothing charged, and the next log answered."""
    fake_slack.fail("chat.postMessage", 200, times=2, body={"ok": False, "error": "msg_too_long"})
    ts = "1701100210.000100"
    bot.event(message(f"```{OOM_PASTE}```", ts))
    wait_handled(bot, ts)
    assert len(posts_in(fake_slack, ts)) == 2
    assert used(bot) == 0
    ts2 = "1701100220.000100"
    bot.event(message(f"```{OOM_PASTE}```", ts2))
    wait_handled(bot, ts2)
    assert len(posts_in(fake_slack, ts2)) == 1 and used(bot) == 1


# --- slash command text holding Slack's markup ----------------------------------------------------

@pytest.mark.parametrize("text", ["show <!channel>", "show <@U0BOB|bob>", "<!here> CUDA error: out of memory <#C0LOGS|training>",
                                  "show <https://evil.example|cuda-oom>"])
def test_a_slash_command_echoing_slack_markup_never_renders_it_live(bot: Bot, fake_slack, text):
    """`/denpex` text holding Slack's markup as Slack sends it with "escape channels, users and
    links" on (a special mention, a user, a channel, a link): the ephemeral answer echoes it
    inert."""
    reply = bot.command(text)
    assert reply.status == 200
    for s in mrkdwn_strings(SimpleNamespace(params=reply.json())):
        assert not LIVE_MRKDWN.search(s), s


@pytest.mark.parametrize(("text", "expect"), [
    ("/denpex help", "Denpex help"), ("/DENPEX help", "Denpex help"), ("/denpex", "Denpex help"),
    ("/denpex show cuda-oom", "CUDA Out of Memory:"), ("show cuda_oom", "CUDA Out of Memory:"),
    ("show #cuda-oom", "CUDA Out of Memory:"),
])
def test_a_slash_command_typed_the_way_people_type_it_gets_the_answer_meant(bot: Bot, fake_slack, text, expect):
    """`/denpex /denpex help` (the help's line copied after typing the command: was a lookup
    listing two entries whose text holds "denpex help"), an id with underscores or a `#`
    before it (was "No entry with id"): the help, the entry."""
    reply = bot.command(text)
    assert reply.status == 200
    assert reply.json()["text"].startswith(expect), reply.json()["text"][:200]


# --- message subtypes that are no one pasting a log -----------------------------------------------

@pytest.mark.parametrize("subtype", ["message_replied", "channel_archive", "ekm_access_denied", "huddle_thread",
                                     "reminder_add", "pinned_item", "channel_convert_to_private", "group_join",
                                     "assistant_app_thread", "sh_room_created", "channel_name"])
def test_a_message_of_a_system_subtype_holding_a_log_gets_nothing(bot: Bot, fake_slack, subtype):
    """Slack's own messages (a pin, a reminder, a huddle's thread, an archive notice, EKM's
    tombstone...) may quote a log's text: nobody pasted it for the bot. Nothing posted or
    charged for it; a log pasted just after is answered, once."""
    ts, pasted = "1701100300.000100", "1701100301.000100"
    bot.event(message(f"```{OOM_PASTE}```", ts, subtype=subtype))
    bot.event(message(f"```{OOM_PASTE}```", pasted))
    wait_handled(bot, pasted)
    quiesce(bot, fake_slack, quiet_s=0.3)
    assert [c.params["thread_ts"] for c in fake_slack.of("chat.postMessage")] == [pasted]
    assert used(bot) == 1


# --- a workspace with no installation (multi-workspace mode) --------------------------------------

multi_process, multi = oa.multi_process, oa.multi


def test_a_slash_command_from_a_workspace_with_no_installation_says_denpex_is_not_installed(multi: Bot, fake_slack):
    """`/denpex` from a workspace whose installation is gone (uninstalled, or an install that
    never finished, as the app config's own "Install to Workspace" button leaves it): the
    person is told that Denpex is not installed there and that an admin can add it again
    (was Bolt's "for some unknown reason, your installation with this app is no longer
    available"); nothing else called. Since the twelfth audit (228) the word is the ack's own
    ephemeral body, not a post to the response_url from inside the request."""
    url = fake_slack.base + "/response/T0NOBODY9/command"
    reply = multi.command("CUDA error: out of memory", team="T0NOBODY9", response_url=url)
    assert reply.status == 200
    said = reply.json()
    assert said["response_type"] == "ephemeral" and not fake_slack.responses
    assert "Denpex is not installed in this workspace" in said["text"] and "admin" in said["text"], said
    assert "unknown reason" not in said["text"]
    assert not [c for c in fake_slack.calls if c.method.startswith("chat.")]


# --- files the bot may not open: another organization's, or hidden by a free plan -----------------

FOREIGN = {"id": "F0DENIED11", "file_access": "access_denied", "created": 0, "timestamp": 0, "user": ""}


def test_a_file_of_another_organization_alone_is_said_to_be_closed_to_the_bot(bot: Bot, fake_slack):
    """In a shared (Slack Connect) channel, a file uploaded by the other organization comes as
    `file_access: access_denied` with no name or URL. Alone: one word in its thread saying it
    was shared from another organization and Slack does not let Denpex open it, and to paste
    the error as text (was "could not read the file from Slack (file_not_found): it was
    deleted before I read it; upload it again", after a files.info that could not succeed);
    nothing looked up, downloaded or charged."""
    fake_slack.fail("files.info", 200, times=5, body={"ok": False, "error": "file_not_found"})
    ts = "1701100400.000100"
    bot.event(message("", ts, subtype="file_share", files=[FOREIGN], user="U0PARTNER", user_team="T0PARTNER"))
    wait_handled(bot, ts)
    (post,) = posts_in(fake_slack, ts)
    words = all_text(post)
    assert "shared from another organization" in words and "does not let me open it" in words, words
    assert "paste the error as text" in words.lower() and "deleted" not in words
    assert not fake_slack.of("files.info") and not fake_slack.of("files.download")
    assert used(bot) == 0


def test_a_file_of_another_organization_beside_talk_gets_nothing_and_beside_a_log_is_noted(bot: Bot, fake_slack):
    """The partner's file beside words for colleagues: nothing, as a screenshot beside talk
    (was the "could not read this log" reply to every file they shared). Beside a pasted log:
    the log diagnosed once, the file noted as closed to the bot."""
    talk, pasted = "1701100410.000100", "1701100420.000100"
    bot.event(message("here is what we see on our side", talk, subtype="file_share", files=[FOREIGN], user="U0PARTNER"))
    bot.event(message(f"```{OOM_PASTE}```", pasted, subtype="file_share", files=[dict(FOREIGN, id="F0DENIED12")],
                      user="U0PARTNER"))
    wait_handled(bot, talk, pasted)
    assert not posts_in(fake_slack, talk)
    (post,) = posts_in(fake_slack, pasted)
    assert "out of memory" in all_text(post).lower() and "another organization" in all_text(post)
    assert used(bot) == 1


def test_a_log_file_hidden_by_a_free_plans_limit_is_said_so(bot: Bot, fake_slack):
    """A log file files.info describes as `mode: hidden_by_limit` (a free workspace's file
    history limit: no URL to read it by): one word naming the plan's limit and to upload it
    again (was "has no download URL: is it an external file?."); nothing downloaded or charged."""
    f = fake_slack.add_file(FakeFile(id="F0HIDDEN11", name="train.log", content=OOM_PASTE.encode(), mode="hidden_by_limit",
                                     no_urls=True))
    ts = "1701100430.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = posts_in(fake_slack, ts)
    words = all_text(post)
    assert "train.log is hidden by this workspace's Slack plan" in words and "upload the log again" in words, words
    assert not fake_slack.of("files.download") and used(bot) == 0


# --- a double click -------------------------------------------------------------------------------

@pytest.mark.parametrize("action_id", ["denpex_full_entry", "denpex_related_0"])
def test_a_button_double_clicked_posts_its_entry_once(bot: Bot, fake_slack, action_id):
    """"Full entry" (or a related entry) clicked twice in a row, or by two people at once:
    Slack sends two clicks (their own trigger ids), and the entry was posted twice in the
    thread. Posted once; the same button under another diagnosis, and another entry in the
    same thread, still posted."""
    thread = "1701100700.000100"
    for _ in range(2):
        assert bot.action(action_id, "cuda-oom", thread_ts=thread).status == 200
    assert bot.action(action_id, "cuda-oom", thread_ts="1701100710.000100").status == 200
    assert bot.action(action_id, "nccl-cpu-tensor", thread_ts=thread).status == 200
    fake_slack.wait_for("chat.postMessage", count=3)
    quiesce(bot, fake_slack, quiet_s=0.8)
    posted = sorted((c.params["thread_ts"], c.params["text"].split(":")[0]) for c in fake_slack.of("chat.postMessage"))
    assert len(posted) == 3, posted
    assert len(set(posted)) == 3, posted


def test_a_topic_button_double_clicked_is_answered_once(bot: Bot, fake_slack):
    """A topic button under a question the bot could not place, clicked twice in a row: the
    topic answered once in the thread (was twice, each counted as a follow-up)."""
    thread = "170009150.000100"
    fu.diagnosed(bot, fake_slack, thread)
    post = fu.ask(bot, fake_slack, thread, "can you rerun it with NCCL_DEBUG=INFO?", 1)
    (chosen, *_) = next(b for b in post.params["blocks"] if b["type"] == "actions")["elements"]
    before = len(fake_slack.of("chat.postMessage"))
    for _ in range(2):
        assert bot.action(chosen["action_id"], chosen["value"], thread_ts=thread).status == 200
    fake_slack.wait_for("chat.postMessage", count=before + 1)
    quiesce(bot, fake_slack, quiet_s=0.8)
    assert len(fake_slack.of("chat.postMessage")) == before + 1



def test_an_entry_slack_refused_to_post_is_posted_on_the_next_click(bot: Bot, fake_slack):
    """The double-click mark is set before posting; when Slack refuses the post for good, the
    mark is dropped, so the person's next click posts the entry instead of doing nothing."""
    thread = "1701100720.000100"

    def in_thread() -> list[dict]:
        return [m for m in fake_slack.messages if m.get("thread_ts") == thread]

    fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": "channel_not_found"})
    assert bot.action("denpex_full_entry", "cuda-oom", thread_ts=thread).status == 200
    # The refused post made (quiesce alone returns at once while the record is still empty, and
    # a second click racing the first finds its mark: nothing posted, a flaky failure).
    fake_slack.wait_for("chat.postMessage")
    quiesce(bot, fake_slack, quiet_s=0.8)
    assert not in_thread()  # refused: nothing posted
    assert bot.action("denpex_full_entry", "cuda-oom", thread_ts=thread).status == 200
    fake_slack.wait_for("chat.postMessage", count=2)  # a loaded machine can start the click's work late
    quiesce(bot, fake_slack, quiet_s=0.8)
    (entry,) = in_thread()
    assert entry["text"].startswith("CUDA Out of Memory"), entry["text"]
