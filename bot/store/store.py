"""The Store: one object holding every piece of state kept between messages."""

from __future__ import annotations

from bot.store import keys
from bot.store.alerts import Alerts
from bot.store.bursts import Bursts
from bot.store.claims import Claims
from bot.store.client import RedisClient, guarded
from bot.store.clock import Clock, UtcClock
from bot.store.codes import Codes
from bot.store.config import StoreConfig
from bot.store.dedupe import Dedupe
from bot.store.feedback import Feedback
from bot.store.followup_quota import FollowupQuota
from bot.store.history import History
from bot.store.installations import Installations
from bot.store.oauth_states import OAuthStates
from bot.store.plans import Plans
from bot.store.quotas import Quotas
from bot.store.ratelimit import RateLimit
from bot.store.sealing import Sealer
from bot.store.threads import Threads
from bot.store.unmatched import Unmatched


class Store:
    """Quotas, plans, codes, dedupe, thread context, feedback, rate limits, diagnosis history,
    and (multi-workspace mode) installations and OAuth states, in Redis.

    Every call raises StoreUnavailable (and nothing redis-specific) when Redis cannot answer
    in time; the next call after Redis returns works again, no restart needed.
    """

    def __init__(self, config: StoreConfig, clock: Clock | None = None) -> None:
        """`clock` returns an aware UTC datetime; tests inject one to move time."""
        self.config = config
        self._clock = UtcClock(clock)
        self._client = RedisClient(config)
        self.plans = Plans(self._client, config, self._clock)
        self.quotas = Quotas(self._client, config, self._clock)
        self.ratelimit = RateLimit(self._client, self._clock)
        self.codes = Codes(self._client, config, self._clock, self.plans, self.ratelimit)
        self.dedupe = Dedupe(self._client, config)
        self.bursts = Bursts(self._client)
        self.claims = Claims(self._client, config)
        self.threads = Threads(self._client, config)
        self.feedback = Feedback(self._client, config)
        self.unmatched = Unmatched(self._client, config)
        self.history = History(self._client, config, self._clock)
        self.followup_quota = FollowupQuota(self._client, self._clock)
        self.oauth_states = OAuthStates(self._client, config, self._clock)
        self.alerts = Alerts(self._client, self._clock)  # ingest tokens and per-job alerts of `denpex watch`

    def installations(self, token_key: str) -> Installations:
        """Bolt's installation store over this Redis, sealing tokens with `token_key`
        (DENPEX_TOKEN_KEY: one Fernet key, or several comma-separated; the first encrypts).
        Raises StoreConfigError when the key is malformed."""
        return Installations(self._client, Sealer(token_key))

    @classmethod
    def from_env(cls) -> Store:
        """A store configured from REDIS_URL and the DENPEX_* environment variables."""
        return cls(StoreConfig.from_env())

    def ping(self) -> bool:
        """True if Redis answers in time; False (never an exception) when it does not."""
        return self._client.ping()

    @guarded
    def workspace_keys(self, team_id: str) -> list[str]:
        """Every key of a workspace, sorted (for tests and for removing a workspace)."""
        pattern = keys.workspace_pattern(team_id)
        return sorted(set(self._client.redis.scan_iter(match=pattern, count=1000)))

    @guarded
    def forget_workspace(self, team_id: str) -> list[str]:
        """Delete everything kept about a workspace (on uninstall or token revocation): its
        installation, thread contexts, history, dedupe markers, feedback, counters and rate
        limits; return the deleted keys. Its plan, daily usage and code-redemption limits
        stay (keys.kept_on_uninstall), as do codes (global records) and the anonymous
        cross-workspace unmatched counts.

        SCAN by the workspace's hash-tagged prefix: on a Cluster every key sits in one slot,
        so the deletes batch safely.
        """
        redis = self._client.redis
        doomed = [k for k in self.workspace_keys(team_id) if not keys.kept_on_uninstall(k, team_id)]
        for i in range(0, len(doomed), 500):
            redis.delete(*doomed[i : i + 500])
        redis.srem(keys.feedback_teams(), team_id)
        return doomed

    def close(self) -> None:
        """Release pooled connections."""
        self._client.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
