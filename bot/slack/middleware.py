"""Cross-cutting request handling, as Bolt middleware, in order: the workspace (checked, and
put in the context), Slack's rate-limit notices, replayed commands and clicks, re-sent events.

Slack re-sends an event it thinks was not acknowledged (X-Slack-Retry-Num), and Bolt does not
deduplicate: the event id is claimed atomically in Redis, so a re-sent event, or the same
event reaching two replicas, gets one reply and one charge.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import BoltResponse

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps
from bot.slack.http import NO_RETRY
from bot.slack.listeners.commands import changes_something
from bot.store import StoreUnavailable
from bot.store.keys import check_team_id

log = logging.getLogger("denpex.slack")

# A signed request stays acceptable for 5 minutes either side of its timestamp: remember a
# command or a click for longer than that, so a replay inside the window runs nothing.
REPLAY_TTL_S = 660
REPLAYED_TEXT = ("Slack delivered this `/denpex` request twice; it ran once, the first time. "
                 "Run the command again to do it again.")


def _header(request: Any, name: str) -> str:
    values = (getattr(request, "headers", None) or {}).get(name) or []
    if isinstance(values, str):
        return values
    return values[0] if values else ""


def request_fingerprint(body: dict[str, Any], request: Any) -> str | None:
    """What makes one slash command or click unique: the signed timestamp and raw body (a
    replay repeats both); in Socket Mode, which signs nothing, the trigger id."""
    raw = getattr(request, "raw_body", None)
    ts = _header(request, "x-slack-request-timestamp")
    if raw and ts:
        return hashlib.sha256(f"{ts}:{raw}".encode("utf-8", "surrogatepass")).hexdigest()[:40]
    trigger = body.get("trigger_id")
    if isinstance(trigger, str) and trigger:
        return hashlib.sha256(trigger.encode()).hexdigest()[:40]
    return None


def workspace_of(context: Any) -> Any:
    """The installation a request is for, from Bolt's context: the organization for an
    org-wide (Enterprise Grid) install, whose events carry no workspace of their own in
    `authorizations`; otherwise the workspace. Bolt reads both from `authorizations[0]` before
    the envelope, which is what a shared channel needs: there the envelope's `team_id` can be
    another organization's workspace."""
    if context.get("is_enterprise_install") and context.get("enterprise_id"):
        return context.get("enterprise_id")
    return context.get("team_id")


def known_team(team: Any) -> bool:
    """A plausible Slack workspace (or organization) id: every key of a workspace is built from it."""
    try:
        check_team_id(team)
    except ValueError:
        return False
    return True


def workspace(context: Any, body: dict[str, Any], next: Callable[[], None]) -> Any:
    """Every request names a plausible workspace; listeners read it as context["workspace_id"]."""
    team = workspace_of(context)
    if not known_team(team):
        # Not something Slack sends; refuse it here rather than fail in a listener.
        log.warning("request with an invalid team id refused")
        return BoltResponse(status=400, body="invalid team", headers=NO_RETRY)
    context["workspace_id"] = team
    return next()


def slack_rate_limited(context: Any, body: dict[str, Any], next: Callable[[], None]) -> Any:
    """Slack telling us it drops this workspace's events for a minute: 200, as it asks."""
    if body.get("type") == "app_rate_limited":
        log.warning("Slack rate-limited the events of team=%s (minute %s)", context.get("workspace_id"),
                    body.get("minute_rate_limited"))
        return BoltResponse(status=200, body="")
    return next()


def replays(deps: BotDeps) -> Callable[..., Any]:
    """A command or a click runs once, whatever replays its signed request."""

    def once(context: Any, body: dict[str, Any], request: Any, next: Callable[[], None]) -> Any:
        if body.get("command") or body.get("type") in ("block_actions", "view_submission", "shortcut", "message_action"):
            return _once(deps, context, body, request, next)
        return next()

    return once


def dedupe_events(deps: BotDeps) -> Callable[..., Any]:
    """An event is handled once, however often Slack re-sends it or to however many replicas."""

    def dedupe(context: Any, body: dict[str, Any], request: Any, next: Callable[[], None]) -> Any:
        team = context["workspace_id"]
        if body.get("type") != "event_callback" or not body.get("event_id"):
            return next()
        try:
            first = deps.store.dedupe.first_time(team, f"event:{body['event_id']}")
        except StoreUnavailable:
            # Without Redis we cannot tell a retry from a first delivery: answer first
            # deliveries (they will say the service is unavailable), drop the retries.
            # Socket Mode marks a first delivery too (`retry_attempt` 0, which Bolt hands on as
            # X-Slack-Retry-Num: 0): only a number past 0 is a re-delivery.
            if _header(request, "x-slack-retry-num").strip() not in ("", "0"):
                return BoltResponse(status=200, body="")
            return next()
        except ValueError:  # an event id no key can hold (whitespace, 200+ characters)
            log.warning("event with an invalid event id refused for team=%s", team)
            return BoltResponse(status=400, body="invalid event id", headers=NO_RETRY)
        if not first:
            log.info("duplicate event %s for team=%s dropped", body["event_id"], team)
            return BoltResponse(status=200, body="")
        return next()

    return dedupe


def _once(deps: BotDeps, context: Any, body: dict[str, Any], request: Any, next: Callable[[], None]) -> Any:
    """Run a command or a click once: a replay of the same signed request (within Slack's
    5-minute window) is acknowledged and changes nothing; a command that only reads is
    answered again, uncounted."""
    team = context["workspace_id"]
    fingerprint = request_fingerprint(body, request)
    if fingerprint is None:
        return next()
    try:
        first = deps.store.dedupe.first_time(team, f"request:{fingerprint}", REPLAY_TTL_S)
    except StoreUnavailable:
        return next()  # the listener says the service is unavailable, as for any request
    if first:
        return next()
    if body.get("command"):
        # Slack gives every invocation its own trigger_id, so a byte-identical signed command
        # is one request sent again (a proxy, a client's retry, a replay), never two
        # invocations. An answer that only reads is given again, or the person sees nothing:
        # an empty 200 shows no reply; it is not counted again (context["replayed"], read by
        # bot.slack.user_limits). One that changes something (redeem, alerts connect) is not
        # run again, and says so: its answer may hold what is shown once (an ingest token).
        if not changes_something(body):
            log.info("repeated request (%s) for team=%s answered again, not counted", body.get("command"), team)
            context["replayed"] = True
            return next()
        log.warning("replayed request (%s) for team=%s not run again", body.get("command"), team)
        text, blocks = ui.error_message(REPLAYED_TEXT)
        return BoltResponse(status=200, body=json.dumps({"response_type": "ephemeral", "text": text, "blocks": blocks}),
                            headers={"content-type": "application/json"})
    log.warning("replayed request (%s) for team=%s dropped", body.get("type"), team)
    return BoltResponse(status=200, body="")
