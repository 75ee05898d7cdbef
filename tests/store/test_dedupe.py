"""Event dedupe: the first caller wins, atomically, for a while."""

from __future__ import annotations

import threading
import time

import pytest
import redis

from bot.store import Store, keys


def test_first_time_then_repeat(store: Store) -> None:
    """The first mark of a key is True, every later one False."""
    assert store.dedupe.first_time("T1", "event:Ev1") is True
    assert store.dedupe.first_time("T1", "event:Ev1") is False
    assert store.dedupe.first_time("T1", "event:Ev2") is True


def test_seen_reads_a_mark_without_making_one(store: Store) -> None:
    """`seen` tells a marked key from an unmarked one and marks nothing itself."""
    assert store.dedupe.seen("T1", "deleted:C1:1.1") is False
    assert store.dedupe.seen("T1", "deleted:C1:1.1") is False
    assert store.dedupe.first_time("T1", "deleted:C1:1.1") is True
    assert store.dedupe.seen("T1", "deleted:C1:1.1") is True
    assert store.dedupe.seen("T2", "deleted:C1:1.1") is False


def test_concurrent_repeats_have_one_winner(store: Store) -> None:
    """50 simultaneous deliveries of one event: exactly one is first."""
    barrier = threading.Barrier(50)
    results: list[bool] = []

    def deliver() -> None:
        barrier.wait()
        results.append(store.dedupe.first_time("T1", "event:Ev1"))

    threads = [threading.Thread(target=deliver) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 1


def test_markers_expire(store: Store, redis_url: str) -> None:
    """Markers carry the default TTL (1 hour) or the one given."""
    r = redis.Redis.from_url(redis_url)
    store.dedupe.first_time("T1", "event:Ev1")
    store.dedupe.first_time("T1", "msg:C1:1700000000.000100", ttl_s=60)
    assert 3595 <= r.ttl(keys.dedupe("T1", "event:Ev1")) <= 3600
    assert 55 <= r.ttl(keys.dedupe("T1", "msg:C1:1700000000.000100")) <= 60


def test_expired_marker_allows_again(store: Store, redis_url: str) -> None:
    """After the TTL a key is first-time again."""
    store.dedupe.first_time("T1", "event:Ev1", ttl_s=1)
    # Shorten the TTL to 1 ms rather than sleep a whole second.
    redis.Redis.from_url(redis_url).pexpire(keys.dedupe("T1", "event:Ev1"), 1)
    time.sleep(0.02)
    assert store.dedupe.first_time("T1", "event:Ev1") is True


def test_forget_lets_a_redelivery_through(store: Store) -> None:
    """forget() drops the marker, so a retry of failed work is processed."""
    store.dedupe.first_time("T1", "event:Ev1")
    store.dedupe.forget("T1", "event:Ev1")
    assert store.dedupe.first_time("T1", "event:Ev1") is True


def test_workspaces_are_separate(store: Store) -> None:
    """The same event id in two workspaces is first-time in each."""
    assert store.dedupe.first_time("T1", "event:Ev1")
    assert store.dedupe.first_time("T2", "event:Ev1")


def test_bad_keys_are_refused(store: Store) -> None:
    """Empty keys, keys with whitespace and non-positive TTLs raise ValueError."""
    for bad in ("", "has space", "x" * 201):
        with pytest.raises(ValueError):
            store.dedupe.first_time("T1", bad)
    with pytest.raises(ValueError):
        store.dedupe.first_time("T1", "event:Ev1", ttl_s=0)
