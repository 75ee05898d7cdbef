"""The Store: one object holding every piece of state kept between messages."""

from __future__ import annotations

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.clock import Clock, UtcClock
from bot.store.codes import Codes
from bot.store.config import StoreConfig
from bot.store.dedupe import Dedupe
from bot.store.feedback import Feedback
from bot.store.plans import Plans
from bot.store.quotas import Quotas
from bot.store.ratelimit import RateLimit
from bot.store.threads import Threads
from bot.store.unmatched import Unmatched


class Store:
    """Quotas, plans, codes, dedupe, thread context, feedback and rate limits, in Redis.

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
        self.threads = Threads(self._client, config)
        self.feedback = Feedback(self._client, config)
        self.unmatched = Unmatched(self._client, config)

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

    def close(self) -> None:
        """Release pooled connections."""
        self._client.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
