"""Follow-up questions a workspace may ask per UTC day: a few on free, unlimited on scale.

Follow-ups are a Scale feature beyond FREE_FOLLOWUPS_PER_DAY on the free plan (README, plans).
A question the bot does not recognise (answered with buttons) is not counted; one it answers
is, just before it is answered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.clock import UtcClock, day_end, day_of, to_epoch
from bot.store.config import Plan
from bot.store.quotas import REFUND_LUA

FREE_FOLLOWUPS_PER_DAY = 5
UNLIMITED_PLANS = (Plan.SCALE.value,)

# Takes one follow-up of today's allowance, unless the workspace is on a live unlimited plan.
# KEYS[1]  today's follow-up counter of the workspace (string integer; absent means 0)
# KEYS[2]  the workspace's plan hash (fields plan, expires_at in epoch seconds)
# ARGV[1]  now, epoch seconds   ARGV[2] the counter's TTL, seconds   ARGV[3] the free limit
# ARGV[4…] plans without a limit
# Returns {allowed 1|0, used today, plan}
_TAKE_LUA = """
local stored = redis.call('HMGET', KEYS[2], 'plan', 'expires_at')
if stored[1] and stored[2] and tonumber(stored[2]) > tonumber(ARGV[1]) then
  for i = 4, #ARGV do
    if ARGV[i] == stored[1] then
      return {1, tonumber(redis.call('GET', KEYS[1]) or '0'), stored[1]}
    end
  end
end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[3]) then
  return {0, used, 'free'}
end
used = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return {1, used, 'free'}
"""




@dataclass(frozen=True)
class FollowupAllowance:
    allowed: bool
    plan: str
    used: int
    daily_limit: int | None  # None: unlimited
    resets_at: datetime
    day: date  # the UTC day counted, for an exact refund
    counted: bool  # False on unlimited plans and when refused: nothing to refund


class FollowupQuota:
    def __init__(self, client: RedisClient, clock: UtcClock, free_limit: int = FREE_FOLLOWUPS_PER_DAY) -> None:
        if free_limit < 0:
            raise ValueError(f"free_limit must be 0 or more, got {free_limit}")
        self._client = client
        self._clock = clock
        self._free_limit = free_limit
        self._take = client.script(_TAKE_LUA)
        self._refund = client.script(REFUND_LUA)

    @staticmethod
    def _key(team_id: str, day: date) -> str:
        # Under "quota:" so that, like the diagnosis quota, an uninstall does not reset it.
        return f"{keys.workspace(team_id)}quota:followups:{day.isoformat()}"

    @guarded
    def take(self, team_id: str) -> FollowupAllowance:
        """Count one follow-up answered now, if the workspace's plan allows another today."""
        now = self._clock.now()
        today = day_of(now)
        resets_at = day_end(today)
        ttl = max(1, math.ceil((resets_at - now).total_seconds()) + 3600)
        allowed, used, plan = self._take(keys=[self._key(team_id, today), keys.plan(team_id)],
                                         args=[to_epoch(now), ttl, self._free_limit, *UNLIMITED_PLANS])
        plan = plan.decode() if isinstance(plan, bytes) else str(plan)
        limit = None if plan in UNLIMITED_PLANS else self._free_limit
        return FollowupAllowance(bool(allowed), plan, int(used), limit, resets_at, today,
                                 counted=bool(allowed) and limit is not None)

    @guarded
    def refund(self, team_id: str, day: date) -> None:
        """Give back one follow-up of `day` (an answer that was not posted costs nothing)."""
        self._refund(keys=[self._key(team_id, day)])

    @guarded
    def used(self, team_id: str) -> int:
        """Follow-ups counted today."""
        value = self._client.redis.get(self._key(team_id, day_of(self._clock.now())))
        return int(value or 0)
