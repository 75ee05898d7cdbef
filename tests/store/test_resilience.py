"""Redis down, slow or restarted: fast StoreUnavailable, no crash, recovery without restart.

These tests start their own throwaway redis-server; the shared one is never touched.
"""

from __future__ import annotations

import inspect
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.masking import mask
from bot.store import Store, StoreConfig, StoreUnavailable, ThreadContext
from bot.store.bursts import Part
from bot.store.claims import Claim

from .conftest import PrivateRedis, free_port

CLAIM = Claim("T1", "event:Ev1", "owner", '{"team_id": "T1"}')
CTX = ThreadContext(["rule-a"], 0, [mask("masked line").text], "C1", "1.1", "2026-11-30T12:00:00+00:00")

# One call of every public store method that talks to Redis.
CALLS: dict[str, Any] = {
    "quotas.status": lambda s: s.quotas.status("T1"),
    "quotas.consume": lambda s: s.quotas.consume("T1"),
    "quotas.refund": lambda s: s.quotas.refund("T1"),
    "plans.get": lambda s: s.plans.get("T1"),
    "plans.grant": lambda s: s.plans.grant("T1", "scale", datetime.now(UTC) + timedelta(days=1)),
    "plans.revoke": lambda s: s.plans.revoke("T1"),
    "codes.create": lambda s: s.codes.create("scale", 14),
    "codes.redeem": lambda s: s.codes.redeem("T1", "U1", "DNPX-0000-0000-0000"),
    "dedupe.first_time": lambda s: s.dedupe.first_time("T1", "event:Ev1"),
    "dedupe.forget": lambda s: s.dedupe.forget("T1", "event:Ev1"),
    "dedupe.seen": lambda s: s.dedupe.seen("T1", "event:Ev1"),
    "threads.save": lambda s: s.threads.save("T1", "C1", "1.1", CTX),
    "threads.load": lambda s: s.threads.load("T1", "C1", "1.1"),
    "threads.expired": lambda s: s.threads.expired("T1", "C1", "1.1"),
    "feedback.vote": lambda s: s.feedback.vote("T1", "rule-a", "U1", True),
    "feedback.summary": lambda s: s.feedback.summary(),
    "unmatched.record": lambda s: s.unmatched.record("T1", mask("Segfault 3").text),
    "unmatched.top": lambda s: s.unmatched.top(5),
    "ratelimit.allow": lambda s: s.ratelimit.allow("T1", "U1", "a", 1, 60),
    "ratelimit.count": lambda s: s.ratelimit.count("T1", "U1", "a", 60),
    "ratelimit.record": lambda s: s.ratelimit.record("T1", "U1", "a", 60),
    "bursts.join": lambda s: s.bursts.join("T1", "C1:top:U1", Part("1.1", "1.1", mask("part").text), 5),
    "bursts.is_open": lambda s: s.bursts.is_open("T1", "C1:top:U1"),
    "bursts.close": lambda s: s.bursts.close("T1", "C1:top:U1", 1),
    "bursts.take": lambda s: s.bursts.take("T1", "C1:top:U1", "1.9", 5),
    "bursts.after_upload": lambda s: s.bursts.after_upload("T1", "C1:top:U1"),
    "bursts.note_answer": lambda s: s.bursts.note_answer("T1", "C1:top:U1", "1.9", 5),
    "bursts.recent_answer": lambda s: s.bursts.recent_answer("T1", "C1:top:U1"),
    "bursts.note_edit": lambda s: s.bursts.note_edit("T1", "C1", Part("1.1", "1.1", mask("edited").text, True, "1.2"), 5),
    "bursts.edit_of": lambda s: s.bursts.edit_of("T1", "C1", "1.1"),
    "claims.claim": lambda s: s.claims.claim("T1", "event:Ev1", {"channel": "C1"}, 30),
    "claims.renew": lambda s: s.claims.renew(CLAIM, 30),
    "claims.finish": lambda s: s.claims.finish(CLAIM),
    "claims.expired": lambda s: s.claims.expired(),
    "claims.in_progress": lambda s: s.claims.in_progress("T1", "message:C1:1.1"),
    "claims.drop": lambda s: s.claims.drop({"team_id": "T1"}),
    "workspace_keys": lambda s: s.workspace_keys("T1"),
}


def test_every_public_method_is_covered() -> None:
    """CALLS lists every public method of every part of the store."""
    store = Store(StoreConfig())
    found = {"workspace_keys"}
    for part in ("quotas", "plans", "codes", "dedupe", "threads", "feedback", "unmatched",
                 "ratelimit", "bursts", "claims"):  # fmt: skip
        for name, _ in inspect.getmembers(getattr(store, part), inspect.ismethod):
            if not name.startswith("_"):
                found.add(f"{part}.{name}")
    assert found == set(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_redis_down_raises_store_unavailable_fast(name: str) -> None:
    """With nothing listening, every call raises StoreUnavailable within a second."""
    store = Store(StoreConfig(url=f"redis://127.0.0.1:{free_port()}/0"))
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        CALLS[name](store)
    assert time.monotonic() - started < 1.0
    assert "REDIS_URL" in str(caught.value)


def test_ping_is_false_not_an_error_when_down() -> None:
    """ping() reports a down Redis as False, for health checks."""
    assert Store(StoreConfig(url=f"redis://127.0.0.1:{free_port()}/0")).ping() is False


def test_message_hides_the_password() -> None:
    """The error names the URL without its password."""
    url = f"redis://user:s3cret-pw@127.0.0.1:{free_port()}/0"
    with pytest.raises(StoreUnavailable) as caught:
        Store(StoreConfig(url=url)).quotas.status("T1")
    assert "s3cret-pw" not in str(caught.value)
    assert f"redis://user:***@127.0.0.1:{url.split(':')[-1]}" in str(caught.value)


def test_restart_is_survived_without_a_new_store(private_redis: PrivateRedis) -> None:
    """Calls fail while Redis is down and work again, scripts included, once it is back."""
    store = Store(StoreConfig(url=private_redis.url, health_check_interval_s=1))
    assert store.quotas.consume("T1").allowed
    assert store.dedupe.first_time("T1", "event:Ev1")
    private_redis.stop()
    with pytest.raises(StoreUnavailable):
        store.quotas.consume("T1")
    assert store.ping() is False
    private_redis.start()  # empty: no persistence, and no cached Lua scripts
    assert store.ping() is True
    result = store.quotas.consume("T1")
    assert result.allowed and result.status.used == 1
    assert store.codes.redeem("T1", "U1", store.codes.create("scale", 3)[0]).ok
    store.close()


def test_restart_under_concurrent_load(private_redis: PrivateRedis) -> None:
    """Threads calling through a restart see only results or StoreUnavailable, then recover."""
    store = Store(StoreConfig(url=private_redis.url))
    errors: list[BaseException] = []
    stop = threading.Event()

    def hammer(i: int) -> None:
        while not stop.is_set():
            try:
                store.dedupe.first_time("T1", f"event:{i}:{time.monotonic_ns()}")
            except StoreUnavailable:
                pass
            except BaseException as exc:  # anything else is a bug
                errors.append(exc)

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    time.sleep(0.1)
    private_redis.stop()
    time.sleep(0.2)
    private_redis.start()
    time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
    assert store.dedupe.first_time("T1", "event:after")
    store.close()


def test_slow_redis_times_out(private_redis: PrivateRedis) -> None:
    """A Redis that stops answering costs a caller about timeout_s, then StoreUnavailable."""
    store = Store(StoreConfig(url=private_redis.url, timeout_s=0.3))
    assert store.ping()
    # Paused far longer than the call may take, so a slow machine cannot see it answered.
    pause_s = 3
    with private_redis.client() as admin:
        admin.execute_command("CLIENT", "PAUSE", pause_s * 1000, "ALL")
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="Timeout"):
        store.quotas.consume("T1")
    assert time.monotonic() - started < 1.0
    deadline = started + pause_s + 10
    while not store.ping():  # each try costs timeout_s until the pause ends
        assert time.monotonic() < deadline, "not answering again after the pause"
    assert store.quotas.status("T1").used in (0, 1)  # recovered; the timed-out call may have run
    store.close()
