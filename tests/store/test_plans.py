"""Plans: grant, read, expire back to free."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import redis

from bot.store import Store, keys

from .conftest import FakeClock


def test_workspace_without_plan_is_free(store: Store) -> None:
    """No grant means the free plan with no expiry."""
    assert store.plans.get("T1") == ("free", None)


def test_grant_then_get(store: Store, clock: FakeClock) -> None:
    """A granted plan reads back with its expiry."""
    until = clock.now + timedelta(days=14)
    assert store.plans.grant("T1", "scale", until) == ("scale", until)
    plan, expires_at = store.plans.get("T1")
    assert (plan, expires_at) == ("scale", until)


def test_expired_plan_reads_as_free(store: Store, clock: FakeClock) -> None:
    """After its expiry a plan reads as free, even before Redis drops the record."""
    store.plans.grant("T1", "scale", clock.now + timedelta(days=14))
    clock.advance(days=14)
    assert store.plans.get("T1") == ("free", None)


def test_plan_record_has_a_ttl(store: Store, clock: FakeClock, redis_url: str) -> None:
    """The plan key expires in Redis when the plan does."""
    store.plans.grant("T1", "scale", clock.now + timedelta(days=2))
    ttl = redis.Redis.from_url(redis_url).ttl(keys.plan("T1"))
    assert 2 * 86400 - 5 <= ttl <= 2 * 86400


def test_keep_later_does_not_shorten(store: Store, clock: FakeClock) -> None:
    """A grant with keep_later keeps an existing later expiry of the same plan."""
    later = clock.now + timedelta(days=20)
    store.plans.grant("T1", "scale", later)
    kept = store.plans.grant("T1", "scale", clock.now + timedelta(days=5), keep_later=True)
    assert kept.expires_at == later
    exact = store.plans.grant("T1", "scale", clock.now + timedelta(days=5))
    assert exact.expires_at == clock.now + timedelta(days=5)


def test_revoke_returns_to_free(store: Store, clock: FakeClock) -> None:
    """revoke() puts the workspace back on the free plan."""
    store.plans.grant("T1", "scale", clock.now + timedelta(days=1))
    store.plans.revoke("T1")
    assert store.plans.get("T1").plan == "free"


@pytest.mark.parametrize(
    ("plan", "until", "message"),
    [
        ("free", datetime(2027, 1, 1, tzinfo=UTC), "plan must be one of scale"),
        ("gold", datetime(2027, 1, 1, tzinfo=UTC), "plan must be one of scale"),
        ("scale", datetime(2026, 1, 1, tzinfo=UTC), "must be in the future"),
        ("scale", datetime(2027, 1, 1), "aware"),
    ],
)
def test_bad_grants_are_refused(store: Store, plan: str, until: datetime, message: str) -> None:
    """Unknown or free plans, past and naive expiries are refused with a clear message."""
    with pytest.raises(ValueError, match=message):
        store.plans.grant("T1", plan, until)
