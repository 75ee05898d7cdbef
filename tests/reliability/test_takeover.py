"""A process that dies between claiming a message and answering it: the claim's lease runs
out, and another process (a replica, or the restarted bot) takes the message over and
answers it once."""

from __future__ import annotations

import os
import signal
import time

from tests.reliability.conftest import SAMPLE, TUNED_ENV, all_text, message, new_ts, settle, used
from tests.slack.conftest import start_bot, stop_bot

LEASED = {**TUNED_ENV, "DENPEX_CLAIM_LEASE_S": "3", "DENPEX_CLAIM_SWEEP_S": "1", "DENPEX_PASTE_WINDOW_S": "4"}


def test_a_message_whose_process_died_is_taken_over_and_answered_once(rbot, rfake):
    """The bot is SIGKILLed while it waits to answer a pasted log; a second process answers it once, charged once."""
    doomed = start_bot(rfake, rbot.redis_url, LEASED)
    try:
        ts = new_ts()
        event = message(SAMPLE, ts)
        rfake.history.append(event)  # what conversations.history shows of the channel
        assert doomed.event(event).status == 200
        time.sleep(1.0)  # claimed, and waiting out the paste window
        os.kill(doomed.proc.pid, signal.SIGKILL)
        doomed.proc.wait(5)
        assert rfake.delivered("chat.postMessage", thread_ts=ts) == []
        rescuer = start_bot(rfake, rbot.redis_url, LEASED)
        try:
            post = rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=30)[0]
            assert "cuda-oom" in all_text(post)
            settle(6.0)
            assert len(rfake.delivered("chat.postMessage", thread_ts=ts)) == 1
            assert used(rbot) == 1
        finally:
            stop_bot(rescuer)
    finally:
        if doomed.proc.poll() is None:
            stop_bot(doomed)


def test_a_live_claim_is_not_taken_over(rbot, rfake):
    """A slow answer (longer than the lease, renewed) is not taken over by a replica: one reply."""
    a = start_bot(rfake, rbot.redis_url, {**LEASED, "DENPEX_PASTE_WINDOW_S": "7"})
    b = start_bot(rfake, rbot.redis_url, LEASED)
    try:
        ts = new_ts()
        event = message(SAMPLE, ts)
        rfake.history.append(event)
        assert a.event(event).status == 200
        rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=30)
        settle(5.0)
        assert len(rfake.delivered("chat.postMessage", thread_ts=ts)) == 1
        assert used(rbot) == 1
    finally:
        stop_bot(a)
        stop_bot(b)
