"""Buttons on a diagnosis: related entries and the full entry (posted in the thread), feedback.

Entry buttons are held to a per-user limit by their middleware (bot.slack.user_limits)."""

from __future__ import annotations

import contextlib
import json
import logging
import re
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps
from bot.slack.diagnosis import BLOCKS_REFUSED, THREAD_REFUSED, Where, tell
from bot.slack.response_url import Shown, respond
from bot.slack.user_limits import ENTRY, limited
from bot.slack.webapi import CALL_FAILED, reply_client
from bot.store import StoreUnavailable

log = logging.getLogger("denpex.slack")


# A double click sends two clicks (each its own trigger id), as do two people clicking the same
# button at once: the entry (or the topic's answer) they ask for is posted in the thread once
# within this window.
DOUBLE_CLICK_S = 30


def _thread(body: dict[str, Any]) -> tuple[str | None, str | None]:
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    thread_ts = container.get("thread_ts") or message.get("thread_ts") or message.get("ts") or container.get("message_ts")
    return channel, thread_ts


def _action(body: dict[str, Any]) -> dict[str, Any]:
    return (body.get("actions") or [{}])[0]


def _value(body: dict[str, Any]) -> str:
    """The clicked button's `value`: a string in whatever Slack sends; anything else (a
    hand-made payload's number or object) is no value, and the click does nothing."""
    value = _action(body).get("value")
    return value if isinstance(value, str) else ""


def post_entry(deps: BotDeps, client: WebClient, body: dict[str, Any], team: str, full: bool) -> None:
    """The entry a button names, where the button was: in the thread of a diagnosis, or, for
    a button on an ephemeral answer (a lookup, `/denpex show`), ephemerally again through its
    response_url: what one person looked up privately is not posted to the channel."""
    rule = deps.denpex.entry(_value(body))
    channel, thread_ts = _thread(body)
    user = (body.get("user") or {}).get("id")
    if rule is None or not channel:
        return
    related = [r for rid in rule.related if (r := deps.denpex.entry(rid))]
    text, blocks = ui.entry_message(rule, related, full=full)
    response_url = body.get("response_url")
    if (body.get("container") or {}).get("is_ephemeral"):
        shown = Shown.NO
        if isinstance(response_url, str) and response_url:
            shown = respond(response_url, {"text": text, "blocks": blocks, "response_type": "ephemeral",
                                           "replace_original": False})
        # The response_url expired (30 minutes, 5 uses; the message stays on screen longer), or
        # none came: still to that person alone. Not after an unknown outcome: it may be on
        # their screen.
        if shown is Shown.NO and user:
            _ephemeral(client, channel, user, text, blocks)
        return
    click = f"entry:{channel}:{thread_ts or ''}:{rule.id}:{'full' if full else 'short'}"
    if not _first_click(deps, team, click):
        log.info("entry %s clicked again within %d s in team=%s: posted once", rule.id, DOUBLE_CLICK_S, team)
        return
    # No thread (`""`): a message of its own in the channel, looked for there before any repeat.
    if not tell(client, Where(team, channel, thread_ts or "", thread_ts or "", user), (text, blocks)):
        _forget_click(deps, team, click)  # not in the thread: the next click tries again


def _first_click(deps: BotDeps, team: str, key: str) -> bool:
    """Is this the first click posting `key` lately? Without Redis, yes: an entry needs no state."""
    try:
        return deps.store.dedupe.first_time(team, key, DOUBLE_CLICK_S)
    except StoreUnavailable:
        return True
    except ValueError:  # a key no marker can hold (ids Slack never sends): post, unmarked
        return True


def _forget_click(deps: BotDeps, team: str, key: str) -> None:
    with contextlib.suppress(StoreUnavailable, ValueError):  # else the mark lapses after DOUBLE_CLICK_S
        deps.store.dedupe.forget(team, key)


def _ephemeral(client: WebClient, channel: str, user: str, text: str, blocks: list[dict[str, Any]] | None = None,
               thread_ts: str | None = None) -> None:
    """An answer to a click seen only by who clicked. Slack keeps no ephemeral message that an
    API could read back, so one whose post has an unknown outcome (a 5xx, a reset, a timeout:
    Slack may have shown it) cannot be looked for as a post in a thread is: it is not sent
    again (the person saw it twice). A 429 is (Slack showed nothing), and one whose blocks or
    thread Slack refused goes again as its plain text, or outside the thread."""
    once = reply_client(client)

    def send() -> None:
        body_blocks, in_thread = blocks, thread_ts
        for _attempt in range(3):
            try:
                once.chat_postEphemeral(channel=channel, user=user, text=text, blocks=body_blocks, thread_ts=in_thread)
                return
            except SlackApiError as exc:
                error = exc.response.get("error")
                if body_blocks and error in BLOCKS_REFUSED:
                    body_blocks = None  # Slack showed nothing and blames the blocks: the plain text says it
                elif in_thread and error in THREAD_REFUSED:
                    in_thread = None  # no reply in that thread (a diagnosis in a channel without threads)
                else:
                    raise
                log.warning("Slack refused an answer to a click in %s (%s): sending it again without what it refused",
                            channel, error)

    _quietly(send, channel)


def _quietly(call: Any, channel: str) -> None:
    """A click's answer Slack refuses (not_in_channel, archived) or never confirms: log it, move on."""
    try:
        call()
    except SlackApiError as exc:
        log.info("answer to a click in %s not posted: %s", channel, exc.response.get("error"))
    except CALL_FAILED as exc:  # the network, or an answer cut off
        log.info("answer to a click in %s not posted: %s", channel, type(exc).__name__)


def record_feedback(deps: BotDeps, client: WebClient, body: dict[str, Any], team: str, right: bool) -> None:
    rule_id = _value(body)
    channel, thread_ts = _thread(body)
    user = (body.get("user") or {}).get("id") or "unknown"
    if deps.denpex.entry(rule_id) is None:
        # A button of a diagnosis whose entry was renamed or removed since (the knowledge base
        # was updated): Slack shows nothing for a click, so without a word the person would
        # take the vote as counted. A button of no entry at all (a hand-made payload) says nothing.
        if rule_id and channel and user != "unknown":
            _ephemeral(client, channel, user, "Your feedback was not recorded: this diagnosis names an entry Denpex's "
                       "knowledge base no longer has (it was renamed or removed since). Paste the log again for a "
                       "diagnosis from the current entries.", thread_ts=thread_ts)
        return
    try:
        deps.store.feedback.vote(team, rule_id, user, right, thread_key=f"{channel}:{thread_ts}")
        text = "Thanks: noted that this diagnosis was right." if right else "Thanks: noted that this diagnosis was wrong; it helps us fix the entry."
    except StoreUnavailable:
        text = "Denpex is temporarily unavailable: your feedback was not recorded, please try again later."
    if channel:
        _ephemeral(client, channel, user, text, thread_ts=thread_ts)


def answer_topic(deps: BotDeps, client: WebClient, body: dict[str, Any], team: str) -> None:
    """A topic button under an unrecognised follow-up: answer that topic in the thread."""
    from bot.slack.listeners.messages import follow_up

    try:
        value = json.loads(_value(body) or "null")
    except ValueError:
        return
    channel, thread_ts = _thread(body)
    if not isinstance(value, dict) or not value or not channel or not thread_ts:
        return  # no topic named (no value, or not ours): nothing to answer
    user = (body.get("user") or {}).get("id")
    where = Where(team, channel, thread_ts, thread_ts, user)
    try:
        ctx = deps.store.threads.load(team, channel, thread_ts)
    except StoreUnavailable:
        tell(client, where, ui.unavailable_message())
        return
    if ctx is None:
        # The context's TTL ran out (or it was forgotten): say so to who clicked, not to the thread.
        text, blocks = ui.thread_expired_message(deps.store.config.thread_ttl_s)
        if user:
            _ephemeral(client, channel, user, text, blocks, thread_ts)
        return
    topic = str(value.get("t") or "")
    if not _first_click(deps, team, f"topic:{channel}:{thread_ts}:{topic}"):
        log.info("topic button clicked again within %d s in team=%s: answered once", DOUBLE_CLICK_S, team)
        return
    follow_up(deps, client, where, str(value.get("q") or ""), ctx, topic=topic)


def register(app: App, deps: BotDeps) -> None:
    def ack_now(ack: Ack) -> None:
        ack()

    def on_related(body: dict[str, Any], client: WebClient, context: Any) -> None:
        post_entry(deps, client, body, context["workspace_id"], full=False)

    def on_full_entry(body: dict[str, Any], client: WebClient, context: Any) -> None:
        post_entry(deps, client, body, context["workspace_id"], full=True)

    def on_feedback_right(body: dict[str, Any], client: WebClient, context: Any) -> None:
        record_feedback(deps, client, body, context["workspace_id"], right=True)

    def on_feedback_wrong(body: dict[str, Any], client: WebClient, context: Any) -> None:
        record_feedback(deps, client, body, context["workspace_id"], right=False)

    per_user = [limited(deps, ENTRY)]
    app.action(re.compile(r"^denpex_related_\d+$"), middleware=per_user)(ack=ack_now, lazy=[on_related])
    app.action(re.compile(r"^denpex_show_"), middleware=per_user)(ack=ack_now, lazy=[on_related])
    app.action("denpex_full_entry", middleware=per_user)(ack=ack_now, lazy=[on_full_entry])
    app.action(re.compile(rf"^{ui.FOLLOWUP_ACTION}\w+$"))(ack=ack_now, lazy=[lambda body, client, context: answer_topic(deps, client, body, context["workspace_id"])])
    app.action("denpex_feedback_right")(ack=ack_now, lazy=[on_feedback_right])
    app.action("denpex_feedback_wrong")(ack=ack_now, lazy=[on_feedback_wrong])
