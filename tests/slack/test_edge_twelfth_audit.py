"""Twelfth audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

Slack's shapes used here, from its reference pages: chat.postMessage's error list names
`restricted_action_non_threadable_channel` ("Cannot post thread replies into a non_threadable
channel": a channel whose posting settings turn threads off)."""

from __future__ import annotations

import json
import time
import urllib.parse
from pathlib import Path

import pytest
import redis

from bot.store import keys
from tests.ports import free_port
from tests.slack import test_edge_fifth_audit as e5
from tests.slack import test_oauth as oa
from tests.slack.conftest import (
    Bot,
    assert_no_crash_since,
    quiesce,
    sign,
    start_bot,
    stop_bot,
    wait_handled,
)
from tests.slack.events import OOM_PASTE, ephemeral_show_click, message, used
from tests.slack.fake_slack import FakeFile, FakeSlack


def posts(fake: FakeSlack) -> list:
    return fake.of("chat.postMessage")


def landed(fake: FakeSlack, channel: str = "C0LOGS") -> list[dict]:
    with fake.lock:
        return [dict(m) for m in fake.messages if m["channel"] == channel]


# --- a channel whose threads are turned off ---------------------------------------------------------

@pytest.mark.parametrize("refusal", ["threads-off", "cannot-reply"])
def test_a_log_in_a_channel_without_threads_is_answered_in_the_channel(bot: Bot, fake_slack, refusal):
    """A channel whose posting settings turn threads off refuses every threaded reply with
    `restricted_action_non_threadable_channel`; a message Slack lets have no replies is
    refused `cannot_reply_to_message`. A log pasted there: the diagnosis posted in the
    channel itself, once, charged once, :white_check_mark: on the log (was: nothing posted,
    the charge refunded, :x:, the person left with no answer)."""
    if refusal == "threads-off":
        fake_slack.no_threads.add("C0LOGS")
    else:
        fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": "cannot_reply_to_message"})
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
    oa.wait_until(lambda: len(landed(fake_slack)) > 1)
    quiesce(bot, fake_slack, quiet_s=0.5)
    entries = [m for m in landed(fake_slack) if m["ts"] != answer["ts"]]
    assert len(entries) == 1 and entries[0]["thread_ts"] == entries[0]["ts"], entries
    assert "cuda" in (entries[0]["text"] or "").lower()


# --- a workspace with no installation (multi-workspace mode) --------------------------------------

multi_process, multi = oa.multi_process, oa.multi
NOT_INSTALLED = "Denpex is not installed in this workspace"


@pytest.mark.parametrize("kind", ["expired", "reset", "5xx", "unreachable"])
def test_a_slash_command_from_a_workspace_with_no_installation_is_told_in_its_ack(multi: Bot, fake_slack, kind):
    """`/denpex` from a workspace with no installation, whatever its response_url does (expired,
    reset after Slack showed the post, a 503, nothing listening): a 200 whose ephemeral body
    says Denpex is not installed there, nothing posted to the response_url, no traceback.
    Bolt's authorization posted its word to the response_url from inside the request with a
    retrying client: a reset showed it twice and answered 500 (Slack shows "dispatch_failed"),
    an unreachable URL answered 500 after a second, an expired one left the person nothing."""
    url = "http://127.0.0.1:9/unreachable" if kind == "unreachable" else f"{fake_slack.base}/response/{kind}/T0NOBODY9"
    log_start = Path(multi.log_path).stat().st_size  # type: ignore[attr-defined]
    reply = multi.command("CUDA error: out of memory", team="T0NOBODY9", response_url=url)
    assert reply.status == 200, (reply.status, reply.body)
    said = reply.json()
    assert said["response_type"] == "ephemeral" and NOT_INSTALLED in said["text"], said
    assert not fake_slack.responses
    assert_no_crash_since(Path(multi.log_path), log_start)  # type: ignore[attr-defined]


def _click_from(team: str, response_url: str) -> dict:
    return {"type": "block_actions", "team": {"id": team, "domain": "gone"}, "user": {"id": "U0ALICE", "team_id": team},
            "api_app_id": "A0DENPEX", "trigger_id": f"{time.time_ns()}.1.2", "response_url": response_url,
            "container": {"type": "message", "message_ts": "1701200100.000200", "channel_id": "C0GONE", "is_ephemeral": False},
            "channel": {"id": "C0GONE", "name": "training"},
            "message": {"type": "message", "ts": "1701200100.000200", "text": "x"},
            "actions": [{"action_id": "denpex_full_entry", "block_id": "b", "type": "button", "value": "cuda-oom",
                         "action_ts": f"{time.time():.6f}"}]}  # fmt: skip


@pytest.mark.parametrize("kind", ["ok", "reset", "unreachable"])
def test_a_click_from_a_workspace_with_no_installation_is_told_once(multi: Bot, fake_slack, kind):
    """A button clicked on an old message of a workspace that has since removed Denpex: a 200
    at once, then the word through the click's response_url at most once (a reset after Slack
    showed it is not posted again), no traceback, no Web API call (was: a reset posted it
    twice and answered 500; a stalling response_url held the ack)."""
    url = "http://127.0.0.1:9/unreachable" if kind == "unreachable" else f"{fake_slack.base}/response/{'reset/' if kind == 'reset' else ''}T0NOBODY9/click"
    log_path = Path(multi.log_path)  # type: ignore[attr-defined]
    log_start = log_path.stat().st_size
    body = urllib.parse.urlencode({"payload": json.dumps(_click_from("T0NOBODY9", url))}).encode()
    reply = multi.post(body, "application/x-www-form-urlencoded")
    assert reply.status == 200, (reply.status, reply.body)
    # The word goes after the ack: done once the bot logs how the response_url took it.
    said = {"ok": "", "reset": "response_url post of unknown outcome", "unreachable": "response_url not reached"}[kind]
    oa.wait_until(lambda: (fake_slack.responses if kind == "ok" else said in log_path.read_bytes()[log_start:].decode()))
    expected = 0 if kind == "unreachable" else 1
    assert len(fake_slack.responses) == expected and all(NOT_INSTALLED in r["text"] for r in fake_slack.responses)
    assert not [c for c in fake_slack.calls if c.method.startswith(("chat.", "views."))]
    assert_no_crash_since(Path(multi.log_path), log_start)  # type: ignore[attr-defined]


def test_an_installed_workspace_is_answered_as_before(multi: Bot, fake_slack):
    """The check stands aside for a workspace that is installed: its `/denpex help` is answered
    by the bot, with the help."""
    oa.install(multi, fake_slack, "T0ALPHA01", "xoxb-alpha-secret-token")
    reply = multi.command("help", team="T0ALPHA01")
    assert reply.status == 200 and NOT_INSTALLED not in reply.body.decode()
    assert "/denpex" in reply.body.decode()


def _org_wide_install(bot: Bot, fake: FakeSlack, org: str, token: str) -> None:
    state = oa.open_install_page(bot)
    g = oa.grant("T0UNUSED1", token)
    g.update(team=None, enterprise={"id": org, "name": "Acme Org"}, is_enterprise_install=True)
    fake.oauth_codes[f"code-{org}"] = g
    page = oa.get(bot, f"/slack/oauth_redirect?code=code-{org}&state={state}", cookie=state)
    assert page.status == 200 and "Thank you!" in page.text, page.text


def _org_command(bot: Bot, org: str, text: str, response_url: str) -> dict:
    form = {"token": "legacy", "team_id": "T0ORGWS01", "team_domain": "ws1", "enterprise_id": org,
            "enterprise_name": "Acme Org", "is_enterprise_install": "true", "channel_id": "C0ORG",
            "channel_name": "training", "user_id": "W0ALICE01", "user_name": "alice", "command": "/denpex",
            "text": text, "api_app_id": "A0DENPEX", "response_url": response_url,
            "trigger_id": f"{time.time_ns()}.1.2"}  # fmt: skip
    reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    assert reply.status == 200, (reply.status, reply.body)
    return reply.json()


def test_an_org_wide_install_answers_commands_and_clicks_until_it_is_uninstalled(multi: Bot, fake_slack):
    """Enterprise Grid, an org-wide install: `/denpex quota` from one of the org's workspaces
    (`is_enterprise_install=true`, the org's `enterprise_id`, a `W` user id) is answered, and a
    click whose `team` is null (as Slack sends it for org-wide apps) posts its entry with the
    org's token; after the org's `app_uninstalled` (its `authorizations` name only the org),
    the same command is told Denpex is not installed, in its ack."""
    org, token = "E0ORGWIDE2", "xoxb-org-wide-two"
    _org_wide_install(multi, fake_slack, org, token)
    url = fake_slack.base + "/response/E0ORGWIDE2/cmd"
    said = _org_command(multi, org, "quota", url)
    assert NOT_INSTALLED not in said["text"] and "free" in json.dumps(said).lower(), said

    click = _click_from("T0ORGWS01", url)
    click.update(team=None, enterprise={"id": org, "name": "Acme Org"}, is_enterprise_install=True,
                 user={"id": "W0ALICE01", "team_id": "T0ORGWS01"})
    click["container"].update(channel_id="C0ORG", thread_ts="1701200200.000100")
    click["channel"]["id"] = "C0ORG"
    body = urllib.parse.urlencode({"payload": json.dumps(click)}).encode()
    assert multi.post(body, "application/x-www-form-urlencoded").status == 200
    (entry,) = fake_slack.wait_for("chat.postMessage")
    assert entry.token == token and entry.params["thread_ts"] == "1701200200.000100"

    uninstall = json.dumps({
        "token": "legacy", "team_id": "T0ORGWS01", "enterprise_id": org, "api_app_id": "A0DENPEX",
        "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
        "is_enterprise_install": True, "event": {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"},
        "authorizations": [{"enterprise_id": org, "team_id": None, "user_id": "UBOT0001", "is_bot": True,
                            "is_enterprise_install": True}],
    }).encode()  # fmt: skip
    assert multi.post(uninstall, "application/json").status == 200
    oa.wait_until(lambda: multi.redis_url and redis.Redis.from_url(multi.redis_url).get(keys.installation(org)) is None)
    said = _org_command(multi, org, "quota", url)
    assert NOT_INSTALLED in said["text"], said
    assert not fake_slack.responses


@pytest.mark.parametrize("posted", [True, False], ids=["posted", "not-posted"])
def test_a_channel_post_of_unknown_outcome_where_threads_are_off_lands_once(bot: Bot, fake_slack, posted):
    """Threads off, and the post in the channel answered 503 (Slack having posted it, or not):
    looked for among the channel's latest messages, posted again only if absent; one
    diagnosis in the channel, charged once."""
    fake_slack.no_threads.add("C0LOGS")
    fake_slack.fail("chat.postMessage", 503, posted=posted)
    ts = "1701200030.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    (answer,) = landed(fake_slack)
    assert answer["thread_ts"] == answer["ts"] and used(bot) == 1
    assert fake_slack.of("conversations.history")


# --- a slash command whose form holds the word "payload" ---------------------------------------------

@pytest.mark.parametrize("text", ["HTTPError: 413 Client Error: Payload Too Large; payload size 2.1 GB exceeds limit",
                                  "show payload", "payload"], ids=["lookup", "show", "one-word"])
def test_a_slash_command_whose_text_holds_the_word_payload_is_answered(bot: Bot, fake_slack, text):
    """`/denpex` with "payload" in its text (an error line about a request payload, a word
    typed): answered like any other (was a 400 "invalid team", which Slack shows the person as
    a failed command). Bolt reads any form body in which the letters "payload" appear as an
    interaction's `payload=<JSON>` field, and a slash command's form has no such field: the
    request read as empty. Nothing is posted to the channel; the answer is the ack's, ephemeral."""
    reply = bot.command(text)
    assert reply.status == 200, (reply.status, reply.body)
    said = reply.json()
    assert said["response_type"] == "ephemeral" and said["text"], said
    assert not posts(fake_slack)


def test_a_slash_command_from_a_channel_or_person_named_payload_is_answered(bot: Bot, fake_slack):
    """The same word elsewhere in the form: a channel named `#payload-infra`, a person whose
    handle is `payload.bot`: `/denpex help` answered with the help."""
    form = urllib.parse.parse_qs(Bot.command_body("help").decode())
    form = {k: v[0] for k, v in form.items()}
    form.update(channel_name="payload-infra", user_name="payload.bot")
    reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    assert reply.status == 200, (reply.status, reply.body)
    assert "Denpex help" in reply.json()["text"]


def test_a_forged_slash_command_holding_the_word_payload_is_still_refused(bot: Bot, fake_slack):
    """Reading such a form right does not loosen the signature check: signed with another
    secret, or stale, it is a 401."""
    body = Bot.command_body("payload too large")
    assert bot.post(body, "application/x-www-form-urlencoded", headers=sign(body, secret="not-the-secret")).status == 401
    assert bot.post(body, "application/x-www-form-urlencoded", ts=int(time.time()) - 600).status == 401
    assert bot.post(body, "application/x-www-form-urlencoded").status == 200


# --- file events other than file_shared ----------------------------------------------------------

@pytest.mark.parametrize("kind", ["file_created", "file_public", "file_change", "file_unshared",
                                  "file_comment_added"])
def test_file_events_other_than_file_shared_are_acknowledged_and_read_nothing(bot: Bot, fake_slack, kind):
    """Slack's other file events (a file made, made public, changed: a snippet edited, unshared,
    commented on), about a log file the bot could read: a 200, and nothing looked up,
    downloaded, posted or charged (only a share, `file_shared` or the message carrying the
    file, is a request to the bot)."""
    fake_slack.add_file(FakeFile(id="F0EVENTS1", name="train.log", content=OOM_PASTE.encode()))
    event = {"type": kind, "file_id": "F0EVENTS1", "file": {"id": "F0EVENTS1"}, "user_id": "U0ALICE",
             "channel_id": "C0LOGS", "event_ts": f"{time.time():.6f}"}
    if kind == "file_comment_added":
        event["comment"] = {"id": "Fc0001", "comment": OOM_PASTE, "user": "U0ALICE"}
    reply = bot.event(event)
    assert reply.status == 200 and not reply.body
    quiesce(bot, fake_slack, quiet_s=1.0)
    assert not fake_slack.calls, [c.method for c in fake_slack.calls]
    assert used(bot) == 0


# --- an event's content type, as proxies and clients vary it --------------------------------------

@pytest.mark.parametrize("ctype", ["text/plain", "", "application/x-www-form-urlencoded", "Application/JSON",
                                   "application/json;charset=UTF-8"])
def test_an_event_whose_content_type_varies_is_read_as_json(bot: Bot, fake_slack, ctype):
    """Slack sends events as `application/json`; a proxy can drop or rewrite the header. A
    signed JSON event sent as text/plain, with no type, as a form, in capitals or with a
    charset: read as the event it is, the log diagnosed once."""
    ts = "1701200900.000100"
    body = {"token": "legacy", "team_id": "T0TEST001", "api_app_id": "A0DENPEX", "event": message(OOM_PASTE, ts),
            "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
            "authorizations": [{"team_id": "T0TEST001", "user_id": "UBOT0001", "is_bot": True}]}
    reply = bot.post(json.dumps(body).encode(), ctype)
    assert reply.status == 200, (reply.status, reply.body)
    wait_handled(bot, ts)
    assert len(posts(fake_slack)) == 1 and used(bot) == 1


# --- an ephemeral answer whose blocks Slack refuses -------------------------------------------------

@pytest.mark.parametrize("error", ["invalid_blocks", "invalid_blocks_format"])
def test_an_ephemeral_entry_whose_blocks_slack_refuses_is_shown_as_text(bot: Bot, fake_slack, error):
    """"Show" under an old private lookup (its response_url expired, so the entry goes by
    chat.postEphemeral) when Slack refuses the message's blocks: shown again as its plain-text
    fallback, once (was: nothing; a thread post already falls back so, 100). Slack shows an
    ephemeral message it refused to nobody, so the second one cannot double it."""
    fake_slack.fail("chat.postEphemeral", 200, body={"ok": False, "error": error})
    payload = ephemeral_show_click(fake_slack.base + "/response/expired/T0TEST001", "1701201000.000100", "1.12.blocks")
    assert bot.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(),
                    "application/x-www-form-urlencoded").status == 200
    first, second = fake_slack.wait_for("chat.postEphemeral", count=2, user="U0ALICE")
    assert first.params.get("blocks") and not second.params.get("blocks")
    assert "CUDA Out of Memory" in second.params["text"], second.params["text"]
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert len(fake_slack.of("chat.postEphemeral")) == 2 and not posts(fake_slack)


def test_an_expired_topic_words_blocks_refused_are_shown_as_text(bot: Bot, fake_slack):
    """The "expired, paste the log again" word for a topic button, its blocks refused: shown
    as text, once, to who clicked."""
    ts = "1701201100.000100"
    button = e5.topic_button_of_an_expired_thread(bot, fake_slack, OOM_PASTE, ts)
    fake_slack.fail("chat.postEphemeral", 200, body={"ok": False, "error": "invalid_blocks"})
    assert bot.action(button["action_id"], button["value"], thread_ts=ts).status == 200
    first, second = fake_slack.wait_for("chat.postEphemeral", count=2, user="U0ALICE")
    assert first.params.get("blocks") and not second.params.get("blocks")
    assert "paste the log again" in second.params["text"].lower(), second.params["text"]
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert len(fake_slack.of("chat.postEphemeral")) == 2


# --- a forwarded message that holds a log file -------------------------------------------------------

def _forwarded(*files: dict, text: str = "") -> dict:
    """A message forwarded (shared) from elsewhere, as Slack attaches it: `is_share`,
    `is_msg_unfurl`, the original's text, and the original's files nested in `files`, not in
    the new message's own `files`."""
    return {"is_share": True, "is_msg_unfurl": True, "channel_id": "C0CI", "author_id": "U0BOB",
            "ts": "1701100000.000100", "fallback": "[10:00] bob: the job died", "text": text,
            "files": list(files)}


@pytest.mark.parametrize("where", ["channel", "dm"])
def test_a_forwarded_message_holding_a_log_file_is_diagnosed(bot: Bot, fake_slack, where):
    """A message that holds a log file, forwarded into the channel (with words for colleagues)
    or to the bot's DM: the file nested in the shared attachment is read like an upload's,
    downloaded once, the diagnosis in the new message's thread, charged once (was: nothing in
    the channel, help in the DM: only the new message's own `files` were read)."""
    f = fake_slack.add_file(FakeFile(id="F0FWD0001", name="rank3.log", content=OOM_PASTE.encode()))
    ts = "1701201200.000100"
    channel, extra = ("C0LOGS", {}) if where == "channel" else ("D0ALICE", {"channel_type": "im"})
    bot.event(message("can someone look at this one?" if where == "channel" else "", ts, channel=channel,
                      attachments=[_forwarded(f)], **extra))
    wait_handled(bot, ts, channel=channel)
    (post,) = posts(fake_slack)
    assert post.params["thread_ts"] == ts and "CUDA Out of Memory" in post.params["text"], post.params["text"]
    assert len(fake_slack.of("files.download")) == 1 and used(bot) == 1


def test_a_forwarded_screenshot_beside_talk_gets_nothing_and_its_file_shared_gives_way(bot: Bot, fake_slack):
    """A forwarded message holding only a screenshot, beside words for colleagues: nothing, as
    a screenshot shared beside talk (203); a `file_shared` for a forwarded log file in the same
    channel leaves it to the message: one diagnosis, one download."""
    img = fake_slack.add_file(FakeFile(id="F0FWDIMG1", name="loss.png", content=b"\x89PNG\r\n\x1a\n" + b"0" * 64,
                                       filetype="png", mimetype="image/png"))
    ts = "1701201300.000100"
    bot.event(message("look at this spike", ts, attachments=[_forwarded(img)]))
    wait_handled(bot, ts)
    assert not posts(fake_slack) and not fake_slack.of("files.download")
    f = fake_slack.add_file(FakeFile(id="F0FWD0002", name="rank3.log", content=OOM_PASTE.encode()))
    ts2 = "1701201301.000100"
    bot.event(message("and the log", ts2, attachments=[_forwarded(f)]))
    bot.event({"type": "file_shared", "channel_id": "C0LOGS", "file_id": f["id"], "user_id": "U0ALICE",
               "file": {"id": f["id"]}, "event_ts": ts2})
    wait_handled(bot, ts2)
    quiesce(bot, fake_slack, quiet_s=1.0)
    (post,) = posts(fake_slack)
    assert post.params["thread_ts"] == ts2 and len(fake_slack.of("files.download")) == 1 and used(bot) == 1


# --- events of kinds the bot does not act on ------------------------------------------------------

OTHER_EVENTS = [
    {"type": "member_left_channel", "user": "UBOT0001", "channel": "C0LOGS", "channel_type": "C", "team": "T0TEST001"},
    {"type": "channel_archive", "channel": "C0LOGS", "user": "U0ALICE"},
    {"type": "channel_rename", "channel": {"id": "C0LOGS", "name": "renamed", "created": 1}},
    {"type": "group_left", "channel": "G0GONE"},
    {"type": "link_shared", "channel": "C0LOGS", "user": "U0ALICE", "message_ts": "1701201400.000100",
     "links": [{"domain": "wandb.ai", "url": "https://wandb.ai/run/42"}], "unfurl_id": "u1", "source": "conversations_history"},
    {"type": "grid_migration_started", "enterprise_id": "E0ORG0001"},
    {"type": "team_access_granted", "team_ids": ["T0ORGWS01", "T0ORGWS02"]},
    {"type": "team_access_revoked", "team_ids": ["T0ORGWS01"]},
    {"type": "function_executed", "function": {"id": "Fn0001", "callback_id": "diagnose_log", "title": "Diagnose"},
     "inputs": {"log": OOM_PASTE}, "function_execution_id": "Fx0001", "workflow_execution_id": "Wx0001",
     "bot_access_token": "xwfp-not-a-real-token"},
    {"type": "workflow_step_execute", "callback_id": "diagnose", "workflow_step": {
        "workflow_step_execute_id": "1", "workflow_id": "1", "workflow_instance_id": "1", "step_id": "1",
        "inputs": {"log": {"value": OOM_PASTE}}, "outputs": []}},
    {"type": "message_metadata_posted", "app_id": "A0DENPEX", "bot_id": "BBOT0001", "user_id": "UBOT0001",
     "team_id": "T0TEST001", "channel_id": "C0LOGS", "message_ts": "1701201400.000200",
     "metadata": {"event_type": "denpex_diagnosis", "event_payload": {"diagnosis_id": "d1"}}},
    {"type": "assistant_thread_context_changed", "assistant_thread": {
        "user_id": "U0ALICE", "context": {}, "channel_id": "D0ALICE", "thread_ts": "1701201400.000300"}},
]


@pytest.mark.parametrize("event", OTHER_EVENTS, ids=[e["type"] for e in OTHER_EVENTS])
def test_an_event_of_a_kind_the_bot_does_not_act_on_is_acknowledged(bot: Bot, fake_slack, event):
    """Events Slack may send an app beyond the manifest's (the bot removed from a channel, a
    channel archived or renamed, a link shared, Enterprise Grid's migration and team-access
    events, a workflow function or step run, the bot's own message metadata, an assistant
    thread's context), some quoting a log: a 200 at once, nothing called, posted or charged,
    no traceback (a 404 would have Slack re-send each three times)."""
    reply = bot.event({**event, "event_ts": f"{time.time():.6f}"})
    assert reply.status == 200 and not reply.body
    quiesce(bot, fake_slack, quiet_s=0.3)
    assert not fake_slack.calls, [c.method for c in fake_slack.calls]
    assert used(bot) == 0


def test_with_redis_down_a_multi_workspace_command_and_click_are_told_so(fake_slack):
    """Multi-workspace mode with Redis down (no installation can be read): `/denpex help` gets
    a 200 whose ephemeral body says Denpex is temporarily unavailable, and a click a 200 and the
    same word through its response_url (was: Bolt's authorize raised, a 500 and a traceback;
    Slack shows the person "dispatch_failed")."""
    dead = f"redis://127.0.0.1:{free_port()}/0"
    bot = start_bot(fake_slack, dead, {
        "SLACK_BOT_TOKEN": "", "SLACK_CLIENT_ID": oa.CLIENT_ID, "SLACK_CLIENT_SECRET": oa.CLIENT_SECRET,
        "DENPEX_TOKEN_KEY": oa.TOKEN_KEY, "DENPEX_REDIS_TIMEOUT_S": "0.3",
    })  # fmt: skip
    fake_slack.reset()
    try:
        reply = bot.command("help", team="T0ALPHA01")
        assert reply.status == 200, (reply.status, reply.body)
        said = reply.json()
        assert said["response_type"] == "ephemeral" and "temporarily unavailable" in said["text"], said
        url = f"{fake_slack.base}/response/T0ALPHA01/click"
        body = urllib.parse.urlencode({"payload": json.dumps(_click_from("T0ALPHA01", url))}).encode()
        assert bot.post(body, "application/x-www-form-urlencoded").status == 200
        oa.wait_until(lambda: fake_slack.responses)
        (word,) = fake_slack.responses
        assert "temporarily unavailable" in word["text"]
        assert_no_crash_since(Path(bot.log_path), 0)  # type: ignore[attr-defined]
    finally:
        stop_bot(bot)
        fake_slack.reset()


def test_a_pasted_links_preview_of_a_message_with_a_log_file_reads_no_file(bot: Bot, fake_slack):
    """A permalink to another message pasted with words for colleagues, previewed by Slack
    (`is_msg_unfurl` without `is_share`) with that message's log file: no file looked up or
    read, nothing posted (the link is no request to the bot; its file may sit in a channel the
    bot cannot read)."""
    f = fake_slack.add_file(FakeFile(id="F0UNFURL1", name="rank3.log", content=OOM_PASTE.encode()))
    preview = {**_forwarded(f, text="the job died"), "is_share": False}
    ts = "1701201400.000100"
    bot.event(message("same as https://test.slack.com/archives/C0CI/p1701100000000100 ?", ts, attachments=[preview]))
    wait_handled(bot, ts)
    assert not fake_slack.calls, [c.method for c in fake_slack.calls]


def test_a_votes_thanks_refused_in_its_thread_is_shown_outside_it(bot: Bot, fake_slack):
    """A vote's ephemeral thanks, sent into the diagnosis thread, refused with
    `cannot_reply_to_message` (chat.postEphemeral: "This message type cannot have thread
    replies"; a diagnosis posted in a channel without threads has none): shown again outside
    the thread, once; the vote counted (was: no thanks)."""
    fake_slack.fail("chat.postEphemeral", 200, body={"ok": False, "error": "cannot_reply_to_message"})
    assert bot.action("denpex_feedback_right", "cuda-oom", thread_ts="1701201500.000100").status == 200
    first, second = fake_slack.wait_for("chat.postEphemeral", count=2, user="U0ALICE")
    assert first.params.get("thread_ts") == "1701201500.000100" and not second.params.get("thread_ts")
    assert "Thanks" in second.params["text"]
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert len(fake_slack.of("chat.postEphemeral")) == 2
