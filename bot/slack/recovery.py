"""Messages claimed by a process that died before answering: taken over and answered once.

Slack does not re-send an event Bolt acknowledged, so a replica (or the restarted process)
must find such messages itself. Every message handled is claimed with a lease that a
keeper thread renews while the work goes on; a sweeper thread in every process looks for
claims whose lease ran out, takes one over (atomically: one taker), reads the message back
from Slack (conversations.history, or .replies in a thread: the log text is never kept) and
handles it as if it had just arrived.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import TYPE_CHECKING, Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import timers
from bot.store import StoreUnavailable
from bot.store.claims import Claim

if TYPE_CHECKING:
    from bot.slack.deps import BotDeps

log = logging.getLogger("denpex.slack")

CLAIM_LEASE_S = 60.0  # DENPEX_CLAIM_LEASE_S
CLAIM_SWEEP_S = 15.0  # DENPEX_CLAIM_SWEEP_S; 0 turns the sweeper off


def lease_s() -> float:
    return timers.seconds("DENPEX_CLAIM_LEASE_S", CLAIM_LEASE_S, allow_zero=False)


class LeaseKeeper:
    """Renews the leases of this process's claims while their work goes on."""

    def __init__(self, deps: BotDeps) -> None:
        self._deps = deps
        self._held: dict[str, Claim] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def hold(self, claim: Claim) -> None:
        with self._lock:
            self._held[claim.owner] = claim
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="denpex-leases", daemon=True)
                self._thread.start()

    def release(self, claim: Claim) -> None:
        with self._lock:
            self._held.pop(claim.owner, None)
        try:
            self._deps.store.claims.finish(claim)
        except StoreUnavailable:
            log.warning("claim %s of team=%s not marked done: store unavailable", claim.key, claim.team_id)

    def _run(self) -> None:
        while True:
            lease = lease_s()
            threading.Event().wait(lease / 3)
            with self._lock:
                held = list(self._held.values())
            for claim in held:
                # A failed renewal is tried again next round; a lost lease means another takes over.
                with contextlib.suppress(StoreUnavailable):
                    self._deps.store.claims.renew(claim, lease)


def _client_for(app: App, deps: BotDeps, team: str) -> WebClient | None:
    token = deps.config.bot_token
    if deps.config.multi_workspace and app.installation_store is not None:
        bot = app.installation_store.find_bot(enterprise_id=None, team_id=team)
        token = bot.bot_token if bot is not None else None
    if not token:
        return None
    client = app.client
    return WebClient(token=token, base_url=client.base_url, timeout=client.timeout, retry_handlers=client.retry_handlers)


def read_back(client: WebClient, where: dict[str, Any]) -> dict[str, Any] | None:
    """The message itself, as Slack has it now (None when it is gone)."""
    channel, ts, thread_ts = where["channel"], where["ts"], where.get("thread_ts")
    if thread_ts and thread_ts != ts:
        resp = client.conversations_replies(channel=channel, ts=thread_ts, latest=ts, oldest=ts, inclusive=True, limit=5)
    else:
        resp = client.conversations_history(channel=channel, latest=ts, oldest=ts, inclusive=True, limit=1)
    for msg in resp.get("messages") or []:
        if msg.get("ts") == ts:
            return {**msg, "channel": channel, "channel_type": where.get("channel_type")}
    return None


def sweep_once(app: App, deps: BotDeps) -> int:
    """Take over the claims whose lease ran out and handle their messages; how many."""
    from bot.slack.listeners.messages import handle_message

    store, taken = deps.store, 0
    for record in store.claims.expired():
        team, key = record.get("team_id"), record.get("key")
        if not isinstance(team, str) or not isinstance(key, str):
            store.claims.drop(record)
            continue
        where = {k: v for k, v in record.items() if k not in ("team_id", "key")}
        claim = store.claims.claim(team, key, where, lease_s())
        if claim is None:  # done meanwhile, or someone else took it over first
            continue
        taken += 1
        log.warning("taking over %s of team=%s: its claim's lease ran out unanswered", key, team)
        client = _client_for(app, deps, team)
        try:
            message = read_back(client, where) if client is not None else None
        except (SlackApiError, OSError) as exc:
            log.warning("could not read back %s of team=%s: %s", key, team, type(exc).__name__)
            message = None
        if client is None or message is None:
            deps.leases.release(claim)
            continue
        handle_message(deps, client, team, message, None, bool(where.get("mentioned")), claim=claim)
    return taken


def start_sweeper(app: App, deps: BotDeps) -> threading.Thread | None:
    interval = timers.seconds("DENPEX_CLAIM_SWEEP_S", CLAIM_SWEEP_S)
    if interval <= 0:
        return None

    def run() -> None:
        stop = threading.Event()
        while not stop.wait(interval):
            try:
                sweep_once(app, deps)
            except StoreUnavailable:
                pass
            except Exception:
                log.exception("sweeping unanswered claims failed")

    thread = threading.Thread(target=run, name="denpex-claims", daemon=True)
    thread.start()
    return thread
