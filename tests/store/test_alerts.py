"""Ingest tokens and per-job alert records (bot.store.alerts) on a real Redis."""

from __future__ import annotations

from bot.store import Store
from bot.store.alerts import PENDING_S

from .conftest import FakeClock


def test_a_token_is_kept_only_as_its_hash(store: Store, redis_dump) -> None:
    """Shown once: no key or value holds the token or its secret part."""
    token = store.alerts.connect("T1", "C1", "U1")
    assert token.startswith("dpx1.T1.")
    dump = repr(redis_dump())
    assert token.rsplit(".", 1)[1] not in dump


def test_unknown_malformed_revoked_and_edited_tokens_are_told_apart(store: Store) -> None:
    token = store.alerts.connect("T1", "C1", "U1")
    assert store.alerts.check(token).state == "ok"
    assert store.alerts.check("not a token").state == "malformed"
    assert store.alerts.check(token.replace("dpx1.T1.", "dpx1.T2.")).state == "unknown"  # another workspace's slot
    assert store.alerts.revoke("T1", "C1")
    assert store.alerts.check(token).state == "revoked"
    assert not store.alerts.revoke("T1", "C1")


def test_one_token_per_channel(store: Store) -> None:
    first = store.alerts.connect("T1", "C1", "U1")
    second = store.alerts.connect("T1", "C1", "U2")
    store.alerts.connect("T1", "C2", "U1")
    assert store.alerts.check(first).state == "revoked" and store.alerts.check(second).state == "ok"
    assert store.alerts.channels("T1") == ["C1", "C2"]


def test_a_claim_blocks_a_second_poster_until_posted_released_or_stale(store: Store, clock: FakeClock) -> None:
    """Two requests for the same alert of a job: one posts, the other waits; a crashed poster's
    claim runs out after PENDING_S."""
    assert store.alerts.claim("T1", "job", "alert:x").state == "new"
    assert store.alerts.claim("T1", "job", "alert:x").state == "pending"
    store.alerts.release("T1", "job", "alert:x")
    assert store.alerts.claim("T1", "job", "alert:x").state == "new"
    clock.advance(seconds=PENDING_S + 1)
    assert store.alerts.claim("T1", "job", "alert:x").state == "new"
    store.alerts.posted("T1", "job", "alert:x", "C1", "1.5")
    claim = store.alerts.claim("T1", "job", "final:x")
    assert claim.state == "new" and claim.first_ts == "1.5" and claim.channel == "C1"
    assert store.alerts.claim("T1", "job", "alert:x").state == "posted"


def test_a_job_is_charged_once(store: Store) -> None:
    assert store.alerts.charge_once("T1", "job")
    assert not store.alerts.charge_once("T1", "job")
    store.alerts.uncharge("T1", "job")
    assert store.alerts.charge_once("T1", "job")


def test_a_nonce_is_accepted_once(store: Store) -> None:
    assert store.alerts.first_use_of("T1", "0" * 32)
    assert not store.alerts.first_use_of("T1", "0" * 32)
    assert store.alerts.first_use_of("T2", "0" * 32)  # per workspace
