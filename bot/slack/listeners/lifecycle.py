"""Uninstalls and token revocations: forget the workspace.

`app_uninstalled`, or `tokens_revoked` naming the bot's token, deletes the workspace's
installation (its encrypted token), thread contexts, history, dedupe markers, feedback and
counters. Its plan and the day's usage stay (with codes, which are global), so uninstalling
and installing again resets neither a paid plan nor the day's quota. A revoked user token
only drops that user's token. Bolt calls no `auth.test` for these events: the token is gone.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext

from bot.slack.deps import BotDeps
from bot.store import StoreUnavailable

log = logging.getLogger("denpex.slack")


def forget(deps: BotDeps, app: App, context: BoltContext) -> None:
    """Delete the installation serving the request's workspace (or org) and its data."""
    enterprise, team = context.enterprise_id, context.get("workspace_id")
    installations = app.installation_store
    try:
        if installations is not None:
            if context.is_enterprise_install:
                installations.delete_all(enterprise_id=enterprise, team_id=None)
            else:
                installations.delete_all(enterprise_id=enterprise, team_id=team)
        if team and team != "unknown":
            deleted = deps.store.forget_workspace(team)
            log.info("workspace team=%s forgotten (%d keys deleted)", team, len(deleted))
    except (StoreUnavailable, ValueError) as exc:
        # Slack does not re-send an acknowledged event: say so loudly for an operator.
        log.error("could not forget workspace team=%s after an uninstall: %s", team, type(exc).__name__)


def register(app: App, deps: BotDeps) -> None:
    def ack_now(ack: Ack) -> None:
        ack()

    def on_uninstalled(context: BoltContext) -> None:
        forget(deps, app, context)

    def on_tokens_revoked(event: dict[str, Any], context: BoltContext) -> None:
        tokens = event.get("tokens") or {}
        if tokens.get("bot"):
            forget(deps, app, context)
            return
        installations = app.installation_store
        if installations is None:
            return
        try:
            for user_id in tokens.get("oauth") or []:
                installations.delete_installation(enterprise_id=context.enterprise_id,
                                                  team_id=context.team_id, user_id=user_id)
        except StoreUnavailable:
            log.error("store unavailable: revoked user tokens of team=%s not dropped", context.team_id)

    app.event("app_uninstalled")(ack=ack_now, lazy=[on_uninstalled])
    app.event("tokens_revoked")(ack=ack_now, lazy=[on_tokens_revoked])
