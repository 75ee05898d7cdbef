"""Daily diagnosis quotas per workspace: read, consume atomically, refund.

The bot consumes one diagnosis just before posting it and refunds it if posting fails, so a
diagnosis the user never received costs nothing. Days are UTC; a day's counter expires a
little after the day ends (StoreConfig.quota_grace_s) so a refund right after midnight lands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.clock import UtcClock, day_end, day_of, from_epoch, to_epoch
from bot.store.config import Plan, StoreConfig


@dataclass(frozen=True)
class QuotaStatus:
    """Where a workspace stands today."""

    plan: str
    daily_limit: int
    used: int
    remaining: int
    resets_at: datetime  # next UTC midnight
    plan_expires_at: datetime | None  # None on the free plan


@dataclass(frozen=True)
class ConsumeResult:
    """Outcome of one consume; `day` is the UTC day charged, for an exact refund."""

    allowed: bool
    status: QuotaStatus
    day: date


# Reads the workspace's plan and today's usage and, in "consume" mode, takes one diagnosis
# if any is left; one script so that check and increment cannot interleave between callers.
# KEYS[1]  today's usage counter of the workspace (string integer; absent means 0)
# KEYS[2]  the workspace's plan hash (fields plan, expires_at in epoch seconds)
# ARGV[1]  "consume" or "peek"
# ARGV[2]  now, epoch seconds (the store's clock)
# ARGV[3]  TTL in seconds for the counter: until the day ends, plus grace
# ARGV[4]  the free plan's daily limit (used when there is no live, known plan)
# ARGV[5…] pairs: plan name, daily limit
# Returns {allowed 1|0, used, daily limit, plan, plan expires_at or ""}
_QUOTA_LUA = """
local now = tonumber(ARGV[2])
local plan, expires_at, limit = 'free', '', tonumber(ARGV[4])
local stored = redis.call('HMGET', KEYS[2], 'plan', 'expires_at')
if stored[1] and stored[2] and tonumber(stored[2]) > now then
  for i = 5, #ARGV, 2 do
    if ARGV[i] == stored[1] then
      plan, expires_at, limit = stored[1], stored[2], tonumber(ARGV[i + 1])
    end
  end
end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local allowed = 0
if ARGV[1] == 'consume' and used < limit then
  used = redis.call('INCR', KEYS[1])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  allowed = 1
end
return {allowed, used, limit, plan, expires_at}
"""

# Gives back one use of a daily counter (a diagnosis, a follow-up), never going below zero (a
# refund without a consume is a no-op). KEYS[1]  the counter of the day that was charged.
# Returns the counter after the refund.
REFUND_LUA = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0
"""


class Quotas:
    """Per-workspace daily quotas; the limit follows the workspace's live plan."""

    def __init__(self, client: RedisClient, config: StoreConfig, clock: UtcClock) -> None:
        self._client = client
        self._config = config
        self._clock = clock
        self._quota = client.script(_QUOTA_LUA)
        self._refund = client.script(REFUND_LUA)

    @guarded
    def status(self, team_id: str) -> QuotaStatus:
        """Today's plan, limit and usage, without consuming anything."""
        return self._run(team_id, "peek").status

    @guarded
    def consume(self, team_id: str) -> ConsumeResult:
        """Take one diagnosis from today's quota if any is left (atomic across replicas)."""
        return self._run(team_id, "consume")

    @guarded
    def refund(self, team_id: str, day: date | None = None) -> None:
        """Give back one diagnosis of `day` (default today; pass ConsumeResult.day), floor 0."""
        charged = day or day_of(self._clock.now())
        self._refund(keys=[keys.quota(team_id, charged)])

    def _run(self, team_id: str, mode: str) -> ConsumeResult:
        now = self._clock.now()
        today = day_of(now)
        resets_at = day_end(today)
        ttl = math.ceil((resets_at - now).total_seconds()) + self._config.quota_grace_s
        limits = self._config.plan_limits()
        args: list[str | int | float] = [
            mode,
            to_epoch(now),
            max(ttl, 1),
            limits.pop(Plan.FREE.value),
        ]
        for plan, limit in limits.items():
            args += [plan, limit]
        allowed, used, limit, plan, expires_at = self._quota(
            keys=[keys.quota(team_id, today), keys.plan(team_id)], args=args
        )
        status = QuotaStatus(
            plan=plan,
            daily_limit=int(limit),
            used=int(used),
            remaining=max(0, int(limit) - int(used)),
            resets_at=resets_at,
            plan_expires_at=from_epoch(expires_at) if expires_at else None,
        )
        return ConsumeResult(allowed=bool(allowed), status=status, day=today)
