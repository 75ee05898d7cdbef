"""`POST /denpex/alerts`: alerts from `denpex watch`, posted to the channel of their token.

Checked in this order, each with its own answer (JSON `{"ok": false, "error": "..."}`):
413 too large (before reading) · 401 no, unknown or revoked token · 400 not the watch
protocol, or a clock too far off · 403 a workspace this bot cannot post in · 429 the token's
rate limit, or the day's quota (Retry-After) · 409 a replayed request (its nonce was used) ·
402 a workspace not on the Scale plan · 503 the state store is down (Retry-After; the watcher
retries) · 502 Slack refused the post. A retried alert (same job, same root cause) is answered
with the message already posted, never posted twice; the first alert of a job is charged to
the daily quota, later ones and the final update are not; the final alert updates the job's
first message in place.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.delivery import NotDelivered, Place, thread_context
from bot.masking import Masker
from bot.service import Outcome
from bot.slack.alert_blocks import MaskedAlert, alert_message
from bot.slack.deps import BotDeps
from bot.slack.diagnosis import Where, post_verified
from bot.store import Plan, StoreUnavailable
from bot.store.alerts import Claim, RecentAlert
from bot.store.keys import digest
from bot.watch.protocol import MAX_BODY_BYTES, Alert, ProtocolError, parse_alert

log = logging.getLogger("denpex.alerts")

MAX_CLOCK_SKEW_S = 300
REQUESTS_PER_MINUTE = 30


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]
    retry_after: int | None = None


def _no(status: int, error: str, retry_after: int | None = None) -> Answer:
    return Answer(status, {"ok": False, "error": error}, retry_after)


_STATUS_TEXT = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
                405: "Method Not Allowed", 409: "Conflict", 413: "Payload Too Large", 422: "Unprocessable Entity",
                429: "Too Many Requests", 502: "Bad Gateway", 503: "Service Unavailable"}


def bearer_token(header: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None without one. The scheme
    is case-insensitive (RFC 9110, 11.1: `bearer`, as some HTTP clients write it, is Bearer),
    and quotes a token was copied with from a shell or an env file are not part of it."""
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = token.strip().strip("\"'").strip()
    return token or None


class Ingest:
    """The endpoint as a WSGI callable over the bot's deps and its Bolt app (for the clients)."""

    def __init__(self, deps: BotDeps, app: App, clock: Callable[[], float] = time.time):
        self.deps = deps
        self.app = app
        self.clock = clock
        self._own_team: str | None = None

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        try:
            answer = self.handle(environ)
        except StoreUnavailable:
            answer = _no(503, "Denpex's state store is unavailable: the alert was not posted; retry in a moment", 5)
        except Exception:
            log.exception("alert ingest failed")
            answer = _no(500, "internal error: the alert was not posted")
        body = json.dumps(answer.body).encode()
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        if answer.retry_after is not None:
            headers.append(("Retry-After", str(answer.retry_after)))
        start_response(f"{answer.status} {_STATUS_TEXT.get(answer.status, 'Error')}", headers)
        return [body]

    def handle(self, environ: dict[str, Any]) -> Answer:
        if environ.get("REQUEST_METHOD") != "POST":
            return _no(405, "POST an alert from `denpex watch` here")
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return _no(400, "bad Content-Length")
        if length > MAX_BODY_BYTES:
            return _no(413, f"body of {length:,} bytes; an alert is at most {MAX_BODY_BYTES:,}")
        token = bearer_token(environ.get("HTTP_AUTHORIZATION") or "")
        if token is None:
            return _no(401, "no ingest token: send `Authorization: Bearer <token>` (from /denpex alerts connect)")
        store = self.deps.store
        checked = store.alerts.check(token)
        if checked.state in ("malformed", "unknown"):
            return _no(401, "unknown ingest token: get one with `/denpex alerts connect` in the channel")
        if checked.state == "revoked":
            return _no(401, "this ingest token was revoked (`/denpex alerts revoke`): connect the channel again")
        team, channel = checked.team or "", checked.channel or ""
        raw = environ["wsgi.input"].read(length) if length > 0 else b""
        try:
            envelope = parse_alert(raw)
        except ProtocolError as exc:
            return _no(400, f"not a denpex watch alert: {exc}")
        skew = self.clock() - envelope.sent_at
        if abs(skew) > MAX_CLOCK_SKEW_S:
            return _no(400, f"the request is stamped {abs(skew):.0f} s {'behind' if skew > 0 else 'ahead of'} the bot's "
                       "clock (at most 300 s): check the node's clock")
        try:
            client = self.client_for(team)
        except (SlackApiError, OSError) as exc:
            log.warning("alert ingest: cannot tell which workspace the bot is in: %s", type(exc).__name__)
            return _no(503, "Slack does not answer the bot right now: the alert was not posted; retry in a moment", 10)
        if client is None:
            return _no(403, f"this ingest token is for workspace {team}, where this bot is not installed")
        if not store.ratelimit.allow(team, f"token:{digest(token)[:16]}", "alert-ingest", REQUESTS_PER_MINUTE, 60):
            return _no(429, f"more than {REQUESTS_PER_MINUTE} requests a minute with this token", 60)
        if not store.alerts.first_use_of(team, envelope.nonce):
            return _no(409, "replayed request: this nonce was used already, the alert it carried was handled once")
        if store.plans.get(team).plan != Plan.SCALE.value:
            return _no(402, "alerts are a Scale plan feature and this workspace is on the free plan: "
                       "redeem an evaluation code with `/denpex redeem <code>`")
        alert = envelope.alert
        rule = self.deps.denpex.entry(alert.root) if alert.root else None
        if alert.root and rule is None:
            return _no(422, f"unknown entry id {alert.root!r}: the bot's rules are older than the watcher's")
        return self.deliver(client, team, channel, alert)

    def client_for(self, team: str) -> WebClient | None:
        """A Web API client with the workspace's bot token, or None where the bot is not installed."""
        config = self.deps.config
        if not config.multi_workspace:
            if self._own_team is None:
                self._own_team = self.app.client.auth_test().get("team_id") or ""
            return self.app.client if team == self._own_team else None
        store = self.app.installation_store
        found = store.find_installation(enterprise_id=None, team_id=team) if store else None
        if found is None or not found.bot_token:
            return None
        return WebClient(token=found.bot_token, base_url=config.api_url, timeout=self.app.client.timeout,
                         retry_handlers=self.app.client.retry_handlers)

    def deliver(self, client: WebClient, team: str, channel: str, alert: Alert) -> Answer:
        store = self.deps.store
        claim = store.alerts.claim(team, alert.job, alert.key)
        if claim.state == "posted":
            return Answer(200, {"ok": True, "duplicate": True, "channel": claim.channel or channel, "ts": claim.ts})
        if claim.state == "pending":
            return _no(503, "this alert is being posted by another request; retry in a moment", 2)
        rule = self.deps.denpex.entry(alert.root) if alert.root else None
        if claim.first_ts and claim.first_root and rule is not None and rule.role != "root" and alert.root != claim.first_root:
            # Another node of the job, whose ranks only timed out waiting for the rank whose
            # failure the channel was told already: one message per job's cause, not per node.
            store.alerts.posted(team, alert.job, alert.key, claim.channel or channel, claim.first_ts, alert.root)
            return Answer(200, {"ok": True, "duplicate": True, "channel": claim.channel or channel, "ts": claim.first_ts,
                                "collateral_of": claim.first_root})
        charged = False
        try:
            # Like a diagnosis in a thread: "nothing matched" is free; a job is charged once.
            if alert.root is not None and store.alerts.charge_once(team, alert.job):
                result = store.quotas.consume(team)
                if not result.allowed:
                    store.alerts.uncharge(team, alert.job)
                    store.alerts.release(team, alert.job, alert.key)
                    s = result.status
                    wait = max(60, math.ceil(s.resets_at.timestamp() - self.clock()))
                    return _no(429, f"this workspace has used its {s.daily_limit} diagnoses today; "
                               f"alerts resume at {s.resets_at:%H:%M} UTC", wait)
                charged = result
            ts, updated = self._post(client, team, claim, channel, alert)
        except SlackApiError as exc:  # the final alert's update of the first
            self._undo(team, alert, charged)
            error = exc.response.get("error") if exc.response is not None else "error"
            advice = CHANNEL_ADVICE.get(str(error))
            return _no(502, f"Slack refused the alert: {error}" + (f": {advice}" if advice else ""))
        except NotDelivered as exc:
            # Refused (not_in_channel), or neither confirmed nor shown for minutes: let the
            # watcher's retry post it (a second message is then possible; a lost alert is worse).
            self._undo(team, alert, charged)
            log.warning("alert in team=%s channel=%s not posted: %s", team, channel, exc)
            advice = CHANNEL_ADVICE.get(exc.error or "")
            return _no(502, f"{exc}: {advice}" if advice else str(exc))
        except BaseException:
            # The store went away, the network broke, a bug: nothing was posted, so nothing
            # stays charged or claimed (a retry posts it).
            self._undo(team, alert, charged)
            raise
        where = claim.channel or channel
        store.alerts.posted(team, alert.job, alert.key, where, ts, alert.root)
        self._remember(team, where, ts, alert, updated)
        log.info("alert posted team=%s channel=%s job=%s entry=%s kind=%s updated=%s",
                 team, where, alert.job, alert.root, alert.kind, updated)
        return Answer(200, {"ok": True, "channel": where, "ts": ts, "updated": updated})

    def _post(self, client: WebClient, team: str, claim: Claim, channel: str, alert: Alert) -> tuple[str, bool]:
        masked = mask_alert(alert)
        rule = self.deps.denpex.entry(alert.root) if alert.root else None
        titles = {cid: r.title for cid, _ in alert.collateral if (r := self.deps.denpex.entry(cid))}
        related = [r for rid in (rule.related if rule else ()) if (r := self.deps.denpex.entry(rid))]
        text, blocks = alert_message(masked, rule, titles, related)
        if alert.kind == "final" and claim.first_ts:
            channel = claim.channel or channel
            try:
                client.chat_update(channel=channel, ts=claim.first_ts, text=text, blocks=blocks)
                return claim.first_ts, True
            except SlackApiError as exc:
                error = exc.response.get("error")
                if error not in UNEDITABLE:
                    raise
                # The first alert cannot be edited (someone deleted it, or the workspace
                # closed editing): the job's end is told in a message of its own, as its
                # watcher's retries would otherwise meet the same refusal for 15 minutes.
                log.info("first alert of a job in team=%s channel=%s not editable (%s): posting the final one",
                         team, channel, error)
        # Posted as a diagnosis is (bot.slack.diagnosis.post_verified): an unknown outcome is
        # looked for in the channel before it is posted again, or the watcher's retry of a 502
        # would post a second alert.
        where = Where(team_id=team, channel=channel, ts="", thread_ts="", user=None)
        return post_verified(client, where, (text, blocks), alert_mark(channel, alert), event_type=ALERT_EVENT), False

    def _undo(self, team: str, alert: Alert, charged: Any) -> None:
        store = self.deps.store
        try:
            store.alerts.release(team, alert.job, alert.key)
            if charged:
                store.alerts.uncharge(team, alert.job)
                store.quotas.refund(team, charged.day)
        except StoreUnavailable:
            log.warning("could not undo the charge of an alert not posted in team=%s", team)

    def _remember(self, team: str, channel: str, ts: str, alert: Alert, updated: bool) -> None:
        """Thread context (follow-ups in the alert's thread), history and the recent alerts;
        the alert is out already, so a failure here is only logged."""
        store = self.deps.store
        rule = self.deps.denpex.entry(alert.root) if alert.root else None
        try:
            if rule is not None:
                outcome = _outcome_for_thread(alert, mask_alert(alert), self.deps)
                store.threads.save(team, channel, ts, thread_context(outcome, Place(team, channel, ts)))
                if not updated:  # the history lists a job's message once
                    # The Home tab is every member's: an alert of a channel not known to be
                    # public is kept out of the listed history (its members read it there).
                    audience = None if channel in store.alerts.public_channels(team) else ""
                    store.history.record(team, channel, rule.id, rule.title, alert.confidence or "low",
                                         alert.initiating_rank, audience=audience)
            store.alerts.record_recent(team, RecentAlert(self.clock(), channel, alert.job, alert.root,
                                                         rule.title if rule else "no known failure", alert.kind))
        except (StoreUnavailable, ValueError) as exc:
            log.warning("alert context not kept for team=%s: %s", team, type(exc).__name__)


# What the person at the node can do about Slack's refusal of the connected channel: the
# watcher prints the error, and a bare `not_in_channel` leaves them guessing whose fault it is.
CHANNEL_ADVICE = {
    "not_in_channel": "invite Denpex to the channel (`/invite @Denpex`); the watcher retries meanwhile",
    "is_archived": "the channel is archived: unarchive it, or run `/denpex alerts connect` in another channel",
    "channel_not_found": "the channel was deleted or is closed to Denpex: run `/denpex alerts connect` in a channel "
                         "Denpex is in",
    "restricted_action": "the channel lets only some members post: allow Denpex to post there, or connect another "
                         "channel",
}

# chat.update's refusals of the message itself, not of the channel or the token: the final
# alert goes out as a new message instead.
UNEDITABLE = ("message_not_found", "cant_update_message", "edit_window_closed")

# The metadata event an alert message carries, so an unconfirmed post can be looked for.
ALERT_EVENT = "denpex_alert"


def alert_mark(channel: str, alert: Alert) -> str:
    """What marks one job's alert in its message's metadata: a digest, so nothing of the job's
    name (a node may use its Slurm job name) is written into Slack."""
    return digest(f"{channel}:{alert.job}:{alert.key}")[:24]


def mask_alert(alert: Alert) -> MaskedAlert:
    """The node masked these already; masking them again changes nothing and makes them
    MaskedText here, so a watcher that skipped masking still cannot put raw text in Slack."""
    masker = Masker()
    return MaskedAlert(
        alert=alert,
        evidence=[(e.line, e.rank, masker.mask(e.text)) for e in alert.evidence],
        host=masker.mask(alert.host) if alert.host else None,
        unmatched=masker.mask(alert.unmatched) if alert.unmatched else None,
    )


def _outcome_for_thread(alert: Alert, masked: MaskedAlert, deps: BotDeps) -> Outcome:
    """A diagnosis shaped like the bot's own, for the thread context follow-ups read."""
    from bot.matcher import Collateral, Diagnosis, Evidence, Match, Stats
    from bot.report import build_report

    rule = deps.denpex.entry(alert.root or "")
    assert rule is not None
    match = Match(id=rule.id, title=rule.title, category=rule.category, confidence=alert.confidence or "low",  # type: ignore[arg-type]
                  score=0.0, role="root", ranks=alert.ranks,
                  evidence=[Evidence(line=n, rank=r, text=t) for n, r, t in masked.evidence])
    d = Diagnosis(matches=[match], initiating_rank=alert.initiating_rank,
                  collateral=[Collateral(cid, ranks) for cid, ranks in alert.collateral], unmatched=None,
                  stats=Stats(0, 0, 0))
    return Outcome(d, build_report(d, deps.denpex.rulebook))


def ingest_endpoint(deps: BotDeps, app: App) -> Ingest:
    return Ingest(deps, app)


def answer_http(ingest: Ingest, handler: Any) -> None:
    """Serve one POST of a `http.server` handler through the endpoint (Socket Mode, where the
    only HTTP server is the health server: `denpex watch` posts to it)."""
    environ = {
        "REQUEST_METHOD": handler.command, "PATH_INFO": handler.path.split("?")[0],
        "CONTENT_LENGTH": handler.headers.get("Content-Length") or "0",
        "CONTENT_TYPE": handler.headers.get("Content-Type") or "",
        "HTTP_AUTHORIZATION": handler.headers.get("Authorization") or "", "wsgi.input": handler.rfile,
    }  # fmt: skip
    started: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        started.update(status=int(status.split()[0]), headers=headers)

    body = b"".join(ingest(environ, start_response))
    handler.send_response(started["status"])
    for name, value in started["headers"]:
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)
