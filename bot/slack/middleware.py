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
from bot.store.keys import check_team_id

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


def known_team(team: Any) -> bool:
    """A plausible Slack workspace id: every key of a workspace is built from it."""
    try:
        check_team_id(team)
    except ValueError:
        return False
    return True


def dedupe_events(deps: BotDeps) -> Callable[..., Any]:
    def dedupe(body: dict[str, Any], request: Any, next: Callable[[], None]) -> Any:
        team = team_of(body)
        if not known_team(team):
            # Not something Slack sends; refuse it here rather than fail in a listener.
            log.warning("request with an invalid team id refused")
            return BoltResponse(status=400, body="invalid team")
        if body.get("type") == "app_rate_limited":
            # Slack tells us it is dropping this workspace's events for a minute: 200, as asked.
            log.warning("Slack rate-limited the events of team=%s (minute %s)", team, body.get("minute_rate_limited"))
            return BoltResponse(status=200, body="")
        if body.get("type") != "event_callback" or not body.get("event_id"):
            return next()
        try:
            first = deps.store.dedupe.first_time(team, f"event:{body['event_id']}")
        except StoreUnavailable:
            # Without Redis we cannot tell a retry from a first delivery: answer first
            # deliveries (they will say the service is unavailable), drop the retries.
            retry = request.headers.get("x-slack-retry-num") if request is not None else None
            if retry:
                return BoltResponse(status=200, body="")
            return next()
        except ValueError:  # an event id no key can hold (whitespace, 200+ characters)
            log.warning("event with an invalid event id refused for team=%s", team)
            return BoltResponse(status=400, body="invalid event id")
        if not first:
            log.info("duplicate event %s for team=%s dropped", body["event_id"], team)
            return BoltResponse(status=200, body="")
        return next()

    return dedupe
