"""Remembering processed Slack events and messages, so a repeat is recognised atomically.

Slack redelivers an event it believes was not acknowledged, and a message can arrive both as
an event and as a mention; the first caller to mark a key wins, every later one is told it is
a repeat, until the marker expires.
"""

from __future__ import annotations

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.config import StoreConfig


class Dedupe:
    """First-time markers per workspace (SET NX EX)."""

    def __init__(self, client: RedisClient, config: StoreConfig) -> None:
        self._client = client
        self._config = config

    @guarded
    def first_time(self, team_id: str, key: str, ttl_s: int | None = None) -> bool:
        """True only for the first caller to mark `key` within `ttl_s` (default dedupe_ttl_s).

        Keys are e.g. `event:Ev0123` or `msg:C0123:1700000000.000100`.
        """
        ttl = self._config.dedupe_ttl_s if ttl_s is None else ttl_s
        if ttl < 1:
            raise ValueError(f"ttl_s must be at least 1 second, got {ttl}")
        return bool(self._client.redis.set(keys.dedupe(team_id, key), "1", nx=True, ex=ttl))

    @guarded
    def seen(self, team_id: str, key: str) -> bool:
        """Whether `key` is marked (by `first_time`), without marking it."""
        return bool(self._client.redis.exists(keys.dedupe(team_id, key)))

    @guarded
    def forget(self, team_id: str, key: str) -> None:
        """Drop a marker, so a redelivery is processed (for work that failed before replying)."""
        self._client.redis.delete(keys.dedupe(team_id, key))
