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
from bot.store import StoreUnavailable, ThreadContext

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
    # Reactions are a courtesy: a failure here must never stop the reply itself.
    for method, name in ((client.reactions_remove, remove), (client.reactions_add, add)):
        if not name:
            continue
        try:
            method(channel=where.channel, timestamp=where.ts, name=name)
        except SlackApiError as exc:
            log.info("reaction %s on %s failed: %s", name, where.channel, exc.response.get("error"))


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
                store.unmatched.record(where.team_id, outcome.diagnosis.unmatched)
            _post(client, where, ui.diagnosis_message(outcome.report))
            _react(client, where, "white_check_mark", remove="mag")
            return
        message = ui.diagnosis_message(outcome.report)
        deliver_charged(store, where.team_id, lambda: _post(client, where, message))
        store.threads.save(where.team_id, where.channel, where.thread_ts, _context(outcome, where))
        log.info(
            "diagnosed team=%s channel=%s entry=%s confidence=%s lines=%d ms=%d",
            where.team_id, where.channel, outcome.diagnosis.matches[0].id,
            outcome.diagnosis.matches[0].confidence, outcome.diagnosis.stats.lines,
            outcome.diagnosis.stats.elapsed_ms,
        )  # fmt: skip
        _react(client, where, "white_check_mark", remove="mag")
    except QuotaExceeded as exc:
        _post(client, where, ui.quota_exceeded_message(exc.status))
        _react(client, where, "no_entry_sign", remove="mag")
    except InputError as exc:
        _post(client, where, ui.error_message(f"I could not read this log: {exc}."))
        _react(client, where, "x", remove="mag")
    except StoreUnavailable:
        log.warning("store unavailable while diagnosing in team=%s", where.team_id)
        _safe_post(client, where, ui.unavailable_message())
        _react(client, where, "x", remove="mag")
    except SlackApiError as exc:
        log.warning("posting the diagnosis failed in team=%s: %s", where.team_id, exc.response.get("error"))
        _react(client, where, "x", remove="mag")
    except Exception:
        log.exception("diagnosis failed in team=%s channel=%s", where.team_id, where.channel)
        _safe_post(client, where, ui.error_message("Something went wrong while diagnosing this log; nothing was charged."))
        _react(client, where, "x", remove="mag")


def _safe_post(client: WebClient, where: Where, message: tuple[str, list[dict[str, Any]]]) -> None:
    try:
        _post(client, where, message)
    except SlackApiError:
        log.warning("could not post an error message in team=%s", where.team_id)


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
        chunks = files.download(info, client.token or "", files.download_timeout())
        limits = Limits(max_bytes=cfg.max_upload_bytes, max_inflated=cfg.max_inflated_bytes)
        return deps.denpex.diagnose_stream(chunks, limits=limits)

    return read
