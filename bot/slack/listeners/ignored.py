"""Requests the bot receives but has nothing to do for: acknowledged, so Slack neither re-sends
them nor shows the person an error. Registered last: a real listener always matches first."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import Ack, App

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps

_ANY = re.compile(r".*")


def register(app: App, deps: BotDeps) -> None:
    def ignore(ack: Ack) -> None:
        ack()

    app.event(_ANY)(ignore)
    # A shortcut or message action the app was given elsewhere (the app config), a click on a
    # button of no listener (an old message's, a removed feature's), a modal: a 404 would show
    # the person a warning, and in Socket Mode an unacknowledged envelope is re-delivered.
    app.shortcut(_ANY)(ignore)
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
