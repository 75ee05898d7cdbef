"""Leased claims and their index: nothing claimed can fall out of a sweeper's sight."""

from __future__ import annotations

import json
import time

import redis

from bot.store import Store
from bot.store.claims import Claims


def _pending(store: Store, redis_url: str) -> dict[str, float]:
    with redis.Redis.from_url(redis_url) as r:
        return {m.decode(): s for m, s in r.zrange(Claims.pending_key(), 0, -1, withscores=True)}


def test_a_claim_is_indexed_before_it_is_held(store: Store, redis_url: str) -> None:
    """A process killed right after its claim is held must leave an index entry: the entry is
    written first, so a held claim is always findable by a sweeper once its lease runs out."""
    with redis.Redis.from_url(redis_url) as r, r.monitor() as watch:
        claim = store.claims.claim("T1", "message:C1:1.1", {"channel": "C1"}, 0.05)
        seen = []
        while not any(c.startswith(("EVALSHA", "EVAL ")) for c in seen):
            seen.append(watch.next_command()["command"])
    assert claim is not None
    assert [c.split()[0] for c in seen if c.startswith(("ZADD", "EVAL"))][:2] == ["ZADD", "EVALSHA"]
    assert json.loads(next(iter(_pending(store, redis_url)))) == {"team_id": "T1", "key": "message:C1:1.1", "channel": "C1"}
    time.sleep(0.1)  # the owner "died": its lease runs out unrenewed
    (record,) = store.claims.expired()
    again = store.claims.claim(record["team_id"], record["key"], {"channel": "C1"}, 30)
    assert again is not None and again.taken_over


def test_an_index_entry_whose_claim_never_landed_is_claimed_by_the_sweeper(store: Store, redis_url: str) -> None:
    """The other half of the window: the entry is in, the process died before claiming. The
    sweeper's claim is then a fresh one, and the message gets answered."""
    record = {"team_id": "T1", "key": "message:C1:2.2", "channel": "C1"}
    with redis.Redis.from_url(redis_url) as r:
        r.zadd(Claims.pending_key(), {json.dumps(record, sort_keys=True): int(time.time() * 1000) - 1})
    (found,) = store.claims.expired()
    claim = store.claims.claim(found["team_id"], found["key"], {"channel": "C1"}, 30)
    assert claim is not None and not claim.taken_over


def test_a_busy_or_done_attempt_leaves_no_stale_entry(store: Store, redis_url: str) -> None:
    """A second replica's attempt on a live claim keeps the owner's deadline; once the owner is
    done, a late attempt clears the entry instead of leaving it for every sweep to re-read."""
    owner = store.claims.claim("T1", "message:C1:3.3", {"channel": "C1"}, 30)
    assert owner is not None
    before = _pending(store, redis_url)[owner.record]
    assert store.claims.claim("T1", "message:C1:3.3", {"channel": "C1"}, 0.001) is None  # busy
    assert _pending(store, redis_url)[owner.record] == before  # not moved earlier
    # The same message as another event (a mention besides the message): its own entry goes.
    assert store.claims.claim("T1", "message:C1:3.3", {"channel": "C1", "mentioned": True}, 30) is None
    assert set(_pending(store, redis_url)) == {owner.record}
    store.claims.finish(owner)
    assert store.claims.claim("T1", "message:C1:3.3", {"channel": "C1", "mentioned": True}, 30) is None  # done
    assert _pending(store, redis_url) == {}


def test_in_progress_is_a_live_lease_only(store: Store) -> None:
    """Someone is answering a message while its lease is live: not before it is claimed, not
    once it is done, not after its owner died and the lease ran out."""
    assert not store.claims.in_progress("T1", "message:C1:4.4")
    live = store.claims.claim("T1", "message:C1:4.4", {"channel": "C1"}, 30)
    assert live is not None and store.claims.in_progress("T1", "message:C1:4.4")
    store.claims.finish(live)
    assert not store.claims.in_progress("T1", "message:C1:4.4")
    assert store.claims.claim("T1", "message:C1:5.5", {"channel": "C1"}, 0.05) is not None
    time.sleep(0.1)  # the owner died: its lease ran out unrenewed
    assert not store.claims.in_progress("T1", "message:C1:5.5")
