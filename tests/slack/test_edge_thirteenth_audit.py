"""Thirteenth audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

Most are about a stand-in Web API other than ours: one that names its file host `localhost`
while SLACK_API_URL says `127.0.0.1`, lacks a method the bot calls, or answers with the
fewest fields Slack's reference pages promise."""

from __future__ import annotations

import json
import time

import pytest

from bot.slack.files import allowed_host
from bot.store import Store, StoreConfig
from tests.slack.conftest import Bot, quiesce, wait_handled
from tests.slack.events import OOM_PASTE, all_text, message, used
from tests.slack.fake_slack import BOT_TOKEN, TEAM_ID, FakeFile, FakeSlack


def replies(fake: FakeSlack) -> list:
    return fake.of("chat.postMessage")


def landed(fake: FakeSlack, channel: str = "C0LOGS") -> list[dict]:
    with fake.lock:
        return [dict(m) for m in fake.messages if m["channel"] == channel]


# --- a stand-in whose file host is spelled another way --------------------------------------------

@pytest.mark.parametrize("port_offset", [0, 1], ids=["same-port", "other-port"])
def test_a_file_served_by_the_api_host_under_another_loopback_name_is_read(bot: Bot, fake_slack, port_offset):
    """SLACK_API_URL names `127.0.0.1:PORT` and the stand-in's files.info gives its download
    link as `localhost:PORT`: the same server, so the file is read with the token and
    diagnosed, charged once (was "not hosted by Slack", nothing read). On another port it is
    another server: refused as before, nothing fetched."""
    port = fake_slack.server.server_address[1] + port_offset
    f = fake_slack.add_file(FakeFile(id="FLOOPBK01", name="rank3.log", content=OOM_PASTE.encode(),
                                     download_url=f"http://localhost:{port}/files/FLOOPBK01/download/rank3.log"))
    ts = "1701300000.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    if port_offset:
        assert "not hosted by Slack" in all_text(post)
        assert not fake_slack.of("files.download") and used(bot) == 0
        return
    assert "cuda-oom" in json.dumps(post.params) and "not hosted" not in all_text(post), all_text(post)[:400]
    assert [c.token for c in fake_slack.of("files.download")] == [BOT_TOKEN]
    assert used(bot) == 1


@pytest.mark.parametrize(("url", "api", "allowed"), [
    ("https://files.slack.com/files-pri/T0-F0/download/a.log", "https://slack.com/api/", True),
    ("http://files.slack.com/files-pri/T0-F0/download/a.log", "https://slack.com/api/", False),
    ("https://files.slack.com.evil.example/a.log", "https://slack.com/api/", False),
    ("http://localhost:8080/files/a.log", "http://127.0.0.1:8080/api/", True),
    ("http://[::1]:8080/files/a.log", "http://localhost:8080/api/", True),
    ("http://127.0.0.1/files/a.log", "http://localhost:80/api/", True),
    ("http://localhost:8081/files/a.log", "http://127.0.0.1:8080/api/", False),
    ("https://localhost:8080/files/a.log", "http://127.0.0.1:8080/api/", False),
    ("http://127.0.0.2:8080/files/a.log", "http://127.0.0.1:8080/api/", False),
    ("http://slack-stub:8080/files/a.log", "http://slack-stub:8080/api/", True),
    ("http://slack-stub:8080/files/a.log", "http://127.0.0.1:8080/api/", False),
    ("http://localhost:8080/files/a.log", "https://slack.com/api/", False),
])
def test_which_hosts_get_the_token(url, api, allowed):
    """The token goes to Slack's https hosts, or to SLACK_API_URL's server: its host and port,
    a loopback one under any loopback name; never another port, scheme or host."""
    assert allowed_host(url, api) is allowed


# --- a stand-in that answers with the fewest fields -----------------------------------------------

def test_a_file_object_with_only_the_fields_slack_always_sends_is_read(bot: Bot, fake_slack):
    """files.info giving only `id`, `name`, `size` and `url_private` (no download link, mode,
    filetype, mimetype or title): the log read through `url_private` and diagnosed."""
    f = FakeFile(id="FMINIMAL1", name="train.log", content=OOM_PASTE.encode())
    fake_slack.add_file(f)
    url = f"{fake_slack.base}/files/FMINIMAL1/train.log"
    fake_slack.fail("files.info", 200, body={"ok": True, "file": {"id": f.id, "name": f.name, "size": len(f.content),
                                                                    "url_private": url}})
    ts = "1701300010.000100"
    bot.event(message("", ts, subtype="file_share", files=[{"id": f.id}]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in json.dumps(post.params), all_text(post)[:400]
    assert used(bot) == 1


def test_a_post_answered_ok_with_no_ts_is_one_diagnosis_and_no_crash(bot: Bot, fake_slack):
    """chat.postMessage answered `{"ok": true}` alone (a stand-in that records and says
    nothing more): the diagnosis counts as posted, charged once, no "Something went wrong"
    after it, no traceback; the next log answered."""
    fake_slack.fail("chat.postMessage", 200, body={"ok": True}, posted=True)
    ts = "1701300020.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    posts = replies(fake_slack)
    assert len(posts) == 1 and "cuda-oom" in json.dumps(posts[0].params), [all_text(p)[:200] for p in posts]
    assert used(bot) == 1
    ts2 = "1701300021.000100"
    bot.event(message(OOM_PASTE, ts2, channel="C0OTHER"))
    wait_handled(bot, ts2, channel="C0OTHER")
    assert replies(fake_slack)[-1].params["thread_ts"] == ts2 and used(bot) == 2


@pytest.mark.parametrize("method", ["reactions.add", "reactions.remove"])
def test_a_reaction_method_the_stand_in_lacks_never_costs_the_reply(bot: Bot, fake_slack, method):
    """A stand-in without reactions answers them 404 with a text page (or unknown_method):
    the diagnosis posted once, charged once, no traceback."""
    fake_slack.fail(method, 404, times=5, raw=b"404 page not found", raw_type="text/plain")
    ts = "1701300030.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    posts = replies(fake_slack)
    assert len(posts) == 1 and "cuda-oom" in json.dumps(posts[0].params)
    assert used(bot) == 1


def answered_once(bot: Bot, fake_slack: FakeSlack, body: dict, ts: str):
    """Send a hand-made envelope; the one reply the bot posted for the message at `ts`."""
    assert bot.post(json.dumps(body).encode(), "application/json").status == 200
    wait_handled(bot, ts, timeout=30)
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == ts
    return post


# --- events the manifest does not subscribe to, and envelope fields of Slack Connect / Grid --------

@pytest.mark.parametrize("event", [
    {"type": "team_join", "user": {"id": "U0NEWBIE", "name": "newbie", "team_id": TEAM_ID}},
    {"type": "user_change", "user": {"id": "U0ALICE", "name": "alice", "team_id": TEAM_ID}},
    {"type": "channel_created", "channel": {"id": "C0NEWCHAN", "name": "runs", "creator": "U0ALICE", "created": 1}},
    {"type": "im_created", "user": "U0ALICE", "channel": {"id": "D0NEWDM"}},
    {"type": "emoji_changed", "subtype": "add", "name": "oom", "value": "https://emoji.example/oom.png"},
    {"type": "app_requested", "app_request": {"id": "1234", "app": {"id": "A0DENPEX"}, "user": {"id": "U0ALICE"}}},
    {"type": "dnd_updated_user", "user": "U0ALICE", "dnd_status": {"dnd_enabled": True}},
    {"type": "user_huddle_changed", "user": {"id": "U0ALICE", "team_id": TEAM_ID}},
    {"type": "member_joined_channel", "user": "U0BOB", "channel": "C0LOGS", "channel_type": "C", "team": TEAM_ID},
], ids=lambda e: e["type"])
def test_an_event_the_manifest_does_not_subscribe_is_acknowledged(bot: Bot, fake_slack, event):
    """Events a workspace admin may have added to the app's subscriptions (a user joining the
    team, a profile change, a new channel, a colleague joining the channel): a 200, nothing
    called but auth, nothing posted, no traceback."""
    reply = bot.event({**event, "event_ts": f"{time.time():.6f}"})
    assert reply.status == 200, (reply.status, reply.body)
    quiesce(bot, fake_slack, quiet_s=0.3)
    assert not [c.method for c in fake_slack.calls if c.method != "auth.test"]


def test_an_event_with_slack_connect_context_fields_is_answered_for_its_team(bot: Bot, fake_slack):
    """An envelope as Slack sends it from a shared channel: `is_ext_shared_channel`,
    `context_team_id`, `context_enterprise_id: null`, `event_context`, the event's
    `user_team` / `source_team`: the log diagnosed once, charged to the envelope's team."""
    ts = "1701300040.000100"
    body = {
        "token": "legacy", "team_id": TEAM_ID, "context_team_id": TEAM_ID, "context_enterprise_id": None,
        "api_app_id": "A0DENPEX", "type": "event_callback", "event_id": f"Ev{time.time_ns()}",
        "event_time": int(time.time()), "is_ext_shared_channel": True,
        "event_context": "4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMFRFU1QwMDEiLCJhaWQiOiJBMERFTlBFWCIsImNpZCI6IkMwTE9HUyJ9",
        "authorizations": [{"enterprise_id": None, "team_id": TEAM_ID, "user_id": "UBOT0001", "is_bot": True,
                            "is_enterprise_install": False}],
        "event": message(OOM_PASTE, ts, user="U0PARTNER", user_team="T0PARTNER", source_team="T0PARTNER",
                         event_ts=ts, client_msg_id="5a1f0c52-8f0e-4b8e-9f57-3e7c1d2f6a10"),
    }  # fmt: skip
    assert "cuda-oom" in json.dumps(answered_once(bot, fake_slack, body, ts).params)
    assert used(bot) == 1


# --- Web API answers the bot meets less often -------------------------------------------------------

def test_a_429_with_a_retry_after_of_zero_lands_once(bot: Bot, fake_slack):
    """chat.postMessage answered 429 with `Retry-After: 0`: sent again, lands once, charged once."""
    fake_slack.fail("chat.postMessage", 429, retry_after=0)
    ts = "1701300050.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    assert len(landed(fake_slack)) == 1 and len(replies(fake_slack)) == 2
    assert used(bot) == 1


def test_a_votes_thanks_refused_user_not_in_channel_still_counts_the_vote(bot: Bot, fake_slack):
    """A vote from someone of another organization in a shared channel, whose ephemeral thanks
    Slack refuses `user_not_in_channel`: the vote counted once, no traceback, no message posted
    to the channel instead."""
    fake_slack.fail("chat.postEphemeral", 200, body={"ok": False, "error": "user_not_in_channel"}, times=3)
    reply = bot.action("denpex_feedback_right", "cuda-oom", user="U0PARTNER")
    assert reply.status == 200
    fake_slack.wait_for("chat.postEphemeral")
    quiesce(bot, fake_slack, quiet_s=0.3)
    rows = {r.rule_id: r for r in Store(StoreConfig(url=bot.redis_url)).feedback.summary()}
    assert rows["cuda-oom"].right == 1
    assert not replies(fake_slack)


# --- slash commands -----------------------------------------------------------------------------------

def test_a_lookup_holding_form_special_characters_reads_them_as_typed(bot: Bot, fake_slack):
    """`/denpex` text holding `+`, `&`, `=`, `%` and `#` (percent-encoded in the form as Slack
    sends it): read as typed, the entry found, echoed with those characters."""
    text = "CUDA out of memory & retry=2 +50% #rank3"
    reply = bot.command(text)
    assert reply.status == 200
    said = json.dumps(reply.json())
    assert "cuda-oom" in said, said[:400]
    assert "retry=2 +50%" in said or "retry=2 +50%" in json.dumps(reply.json(), ensure_ascii=False), said[:600]


def test_a_command_with_empty_enterprise_fields_is_answered(bot: Bot, fake_slack):
    """A form with `enterprise_id=` and `enterprise_name=` empty and `is_enterprise_install=false`
    (a workspace outside any Grid, as some senders spell it): answered as the workspace's."""
    import urllib.parse

    form = dict(urllib.parse.parse_qsl(bot.command_body("quota").decode()))
    form.update({"enterprise_id": "", "enterprise_name": "", "is_enterprise_install": "false"})
    reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    assert reply.status == 200, reply.body
    said = reply.json()
    assert said.get("response_type") == "ephemeral" and "free" in json.dumps(said).lower(), said


# --- payloads with only the fields Slack's reference pages show ---------------------------------

@pytest.mark.parametrize("text", ["help", "quota", "show cuda-oom", "CUDA out of memory"])
def test_a_slash_command_with_only_the_documented_core_fields_is_answered(bot: Bot, fake_slack, text):
    """A form holding only `command`, `text`, `team_id`, `channel_id`, `user_id` and
    `response_url` (no trigger id, names, api_app_id or legacy token): answered in the ack,
    ephemeral, as any other command."""
    import urllib.parse

    form = {"command": "/denpex", "text": text, "team_id": TEAM_ID, "channel_id": "C0LOGS", "user_id": "U0ALICE",
            "response_url": f"{fake_slack.base}/response/core/{time.time_ns()}"}
    reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    assert reply.status == 200, reply.body
    said = reply.json() if reply.body else {}
    if not said:  # answered through the response_url instead: as good for the person
        quiesce(bot, fake_slack, quiet_s=0.3)
        said = fake_slack.responses[-1] if fake_slack.responses else {}
    assert said.get("response_type", "ephemeral") == "ephemeral" and (said.get("text") or said.get("blocks")), said


@pytest.mark.parametrize(("kind", "text", "said", "charged"), [
    ("message", OOM_PASTE, "cuda-oom", 1),
    ("app_mention", "<@UBOT0001> help", "help", 0),
], ids=["message", "app_mention"])
def test_an_event_with_only_the_documented_core_fields_is_answered(bot: Bot, fake_slack, kind, text, said, charged):
    """An envelope of `type`, `team_id`, `event_id`, `event` alone (no api_app_id, event_time,
    authorizations) carrying a `message` or an `app_mention` of `type`, `channel`, `user`,
    `text`, `ts` alone (no channel_type, team, event_ts, client_msg_id): a pasted log
    diagnosed, a mention asking for help helped, in its thread."""
    ts = "1701300070.000100"
    body = {"type": "event_callback", "team_id": TEAM_ID, "event_id": f"Ev{time.time_ns()}",
            "event": {"type": kind, "channel": "C0LOGS", "user": "U0ALICE", "text": text, "ts": ts}}
    assert said in all_text(answered_once(bot, fake_slack, body, ts)).lower()
    assert used(bot) == charged


# --- one workspace, one token: the app uninstalled ------------------------------------------------

@pytest.mark.parametrize("event", [
    {"type": "app_uninstalled"},
    {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT0001"]}},
], ids=["app_uninstalled", "tokens_revoked"])
def test_an_uninstall_with_a_single_token_forgets_the_workspace_and_calls_nothing(bot: Bot, fake_slack, event):
    """SLACK_BOT_TOKEN mode: the app uninstalled (or its bot token revoked) after a diagnosis:
    a 200, the thread's context and the history forgotten, the plan and the day's usage kept,
    no Web API call (the token is gone), no traceback."""
    ts = "1701300090.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    store = Store(StoreConfig(url=bot.redis_url))
    assert store.threads.load(TEAM_ID, "C0LOGS", ts) is not None
    fake_slack.reset()
    reply = bot.event({**event, "event_ts": f"{time.time():.6f}"})
    assert reply.status == 200
    deadline = time.monotonic() + 10
    while store.threads.load(TEAM_ID, "C0LOGS", ts) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.threads.load(TEAM_ID, "C0LOGS", ts) is None
    assert used(bot) == 1  # the day's usage kept
    quiesce(bot, fake_slack, quiet_s=0.3)
    assert not fake_slack.calls, [c.method for c in fake_slack.calls]


# --- a second failure in a diagnosis thread ----------------------------------------------------

DISK_FULL = ("Traceback (most recent call last):\n"
             '  File "train.py", line 120, in <module>\n'
             "    torch.save(state, path)\n"
             "OSError: [Errno 28] No space left on device\n")


def test_a_new_log_pasted_in_a_diagnosis_thread_is_diagnosed_there(bot: Bot, fake_slack):
    """After the fix, the rerun's new failure pasted as a reply in the diagnosis thread (no
    mention): diagnosed in that thread, charged again; not taken as a follow-up question."""
    parent, reply_ts = "1701300100.000100", "1701300100.000300"
    bot.event(message(OOM_PASTE, parent))
    wait_handled(bot, parent)
    bot.event(message(DISK_FULL, reply_ts, thread_ts=parent, parent_user_id="U0ALICE"))
    wait_handled(bot, reply_ts)
    posts = replies(fake_slack)
    assert len(posts) == 2 and all(p.params["thread_ts"] == parent for p in posts)
    assert "disk-full" in json.dumps(posts[1].params), all_text(posts[1])[:400]
    assert used(bot) == 2



@pytest.mark.parametrize("channel", ["C0LOGS", "D0ALICEDM"], ids=["channel", "dm"])
def test_a_sentence_naming_the_error_then_the_log_file_is_one_answer(bot: Bot, fake_slack, channel):
    """"rank 3 died with CUDA out of memory again, log attached" and, at once, the log file
    (Slack sends an upload typed after its words as a message of its own), in a channel or in
    the bot's DM: one answer, in the sentence's thread as for a pasted log (238), one download,
    one charge (was: in a channel the file diagnosed, then the sentence answered alone after
    the paste window; in a DM the sentence diagnosed at once, then the file: two answers, two
    charges)."""
    kind = {"channel_type": "im"} if channel.startswith("D") else {}
    stamps = ["1701300110.000100", "1701300110.400100"]
    f = fake_slack.add_file(FakeFile(id="FSENTLOG1", name="rank3.log", content=OOM_PASTE.encode()))
    bot.event(message("rank 3 died with CUDA out of memory again, log attached", stamps[0], channel=channel, **kind))
    bot.event(message("", stamps[1], subtype="file_share", files=[f], channel=channel, **kind))
    wait_handled(bot, *stamps, channel=channel, timeout=30)
    posts = replies(fake_slack)
    assert len(posts) == 1 and "cuda-oom" in json.dumps(posts[0].params), [all_text(p)[:200] for p in posts]
    assert posts[0].params["thread_ts"] == stamps[0]
    assert len(fake_slack.of("files.download")) == 1
    assert used(bot) == 1


def test_a_sentence_naming_an_error_alone_in_a_dm_is_still_answered(bot: Bot, fake_slack):
    """The same words alone in the bot's DM (nothing follows): answered after the paste window
    from the words, as a DM is always answered; one answer, in its thread."""
    ts = "1701300115.000100"
    bot.event(message("rank 3 died with CUDA out of memory again", ts, channel="D0ALICEDM", channel_type="im"))
    wait_handled(bot, ts, channel="D0ALICEDM", timeout=30)
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == ts and "cuda" in all_text(post).lower()


def test_a_sentence_then_a_pasted_log_in_a_dm_is_one_answer(bot: Bot, fake_slack):
    """In the bot's DM, the words and then the pasted log: one answer in the words' thread,
    one charge (was: the words diagnosed at once, then the log: two)."""
    stamps = ["1701300130.000100", "1701300130.400100"]
    bot.event(message("rank 3 died with CUDA out of memory again, log below", stamps[0], channel="D0ALICEDM",
                      channel_type="im"))
    bot.event(message(OOM_PASTE, stamps[1], channel="D0ALICEDM", channel_type="im"))
    wait_handled(bot, *stamps, channel="D0ALICEDM", timeout=30)
    posts = replies(fake_slack)
    assert [p.params["thread_ts"] for p in posts] == [stamps[0]], [all_text(p)[:200] for p in posts]
    assert used(bot) == 1


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "shift_jis"])
def test_a_log_file_in_a_windows_or_legacy_encoding_is_diagnosed(bot: Bot, fake_slack, encoding):
    """A log written on a Windows or Japanese machine (cp1252, Latin-1, Shift-JIS: a user
    name with an umlaut, a Japanese folder in the path): diagnosed, charged once, not called
    a binary file; nothing undecodable posted back."""
    folder = "ログ" if encoding == "shift_jis" else "Jürgen"
    text = f'  File "C:\\Users\\{folder}\\train.py", line 88, in <module>\n' + OOM_PASTE
    f = fake_slack.add_file(FakeFile(id=f"FENC{encoding[:4].upper()}", name="train.log",
                                     content=text.encode(encoding)))
    ts = "1701300140.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in json.dumps(post.params), all_text(post)[:400]
    assert "\ufffd" not in all_text(post) and used(bot) == 1


def test_a_pasted_excerpt_then_the_full_log_file_is_one_answer(bot: Bot, fake_slack):
    """"here's the error:" with the traceback pasted, then the full log file uploaded at once:
    one answer, in the paste's thread, one download, one charge (was: two diagnoses of the one
    failure, two charges)."""
    stamps = ["1701300150.000100", "1701300150.400100"]
    f = fake_slack.add_file(FakeFile(id="FSTRONG01", name="rank3.log", content=OOM_PASTE.encode()))
    bot.event(message("here's the error:\n```" + OOM_PASTE + "```", stamps[0]))
    bot.event(message("", stamps[1], subtype="file_share", files=[f]))
    wait_handled(bot, *stamps, timeout=30)
    posts = replies(fake_slack)
    assert [p.params["thread_ts"] for p in posts] == [stamps[0]], [all_text(p)[:200] for p in posts]
    assert "cuda-oom" in json.dumps(posts[0].params) and len(fake_slack.of("files.download")) == 1
    assert used(bot) == 1
