"""Context of diagnosed threads, so follow-up questions can be answered from the entries and
from the run itself.

Only what the answer needs is kept: entry ids, ranks, confidence, and per match its role,
score, ranks and masked evidence lines (hosts as the masker's placeholders, times rebuilt
from their digits), never the log. Contexts expire after StoreConfig.thread_ttl_s (7 days by
default). Records saved before `matches` existed still load (with no matches).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from bot.masking.masked import MaskedText, require_all_masked
from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.config import StoreConfig

log = logging.getLogger(__name__)

# Evidence is a handful of masked lines; these caps keep a runaway caller from turning the
# context into a copy of the log.
MAX_EVIDENCE_LINES = 20
MAX_EVIDENCE_CHARS = 500
MAX_MATCHES = 8
MAX_MATCH_EVIDENCE = 5

# A log's timestamp is log text: only its digits are kept, rebuilt as a plain date and time.
_TIME = re.compile(r"(?:(\d{4})-(\d{2})-(\d{2})[T ])?(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?")


def clock_time(ts: str | None) -> str | None:
    """`2024-05-27 15:16:51.118` / `15:16:51` rebuilt from a log's timestamp text; None if it
    holds no time of day. Nothing but digits of the original survives."""
    m = _TIME.search(ts or "")
    if m is None:
        return None
    year, month, day, hh, mm, ss, frac = m.groups()
    date = f"{year}-{month}-{day} " if year else ""
    return f"{date}{int(hh):02d}:{mm}:{ss}" + (f".{frac[:3]}" if frac else "")


@dataclass(frozen=True)
class KeptLine:
    """One evidence line of a match: masked text, the host as a placeholder."""

    line: int
    rank: int | None
    text: MaskedText
    host: MaskedText | None = None
    time: str | None = None  # clock_time() of the line's timestamp


@dataclass(frozen=True)
class KeptMatch:
    """One entry that fired: what follow-ups about the run (rank, evidence, runner-up) read."""

    id: str
    title: str
    role: str  # root | collateral
    confidence: str
    score: float
    ranks: list[int]
    evidence: list[KeptLine] = field(default_factory=list)


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
    matches: list[KeptMatch] = field(default_factory=list)  # best first, as diagnosed
    lines: int | None = None  # lines in the log
    elapsed_ms: int | None = None  # how long the diagnosis took
    # Why the matcher chose initiating_rank (`Diagnosis.rank_basis`); None in records saved
    # before it was kept, and then the follow-up reconstructs it from the kept matches.
    rank_basis: str | None = None


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
        kept = [e for m in ctx.matches for e in m.evidence]
        require_all_masked((e.text for e in kept), "thread context")
        require_all_masked((e.host for e in kept if e.host is not None), "thread context")
        data = asdict(ctx)
        data["evidence"] = [line[:MAX_EVIDENCE_CHARS] for line in ctx.evidence][:MAX_EVIDENCE_LINES]
        data["matches"] = [_match_record(m) for m in ctx.matches[:MAX_MATCHES]]
        data["rank_basis"] = _basis(ctx.rank_basis)
        pipe = self._client.redis.pipeline(transaction=False)  # one slot: the workspace's hash tag
        pipe.set(keys.thread(team_id, channel, thread_ts), json.dumps(data, separators=(",", ":"), ensure_ascii=False),
                 ex=ttl)
        # Past the context, as long as the history lists the diagnosis (and never less).
        pipe.set(keys.thread_diagnosed(team_id, channel, thread_ts), "1",
                 ex=max(ttl, self._config.history_days * 86400))
        pipe.execute()

    @guarded
    def expired(self, team_id: str, channel: str, thread_ts: str) -> bool:
        """Whether the thread had a diagnosis whose context is gone (its TTL ran out)."""
        pipe = self._client.redis.pipeline(transaction=False)  # one round trip: both keys share a slot
        pipe.exists(keys.thread_diagnosed(team_id, channel, thread_ts))
        pipe.exists(keys.thread(team_id, channel, thread_ts))
        diagnosed, context = pipe.execute()
        return bool(diagnosed) and not context

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
            values["matches"] = [_match_from(m) for m in values.get("matches") or []]
            values["rank_basis"] = _basis(values.get("rank_basis"))
            return ThreadContext(**values)
        except (ValueError, TypeError, KeyError, AttributeError):
            log.warning("unreadable thread context for %s %s; ignoring it", team_id, channel)
            return None


# A rank basis is the matcher's own vocabulary (`bot.matcher.model.RANK_BASES`), never log
# text: anything else is not kept.
_BASIS = re.compile(r"[a-z_]{1,40}(?:\+[a-z_]{1,40})?")


def _basis(value: object) -> str | None:
    return value if isinstance(value, str) and _BASIS.fullmatch(value) else None


def _match_record(m: KeptMatch) -> dict[str, Any]:
    data = asdict(m)
    data["evidence"] = [
        {**asdict(e), "text": e.text[:MAX_EVIDENCE_CHARS], "time": clock_time(e.time)}
        for e in m.evidence[:MAX_MATCH_EVIDENCE]
    ]
    return data


def _match_from(data: dict[str, Any]) -> KeptMatch:
    evidence = [
        KeptLine(
            line=int(e["line"]), rank=e.get("rank"), text=MaskedText.restored(e["text"]),
            host=MaskedText.restored(e["host"]) if e.get("host") is not None else None, time=e.get("time"),
        )
        for e in data.get("evidence") or []
    ]  # fmt: skip
    return KeptMatch(
        id=data["id"], title=data.get("title", data["id"]), role=data.get("role", "root"),
        confidence=data.get("confidence", "low"), score=float(data.get("score", 0.0)),
        ranks=list(data.get("ranks") or []), evidence=evidence,
    )  # fmt: skip
