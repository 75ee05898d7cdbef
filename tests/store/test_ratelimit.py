"""Sliding-window rate limits."""

from __future__ import annotations

import threading

import pytest

from bot.store import Store

from .conftest import FakeClock


def test_limit_then_refuse(store: Store) -> None:
    """`limit` calls pass within the window; the next is refused."""
    results = [store.ratelimit.allow("T1", "U1", "lookup", 3, 60) for _ in range(4)]
    assert results == [True, True, True, False]


def test_window_slides(store: Store, clock: FakeClock) -> None:
    """Hits older than the window stop counting, one by one."""
    store.ratelimit.allow("T1", "U1", "lookup", 2, 60)
    clock.advance(seconds=30)
    store.ratelimit.allow("T1", "U1", "lookup", 2, 60)
    assert store.ratelimit.allow("T1", "U1", "lookup", 2, 60) is False
    clock.advance(seconds=30)  # the first hit is now a full window old
    assert store.ratelimit.allow("T1", "U1", "lookup", 2, 60) is True
    assert store.ratelimit.allow("T1", "U1", "lookup", 2, 60) is False


def test_buckets_are_separate(store: Store) -> None:
    """Users, actions, workspaces and the workspace-wide bucket count separately."""
    assert store.ratelimit.allow("T1", "U1", "a", 1, 60)
    assert store.ratelimit.allow("T1", "U2", "a", 1, 60)
    assert store.ratelimit.allow("T1", "U1", "b", 1, 60)
    assert store.ratelimit.allow("T2", "U1", "a", 1, 60)
    assert store.ratelimit.allow("T1", None, "a", 1, 60)
    assert not store.ratelimit.allow("T1", "U1", "a", 1, 60)


def test_concurrent_callers_get_exactly_the_limit(store: Store) -> None:
    """50 simultaneous calls against a limit of 5 admit exactly 5."""
    barrier = threading.Barrier(50)
    results: list[bool] = []

    def call() -> None:
        barrier.wait()
        results.append(store.ratelimit.allow("T1", "U1", "redeem", 5, 600))

    threads = [threading.Thread(target=call) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 5


def test_bad_arguments(store: Store) -> None:
    """A non-positive window is refused."""
    with pytest.raises(ValueError):
        store.ratelimit.allow("T1", "U1", "a", 1, 0)
