"""Events the bot receives but has nothing to do for: acknowledged, so Slack does not re-send."""

from __future__ import annotations

import re

from slack_bolt import Ack, App

from bot.slack.deps import BotDeps


def register(app: App, deps: BotDeps) -> None:
    def ignore(ack: Ack) -> None:
        ack()

    # `file_shared` duplicates the `message` with subtype file_share, which is the one handled.
    app.event("file_shared")(ignore)
    app.event(re.compile(r".*"))(ignore)
