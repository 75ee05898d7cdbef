"""Twentieth audit of the Slack edge: a pasted log edited within the paste window, Slackbot's
messages, `help` and `quota` typed in a diagnosis thread, what is said of an archive and of a
download Slack refuses, the alerts endpoint's `Authorization` as clients spell it, a code
redeemed twice by its own workspace, and a vote on an entry the rules no longer have. Signed
HTTP against the real bot, the Slack stand-in recording every call, a real Redis.

Slack's words used here, from its reference pages: an edit comes as a `message` of subtype
`message_changed` whose `message` is the message as edited (its own `ts`, an `edited` object
with the editor and the edit's ts) beside `previous_message`; a link preview added to a
message is a `message_changed` too, without `edited`; Slackbot's messages (reminders, custom
responses) carry the user id `USLACKBOT`; slash commands "cannot be used in message threads"."""

from __future__ import annotations

import http.client
import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis

from bot.store import Store, StoreConfig, keys
from bot.watch.protocol import Alert, EvidenceLine
from tests.slack.conftest import Bot, quiesce, wait_handled
from tests.slack.events import CHANNEL, OOM_PASTE, all_text, message, used
from tests.slack.fake_slack import TEAM_ID, FakeFile, FakeSlack
from tests.watch.conftest import connect, make_scale

# A disk-full log: what the first version of an edited paste says.
DISK_PASTE = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 212, in save\n'
    "    torch.save(state, path)\n"
    "OSError: [Errno 28] No space left on device: '/ckpt/step_1000.pt'\n"
)


def posts(fake: FakeSlack, channel: str = CHANNEL) -> list[Any]:
    return [c for c in fake.of("chat.postMessage") if c.params.get("channel") == channel]


@pytest.fixture
def store(bot: Bot) -> Iterator[Store]:
    with Store(StoreConfig(url=bot.redis_url)) as s:
        yield s


def edit(ts: str, at: str, text: str, *, prev: str = DISK_PASTE, thread_ts: str | None = None,
         edited: bool = True, user: str = "U0ALICE") -> dict[str, Any]:
    """Slack's `message_changed` for the message at `ts`, edited at `at` (or, `edited=False`,
    changed by Slack itself: a link preview added)."""
    inner: dict[str, Any] = {"type": "message", "user": user, "text": text, "ts": ts, "team": TEAM_ID}
    if edited:
        inner["edited"] = {"user": user, "ts": at}
    if thread_ts:
        inner["thread_ts"] = thread_ts
    return {"type": "message", "subtype": "message_changed", "hidden": True, "channel": CHANNEL, "ts": at,
            "event_ts": at, "channel_type": "channel", "message": inner,
            "previous_message": {"type": "message", "user": user, "text": prev, "ts": ts}}


def handled_after(bot: Bot, ts: str) -> None:
    """A person's log at `ts` in another channel (charged: one diagnosis), sent after the
    events a test says get nothing, waited for: by the time it is answered, a paste window
    later, those events' listeners, which return at once, have run, and any claim they made
    has been waited for too (`wait_handled` waits for every open claim)."""
    bot.event(message(OOM_PASTE, ts, channel="C0CONTROL"))
    wait_handled(bot, ts, channel="C0CONTROL", timeout=30)


# --- 1. a pasted log edited within the paste window ------------------------------------------------

@pytest.mark.parametrize("edit_first", [False, True], ids=["edit-after-message", "edit-read-first"])
def test_a_log_edited_within_the_paste_window_is_read_as_edited(bot: Bot, fake_slack: FakeSlack,
                                                                edit_first: bool) -> None:
    """The wrong run's log pasted, then replaced by an edit a moment later: the edit is
    diagnosed, once (was the log as first sent). Slack delivers the two in any order."""
    ts, at = "1702100000.000100", "1702100001.000100"
    events = [message(DISK_PASTE, ts), edit(ts, at, OOM_PASTE)]
    for event in reversed(events) if edit_first else events:
        bot.event(event)
    wait_handled(bot, ts, timeout=30)
    sent = posts(fake_slack)
    assert len(sent) == 1 and sent[0].params["thread_ts"] == ts
    assert "CUDA Out of Memory" in sent[0].params["text"] and "No Space Left" not in all_text(sent[0])
    assert used(bot) == 1


def test_the_last_part_of_a_log_edited_is_read_as_edited(bot: Bot, fake_slack: FakeSlack) -> None:
    """A log in two messages, the second replaced by an edit (the other run's tail pasted by
    mistake): one answer, reading the first part and the second as edited."""
    first, second, at = "1702100010.000100", "1702100010.500100", "1702100011.000100"
    head, tail = OOM_PASTE.split("\n", 2)[:2], OOM_PASTE.split("\n", 2)[2]
    bot.event(message("\n".join(head) + "\n", first))
    bot.event(message(DISK_PASTE, second))
    bot.event(edit(second, at, tail))
    wait_handled(bot, first, second, timeout=30)
    sent = posts(fake_slack)
    assert len(sent) == 1 and sent[0].params["thread_ts"] == first
    assert "CUDA Out of Memory" in sent[0].params["text"] and "No Space Left" not in all_text(sent[0])
    assert used(bot) == 1


def test_an_edit_after_the_answer_or_by_slack_itself_changes_nothing(bot: Bot, fake_slack: FakeSlack) -> None:
    """An edit once the log is answered: no second answer, no second charge. A change Slack
    makes itself (a link preview, no `edited`) within the window: the log as sent."""
    ts = "1702100020.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts, timeout=30)
    bot.event(edit(ts, "1702100030.000100", DISK_PASTE, prev=OOM_PASTE))
    other = "1702100040.000100"
    bot.event(message(OOM_PASTE, other))
    bot.event(edit(other, "1702100040.500100", DISK_PASTE, prev=OOM_PASTE, edited=False))
    wait_handled(bot, other, timeout=30)
    handled_after(bot, "1702100041.000100")
    sent = posts(fake_slack)
    assert [c.params["thread_ts"] for c in sent] == [ts, other]
    assert all("CUDA Out of Memory" in c.params["text"] for c in sent)
    assert used(bot) == 3  # the two, and the control's


# --- 2. Slackbot's messages ---------------------------------------------------------------------------

def test_a_log_posted_by_slackbot_is_not_answered(bot: Bot, fake_slack: FakeSlack) -> None:
    """A reminder quoting a log ("Reminder: ..."), and the same as a mention of the bot: no
    person sent it, as with another bot (was diagnosed and charged each time it fired)."""
    bot.event(message("Reminder: " + OOM_PASTE, "1702100050.000100", user="USLACKBOT"))
    bot.event({"type": "app_mention", "channel": CHANNEL, "user": "USLACKBOT", "ts": "1702100051.000100",
               "text": "Reminder: <@UBOT0001> " + OOM_PASTE})
    handled_after(bot, "1702100052.000100")
    assert posts(fake_slack) == []
    assert not [c for c in fake_slack.of("reactions.add") if c.params.get("channel") == CHANNEL]
    assert used(bot) == 1  # the control's


# --- 3. `help` and `quota` typed in a diagnosis thread --------------------------------------------------

def _thread(bot: Bot, ts: str) -> None:
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts, timeout=30)


# Typed in a thread, and what each gets: the help, the quota, where to type the command.
TYPED_IN_THREAD = {
    "help": "Denpex help", " /denpex help": "Denpex help", "`help`": "Denpex help",
    "quota": "Used today: 1 of 3", "/denpex quota": "Used today: 1 of 3", "Quota?": "Used today: 1 of 3",
    "denpex redeem DNPX-AAAA-BBBB-CCCC": "not in a thread",
}


def _answers_in(fake: FakeSlack, thread: str) -> list[str]:
    """Which of TYPED_IN_THREAD's answers each reply in the thread (past the diagnosis) is."""
    said = [c.params["text"] for c in posts(fake)[1:] if c.params.get("thread_ts") == thread]
    return sorted(next((v for v in set(TYPED_IN_THREAD.values()) if v in t), t[:80]) for t in said)


def test_a_command_typed_in_a_diagnosis_thread_is_answered_as_the_command(bot: Bot, fake_slack: FakeSlack) -> None:
    """Slack refuses `/denpex` in a thread: typed as text there, `help` and `quota` get what
    the command gives, in the thread; `redeem` and `alerts` (a code, a token shown) where to
    type them (was a follow-up question each: topic buttons)."""
    thread = "1702100060.000100"
    _thread(bot, thread)
    replies = [f"1702100061.{n:06d}" for n in range(len(TYPED_IN_THREAD))]
    for text, ts in zip(TYPED_IN_THREAD, replies, strict=True):
        bot.event(message(text, ts, thread_ts=thread))
    wait_handled(bot, *replies, timeout=30)
    assert _answers_in(fake_slack, thread) == sorted(TYPED_IN_THREAD.values())
    assert "DNPX" not in json.dumps([c.params for c in posts(fake_slack)])


def test_a_command_typed_in_an_expired_diagnosis_thread_is_answered(bot: Bot, fake_slack: FakeSlack) -> None:
    """Past the thread's kept diagnosis, `help` and `quota` need none: the command's answer
    (was "This diagnosis has expired")."""
    thread, replies = "1702100065.000100", ["1702100066.000100", "1702100066.000200"]
    _thread(bot, thread)
    with redis.Redis.from_url(bot.redis_url) as r:
        assert r.delete(keys.thread(TEAM_ID, CHANNEL, thread)) == 1
    for text, ts in zip(("help", "quota"), replies, strict=True):
        bot.event(message(text, ts, thread_ts=thread))
    wait_handled(bot, *replies, timeout=30)
    assert _answers_in(fake_slack, thread) == ["Denpex help", "Used today: 1 of 3"]


def test_quota_asked_of_the_bot_in_a_channel_is_the_quota(bot: Bot, fake_slack: FakeSlack) -> None:
    ts = "1702100070.000100"
    bot.event(message("<@UBOT0001> quota", ts))
    wait_handled(bot, ts, timeout=30)
    (sent,) = posts(fake_slack)
    assert "Used today: 0 of 3" in sent.params["text"]


# --- 4. files not read: what they are, and what to do ---------------------------------------------------

NOT_READ = [  # name, filetype, mimetype, said, not said
    ("logs.zip", "zip", "application/zip", "I don't open archives", "screenshot"),
    ("loss.png", "png", "image/png", "screenshot", "archive"),
    ("report.pdf", "pdf", "application/pdf", "in a document", "screenshot"),
]


def test_a_file_not_read_is_told_in_words_that_fit_it(bot: Bot, fake_slack: FakeSlack) -> None:
    """A zip sent alone was told "I can't read the text in a screenshot or a document"."""
    stamps = [f"1702100080.{n:06d}" for n in range(len(NOT_READ))]
    for (name, filetype, mimetype, _, _), ts in zip(NOT_READ, stamps, strict=True):
        item = fake_slack.add_file(FakeFile("F20" + filetype.upper(), name, b"PK\x03\x04" + b"\0" * 40,
                                            filetype=filetype, mimetype=mimetype))
        bot.event(message("", ts, subtype="file_share", files=[item]))
    wait_handled(bot, *stamps, timeout=30)
    said = {c.params["thread_ts"]: c.params["text"] for c in posts(fake_slack)}
    for (name, _, _, words, not_words), ts in zip(NOT_READ, stamps, strict=True):
        assert name in said[ts] and words in said[ts] and not_words not in said[ts], said[ts]
        assert "upload the log file itself" in said[ts]


REFUSED = {401: "needs the files:read scope", 403: "needs the files:read scope", 404: "upload it again"}


def test_a_download_slack_refuses_says_what_to_do(bot: Bot, fake_slack: FakeSlack) -> None:
    """Was "downloading train.log failed (HTTP 403)." and nothing more."""
    stamps = [f"1702100090.{n:06d}" for n in range(len(REFUSED))]
    for status, ts in zip(REFUSED, stamps, strict=True):
        item = fake_slack.add_file(FakeFile(f"F20DL{status}", "train.log", OOM_PASTE.encode(),
                                            download_failures=[(status, None)]))
        bot.event(message("", ts, subtype="file_share", files=[item]))
    wait_handled(bot, *stamps, timeout=30)
    said = {c.params["thread_ts"]: c.params["text"] for c in posts(fake_slack)}
    for (status, words), ts in zip(REFUSED.items(), stamps, strict=True):
        assert f"(HTTP {status})" in said[ts] and words in said[ts], said[ts]
    assert used(bot) == 0


# --- 5. the alerts endpoint: Authorization as clients write it, a URL with a trailing slash ----------------

ALERT = Alert(job="job-20", kind="alert", root="cuda-oom", confidence="high", initiating_rank=3, host=None,
              ranks=[3], evidence=[EvidenceLine(12, 3, OOM_PASTE.splitlines()[3])])


def _post_alert(bot: Bot, path: str, authorization: str, job: str = ALERT.job) -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection(bot.url.removeprefix("http://"), timeout=10)
    try:
        conn.request("POST", path, body=replace(ALERT, job=job).to_json(secrets.token_hex(16), time.time()),
                     headers={"Authorization": authorization, "Content-Type": "application/json"})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"{}")
    finally:
        conn.close()


def test_an_alert_sent_the_ways_clients_write_it_is_posted(bot: Bot, fake_slack: FakeSlack, store: Store) -> None:
    """The scheme is case-insensitive (was 401 "no ingest token"); quotes copied with the
    token are not part of it (was 401 "unknown ingest token"); `/denpex/alerts/` is the
    endpoint (was a bare 404 "Not Found"). Each a job of its own: four messages."""
    make_scale(store)
    token = connect(bot)
    ways = [("/denpex/alerts", "bearer {token}"), ("/denpex/alerts", "BEARER {token}"),
            ("/denpex/alerts", 'Bearer "{token}"'), ("/denpex/alerts/", "Bearer {token}")]
    for n, (path, authorization) in enumerate(ways):
        status, answer = _post_alert(bot, path, authorization.format(token=token), job=f"job-20-{n}")
        assert status == 200 and answer["ok"] and not answer.get("duplicate"), (path, authorization, answer)
    assert len(posts(fake_slack)) == len(ways)


def test_an_alert_without_the_bearer_scheme_is_told_how_to_send_it(bot: Bot, fake_slack: FakeSlack,
                                                                   store: Store) -> None:
    make_scale(store)
    token = connect(bot)
    status, answer = _post_alert(bot, "/denpex/alerts", token)
    assert status == 401 and "Authorization: Bearer <token>" in answer["error"]
    assert posts(fake_slack) == []


CHANNEL_REFUSED = {"not_in_channel": "/invite @Denpex", "is_archived": "unarchive it",
                   "channel_not_found": "`/denpex alerts connect` in a channel Denpex is in"}


def test_an_alert_slack_refuses_tells_the_node_what_to_do(bot: Bot, fake_slack: FakeSlack, store: Store) -> None:
    """The connected channel refused (the bot removed, the channel archived or deleted): the
    watcher prints the answer, which says what to do (was "Slack refused the post:
    not_in_channel" alone); 502, so it retries; nothing charged."""
    make_scale(store)
    token = connect(bot)
    for error, advice in CHANNEL_REFUSED.items():
        fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": error})
        status, answer = _post_alert(bot, "/denpex/alerts", f"Bearer {token}", job=f"job-20-{error}")
        assert status == 502 and error in answer["error"] and advice in answer["error"], answer
    assert store.quotas.status(TEAM_ID).used == 0


# --- 6. an evaluation code redeemed twice by its own workspace -------------------------------------------

def test_a_code_redeemed_again_by_its_own_workspace_says_the_plan_is_on(bot: Bot, store: Store) -> None:
    """The second `/denpex redeem` of the code that switched the plan on: "This workspace
    redeemed that code already" with the plan's end (was "That code has already been used.",
    counted as a wrong guess toward the lock-out); another workspace is still refused."""
    code = store.codes.create("scale", 14)[0]
    assert bot.command(f"redeem {code}").json()["text"].startswith(":tada:")
    again = bot.command(f"redeem {code}").json()["text"]
    assert "This workspace redeemed that code already" in again and "*scale* plan is on until" in again
    other = bot.command(f"redeem {code}", team="T0OTHER02").json()["text"]
    assert "already been used" in other
    with Store(StoreConfig(url=bot.redis_url)) as s:
        assert s.ratelimit.count(TEAM_ID, "U0ALICE", "redeem:wrong", 3600) == 0


# --- 7. a vote on an entry the knowledge base no longer has ------------------------------------------------

def test_a_vote_on_an_entry_no_longer_known_is_told_it_was_not_recorded(bot: Bot, fake_slack: FakeSlack) -> None:
    """A diagnosis's feedback button naming an entry renamed or removed since: the person who
    clicked is told the vote was not recorded (was nothing at all, a vote seemingly taken)."""
    assert bot.action("denpex_feedback_right", "cuda-oom-renamed-since", thread_ts="1702100100.000100").status == 200
    (told,) = fake_slack.wait_for("chat.postEphemeral", timeout=20)
    assert told.params["user"] == "U0ALICE" and told.params["thread_ts"] == "1702100100.000100"
    assert "not recorded" in told.params["text"]
    quiesce(bot, fake_slack)
    assert posts(fake_slack) == []
