"""Slack misbehaving: rate limits, 5xx, timeouts, files.info errors, stalled downloads, channels
the bot is not in. The reply arrives exactly once or the user gets a clear message; nothing
undelivered is charged; the bot never stops answering."""

from __future__ import annotations

import time

import pytest

from tests.reliability.conftest import (
    DOWNLOAD_DEADLINE_S,
    SAMPLE,
    SLACK_TIMEOUT_S,
    all_text,
    answered_once,
    message,
    new_ts,
    paste,
    replies,
    settle,
    used,
)
from tests.slack.conftest import wait_handled
from tests.slack.events import CHANNEL


def test_429_on_post_message_is_retried_after_retry_after_and_lands_once(rbot, rfake):
    """chat.postMessage answered 429 + Retry-After twice: the reply lands once, after the wait, charged once."""
    rfake.fail("chat.postMessage", 429, times=2, retry_after=1)
    answered_once(rbot, rfake, paste(rbot))
    attempts = rfake.of("chat.postMessage")
    assert len(attempts) == 3
    assert attempts[-1].at - attempts[0].at >= 1.9, "Retry-After was not honoured"


@pytest.mark.parametrize("retry_after", [1, 30])
def test_429_on_reactions_add_never_holds_up_or_loses_the_reply(rbot, rfake, retry_after):
    """reactions.add rate-limited (short or long Retry-After): the reply still lands once, promptly."""
    rfake.fail("reactions.add", 429, times=3, retry_after=retry_after)
    started = time.monotonic()
    ts = paste(rbot)
    rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=15)
    assert time.monotonic() - started < 15, "a courtesy reaction held up the reply"
    answered_once(rbot, rfake, ts)


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_on_post_message_is_looked_for_then_lands_once(rbot, rfake, status):
    """Two 5xx answers (Slack posted nothing): each looked for in the thread, then posted again; one reply, one charge."""
    rfake.fail("chat.postMessage", status, times=2)
    answered_once(rbot, rfake, paste(rbot))
    assert len(rfake.of("conversations.replies")) >= 2


def test_post_message_failing_past_retries_refunds_the_charge(rbot, rfake):
    """chat.postMessage failing for good (3 x 503, each looked for): no quota consumed, :x: shown."""
    rfake.fail("chat.postMessage", 503, times=3)
    ts = paste(rbot)
    wait_handled(rbot, ts)
    assert rfake.delivered("reactions.add", name="x", timestamp=ts)
    assert len(rfake.of("chat.postMessage")) == 3
    assert replies(rfake, ts) == []
    assert used(rbot) == 0


def test_post_message_refused_is_not_retried_and_refunds(rbot, rfake):
    """chat.postMessage refused (a 4xx: Slack posted nothing, and says so): no repeat, no charge, :x: shown."""
    rfake.fail("chat.postMessage", 200, body={"ok": False, "error": "is_archived"})
    ts = paste(rbot)
    wait_handled(rbot, ts)
    assert rfake.delivered("reactions.add", name="x", timestamp=ts)
    assert len(rfake.of("chat.postMessage")) == 1
    assert used(rbot) == 0


@pytest.mark.parametrize("error", ["invalid_blocks", "msg_blocks_too_long"])
def test_blocks_slack_refuses_fall_back_to_the_text_once(rbot, rfake, error):
    """chat.postMessage refusing the blocks (Slack posted nothing): the plain-text answer (root cause, fix) lands once, charged once."""
    rfake.fail("chat.postMessage", 200, body={"ok": False, "error": error})
    ts = paste(rbot)
    wait_handled(rbot, ts)
    first, second = rfake.of("chat.postMessage")
    assert first.params.get("blocks") and not second.params.get("blocks")
    (post,) = replies(rfake, ts)
    assert "Root cause: CUDA Out of Memory" in post.params["text"] and "Fix:" in post.params["text"]
    assert rfake.delivered("reactions.add", name="white_check_mark", timestamp=ts)
    assert used(rbot) == 1


def test_reactions_timing_out_do_not_stop_the_reply(rbot, rfake):
    """reactions.add hanging past the timeout: the reply still lands once, charged once."""
    rfake.fail("reactions.add", 200, times=2, body={"ok": True}, delay_s=SLACK_TIMEOUT_S + 0.5)
    answered_once(rbot, rfake, paste(rbot))


@pytest.mark.parametrize(
    ("fail", "expect"),
    [
        ({"status": 500, "times": 3}, "could not read the file from Slack"),
        ({"status": 200, "times": 1, "body": {"ok": False, "error": "file_not_found"}}, "file_not_found"),
        ({"status": 200, "times": 1, "body": {"ok": False, "error": "file_deleted"}}, "deleted before I read it; upload it again"),
        ({"status": 200, "times": 1, "body": {"ok": False, "error": "missing_scope"}}, "(files:read)"),
        ({"status": 429, "times": 1, "retry_after": 120}, "ratelimited"),
        ({"status": 500, "times": 1, "delay_s": SLACK_TIMEOUT_S + 1.5}, "did not answer"),
    ],
    ids=["5xx", "not-found", "deleted", "no-scope", "rate-limited-long", "timeout"],
)
def test_files_info_errors_give_a_clear_message_and_no_charge(rbot, rfake, fail, expect):
    """files.info failing (5xx, an error, a long 429, a timeout): a message naming why, no charge."""
    f = rfake.add("train.log", SAMPLE.encode())
    rfake.fail("files.info", **fail)
    ts = new_ts()
    rbot.event(message("", ts, subtype="file_share", files=[f]))
    post = rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=20)[0]
    assert expect in all_text(post), all_text(post)
    rfake.wait_delivered("reactions.add", name="x", timestamp=ts)
    assert used(rbot) == 0


def test_download_that_stalls_before_any_byte_ends_with_a_message(rbot, rfake):
    """The download URL sends nothing: a 'stalled' message after DENPEX_DOWNLOAD_TIMEOUT_S, no charge."""
    f = rfake.add("train.log", SAMPLE.encode(), stall_s=4)
    ts = new_ts()
    rbot.event(message("", ts, subtype="file_share", files=[f]))
    post = rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=15)[0]
    assert "stalled" in all_text(post), all_text(post)
    assert used(rbot) == 0


@pytest.mark.parametrize(("mode", "expect"), [("trickle", "took over"), ("stall", "stalled")],
                         ids=["trickle", "stall-mid-body"])
def test_download_that_trickles_or_stalls_mid_body_is_bounded(rbot, rfake, mode, expect):
    """A download that dribbles a byte at a time, or stops mid-body: a message within the deadline, no charge."""
    f = rfake.add("train.log", b"unused", dribble=mode)
    ts = new_ts()
    started = time.monotonic()
    rbot.event(message("", ts, subtype="file_share", files=[f]))
    post = rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=DOWNLOAD_DEADLINE_S + 15)[0]
    assert expect in all_text(post), all_text(post)
    assert time.monotonic() - started < DOWNLOAD_DEADLINE_S + 15
    assert used(rbot) == 0


def test_channel_the_bot_is_not_in_is_swallowed_without_charge(rbot, rfake):
    """Events from a channel the bot is not in (Slack answers not_in_channel): no crash, no charge, bot fine."""
    rfake.not_in.add("C0NOTIN")
    ts = new_ts()
    assert rbot.event(message(SAMPLE, ts, channel="C0NOTIN")).status == 200
    mention = {**message("<@UBOT0001> hello", new_ts(), channel="C0NOTIN"), "type": "app_mention"}
    assert rbot.event(mention).status == 200
    rbot.action("denpex_full_entry", "cuda-oom", channel="C0NOTIN")
    rfake.wait_for("chat.postMessage", count=3, timeout=15)
    wait_handled(rbot, ts, mention["ts"], channel="C0NOTIN")
    settle(0.1)  # the click leaves no claim: its one post (refused) is what was waited for
    assert rfake.delivered("chat.postMessage") == []
    assert used(rbot) == 0
    # The bot is fine: the next log elsewhere is answered.
    ok = paste(rbot)
    rfake.wait_delivered("chat.postMessage", thread_ts=ok, channel=CHANNEL)
    assert used(rbot) == 1


@pytest.mark.parametrize(
    ("failures", "expect"),
    [([(429, 1)], "rate-limit"), ([(503, None), (500, None)], "5xx")],
    ids=["429-retry-after", "5xx"],
)
def test_a_download_answered_429_or_5xx_is_retried_by_the_sdk_handlers(rbot, rfake, failures, expect):
    """The file download answering 429 (Retry-After: 1) or 503 then 500: retried, then diagnosed once, charged once."""
    f = rfake.add("train.log", SAMPLE.encode())
    rfake.files[f["id"]].download_failures.extend(failures)
    ts = new_ts()
    rbot.event(message("", ts, subtype="file_share", files=[f]))
    answered_once(rbot, rfake, ts)
    gets = rfake.of("files.download")
    assert len(gets) == len(failures) + 1
    if expect == "rate-limit":
        assert gets[1].at - gets[0].at >= 0.95, "Retry-After was not honoured"


@pytest.mark.parametrize("status", [404, 403])
def test_a_download_refused_says_so_once_and_charges_nothing(rbot, rfake, status):
    """The file's URL answering 404 (deleted meanwhile) or 403: not retried, the status told, no charge."""
    f = rfake.add("train.log", SAMPLE.encode())
    rfake.files[f["id"]].download_failures.append((status, None))
    ts = new_ts()
    rbot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(rbot, ts, timeout=10)
    (post,) = replies(rfake, ts)
    assert f"(HTTP {status})" in all_text(post), all_text(post)
    assert len(rfake.of("files.download")) == 1
    assert used(rbot) == 0


def test_a_download_rate_limited_for_long_says_so_and_charges_nothing(rbot, rfake):
    """A 429 asking for longer than a user should wait (Retry-After: 120): not slept through; a clear message, no charge."""
    f = rfake.add("train.log", SAMPLE.encode())
    rfake.files[f["id"]].download_failures.append((429, 120))
    ts = new_ts()
    rbot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(rbot, ts, timeout=10)
    (post,) = replies(rfake, ts)
    assert "rate-limiting downloads of train.log" in all_text(post), all_text(post)
    assert len(rfake.of("files.download")) == 1
    assert used(rbot) == 0
