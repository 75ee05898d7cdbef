"""The one place that builds the redis-py client and turns its failures into StoreUnavailable.

Settings are chosen to fail fast and heal by themselves:
- short connect and read timeouts (StoreConfig), so a dead or stalled Redis costs a caller
  about a second, not a hung Slack handler;
- no retry of a command that may have run: a retried EVALSHA whose reply was lost could
  consume a quota twice, and the caller already has a clear error to act on;
- on a cluster, bounded retries (StoreConfig.retry_window_s, with backoff) of the failures
  that prove the command did not run: a node that refuses the connection (a killed primary
  whose replica is not promoted yet), CLUSTERDOWN, TRYAGAIN, an uncovered slot; and of reads
  whose connection broke mid-call (running a GET twice is harmless). Each failure makes
  redis-py refresh its slot map, so the call lands on the promoted replica once there is one;
  MOVED and ASK redirects are followed by redis-py itself;
- a health-check interval plus redis-py's check of pooled sockets on checkout, so the
  connections left dead by a Redis restart are replaced and the next call just works.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import redis
import redis.exceptions as rex
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.commands.cluster import READ_COMMANDS
from redis.commands.core import Script
from redis.connection import Connection, SSLConnection
from redis.retry import Retry

from bot.store.config import StoreConfig, cluster_nodes
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


class NodeUnreachable(rex.ConnectionError):
    """Connecting to a Redis node failed, so nothing was sent and the command may be retried."""


class _NodeConnection(Connection):
    """A cluster node connection that tells a failed connect from a failure after sending."""

    def connect_check_health(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().connect_check_health(*args, **kwargs)
        except rex.AuthenticationError:
            raise  # wrong user or password: retrying cannot help
        except (rex.ConnectionError, rex.TimeoutError) as exc:
            # Refused, timed out, reset in the TLS or AUTH handshake, still loading: the
            # command is only sent once connected, so it has not reached the node.
            raise NodeUnreachable(str(exc)) from exc


class _TLSNodeConnection(_NodeConnection, SSLConnection):
    """_NodeConnection over TLS (rediss+cluster://)."""


# Cluster answers that mean the node did not run the command, so sending it again is safe.
_REFUSED_BEFORE_RUNNING = (
    NodeUnreachable,
    rex.BusyLoadingError,  # a restarted node still loading its data
    rex.ClusterDownError,
    rex.TryAgainError,
    rex.SlotNotCoveredError,
)


def _may_retry(exc: BaseException, read_only: bool) -> bool:
    """Whether a failed cluster call can be sent again without risk of running it twice."""
    if isinstance(exc, _REFUSED_BEFORE_RUNNING):
        return True
    if isinstance(exc, rex.ClusterError) and "TTL exhausted" in str(exc):
        # redis-py gives up after 16 redirects (MOVED, ASK, TRYAGAIN while a slot is being
        # resharded), every one a refusal to run.
        return True
    # The connection broke after sending (the node died mid-call): the command may have run.
    # Only a read (GET, HMGET, ...) is safe to send again. Timeouts are not retried.
    return read_only and type(exc) is rex.ConnectionError


class _FailoverCluster(RedisCluster):
    """RedisCluster whose calls ride out a failover: bounded retries, with backoff, of the
    failures that prove the command did not run, and of reads (redis-py's own retries, which
    also resend a write whose reply was lost, are off)."""

    retry_window_s = 2.0

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        deadline = time.monotonic() + self.retry_window_s
        delay = 0.05
        read_only = bool(args) and str(args[0]).upper() in READ_COMMANDS
        while True:
            try:
                return super().execute_command(*args, **kwargs)
            except rex.RedisError as exc:
                if not _may_retry(exc, read_only) or time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.4)


class RedisClient:
    """Owns the redis-py client (built lazily) and the scripts registered on it."""

    def __init__(self, config: StoreConfig) -> None:
        self.config = config
        self.display_url = config.display_url
        self._redis: Any = None
        self._lock = threading.Lock()
        # Every Lua script registered on this client, so a test can prove each one keeps to
        # one cluster slot.
        self.scripts: list[Script] = []

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
        nodes = cluster_nodes(cfg.url)
        # A plain redis:// URL of the first seed carries user, password and options (a
        # rediss:// one would make redis-py pick its own SSLConnection over ours); the other
        # seeds are only asked for the slot map if the first cannot answer. redis-py's own
        # retries stay off (retry above): _FailoverCluster decides what may be sent again.
        options["connection_class"] = _TLSNodeConnection if nodes.tls else _NodeConnection
        options["startup_nodes"] = [ClusterNode(host, port) for host, port in nodes.seeds[1:]]
        # A cluster client asks a node for the slot map as soon as it is built, so building
        # it is itself a call that can find Redis down.
        try:
            client = _FailoverCluster.from_url(nodes.node_url, **options)
        except UNAVAILABLE_ERRORS as exc:
            raise StoreUnavailable.from_error(self.display_url, exc) from exc
        client.retry_window_s = cfg.retry_window_s
        return client

    def script(self, source: str) -> Script:
        """A Lua script registered on this client (EVALSHA, loaded again after a restart)."""
        script = Script(_LazyScriptClient(self), source)
        self.scripts.append(script)
        return script

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
