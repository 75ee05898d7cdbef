"""Sixteenth audit of the Slack edge: an outside tester's second pass, reading SLACK.md and
DESIGN.md and checking what a person would see. Signed HTTP against the real bot, the Slack
stand-in recording every call, a real Redis.

Interactive payloads built from the diagnosis reply's own buttons (forged, stale, unknown
values, another workspace, double clicks, replays), follow-up questions in a diagnosis thread
(the fix, confirming it, the rank, hardware, other languages, a very long question, a pasted
secret), `/denpex` lookups and help, quota counting and its UTC day, workspace isolation,
Enterprise Grid envelopes, and the events that say the bot left a channel or the workspace."""

from __future__ import annotations

import json
import time
import urllib.parse
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from bot.store import keys
from tests.slack import events as ev
from tests.slack.conftest import Bot, quiesce, sign, wait_handled
from tests.slack.fake_slack import BOT_USER_ID, TEAM_ID, FakeSlack

OOM_PASTE, all_text, message, used = ev.OOM_PASTE, ev.all_text, ev.message, ev.used
FORM = "application/x-www-form-urlencoded"
HELP_MARK = "diagnoses failed training runs"
OTHER_TEAM = "T0OTHER02"
# Secrets as people paste them; none may come back unmasked in anything posted.
SECRETS = {
    "aws": "AKIAQ3EGRH7NX5LMPW2K",
    "slack": "xoxb-2719384756-9182736450-Zq8vYt3LmN0pWx4RkS7dUf2H",
    "github": "ghp_R8mK2vQ9xT4nL7pB3wZ6yC1dF5hJ0sA8gE2u",
    "password": "hunter2-Sup3rS3cret!",
    "email": "jane.doe@acme-corp.com",
}


def posts(fake: FakeSlack) -> list:
    return fake.of("chat.postMessage")


def texts(fake: FakeSlack) -> list[str]:
    return [all_text(p)[:300] for p in posts(fake)]


def settle(bot: Bot, fake: FakeSlack, seconds: float = 0.6) -> None:
    """For a request that leaves no claim to wait for: give its lazy listener time, then wait
    until the bot is quiet."""
    time.sleep(seconds)
    quiesce(bot, fake, quiet_s=0.3)


def diagnose(bot: Bot, fake: FakeSlack, ts: str, team: str = TEAM_ID, channel: str = "C0LOGS") -> Any:
    """The OOM paste at the channel's root, answered in its thread: the reply's post."""
    bot.event(message(OOM_PASTE, ts, team=team, channel=channel), team=team)
    wait_handled(bot, ts, team=team, channel=channel, timeout=30)
    reply = [p for p in posts(fake) if p.params.get("thread_ts") == ts]
    assert reply and "cuda-oom" in json.dumps(reply[0].params), texts(fake)
    return reply[0]


def ask(bot: Bot, fake: FakeSlack, thread: str, words: str, n: int, team: str = TEAM_ID) -> list:
    """A question in the diagnosis thread; the posts it got in that thread."""
    before = len([p for p in posts(fake) if p.params.get("thread_ts") == thread])
    ts = f"{thread.split('.')[0]}.{n:06d}"
    bot.event(message(words, ts, thread_ts=thread, team=team), team=team)
    wait_handled(bot, ts, team=team, timeout=30)
    return [p for p in posts(fake) if p.params.get("thread_ts") == thread][before:]


def buttons(post: Any) -> dict[str, dict[str, Any]]:
    """The reply's buttons by action id."""
    found: dict[str, dict[str, Any]] = {}
    for block in post.params.get("blocks") or []:
        for el in block.get("elements") or []:
            if isinstance(el, dict) and el.get("type") == "button":
                found[el["action_id"]] = el
        acc = block.get("accessory")
        if isinstance(acc, dict) and acc.get("type") == "button":
            found[acc["action_id"]] = acc
    return found


def click_body(action: dict[str, Any], thread_ts: str, message_ts: str, team: str | None = TEAM_ID,
               user: str = "U0ALICE", channel: str = "C0LOGS", trigger: str | None = None,
               enterprise: str | None = None) -> bytes:
    """A `block_actions` form body, as Slack sends a click on a button of a threaded reply."""
    payload = {
        "type": "block_actions",
        "team": {"id": team, "domain": "test", **({"enterprise_id": enterprise} if enterprise else {})} if team else None,
        "enterprise": {"id": enterprise, "name": "Org"} if enterprise else None,
        "is_enterprise_install": False,
        "user": {"id": user, "username": "alice", "team_id": team},
        "api_app_id": "A0DENPEX", "token": "legacy",
        "container": {"type": "message", "message_ts": message_ts, "channel_id": channel, "is_ephemeral": False,
                      "thread_ts": thread_ts},
        "channel": {"id": channel, "name": "training"},
        "message": {"type": "message", "ts": message_ts, "thread_ts": thread_ts, "text": "x", "bot_id": "BBOT0001"},
        "trigger_id": trigger or f"{time.time_ns()}.1.abc",
        "response_url": "http://127.0.0.1:9/unused",
        "actions": [{"action_id": action["action_id"], "block_id": "b", "value": action.get("value", ""),
                     "type": "button", "action_ts": f"{time.time():.6f}"}],
    }  # fmt: skip
    return urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()


def thread_posts(fake: FakeSlack, thread: str) -> list:
    return [p for p in posts(fake) if p.params.get("thread_ts") == thread]


# --- 1. clicks on the diagnosis reply's buttons ---------------------------------------------------------

def test_full_entry_from_the_reply_is_posted_in_the_thread_once_for_a_double_click(bot: Bot, fake_slack):
    """The reply's own "Full entry" button, clicked twice in a row (two trigger ids): the
    entry posted once, in the diagnosis thread; nothing charged."""
    thread = "1702000000.000100"
    reply = diagnose(bot, fake_slack, thread)
    full = buttons(reply)["denpex_full_entry"]
    msg_ts = fake_slack.messages[-1]["ts"]
    for _ in range(2):
        assert bot.post(click_body(full, thread, msg_ts), FORM).status == 200
    settle(bot, fake_slack, 1.0)
    entries = thread_posts(fake_slack, thread)[1:]
    assert len(entries) == 1, texts(fake_slack)
    assert "cuda-oom" in all_text(entries[0]) or "Out of Memory" in all_text(entries[0])
    assert used(bot) == 1


def test_a_click_replayed_byte_for_byte_runs_once(bot: Bot, fake_slack):
    """One signed click sent again (a proxy's retry): the vote counted once, thanked once."""
    thread = "1702000010.000100"
    reply = diagnose(bot, fake_slack, thread)
    right = buttons(reply)["denpex_feedback_right"]
    body = click_body(right, thread, fake_slack.messages[-1]["ts"])
    headers = sign(body)
    for _ in range(2):
        assert bot.post(body, FORM, headers=headers, sign_it=False).status == 200
    settle(bot, fake_slack, 1.0)
    assert len(fake_slack.of("chat.postEphemeral")) == 1
    r = redis.Redis.from_url(bot.redis_url)
    votes = [k for k in r.scan_iter(match=f"denpex:{{{TEAM_ID}}}:*feedback*")]
    assert votes, "the vote was not recorded"


@pytest.mark.parametrize("forgery", ["bad-signature", "wrong-secret", "stale", "unsigned"])
def test_a_forged_click_is_refused_and_does_nothing(bot: Bot, fake_slack, forgery):
    """A click whose signature is wrong, made with another secret, five minutes old or absent:
    401, no post, no vote, no ephemeral."""
    thread = "1702000020.000100"
    reply = diagnose(bot, fake_slack, thread)
    calls_before = len(fake_slack.calls)
    body = click_body(buttons(reply)["denpex_full_entry"], thread, fake_slack.messages[-1]["ts"])
    if forgery == "bad-signature":
        headers = {**sign(body), "X-Slack-Signature": "v0=" + "0" * 64}
    elif forgery == "wrong-secret":
        headers = sign(body, secret="not-the-signing-secret-at-all-00")
    elif forgery == "stale":
        headers = sign(body, ts=int(time.time()) - 400)
    else:
        headers = {}
    assert bot.post(body, FORM, headers=headers, sign_it=False).status == 401
    settle(bot, fake_slack)
    assert len(fake_slack.calls) == calls_before, [c.method for c in fake_slack.calls[calls_before:]]


@pytest.mark.parametrize("action_id,value", [
    ("denpex_full_entry", "no-such-entry"),
    ("denpex_full_entry", ""),
    ("denpex_related_0", "../../etc/passwd"),
    ("denpex_show_cuda-oom", "x" * 3000),
    ("denpex_feedback_right", "no-such-entry"),
    ("denpex_feedback_wrong", ""),
    ("denpex_followup_fix", "{not json"),
    ("denpex_followup_fix", '{"t": "fix", "q": "how?"}'),
    ("denpex_followup_fix", "[1, 2]"),
    ("denpex_removed_feature", "cuda-oom"),
], ids=["unknown-id", "empty", "path", "huge", "vote-unknown", "vote-empty", "topic-not-json",
        "topic-on-no-thread", "topic-list", "unknown-action"])
def test_a_click_with_an_unknown_or_expired_value_does_nothing(bot: Bot, fake_slack, action_id, value):
    """A button of an old message, a removed entry or a hand-made payload: a 200 at once, no
    post in any thread, no vote, no crash."""
    assert bot.action(action_id, value, thread_ts="1702000030.000100").status == 200
    settle(bot, fake_slack)
    assert posts(fake_slack) == [], texts(fake_slack)
    r = redis.Redis.from_url(bot.redis_url)
    assert not [k for k in r.scan_iter(match="*feedback*")]


def test_a_topic_click_from_another_workspace_never_reads_this_workspaces_thread(bot: Bot, fake_slack):
    """Team A's diagnosis thread; a topic button naming the same channel and thread clicked
    from team B (same channel id, as ids are per workspace): no answer from A's diagnosis is
    posted; B's person is told the diagnosis is not there."""
    thread = "1702000040.000100"
    diagnose(bot, fake_slack, thread)
    topic = {"action_id": "denpex_followup_fix", "value": json.dumps({"t": "fix", "q": "how do I fix it?"})}
    assert bot.post(click_body(topic, thread, "1702000041.000100", team=OTHER_TEAM, user="U0EVE"), FORM).status == 200
    settle(bot, fake_slack, 1.0)
    assert len(thread_posts(fake_slack, thread)) == 1, texts(fake_slack)
    for e in fake_slack.of("chat.postEphemeral"):
        assert "cuda-oom" not in all_text(e) and "Out of Memory" not in all_text(e)


def test_a_topic_click_in_its_own_workspace_answers_in_the_thread_once(bot: Bot, fake_slack):
    """The same topic clicked twice by its own workspace: answered in the thread once."""
    thread = "1702000050.000100"
    diagnose(bot, fake_slack, thread)
    topic = {"action_id": "denpex_followup_fix", "value": json.dumps({"t": "fix", "q": "how do I fix it?"})}
    for _ in range(2):
        assert bot.post(click_body(topic, thread, "1702000051.000100"), FORM).status == 200
    # A click leaves no claim to wait on: wait for the first answer (over a second under a
    # loaded `-n 2` run, where a fixed second once saw none), then for quiet.
    deadline = time.monotonic() + 15
    while len(thread_posts(fake_slack, thread)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    settle(bot, fake_slack, 1.0)
    answers = thread_posts(fake_slack, thread)[1:]
    assert len(answers) == 1, texts(fake_slack)
    assert used(bot) == 1


def test_a_view_submission_is_acknowledged(bot: Bot, fake_slack):
    """The app opens no modal of its own but the one saying a shortcut does nothing: a
    submission of any view is acknowledged with an empty 200 (Slack closes the modal), nothing
    posted."""
    payload = {"type": "view_submission", "team": {"id": TEAM_ID, "domain": "test"},
               "user": {"id": "U0ALICE", "team_id": TEAM_ID}, "api_app_id": "A0DENPEX", "trigger_id": "1.2.3",
               "view": {"id": "V1", "type": "modal", "callback_id": "denpex_unknown", "state": {"values": {}},
                        "private_metadata": "", "hash": "1.abc"}}
    body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
    reply = bot.post(body, FORM)
    assert reply.status == 200 and reply.body in (b"", b"{}"), reply
    settle(bot, fake_slack)
    assert posts(fake_slack) == []


# --- 2. follow-up questions in a diagnosis thread -------------------------------------------------------

@pytest.mark.parametrize("question,expect", [
    ("what's the fix?", ("PYTORCH_CUDA_ALLOC_CONF", "batch", "checkpoint")),
    ("how do I confirm this?", ("confirm",)),
    ("which rank failed first?", ("rank 3", "Rank 3", "rank: 3")),
    ("is it hardware?", ("hardware", "not a hardware", "software")),
], ids=["fix", "confirm", "rank", "hardware"])
def test_follow_up_questions_are_answered_in_the_thread_and_not_charged(bot: Bot, fake_slack, question, expect):
    """Each of DESIGN.md's follow-ups gets an answer in the thread, from the entry or the run,
    and the day's diagnoses stay at one."""
    thread = "1702000100.000100"
    diagnose(bot, fake_slack, thread)
    got = ask(bot, fake_slack, thread, question, 1)
    assert len(got) == 1, texts(fake_slack)
    text = all_text(got[0])
    assert any(e.lower() in text.lower() for e in expect), text[:600]
    assert HELP_MARK not in text
    assert used(bot) == 1


@pytest.mark.parametrize("question", ["¿cómo lo arreglo?", "wie kann ich das beheben?", "这个怎么修复？",
                                      "как это исправить?"], ids=["es", "de", "zh", "ru"])
def test_a_question_in_another_language_gets_an_answer_or_topics_in_the_thread(bot: Bot, fake_slack, question):
    """A question in Spanish, German, Chinese or Russian: one post in the thread (an answer, or
    the closest topics as buttons), never the generic help, never a diagnosis charge."""
    thread = "1702000110.000100"
    diagnose(bot, fake_slack, thread)
    got = ask(bot, fake_slack, thread, question, 1)
    assert len(got) == 1, texts(fake_slack)
    assert HELP_MARK not in all_text(got[0])
    assert used(bot) == 1


def test_a_very_long_question_is_answered_within_slacks_limits(bot: Bot, fake_slack):
    """A 12,000-character question (a rant and a stack of context): one post in the thread,
    within Block Kit's limits (50 blocks, 3,000 a section, text under 40,000)."""
    thread = "1702000120.000100"
    diagnose(bot, fake_slack, thread)
    question = "how do I confirm this? " + ("we tried everything on node gpu-17 and it still dies " * 230)
    got = ask(bot, fake_slack, thread, question, 1)
    assert len(got) == 1, texts(fake_slack)
    blocks = got[0].params.get("blocks") or []
    assert len(blocks) <= 50 and len(got[0].params.get("text") or "") < 40_000
    for b in blocks:
        if isinstance(b.get("text"), dict):
            assert len(b["text"]["text"]) <= 3000
    assert used(bot) == 1


@pytest.mark.parametrize("kind", list(SECRETS))
def test_a_secret_pasted_in_a_question_is_never_echoed(bot: Bot, fake_slack, kind):
    """A question quoting a secret (an AWS key id, a Slack token, a GitHub token, a password):
    the answer, its buttons and every other call hold none of it."""
    thread = "1702000130.000100"
    diagnose(bot, fake_slack, thread)
    secret = SECRETS[kind]
    words = (f"I set password={secret} and it still fails, what now?" if kind == "password"
             else f"can you send the fix to {secret}?" if kind == "email"
             else f"still failing with {secret} exported, can you rerun it with NCCL_DEBUG=INFO?")
    got = ask(bot, fake_slack, thread, words, 1)
    assert len(got) == 1, texts(fake_slack)
    for call in fake_slack.calls:
        assert secret not in json.dumps(call.params), (call.method, json.dumps(call.params)[:400])
    r = redis.Redis.from_url(bot.redis_url)
    assert not any(secret.encode() in (r.dump(k) or b"") for k in r.scan_iter())


# --- 3. /denpex lookups and help ------------------------------------------------------------------------

def _ephemeral(reply: Any) -> dict[str, Any]:
    assert reply.status == 200, reply
    body = reply.json()
    assert body.get("response_type") == "ephemeral", body
    return body


def test_a_lookup_of_a_rules_keyword_finds_it_and_is_free(bot: Bot, fake_slack):
    """`/denpex CUDA out of memory`: the entry listed, ephemeral, nothing posted, no diagnosis
    charged (lookups are free)."""
    body = _ephemeral(bot.command("CUDA out of memory. Tried to allocate 2.00 GiB"))
    assert "cuda-oom" in json.dumps(body)
    settle(bot, fake_slack)
    assert posts(fake_slack) == [] and used(bot) == 0


def test_a_lookup_with_a_typo_still_finds_the_entry(bot: Bot, fake_slack):
    """`/denpex CUDA out of memroy` (a typo): the OOM entry listed first (was: listed second,
    behind an entry sharing only "cuda", as "memroy" matched nothing)."""
    body = _ephemeral(bot.command("CUDA out of memroy"))
    shown = [b["accessory"]["value"] for b in body["blocks"] if isinstance(b.get("accessory"), dict)]
    assert shown and shown[0] == "cuda-oom", shown
    assert used(bot) == 0


@pytest.mark.parametrize("words", ["frobnicator exploded while reticulating splines", "this is not an error",
                                   "some random string that matches nothing"])
def test_a_lookup_matching_nothing_says_so(bot: Bot, fake_slack, words):
    """A string no entry is about (was: five entries sharing "while", "error" or "string")."""
    body = _ephemeral(bot.command(words))
    assert "No entry matches" in body["text"] or "No entry matches" in json.dumps(body.get("blocks"))
    assert used(bot) == 0


@pytest.mark.parametrize("kind", list(SECRETS))
def test_a_lookup_of_a_secret_looking_string_never_echoes_it(bot: Bot, fake_slack, kind):
    secret = SECRETS[kind]
    words = f"password={secret} CUDA error" if kind == "password" else f"401 Unauthorized token {secret}"
    body = _ephemeral(bot.command(words))
    assert secret not in json.dumps(body)
    settle(bot, fake_slack)
    for call in fake_slack.calls:
        assert secret not in json.dumps(call.params)


@pytest.mark.parametrize("words", ["help", "HELP", "stats", "usage", "", "--help"])
def test_help_and_unknown_words_get_the_help(bot: Bot, fake_slack, words):
    """`/denpex help` and words that are no subcommand (`stats`, `usage`: the operator's CLI
    has stats, Slack does not): the help, ephemeral, naming `/denpex quota`."""
    body = _ephemeral(bot.command(words))
    assert "quota" in json.dumps(body)


def test_quota_tells_todays_usage_and_when_it_resets(bot: Bot, fake_slack):
    diagnose(bot, fake_slack, "1702000200.000100")
    body = _ephemeral(bot.command("quota"))
    text = body["text"]
    assert "Used today: 1 of 3" in text and "Resets at" in text and "UTC" in text


# --- 4. quota: follow-ups and lookups are not diagnoses; the UTC day --------------------------------------

def test_yesterdays_usage_does_not_count_today(bot: Bot, fake_slack):
    """A workspace that used its three diagnoses yesterday (UTC) is answered today."""
    r = redis.Redis.from_url(bot.redis_url)
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date()
    r.set(keys.quota(TEAM_ID, yesterday), 3)
    diagnose(bot, fake_slack, "1702000300.000100")
    assert used(bot) == 1


def test_todays_usage_spent_stops_the_fourth_log_but_not_follow_ups_or_lookups(bot: Bot, fake_slack):
    """Three logs, then a fourth: told the limit, uncharged. A follow-up in the first thread is
    still answered, and a lookup still works."""
    threads = [f"17020004{i}0.000100" for i in range(3)]
    for t in threads:
        diagnose(bot, fake_slack, t)
    assert used(bot) == 3
    fourth = "1702000490.000100"
    bot.event(message(OOM_PASTE, fourth))
    wait_handled(bot, fourth, timeout=30)
    told = thread_posts(fake_slack, fourth)
    assert len(told) == 1 and "limit" in all_text(told[0]).lower(), texts(fake_slack)
    assert used(bot) == 3
    got = ask(bot, fake_slack, threads[0], "how do I confirm this?", 1)
    assert len(got) == 1 and "limit" not in all_text(got[0]).lower()
    assert "cuda-oom" in json.dumps(_ephemeral(bot.command("CUDA out of memory. Tried to allocate 2.00 GiB")))
    assert used(bot) == 3


# --- 5. workspaces apart ---------------------------------------------------------------------------------

def test_another_workspaces_question_in_a_same_named_thread_is_not_answered_from_this_one(bot: Bot, fake_slack):
    """Team A diagnosed a thread; team B's message with the same channel id and thread_ts
    (ids are only unique per workspace) asking about "this": nothing of A's diagnosis
    posted, and A's thread context untouched."""
    thread = "1702000500.000100"
    diagnose(bot, fake_slack, thread)
    got = ask(bot, fake_slack, thread, "how do I confirm this?", 1, team=OTHER_TEAM)
    for p in got:
        assert "cuda-oom" not in all_text(p) and "nvidia-smi" not in all_text(p), all_text(p)[:300]
    r = redis.Redis.from_url(bot.redis_url)
    assert r.exists(keys.thread(TEAM_ID, "C0LOGS", thread))
    assert not r.exists(keys.thread(OTHER_TEAM, "C0LOGS", thread))
    assert used(bot, OTHER_TEAM) == 0


def test_each_workspace_is_charged_for_its_own_logs(bot: Bot, fake_slack):
    diagnose(bot, fake_slack, "1702000510.000100")
    diagnose(bot, fake_slack, "1702000511.000100", team=OTHER_TEAM)
    assert used(bot) == 1 and used(bot, OTHER_TEAM) == 1


# --- 6. Enterprise Grid ------------------------------------------------------------------------------------

def test_an_enterprise_grid_event_is_answered_and_charged_to_its_workspace(bot: Bot, fake_slack):
    """A workspace of an Enterprise Grid org (a per-workspace install): the envelope names
    `enterprise_id`, `is_enterprise_install: false`, a `W` user. Answered, charged to the
    workspace, not the org."""
    ts = "1702000600.000100"
    event = message(OOM_PASTE, ts, user="W0ALICE01")
    body = {
        "token": "legacy", "team_id": TEAM_ID, "enterprise_id": "E0ORG0001", "api_app_id": "A0DENPEX",
        "event": event, "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
        "is_ext_shared_channel": False, "context_team_id": TEAM_ID, "context_enterprise_id": "E0ORG0001",
        "authorizations": [{"enterprise_id": "E0ORG0001", "team_id": TEAM_ID, "user_id": BOT_USER_ID,
                            "is_bot": True, "is_enterprise_install": False}],
    }  # fmt: skip
    assert bot.post(json.dumps(body).encode(), "application/json").status == 200
    wait_handled(bot, ts, timeout=30)
    assert len(thread_posts(fake_slack, ts)) == 1
    assert used(bot) == 1 and used(bot, "E0ORG0001") == 0


def test_an_enterprise_grid_click_is_answered(bot: Bot, fake_slack):
    """The reply's Full entry button clicked by a `W` user of an org's workspace."""
    thread = "1702000610.000100"
    reply = diagnose(bot, fake_slack, thread)
    full = buttons(reply)["denpex_full_entry"]
    body = click_body(full, thread, fake_slack.messages[-1]["ts"], user="W0ALICE01", enterprise="E0ORG0001")
    assert bot.post(body, FORM).status == 200
    settle(bot, fake_slack, 1.0)
    assert len(thread_posts(fake_slack, thread)) == 2, texts(fake_slack)


# --- 7. the bot leaves a channel, or the workspace --------------------------------------------------------

@pytest.mark.parametrize("event", [
    {"type": "member_left_channel", "user": BOT_USER_ID, "channel": "C0LOGS", "channel_type": "C", "team": TEAM_ID},
    {"type": "channel_left", "channel": "C0LOGS", "actor_id": "U0ALICE", "event_ts": "1702000700.000100"},
    {"type": "group_left", "channel": "G0PRIV", "actor_id": "U0ALICE", "event_ts": "1702000700.000100"},
], ids=["member-left", "channel-left", "group-left"])
def test_the_bot_removed_from_a_channel_posts_nothing_there(bot: Bot, fake_slack, event):
    """The bot removed from a channel: the event is acknowledged, nothing posted to the channel
    it can no longer post in."""
    thread = "1702000710.000100"
    diagnose(bot, fake_slack, thread)
    n = len(fake_slack.calls)
    assert bot.event(event).status == 200
    settle(bot, fake_slack)
    assert [c.method for c in fake_slack.calls[n:] if c.method.startswith("chat.")] == []


@pytest.mark.parametrize("event", [
    {"type": "app_uninstalled"},
    {"type": "tokens_revoked", "tokens": {"bot": [BOT_USER_ID]}},
], ids=["uninstalled", "bot-token-revoked"])
def test_an_uninstall_forgets_the_workspaces_threads_and_keeps_others(bot: Bot, fake_slack, event):
    """After the workspace uninstalls: its thread contexts and diagnosis history are gone (a
    question in the old thread gets no answer from it), the day's usage stays, and another
    workspace's threads are untouched."""
    mine, theirs = "1702000800.000100", "1702000801.000100"
    diagnose(bot, fake_slack, mine)
    diagnose(bot, fake_slack, theirs, team=OTHER_TEAM)
    assert bot.event({**event, "event_ts": f"{time.time():.6f}"}).status == 200
    r = redis.Redis.from_url(bot.redis_url)
    deadline = time.monotonic() + 10
    while r.exists(keys.thread(TEAM_ID, "C0LOGS", mine)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not r.exists(keys.thread(TEAM_ID, "C0LOGS", mine))
    assert r.exists(keys.thread(OTHER_TEAM, "C0LOGS", theirs))
    assert used(bot) == 1
    got = ask(bot, fake_slack, mine, "how do I confirm this?", 1)
    for p in got:
        assert "nvidia-smi" not in all_text(p), all_text(p)[:300]


# --- 8. follow-ups: retries, other stacks, expired threads, the follow-up allowance ------------------------

def followups_used(bot: Bot, team: str = TEAM_ID) -> int:
    from bot.store import Store, StoreConfig

    with Store(StoreConfig(url=bot.redis_url)) as store:
        return store.followup_quota.used(team)


@pytest.mark.parametrize("question,expect", [
    ("what's the DeepSpeed version of the fix?", "deepspeed"),
    ("will it come back?", ""),
], ids=["deepspeed", "come-back"])
def test_the_other_follow_ups_design_names_are_answered(bot: Bot, fake_slack, question, expect):
    thread = "1702000900.000100"
    diagnose(bot, fake_slack, thread)
    got = ask(bot, fake_slack, thread, question, 1)
    assert len(got) == 1, texts(fake_slack)
    text = all_text(got[0])
    assert HELP_MARK not in text and "not sure" not in text.lower(), text[:400]
    assert expect in text.lower()
    assert used(bot) == 1 and followups_used(bot) == 1


def test_a_retried_follow_up_is_answered_and_counted_once(bot: Bot, fake_slack):
    """Slack re-sends the question's event (`http_timeout`): one answer, one follow-up counted."""
    thread = "1702000910.000100"
    diagnose(bot, fake_slack, thread)
    ts = "1702000910.000001"
    event = message("how do I confirm this?", ts, thread_ts=thread)
    bot.event(event, event_id="EvFOLLOW16")
    bot.event(event, event_id="EvFOLLOW16", headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    wait_handled(bot, ts, timeout=30)
    settle(bot, fake_slack)
    assert len(thread_posts(fake_slack, thread)) == 2, texts(fake_slack)
    assert followups_used(bot) == 1 and used(bot) == 1


def test_a_question_in_a_thread_whose_diagnosis_expired_is_told_so(bot: Bot, fake_slack):
    """The thread's context ran out (its TTL), the thread is remembered as diagnosed: a
    question there is told the diagnosis expired, not answered from nothing, not charged."""
    thread = "1702000920.000100"
    diagnose(bot, fake_slack, thread)
    redis.Redis.from_url(bot.redis_url).delete(keys.thread(TEAM_ID, "C0LOGS", thread))
    got = ask(bot, fake_slack, thread, "how do I confirm this?", 1)
    assert len(got) <= 1, texts(fake_slack)
    for p in got:
        assert "expired" in all_text(p).lower() and "nvidia-smi" not in all_text(p)
    assert used(bot) == 1


def test_a_question_under_a_log_no_entry_matched_is_not_counted(bot: Bot, fake_slack):
    """A log no entry knows, then "what now?" in its thread: told what to paste next, and the
    day's follow-ups stay untouched."""
    thread = "1702000930.000100"
    log = ("[rank0]: Traceback (most recent call last):\n[rank0]:   File \"train.py\", line 12, in <module>\n"
           "[rank0]: FrobnicatorError: the flux capacitor desynchronised at step 4411\n")
    bot.event(message(log, thread))
    wait_handled(bot, thread, timeout=30)
    assert thread_posts(fake_slack, thread), texts(fake_slack)
    ask(bot, fake_slack, thread, "how do I fix this?", 1)
    assert followups_used(bot) == 0


# --- 9. interactive payloads of odd shapes; votes changed ---------------------------------------------

def _payload_body(payload: Any) -> bytes:
    return urllib.parse.urlencode({"payload": payload if isinstance(payload, str) else json.dumps(payload)}).encode()


def _block_actions(**over: Any) -> dict[str, Any]:
    base = {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE", "team_id": TEAM_ID},
            "api_app_id": "A0DENPEX", "trigger_id": f"{time.time_ns()}.1.x",
            "container": {"type": "message", "message_ts": "1702001000.000200", "channel_id": "C0LOGS",
                          "is_ephemeral": False, "thread_ts": "1702001000.000100"},
            "channel": {"id": "C0LOGS"},
            "actions": [{"action_id": "denpex_full_entry", "block_id": "b", "type": "button", "value": "cuda-oom",
                         "action_ts": "1702001001.1"}]}
    return {**base, **over}


@pytest.mark.parametrize("payload", [
    _block_actions(actions=[]),
    _block_actions(actions=[{"action_id": "denpex_full_entry", "type": "button", "block_id": "b"}]),
    _block_actions(actions=[{"action_id": "denpex_full_entry", "type": "static_select", "block_id": "b",
                             "selected_option": {"value": "cuda-oom", "text": {"type": "plain_text", "text": "x"}}}]),
    _block_actions(container={"type": "view", "view_id": "V1"}, channel=None),
    _block_actions(user=None),
], ids=["no-actions", "no-value", "select-menu", "home-view", "no-user"])
def test_a_block_actions_payload_of_an_odd_shape_is_acknowledged_without_a_crash(bot: Bot, fake_slack, payload):
    """Shapes Slack sends for other containers and elements, or a trimmed payload: a 2xx or a
    4xx, never a 5xx or a traceback, and nothing posted into a thread it cannot name."""
    reply = bot.post(_payload_body(payload), FORM)
    assert reply.status < 500, reply
    settle(bot, fake_slack)
    for p in posts(fake_slack):
        assert p.params.get("channel") == "C0LOGS"


@pytest.mark.parametrize("raw", ["not json", "[1, 2, 3]", "null", '{"type": "block_actions"}'],
                         ids=["not-json", "list", "null", "bare"])
def test_a_payload_field_that_is_not_an_interaction_is_refused_cleanly(bot: Bot, fake_slack, raw):
    reply = bot.post(_payload_body(raw), FORM)
    assert reply.status < 500, reply
    settle(bot, fake_slack)
    assert posts(fake_slack) == []


def test_a_vote_changed_from_right_to_wrong_counts_once_as_wrong(bot: Bot, fake_slack):
    """One person clicks Right, then thinks again and clicks Wrong: one vote, wrong."""
    from bot.store import Store, StoreConfig

    thread = "1702001100.000100"
    reply = diagnose(bot, fake_slack, thread)
    found = buttons(reply)
    msg_ts = fake_slack.messages[-1]["ts"]
    assert bot.post(click_body(found["denpex_feedback_right"], thread, msg_ts), FORM).status == 200
    fake_slack.wait_for("chat.postEphemeral", count=1, timeout=10)
    assert bot.post(click_body(found["denpex_feedback_wrong"], thread, msg_ts), FORM).status == 200
    fake_slack.wait_for("chat.postEphemeral", count=2, timeout=10)
    with Store(StoreConfig(url=bot.redis_url)) as store:
        rows = {row.rule_id: row for row in store.feedback.summary()}
    assert rows["cuda-oom"].right == 0 and rows["cuda-oom"].wrong == 1


def test_full_entry_on_a_dm_diagnosis_is_posted_in_the_dm_thread(bot: Bot, fake_slack):
    """A log in the bot's DM, then the reply's Full entry: posted in that DM's thread."""
    ts, dm = "1702001200.000100", "D0ALICE01"
    bot.event(message(OOM_PASTE, ts, channel=dm, channel_type="im"))
    wait_handled(bot, ts, channel=dm, timeout=30)
    reply = thread_posts(fake_slack, ts)[0]
    body = click_body(buttons(reply)["denpex_full_entry"], ts, fake_slack.messages[-1]["ts"], channel=dm)
    assert bot.post(body, FORM).status == 200
    settle(bot, fake_slack, 1.0)
    got = thread_posts(fake_slack, ts)
    assert len(got) == 2 and got[1].params["channel"] == dm, texts(fake_slack)


# --- 10. the follow-up allowance's day; a click where the bot can no longer post; user tokens -----------

def test_yesterdays_follow_ups_do_not_count_today(bot: Bot, fake_slack):
    """A free workspace that asked its five follow-ups yesterday (UTC) is answered today."""
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date()
    redis.Redis.from_url(bot.redis_url).set(f"{keys.workspace(TEAM_ID)}quota:followups:{yesterday.isoformat()}", 5)
    thread = "1702001300.000100"
    diagnose(bot, fake_slack, thread)
    got = ask(bot, fake_slack, thread, "how do I confirm this?", 1)
    assert len(got) == 1 and "limit" not in all_text(got[0]).lower(), texts(fake_slack)
    assert followups_used(bot) == 1


@pytest.mark.parametrize("error", ["not_in_channel", "channel_not_found", "is_archived"])
def test_a_click_where_the_bot_can_no_longer_post_is_dropped_quietly(bot: Bot, fake_slack, error):
    """Full entry clicked after the bot was removed from the channel (or it was archived):
    Slack refuses the post; one try, no crash, and the next click is tried again."""
    thread = "1702001310.000100"
    reply = diagnose(bot, fake_slack, thread)
    full = buttons(reply)["denpex_full_entry"]
    n = len(posts(fake_slack))
    fake_slack.fail("chat.postMessage", 200, times=5, body={"ok": False, "error": error})
    assert bot.post(click_body(full, thread, fake_slack.messages[-1]["ts"]), FORM).status == 200
    settle(bot, fake_slack, 1.0)
    assert len(posts(fake_slack)) - n <= 2, [c.method for c in fake_slack.calls]


def test_a_revoked_user_token_keeps_the_workspaces_threads(bot: Bot, fake_slack):
    """`tokens_revoked` naming only a person's user token: the bot's threads stay answerable."""
    thread = "1702001320.000100"
    diagnose(bot, fake_slack, thread)
    assert bot.event({"type": "tokens_revoked", "tokens": {"oauth": ["U0ALICE"]},
                      "event_ts": f"{time.time():.6f}"}).status == 200
    settle(bot, fake_slack)
    assert redis.Redis.from_url(bot.redis_url).exists(keys.thread(TEAM_ID, "C0LOGS", thread))
    got = ask(bot, fake_slack, thread, "how do I confirm this?", 1)
    assert len(got) == 1 and "confirm" in all_text(got[0]).lower()


# --- 11. Scale-plan alerts, the way an admin sets them up ------------------------------------------------

def _alert(bot: Bot, token: str, body: bytes) -> int:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(bot.url + "/denpex/alerts", data=body, method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_alerts_from_connect_to_revoke_through_the_slash_command(bot: Bot, fake_slack):
    """`/denpex alerts connect` on the free plan: told it is a Scale feature, no token. A code
    redeemed: a token, an alert posted once (200), its replay refused (409). Another Scale
    workspace gets no token: this single-token bot cannot post there. The plan lapsed: 402.
    After `/denpex alerts revoke`: 401. One post."""
    import secrets

    from bot.store import Store, StoreConfig
    from bot.watch.protocol import Alert, EvidenceLine
    from tests.watch.conftest import TOKEN, make_scale

    line = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB."
    alert = Alert(job="job-16", kind="alert", root="cuda-oom", confidence="high", initiating_rank=3, host=None,
                  ranks=[3], evidence=[EvidenceLine(12, 3, line)])

    def fresh() -> bytes:
        return alert.to_json(secrets.token_hex(16), time.time())

    free = bot.command("alerts connect").body.decode()
    assert TOKEN.search(free) is None and "redeem" in free.lower()
    with Store(StoreConfig(url=bot.redis_url)) as store:
        (code,) = store.codes.create("scale", 14)
        make_scale(store, OTHER_TEAM)
    assert "plan is on" in bot.command(f"redeem {code}").json()["text"]
    token = TOKEN.search(bot.command("alerts connect").body.decode()).group(0)
    body = fresh()
    assert _alert(bot, token, body) == 200
    assert _alert(bot, token, body) == 409
    assert len(posts(fake_slack)) == 1 and posts(fake_slack)[0].params["channel"] == "C0LOGS"
    # Another Scale workspace (a shared channel's other side) gets no token: this single-token
    # bot cannot post there, and the ingest endpoint would refuse it (e17 has the scenario).
    refused = bot.command("alerts connect", team=OTHER_TEAM).body.decode()
    assert TOKEN.search(refused) is None and "installed in another workspace" in refused
    redis.Redis.from_url(bot.redis_url).delete(keys.plan(TEAM_ID))
    assert _alert(bot, token, fresh()) == 402
    assert bot.command("alerts revoke").status == 200
    assert _alert(bot, token, fresh()) == 401
    assert [p.params["channel"] for p in posts(fake_slack)] == ["C0LOGS"]


def test_an_org_wide_install_event_is_answered_and_its_thread_follows_up(bot: Bot, fake_slack):
    """An org-wide Grid install's envelope (`is_enterprise_install: true`, authorizations
    naming the org and no workspace): the log answered in its thread, charged to the org, and
    a question in that thread answered from the same diagnosis."""
    ts = "1702001400.000100"

    def send(event: dict[str, Any]) -> None:
        body = {
            "token": "legacy", "team_id": TEAM_ID, "enterprise_id": "E0ORG0001", "api_app_id": "A0DENPEX",
            "event": event, "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
            "is_ext_shared_channel": False,
            "authorizations": [{"enterprise_id": "E0ORG0001", "team_id": None, "user_id": BOT_USER_ID,
                                "is_bot": True, "is_enterprise_install": True}],
        }  # fmt: skip
        assert bot.post(json.dumps(body).encode(), "application/json").status == 200

    send(message(OOM_PASTE, ts, user="W0ALICE01"))
    wait_handled(bot, ts, team="E0ORG0001", timeout=30)
    assert len(thread_posts(fake_slack, ts)) == 1, texts(fake_slack)
    assert used(bot, "E0ORG0001") == 1
    q = "1702001400.000001"
    send(message("how do I confirm this?", q, user="W0ALICE01", thread_ts=ts))
    wait_handled(bot, q, team="E0ORG0001", timeout=30)
    got = thread_posts(fake_slack, ts)[1:]
    assert len(got) == 1 and "confirm" in all_text(got[0]).lower(), texts(fake_slack)
