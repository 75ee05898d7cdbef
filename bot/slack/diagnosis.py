"""A log arrives (pasted or uploaded): react, diagnose, charge, reply in the thread.

The reaction tells the user where things stand: :mag: while working, :white_check_mark: when
answered, :x: when it failed, :no_entry_sign: when the workspace is over its daily quota.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.ingest import InputError, Limits
from bot.service import Outcome, QuotaExceeded, deliver_charged
from bot.slack import blocks as ui
from bot.slack import files
from bot.slack.deps import BotDeps
from bot.slack.webapi import courtesy_client
from bot.store import Store, StoreUnavailable, ThreadContext

log = logging.getLogger("denpex.slack")


@dataclass(frozen=True)
class Where:
    """Where a log was posted and where the reply goes."""

    team_id: str
    channel: str
    ts: str  # the message carrying the log
    thread_ts: str  # the thread to reply in
    user: str | None


def _react(client: WebClient, where: Where, add: str | None, remove: str | None = None) -> None:
    # Reactions are a courtesy: a failure here (an error, a 429, a timeout) must never stop
    # or delay the reply itself, so they go through a short-timeout, short-retry client.
    quick = courtesy_client(client)
    for method, name in ((quick.reactions_remove, remove), (quick.reactions_add, add)):
        if not name:
            continue
        try:
            method(channel=where.channel, timestamp=where.ts, name=name)
        except SlackApiError as exc:
            log.info("reaction %s on %s failed: %s", name, where.channel, exc.response.get("error"))
        except Exception as exc:  # timeouts, resets: same courtesy
            log.info("reaction %s on %s failed: %s", name, where.channel, type(exc).__name__)


def _post(client: WebClient, where: Where, message: tuple[str, list[dict[str, Any]]]) -> Any:
    text, blocks = message
    return client.chat_postMessage(channel=where.channel, thread_ts=where.thread_ts, text=text, blocks=blocks)


def _context(outcome: Outcome, where: Where) -> ThreadContext:
    d = outcome.diagnosis
    root = d.matches[0]
    return ThreadContext(
        entry_ids=[m.id for m in d.matches],
        initiating_rank=d.initiating_rank,
        evidence=[e.text for e in root.evidence],  # already masked
        channel=where.channel,
        thread_ts=where.thread_ts,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        collateral_ids=[c.id for c in d.collateral],
        collateral_ranks=sorted({r for c in d.collateral for r in c.ranks})[:200],
        confidence=root.confidence,
    )


def diagnose_and_reply(
    deps: BotDeps,
    client: WebClient,
    where: Where,
    read: Callable[[], Outcome],
    *,
    quiet_if_unmatched: bool = False,
) -> None:
    """Run one diagnosis end to end; every failure ends in a clear message in the thread."""
    store = deps.store
    _react(client, where, "mag")
    try:
        status = store.quotas.status(where.team_id)
        if status.remaining <= 0:
            _post(client, where, ui.quota_exceeded_message(status))
            _react(client, where, "no_entry_sign", remove="mag")
            return
        outcome = read()
        if not outcome.report.matched:
            if quiet_if_unmatched:
                _react(client, where, None, remove="mag")
                return
            if outcome.diagnosis.unmatched:
                _count_unmatched(store, where, outcome.diagnosis.unmatched)
            _post(client, where, ui.diagnosis_message(outcome.report))
            _react(client, where, "white_check_mark", remove="mag")
            return
        message = ui.diagnosis_message(outcome.report)
        deliver_charged(store, where.team_id, lambda: _post(client, where, message))
        _save_thread(store, where, outcome)
        _remember(store, where, outcome)
        log.info(
            "diagnosed team=%s channel=%s entry=%s confidence=%s lines=%d ms=%d",
            where.team_id, where.channel, outcome.diagnosis.matches[0].id,
            outcome.diagnosis.matches[0].confidence, outcome.diagnosis.stats.lines,
            outcome.diagnosis.stats.elapsed_ms,
        )  # fmt: skip
        _react(client, where, "white_check_mark", remove="mag")
    except QuotaExceeded as exc:
        _safe_post(client, where, ui.quota_exceeded_message(exc.status))
        _react(client, where, "no_entry_sign", remove="mag")
    except InputError as exc:
        _safe_post(client, where, ui.error_message(f"I could not read this log: {exc}."))
        _react(client, where, "x", remove="mag")
    except StoreUnavailable:
        log.warning("store unavailable while diagnosing in team=%s", where.team_id)
        _safe_post(client, where, ui.unavailable_message())
        _react(client, where, "x", remove="mag")
    except SlackApiError as exc:
        # not_in_channel, channel_not_found, ratelimited past retries, 5xx past retries:
        # nothing was delivered, so nothing was charged (deliver_charged refunded it).
        log.warning("posting the diagnosis failed in team=%s: %s", where.team_id, exc.response.get("error"))
        _react(client, where, "x", remove="mag")
    except OSError as exc:
        # Slack unreachable or too slow to confirm: the reply may or may not have landed, and
        # re-posting could double it. Refunded; say so, once, if Slack lets us.
        log.warning("Slack did not confirm a post in team=%s: %s", where.team_id, type(exc).__name__)
        _safe_post(client, where, ui.error_message(
            "Slack did not confirm my reply in time, so nothing was charged. "
            "If no diagnosis shows up in this thread, post the log again."))
        _react(client, where, "x", remove="mag")
    except Exception:
        log.exception("diagnosis failed in team=%s channel=%s", where.team_id, where.channel)
        _safe_post(client, where, ui.error_message("Something went wrong while diagnosing this log; nothing was charged."))
        _react(client, where, "x", remove="mag")


def _remember(store: Store, where: Where, outcome: Outcome) -> None:
    """Add the posted diagnosis to the workspace's history (App Home): entry, confidence,
    rank, channel; never log text. The reply is out already, so a failure here is only logged."""
    root = outcome.diagnosis.matches[0]
    try:
        store.history.record(where.team_id, where.channel, root.id, root.title, root.confidence,
                             outcome.diagnosis.initiating_rank)
    except (StoreUnavailable, ValueError) as exc:
        log.warning("diagnosis not added to the history of team=%s: %s", where.team_id, type(exc).__name__)


def _save_thread(store: Store, where: Where, outcome: Outcome) -> None:
    """Keep the thread's context for follow-ups. The diagnosis is posted (and charged) already:
    if Redis went away meanwhile, only follow-ups in this thread are lost; say nothing more."""
    try:
        store.threads.save(where.team_id, where.channel, where.thread_ts, _context(outcome, where))
    except StoreUnavailable:
        log.warning("thread context not saved for team=%s channel=%s: store unavailable", where.team_id, where.channel)


def _count_unmatched(store: Store, where: Where, line: str) -> None:
    """A statistic for maintainers: it must not stand between the user and the reply."""
    try:
        store.unmatched.record(where.team_id, line)
    except StoreUnavailable:
        log.warning("unmatched line not counted for team=%s: store unavailable", where.team_id)


def _safe_post(client: WebClient, where: Where, message: tuple[str, list[dict[str, Any]]]) -> None:
    try:
        _post(client, where, message)
    except Exception as exc:  # SlackApiError, or Slack unreachable / timing out
        log.warning("could not post an error message in team=%s: %s", where.team_id, type(exc).__name__)


def pasted(deps: BotDeps, text: str) -> Callable[[], Outcome]:
    return lambda: deps.denpex.diagnose_text(text)


def uploaded(deps: BotDeps, client: WebClient, file_obj: dict[str, Any]) -> Callable[[], Outcome]:
    """Read an uploaded file through files.info and its private URL, streamed and capped."""

    def read() -> Outcome:
        if not files.supported(file_obj):
            raise InputError(
                f"{files.describe(file_obj)} is not a log file I read (.log, .txt, .out, .err, a text snippet, or .gz of one)"
            )
        cfg = deps.config
        info = files.file_info(client, file_obj["id"], cfg.max_upload_bytes)
        chunks = files.download(info, client.token or "", files.download_timeout(), files.download_deadline())
        limits = Limits(max_bytes=cfg.max_upload_bytes, max_inflated=cfg.max_inflated_bytes)
        return deps.denpex.diagnose_stream(chunks, limits=limits)

    return read
