"""Redis away: down at start, killed mid-flow, hung, restarted. Users get a clear message, acks
stay inside Slack's 3 s, the bot recovers without a restart, and quotas are exact afterwards."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.conftest import (
    SAMPLE,
    TUNED_ENV,
    ReliabilityFake,
    all_text,
    assert_no_crash,
    message,
    new_ts,
    settle,
    used,
)
from tests.slack.conftest import Bot, start_bot, stop_bot
from tests.store.conftest import REDIS_SERVER, PrivateRedis

UNAVAILABLE = "temporarily unavailable"
ACK_BUDGET_S = 3.0


@pytest.fixture(scope="module")
def redis_and_bot(rfake: ReliabilityFake, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Bot, PrivateRedis]]:
    """A bot on its own persistent redis-server (append-only, fsync always: data survives a
    restart, as in production), which the tests stop, restart and freeze."""
    if not os.path.exists(REDIS_SERVER):
        pytest.skip("redis-server binary not found")
    server = PrivateRedis(tmp_path_factory.mktemp("redis-faults"), "--appendonly", "yes", "--appendfsync", "always")
    server.start()
    bot = start_bot(rfake, server.url, TUNED_ENV)
    yield bot, server
    stop_bot(bot)
    server.stop()
    assert_no_crash(bot.log_path)  # type: ignore[attr-defined]


@pytest.fixture
def rb(redis_and_bot, rfake) -> Iterator[tuple[Bot, PrivateRedis]]:
    """The Redis-fault bot, with its Redis running and empty, and a fresh call record."""
    bot, server = redis_and_bot
    if server._proc is None:
        server.start()
    with server.client() as c:
        c.flushdb()
    rfake.reset()
    yield bot, server
    if server._proc is not None:
        server._proc.send_signal(signal.SIGCONT)
    assert bot.proc.poll() is None, "the bot process died"


def wait_until(check, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def diagnose(bot: Bot, fake: ReliabilityFake) -> str:
    ts = new_ts()
    assert bot.event(message(SAMPLE, ts)).status == 200
    return all_text(fake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=20)[0])


def test_redis_down_at_start_gives_a_clear_message_then_recovers_without_restart(rfake, tmp_path: Path):
    """Bot started with Redis down: healthy, says 'temporarily unavailable'; Redis starts: diagnoses, exact quota."""
    if not os.path.exists(REDIS_SERVER):
        pytest.skip("redis-server binary not found")
    rfake.reset()
    server = PrivateRedis(tmp_path)  # not started
    bot = start_bot(rfake, server.url, TUNED_ENV)
    try:
        assert bot.get("/healthz").json() == {"ok": True, "redis": False}
        text = diagnose(bot, rfake)
        assert UNAVAILABLE in text and "Nothing was charged" in text
        assert UNAVAILABLE in bot.command("quota").json()["text"]
        server.start()
        assert "cuda-oom" in diagnose(bot, rfake)
        assert "cuda-oom" in diagnose(bot, rfake)
        assert used(bot) == 2
        assert bot.get("/healthz").json()["redis"] is True
    finally:
        stop_bot(bot)
        server.stop()
    assert_no_crash(bot.log_path)  # type: ignore[attr-defined]


def test_redis_killed_then_restarted_keeps_quota_and_threads_exact(rb, rfake):
    """Redis killed, then restarted: a clear message meanwhile, then answers again with quota and threads intact."""
    bot, server = rb
    first = new_ts()
    bot.event(message(SAMPLE, first))
    rfake.wait_delivered("chat.postMessage", thread_ts=first)
    server.stop()
    assert UNAVAILABLE in diagnose(bot, rfake)
    ts = new_ts()
    bot.event(message("how do I confirm this?", ts, thread_ts=first))
    assert UNAVAILABLE in all_text(rfake.wait_delivered("chat.postMessage", thread_ts=first, count=2)[1])
    server.start()
    assert "cuda-oom" in diagnose(bot, rfake)
    bot.event(message("how do I confirm this?", new_ts(), thread_ts=first))
    answer = rfake.wait_delivered("chat.postMessage", thread_ts=first, count=3)[2]
    assert "How to confirm" in all_text(answer)
    assert used(bot) == 2, "one before the kill, one after; none for the unanswered one"


def test_redis_dying_while_the_reply_is_in_flight_still_delivers_once(rb, rfake):
    """Redis dies while the reply is in flight: the diagnosis lands once, with no 'unavailable' noise after it."""
    bot, server = rb
    ok = {"ok": True, "channel": "C0LOGS", "ts": "1700000999.000100"}
    rfake.fail("chat.postMessage", 200, times=1, body=ok, delay_s=1.5)
    ts = new_ts()
    bot.event(message(SAMPLE, ts))
    rfake.wait_for("chat.postMessage", thread_ts=ts)
    server.stop()
    rfake.wait_for("reactions.add", name="white_check_mark", timestamp=ts, timeout=15)
    settle()
    posts = rfake.of("chat.postMessage")
    assert len(posts) == 1 and "cuda-oom" in all_text(posts[0])
    server.start()
    assert used(bot) == 1


def test_refund_refused_by_a_dead_redis_lands_when_it_returns(rb, rfake):
    """Redis dies after the charge, then the post fails: the refund lands once Redis is back, so it costs nothing."""
    bot, server = rb
    rfake.fail("chat.postMessage", 500, times=3, delay_s=0.7)
    ts = new_ts()
    bot.event(message(SAMPLE, ts))
    rfake.wait_for("chat.postMessage", thread_ts=ts)
    assert used(bot) == 1  # charged before posting
    server.stop()
    rfake.wait_for("reactions.add", name="x", timestamp=ts, timeout=15)
    time.sleep(1.0)  # the refund has failed at least once by now
    server.start()
    wait_until(lambda: used(bot) == 0)
    assert rfake.delivered("chat.postMessage", thread_ts=ts) == []


def test_hung_redis_keeps_acks_inside_3s_and_the_user_informed(rb, rfake):
    """Redis frozen (SIGSTOP): events still acked inside 3 s, the user told; thawed: answers again."""
    bot, server = rb
    server._proc.send_signal(signal.SIGSTOP)
    try:
        ts = new_ts()
        started = time.monotonic()
        assert bot.event(message(SAMPLE, ts)).status == 200
        assert time.monotonic() - started < ACK_BUDGET_S
        started = time.monotonic()
        reply = bot.command("quota")
        assert time.monotonic() - started < ACK_BUDGET_S
        assert UNAVAILABLE in reply.json()["text"]
        text = all_text(rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=20)[0])
        assert UNAVAILABLE in text
    finally:
        server._proc.send_signal(signal.SIGCONT)
    assert "cuda-oom" in diagnose(bot, rfake)
    assert used(bot) == 1


def test_redis_down_a_lookup_and_an_entry_click_still_answer_and_quota_says_unavailable(rb, rfake):
    """Redis stopped: a lookup reads only the rulebook, so the per-user limit fails open for it
    (as for an entry click) and it is answered; `/denpex quota`, which reads the store, gets
    the outage notice."""
    bot, server = rb
    server.stop()
    reply = bot.command("torch.OutOfMemoryError: CUDA out of memory")
    assert reply.status == 200
    body = reply.json()
    assert UNAVAILABLE not in body["text"] and body["response_type"] == "ephemeral"
    assert "cuda-oom" in str(body["blocks"])
    assert UNAVAILABLE in bot.command("quota").json()["text"]
    assert bot.action("denpex_full_entry", "cuda-oom", thread_ts="1700007000.000100").status == 200
    (entry,) = rfake.wait_delivered("chat.postMessage", thread_ts="1700007000.000100")
    assert "cuda-oom" in all_text(entry)
    settle()
    assert rfake.of("chat.postEphemeral") == []
