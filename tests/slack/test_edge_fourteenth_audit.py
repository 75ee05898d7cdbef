"""Fourteenth audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

Mostly the order Slack delivers things in (a log file read before the words sent with it, a
paste's parts in a thread, a DM or between a colleague's words), a slash command Slack sends
twice, and conversations other than a channel (group DMs, an assistant thread)."""

from __future__ import annotations

import json
import time
import urllib.parse
from pathlib import Path

import pytest

from bot.store import Store, StoreConfig
from bot.store.alerts import TOKEN_PREFIX
from tests.slack.conftest import Bot, quiesce, sign, start_bot, stop_bot, wait_handled
from tests.slack.events import OOM_PASTE, all_text, message, used
from tests.slack.fake_slack import BOT_ID, TEAM_ID, FakeFile, FakeSlack

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()
FORM = "application/x-www-form-urlencoded"
DISK_FULL = ("Traceback (most recent call last):\n"
             '  File "train.py", line 120, in <module>\n'
             "    torch.save(state, path)\n"
             "OSError: [Errno 28] No space left on device\n")


def replies(fake: FakeSlack, channel: str | None = None) -> list:
    return [c for c in fake.of("chat.postMessage") if channel is None or c.params.get("channel") == channel]


def thirds(text: str) -> list[str]:
    lines = text.splitlines()
    step = len(lines) // 3 + 1
    return ["\n".join(lines[i: i + step]) for i in range(0, len(lines), step)]


def store_of(bot: Bot) -> Store:
    return Store(StoreConfig(url=bot.redis_url))


# --- a log file read before the words sent with it ---------------------------------------------------

@pytest.mark.parametrize(("channel", "words"), [
    ("C0LOGS", "rank 3 died with CUDA out of memory again, log attached"),
    ("C0LOGS", "here is the log from last night:"),
    ("D0ALICEDM", "rank 3 died with CUDA out of memory again, log attached"),
    ("D0ALICEDM", "here is the log from last night:"),
], ids=["channel-naming-the-error", "channel-plain", "dm-naming-the-error", "dm-plain"])
def test_a_log_file_read_before_the_words_announcing_it_is_one_answer(bot: Bot, fake_slack, channel, words):
    """The words and then the log file, as two messages Slack delivers at once: the file's
    event is read first (the words' a moment later). One answer, one download, one charge
    (was: the file answered, then the words answered again after the paste window as a
    sentence naming an entry, a second charge; or, in the DM, help under the words)."""
    kind = {"channel_type": "im"} if channel.startswith("D") else {}
    stamps = ["1701400000.000100", "1701400000.400100"]
    f = fake_slack.add_file(FakeFile(id="FFIRST001", name="rank3.log", content=OOM_PASTE.encode()))
    bot.event(message("", stamps[1], subtype="file_share", files=[f], channel=channel, **kind))
    fake_slack.wait_for("files.download", timeout=15)
    bot.event(message(words, stamps[0], channel=channel, **kind))
    wait_handled(bot, *stamps, channel=channel, timeout=30)
    posts = replies(fake_slack)
    assert len(posts) == 1, [all_text(p)[:200] for p in posts]
    assert "cuda-oom" in json.dumps(posts[0].params)
    assert len(fake_slack.of("files.download")) == 1
    assert used(bot) == 1


@pytest.mark.parametrize("then", ["file", "paste"])
def test_words_announcing_a_log_in_a_dm_then_the_log_is_one_answer(bot: Bot, fake_slack, then):
    """In the bot's DM, "here is the log from last night:" (no error named) and then the log
    file, or the log pasted, read in that order: one answer, in the words' thread, one charge
    (was: help under the words at once, then the diagnosis)."""
    stamps = ["1701400005.000100", "1701400005.400100"]
    dm = {"channel": "D0ALICEDM", "channel_type": "im"}
    bot.event(message("here is the log from last night:", stamps[0], **dm))
    if then == "file":
        f = fake_slack.add_file(FakeFile(id="FDMWORDS1", name="rank3.log", content=OOM_PASTE.encode()))
        bot.event(message("", stamps[1], subtype="file_share", files=[f], **dm))
    else:
        bot.event(message(OOM_PASTE, stamps[1], **dm))
    wait_handled(bot, *stamps, channel="D0ALICEDM", timeout=30)
    posts = replies(fake_slack)
    assert [p.params["thread_ts"] for p in posts] == [stamps[0]], [all_text(p)[:200] for p in posts]
    assert "cuda-oom" in json.dumps(posts[0].params) and used(bot) == 1


def test_words_announcing_a_log_in_a_dm_alone_get_help(bot: Bot, fake_slack):
    """The same words alone in the DM (the log never comes): the help, once, nothing charged."""
    ts = "1701400006.000100"
    bot.event(message("here is the log from last night:", ts, channel="D0ALICEDM", channel_type="im"))
    wait_handled(bot, ts, channel="D0ALICEDM", timeout=30)
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == ts and "/denpex" in all_text(post) and used(bot) == 0


def test_an_excerpt_read_after_the_full_log_file_is_not_answered_again(bot: Bot, fake_slack):
    """"here's the error:" with the traceback pasted, then the whole log file; the file's
    event read first: one answer (the file's), one charge (was two diagnoses of one failure)."""
    stamps = ["1701400010.000100", "1701400010.400100"]
    f = fake_slack.add_file(FakeFile(id="FFIRST002", name="rank3.log", content=SAMPLE.encode()))
    bot.event(message("", stamps[1], subtype="file_share", files=[f]))
    fake_slack.wait_for("files.download", timeout=15)
    bot.event(message("here's the error:\n```" + OOM_PASTE + "```", stamps[0]))
    wait_handled(bot, *stamps, timeout=30)
    posts = replies(fake_slack)
    assert [p.params["thread_ts"] for p in posts] == [stamps[1]], [all_text(p)[:200] for p in posts]
    assert used(bot) == 1


def test_words_after_an_answered_log_file_are_not_answered_again(bot: Bot, fake_slack):
    """The log file, answered, and a second later its sender's words about it naming the
    error ("thoughts? CUDA out of memory again"): nothing more posted or charged."""
    stamps = ["1701400020.000100", "1701400021.000100"]
    f = fake_slack.add_file(FakeFile(id="FFIRST003", name="rank3.log", content=OOM_PASTE.encode()))
    bot.event(message("", stamps[0], subtype="file_share", files=[f]))
    wait_handled(bot, stamps[0], timeout=30)
    bot.event(message("thoughts? CUDA out of memory again on rank 3", stamps[1]))
    wait_handled(bot, stamps[1], timeout=30)
    assert len(replies(fake_slack)) == 1 and used(bot) == 1


def test_a_new_log_pasted_just_after_a_log_file_is_still_answered(bot: Bot, fake_slack):
    """A log file, then at once another failure pasted (a later message that is a log by
    itself): both answered, each in its own thread, two charges."""
    stamps = ["1701400030.000100", "1701400030.500100"]
    f = fake_slack.add_file(FakeFile(id="FFIRST004", name="rank3.log", content=OOM_PASTE.encode()))
    bot.event(message("", stamps[0], subtype="file_share", files=[f]))
    fake_slack.wait_for("files.download", timeout=15)
    bot.event(message(DISK_FULL, stamps[1]))
    wait_handled(bot, *stamps, timeout=30)
    posts = replies(fake_slack)
    assert sorted(p.params["thread_ts"] for p in posts) == stamps, [all_text(p)[:200] for p in posts]
    assert used(bot) == 2


# --- a slash command Slack sends twice ---------------------------------------------------------------

def command_form(text: str, trigger: str, user: str = "U0ALICE") -> bytes:
    form = {"token": "legacy", "team_id": TEAM_ID, "team_domain": "test", "channel_id": "C0LOGS",
            "channel_name": "training", "user_id": user, "user_name": "alice", "command": "/denpex", "text": text,
            "api_app_id": "A0DENPEX", "response_url": "http://127.0.0.1:9/unused", "trigger_id": trigger}
    return urllib.parse.urlencode(form).encode()


def lookups_counted(bot: Bot) -> int:
    import redis

    with redis.Redis.from_url(bot.redis_url) as r:
        return sum(r.zcard(k) for k in r.keys("*ratelimit:lookup*"))


def test_the_same_signed_lookup_sent_twice_in_one_second_is_answered_both_times(bot: Bot):
    """Two byte-identical signed `/denpex <error>` requests in one second (a client or proxy
    sending it again; Slack gives each invocation its own trigger_id): the second is shown
    the same answer (was an empty 200: the person saw nothing), counted once."""
    body = command_form("CUDA out of memory. Tried to allocate 2.00 GiB", "1701400040.1.abc")
    headers = sign(body)
    first = bot.post(body, FORM, headers=headers, sign_it=False)
    second = bot.post(body, FORM, headers=headers, sign_it=False)
    assert first.status == second.status == 200
    assert "cuda-oom" in json.dumps(first.json()) and second.json() == first.json()
    assert lookups_counted(bot) == 1


def test_two_invocations_of_the_same_lookup_in_one_second_are_each_answered_and_counted(bot: Bot):
    """The person runs the same `/denpex <error>` twice within a second: two trigger ids, one
    timestamp. Both answered, both counted."""
    ts = int(time.time())
    answers = []
    for trigger in ("1701400050.1.aaa", "1701400050.2.bbb"):
        body = command_form("CUDA out of memory. Tried to allocate 2.00 GiB", trigger)
        answers.append(bot.post(body, FORM, headers=sign(body, ts), sign_it=False))
    assert all(a.status == 200 and "cuda-oom" in json.dumps(a.json()) for a in answers)
    assert lookups_counted(bot) == 2


@pytest.mark.parametrize("text", ["help", "show cuda-oom", "quota", "alerts status"])
def test_a_read_only_command_sent_twice_is_answered_twice(bot: Bot, text):
    """`help`, `show`, `quota`, `alerts status` sent twice byte for byte: the same answer twice."""
    body = command_form(text, "1701400060.1.ccc")
    headers = sign(body)
    first, second = (bot.post(body, FORM, headers=headers, sign_it=False) for _ in range(2))
    assert first.status == second.status == 200 and first.body and second.json() == first.json()


def test_a_redeem_sent_twice_runs_once_and_says_so(bot: Bot):
    """`/denpex redeem <code>` sent twice byte for byte: the code redeemed once; the second
    says the request ran once (not "already used", not nothing), and is no wrong guess."""
    code = store_of(bot).codes.create("scale", 14, 1)[0]
    body = command_form(f"redeem {code}", "1701400070.1.ddd")
    headers = sign(body)
    first = bot.post(body, FORM, headers=headers, sign_it=False).json()
    second = bot.post(body, FORM, headers=headers, sign_it=False).json()
    assert "scale" in first["text"]
    assert "ran once" in second["text"] and "already been used" not in second["text"]
    assert "50" in bot.command("quota").json()["text"]


def test_an_alerts_connect_sent_twice_shows_its_token_once(bot: Bot):
    """`/denpex alerts connect` (Scale plan) sent twice byte for byte: one ingest token made
    and shown; the repeat shows none and the first token still works."""
    from datetime import UTC, datetime, timedelta

    store = store_of(bot)
    store.plans.grant(TEAM_ID, "scale", datetime.now(UTC) + timedelta(days=14))
    body = command_form("alerts connect", "1701400080.1.eee")
    headers = sign(body)
    first = bot.post(body, FORM, headers=headers, sign_it=False).json()
    second = bot.post(body, FORM, headers=headers, sign_it=False).json()
    assert "ingest token" in first["text"] and TOKEN_PREFIX in json.dumps(first)
    assert "ran once" in second["text"] and TOKEN_PREFIX not in json.dumps(second)
    token = json.dumps(first).split("```")[1]
    assert store.alerts.check(token).state == "ok"


# --- a fresh process's first paste -------------------------------------------------------------------

def test_a_fresh_processs_first_three_part_paste_is_one_answer(bot_process: Bot, fake_slack):
    """A bot just started (no log read before) and a log pasted as three messages at once:
    one answer, in the first part's thread, one charge. The parts' closers fire in any order;
    one running after the last part's closer had closed the burst took it for expired and
    answered its part alone (CI saw it on a new process's first paste)."""
    bot = start_bot(fake_slack, bot_process.redis_url, {"DENPEX_PASTE_WINDOW_S": "15"})
    try:
        import redis

        redis.Redis.from_url(bot.redis_url).flushdb()
        fake_slack.reset()
        stamps = ["1701400090.000100", "1701400090.900100", "1701400091.800100"]
        for part, ts in zip(thirds(SAMPLE), stamps, strict=True):
            bot.event(message(part, ts, channel="C0FRESH"))
        wait_handled(bot, *stamps, channel="C0FRESH", timeout=60)
        posts = replies(fake_slack, "C0FRESH")
        assert [p.params["thread_ts"] for p in posts] == [stamps[0]], [all_text(p)[:200] for p in posts]
        assert "Initiating rank:* 3" in all_text(posts[0]) and used(bot) == 1
    finally:
        stop_bot(bot)
        redis.Redis.from_url(bot.redis_url).flushdb()
        fake_slack.reset()


def test_a_paste_whose_first_parts_closer_runs_last_is_one_answer(bot: Bot, fake_slack):
    """Two replicas: the first part reaches one whose timers run late (here a longer paste
    window: a busy process), the other two parts the other, which closes the burst first and
    answers for all three. The first part's closer, running after that, must answer nothing
    (was: it took the closed burst for one that expired and answered its part alone, a second
    answer; what CI saw on a new process's first three-part paste)."""
    late = start_bot(fake_slack, bot.redis_url, {"DENPEX_PASTE_WINDOW_S": "3"})
    try:
        stamps = ["1701400095.000100", "1701400095.900100", "1701400096.800100"]
        parts = thirds(SAMPLE)
        late.event(message(parts[0], stamps[0]))
        for part, ts in zip(parts[1:], stamps[1:], strict=True):
            bot.event(message(part, ts))
        wait_handled(bot, *stamps, timeout=60)
        posts = replies(fake_slack)
        assert [p.params["thread_ts"] for p in posts] == [stamps[0]], [all_text(p)[:200] for p in posts]
        assert "Initiating rank:* 3" in all_text(posts[0]) and used(bot) == 1
    finally:
        stop_bot(late)


# --- pastes in threads, DMs, and between a colleague's words ---------------------------------------

def test_a_log_pasted_as_three_thread_replies_is_one_answer_in_that_thread(bot: Bot, fake_slack):
    """Three replies in a colleague's thread ("can you paste the log?"), one log: one answer
    in that thread, one charge."""
    parent = "1701400100.000100"
    stamps = ["1701400101.000100", "1701400101.300100", "1701400101.600100"]
    for part, ts in zip(thirds(SAMPLE), stamps, strict=True):
        bot.event(message(part, ts, thread_ts=parent, parent_user_id="U0BOB"))
    wait_handled(bot, *stamps, timeout=30)
    posts = replies(fake_slack)
    assert [p.params["thread_ts"] for p in posts] == [parent], [all_text(p)[:200] for p in posts]
    assert "Initiating rank:* 3" in all_text(posts[0]) and used(bot) == 1


def test_a_log_pasted_as_three_messages_in_a_dm_is_one_answer(bot: Bot, fake_slack):
    stamps = ["1701400110.000100", "1701400110.300100", "1701400110.600100"]
    for part, ts in zip(thirds(SAMPLE), stamps, strict=True):
        bot.event(message(part, ts, channel="D0ALICEDM", channel_type="im"))
    wait_handled(bot, *stamps, channel="D0ALICEDM", timeout=30)
    posts = replies(fake_slack)
    assert [p.params["thread_ts"] for p in posts] == [stamps[0]] and used(bot) == 1


def test_a_paste_interrupted_by_a_colleague_is_still_one_answer(bot: Bot, fake_slack):
    """Alice's paste in two parts with Bob's "ugh, again?" between them: one answer for
    Alice's log, in her first part's thread; nothing for Bob."""
    parts = thirds(SAMPLE)
    a1, b, a2 = "1701400120.000100", "1701400120.300100", "1701400120.600100"
    bot.event(message(parts[0] + "\n" + parts[1], a1))
    bot.event(message("ugh, again?", b, user="U0BOB"))
    bot.event(message(parts[2], a2))
    wait_handled(bot, a1, b, a2, timeout=30)
    posts = replies(fake_slack)
    assert [p.params["thread_ts"] for p in posts] == [a1] and used(bot) == 1


# --- conversations other than a channel -------------------------------------------------------------

def test_a_log_in_a_group_dm_with_a_file_is_diagnosed_in_its_thread(bot: Bot, fake_slack):
    """A log file shared in a group DM (`mpim`): read, diagnosed in its thread, charged once."""
    ts = "1701400130.000100"
    f = fake_slack.add_file(FakeFile(id="FMPIM0001", name="rank3.log", content=OOM_PASTE.encode()))
    bot.event(message("", ts, channel="G0MPIM01", channel_type="mpim", subtype="file_share", files=[f]))
    wait_handled(bot, ts, channel="G0MPIM01")
    (post,) = replies(fake_slack)
    assert post.params["channel"] == "G0MPIM01" and post.params["thread_ts"] == ts
    assert "cuda-oom" in json.dumps(post.params) and used(bot) == 1


def test_an_assistant_thread_is_acknowledged_and_a_log_in_it_answered_there(bot: Bot, fake_slack):
    """Slack's assistant container: `assistant_thread_started` (and its context change) are
    acknowledged with nothing posted; a log the person pastes in that thread (a `message.im`
    with the thread's ts) is diagnosed in that thread, once."""
    thread = "1701400140.000100"
    started = {"type": "assistant_thread_started", "event_ts": "1701400140.000200",
               "assistant_thread": {"user_id": "U0ALICE", "channel_id": "D0ALICEDM", "thread_ts": thread,
                                    "context": {"channel_id": "C0LOGS", "team_id": TEAM_ID, "enterprise_id": None}}}
    assert bot.event(started).status == 200
    ts = "1701400141.000100"
    bot.event(message(OOM_PASTE, ts, channel="D0ALICEDM", channel_type="im", thread_ts=thread,
                      parent_user_id="UBOT0001"))
    wait_handled(bot, ts, channel="D0ALICEDM")
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == thread and "cuda-oom" in json.dumps(post.params)


def test_a_log_file_broadcast_from_a_thread_is_answered_once_in_the_thread(bot: Bot, fake_slack):
    """A log file uploaded as a thread reply with "Also send to #channel" (`thread_broadcast`
    carrying `files`): answered once, in the thread, one download."""
    parent, ts = "1701400150.000100", "1701400151.000100"
    f = fake_slack.add_file(FakeFile(id="FBCAST001", name="rank3.log", content=OOM_PASTE.encode()))
    bot.event(message("", ts, subtype="thread_broadcast", thread_ts=parent, files=[f], root={"ts": parent}))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == parent and "cuda-oom" in json.dumps(post.params)
    assert len(fake_slack.of("files.download")) == 1


def test_a_message_without_a_channel_type_is_diagnosed_once(bot: Bot, fake_slack):
    """A message event without `channel_type` (some senders leave it out): diagnosed once."""
    ts = "1701400160.000100"
    ev = message(OOM_PASTE, ts)
    ev.pop("channel_type")
    bot.event(ev)
    wait_handled(bot, ts)
    assert len(replies(fake_slack)) == 1 and used(bot) == 1


# --- what is not a person's log -----------------------------------------------------------------------

@pytest.mark.parametrize("extra", [
    {"bot_id": "B0CIAPP01", "app_id": "A0CIAPP01", "bot_profile": {"id": "B0CIAPP01", "name": "ci"}},
    {"subtype": "bot_message", "bot_id": "B0HOOK001", "username": "nightly-ci", "user": None},
    {"bot_id": BOT_ID, "user": "UBOT0001"},
], ids=["another-apps-bot-user", "legacy-webhook", "its-own"])
def test_a_log_posted_by_an_app_gets_nothing(bot: Bot, fake_slack, extra):
    """A log posted by another app as its bot user (no subtype, `bot_id` beside `user`), by
    an incoming webhook (`bot_message`), or by Denpex itself: nothing posted or charged."""
    ts = "1701400170.000100"
    ev = message(OOM_PASTE, ts, **extra)
    assert bot.event(ev).status == 200
    quiesce(bot, fake_slack, quiet_s=0.5)
    assert not replies(fake_slack) and used(bot) == 0


def test_a_message_of_only_an_apps_attachment_holding_a_log_gets_nothing(bot: Bot, fake_slack):
    """A person's message whose log is only in a legacy attachment that is no share (a link
    preview's or an app's): not read, nothing posted in a channel."""
    ts = "1701400180.000100"
    att = {"fallback": OOM_PASTE, "text": OOM_PASTE, "title": "CI run 4821", "color": "danger", "id": 1}
    bot.event(message("", ts, attachments=[att]))
    wait_handled(bot, ts)
    assert not replies(fake_slack) and used(bot) == 0


def test_a_file_share_message_with_no_files_and_a_pasted_log_is_diagnosed(bot: Bot, fake_slack):
    """`subtype: file_share` whose `files` is empty (the file deleted before the event was
    read) with a log typed beside it: the log diagnosed once."""
    ts = "1701400190.000100"
    bot.event(message(OOM_PASTE, ts, subtype="file_share", files=[]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in json.dumps(post.params) and used(bot) == 1


# --- Web API refusals on reading a file --------------------------------------------------------------

@pytest.mark.parametrize("error", ["invalid_auth", "token_revoked", "account_inactive", "file_deleted"])
def test_files_info_refused_for_good_reads_nothing_and_charges_nothing(bot: Bot, fake_slack, error):
    """files.info answering `invalid_auth`, `token_revoked`, `account_inactive` (the token is
    gone) or `file_deleted`: nothing downloaded, nothing charged, at most one word posted, no
    traceback, and the next log answered."""
    f = fake_slack.add_file(FakeFile(id="FREFUSED1", name="rank3.log", content=OOM_PASTE.encode()))
    fake_slack.fail("files.info", 200, body={"ok": False, "error": error}, times=5)
    ts = "1701400200.000100"
    bot.event(message("", ts, subtype="file_share", files=[{"id": f["id"], "file_access": "check_file_info"}]))
    wait_handled(bot, ts, timeout=30)
    assert not fake_slack.of("files.download") and used(bot) == 0
    assert len(replies(fake_slack)) <= 1
    ts2 = "1701400201.000100"
    bot.event(message(OOM_PASTE, ts2, channel="C0NEXT"))
    wait_handled(bot, ts2, channel="C0NEXT")
    assert len(replies(fake_slack, "C0NEXT")) == 1


def test_a_retry_arriving_while_the_upload_is_still_downloading_is_one_reply(bot: Bot, fake_slack):
    """An upload whose download takes a while (2 s), and Slack re-sending its event
    (`X-Slack-Retry-Num: 1`, `http_timeout`) under a new delivery meanwhile: one download, one
    reply, one charge."""
    f = fake_slack.add_file(FakeFile(id="FSLOWDL01", name="rank3.log", content=OOM_PASTE.encode(), stall_s=1.5))
    ts = "1701400210.000100"
    ev = message("", ts, subtype="file_share", files=[f])
    bot.event(ev, event_id="Ev0SLOWDL01")
    fake_slack.wait_for("files.download", timeout=15)
    bot.event(ev, event_id="Ev0SLOWDL01", headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    wait_handled(bot, ts, timeout=30)
    assert len(replies(fake_slack)) == 1 and len(fake_slack.of("files.download")) == 1 and used(bot) == 1


# --- Enterprise Grid users -------------------------------------------------------------------------

def test_the_home_tab_opened_by_a_grid_user_is_published_to_them(bot: Bot, fake_slack):
    """`app_home_opened` from an Enterprise Grid user (a `W` id, the envelope naming the
    enterprise): the tab published to that user."""
    body = {"token": "legacy", "team_id": TEAM_ID, "enterprise_id": "E0GRID001", "api_app_id": "A0DENPEX",
            "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
            "is_enterprise_install": False,
            "authorizations": [{"enterprise_id": "E0GRID001", "team_id": TEAM_ID, "user_id": "UBOT0001",
                                "is_bot": True, "is_enterprise_install": False}],
            "event": {"type": "app_home_opened", "user": "W0GRIDUSR", "channel": "D0GRIDDM", "tab": "home",
                      "event_ts": f"{time.time():.6f}"}}
    assert bot.post(json.dumps(body).encode(), "application/json").status == 200
    (publish,) = fake_slack.wait_for("views.publish")
    assert publish.params["user_id"] == "W0GRIDUSR"


def test_a_vote_from_a_grid_user_is_counted(bot: Bot, fake_slack):
    """A feedback click from a `W` user of an Enterprise Grid workspace: counted, thanked."""
    reply = bot.action("denpex_feedback_right", "cuda-oom", user="W0GRIDUSR")
    assert reply.status == 200
    (thanks,) = fake_slack.wait_for("chat.postEphemeral")
    assert thanks.params["user"] == "W0GRIDUSR"
    rows = {r.rule_id: r for r in store_of(bot).feedback.summary()}
    assert rows["cuda-oom"].right == 1


# --- commands -----------------------------------------------------------------------------------------

def test_a_multi_line_traceback_looked_up_finds_its_entry(bot: Bot):
    """`/denpex` with a pasted multi-line traceback as its text: the entry, ephemeral."""
    reply = bot.command(OOM_PASTE)
    assert reply.status == 200 and reply.json().get("response_type") == "ephemeral"
    assert "cuda-oom" in json.dumps(reply.json())


def test_a_message_delivered_hours_late_is_answered_once(bot: Bot, fake_slack):
    """A message event whose ts is two hours old, signed now (events Slack held back while
    the app was disabled and delivers when it is on again): answered once."""
    ts = f"{time.time() - 7200:.6f}"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    assert len(replies(fake_slack)) == 1 and used(bot) == 1
