"""A process that dies between claiming a message and answering it: the claim's lease runs
out, and another process (a replica, or the restarted bot) takes the message over and
answers it once."""

from __future__ import annotations

import os
import signal
import time

import redis

from bot.store import keys
from tests.reliability.conftest import SAMPLE, TUNED_ENV, answered_once, message, new_ts
from tests.slack.conftest import Bot, start_bot, stop_bot
from tests.slack.events import CHANNEL
from tests.slack.fake_slack import TEAM_ID

LEASED = {**TUNED_ENV, "DENPEX_CLAIM_LEASE_S": "1.5", "DENPEX_CLAIM_SWEEP_S": "0.2", "DENPEX_PASTE_WINDOW_S": "1.5"}


def wait_claimed(bot: Bot, ts: str, timeout: float = 10.0) -> None:
    """Until the message at `ts` is claimed (its lease is held) by some process."""
    key = keys.dedupe(TEAM_ID, f"claim:message:{CHANNEL}:{ts}")
    deadline = time.monotonic() + timeout
    with redis.Redis.from_url(bot.redis_url) as r:
        while r.hget(key, "state") != b"lease":
            assert time.monotonic() < deadline, "the message was never claimed"
            time.sleep(0.02)


def test_a_message_whose_process_died_is_taken_over_and_answered_once(rbot, rfake):
    """The bot is SIGKILLed while it waits to answer a pasted log; a second process answers it once, charged once."""
    doomed = start_bot(rfake, rbot.redis_url, LEASED)
    try:
        ts = new_ts()
        event = message(SAMPLE, ts)
        rfake.history.append(event)  # what conversations.history shows of the channel
        assert doomed.event(event).status == 200
        wait_claimed(doomed, ts)  # claimed, and waiting out the paste window
        os.kill(doomed.proc.pid, signal.SIGKILL)
        doomed.proc.wait(5)
        assert rfake.delivered("chat.postMessage", thread_ts=ts) == []
        rescuer = start_bot(rfake, rbot.redis_url, LEASED)
        try:
            rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=30)
            answered_once(rbot, rfake, ts)
        finally:
            stop_bot(rescuer)
    finally:
        if doomed.proc.poll() is None:
            stop_bot(doomed)


def test_a_live_claim_is_not_taken_over(rbot, rfake):
    """A slow answer (longer than the lease, renewed) is not taken over by a replica: one reply."""
    a = start_bot(rfake, rbot.redis_url, {**LEASED, "DENPEX_PASTE_WINDOW_S": "3.5"})
    b = start_bot(rfake, rbot.redis_url, LEASED)
    try:
        ts = new_ts()
        event = message(SAMPLE, ts)
        rfake.history.append(event)
        assert a.event(event).status == 200
        rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=30)
        answered_once(rbot, rfake, ts)
        assert rfake.of("conversations.history") == [], "the replica took the live claim over"
    finally:
        stop_bot(a)
        stop_bot(b)
