"""The store runs unchanged on Redis Cluster: every multi-key script stays in one slot."""

from __future__ import annotations

from datetime import timedelta

import pytest
from redis.crc import key_slot

from bot.store import Store, StoreConfig, StoreUnavailable, ThreadContext

from .conftest import FakeClock, PrivateRedis


def test_every_operation_works_on_a_cluster(cluster_redis: PrivateRedis, clock: FakeClock) -> None:
    """Quotas, plans, codes, dedupe, threads, feedback, unmatched and limits run on a cluster."""
    store = Store(StoreConfig(url=cluster_redis.url, cluster=True), clock)
    assert store.ping()
    assert [store.quotas.consume("T1").allowed for _ in range(4)] == [True] * 3 + [False]
    store.quotas.refund("T1")
    (code,) = store.codes.create("scale", 14)
    assert store.codes.redeem("T1", "U1", code).ok
    assert store.codes.redeem("T2", "U1", code).reason == "already_used"
    assert store.quotas.status("T1").daily_limit == 50
    store.plans.grant("T2", "scale", clock.now + timedelta(days=1))
    assert store.dedupe.first_time("T1", "event:Ev1")
    assert not store.dedupe.first_time("T1", "event:Ev1")
    ctx = ThreadContext(["rule-a"], 1, ["line"], "C1", "1.1", "2026-11-30T12:00:00+00:00")
    store.threads.save("T1", "C1", "1.1", ctx)
    assert store.threads.load("T1", "C1", "1.1") == ctx
    store.feedback.vote("T1", "rule-a", "U1", True, "C1:1.1")
    store.feedback.vote("T2", "rule-a", "U1", False, "C1:1.1")
    assert [(r.right, r.wrong) for r in store.feedback.summary()] == [(1, 1)]
    store.unmatched.record("T1", "Segfault 3")
    assert store.unmatched.top(1) == [("Segfault <N>", 1)]
    assert store.ratelimit.allow("T1", None, "x", 1, 60)
    team_keys = store.workspace_keys("T1")
    assert len(team_keys) > 5
    assert len({key_slot(k.encode()) for k in team_keys}) == 1
    store.close()


def test_cluster_down_is_store_unavailable(cluster_redis: PrivateRedis) -> None:
    """A cluster that cannot be reached raises StoreUnavailable, and recovers."""
    store = Store(StoreConfig(url=cluster_redis.url, cluster=True))
    assert store.quotas.consume("T1").allowed
    cluster_redis.stop()
    with pytest.raises(StoreUnavailable):
        store.quotas.consume("T1")
    assert store.ping() is False
    store.close()
