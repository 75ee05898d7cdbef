"""Every Bolt listener, one module per kind; `register_listeners` wires them in order."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.deps import BotDeps
from bot.slack.listeners import actions, commands, home, ignored, lifecycle, messages
from bot.slack.middleware import dedupe_events, replays, slack_rate_limited, workspace


def register_listeners(app: App, deps: BotDeps) -> None:
    app.use(workspace)
    app.use(slack_rate_limited)
    app.use(replays(deps))
    app.use(dedupe_events(deps))
    messages.register(app, deps)
    commands.register(app, deps)
    actions.register(app, deps)
    home.register(app, deps)
    lifecycle.register(app, deps)
    # Catch-alls last: an event nobody handles must still be acknowledged, or Slack re-sends it.
    ignored.register(app, deps)
