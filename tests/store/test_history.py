"""Diagnosis history: newest first, per workspace, 30 days, capped, never any log text."""

from __future__ import annotations

import json

import pytest
import redis

from bot.store import Store, StoreConfig, keys

from .conftest import FakeClock


def test_recent_lists_newest_first(store: Store, clock: FakeClock) -> None:
    """Recorded diagnoses come back newest first, with when, channel, entry, confidence, rank."""
    store.history.record("T1", "C1", "cuda-oom", "CUDA Out of Memory", "high", 3)
    clock.advance(minutes=5)
    store.history.record("T1", "C2", "nccl-watchdog-timeout", "NCCL watchdog timeout", "medium", None)
    recent = store.history.recent("T1", 10)
    assert [(e.entry_id, e.channel, e.confidence, e.initiating_rank) for e in recent] == [
        ("nccl-watchdog-timeout", "C2", "medium", None),
        ("cuda-oom", "C1", "high", 3),
    ]
    assert recent[0].when == clock.now and recent[1].title == "CUDA Out of Memory"


def test_recent_returns_at_most_n(store: Store, clock: FakeClock) -> None:
    """`n` bounds the list (3 for the free plan's Home tab)."""
    for i in range(5):
        store.history.record("T1", "C1", f"rule-{i}", f"Rule {i}", "low")
        clock.advance(seconds=1)
    assert [e.entry_id for e in store.history.recent("T1", 3)] == ["rule-4", "rule-3", "rule-2"]


def test_entries_older_than_30_days_are_gone(store: Store, clock: FakeClock, redis_url: str) -> None:
    """Past 30 days an entry is neither listed nor kept; the key expires with the last one."""
    store.history.record("T1", "C1", "old-rule", "Old", "high")
    clock.advance(days=29)
    store.history.record("T1", "C1", "new-rule", "New", "high")
    assert [e.entry_id for e in store.history.recent("T1", 10)] == ["new-rule", "old-rule"]
    clock.advance(days=2)
    assert [e.entry_id for e in store.history.recent("T1", 10)] == ["new-rule"]
    store.history.record("T1", "C1", "newest", "Newest", "low")
    r = redis.Redis.from_url(redis_url)
    assert r.zcard(keys.history("T1")) == 2
    assert 30 * 86400 - 5 <= r.ttl(keys.history("T1")) <= 30 * 86400


def test_history_is_capped(redis_url: str, clock: FakeClock) -> None:
    """At most history_max entries are kept; the oldest go first."""
    with Store(StoreConfig(url=redis_url, history_max=4), clock) as store:
        for i in range(7):
            store.history.record("T1", "C1", f"rule-{i}", "R", "low")
            clock.advance(seconds=1)
        assert [e.entry_id for e in store.history.recent("T1", 10)] == ["rule-6", "rule-5", "rule-4", "rule-3"]


def test_workspaces_have_separate_histories(store: Store) -> None:
    """One workspace never sees another's diagnoses."""
    store.history.record("T1", "C1", "rule-a", "A", "high")
    store.history.record("T2", "C9", "rule-b", "B", "low")
    assert [e.entry_id for e in store.history.recent("T1", 10)] == ["rule-a"]
    assert [e.entry_id for e in store.history.recent("T2", 10)] == ["rule-b"]


def test_records_hold_only_the_listed_fields(store: Store, redis_dump) -> None:
    """A record is when, channel, entry id, title, confidence and rank: no text, no user."""
    store.history.record("T1", "C1", "cuda-oom", "CUDA   Out of\nMemory" + "x" * 500, "high", 0)
    ((member, _score),) = redis_dump()[keys.history("T1")]
    data = json.loads(member)
    assert set(data) == {"when", "channel", "entry_id", "title", "confidence", "initiating_rank", "n"}
    assert data["title"].startswith("CUDA Out of Memory") and len(data["title"]) == 150
    assert store.history.recent("T1", 1)[0].initiating_rank == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("C 1", "rule", "T", "high"), "channel"),
        (("C1", "rule", "T", "sure"), "confidence"),
        (("C1", "rule", "T", "high", "3"), "initiating_rank"),
    ],
)
def test_bad_records_are_refused(store: Store, args: tuple, message: str) -> None:
    """A malformed channel, confidence or rank is refused before anything is written."""
    with pytest.raises(ValueError, match=message):
        store.history.record("T1", *args)


def test_unreadable_records_are_skipped(store: Store, redis_url: str) -> None:
    """A corrupt member is skipped, the rest still listed."""
    store.history.record("T1", "C1", "rule-a", "A", "high")
    redis.Redis.from_url(redis_url).zadd(keys.history("T1"), {"{not json": 1e15})
    assert [e.entry_id for e in store.history.recent("T1", 10)] == ["rule-a"]


def test_a_private_diagnosis_is_listed_only_to_who_asked(store: Store, clock: FakeClock) -> None:
    """Public channels' diagnoses are listed to everyone; one from a DM or private channel only
    to its asker, and one with no known asker to nobody; others' do not use up the count."""
    for channel, entry, audience in (("C0PUBLIC", "rule-public", None), ("D0ALICE", "rule-alice", "U0ALICE"),
                                     ("G0SECRET", "rule-nobody", ""), ("D0BOB", "rule-bob", "U0BOB")):
        store.history.record("T1", channel, entry, "Title", "high", audience=audience)
        clock.advance(minutes=1)
    assert [e.entry_id for e in store.history.recent("T1", 10, viewer="U0ALICE")] == ["rule-alice", "rule-public"]
    assert [e.entry_id for e in store.history.recent("T1", 1, viewer="U0ALICE")] == ["rule-alice"]
    assert [e.entry_id for e in store.history.recent("T1", 1, viewer="U0CAROL")] == ["rule-public"]
    assert [e.entry_id for e in store.history.recent("T1", 10)] == ["rule-public"]
