"""Uploads that reach the bot only as `file_shared`.

An upload arrives twice: as a `message` with subtype file_share (its files, the text typed
with them, the `ts` to thread under), which bot.slack.listeners.messages answers, and as
`file_shared`, which carries ids only (`file_id`, `user_id`, `channel_id`, `event_ts`). When
the message event does not come (a channel whose message events the app is not sent),
`file_shared` is answered instead: files.info lists the messages carrying the file
(`shares.public|private[channel]`, each with its `ts`, and `thread_ts` in a thread), and that
message is handled as if its event had come, files and all.

Once, whichever way: the message event marks each of its files in Redis (by channel and file
id, with expiry), whether it answers or not; `file_shared` waits a moment for it and gives way
when the mark is there. When it answers first, it takes the message's own claim (channel and
ts), which the message event, arriving late, then finds taken.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import timers
from bot.slack.deps import BotDeps
from bot.slack.files import message_files, read_file_info
from bot.slack.webapi import CALL_FAILED
from bot.store import StoreUnavailable

log = logging.getLogger("denpex.slack")

# Slack sends the two events of an upload together, in no set order: how long `file_shared`
# leaves the message event (which knows the text typed with the file) to come first.
GRACE_S = 1.0  # DENPEX_FILE_SHARED_GRACE_S


def grace() -> float:
    return timers.seconds("DENPEX_FILE_SHARED_GRACE_S", GRACE_S)


def _mark(file_id: str, channel: str) -> str:
    return f"file:{channel}:{file_id}"


def mark_files(deps: BotDeps, team: str, event: dict[str, Any]) -> None:
    """Note that the message event of an upload came: its `file_shared` then leaves the upload
    to it, answered or not (another bot's upload is not). Without Redis nothing is noted, and
    `file_shared`, which cannot look either, does nothing."""
    channel = event.get("channel")
    if not isinstance(channel, str) or not channel:
        return
    try:
        for f in message_files(event):
            deps.store.dedupe.first_time(team, _mark(f["id"], channel))
    except (StoreUnavailable, ValueError):  # ValueError: ids no key can hold
        pass


def shared_message(info: dict[str, Any], file_id: str, channel: str, user: str, near_ts: str) -> dict[str, Any] | None:
    """The message carrying the file in `channel`, from files.info's `shares`, as a
    file_share message event (None when it lists none there). Of several, the one nearest the
    `file_shared` event's time."""
    shares = info.get("shares") if isinstance(info.get("shares"), dict) else {}
    found: list[tuple[str, dict[str, Any]]] = []
    for kind in ("public", "private"):
        places = shares.get(kind) if isinstance(shares.get(kind), dict) else {}
        entries = places.get(channel) if isinstance(places.get(channel), list) else []
        found += [(kind, e) for e in entries if isinstance(e, dict) and isinstance(e.get("ts"), str) and e["ts"]]
    if not found:
        return None
    kind, share = min(found, key=lambda ks: abs(_seconds(ks[1]["ts"]) - _seconds(near_ts)))
    event: dict[str, Any] = {
        "type": "message", "subtype": "file_share", "channel": channel, "user": user, "text": "",
        "ts": share["ts"], "files": [{"id": file_id}],
        # Public, a DM, or else private (a private channel or a group DM): what the reply and
        # the App Home's listing depend on.
        "channel_type": "channel" if kind == "public" else ("im" if channel.startswith("D") else "group"),
    }  # fmt: skip
    if isinstance(share.get("thread_ts"), str) and share["thread_ts"] != share["ts"]:
        event["thread_ts"] = share["thread_ts"]
    return event


def _seconds(ts: str) -> float:
    try:
        return float(ts)
    except (TypeError, ValueError):
        return 0.0


def register(app: App, deps: BotDeps) -> None:
    from bot.slack.listeners.messages import handle_message

    def ack_now(ack: Ack) -> None:
        ack()

    def on_file_shared(event: dict[str, Any], client: WebClient, context: Any) -> None:
        file_id, channel, user = event.get("file_id"), event.get("channel_id"), event.get("user_id")
        if not all(isinstance(v, str) and v for v in (file_id, channel, user)):
            return
        if user == context.get("bot_user_id"):
            return
        team = context["workspace_id"]
        time.sleep(grace())
        try:
            if not deps.store.dedupe.first_time(team, _mark(file_id, channel)):
                return  # the message event came: it decides
        except ValueError:  # ids no key can hold: not from Slack
            return
        try:
            info = read_file_info(client, file_id)
        except CALL_FAILED as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
            log.info("file_shared %s in team=%s: files.info failed (%s); nothing to answer under", file_id, team, error)
            return
        message = shared_message(info, file_id, channel, user, str(event.get("event_ts") or "")) if isinstance(info, dict) else None
        if message is None:
            log.info("file_shared %s in team=%s: files.info names no message in %s", file_id, team, channel)
            return
        handle_message(deps, client, team, message, context.get("bot_user_id"), mentioned=False)

    app.event("file_shared")(ack=ack_now, lazy=[on_file_shared])
