"""Slack event payloads and readers of what the bot posted, shared by the tests of the Slack
edge (tests/slack, tests/reliability, tests/followup): one spelling of a message event."""

from __future__ import annotations

import json
from typing import Any

from bot.store import Store, StoreConfig
from tests.slack.fake_slack import TEAM_ID

CHANNEL = "C0LOGS"


def message(text: str, ts: str, *, channel: str = CHANNEL, user: str = "U0ALICE", team: str = TEAM_ID,
            **extra: Any) -> dict[str, Any]:
    """A `message` event as Slack sends it from a public channel; `extra` adds or overrides fields."""
    return {"type": "message", "channel": channel, "user": user, "text": text, "ts": ts,
            "channel_type": "channel", "team": team, **extra}


def all_text(call: Any) -> str:
    """Everything a recorded Web API call would show: its blocks (as JSON) and its text."""
    return json.dumps(call.params.get("blocks") or []) + (call.params.get("text") or "")


def mrkdwn_strings(call: Any) -> list[str]:
    """Every string Slack would render as mrkdwn from a recorded call: the fallback and each block's."""
    out = [call.params.get("text") or ""]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "mrkdwn" and isinstance(node.get("text"), str):
                out.append(node["text"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(call.params.get("blocks") or [])
    return out


def used(bot: Any, team: str = TEAM_ID) -> int:
    """Diagnoses charged to `team` today, read from the bot's Redis."""
    with Store(StoreConfig(url=bot.redis_url)) as store:
        return store.quotas.status(team).used
