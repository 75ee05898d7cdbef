"""Is the bot in a channel? Asked before `/denpex alerts connect` hands out an ingest token,
whose alerts chat.postMessage would otherwise refuse with `not_in_channel`.

The manifest grants no `channels:read`/`groups:read` (conversations.info's `is_member`) nor
`channels:join`; `channels:history` and `groups:history`, which it has, read a conversation
only for a member: conversations.history answers `not_in_channel` (or `channel_not_found`
for a private channel) to a bot outside it. One message is asked for and nothing of it read.
"""

from __future__ import annotations

import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack.webapi import CALL_FAILED, courtesy_client

log = logging.getLogger("denpex.slack")

# The question is asked inside the command's 3-second acknowledgement: one try, briefly.
ASK_TIMEOUT_S = 1.5

# Slack's answers that mean the bot cannot read, so cannot post in, the channel.
NOT_A_MEMBER = ("not_in_channel", "channel_not_found")


def bot_in_channel(client: WebClient, channel: str) -> bool | None:
    """True if the bot is a member of `channel`, False if Slack says it is not, None when Slack
    did not say (a timeout, a 5xx, another refusal): the caller then goes ahead, as before."""
    try:
        courtesy_client(client, ASK_TIMEOUT_S, retry=False).conversations_history(channel=channel, limit=1)
    except SlackApiError as exc:
        error = exc.response.get("error")
        if error in NOT_A_MEMBER:
            return False
        log.info("membership of a channel not known: %s", error)
        return None
    except CALL_FAILED as exc:
        log.info("membership of a channel not known: %s", type(exc).__name__)
        return None
    return True
