"""Alerts from `denpex watch`: ingest tokens, replay markers, one post per root cause per job.

Ingest tokens are `dpx1.<team>.<secret>`: shown once by `/denpex alerts connect`, stored only
as their SHA-256, one per channel (connecting again replaces the old one), revocable. A revoked
token leaves a marker so the endpoint can say "revoked" rather than "unknown". The team in the
token names the workspace slot its record lives in; a token whose team part was changed simply
is not found.

Every key lives under the workspace's hash tag (keys.workspace), so the job script below runs
unchanged on a Redis Cluster. No log text is kept here: entry ids, ranks, message timestamps.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.clock import UtcClock, to_epoch

TOKEN_PREFIX = "dpx1"
REVOKED_TTL_S = 90 * 86400
JOB_TTL_S = 7 * 86400
NONCE_TTL_S = 660  # longer than the accepted clock skew either side
PENDING_S = 60  # an alert being posted holds its key this long (a crashed poster frees it)
RECENT_MAX = 50
_TOKEN = re.compile(rf"{TOKEN_PREFIX}\.([A-Za-z0-9_-]{{1,64}})\.([A-Za-z0-9_-]{{20,100}})")


# The key names of this module (kept beside it: only alerts use them).
def _token_key(team: str, digest: str) -> str:
    return f"{keys.workspace(team)}alerts:token:{digest}"


def _revoked_key(team: str, digest: str) -> str:
    return f"{keys.workspace(team)}alerts:revoked:{digest}"


def _channels_key(team: str) -> str:
    return f"{keys.workspace(team)}alerts:channels"


def _public_key(team: str) -> str:
    return f"{keys.workspace(team)}alerts:public"


def _nonce_key(team: str, nonce: str) -> str:
    return f"{keys.workspace(team)}alerts:nonce:{keys.check_part(nonce, 'nonce')}"


def _job_key(team: str, job: str) -> str:
    return f"{keys.workspace(team)}alerts:job:{keys.check_part(job, 'job')}"


def _recent_key(team: str) -> str:
    return f"{keys.workspace(team)}alerts:recent"


@dataclass(frozen=True)
class TokenCheck:
    """What an ingest token is: `state` ok | unknown | revoked | malformed."""

    state: str
    team: str | None = None
    channel: str | None = None


@dataclass(frozen=True)
class Claim:
    """An alert's place in its job: `state` new (post it), posted (it is there: `ts`), or
    pending (another request is posting it now). `first_ts` is the job's first alert, about
    the entry `first_root`."""

    state: str
    ts: str | None = None
    first_ts: str | None = None
    channel: str | None = None
    first_root: str | None = None


@dataclass(frozen=True)
class RecentAlert:
    when: float
    channel: str
    job: str
    entry_id: str | None
    title: str
    kind: str


# Claims one alert of a job for posting.
# KEYS[1]  the job's hash (fields ts:<key>, lock:<key>, first_ts, first_root, channel, charged)
# ARGV[1]  the alert's key; ARGV[2] now (epoch s); ARGV[3] how long a claim holds (s);
# ARGV[4]  the job key's TTL (s)
# Returns {state, ts or '', first_ts or '', channel or '', first_root or ''}
_CLAIM_LUA = """
local ts = redis.call('HGET', KEYS[1], 'ts:' .. ARGV[1])
local first = redis.call('HGET', KEYS[1], 'first_ts') or ''
local channel = redis.call('HGET', KEYS[1], 'channel') or ''
local root = redis.call('HGET', KEYS[1], 'first_root') or ''
if ts then return {'posted', ts, first, channel, root} end
local lock = tonumber(redis.call('HGET', KEYS[1], 'lock:' .. ARGV[1]) or '0')
if lock > tonumber(ARGV[2]) then return {'pending', '', first, channel, root} end
redis.call('HSET', KEYS[1], 'lock:' .. ARGV[1], tonumber(ARGV[2]) + tonumber(ARGV[3]))
redis.call('EXPIRE', KEYS[1], ARGV[4])
return {'new', '', first, channel, root}
"""


class Alerts:
    """Ingest tokens and per-job alert records of each workspace."""

    def __init__(self, client: RedisClient, clock: UtcClock) -> None:
        self._client = client
        self._clock = clock
        self._claim = client.script(_CLAIM_LUA)

    def _now(self) -> float:
        return to_epoch(self._clock.now())

    # --- tokens ---------------------------------------------------------------------------
    @guarded
    def connect(self, team: str, channel: str, user: str, *, public: bool = False) -> str:
        """A new ingest token for the channel (returned once, kept hashed); an older token of
        the channel stops working. `public`: the channel is known to be public, so App Home may
        name its alerts to every member of the workspace."""
        keys.check_part(channel, "channel")
        self.revoke(team, channel)
        token = f"{TOKEN_PREFIX}.{keys.check_team_id(team)}.{secrets.token_urlsafe(32)}"
        digest = keys.digest(token)
        redis = self._client.redis
        pipe = redis.pipeline(transaction=True)
        pipe.hset(_token_key(team, digest), mapping={"channel": channel, "by": keys.check_part(user, "user"),
                                                      "at": f"{self._now():.0f}"})
        pipe.hset(_channels_key(team), channel, digest)
        if public:
            pipe.sadd(_public_key(team), channel)
        else:
            pipe.srem(_public_key(team), channel)
        pipe.execute()
        return token

    @guarded
    def revoke(self, team: str, channel: str) -> bool:
        """Revoke the channel's token; False when it had none."""
        redis = self._client.redis
        digest = redis.hget(_channels_key(team), keys.check_part(channel, "channel"))
        if not digest:
            return False
        pipe = redis.pipeline(transaction=True)
        pipe.delete(_token_key(team, digest))
        pipe.set(_revoked_key(team, digest), channel, ex=REVOKED_TTL_S)
        pipe.hdel(_channels_key(team), channel)
        pipe.srem(_public_key(team), channel)
        pipe.execute()
        return True

    @guarded
    def check(self, token: str) -> TokenCheck:
        m = _TOKEN.fullmatch(token or "")
        if not m:
            return TokenCheck("malformed")
        team, digest = m[1], keys.digest(token)
        redis = self._client.redis
        channel = redis.hget(_token_key(team, digest), "channel")
        if channel:
            return TokenCheck("ok", team, channel)
        revoked = redis.get(_revoked_key(team, digest))
        return TokenCheck("revoked", team, revoked) if revoked else TokenCheck("unknown", team)

    @guarded
    def channels(self, team: str) -> list[str]:
        """The workspace's connected channels, sorted."""
        return sorted(self._client.redis.hkeys(_channels_key(team)))

    @guarded
    def public_channels(self, team: str) -> set[str]:
        """The connected channels known to be public (connected where Slack named the channel)."""
        return set(self._client.redis.smembers(_public_key(team)))

    # --- requests and jobs ----------------------------------------------------------------
    @guarded
    def first_use_of(self, team: str, nonce: str) -> bool:
        """Record a request's nonce; False when it was seen before (a replay)."""
        return bool(self._client.redis.set(_nonce_key(team, nonce), "1", nx=True, ex=NONCE_TTL_S))

    @guarded
    def claim(self, team: str, job: str, key: str) -> Claim:
        state, ts, first, channel, root = self._claim(
            keys=[_job_key(team, job)], args=[keys.check_part(key, "alert key"), self._now(), PENDING_S, JOB_TTL_S]
        )
        return Claim(state, ts or None, first or None, channel or None, root or None)

    @guarded
    def release(self, team: str, job: str, key: str) -> None:
        """The claimed alert was not posted: let a retry post it."""
        self._client.redis.hdel(_job_key(team, job), f"lock:{key}")

    @guarded
    def charge_once(self, team: str, job: str) -> bool:
        """True the first time a job is charged (an alert counts once per job)."""
        return bool(self._client.redis.hsetnx(_job_key(team, job), "charged", "1"))

    @guarded
    def uncharge(self, team: str, job: str) -> None:
        self._client.redis.hdel(_job_key(team, job), "charged")

    @guarded
    def posted(self, team: str, job: str, key: str, channel: str, ts: str, root: str | None = None) -> None:
        """The alert is in the channel as message `ts`; the job's first alert is remembered."""
        redis = self._client.redis
        job_key = _job_key(team, job)
        pipe = redis.pipeline(transaction=True)
        pipe.hset(job_key, f"ts:{key}", ts)
        pipe.hsetnx(job_key, "first_ts", ts)
        pipe.hsetnx(job_key, "first_root", root or "")
        pipe.hsetnx(job_key, "channel", channel)
        pipe.hdel(job_key, f"lock:{key}")
        pipe.expire(job_key, JOB_TTL_S)
        pipe.execute()

    @guarded
    def record_recent(self, team: str, alert: RecentAlert) -> None:
        """For App Home: when, where, which entry (never log text)."""
        key = _recent_key(team)
        row = json.dumps({**alert.__dict__, "n": secrets.token_hex(4)}, separators=(",", ":"))
        pipe = self._client.redis.pipeline(transaction=True)
        pipe.zadd(key, {row: alert.when})
        pipe.zremrangebyrank(key, 0, -(RECENT_MAX + 1))
        pipe.expire(key, JOB_TTL_S * 4)
        pipe.execute()

    @guarded
    def recent(self, team: str, n: int = 10) -> list[RecentAlert]:
        out = []
        for raw in self._client.redis.zrevrange(_recent_key(team), 0, n - 1):
            try:
                data = json.loads(raw)
                data.pop("n", None)
                out.append(RecentAlert(**data))
            except (ValueError, TypeError):
                continue
        return out
