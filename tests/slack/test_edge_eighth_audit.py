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

import pytest

from bot.masking.terminal import without_terminal_codes
from bot.slack.blocks import esc
from tests.slack.conftest import Bot, sign, wait_handled
from tests.slack.events import (
    message,
    mrkdwn_strings,
)
from tests.slack.fake_slack import FakeSlack

MESSAGE_METHODS = ("chat.postMessage", "chat.postEphemeral", "chat.update")


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


def test_a_log_naming_a_windows_path_comes_back_with_the_path_whole(bot: Bot, fake_slack: FakeSlack):
    """The unmatched line quoted back keeps `\\e[lr=3e-4]` (it lost `\\e[l`); a real colour
    code written out on the same line still goes."""
    ts = "1700800600.000100"
    line = r"FileNotFoundError: [Errno 2] No such file or directory: \e[33m'D:\runs\e[lr=3e-4]\ckpt\last.pt'\e[0m"
    paste = f'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n{line}\n'
    bot.event(message(paste, ts))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    shown = mrkdwn_strings(post)
    assert any(r"D:\runs\e[lr=3e-4]\ckpt\last.pt" in s for s in shown[1:]), shown
    assert r"D:\runs\e[lr=3e-4]\ckpt\last.pt" in shown[0], shown[0]
    assert not any(r"\e[31m" in s or r"\e[0m" in s for s in shown), shown
