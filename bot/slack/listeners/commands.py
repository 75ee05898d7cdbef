"""`/denpex`: lookups, entries, quota, evaluation codes, help. Answers are ephemeral."""

from __future__ import annotations

import logging
from typing import Any

import regex
from slack_bolt import Ack, App

from bot.slack import blocks as ui
from bot.slack import logdetect
from bot.slack.deps import LOOKUPS_PER_MINUTE, BotDeps
from bot.store import StoreUnavailable

log = logging.getLogger("denpex.slack")
_SUBCOMMAND = regex.compile(r"[a-z][a-z-]{0,30}")
_REDEEM_REASONS = {
    "unknown": "That code is not valid (or has expired). Check it and try again.",
    "already_used": "That code has already been used.",
    "rate_limited": "Too many attempts: wait a few minutes before trying another code.",
}


def respond_to(deps: BotDeps, body: dict[str, Any], team: str) -> tuple[str, list[dict[str, Any]]]:
    """The ephemeral answer to one `/denpex` invocation in workspace `team` (Bolt's context)."""
    # Slack escapes &, < and > in a command's text: undo exactly that (replies escape again).
    text = logdetect.unescape(body.get("text") or "").strip()
    user = body.get("user_id") or "unknown"
    word, _, rest = text.partition(" ")
    word, rest = word.lower(), rest.strip()
    if not text or word == "help":
        return ui.help_message()
    if word == "show":
        rule = deps.denpex.entry(rest) if rest else None
        if rule is None:
            if not rest:
                return ui.error_message("Usage: `/denpex show <id>`")
            return ui.error_message(f"No entry with id `{deps.denpex.mask_query(rest)[:100]}`. `/denpex <error text>` searches by text.")
        related = [r for rid in rule.related if (r := deps.denpex.entry(rid))]
        return ui.entry_message(rule, related, full=False)
    if word == "alerts":
        from bot.slack.alerts_command import respond_alerts

        return respond_alerts(deps, team, user, body.get("channel_id"), rest)
    if word == "quota":
        status = deps.store.quotas.status(team)
        return ui.quota_text(status), [ui.section(ui.quota_text(status))]
    if word == "redeem":
        if not rest:
            return ui.error_message("Usage: `/denpex redeem <code>`")
        result = deps.store.codes.redeem(team, user, rest)
        if result.ok:
            msg = f":tada: The *{result.plan}* plan is on for this workspace until {result.expires_at:%Y-%m-%d %H:%M} UTC."
            return msg, [ui.section(msg)]
        return ui.error_message(_REDEEM_REASONS.get(result.reason, "That code could not be redeemed."))
    if _SUBCOMMAND.fullmatch(text):
        # One bare word that is not a subcommand: a typo, not an error string.
        return ui.help_message()
    if not deps.store.ratelimit.allow(team, user, "lookup", LOOKUPS_PER_MINUTE, 60):
        return ui.error_message("Too many lookups in a minute: wait a moment.")
    return ui.lookup_message(deps.denpex.mask_query(text), deps.denpex.lookup(text))


def register(app: App, deps: BotDeps) -> None:
    def on_denpex(ack: Ack, body: dict[str, Any], context: Any) -> None:
        try:
            text, blocks = respond_to(deps, body, context["workspace_id"])
        except StoreUnavailable:
            text, blocks = ui.unavailable_message()
        ack(text=text, blocks=blocks, response_type="ephemeral")

    app.command("/denpex")(on_denpex)
