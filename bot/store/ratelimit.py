"""Sliding-window rate limits per workspace, optionally per user."""

from __future__ import annotations

import secrets

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.clock import UtcClock, to_epoch

# Admits one hit if fewer than `limit` hits fall in the last `window` milliseconds. A sliding
# log (one sorted-set member per admitted hit) has no burst at window edges, and stays small
# because it never holds more than `limit` members. A refused hit is not recorded, so a
# caller that keeps hammering gets in again once its old hits age out.
# KEYS[1]  the bucket's recent hits (sorted set: unique member -> time in ms)
# ARGV[1]  now, epoch milliseconds
# ARGV[2]  window, milliseconds
# ARGV[3]  limit: hits admitted per window
# ARGV[4]  a unique member for this hit
# Returns 1 if the hit is admitted, 0 if not.
_ALLOW_LUA = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""


# How many hits of one bucket fall in the last `window` milliseconds (nothing is recorded).
# KEYS[1]  the bucket's recent hits  ARGV[1] now, epoch ms  ARGV[2] window, ms
# Returns the count.
_COUNT_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
return redis.call('ZCARD', KEYS[1])
"""

# Records one hit whatever the count (a wrong guess already made is counted, never refused).
# KEYS[1]  the bucket's recent hits  ARGV[1] now, epoch ms  ARGV[2] window, ms
# ARGV[3]  a unique member for this hit
# Returns the count after the hit.
_RECORD_LUA = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
"""


class RateLimit:
    """Atomic sliding-window limits, keyed by workspace, action and (optionally) user."""

    def __init__(self, client: RedisClient, clock: UtcClock) -> None:
        self._client = client
        self._clock = clock
        self._allow = client.script(_ALLOW_LUA)
        self._count = client.script(_COUNT_LUA)
        self._record = client.script(_RECORD_LUA)

    @guarded
    def allow(
        self, team_id: str, user_id: str | None, action: str, limit: int, window_s: int
    ) -> bool:
        """Record one `action` and say whether it is within `limit` per `window_s` seconds.

        `user_id=None` counts the whole workspace in one bucket. A refused call is not counted.
        """
        if limit < 0 or window_s <= 0:
            raise ValueError("limit must be >= 0 and window_s > 0")
        now_ms = int(to_epoch(self._clock.now()) * 1000)
        admitted = self._allow(
            keys=[keys.ratelimit(team_id, action, user_id)],
            args=[now_ms, int(window_s * 1000), limit, f"{now_ms}-{secrets.token_hex(6)}"],
        )
        return bool(admitted)

    @guarded
    def count(self, team_id: str, user_id: str | None, action: str, window_s: int) -> int:
        """How many `action` hits the bucket holds from the last `window_s` seconds."""
        if window_s <= 0:
            raise ValueError("window_s must be > 0")
        now_ms = int(to_epoch(self._clock.now()) * 1000)
        return int(self._count(keys=[keys.ratelimit(team_id, action, user_id)], args=[now_ms, int(window_s * 1000)]))

    @guarded
    def record(self, team_id: str, user_id: str | None, action: str, window_s: int) -> int:
        """Count one `action` hit unconditionally; return the bucket's count with it."""
        if window_s <= 0:
            raise ValueError("window_s must be > 0")
        now_ms = int(to_epoch(self._clock.now()) * 1000)
        return int(self._record(
            keys=[keys.ratelimit(team_id, action, user_id)],
            args=[now_ms, int(window_s * 1000), f"{now_ms}-{secrets.token_hex(6)}"],
        ))
