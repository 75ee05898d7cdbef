"""App Home: the workspace's plan, today's usage, when it resets, how to redeem a code, and
its recent diagnoses (the last 3 on the free plan, 20 on scale)."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps
from bot.slack.webapi import CALL_FAILED
from bot.store import Plan, StoreUnavailable

log = logging.getLogger("denpex.slack")

# Recent diagnoses shown on the Home tab, by plan (the scale plan promises the history).
HISTORY_SHOWN = {Plan.FREE.value: 3, Plan.SCALE.value: 20}


def recent_history(deps: BotDeps, team: str, plan: str, user: str | None) -> list[dict[str, Any]]:
    """The workspace's latest diagnoses as `user`'s Home tab lists them: public channels', and
    their own from DMs and private conversations (never any log text)."""
    entries = deps.store.history.recent(team, HISTORY_SHOWN.get(plan, HISTORY_SHOWN[Plan.FREE.value]), viewer=user)
    return [
        {"when": f"{e.when:%Y-%m-%d %H:%M} UTC", "channel": e.channel, "entry_id": e.entry_id,
         "title": e.title, "confidence": e.confidence, "initiating_rank": e.initiating_rank}
        for e in entries
    ]  # fmt: skip


def publish_home(deps: BotDeps, client: WebClient, team: str, user: str, app_id: str | None = None,
                 link_team: str | None = None) -> None:
    history: list[dict[str, Any]] = []
    try:
        status = deps.store.quotas.status(team)
    except StoreUnavailable:
        status = None
    if status is not None:
        with contextlib.suppress(StoreUnavailable):
            history = recent_history(deps, team, status.plan, user)
    view = ui.home_view(status, history, app_id=app_id, team=link_team or team)
    with contextlib.suppress(StoreUnavailable):
        from bot.slack.alerts_home import alerts_home_blocks

        # Above the help text, which closes the tab.
        view["blocks"] = ui.fit([*view["blocks"][:-1], *alerts_home_blocks(deps, team), *view["blocks"][-1:]])
    try:
        client.views_publish(user_id=user, view=view)
    except CALL_FAILED as exc:
        # `not_enabled` (the Home tab is off in the app's config), a timeout: nobody waits on
        # the tab, and the next open publishes it afresh.
        error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
        log.info("home tab for team=%s not published: %s", team, error)


def register(app: App, deps: BotDeps) -> None:
    def ack_now(ack: Ack) -> None:
        ack()

    def on_home(event: dict[str, Any], body: dict[str, Any], client: WebClient, context: Any) -> None:
        if event.get("tab", "home") != "home" or not event.get("user"):
            return
        # The link to a DM opens the workspace the event came from (not an org's id, on Grid).
        publish_home(deps, client, context["workspace_id"], event["user"], body.get("api_app_id"),
                     link_team=body.get("team_id"))

    app.event("app_home_opened")(ack=ack_now, lazy=[on_home])
