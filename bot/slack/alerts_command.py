"""`/denpex alerts connect | revoke | status`: a channel's ingest token for `denpex watch`.

The token is shown once, in the ephemeral answer to the person who asked, and kept only
hashed; connecting again replaces it. Alerts are a Scale plan feature: a free workspace is told
so (and how to switch it on) instead of getting a token that would only be refused.
"""

from __future__ import annotations

from typing import Any

from slack_sdk import WebClient

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps
from bot.slack.membership import bot_in_channel
from bot.store import Plan

USAGE = "Usage: `/denpex alerts connect` (in the channel alerts should go to), `/denpex alerts revoke`, `/denpex alerts status`"


def is_public(channel: str, channel_name: str) -> bool:
    """Slack names a public channel in a command's `channel_name`; a private one is
    `privategroup` (or has a `G` id), a group DM `mpdm-...`. Anything unnamed counts as private."""
    return bool(channel_name) and channel_name != "privategroup" and not channel_name.startswith("mpdm-") \
        and channel.startswith("C")


def respond_alerts(deps: BotDeps, team: str, user: str, channel: str | None, rest: str,
                   channel_name: str = "", token_team: str | None = None,
                   client: WebClient | None = None) -> tuple[str, list[dict[str, Any]]]:
    """`token_team`: in single-token mode, the workspace the bot's one token belongs to (what
    `auth.test` says); None where each workspace posts with its own installation's token.
    `client`: the workspace's Web API client, to ask whether the bot is in the channel."""
    word = rest.split()[0].lower() if rest.split() else ""
    if word not in ("connect", "revoke", "status"):
        return ui.error_message(USAGE)
    store = deps.store
    if word == "status":
        channels = store.alerts.channels(team)
        text = ("Alerts go to " + ", ".join(f"<#{c}>" for c in channels)) if channels else "No channel is connected for alerts."
        return text, [ui.section(text)]
    if not channel or not channel.startswith(("C", "G")):
        return ui.error_message("Run this in the channel the alerts should go to (not in a direct message).")
    if word == "revoke":
        if store.alerts.revoke(team, channel):
            text = f"Revoked: the ingest token of <#{channel}> no longer works. `/denpex alerts connect` makes a new one."
        else:
            text = f"<#{channel}> has no ingest token to revoke."
        return text, [ui.section(text)]
    if token_team is not None and team != token_team:
        # The ingest endpoint posts an alert only with a token of the alert's workspace, and
        # refuses (403) any other: a token handed out here would never carry an alert.
        return ui.error_message("This bot is installed in another workspace, so it cannot post alerts for this one "
                                "(a channel shared between workspaces, or another workspace of the organization). "
                                "Run `/denpex alerts connect` from the workspace the bot is installed in.")
    if store.plans.get(team).plan != Plan.SCALE.value:
        return ui.error_message("Alerts from `denpex watch` are a Scale plan feature, and this workspace is on the "
                                "free plan. Redeem an evaluation code with `/denpex redeem <code>`, then connect again.")
    if client is not None and bot_in_channel(client, channel) is False:
        # A token for a channel the bot is not in carries no alert: Slack refuses each post
        # (`not_in_channel`), and the manifest has no scope to join it.
        text = (f":warning: I'm not a member of <#{channel}>, so I could not post its alerts. Add me with "
                "`/invite @Denpex` in this channel, then run `/denpex alerts connect` again.")
        return text, [ui.section(text)]
    token = store.alerts.connect(team, channel, user, public=is_public(channel, channel_name))
    text = (
        f":rotating_light: Alerts from `denpex watch` will be posted in <#{channel}>. This ingest token is shown "
        "once, now; keep it in your job's secrets (any older token of this channel has stopped working):\n"
        f"```{token}```\n"
        "On the training node:\n"
        # Slack decodes entities inside code blocks too: the placeholders show as <...>.
        + ui.esc("```export DENPEX_ALERT_URL=<this bot's URL>\nexport DENPEX_ALERT_TOKEN=<the token above>\n")
        + "denpex watch -- torchrun --nproc-per-node 8 train.py```\n"
        "Revoke it with `/denpex alerts revoke`."
    )
    return "Alerts connected: your ingest token is in this message (shown once).", [ui.section(text)]
