"""Claims with a lease: who is answering a message, until when, and what is left unanswered.

A replica that takes a message claims it for a lease (DENPEX_CLAIM_LEASE_S) and renews the
lease while it works; a finished claim is marked done and stays, as a dedupe marker, for
StoreConfig.dedupe_ttl_s. A claim whose lease ran out (its process died, or was restarted)
may be taken over by anyone, once: the pending index lists open claims by lease deadline, so
any replica's sweeper finds them. The index holds only where the message is (workspace,
channel, ts, file ids), never its text.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.config import StoreConfig

# Claims a message, or takes over a claim whose lease ran out.
# KEYS[1]  the claim (hash: state lease|done, owner, deadline in epoch ms)
# ARGV[1]  owner token  ARGV[2] now (ms)  ARGV[3] lease (ms)  ARGV[4] TTL of the claim (s)
# ARGV[5]  the caller's pending-index member (kept with the claim)
# Returns 'claimed' (new), 'taken' (over from an expired lease), 'done', or for a live lease
# 'busy' (the owner's index member is the caller's) or 'busy-other' (the caller's is another).
_CLAIM_LUA = """
local now = tonumber(ARGV[2])
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  redis.call('HSET', KEYS[1], 'state', 'lease', 'owner', ARGV[1], 'deadline', now + tonumber(ARGV[3]), 'record', ARGV[5])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  return 'claimed'
end
if state == 'done' then
  return 'done'
end
if tonumber(redis.call('HGET', KEYS[1], 'deadline')) < now then
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'deadline', now + tonumber(ARGV[3]), 'record', ARGV[5])
  return 'taken'
end
local record = redis.call('HGET', KEYS[1], 'record')
if record and record ~= ARGV[5] then
  return 'busy-other'
end
return 'busy'
"""

# Extends the owner's lease. KEYS[1] the claim. ARGV[1] owner  ARGV[2] new deadline (ms)
# Returns 1 when renewed, 0 when the claim is not (or no longer) the owner's lease.
_RENEW_LUA = """
if redis.call('HGET', KEYS[1], 'state') ~= 'lease' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'deadline', ARGV[2])
return 1
"""

# Marks the owner's claim done. KEYS[1] the claim. ARGV[1] owner. Returns 1 when done by it.
_FINISH_LUA = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'state', 'done')
return 1
"""


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Claim:
    team_id: str
    key: str  # e.g. message:C0123:1700000000.000100
    owner: str
    record: str  # the pending-index member: JSON of where the message is
    taken_over: bool = False

    @property
    def where(self) -> dict[str, Any]:
        return json.loads(self.record)


class Claims:
    """Leased claims on messages, and the index of open ones."""

    def __init__(self, client: RedisClient, config: StoreConfig) -> None:
        self._client = client
        self._config = config
        self._claim = client.script(_CLAIM_LUA)
        self._renew = client.script(_RENEW_LUA)
        self._finish = client.script(_FINISH_LUA)

    @staticmethod
    def _key(team_id: str, key: str) -> str:
        return keys.dedupe(team_id, f"claim:{key}")

    @staticmethod
    def pending_key() -> str:
        """Open claims of every workspace, scored by lease deadline (one global sorted set)."""
        return f"{keys.PREFIX}:{{claims}}:pending"

    @guarded
    def claim(self, team_id: str, key: str, where: dict[str, Any], lease_s: float) -> Claim | None:
        """Claim `key` for `lease_s`; None when it is done or someone holds a live lease."""
        owner = secrets.token_hex(8)
        record = json.dumps({"team_id": team_id, "key": key, **where}, sort_keys=True)
        # The claim and the index live in different cluster slots, so they cannot be written
        # in one script. The index entry goes in first: a process killed between the two
        # writes leaves an entry that a sweeper claims and answers, never a held claim that no
        # sweeper can find. GT: a busy attempt never moves a live owner's deadline earlier.
        self._client.redis.zadd(self.pending_key(), {record: _now_ms() + int(lease_s * 1000)}, gt=True)
        result = self._claim(keys=[self._key(team_id, key)],
                             args=[owner, _now_ms(), int(lease_s * 1000), self._config.dedupe_ttl_s, record])
        if result in ("done", "busy-other"):  # answered, or the owner keeps its own entry
            self._client.redis.zrem(self.pending_key(), record)
        if result not in ("claimed", "taken"):
            return None
        return Claim(team_id, key, owner, record, taken_over=result == "taken")

    @guarded
    def renew(self, claim: Claim, lease_s: float) -> bool:
        deadline = _now_ms() + int(lease_s * 1000)
        if not self._renew(keys=[self._key(claim.team_id, claim.key)], args=[claim.owner, deadline]):
            return False
        self._client.redis.zadd(self.pending_key(), {claim.record: deadline})
        return True

    @guarded
    def finish(self, claim: Claim) -> None:
        """The message is answered (or needs no answer): done, and out of the index."""
        self._finish(keys=[self._key(claim.team_id, claim.key)], args=[claim.owner])
        self._client.redis.zrem(self.pending_key(), claim.record)

    @guarded
    def in_progress(self, team_id: str, key: str) -> bool:
        """Is someone answering `key` right now (a live lease, not yet done)?"""
        state, deadline = self._client.redis.hmget(self._key(team_id, key), "state", "deadline")
        return state == "lease" and deadline is not None and int(deadline) >= _now_ms()

    @guarded
    def expired(self, limit: int = 10) -> list[dict[str, Any]]:
        """Open claims whose lease ran out, oldest first (the records, to claim again)."""
        raw = self._client.redis.zrangebyscore(self.pending_key(), 0, _now_ms(), start=0, num=limit)
        out = []
        for item in raw:
            text = item.decode() if isinstance(item, bytes) else item
            try:
                out.append(json.loads(text))
            except ValueError:
                self._client.redis.zrem(self.pending_key(), item)
        return out

    @guarded
    def drop(self, record: dict[str, Any]) -> None:
        """Take a record out of the index (done elsewhere, or no longer answerable)."""
        self._client.redis.zrem(self.pending_key(), json.dumps(record, sort_keys=True))
