"""App Home: the workspace's plan, today's usage, when it resets, how to redeem a code."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps
from bot.slack.middleware import team_of
from bot.store import StoreUnavailable


def publish_home(deps: BotDeps, client: WebClient, team: str, user: str) -> None:
    try:
        status = deps.store.quotas.status(team)
    except StoreUnavailable:
        status = None
    client.views_publish(user_id=user, view=ui.home_view(status))


def register(app: App, deps: BotDeps) -> None:
    def ack_now(ack: Ack) -> None:
        ack()

    def on_home(body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        if event.get("tab", "home") != "home" or not event.get("user"):
            return
        publish_home(deps, client, team_of(body), event["user"])

    app.event("app_home_opened")(ack=ack_now, lazy=[on_home])
