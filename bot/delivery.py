"""The diagnosis use case, whatever edge a log arrived through: check the quota, read and
diagnose, charge on delivery (refund when nothing was delivered), remember the thread,
record the history and the unmatched line.

It knows neither Slack nor Redis: the store comes in as `DiagnosisStore` (a typed protocol
that bot.store.Store satisfies) and the edge as `Replier`, which renders and posts. A
`Replier.answer` that cannot establish whether its post landed raises `NotDelivered` only
when it knows nothing landed; when it finds the post it returns normally, so a diagnosis is
told once and charged once.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Protocol

from bot.ingest import InputError
from bot.masking.masked import MaskedText
from bot.service import Outcome
from bot.store.errors import StoreUnavailable
from bot.store.threads import KeptLine, KeptMatch, ThreadContext, clock_time

log = logging.getLogger("denpex.delivery")

# A refund that cannot land (the store is away) is retried in the background for this long,
# so a diagnosis that was not delivered costs nothing once the store is back.
REFUND_RETRY_S = 900.0
REFUND_BACKOFF_MAX_S = 5.0


class QuotaStore(Protocol):
    def status(self, team_id: str) -> Any: ...
    def consume(self, team_id: str) -> Any: ...
    def refund(self, team_id: str, day: date | None = None) -> None: ...


class ThreadStore(Protocol):
    def save(self, team_id: str, channel: str, thread_ts: str, context: ThreadContext) -> Any: ...


class HistoryStore(Protocol):
    def record(self, team_id: str, channel: str, entry_id: str, title: str, confidence: str,
               initiating_rank: int | None) -> Any: ...


class UnmatchedStore(Protocol):
    def record(self, team_id: str, salient_line: MaskedText) -> Any: ...


class DiagnosisStore(Protocol):
    """What the use case keeps: bot.store.Store, or anything shaped like it."""

    @property
    def quotas(self) -> QuotaStore: ...
    @property
    def threads(self) -> ThreadStore: ...
    @property
    def history(self) -> HistoryStore: ...
    @property
    def unmatched(self) -> UnmatchedStore: ...


class QuotaExceeded(Exception):
    """The workspace has no diagnoses left today; `status` says when it resets."""

    def __init__(self, status: object):
        super().__init__("daily quota exhausted")
        self.status = status


def deliver_charged(store: DiagnosisStore, team_id: str, post: Callable[[], object]) -> object:
    """Charge one diagnosis to the workspace and post it; refund when posting fails.

    The charge is atomic in the store (check-and-consume), so concurrent deliveries never
    overspend; a diagnosis that was not delivered costs nothing.
    """
    result = store.quotas.consume(team_id)
    if not result.allowed:
        raise QuotaExceeded(result.status)
    try:
        return post()
    except BaseException:
        # Refund the day that was charged, even if midnight passed while posting.
        try:
            store.quotas.refund(team_id, result.day)
        except Exception:
            _refund_later(store, team_id, result.day)
        raise


def _refund_later(store: DiagnosisStore, team_id: str, day: date, give_up_after_s: float = REFUND_RETRY_S) -> threading.Thread:
    """Keep trying a refund the store refused (Redis down mid-delivery), in the background."""

    def retry() -> None:
        deadline = time.monotonic() + give_up_after_s
        delay = 0.25
        while time.monotonic() < deadline:
            time.sleep(delay)
            try:
                store.quotas.refund(team_id, day)
                log.info("refund for team=%s landed after the store came back", team_id)
                return
            except Exception:
                delay = min(delay * 2, REFUND_BACKOFF_MAX_S)
        log.warning("refund for team=%s given up after %.0f s: the store stayed away", team_id, give_up_after_s)

    log.warning("refund for team=%s failed (store unavailable); retrying in the background", team_id)
    thread = threading.Thread(target=retry, name="denpex-refund", daemon=True)
    thread.start()
    return thread


class NotDelivered(Exception):
    """The edge knows its answer did not reach the user (refused, or checked and absent).
    `error`: Slack's error code when Slack refused it (`not_in_channel`, `is_archived`)."""

    def __init__(self, message: str, error: str | None = None) -> None:
        super().__init__(message)
        self.error = error


class Replier(Protocol):
    """The edge a log came from: it renders and posts; every method but `answer` is a
    best-effort courtesy that must not raise."""

    def working(self) -> None: ...
    def over_quota(self, status: Any) -> None: ...
    def answer(self, outcome: Outcome, diagnosis_id: str) -> None: ...  # raises NotDelivered
    def problem(self, text: str) -> None: ...
    def unavailable(self) -> None: ...
    def finished(self, state: str) -> None: ...  # answered | failed | over_quota | quiet


@dataclass(frozen=True)
class Place:
    """Where a log was posted: the workspace, and the thread the answer goes to."""

    team_id: str
    channel: str
    thread_ts: str
    # Who may see the diagnosis listed in the App Home (bot/store/history.py): None, everyone
    # (a public channel); a user id, only the person who asked (a DM or private conversation).
    audience: str | None = None


def new_diagnosis_id() -> str:
    """An id carried by the posted answer, so a post of unknown outcome can be looked for."""
    return uuid.uuid4().hex[:20]


def diagnose(store: DiagnosisStore, reply: Replier, place: Place, read: Callable[[], Outcome], *,
             quiet: bool = False) -> str:
    """Run one diagnosis end to end; return how it ended (answered, failed, over_quota, quiet).

    `quiet`: the text only names an error in prose (chatter). It is diagnosed first, for
    free and without a sign of work; unless an entry matches and the quota has room, nothing
    at all is said (no reaction, no "limit reached")."""
    try:
        if quiet:
            outcome = read()
            if not outcome.report.matched or store.quotas.status(place.team_id).remaining <= 0:
                reply.finished("quiet")
                return "quiet"
            reply.working()
        else:
            reply.working()
            status = store.quotas.status(place.team_id)
            if status.remaining <= 0:
                reply.over_quota(status)
                reply.finished("over_quota")
                return "over_quota"
            outcome = read()
        if not outcome.report.matched:
            # Free: "nothing matched" is not a diagnosis.
            if outcome.diagnosis.unmatched:
                _count_unmatched(store, place, outcome.diagnosis.unmatched)
            reply.answer(outcome, new_diagnosis_id())
            _save_thread(store, place, outcome)  # a question in its thread is told what helps
            reply.finished("answered")
            return "answered"
        diagnosis_id = new_diagnosis_id()
        deliver_charged(store, place.team_id, lambda: reply.answer(outcome, diagnosis_id))
        _save_thread(store, place, outcome)
        _remember(store, place, outcome)
        root = outcome.diagnosis.matches[0]
        log.info("diagnosed team=%s channel=%s entry=%s confidence=%s lines=%d ms=%d id=%s",
                 place.team_id, place.channel, root.id, root.confidence, outcome.diagnosis.stats.lines,
                 outcome.diagnosis.stats.elapsed_ms, diagnosis_id)
        reply.finished("answered")
        return "answered"
    except QuotaExceeded as exc:
        reply.over_quota(exc.status)
        reply.finished("over_quota")
        return "over_quota"
    except InputError as exc:
        reason = str(exc)
        # A reason ending in a question ("is the bot allowed to see it (files:read)?") ends the sentence.
        reply.problem(f"I could not read this log: {reason}{'' if reason.endswith(('.', '?', '!')) else '.'}")
        reply.finished("failed")
        return "failed"
    except StoreUnavailable:
        log.warning("store unavailable while diagnosing in team=%s", place.team_id)
        reply.unavailable()
        reply.finished("failed")
        return "failed"
    except NotDelivered as exc:
        # Refused by Slack, or looked for and not there: refunded (deliver_charged), nothing to tell.
        log.warning("diagnosis not delivered in team=%s: %s", place.team_id, exc)
        reply.finished("failed")
        return "failed"
    except Exception:
        log.exception("diagnosis failed in team=%s channel=%s", place.team_id, place.channel)
        reply.problem("Something went wrong while diagnosing this log; nothing was charged.")
        reply.finished("failed")
        return "failed"


def thread_context(outcome: Outcome, place: Place) -> ThreadContext:
    """What the thread keeps for follow-ups; no entry ids when nothing matched."""
    d = outcome.diagnosis
    root = d.matches[0] if d.matches else None
    return ThreadContext(
        entry_ids=[m.id for m in d.matches],
        initiating_rank=d.initiating_rank,
        evidence=[e.text for e in root.evidence] if root else [],  # already masked
        channel=place.channel,
        thread_ts=place.thread_ts,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        collateral_ids=[c.id for c in d.collateral],
        collateral_ranks=sorted({r for c in d.collateral for r in c.ranks})[:200],
        confidence=root.confidence if root else None,
        matches=[
            KeptMatch(m.id, m.title, m.role, m.confidence, round(m.score, 3), list(m.ranks)[:200], [
                KeptLine(e.line, e.rank, e.text, e.host, clock_time(e.timestamp)) for e in m.evidence  # masked by bot.service
            ])
            for m in d.matches
        ],
        lines=d.stats.lines,
        elapsed_ms=d.stats.elapsed_ms,
        rank_basis=d.rank_basis,
    )


def _remember(store: DiagnosisStore, place: Place, outcome: Outcome) -> None:
    """Add the posted diagnosis to the workspace's history (App Home): entry, confidence,
    rank, channel; never log text. The answer is out already, so a failure is only logged."""
    root = outcome.diagnosis.matches[0]
    try:
        store.history.record(place.team_id, place.channel, root.id, root.title, root.confidence,
                             outcome.diagnosis.initiating_rank, audience=place.audience)
    except (StoreUnavailable, ValueError) as exc:
        log.warning("diagnosis not added to the history of team=%s: %s", place.team_id, type(exc).__name__)


def _save_thread(store: DiagnosisStore, place: Place, outcome: Outcome) -> None:
    """Keep the thread's context for follow-ups; if Redis went away meanwhile, only the
    follow-ups of this thread are lost."""
    try:
        store.threads.save(place.team_id, place.channel, place.thread_ts, thread_context(outcome, place))
    except StoreUnavailable:
        log.warning("thread context not saved for team=%s channel=%s: store unavailable", place.team_id, place.channel)


def _count_unmatched(store: DiagnosisStore, place: Place, line: MaskedText) -> None:
    """A statistic for maintainers: it must not stand between the user and the answer."""
    try:
        store.unmatched.record(place.team_id, line)
    except StoreUnavailable:
        log.warning("unmatched line not counted for team=%s: store unavailable", place.team_id)
