"""Daily quotas: limits per plan, atomic consumption, refunds, UTC day rollover."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta

import redis

from bot.store import Store, StoreConfig, keys

from .conftest import FakeClock


def consume_concurrently(store: Store, team_id: str, callers: int) -> list[bool]:
    """Run `callers` consumes at once from as many threads; return who was allowed."""
    barrier = threading.Barrier(callers)
    results: list[bool] = []
    lock = threading.Lock()

    def one() -> None:
        barrier.wait()
        allowed = store.quotas.consume(team_id).allowed
        with lock:
            results.append(allowed)

    threads = [threading.Thread(target=one) for _ in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_free_workspace_gets_three_a_day(store: Store) -> None:
    """A workspace with no plan may diagnose 3 times a day; the 4th is refused."""
    outcomes = [store.quotas.consume("T1") for _ in range(4)]
    assert [o.allowed for o in outcomes] == [True, True, True, False]
    last = outcomes[-1].status
    assert (last.plan, last.daily_limit, last.used, last.remaining) == ("free", 3, 3, 0)


def test_status_reads_without_consuming(store: Store) -> None:
    """status() reports plan, usage and reset time and never changes usage."""
    store.quotas.consume("T1")
    first = store.quotas.status("T1")
    second = store.quotas.status("T1")
    assert first == second
    assert (first.used, first.remaining, first.plan_expires_at) == (1, 2, None)
    assert first.resets_at == datetime(2026, 12, 1, tzinfo=UTC)


def test_fifty_concurrent_consumers_against_three_remaining(store: Store) -> None:
    """50 simultaneous consumes against 3 remaining give exactly 3 successes."""
    results = consume_concurrently(store, "T1", 50)
    assert results.count(True) == 3
    assert store.quotas.status("T1").used == 3


def test_concurrent_consumers_across_replicas(config: StoreConfig, clock: FakeClock) -> None:
    """Separate Store objects (as separate replicas) share one atomic quota."""
    replicas = [Store(config, clock=clock) for _ in range(5)]
    barrier = threading.Barrier(50)
    results: list[bool] = []

    def one(i: int) -> None:
        barrier.wait()
        results.append(replicas[i % 5].quotas.consume("T1").allowed)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 3
    for r in replicas:
        r.close()


def test_scale_plan_gets_fifty(store: Store, clock: FakeClock) -> None:
    """A workspace on the scale plan may diagnose 50 times a day."""
    store.plans.grant("T1", "scale", clock.now + timedelta(days=14))
    allowed = [store.quotas.consume("T1").allowed for _ in range(51)]
    assert allowed.count(True) == 50 and allowed[-1] is False
    status = store.quotas.status("T1")
    assert (status.plan, status.daily_limit) == ("scale", 50)
    assert status.plan_expires_at == clock.now + timedelta(days=14)


def test_limits_are_configurable(redis_url: str, clock: FakeClock) -> None:
    """free_daily and scale_daily set the limits."""
    with Store(StoreConfig(url=redis_url, free_daily=1, scale_daily=2), clock=clock) as store:
        assert [store.quotas.consume("T1").allowed for _ in range(2)] == [True, False]
        store.plans.grant("T2", "scale", clock.now + timedelta(days=1))
        assert [store.quotas.consume("T2").allowed for _ in range(3)] == [True, True, False]


def test_usage_resets_at_utc_midnight(store: Store, clock: FakeClock) -> None:
    """Usage starts again at 00:00 UTC; resets_at names that moment."""
    clock.now = datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC)
    for _ in range(3):
        store.quotas.consume("T1")
    assert store.quotas.consume("T1").allowed is False
    assert store.quotas.status("T1").resets_at == datetime(2026, 12, 1, tzinfo=UTC)
    clock.advance(seconds=1)
    result = store.quotas.consume("T1")
    assert result.allowed is True
    assert result.status.used == 1
    assert result.status.resets_at == datetime(2026, 12, 2, tzinfo=UTC)
    assert result.day == date(2026, 12, 1)


def test_non_utc_clock_is_read_as_utc(redis_url: str) -> None:
    """A clock in another zone still counts UTC days."""
    tz = datetime(2026, 12, 1, 1, 0, tzinfo=UTC).astimezone().tzinfo
    local = datetime(2026, 11, 30, 23, 30, tzinfo=UTC).astimezone(tz)
    with Store(StoreConfig(url=redis_url), clock=lambda: local) as store:
        assert store.quotas.consume("T1").day == date(2026, 11, 30)


def test_quota_key_expires_shortly_after_the_day(store: Store, redis_url: str) -> None:
    """A day's counter lives until midnight plus the grace period, then goes."""
    store.quotas.consume("T1")
    ttl = redis.Redis.from_url(redis_url).ttl(keys.quota("T1", date(2026, 11, 30)))
    # 12:00 -> midnight is 12 h; grace 1 h.
    assert 13 * 3600 - 5 <= ttl <= 13 * 3600


def test_refund_gives_back_one(store: Store) -> None:
    """A refund undoes one consume, so an undelivered diagnosis costs nothing."""
    for _ in range(3):
        store.quotas.consume("T1")
    store.quotas.refund("T1")
    assert store.quotas.status("T1").remaining == 1
    assert store.quotas.consume("T1").allowed is True


def test_refund_never_goes_below_zero(store: Store) -> None:
    """Refunding more than was consumed leaves usage at 0."""
    store.quotas.refund("T1")
    store.quotas.consume("T1")
    store.quotas.refund("T1")
    store.quotas.refund("T1")
    assert store.quotas.status("T1").used == 0


def test_refund_lands_on_the_charged_day_across_midnight(store: Store, clock: FakeClock) -> None:
    """A refund passed ConsumeResult.day credits that day, even after midnight."""
    clock.now = datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC)
    charged = store.quotas.consume("T1")
    clock.advance(seconds=2)
    store.quotas.consume("T1")
    store.quotas.refund("T1", charged.day)
    assert store.quotas.status("T1").used == 1  # today's consume untouched
    clock.now = datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC)
    assert store.quotas.status("T1").used == 0


def test_expired_plan_falls_back_to_free_limit(store: Store, clock: FakeClock) -> None:
    """Once the plan's expiry passes, the workspace has the free limit again."""
    store.plans.grant("T1", "scale", clock.now + timedelta(hours=1))
    for _ in range(5):
        assert store.quotas.consume("T1").allowed
    clock.advance(hours=1)
    result = store.quotas.consume("T1")
    assert result.allowed is False
    assert (result.status.plan, result.status.daily_limit, result.status.remaining) == (
        "free",
        3,
        0,
    )
    assert result.status.plan_expires_at is None


def test_workspaces_have_separate_quotas(store: Store) -> None:
    """Using up one workspace's quota leaves another's untouched."""
    for _ in range(3):
        store.quotas.consume("T1")
    assert store.quotas.consume("T1").allowed is False
    assert store.quotas.consume("T2").allowed is True
    assert store.quotas.status("T2").used == 1
