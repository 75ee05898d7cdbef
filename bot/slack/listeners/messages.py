"""Messages and mentions: pasted logs, uploaded files, follow-up questions in a diagnosis thread."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import blocks as ui
from bot.slack import logdetect
from bot.slack.deps import FOLLOWUPS_PER_MINUTE, BotDeps
from bot.slack.diagnosis import Where, diagnose_and_reply, pasted, uploaded
from bot.slack.middleware import team_of
from bot.store import StoreUnavailable

log = logging.getLogger("denpex.slack")

# Subtypes that carry a person's new text; everything else (edits, deletes, joins, bot
# messages, channel topic changes) is ignored.
_HANDLED_SUBTYPES = (None, "file_share", "thread_broadcast")


def _ack(ack: Ack) -> None:
    ack()


def _post(client: WebClient, where: Where, message: tuple[str, list[dict[str, Any]]]) -> None:
    text, blocks = message
    client.chat_postMessage(channel=where.channel, thread_ts=where.thread_ts, text=text, blocks=blocks)


def follow_up(deps: BotDeps, client: WebClient, where: Where, question: str, entry_id: str) -> None:
    """Answer a question in a diagnosis thread from the entry diagnosed there."""
    if where.user and not deps.store.ratelimit.allow(where.team_id, where.user, "followup", FOLLOWUPS_PER_MINUTE, 60):
        return
    rule = deps.denpex.entry(entry_id)
    ans = deps.denpex.follow_up(question, entry_id)
    if rule is None or ans is None:
        return
    _post(client, where, ui.answer_message(ans, rule))


def handle_message(deps: BotDeps, client: WebClient, body: dict[str, Any], event: dict[str, Any],
                   bot_user_id: str | None, mentioned: bool) -> None:
    """Decide what a message is (a log, a question, nothing) and act on it."""
    team = team_of(body)
    channel, ts = event.get("channel"), event.get("ts")
    if not channel or not ts:
        return
    thread_ts = event.get("thread_ts")
    where = Where(team, channel, ts, thread_ts or ts, event.get("user"))
    store = deps.store
    try:
        # One reply per message: a mention arrives as `message` and `app_mention` events.
        if not store.dedupe.first_time(team, f"message:{channel}:{ts}"):
            return
        text = event.get("text") or ""
        shared = [f for f in event.get("files") or [] if isinstance(f, dict) and f.get("id")]
        if shared:
            diagnose_and_reply(deps, client, where, uploaded(deps, client, shared[0]))
            return
        strength = logdetect.strength(text, deps.keywords)
        ctx = store.threads.load(team, channel, thread_ts) if thread_ts and thread_ts != ts else None
        if ctx is not None:
            if strength == "strong":
                diagnose_and_reply(deps, client, where, pasted(deps, logdetect.clean(text)))
            else:
                follow_up(deps, client, where, logdetect.clean(text), ctx.entry_ids[0])
            return
        if strength is not None:
            quiet = strength == "weak" and not mentioned and event.get("channel_type") != "im"
            diagnose_and_reply(deps, client, where, pasted(deps, logdetect.clean(text)), quiet_if_unmatched=quiet)
            return
        if mentioned or event.get("channel_type") == "im":
            _post(client, where, ui.help_message())
    except StoreUnavailable:
        log.warning("store unavailable for a message in team=%s", team)
        try:
            _post(client, where, ui.unavailable_message())
        except Exception:
            log.warning("could not tell team=%s the service is unavailable", team)
    except (SlackApiError, OSError) as exc:
        # A help or follow-up answer Slack refused (not_in_channel, archived) or never confirmed.
        error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
        log.info("reply in team=%s channel=%s not posted: %s", team, channel, error)


def register(app: App, deps: BotDeps) -> None:
    def on_message(body: dict[str, Any], event: dict[str, Any], client: WebClient, context: Any) -> None:
        if event.get("bot_id") or event.get("subtype") not in _HANDLED_SUBTYPES:
            return
        user = event.get("user")
        bot_user_id = context.get("bot_user_id")
        if not user or user == bot_user_id:
            return
        mentioned = bool(bot_user_id) and f"<@{bot_user_id}>" in (event.get("text") or "")
        if mentioned and event.get("channel_type") != "im":
            return  # the app_mention event carries it
        handle_message(deps, client, body, event, bot_user_id, mentioned=False)

    def on_mention(body: dict[str, Any], event: dict[str, Any], client: WebClient, context: Any) -> None:
        if event.get("bot_id") or not event.get("user"):
            return
        handle_message(deps, client, body, event, context.get("bot_user_id"), mentioned=True)

    app.event("message")(ack=_ack, lazy=[on_message])
    app.event("app_mention")(ack=_ack, lazy=[on_mention])
