"""A workspace's recent diagnoses, for its App Home: when, where, which entry, how sure.

Each record says when a diagnosis was posted, in which channel, the entry diagnosed (id and
title), its confidence and the initiating rank: never log text or evidence. A diagnosis made
outside a public channel (a DM, a private channel, a group DM) is listed only to the person who
asked for it: its record keeps that user id as its audience, and nothing else names anyone.
Records older than StoreConfig.history_days (30) are dropped, and at most history_max are
kept; the key itself expires when a workspace has diagnosed nothing for that long.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.clock import UtcClock, from_epoch, to_epoch
from bot.store.config import StoreConfig

log = logging.getLogger(__name__)

MAX_TITLE_CHARS = 150
_CONFIDENCES = ("high", "medium", "low")


@dataclass(frozen=True)
class HistoryEntry:
    """One posted diagnosis, as the App Home lists it."""

    when: datetime  # aware, UTC
    channel: str
    entry_id: str
    title: str
    confidence: str  # high | medium | low
    initiating_rank: int | None = None
    # Who may see it listed: None, everyone (a public channel); a user id, that person only;
    # "" nobody (made outside a public channel by no known person).
    audience: str | None = None

    def shown_to(self, user: str | None) -> bool:
        return self.audience is None or (bool(self.audience) and self.audience == user)


class History:
    """Record and list a workspace's recent diagnoses (one sorted set, scored by time)."""

    def __init__(self, client: RedisClient, config: StoreConfig, clock: UtcClock) -> None:
        self._client = client
        self._config = config
        self._clock = clock

    @guarded
    def record(
        self,
        team_id: str,
        channel: str,
        entry_id: str,
        title: str,
        confidence: str,
        initiating_rank: int | None = None,
        audience: str | None = None,
    ) -> HistoryEntry:
        """Add a diagnosis posted now; drop what is past retention or over the cap."""
        keys.check_part(channel, "channel")
        keys.check_part(entry_id, "entry_id")
        if confidence not in _CONFIDENCES:
            raise ValueError(f"confidence must be one of {', '.join(_CONFIDENCES)}, got {confidence!r}")
        if initiating_rank is not None and (isinstance(initiating_rank, bool) or not isinstance(initiating_rank, int)):
            raise ValueError(f"initiating_rank must be a whole number or None, got {initiating_rank!r}")
        now = self._clock.now()
        if audience:
            keys.check_part(audience, "audience")
        entry = HistoryEntry(now, channel, entry_id, " ".join(title.split())[:MAX_TITLE_CHARS], confidence, initiating_rank,
                             audience)
        data = {**asdict(entry), "when": round(to_epoch(now), 3), "n": secrets.token_hex(4)}
        if audience is None:
            del data["audience"]  # records of public channels read as before
        key = keys.history(team_id)
        cfg = self._config
        now_ms = int(to_epoch(now) * 1000)
        cutoff_ms = int(to_epoch(now - timedelta(days=cfg.history_days)) * 1000)
        # One key, one MULTI: add, trim by age and by count, refresh the key's TTL.
        pipe = self._client.redis.pipeline(transaction=True)
        pipe.zadd(key, {json.dumps(data, separators=(",", ":"), ensure_ascii=False): now_ms})
        pipe.zremrangebyscore(key, "-inf", f"({cutoff_ms}")
        pipe.zremrangebyrank(key, 0, -(cfg.history_max + 1))
        pipe.expire(key, cfg.history_days * 86400)
        pipe.execute()
        return entry

    @guarded
    def recent(self, team_id: str, n: int, viewer: str | None = None) -> list[HistoryEntry]:
        """The workspace's `n` latest diagnoses within retention that `viewer` may see (public
        channels', and their own elsewhere), newest first."""
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        now = self._clock.now()
        cutoff_ms = int(to_epoch(now - timedelta(days=self._config.history_days)) * 1000)
        # Read the whole retained list (history_max records at most): others' private
        # diagnoses are skipped, not counted against `n`.
        rows = self._client.redis.zrevrangebyscore(keys.history(team_id), "+inf", cutoff_ms)
        out = []
        for raw in rows:
            try:
                data = json.loads(raw)
                entry = HistoryEntry(
                    when=from_epoch(data["when"]), channel=data["channel"], entry_id=data["entry_id"],
                    title=data["title"], confidence=data["confidence"],
                    initiating_rank=data.get("initiating_rank"), audience=data.get("audience"),
                )  # fmt: skip
            except (ValueError, TypeError, KeyError):
                log.warning("unreadable history record in %s; skipped", team_id)
                continue
            if entry.shown_to(viewer):
                out.append(entry)
                if len(out) == n:
                    break
        return out
