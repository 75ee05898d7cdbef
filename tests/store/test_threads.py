"""Thread context: saved for follow-ups, with a TTL, never more than masked evidence."""

from __future__ import annotations

import json
from typing import Any

import redis

from bot.masking import mask
from bot.store import Store, StoreConfig, ThreadContext, keys
from bot.store.threads import MAX_EVIDENCE_CHARS, MAX_EVIDENCE_LINES


def context(**changes: Any) -> ThreadContext:
    """A typical diagnosis context."""
    values: dict[str, Any] = {
        "entry_ids": ["nccl-rocev2-gid-index", "nccl-watchdog-timeout"],
        "initiating_rank": 3,
        "evidence": [mask("NCCL WARN NET/IB : Got completion from peer 10.0.0.7 with error 12").text],
        "channel": "C1",
        "thread_ts": "1700000000.000100",
        "created_at": "2026-11-30T12:00:00+00:00",
        "collateral_ids": ["nccl-watchdog-timeout"],
        "collateral_ranks": [0, 1, 2],
        "confidence": "high",
    }
    values.update(changes)
    return ThreadContext(**values)


def test_save_and_load_round_trip(store: Store) -> None:
    """A saved context loads back equal."""
    store.threads.save("T1", "C1", "1700000000.000100", context())
    assert store.threads.load("T1", "C1", "1700000000.000100") == context()


def test_missing_thread_is_none(store: Store) -> None:
    """An unknown thread loads as None."""
    assert store.threads.load("T1", "C1", "1700000000.000100") is None


def test_default_ttl_is_seven_days(store: Store, redis_url: str) -> None:
    """Contexts expire after 7 days by default."""
    store.threads.save("T1", "C1", "1.1", context())
    ttl = redis.Redis.from_url(redis_url).ttl(keys.thread("T1", "C1", "1.1"))
    assert 7 * 86400 - 5 <= ttl <= 7 * 86400


def test_ttl_is_configurable(redis_url: str) -> None:
    """thread_ttl_s and the per-call ttl_s set the lifetime."""
    r = redis.Redis.from_url(redis_url)
    with Store(StoreConfig(url=redis_url, thread_ttl_s=120)) as store:
        store.threads.save("T1", "C1", "1.1", context())
        store.threads.save("T1", "C1", "1.2", context(), ttl_s=30)
    assert 115 <= r.ttl(keys.thread("T1", "C1", "1.1")) <= 120
    assert 25 <= r.ttl(keys.thread("T1", "C1", "1.2")) <= 30


def test_workspaces_and_threads_are_separate(store: Store) -> None:
    """A context belongs to one workspace, channel and thread."""
    store.threads.save("T1", "C1", "1.1", context())
    assert store.threads.load("T2", "C1", "1.1") is None
    assert store.threads.load("T1", "C2", "1.1") is None
    assert store.threads.load("T1", "C1", "1.2") is None


def test_evidence_is_capped(store: Store, redis_url: str) -> None:
    """At most MAX_EVIDENCE_LINES lines of MAX_EVIDENCE_CHARS are kept."""
    store.threads.save("T1", "C1", "1.1", context(evidence=[mask("x" * 5000).text] * 500))
    loaded = store.threads.load("T1", "C1", "1.1")
    assert loaded is not None
    assert len(loaded.evidence) == MAX_EVIDENCE_LINES
    assert {len(line) for line in loaded.evidence} == {MAX_EVIDENCE_CHARS}
    raw = redis.Redis.from_url(redis_url).get(keys.thread("T1", "C1", "1.1"))
    assert raw is not None and len(raw) < 12_000


def test_unknown_fields_from_a_newer_release_are_ignored(store: Store, redis_url: str) -> None:
    """A stored context with extra fields still loads."""
    data = {**context().__dict__, "added_later": 1}
    redis.Redis.from_url(redis_url).set(keys.thread("T1", "C1", "1.1"), json.dumps(data))
    assert store.threads.load("T1", "C1", "1.1") == context()


def test_unreadable_context_loads_as_none(store: Store, redis_url: str) -> None:
    """A corrupt value is treated as no context, not as a crash."""
    redis.Redis.from_url(redis_url).set(keys.thread("T1", "C1", "1.1"), "{not json")
    assert store.threads.load("T1", "C1", "1.1") is None


def test_rank_basis_is_kept(store: Store) -> None:
    """The matcher's reason for the initiating rank loads back as saved."""
    ctx = context(rank_basis="launcher_first_failure+host_offset")
    store.threads.save("T1", "C1", "1.1", ctx)
    loaded = store.threads.load("T1", "C1", "1.1")
    assert loaded is not None and loaded.rank_basis == "launcher_first_failure+host_offset"


def test_a_record_saved_before_rank_basis_loads_without_it(store: Store, redis_url: str) -> None:
    data = {k: v for k, v in context().__dict__.items() if k != "rank_basis"}
    redis.Redis.from_url(redis_url).set(keys.thread("T1", "C1", "1.1"), json.dumps(data))
    loaded = store.threads.load("T1", "C1", "1.1")
    assert loaded == context() and loaded.rank_basis is None


def test_a_rank_basis_that_is_not_the_matchers_word_is_not_kept(store: Store, redis_url: str) -> None:
    """Only the matcher's vocabulary is kept: text from anywhere else (a log's) is dropped."""
    store.threads.save("T1", "C1", "1.1", context(rank_basis="rank 3 on node gpu-a100-17"))
    assert json.loads(redis.Redis.from_url(redis_url).get(keys.thread("T1", "C1", "1.1")))["rank_basis"] is None
    data = {**context().__dict__, "rank_basis": "host alice-laptop: 3"}
    redis.Redis.from_url(redis_url).set(keys.thread("T1", "C1", "1.2"), json.dumps(data))
    assert store.threads.load("T1", "C1", "1.2").rank_basis is None
