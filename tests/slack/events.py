"""Slack event payloads and readers of what the bot posted, shared by the tests of the Slack
edge (tests/slack, tests/reliability, tests/followup): one spelling of a message event."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from bot.store import Store, StoreConfig
from tests.slack.fake_slack import TEAM_ID

CHANNEL = "C0LOGS"
# A rank's OOM as torchrun prints it: the paste most Slack tests diagnose.
OOM_PASTE = (
    "[rank3]: Traceback (most recent call last):\n"
    '[rank3]:   File "train.py", line 88, in <module>\n'
    "[rank3]:     loss.backward()\n"
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
    "capacity of 79.15 GiB of which 1.2 GiB is free.\n"
)
# What Slack renders live in mrkdwn: a special mention, a user, a channel, a link.
LIVE_MRKDWN = re.compile(r"<(?:!|@[UW]|#C|https?:|mailto:)")


def message(text: str, ts: str, *, channel: str = CHANNEL, user: str = "U0ALICE", team: str = TEAM_ID,
            **extra: Any) -> dict[str, Any]:
    """A `message` event as Slack sends it from a public channel; `extra` adds or overrides fields."""
    return {"type": "message", "channel": channel, "user": user, "text": text, "ts": ts,
            "channel_type": "channel", "team": team, **extra}


def file_shared(file_id: str, channel: str = CHANNEL, user: str = "U0ALICE") -> dict[str, Any]:
    """A `file_shared` event: ids only (docs.slack.dev/reference/events/file_shared)."""
    return {"type": "file_shared", "channel_id": channel, "file_id": file_id, "user_id": user,
            "file": {"id": file_id}, "event_ts": f"{time.time():.6f}"}


def ephemeral_show_click(response_url: str, ts: str, trigger: str) -> dict[str, Any]:
    """A "Show" click on `cuda-oom` under a private /denpex lookup: its container is ephemeral
    and the answer's way back is `response_url`."""
    return {
        "type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE", "team_id": TEAM_ID},
        "api_app_id": "A0DENPEX", "trigger_id": trigger, "channel": {"id": CHANNEL, "name": "training"},
        "container": {"type": "message", "message_ts": ts, "channel_id": CHANNEL, "is_ephemeral": True},
        "response_url": response_url,
        "actions": [{"action_id": "denpex_show_cuda-oom", "block_id": "b", "type": "button", "value": "cuda-oom",
                     "action_ts": ts.split(".")[0] + ".1"}],
    }  # fmt: skip


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
