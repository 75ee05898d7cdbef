"""OAuth `state` values for the install flow: Bolt's OAuthStateStore, in Redis.

A state is issued when someone opens the install page and must come back, once, on the
redirect from Slack within StoreConfig.oauth_state_ttl_s (10 minutes by default). Consuming it
deletes it in the same transaction, so a replayed redirect, or the same redirect reaching two
replicas, is accepted once. Redis keeps only the SHA-256 of a state.
"""

from __future__ import annotations

import logging
import math
import secrets

from slack_sdk.oauth.state_store import OAuthStateStore

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.clock import UtcClock, to_epoch
from bot.store.config import StoreConfig

_MAX_STATE_CHARS = 200


class OAuthStates(OAuthStateStore):
    """Single-use, short-lived OAuth states."""

    def __init__(self, client: RedisClient, config: StoreConfig, clock: UtcClock) -> None:
        self._client = client
        self._clock = clock
        self.ttl_s = config.oauth_state_ttl_s
        self._logger = logging.getLogger("denpex.oauth")

    @property
    def logger(self) -> logging.Logger:
        return self._logger

    @guarded
    def issue(self, *args: object, **kwargs: object) -> str:
        """A new random state (256 bits), valid for ttl_s seconds."""
        state = secrets.token_urlsafe(32)
        expires_at = to_epoch(self._clock.now()) + self.ttl_s
        # The stored expiry is what counts (the store's clock); the TTL only cleans up.
        self._client.redis.set(keys.oauth_state(keys.digest(state)), math.floor(expires_at), ex=self.ttl_s)
        return state

    @guarded
    def consume(self, state: str) -> bool:
        """True once for a state that was issued and has not expired; False ever after."""
        if not isinstance(state, str) or not state or len(state) > _MAX_STATE_CHARS:
            return False
        key = keys.oauth_state(keys.digest(state))
        pipe = self._client.redis.pipeline(transaction=True)
        pipe.get(key)
        pipe.delete(key)
        expires_at, _ = pipe.execute()
        return expires_at is not None and float(expires_at) > to_epoch(self._clock.now())
