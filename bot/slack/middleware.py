"""Cross-cutting request handling, as Bolt middleware: event dedupe before any listener runs.

Slack re-sends an event it thinks was not acknowledged (X-Slack-Retry-Num), and Bolt does not
deduplicate: the event id is claimed atomically in Redis, so a re-sent event, or the same
event reaching two replicas, gets one reply and one charge.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import BoltResponse

from bot.slack.deps import BotDeps
from bot.store import StoreUnavailable

log = logging.getLogger("denpex.slack")


def team_of(body: dict[str, Any]) -> str:
    """The workspace a request belongs to, whatever its kind (event, command, action)."""
    team = body.get("team_id")
    if not team and isinstance(body.get("team"), dict):
        team = body["team"].get("id")
    if not team and isinstance(body.get("user"), dict):
        team = body["user"].get("team_id")
    if not team and isinstance(body.get("event"), dict):
        team = body["event"].get("team")
    return team or "unknown"


def dedupe_events(deps: BotDeps) -> Callable[..., Any]:
    def dedupe(body: dict[str, Any], request: Any, next: Callable[[], None]) -> Any:
        if body.get("type") != "event_callback" or not body.get("event_id"):
            return next()
        team = team_of(body)
        try:
            first = deps.store.dedupe.first_time(team, f"event:{body['event_id']}")
        except StoreUnavailable:
            # Without Redis we cannot tell a retry from a first delivery: answer first
            # deliveries (they will say the service is unavailable), drop the retries.
            retry = request.headers.get("x-slack-retry-num") if request is not None else None
            if retry:
                return BoltResponse(status=200, body="")
            return next()
        if not first:
            log.info("duplicate event %s for team=%s dropped", body["event_id"], team)
            return BoltResponse(status=200, body="")
        return next()

    return dedupe
