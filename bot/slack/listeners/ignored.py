"""Requests the bot receives but has nothing to do for: acknowledged, so Slack neither re-sends
them nor shows the person an error. Registered last: a real listener always matches first."""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps
from bot.slack.webapi import CALL_FAILED, reply_client

log = logging.getLogger("denpex.slack")

_ANY = re.compile(r".*")


def explain_shortcut(body: dict[str, Any], client: WebClient) -> None:
    """Open the modal of ui.unknown_shortcut_view. Its trigger_id lasts 3 s: a failure (an
    expired trigger, Slack refusing) is only logged, there is nowhere else to say it."""
    trigger = body.get("trigger_id")
    if not isinstance(trigger, str) or not trigger:
        return
    try:
        # Not repeated after a 5xx or a reset: a second modal would stack on the first.
        reply_client(client).views_open(trigger_id=trigger, view=ui.unknown_shortcut_view(str(body.get("callback_id") or "")))
    except CALL_FAILED as exc:
        error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
        log.info("modal for an unknown shortcut not opened: %s", error)


def register(app: App, deps: BotDeps) -> None:
    def ignore(ack: Ack) -> None:
        ack()

    app.event(_ANY)(ignore)
    # A shortcut or message action the app was given elsewhere (the app config): acknowledged
    # (a 404 would show the person a warning, and in Socket Mode an unacknowledged envelope is
    # re-delivered), then a modal saying it does nothing, opened with its trigger_id.
    app.shortcut(_ANY)(ack=ignore, lazy=[explain_shortcut])
    # A click on a button of no listener (an old message's, a removed feature's), a modal.
    app.action(_ANY)(ignore)
    app.view(_ANY)(ignore)
    # `view` with a callback id matches submissions only: a closed modal is its own kind.
    app.view_closed(_ANY)(ignore)

    def other_command(ack: Ack, body: dict[str, Any]) -> None:
        text, blocks = ui.other_command_message(str(body.get("command") or ""))
        ack(text=text, blocks=blocks, response_type="ephemeral")

    # A slash command other than /denpex pointed at the app (an old `/denpex-dev` a workspace
    # kept): a 404 shows the person "dispatch_failed"; say which command is ours instead.
    app.command(_ANY)(other_command)

    def no_options(ack: Ack) -> None:
        ack(options=[])

    # A select menu asking for options (block_suggestion): an empty list, not a 404.
    app.options(_ANY)(no_options)
