"""Store settings: where Redis is, how long things live, how much each plan may do.

REDIS_URL names one Redis (`redis://`, `rediss://` for TLS, `unix://`) or a Redis Cluster
(`redis+cluster://`, `rediss+cluster://`). redis-py has no URL form for a cluster (its
RedisCluster.from_url takes a plain redis:// URL of one node), so the scheme says it, and the
authority may list several seed nodes, any of which can be down at start:

    rediss+cluster://denpex:PASSWORD@10.0.0.1:6379,10.0.0.2:6379/0?ssl_ca_certs=/etc/ca.pem

User, password and query (redis-py's own options: ssl_ca_certs, ssl_cert_reqs, ...) apply to
every node. DENPEX_REDIS_CLUSTER=yes with a plain URL means the same (for managed services
that hand out one redis:// endpoint).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from urllib.parse import urlsplit, urlunsplit

from bot.store.errors import StoreConfigError


class Plan(StrEnum):
    """Plans a workspace can be on. Anything without a live plan record is FREE."""

    FREE = "free"
    SCALE = "scale"


# Environment variable for each setting that can be set from the environment.
_ENV = {
    "url": "REDIS_URL",
    "free_daily": "DENPEX_FREE_DAILY",
    "scale_daily": "DENPEX_SCALE_DAILY",
    "thread_ttl_s": "DENPEX_THREAD_TTL_S",
    "dedupe_ttl_s": "DENPEX_DEDUPE_TTL_S",
    "timeout_s": "DENPEX_REDIS_TIMEOUT_S",
    "connect_timeout_s": "DENPEX_REDIS_CONNECT_TIMEOUT_S",
    "health_check_interval_s": "DENPEX_REDIS_HEALTH_CHECK_S",
    "cluster": "DENPEX_REDIS_CLUSTER",
    "retry_window_s": "DENPEX_REDIS_RETRY_S",
    "code_valid_days": "DENPEX_CODE_VALID_DAYS",
    "oauth_state_ttl_s": "DENPEX_OAUTH_STATE_TTL_S",
    "history_days": "DENPEX_HISTORY_DAYS",
}


@dataclass(frozen=True)
class StoreConfig:
    """Everything the store needs to know; `from_env()` reads it from the environment."""

    url: str = field(default="redis://localhost:6379/0", repr=False)  # may hold a password
    free_daily: int = 3
    scale_daily: int = 50
    thread_ttl_s: int = 7 * 86400
    dedupe_ttl_s: int = 3600
    # Socket read/write timeout of every call; connecting gets its own, shorter one.
    timeout_s: float = 1.0
    connect_timeout_s: float = 0.5
    # An idle pooled connection is PINGed before reuse after this long, so a socket left
    # dead by a Redis restart is replaced instead of failing the first call.
    health_check_interval_s: int = 15
    # Talk the Redis Cluster protocol (keys already carry hash tags; nothing else changes).
    # Set by a redis+cluster:// or rediss+cluster:// URL, or by DENPEX_REDIS_CLUSTER.
    cluster: bool = False
    # Cluster only: how long a call keeps retrying while a node cannot be reached (a primary
    # died and its replica is not promoted yet) or the cluster says CLUSTERDOWN / TRYAGAIN,
    # before it fails with StoreUnavailable. Only failures that prove the command was not
    # run are retried, so a quota is never consumed twice. Keep it under Slack's 3 s ack.
    retry_window_s: float = 2.0
    # How long a new evaluation code can be redeemed (the plan then lasts its own days).
    code_valid_days: int = 30
    # Redemption attempts allowed against guessing: per user, and per workspace.
    redeem_user_limit: int = 5
    redeem_user_window_s: int = 600
    redeem_team_limit: int = 20
    redeem_team_window_s: int = 3600
    # A day's quota counter outlives the day by this much, so a refund just after
    # midnight still finds the counter it should decrement.
    quota_grace_s: int = 3600
    # Most distinct unmatched fingerprints kept per counter; the rarest go first.
    unmatched_max: int = 10_000
    # How long an OAuth install `state` can come back from Slack (single use).
    oauth_state_ttl_s: int = 600
    # A workspace's recent diagnoses (App Home): kept this many days, at most this many.
    history_days: int = 30
    history_max: int = 100

    def __post_init__(self) -> None:
        if not self.url.startswith(_SCHEMES):
            raise StoreConfigError(
                "REDIS_URL must start with redis://, rediss://, unix://, redis+cluster:// or "
                f"rediss+cluster://, got {self.display_url!r}"
            )
        if self.url.startswith(_CLUSTER_SCHEMES):
            object.__setattr__(self, "cluster", True)
        if self.cluster:
            cluster_nodes(self.url)  # raises StoreConfigError when it cannot name a cluster
        if not 0 <= self.retry_window_s <= 60:
            raise StoreConfigError(f"{_label('retry_window_s')} must be between 0 and 60 seconds")
        for name in ("free_daily", "scale_daily"):
            if getattr(self, name) < 0:
                raise StoreConfigError(f"{_label(name)} must be 0 or more")
        for name in (
            "thread_ttl_s",
            "dedupe_ttl_s",
            "code_valid_days",
            "redeem_user_limit",
            "redeem_user_window_s",
            "redeem_team_limit",
            "redeem_team_window_s",
            "unmatched_max",
            "oauth_state_ttl_s",
            "history_days",
            "history_max",
        ):
            if getattr(self, name) < 1:
                raise StoreConfigError(f"{_label(name)} must be 1 or more")
        for name in ("timeout_s", "connect_timeout_s"):
            if not 0 < getattr(self, name) <= 60:
                raise StoreConfigError(f"{_label(name)} must be between 0 and 60 seconds")
        if self.health_check_interval_s < 0 or self.quota_grace_s < 0:
            raise StoreConfigError("health check interval and quota grace must be 0 or more")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> StoreConfig:
        """Read REDIS_URL and the DENPEX_* settings; unset or empty ones keep their defaults."""
        env = os.environ if environ is None else environ
        # Every setting has a default; its type says how to parse the variable.
        kinds = {f.name: type(f.default) for f in fields(cls)}
        values: dict[str, object] = {}
        for name, var in _ENV.items():
            raw = env.get(var, "").strip()
            if not raw:
                continue
            kind = kinds[name]
            try:
                values[name] = _parse_bool(raw) if kind is bool else kind(raw)
            except ValueError:
                raise StoreConfigError(f"{var}={raw!r} is not a valid {kind.__name__}") from None
        return cls(**values)  # type: ignore[arg-type]

    @property
    def display_url(self) -> str:
        """The Redis URL with any password (in the authority or the query) shown as ***."""
        return display_url(self.url)

    def daily_limit(self, plan: str) -> int:
        """Diagnoses per UTC day on `plan`; unknown plans get the free allowance."""
        return self.scale_daily if plan == Plan.SCALE else self.free_daily

    def plan_limits(self) -> dict[str, int]:
        """Daily limit of every plan, by plan name."""
        return {plan.value: self.daily_limit(plan) for plan in Plan}


_CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")
_SCHEMES = ("redis://", "rediss://", "unix://", *_CLUSTER_SCHEMES)
_QUERY_SECRET = re.compile(r"(?i)([?&](?:ssl_)?password=)[^&#]*")


def display_url(url: str) -> str:
    """`url` with any password shown as ***: in the authority (also with several hosts, where
    urlsplit cannot parse a port) and in the query (password=, ssl_password=)."""
    scheme, sep, rest = url.partition("://")
    if sep:
        end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
        userinfo, at, hosts = rest[:end].rpartition("@")
        if at and ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        url = f"{scheme}://{userinfo}{at}{hosts}{rest[end:]}"
    return _QUERY_SECRET.sub(r"\1***", url)


@dataclass(frozen=True)
class ClusterNodes:
    """A cluster URL taken apart: the seed nodes, and one plain redis:// URL that carries the
    user, password and options every node shares (what redis-py's RedisCluster accepts)."""

    seeds: tuple[tuple[str, int], ...]
    node_url: str = field(repr=False)  # redis://[user:password@]first-seed:port/0[?options]
    tls: bool


def cluster_nodes(url: str) -> ClusterNodes:
    """Take a cluster URL (redis[s]+cluster://, or redis[s]:// with DENPEX_REDIS_CLUSTER) apart.

    Raises StoreConfigError for a unix socket, a database other than 0, or a seed without a
    host. Ports default to 6379.
    """
    shown = display_url(url)
    scheme, _, rest = url.partition("://")
    if scheme not in ("redis", "rediss", "redis+cluster", "rediss+cluster"):
        raise StoreConfigError(f"a Redis Cluster is reached over TCP, not {shown!r}")
    parts = urlsplit("redis://" + rest)
    userinfo, at, hostlist = parts.netloc.rpartition("@")
    seeds: list[tuple[str, int]] = []
    for item in hostlist.split(","):
        probe = urlsplit(f"redis://{item}")
        try:
            host, port = probe.hostname, probe.port or 6379
        except ValueError:
            host = None
        if not host:
            raise StoreConfigError(f"REDIS_URL names a cluster node without a host:port: {shown!r}")
        seeds.append((host, port))
    if parts.path.strip("/") not in ("", "0"):
        raise StoreConfigError(f"a Redis Cluster has only database 0, got {shown!r}")
    first = seeds[0][0]
    netloc = f"{userinfo}{at}{f'[{first}]' if ':' in first else first}:{seeds[0][1]}"
    node_url = urlunsplit(("redis", netloc, "/0", parts.query, ""))
    return ClusterNodes(tuple(seeds), node_url, scheme.startswith("rediss"))


def _label(name: str) -> str:
    var = _ENV.get(name)
    return f"{var} ({name})" if var else name


def _parse_bool(raw: str) -> bool:
    lowered = raw.lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ValueError(raw)
