"""Which plan a workspace is on, and until when.

A workspace without a live plan record is on the free plan. A grant stores its expiry and
also gets a Redis TTL, so an expired plan reads as free (by the timestamp, at once) and its
record then disappears by itself (by the TTL).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import NamedTuple

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.clock import UtcClock, from_epoch, to_epoch
from bot.store.config import Plan, StoreConfig


class PlanState(NamedTuple):
    """A workspace's plan; `expires_at` is None on the free plan."""

    plan: str
    expires_at: datetime | None


FREE = PlanState(Plan.FREE.value, None)

# Puts a workspace on a plan until an expiry, atomically with its TTL.
# KEYS[1]  the workspace's plan hash
# ARGV[1]  plan name
# ARGV[2]  expiry, epoch seconds (integer)
# ARGV[3]  now, epoch seconds
# ARGV[4]  "1": keep a later expiry the workspace already has on the same plan (redeeming a
#          second code must not shorten an evaluation); "0": set exactly this expiry
# ARGV[5]  where the grant came from, for audit ("code", "admin")
# Returns the expiry in force afterwards, epoch seconds.
_GRANT_LUA = """
local now = tonumber(ARGV[3])
local expires_at = tonumber(ARGV[2])
if ARGV[4] == '1' then
  local current = redis.call('HMGET', KEYS[1], 'plan', 'expires_at')
  if current[1] == ARGV[1] and current[2] and tonumber(current[2]) > expires_at then
    expires_at = tonumber(current[2])
  end
end
redis.call('HSET', KEYS[1], 'plan', ARGV[1], 'expires_at', string.format('%d', expires_at),
  'granted_at', ARGV[3], 'source', ARGV[5])
redis.call('EXPIRE', KEYS[1], math.max(1, math.ceil(expires_at - now)))
return string.format('%d', expires_at)
"""


class Plans:
    """Read and grant workspace plans."""

    def __init__(self, client: RedisClient, config: StoreConfig, clock: UtcClock) -> None:
        self._client = client
        self._config = config
        self._clock = clock
        self._grant = client.script(_GRANT_LUA)

    @guarded
    def get(self, team_id: str) -> PlanState:
        """The workspace's live plan; free when none was granted or the grant has expired."""
        plan, expires_at = self._client.redis.hmget(keys.plan(team_id), ["plan", "expires_at"])
        if plan is None or expires_at is None or plan not in self._config.plan_limits():
            return FREE
        if float(expires_at) <= to_epoch(self._clock.now()):
            return FREE
        return PlanState(plan, from_epoch(expires_at))

    @guarded
    def grant(
        self,
        team_id: str,
        plan: str,
        until: datetime,
        *,
        keep_later: bool = False,
        source: str = "admin",
    ) -> PlanState:
        """Put the workspace on `plan` until `until` (aware); returns the plan now in force.

        With keep_later, an existing later expiry on the same plan is kept instead.
        """
        plan = check_paid_plan(plan)
        if until.tzinfo is None:
            raise ValueError("until must be an aware datetime")
        now = self._clock.now()
        if until <= now:
            raise ValueError(f"until must be in the future, got {until.isoformat()}")
        expires_at = self._grant(
            keys=[keys.plan(team_id)],
            args=[
                plan,
                math.ceil(to_epoch(until)),
                to_epoch(now),
                "1" if keep_later else "0",
                keys.check_part(source, "source"),
            ],
        )
        return PlanState(plan, from_epoch(expires_at))

    @guarded
    def revoke(self, team_id: str) -> None:
        """Put the workspace back on the free plan now."""
        self._client.redis.delete(keys.plan(team_id))


def check_paid_plan(plan: str) -> str:
    """Return `plan` if it is a plan that can be granted (any known plan but free)."""
    paid = [p.value for p in Plan if p is not Plan.FREE]
    if plan not in paid:
        raise ValueError(f"plan must be one of {', '.join(paid)}, got {plan!r}")
    return plan
