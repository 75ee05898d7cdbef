"""Context of diagnosed threads, so follow-up questions can be answered from the entries.

Only what the answer needs is kept: entry ids, ranks, confidence and masked evidence lines,
never the log. Contexts expire after StoreConfig.thread_ttl_s (7 days by default).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields

from bot.masking.masked import MaskedText, require_all_masked
from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.config import StoreConfig

log = logging.getLogger(__name__)

# Evidence is a handful of masked lines; these caps keep a runaway caller from turning the
# context into a copy of the log.
MAX_EVIDENCE_LINES = 20
MAX_EVIDENCE_CHARS = 500


@dataclass(frozen=True)
class ThreadContext:
    """What a diagnosis thread needs for follow-ups. Evidence lines must already be masked."""

    entry_ids: list[str]  # best first; entry_ids[0] is the root cause
    initiating_rank: int | None
    evidence: list[MaskedText]  # masked lines only: save() refuses anything else
    channel: str
    thread_ts: str
    created_at: str  # ISO 8601, UTC
    collateral_ids: list[str] = field(default_factory=list)
    collateral_ranks: list[int] = field(default_factory=list)
    confidence: str | None = None  # high | medium | low of the root match


class Threads:
    """Save and load thread contexts (one JSON value per thread, with a TTL)."""

    def __init__(self, client: RedisClient, config: StoreConfig) -> None:
        self._client = client
        self._config = config

    @guarded
    def save(
        self,
        team_id: str,
        channel: str,
        thread_ts: str,
        ctx: ThreadContext,
        ttl_s: int | None = None,
    ) -> None:
        """Store `ctx` for the thread, replacing any earlier one; evidence is capped
        (MAX_EVIDENCE_LINES lines of at most MAX_EVIDENCE_CHARS characters)."""
        ttl = self._config.thread_ttl_s if ttl_s is None else ttl_s
        if ttl < 1:
            raise ValueError(f"ttl_s must be at least 1 second, got {ttl}")
        require_all_masked(ctx.evidence, "thread context")
        data = asdict(ctx)
        data["evidence"] = [line[:MAX_EVIDENCE_CHARS] for line in ctx.evidence][:MAX_EVIDENCE_LINES]
        self._client.redis.set(
            keys.thread(team_id, channel, thread_ts),
            json.dumps(data, separators=(",", ":"), ensure_ascii=False),
            ex=ttl,
        )

    @guarded
    def load(self, team_id: str, channel: str, thread_ts: str) -> ThreadContext | None:
        """The thread's context, or None if it was never saved or has expired."""
        raw = self._client.redis.get(keys.thread(team_id, channel, thread_ts))
        if raw is None:
            return None
        try:
            data = json.loads(raw)
            known = {f.name for f in fields(ThreadContext)}
            # Ignore fields a newer release may have added, so a rollback still reads them.
            values = {k: v for k, v in data.items() if k in known}
            values["evidence"] = [MaskedText.restored(line) for line in values.get("evidence", [])]
            return ThreadContext(**values)
        except (ValueError, TypeError):
            log.warning("unreadable thread context for %s %s; ignoring it", team_id, channel)
            return None
