"""Eighth audit of the Slack edge: scenarios an outside end-to-end check runs that no test ran
yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

An upload reaches an app as a `message` (subtype file_share, full `files[]`, the `ts` to thread
under) and a `file_shared` event (ids only: `file_id`, `user_id`, `channel_id`, `event_ts`;
docs.slack.dev/reference/events/file_shared). When only `file_shared` comes, files.info says
where the file was shared: `shares.public|private[channel]` lists the messages that carry it,
each with its `ts` (and `thread_ts` in a thread).

Slack's `ssl_check` (a form post `ssl_check=1&token=...` to a slash command's URL) is answered
200 by Bolt before any signature is checked (slack_bolt.middleware.ssl_check, which runs ahead
of RequestVerification).

A Windows path holds backslash sequences that look like a terminal code written out as text
(`C:\\Users\\x\\e[1]\\`): only real colour codes may be taken out of what Slack shows.
"""

from __future__ import annotations

import time
import urllib.parse
from typing import Any

import pytest

from bot.slack.blocks import esc
from bot.terminal import without_terminal_codes
from tests.ports import free_port
from tests.slack.conftest import (
    FAST_TIMERS,
    UPLOAD_CAP,
    Bot,
    quiesce,
    sign,
    start_bot,
    stop_bot,
    wait_handled,
)
from tests.slack.events import (
    CHANNEL,
    OOM_PASTE,
    all_text,
    file_shared,
    message,
    mrkdwn_strings,
    used,
)
from tests.slack.fake_slack import BOT_USER_ID, FakeFile, FakeSlack

MESSAGE_METHODS = ("chat.postMessage", "chat.postEphemeral", "chat.update")
READ_METHODS = ("files.info", "files.download")


def shared_at(ts: str, channel: str = CHANNEL, thread_ts: str | None = None, private: bool = False) -> dict:
    """files.info's `shares` for one message carrying the file."""
    share = {"ts": ts, "channel_name": "training", "team_id": "T0TEST001"}
    if thread_ts:
        share["thread_ts"] = thread_ts
    return {"private" if private else "public": {channel: [share]}}


def log_file(fake: FakeSlack, file_id: str, shares: dict | None) -> dict:
    return fake.add_file(FakeFile(id=file_id, name="train.log", content=OOM_PASTE.encode(), shares=shares))


def settle(bot: Bot, fake: FakeSlack) -> None:
    """Wait until a `file_shared` has had its grace and done whatever it does (quiesce alone
    returns at once when nothing was called yet)."""
    time.sleep(float(FAST_TIMERS["DENPEX_FILE_SHARED_GRACE_S"]) + 0.7)
    quiesce(bot, fake, quiet_s=1.0, max_s=15.0)


def one_answer(bot: Bot, fake: FakeSlack) -> Any:
    """The one reply to an upload, after one download and one charge."""
    (post,) = fake.of("chat.postMessage")
    assert "cuda-oom" in all_text(post)
    assert len(fake.of("files.download")) == 1
    assert used(bot) == 1
    return post


def retried(bot: Bot, event: dict, event_id: str) -> None:
    assert bot.event(event, event_id=event_id).status == 200
    for n in (1, 2, 3):
        headers = {"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": "http_timeout"}
        assert bot.event(event, event_id=event_id, headers=headers).status == 200


# --- an upload that arrives only as file_shared ----------------------------------------------

def test_a_log_file_arriving_only_as_file_shared_is_answered_once_under_its_message(bot: Bot, fake_slack: FakeSlack):
    """No `message` event reaches the bot (a channel whose message events the app does not
    get): the diagnosis still comes, once, under the message files.info names; one download,
    one charge, though Slack re-sends the event three times."""
    ts = "1700800000.000100"
    log_file(fake_slack, "F0ONLYSHRD", shared_at(ts))
    retried(bot, file_shared("F0ONLYSHRD"), "EvONLYSHARED1")
    wait_handled(bot, ts)
    post = one_answer(bot, fake_slack)
    assert post.params["channel"] == CHANNEL and post.params["thread_ts"] == ts


def test_a_file_shared_alone_in_a_thread_is_answered_in_that_thread(bot: Bot, fake_slack: FakeSlack):
    parent, ts = "1700800100.000100", "1700800100.000200"
    log_file(fake_slack, "F0SHRDTHRD", shared_at(ts, thread_ts=parent))
    bot.event(file_shared("F0SHRDTHRD"))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == parent and "cuda-oom" in all_text(post)


def test_a_file_shared_alone_in_a_dm_is_answered_there(bot: Bot, fake_slack: FakeSlack):
    ts = "1700800200.000100"
    log_file(fake_slack, "F0SHRDINDM", shared_at(ts, channel="D0ALICE01", private=True))
    bot.event(file_shared("F0SHRDINDM", channel="D0ALICE01"))
    wait_handled(bot, ts, channel="D0ALICE01")
    (post,) = fake_slack.of("chat.postMessage")
    assert (post.params["channel"], post.params["thread_ts"]) == ("D0ALICE01", ts)
    assert used(bot) == 1


def test_the_message_of_an_upload_answered_through_file_shared_gets_nothing_more(bot: Bot, fake_slack: FakeSlack):
    """`file_shared` first and answered, then the `message` of the same upload, late (another
    replica, a retry after a timeout): still one reply, one download, one charge."""
    ts = "1700800300.000100"
    f = log_file(fake_slack, "F0LATEMSG1", shared_at(ts))
    bot.event(file_shared("F0LATEMSG1"))
    wait_handled(bot, ts)
    assert bot.event(message("", ts, subtype="file_share", files=[f])).status == 200
    wait_handled(bot, ts)
    quiesce(bot, fake_slack)
    one_answer(bot, fake_slack)


def test_an_upload_whose_message_comes_just_after_file_shared_is_one_reply(bot: Bot, fake_slack: FakeSlack):
    """Both events within a second, `file_shared` first (Slack does not order them): the
    message, which carries the text typed with the upload, answers; `file_shared` gives way."""
    ts = "1700800400.000100"
    f = log_file(fake_slack, "F0BOTHSOON", shared_at(ts))
    bot.event(file_shared("F0BOTHSOON"))
    bot.event(message("why did this die?", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    settle(bot, fake_slack)
    one_answer(bot, fake_slack)


def test_a_file_over_the_size_cap_arriving_only_as_file_shared_is_told_so(bot: Bot, fake_slack: FakeSlack):
    """The size cap holds on this path too: told under the message, never downloaded or charged."""
    ts = "1700800420.000100"
    fake_slack.add_file(FakeFile(id="F0HUGESHRD", name="train.log", content=OOM_PASTE.encode(),
                                 declared_size=UPLOAD_CAP + 1, shares=shared_at(ts)))
    bot.event(file_shared("F0HUGESHRD"))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == ts and "MB limit" in all_text(post)
    assert fake_slack.of("files.download") == []
    assert used(bot) == 0


def test_another_bots_upload_gets_nothing_through_file_shared_either(bot: Bot, fake_slack: FakeSlack):
    """A CI app uploading a log: its message (`bot_id`) gets nothing, as any bot's does, and the
    upload's `file_shared`, whose `user_id` is that app's bot user, leaves it at that."""
    ts = "1700800450.000100"
    f = log_file(fake_slack, "F0CIUPLOAD", shared_at(ts))
    bot.event(message("nightly run log", ts, user="U0CIBOT01", subtype="file_share", files=[f], bot_id="B0CIBOT01"))
    bot.event(file_shared("F0CIUPLOAD", user="U0CIBOT01"))
    settle(bot, fake_slack)
    assert [c.method for c in fake_slack.calls if c.method in (*MESSAGE_METHODS, *READ_METHODS)] == []
    assert used(bot) == 0


ODD_SHARES = {"no-shares": None, "other-channel": shared_at("1700800500.000100", channel="C0ELSEWHERE"),
              "own-upload": shared_at("1700800500.000100"), "shares-a-list": [], "channel-a-number": {"public": {CHANNEL: 5}},
              "ts-a-number": {"public": {CHANNEL: [{"ts": 1700800500.0001}]}}, "share-a-string": {"public": {CHANNEL: ["x"]}}}


@pytest.mark.parametrize("case", [*ODD_SHARES, "deleted"])
def test_a_file_shared_alone_that_cannot_be_placed_posts_nothing(bot: Bot, fake_slack: FakeSlack, case: str):
    """No message to answer under (files.info lists no share in that channel, lists it oddly,
    or the file is gone), or the bot's own upload: acknowledged, nothing downloaded, posted or
    charged, no traceback."""
    if case != "deleted":
        log_file(fake_slack, "F0NOWHERE1", ODD_SHARES[case])
    user = BOT_USER_ID if case == "own-upload" else "U0ALICE"
    log_path = bot.log_path  # type: ignore[attr-defined]
    logged = log_path.stat().st_size
    assert bot.event(file_shared("F0NOWHERE1", user=user)).status == 200
    settle(bot, fake_slack)
    with open(log_path, "rb") as log:
        log.seek(logged)
        tail = log.read().decode()
    assert " ERROR " not in tail and "Traceback" not in tail, tail
    assert [c.method for c in fake_slack.calls if c.method in (*MESSAGE_METHODS, "files.download")] == []
    assert used(bot) == 0


# --- ssl_check ---------------------------------------------------------------------------------

@pytest.mark.parametrize("signing", ["unsigned", "bad-signature", "stale"])
def test_an_ssl_check_is_answered_200_however_it_is_signed(bot: Bot, fake_slack: FakeSlack, signing: str):
    """Slack's certificate check of a slash command URL: 200 with an empty body, as Bolt
    answers it ahead of its signature check; nothing runs, even with a command in the form."""
    for form in ({"ssl_check": "1", "token": "legacy"},
                 {"ssl_check": "1", "token": "legacy", "command": "/denpex", "text": "quota", "team_id": "T0TEST001"}):
        body = urllib.parse.urlencode(form).encode()
        headers = {"unsigned": {}, "bad-signature": {"X-Slack-Request-Timestamp": str(int(time.time())),
                                                    "X-Slack-Signature": "v0=" + "0" * 64},
                   "stale": sign(body, int(time.time()) - 3600)}[signing]
        reply = bot.post(body, "application/x-www-form-urlencoded", headers=headers, sign_it=False)
        assert (reply.status, reply.body) == (200, b"")
    assert fake_slack.calls == []


def test_an_unsigned_request_that_is_no_ssl_check_is_still_refused(bot: Bot, fake_slack: FakeSlack):
    """`ssl_check=0`, or the words in a command's text: a 401 as before."""
    for form in ({"ssl_check": "0", "token": "legacy"},
                 {"command": "/denpex", "text": "ssl_check=1", "team_id": "T0TEST001"}):
        body = urllib.parse.urlencode(form).encode()
        assert bot.post(body, "application/x-www-form-urlencoded", sign_it=False).status == 401
    assert fake_slack.calls == []


# --- Windows paths and written-out colour codes ------------------------------------------------

WINDOWS_PATHS = [r"C:\Users\x\e[1]\train.py", r"D:\runs\e[lr=3e-4]\ckpt.pt", r"E:\data\033[seed=1]\shard.bin",
                 r"C:\exp\e[mnist]\log.txt"]


@pytest.mark.parametrize("path", WINDOWS_PATHS)
def test_slack_escaping_keeps_a_windows_path_and_takes_colour_codes_out(path: str):
    assert esc(path) == path
    assert without_terminal_codes(rf"\e[1;31m{path}\e[0m \033[33mok\033[0m") == f"{path} ok"


@pytest.mark.parametrize("regex", ["^[[:space:]]*#", "^[[:digit:]]+$", "^[[:alpha:]_][[:alnum:]_]*="])
def test_slack_escaping_keeps_a_posix_class_after_a_caret_and_takes_caret_codes_out(regex: str):
    """`^[[:space:]]` is a regex (a shell trace's grep, sed), not ESC `[` in caret notation;
    `^[[0;31m`, `^[[A`, `^[[2K` (what `cat -v` shows) still go."""
    line = f"+ grep -E '{regex}' conf.txt"
    assert esc(line) == line
    assert without_terminal_codes(f"^[[A^[[2K^[[0;31m{line}^[[0m") == line


QUOTED_WHOLE = [
    (r"FileNotFoundError: [Errno 2] No such file or directory: \e[33m'D:\runs\e[lr=3e-4]\ckpt\last.pt'\e[0m",
     r"'D:\runs\e[lr=3e-4]\ckpt\last.pt'", (r"\e[33m", r"\e[0m")),
    (r"ValueError: no line of conf.txt matches ^[[1m'^[[:space:]]*#'^[[0m", r"'^[[:space:]]*#'", ("^[[1m", "^[[0m")),
]


@pytest.mark.parametrize(("line", "kept", "codes"), QUOTED_WHOLE, ids=["windows-path", "posix-class"])
def test_an_unmatched_line_comes_back_with_its_path_or_regex_whole(bot: Bot, fake_slack: FakeSlack, line: str,
                                                                  kept: str, codes: tuple[str, str]):
    """The unmatched line quoted back keeps `\\e[lr=3e-4]` (it lost `\\e[l`) and `^[[:space:]]`
    (it lost `^[[:s`); the colour codes written out around them still go."""
    ts = f"1700800600.{len(line):06d}"
    paste = f'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n{line}\n'
    bot.event(message(paste, ts))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    shown = mrkdwn_strings(post)
    assert kept in shown[0] and any(kept in s for s in shown[1:]), shown
    assert not any(code in s for s in shown for code in codes), shown


# --- more of SLACK.md, walked line by line -----------------------------------------------------

def test_file_shared_is_acknowledged_at_once_though_files_info_is_slow(bot: Bot, fake_slack: FakeSlack):
    """Slack waits 3 s for an ack: `file_shared`'s grace and its files.info (here 4 s slow)
    happen after the ack, not before it."""
    ts = "1700800700.000100"
    f = log_file(fake_slack, "F0SLOWINFO", shared_at(ts))
    fake_slack.fail("files.info", 200, body={"ok": True, "file": f}, delay_s=4.0)
    began = time.monotonic()
    assert bot.event(file_shared("F0SLOWINFO")).status == 200
    assert time.monotonic() - began < 1.5
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == ts and "cuda-oom" in all_text(post)


def test_one_message_delivered_under_two_event_ids_is_answered_once(bot: Bot, fake_slack: FakeSlack):
    """Bolt does not deduplicate, and the event id is not the only key: the same message (its
    channel and ts) sent again under a new event id (a second subscription, a replay of the
    app's event log) gets one reply and one charge."""
    ts = "1700800800.000100"
    assert bot.event(message(OOM_PASTE, ts), event_id="EvTWOIDS0001").status == 200
    assert bot.event(message(OOM_PASTE, ts), event_id="EvTWOIDS0002").status == 200
    wait_handled(bot, ts)
    quiesce(bot, fake_slack)
    assert len(fake_slack.of("chat.postMessage")) == 1
    assert used(bot) == 1


def test_a_follow_up_reads_its_thread_from_redis_not_from_slack(bot: Bot, fake_slack: FakeSlack):
    """conversations.replies is limited to about one call a minute for new apps: a diagnosis and
    a question in its thread are answered without reading the channel or the thread back."""
    ts = "1700800900.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    bot.event(message("how do I confirm this?", "1700800900.000200", thread_ts=ts))
    wait_handled(bot, "1700800900.000200")
    assert len(fake_slack.of("chat.postMessage")) == 2
    assert [c.method for c in fake_slack.calls if c.method.startswith("conversations.")] == []


def test_with_redis_down_an_upload_told_once_and_its_file_shared_silent(fake_slack: FakeSlack):
    """Without Redis, `file_shared` cannot tell whether the message came: it posts nothing (the
    message event, which says where, gives the outage notice once), and nothing crashes."""
    fake_slack.reset()
    dead = start_bot(fake_slack, f"redis://127.0.0.1:{free_port()}/0")
    try:
        ts = "1700801000.000100"
        f = log_file(fake_slack, "F0NOREDIS1", shared_at(ts))
        assert dead.event(file_shared("F0NOREDIS1")).status == 200
        assert dead.event(message("", ts, subtype="file_share", files=[f])).status == 200
        assert dead.event(file_shared("F0NOREDIS2")).status == 200  # alone, for a file it never sees
        fake_slack.wait_for("chat.postMessage")
        time.sleep(float(FAST_TIMERS["DENPEX_FILE_SHARED_GRACE_S"]) + 2.0)
        (post,) = fake_slack.of("chat.postMessage")
        assert post.params["thread_ts"] == ts and "temporarily unavailable" in all_text(post)
        assert fake_slack.of("files.download") == []
    finally:
        stop_bot(dead)
    assert "Traceback" not in dead.log_path.read_text()  # type: ignore[attr-defined]
