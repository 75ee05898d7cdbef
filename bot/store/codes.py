"""Single-use evaluation codes that put a workspace on a paid plan for some days.

A code reads `DNPX-XXXX-XXXX-XXXX`: 12 symbols of Crockford base32 (no I, L, O or U), so
60 random bits, typed back forgivingly (case, spaces and dashes ignored; O read as 0, I and L
as 1). Redis keeps only the SHA-256 of a code, so a copy of Redis redeems nothing; the
plaintext is returned once, by `create`.

Lifetimes: a code can be redeemed until its own expiry (`valid_days` after creation,
StoreConfig.code_valid_days by default); once redeemed, the plan lasts `days` from the
moment of redemption. An expired code reads as "unknown".
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.store import keys
from bot.store.client import UNAVAILABLE_ERRORS, RedisClient, guarded
from bot.store.clock import UtcClock, to_epoch
from bot.store.config import StoreConfig
from bot.store.errors import StoreUnavailable
from bot.store.plans import Plans, check_paid_plan
from bot.store.ratelimit import RateLimit

log = logging.getLogger(__name__)

CODE_PREFIX = "DNPX"
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: 5 bits a symbol
CODE_SYMBOLS = 12  # 60 bits
_TYPOS = str.maketrans({"O": "0", "I": "1", "L": "1"})
# Whatever is not a letter or a digit once NFKC has folded the look-alikes: spaces, hyphens,
# and what a code picks up on its way to the person (an HTML mail's non-breaking hyphens U+2011,
# a word processor's en dashes, the backticks or quotes of the message it was pasted from).
_SEPARATORS = re.compile(r"[\W_]+")

MAX_DAYS = 366
MAX_COUNT = 1000

# Redemption outcomes (RedeemResult.reason).
REDEEMED = "redeemed"
UNKNOWN = "unknown"  # never existed, mistyped, or expired before redemption
ALREADY_USED = "already_used"
RATE_LIMITED = "rate_limited"


@dataclass(frozen=True)
class RedeemResult:
    """Outcome of a redemption; plan and expires_at are set only when ok."""

    ok: bool
    reason: str  # redeemed | unknown | already_used | rate_limited
    plan: str | None = None
    expires_at: datetime | None = None
    # already_used by the workspace asking again (a second `/denpex redeem` of the code that
    # switched its plan on): no wrong guess, and its plan is what to tell.
    by_this_workspace: bool = False


# Creates a code's record unless one with that hash exists.
# KEYS[1]  the code's record (hash), named by the code's SHA-256
# ARGV[1]  plan  ARGV[2] plan days  ARGV[3] created at (epoch s)
# ARGV[4]  redeemable until (epoch s)  ARGV[5] TTL of the record, seconds
# Returns 1 when created, 0 on a hash collision (the caller draws another code).
_CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'plan', ARGV[1], 'days', ARGV[2], 'created_at', ARGV[3],
  'redeemable_until', ARGV[4], 'state', 'new')
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""

# Claims a code for a workspace: the single-use check. A claim still held by the same
# workspace (its plan grant did not complete) can be claimed again, so a redemption cut short
# by an outage can simply be retried; any other workspace is refused.
# KEYS[1]  the code's record
# ARGV[1]  team_id  ARGV[2] user_id  ARGV[3] now (epoch s)
# Returns {"unknown"} | {"already_used"} | {"claimed", plan, days}
_CLAIM_LUA = """
local rec = redis.call('HMGET', KEYS[1], 'plan', 'days', 'state', 'team', 'redeemable_until')
if not rec[1] or tonumber(rec[5]) <= tonumber(ARGV[3]) then
  return {'unknown'}
end
if rec[3] == 'used' or (rec[3] == 'claimed' and rec[4] ~= ARGV[1]) then
  return {'already_used', rec[4] == ARGV[1] and '1' or '0'}
end
redis.call('HSET', KEYS[1], 'state', 'claimed', 'team', ARGV[1], 'user', ARGV[2],
  'claimed_at', ARGV[3])
return {'claimed', rec[1], rec[2]}
"""

# Settles a claim held by a workspace: "used" once its plan is granted, "new" to put the
# code back when granting failed.
# KEYS[1]  the code's record
# ARGV[1]  team_id holding the claim  ARGV[2] "used" | "new"  ARGV[3] now (epoch s)
# Returns 1 when settled, 0 when the claim is not (or no longer) that workspace's.
_SETTLE_LUA = """
local rec = redis.call('HMGET', KEYS[1], 'state', 'team')
if rec[1] ~= 'claimed' or rec[2] ~= ARGV[1] then
  return 0
end
if ARGV[2] == 'used' then
  redis.call('HSET', KEYS[1], 'state', 'used', 'used_at', ARGV[3])
else
  redis.call('HSET', KEYS[1], 'state', 'new')
  redis.call('HDEL', KEYS[1], 'team', 'user', 'claimed_at')
end
return 1
"""


class Codes:
    """Create and redeem evaluation codes."""

    def __init__(
        self,
        client: RedisClient,
        config: StoreConfig,
        clock: UtcClock,
        plans: Plans,
        ratelimit: RateLimit,
    ) -> None:
        self._client = client
        self._config = config
        self._clock = clock
        self._plans = plans
        self._ratelimit = ratelimit
        self._create = client.script(_CREATE_LUA)
        self._claim = client.script(_CLAIM_LUA)
        self._settle = client.script(_SETTLE_LUA)

    @guarded
    def create(
        self, plan: str, days: int, count: int = 1, valid_days: int | None = None
    ) -> list[str]:
        """Make `count` new codes for `plan` lasting `days` from redemption; return them.

        This is the only time the codes exist in plaintext: show them once, store them nowhere.
        They can be redeemed for `valid_days` (default StoreConfig.code_valid_days).
        """
        check_paid_plan(plan)
        valid_days = self._config.code_valid_days if valid_days is None else valid_days
        for name, value, top in (
            ("days", days, MAX_DAYS),
            ("count", count, MAX_COUNT),
            ("valid_days", valid_days, MAX_DAYS),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
                raise ValueError(f"{name} must be a whole number from 1 to {top}, got {value!r}")
        now = self._clock.now()
        until = now + timedelta(days=valid_days)
        ttl = math.ceil((until - now).total_seconds())
        codes: list[str] = []
        while len(codes) < count:
            body = "".join(secrets.choice(ALPHABET) for _ in range(CODE_SYMBOLS))
            created = self._create(
                keys=[keys.code(keys.digest(body))],
                args=[plan, days, to_epoch(now), math.floor(to_epoch(until)), ttl],
            )
            if created:
                codes.append(format_code(body))
        return codes

    @guarded
    def redeem(self, team_id: str, user_id: str, code: str) -> RedeemResult:
        """Redeem `code` for the workspace: single use, rate-limited against guessing.

        Guesses are counted per user first: every attempt takes one of the user's own
        (StoreConfig.redeem_user_*), atomically and before the code is looked at, so one user
        cannot slip concurrent guesses past it. Wrong guesses also count for the workspace
        (redeem_team_*); once it has too many, users who have guessed wrong themselves are
        refused, but someone who has not still gets their code looked at. So a flood of wrong
        guesses from one member (or a few) never locks the real code out.
        """
        keys.check_team_id(team_id)
        keys.check_part(user_id, "user_id")
        cfg = self._config
        if not self._ratelimit.allow(team_id, user_id, "redeem", cfg.redeem_user_limit, cfg.redeem_user_window_s):
            return RedeemResult(False, RATE_LIMITED)
        own_wrong = self._ratelimit.count(team_id, user_id, "redeem:wrong", cfg.redeem_user_window_s)
        if own_wrong and self._ratelimit.count(team_id, None, "redeem:wrong", cfg.redeem_team_window_s) >= cfg.redeem_team_limit:
            return RedeemResult(False, RATE_LIMITED)
        result = self._redeem(team_id, user_id, code)
        if result.reason in (UNKNOWN, ALREADY_USED) and not result.by_this_workspace:
            self._ratelimit.record(team_id, user_id, "redeem:wrong", cfg.redeem_user_window_s)
            self._ratelimit.record(team_id, None, "redeem:wrong", cfg.redeem_team_window_s)
        return result

    def _redeem(self, team_id: str, user_id: str, code: str) -> RedeemResult:
        """The redemption itself, once the attempt is within the limits."""
        body = normalize_code(code)
        if body is None:
            return RedeemResult(False, UNKNOWN)
        # The code record ({codes} slot) and the plan ({team} slot) sit in different cluster
        # slots, so no single script may touch both. Instead: claim the code atomically in its
        # own slot, then grant the plan; if the grant fails, put the code back. If even that
        # fails (Redis went away in between), the claim stays held by this workspace, which
        # may claim it again on retry while every other workspace is refused.
        code_key = keys.code(keys.digest(body))
        now = self._clock.now()
        claim = self._claim(keys=[code_key], args=[team_id, user_id, to_epoch(now)])
        if claim[0] != "claimed":
            return RedeemResult(False, claim[0], by_this_workspace=len(claim) > 1 and claim[1] == "1")
        plan, days = claim[1], int(claim[2])
        try:
            state = self._plans.grant(
                team_id, plan, now + timedelta(days=days), keep_later=True, source="code"
            )
        except BaseException:
            with contextlib.suppress(StoreUnavailable, *UNAVAILABLE_ERRORS):
                self._settle(keys=[code_key], args=[team_id, "new", to_epoch(now)])
            raise
        try:
            self._settle(keys=[code_key], args=[team_id, "used", to_epoch(now)])
        except UNAVAILABLE_ERRORS:
            # The plan is granted, which is what the user asked for; the claim stays with
            # this workspace, so nobody else can use the code. Do not report a failure.
            log.warning("code redeemed by %s but not marked used: Redis went away", team_id)
        return RedeemResult(True, REDEEMED, state.plan, state.expires_at)


def format_code(body: str) -> str:
    """`DNPX-XXXX-XXXX-XXXX` from the 12 symbols of a code."""
    groups = [body[i : i + 4] for i in range(0, len(body), 4)]
    return "-".join([CODE_PREFIX, *groups])


def normalize_code(text: str) -> str | None:
    """The 12 canonical symbols of a typed code, or None if it cannot be a code."""
    if not isinstance(text, str):
        return None
    compact = _SEPARATORS.sub("", unicodedata.normalize("NFKC", text)).upper()
    if len(compact) == len(CODE_PREFIX) + CODE_SYMBOLS and compact.startswith(CODE_PREFIX):
        compact = compact[len(CODE_PREFIX) :]
    body = compact.translate(_TYPOS)
    if len(body) != CODE_SYMBOLS or any(ch not in ALPHABET for ch in body):
        return None
    return body
