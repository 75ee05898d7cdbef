"""The one place that builds the redis-py client and turns its failures into StoreUnavailable.

Settings are chosen to fail fast and heal by themselves:
- short connect and read timeouts (StoreConfig), so a dead or stalled Redis costs a caller
  about a second, not a hung Slack handler;
- no automatic retries: a retried EVALSHA whose reply was lost could consume a quota twice,
  and the caller already has a clear error to act on;
- a health-check interval plus redis-py's check of pooled sockets on checkout, so the
  connections left dead by a Redis restart are replaced and the next call just works.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import redis
import redis.exceptions as rex
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.retry import Retry

from bot.store.config import StoreConfig
from bot.store.errors import StoreUnavailable

# Failures that mean "Redis cannot serve us right now", as opposed to a bug in a command.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    rex.ConnectionError,  # refused, reset, DNS, auth, still loading data, pool exhausted
    rex.TimeoutError,
    rex.ReadOnlyError,  # a failover left us talking to a replica
    rex.OutOfMemoryError,  # maxmemory reached: writes refused until memory frees up
    rex.ClusterDownError,  # includes MasterDownError
    rex.ClusterError,
    rex.TryAgainError,
    rex.SlotNotCoveredError,
    # A cluster client that cannot reach any node to refresh its slot map says so with this
    # base class; our own mistakes (cross-slot keys) are caught by the cluster tests instead.
    rex.RedisClusterException,
)


class RedisClient:
    """Owns the redis-py client (built lazily) and the scripts registered on it."""

    def __init__(self, config: StoreConfig) -> None:
        self.config = config
        self.display_url = config.display_url
        self._redis: Any = None
        self._lock = threading.Lock()

    @property
    def redis(self) -> redis.Redis:
        """The redis-py client (a RedisCluster when configured; same command API)."""
        if self._redis is None:
            with self._lock:
                if self._redis is None:
                    self._redis = self._build()
        return self._redis

    def _build(self) -> Any:
        cfg = self.config
        options: dict[str, Any] = {
            "socket_timeout": cfg.timeout_s,
            "socket_connect_timeout": cfg.connect_timeout_s,
            "retry": Retry(NoBackoff(), 0),
            "health_check_interval": cfg.health_check_interval_s,
            "decode_responses": True,
        }
        if not cfg.cluster:
            return redis.Redis.from_url(cfg.url, **options)
        # A cluster client asks a node for the slot map as soon as it is built, so building
        # it is itself a call that can find Redis down.
        try:
            return RedisCluster.from_url(cfg.url, **options)
        except UNAVAILABLE_ERRORS as exc:
            raise StoreUnavailable.from_error(self.display_url, exc) from exc

    def script(self, source: str) -> Script:
        """A Lua script registered on this client (EVALSHA, loaded again after a restart)."""
        return Script(_LazyScriptClient(self), source)

    def ping(self) -> bool:
        """True when Redis answers PING in time; never raises for an unreachable Redis."""
        try:
            return bool(self.redis.ping())
        except (*UNAVAILABLE_ERRORS, StoreUnavailable):
            return False

    def close(self) -> None:
        """Drop every pooled connection (the client rebuilds them on the next call)."""
        if self._redis is not None:
            self._redis.close()


class _LazyScriptClient:
    """Lets a Script be created before the redis-py client exists (it is built lazily).

    redis-py's Script only needs the client's encoder at creation and the client itself
    when called; both are forwarded to the real client on first use.
    """

    def __init__(self, owner: RedisClient) -> None:
        self._owner = owner

    def get_encoder(self) -> Any:
        # Scripts are plain ASCII/UTF-8 text; this encoder matches decode_responses=True.
        from redis.connection import Encoder

        return Encoder(encoding="utf-8", encoding_errors="strict", decode_responses=True)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._owner.redis, name)


class _HasClient(Protocol):
    _client: RedisClient


S = TypeVar("S", bound=_HasClient)
P = ParamSpec("P")
R = TypeVar("R")


def guarded(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """Make a store method raise StoreUnavailable, not redis-py errors, when Redis is away."""

    @functools.wraps(method)
    def wrapper(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except UNAVAILABLE_ERRORS as exc:
            raise StoreUnavailable.from_error(self._client.display_url, exc) from exc

    return wrapper
