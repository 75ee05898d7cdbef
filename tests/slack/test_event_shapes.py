"""Shapes of real Slack requests the bot must take in stride, through the real bot over signed
HTTP: shared channels and Enterprise Grid (whose workspace is in `authorizations`, not the
envelope), thread broadcasts, join and topic messages, a retry whose original never arrived,
ssl_check, shortcuts and clicks the bot has no listener for, Block Kit's size limits, questions
in a diagnosis thread as a mention or a broadcast, and a file share with no text."""

from __future__ import annotations

import json
import time
import urllib.parse

import pytest

from bot.store import Store, StoreConfig
from tests.slack.conftest import Bot, wait_handled
from tests.slack.events import CHANNEL, all_text, ephemeral_show_click, message
from tests.slack.fake_slack import TEAM_ID, FakeFile, FakeSlack

ROOT_SAMPLE = "tests/data/samples/rank3-oom-8-ranks.log"
ORG = "E0GRID0001"
OOM = ("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
       "capacity of 79.15 GiB of which 1.2 GiB is free.\n")


@pytest.fixture(scope="module")
def sample() -> str:
    from tests.slack.conftest import ROOT

    return (ROOT / ROOT_SAMPLE).read_text()


def envelope(event: dict, team_id: str, authorizations: list[dict], **extra) -> bytes:
    return json.dumps({
        "token": "legacy", "team_id": team_id, "api_app_id": "A0DENPEX", "type": "event_callback",
        "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()), "event": event,
        "authorizations": authorizations, **extra,
    }).encode()


def used(bot: Bot, team: str) -> int:
    with Store(StoreConfig(url=bot.redis_url)) as store:
        return store.quotas.status(team).used


def test_a_shared_channel_event_is_charged_to_the_installing_workspace(bot, fake_slack: FakeSlack, sample):
    """Slack Connect: the envelope's team_id is the other organization's, `authorizations` names ours: our quota pays."""
    ts = "1700005000.000100"
    body = envelope(message(sample, ts, team="T0PARTNER1"), "T0PARTNER1",
                    [{"enterprise_id": None, "team_id": TEAM_ID, "user_id": "UBOT0001", "is_bot": True,
                      "is_enterprise_install": False}], is_ext_shared_channel=True)
    assert bot.post(body, "application/json").status == 200
    wait_handled(bot, ts)
    assert "cuda-oom" in all_text(fake_slack.wait_for("chat.postMessage", thread_ts=ts)[0])
    assert (used(bot, TEAM_ID), used(bot, "T0PARTNER1")) == (1, 0)


def test_an_org_wide_install_counts_the_organization_as_one_installation(bot, fake_slack, sample):
    """Enterprise Grid org-wide install: `authorizations` has no workspace; the org's quota pays, and /denpex quota shows it."""
    ts = "1700005001.000100"
    body = envelope(message(sample, ts, team="T0GRIDWS01"), "T0GRIDWS01",
                    [{"enterprise_id": ORG, "team_id": None, "user_id": "UBOT0001", "is_bot": True,
                      "is_enterprise_install": True}], enterprise_id=ORG, is_enterprise_install=True)
    assert bot.post(body, "application/json").status == 200
    wait_handled(bot, ts, team=ORG)
    assert "cuda-oom" in all_text(fake_slack.wait_for("chat.postMessage", thread_ts=ts)[0])
    assert (used(bot, ORG), used(bot, "T0GRIDWS01")) == (1, 0)
    form = {"token": "legacy", "team_id": "T0GRIDWS02", "enterprise_id": ORG, "is_enterprise_install": "true",
            "channel_id": CHANNEL, "user_id": "U0ALICE", "command": "/denpex", "text": "quota",
            "api_app_id": "A0DENPEX", "response_url": "http://127.0.0.1:9/unused", "trigger_id": f"{time.time_ns()}.1.x"}
    reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    assert "1 of 3" in reply.json()["text"], reply.json()["text"]


def test_a_thread_broadcast_log_is_answered_in_its_thread(bot, fake_slack, sample):
    """A log posted in a thread with "Also send to channel" (subtype thread_broadcast): answered in that thread."""
    ts, parent = "1700005002.000200", "1700005002.000100"
    bot.event(message(sample, ts, subtype="thread_broadcast", thread_ts=parent, root={"ts": parent}))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == parent and "cuda-oom" in all_text(post)


@pytest.mark.parametrize(
    "extra",
    [
        {"subtype": "channel_join", "text": "<@U0ALICE> has joined the channel"},
        {"subtype": "channel_topic", "topic": "CUDA out of memory", "text": "set the channel topic: CUDA out of memory"},
        {"subtype": "bot_message", "bot_id": "B0CI00001", "username": "ci", "text": OOM},
        {"subtype": "message_changed", "hidden": True, "message": {"type": "message", "user": "U0ALICE", "text": OOM, "ts": "1.1"},
         "previous_message": {"type": "message", "user": "U0ALICE", "text": "x", "ts": "1.1"}},
        {"bot_id": "B0CI00001", "app_id": "A0OTHER01", "text": OOM},
    ],
    ids=["channel-join", "channel-topic", "bot-message", "message-changed", "other-app-without-subtype"],
)
def test_joins_topics_edits_and_other_bots_get_nothing(bot, fake_slack, extra):
    """System and bot messages, even ones naming an error, get no reply, no reaction and no charge."""
    bot.event({**message("", "1700005003.000100"), **extra})
    time.sleep(0.3)  # filtered before any claim: nothing to wait for
    assert fake_slack.of("chat.postMessage") == [] and fake_slack.of("reactions.add") == []
    assert used(bot, TEAM_ID) == 0


def test_a_retry_whose_original_never_arrived_is_answered(bot, fake_slack, sample):
    """Only X-Slack-Retry-Num: 2 reached us (the original and first retry were lost): answered once, not dropped."""
    ts = "1700005004.000100"
    reply = bot.event(message(sample, ts), event_id="EvLOSTORIG1",
                      headers={"X-Slack-Retry-Num": "2", "X-Slack-Retry-Reason": "http_error"})
    assert reply.status == 200
    wait_handled(bot, ts)
    assert len(fake_slack.of("chat.postMessage")) == 1
    assert used(bot, TEAM_ID) == 1


def test_ssl_check_is_answered_200_and_does_nothing(bot, fake_slack):
    """Slack's ssl_check (a form post with ssl_check=1, no team): 200, no call to Slack."""
    reply = bot.post(urllib.parse.urlencode({"ssl_check": "1", "token": "legacy"}).encode(),
                     "application/x-www-form-urlencoded")
    assert reply.status == 200
    assert fake_slack.calls == []


def _interactive(payload: dict) -> bytes:
    return urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "shortcut", "callback_id": "someone_elses", "trigger_id": "1.2.a", "team": {"id": TEAM_ID},
         "user": {"id": "U0ALICE", "team_id": TEAM_ID}, "action_ts": "1.1"},
        {"type": "message_action", "callback_id": "diagnose_this", "trigger_id": "1.2.b", "team": {"id": TEAM_ID},
         "user": {"id": "U0ALICE"}, "channel": {"id": CHANNEL}, "message": {"type": "message", "ts": "1.1", "text": OOM}},
        {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE", "team_id": TEAM_ID},
         "trigger_id": "1.2.c", "container": {"type": "message", "channel_id": CHANNEL, "message_ts": "1.1"},
         "actions": [{"action_id": "not_ours", "block_id": "b", "type": "button", "value": "x", "action_ts": "1.1"}]},
        {"type": "view_closed", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE"}, "is_cleared": False,
         "view": {"id": "V0MODAL", "type": "modal", "callback_id": "old_modal", "state": {"values": {}}}},
        {"type": "block_suggestion", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE"}, "action_id": "pick_one",
         "block_id": "b", "value": "cu", "container": {"type": "message", "channel_id": CHANNEL, "message_ts": "1.1"}},
    ],
    ids=["global-shortcut", "message-shortcut", "unknown-button", "closed-modal", "options-request"],
)
def test_interactions_the_bot_has_no_listener_for_are_acknowledged(bot, fake_slack, payload):
    """A shortcut, a message action or a click the bot did not define: acknowledged (Slack shows no error), nothing posted."""
    reply = bot.post(_interactive(payload), "application/x-www-form-urlencoded")
    assert reply.status == 200, (reply.status, reply.body[:200])
    if payload["type"] == "block_suggestion":
        assert json.loads(reply.body) == {"options": []}  # a select menu asking for options gets none
    time.sleep(0.2)
    assert fake_slack.of("chat.postMessage") == []


def test_a_huge_error_line_stays_inside_block_kit_limits(bot, fake_slack):
    """An OOM line 20,000 characters long: the reply keeps ≤50 blocks, sections ≤3,000 and a fallback text under 4,000."""
    ts = "1700005005.000100"
    line = OOM.rstrip("\n") + " " + "x" * 20_000 + "\n"
    bot.event(message("[rank3]: Traceback (most recent call last):\n" + line, ts))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    blocks = post.params.get("blocks") or []
    assert len(blocks) <= 50
    for b in blocks:
        for text in ([b["text"]] if isinstance(b.get("text"), dict) else []) + list(b.get("elements") or []):
            if isinstance(text, dict) and isinstance(text.get("text"), str):
                assert len(text["text"]) <= 3000, (b["type"], len(text["text"]))
    assert 0 < len(post.params["text"]) < 4000
    assert len(json.dumps(blocks)) < 16_000


def test_an_upload_without_a_file_share_subtype_is_read(bot, fake_slack, sample):
    """Uploads through files.completeUploadExternal arrive as a plain `message` (no subtype) with `files`: read and diagnosed."""
    f = fake_slack.add_file(FakeFile(id="FV2UPLOAD1", name="rank3.log", content=sample.encode()))
    ts = "1700005006.000100"
    bot.event(message("", ts, files=[f], upload=False, display_as_bot=False))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post) and [c.params["file"] for c in fake_slack.of("files.download")] == ["FV2UPLOAD1"]


def test_a_mention_carrying_a_file_reads_the_file_once(bot, fake_slack, sample):
    """"@denpex why?" with a log attached arrives as `app_mention` and as `message`: one reply, the file read once, one charge."""
    f = fake_slack.add_file(FakeFile(id="FMENTION01", name="train.log", content=sample.encode()))
    ts = "1700005007.000100"
    text = "<@UBOT0001> why did this die?"
    bot.event({**message(text, ts, files=[f]), "type": "app_mention"})
    bot.event(message(text, ts, files=[f], subtype="file_share"))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post)
    assert len(fake_slack.of("files.download")) == 1
    assert used(bot, TEAM_ID) == 1


def test_a_button_on_an_ephemeral_lookup_answers_ephemerally(bot, fake_slack):
    """"Show" under a private /denpex lookup (its container is_ephemeral, no message in the payload):
    the entry comes back through the response_url, for that person only; nothing is posted to the channel."""
    payload = ephemeral_show_click(fake_slack.base + "/response/T0TEST001/ephemeral", "1700005008.000100", "1.2.eph")
    assert bot.post(_interactive(payload), "application/x-www-form-urlencoded").status == 200
    deadline = time.monotonic() + 10
    while not fake_slack.responses and time.monotonic() < deadline:
        time.sleep(0.02)
    (answer,) = fake_slack.responses
    assert answer["response_type"] == "ephemeral" and answer["replace_original"] is False
    assert "CUDA Out of Memory" in json.dumps(answer)
    assert fake_slack.of("chat.postMessage") == []


def _diagnosed(bot: Bot, fake_slack: FakeSlack, sample: str, ts: str) -> None:
    """A log at `ts`, answered and done with: its thread holds a diagnosis to ask about."""
    bot.event(message(sample, ts))
    wait_handled(bot, ts)
    fake_slack.wait_for("chat.postMessage", thread_ts=ts)


def _thread_posts(fake_slack: FakeSlack, parent: str) -> list:
    return [c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == parent]


def test_a_mention_asking_in_a_diagnosis_thread_is_answered_once(bot, fake_slack, sample):
    """"@denpex how do I confirm this?" in the thread arrives as `message` and `app_mention` (with parent_user_id): one answer."""
    parent, ts = "1700005100.000100", "1700005100.000200"
    _diagnosed(bot, fake_slack, sample, parent)
    asked = message("<@UBOT0001> how do I confirm this?", ts, thread_ts=parent, parent_user_id="U0ALICE")
    bot.event(asked)
    bot.event({**asked, "type": "app_mention"})
    wait_handled(bot, ts)
    _diagnosis, answer = _thread_posts(fake_slack, parent)
    assert "How to confirm" in all_text(answer)


def test_a_follow_up_sent_to_the_channel_too_is_answered_in_its_thread(bot, fake_slack, sample):
    """A question in a diagnosis thread with "Also send to channel" (thread_broadcast): answered in that thread."""
    parent, ts = "1700005101.000100", "1700005101.000200"
    _diagnosed(bot, fake_slack, sample, parent)
    bot.event(message("how do I confirm this?", ts, subtype="thread_broadcast", thread_ts=parent,
                      root={"ts": parent, "thread_ts": parent, "user": "U0ALICE", "reply_count": 1}))
    wait_handled(bot, ts)
    _diagnosis, answer = _thread_posts(fake_slack, parent)
    assert "How to confirm" in all_text(answer)


def test_a_file_share_with_no_text_and_no_team_is_read(bot, fake_slack, sample):
    """A file_share event without `text` or `team` (Slack omits `team` on file shares): the upload is diagnosed."""
    f = fake_slack.add_file(FakeFile(id="F0NOTEXT01", name="rank3.log", content=sample.encode()))
    ts = "1700005102.000100"
    shared = {k: v for k, v in message("", ts, subtype="file_share", files=[f], upload=True).items() if k not in ("text", "team")}
    bot.event(shared)
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post)


def test_a_forwarded_log_is_read_and_a_link_preview_is_not(bot, fake_slack, sample):
    """A message forwarded into the channel arrives as a shared attachment (`is_share`,
    `is_msg_unfurl`, its text escaped like a message's): the log in it is diagnosed. A link
    preview's text, which no person pasted, is not read."""
    forwarded = {"is_share": True, "is_msg_unfurl": True, "channel_id": "C0OTHER", "author_id": "U0BOB",
                 "ts": "1700005000.000100", "fallback": "[10:00] bob: ...", "text": sample.replace("&", "&amp;")
                 .replace("<", "&lt;").replace(">", "&gt;")}
    ts = "1700005201.000100"
    bot.event(message("can someone look at this one?", ts, attachments=[forwarded]))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == ts and "cuda-oom" in all_text(post)
    preview = {"title": "Training crashed", "title_link": "https://example.com/run/42", "text": OOM * 3,
               "from_url": "https://example.com/run/42"}
    later = "1700005202.000100"
    bot.event(message("our run page: https://example.com/run/42", later, attachments=[preview]))
    wait_handled(bot, later)
    assert len(fake_slack.of("chat.postMessage")) == 1


def test_a_log_pasted_as_a_reply_is_answered_in_that_thread(bot, fake_slack, sample):
    """A log posted as a reply in a colleague's thread: the answer goes to that thread (not a new
    thread under the reply), the reactions on the reply itself."""
    parent, ts = "1700005300.000100", "1700005300.000200"
    bot.event(message(sample, ts, thread_ts=parent, parent_user_id="U0BOB"))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == parent and "cuda-oom" in all_text(post)
    assert {c.params["timestamp"] for c in fake_slack.of("reactions.add")} == {ts}


def test_chatter_in_a_dm_gets_help_there_and_in_a_channel_nothing(bot, fake_slack):
    """A DM that is not a log is a message to the bot: help, in the DM's thread. The same words in
    a channel are none of its business."""
    bot.event(message("hi, what can you do?", "1700005400.000100", channel="D0ALICEDM", channel_type="im"))
    bot.event(message("hi, what can you do?", "1700005400.000200"))
    wait_handled(bot, "1700005400.000100", channel="D0ALICEDM")
    wait_handled(bot, "1700005400.000200")
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["channel"] == "D0ALICEDM" and post.params["thread_ts"] == "1700005400.000100"
    assert "/denpex" in all_text(post)
