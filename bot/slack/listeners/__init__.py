"""Every Bolt listener, one module per kind; `register_listeners` wires them in order."""

from __future__ import annotations

from typing import cast

from slack_bolt import App

from bot.slack.deps import BotDeps
from bot.slack.listeners import actions, commands, home, ignored, lifecycle, messages, uploads
from bot.slack.middleware import dedupe_events, replays, slack_rate_limited, workspace
from bot.slack.outage import OutageGuardedApp


def register_listeners(app: App, deps: BotDeps) -> None:
    app.use(workspace)
    app.use(slack_rate_limited)
    app.use(replays(deps))
    app.use(dedupe_events(deps))
    # Every listener, lazy ones too, answers a Redis outage the same way: the modules register
    # on a stand-in for the App that wraps each function (bot.slack.outage).
    guarded = cast(App, OutageGuardedApp(app))
    messages.register(guarded, deps)
    uploads.register(guarded, deps)
    commands.register(guarded, deps)
    actions.register(guarded, deps)
    home.register(guarded, deps)
    lifecycle.register(guarded, deps)
    # Catch-alls last: an event nobody handles must still be acknowledged, or Slack re-sends it.
    ignored.register(guarded, deps)
