"""`/denpex`: lookups, entries, quota, evaluation codes, help. Answers are ephemeral.

Two listeners: a lookup (error text to search for), held to a per-user limit by its
middleware (bot.slack.user_limits), and a subcommand (or help), which is not limited. Which
one a text is for is decided once, by `is_lookup`, from the subcommand table."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import regex
from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.slack import blocks as ui
from bot.slack import logdetect
from bot.slack.deps import BotDeps
from bot.slack.user_limits import LOOKUP, limited
from bot.store import StoreUnavailable

log = logging.getLogger("denpex.slack")
_BARE_WORD = regex.compile(r"[a-z][a-z-]{0,30}")
# How people ask a command for help besides `help`: a flag (`--help`, `-h`), a question mark.
_HELP_ASKED = regex.compile(r"(?:--?|/)?(?:help|h)\?*|/?\?+", regex.IGNORECASE)
_REDEEM_REASONS = {
    "unknown": "That code is not valid (or has expired). Check it and try again.",
    "already_used": "That code has already been used.",
    "rate_limited": "Too many attempts: wait a few minutes before trying another code.",
}
Answer = tuple[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Invocation:
    """One `/denpex <word> <rest>`, in workspace `team` (Bolt's context)."""

    team: str
    user: str
    channel: str | None
    rest: str
    channel_name: str = ""  # as Slack names it: `privategroup` for a private channel
    token_team: str | None = None  # single-token mode: the workspace of the bot's token
    client: WebClient | None = None  # the workspace's Web API client (alerts connect asks Slack)


# Blank for a command: whitespace and the zero-width characters a copy from a page or a
# document carries (a text of only those is an empty `/denpex`: help, not "No entry matches").
_BLANK = "\u200b\u200c\u200d\u2060\ufeff"
# Who the text is addressed to, at its start: the bot named as in a mention (`@denpex help`,
# slash command and mention mixed up), written as typed or as Slack's escaped mention.
_ADDRESSED = regex.compile(r"(?:<@[UW][A-Z0-9]+(?:\|[^>]*)?>|@(?P<name>[\w.-]+))\s*")


def _trimmed(text: str) -> str:
    return text.strip().strip(_BLANK).strip()


def typed(body: dict[str, Any]) -> str:
    """The command's text as the person typed it: Slack escapes &, < and > in it, and exactly
    that is undone (replies escape again). The command's own name typed again at its start
    (`/denpex /denpex help`, a line copied from the help after typing the command), or the bot
    addressed there as in a mention (`/denpex @denpex help`, `<@U…>`), is dropped."""
    text = _trimmed(logdetect.unescape(body.get("text") or ""))
    command = body.get("command")
    if isinstance(command, str) and command and text.lower().startswith(command.lower()):
        rest = text[len(command):]
        if not rest or rest[0].isspace():
            text = _trimmed(rest)
    addressed = _ADDRESSED.match(text)
    if addressed and (addressed.group("name") is None
                      or (isinstance(command, str) and addressed.group("name").lower() == command.lstrip("/").lower())):
        text = _trimmed(text[addressed.end():])
    return text


# What an id copied from a reply (where it is inline code), quoted, or lifted from a sentence
# ("see cuda-oom.") or mrkdwn emphasis may carry around it; no id starts or ends with these.
ID_WRAPPING = "`'\"\u2018\u2019\u201c\u201d .,;:!?()[]*_#"


def _show(deps: BotDeps, call: Invocation) -> Answer:
    wanted = call.rest.strip(ID_WRAPPING)
    rule = deps.denpex.entry(wanted) if wanted else None
    if rule is None and wanted:
        # `show cuda-oom please`: the id is the first word.
        first = _word_and_rest(call.rest)[0].strip(ID_WRAPPING)
        rule = deps.denpex.entry(first) if first else None
    if rule is None and wanted and "_" in wanted:
        # `show cuda_oom`: ids join their words with hyphens.
        rule = deps.denpex.entry(_word_and_rest(wanted)[0].replace("_", "-"))
    if rule is None:
        if not call.rest:
            return ui.error_message("Usage: `/denpex show <id>`")
        return ui.error_message(f"No entry with id `{deps.denpex.mask_query(call.rest)[:100]}`. `/denpex <error text>` searches by text.")
    related = [r for rid in rule.related if (r := deps.denpex.entry(rid))]
    return ui.entry_message(rule, related, full=False)


def _alerts(deps: BotDeps, call: Invocation) -> Answer:
    from bot.slack.alerts_command import respond_alerts

    return respond_alerts(deps, call.team, call.user, call.channel, call.rest, call.channel_name, call.token_team,
                          call.client)


def quota_answer(deps: BotDeps, team: str) -> Answer:
    """Workspace `team`'s plan and today's usage, as `/denpex quota` answers it."""
    text = ui.quota_text(deps.store.quotas.status(team))
    return text, [ui.section(text)]


def _quota(deps: BotDeps, call: Invocation) -> Answer:
    return quota_answer(deps, call.team)


def _redeem(deps: BotDeps, call: Invocation) -> Answer:
    if not call.rest:
        return ui.error_message("Usage: `/denpex redeem <code>`")
    result = deps.store.codes.redeem(call.team, call.user, call.rest)
    if result.ok:
        msg = f":tada: The *{result.plan}* plan is on for this workspace until {result.expires_at:%Y-%m-%d %H:%M} UTC."
        return msg, [ui.section(msg)]
    if result.by_this_workspace:
        # The code that switched this workspace's plan on, sent again (a second try after a
        # slow answer, a colleague with the same email): what it did, not "already used".
        state = deps.store.plans.get(call.team)
        if state.expires_at is not None:
            msg = (f"This workspace redeemed that code already: the *{state.plan}* plan is on until "
                   f"{state.expires_at:%Y-%m-%d %H:%M} UTC.")
        else:
            msg = "This workspace redeemed that code already, and the plan it gave has ended: ask for a new code."
        return msg, [ui.section(msg)]
    return ui.error_message(_REDEEM_REASONS.get(result.reason, "That code could not be redeemed."))


SUBCOMMANDS: dict[str, Callable[[BotDeps, Invocation], Answer]] = {
    "help": lambda deps, call: ui.help_message(),
    "show": _show,
    "alerts": _alerts,
    "quota": _quota,
    "redeem": _redeem,
}


# What may wrap a subcommand typed as a word of a sentence or in mrkdwn: `help.`, `Help!`,
# `` `quota` ``, `*help*`, `show: cuda-oom`.
WORD_WRAPPING = "`*_'\".,;:!?\u2018\u2019\u201c\u201d"


def _word_and_rest(text: str) -> tuple[str, str]:
    """The first word and the rest, split at any whitespace: a tab, a new line or the
    no-break space some keyboards type (Option+Space) separates a subcommand too."""
    parts = text.split(None, 1)
    return (parts[0], parts[1] if len(parts) > 1 else "") if parts else ("", "")


def _subcommand(word: str) -> str:
    """The subcommand a first word names, unwrapped and in lower case."""
    return word.strip(WORD_WRAPPING).lower()


def is_lookup(body: dict[str, Any]) -> bool:
    """Error text to look up: not empty, not a subcommand, not one bare word (a typo of one),
    and not help asked as a flag or a question mark (`--help`, `-h`, `?`)."""
    text = typed(body)
    return (bool(text) and _subcommand(_word_and_rest(text)[0]) not in SUBCOMMANDS and not _BARE_WORD.fullmatch(text)
            and not _HELP_ASKED.fullmatch(text))


def is_subcommand(body: dict[str, Any]) -> bool:
    """Anything that is not a lookup: a subcommand, or something that gets help."""
    return not is_lookup(body)


# Subcommands that change something (a plan, an ingest token shown once): a replayed request
# of one is not run again. Every other answer only reads, and a replay gets it again.
_CHANGES = {"redeem": None, "alerts": ("connect", "revoke")}


def changes_something(body: dict[str, Any]) -> bool:
    """Does this `/denpex` change state (redeem a code, connect or revoke alerts)?"""
    if is_lookup(body):
        return False
    word, rest = _word_and_rest(typed(body))
    if _subcommand(word) not in _CHANGES:
        return False
    words = _CHANGES[_subcommand(word)]
    return words is None or _word_and_rest(rest)[0].lower() in words


def lookup(deps: BotDeps, body: dict[str, Any]) -> Answer:
    """The entries matching the error text, echoing it masked; for words naming no failure in
    particular ("training failed", "cuda error"), what to look up instead, not a guess."""
    text = typed(body)
    if deps.denpex.too_general(text):
        return ui.too_general_message(deps.denpex.mask_query(text))
    return ui.lookup_message(deps.denpex.mask_query(text), deps.denpex.lookup(text))


def token_team(deps: BotDeps, context: Any) -> str | None:
    """In single-token mode, the workspace the bot's token belongs to (Bolt's cached
    `auth.test`, as the ingest endpoint reads it); None with one installation per workspace."""
    if deps.config.multi_workspace:
        return None
    authorized = context.get("authorize_result")
    return (getattr(authorized, "team_id", None) or "") if authorized is not None else ""


def respond_to(deps: BotDeps, body: dict[str, Any], team: str, bot_team: str | None = None,
               client: WebClient | None = None) -> Answer:
    """The ephemeral answer to a `/denpex` that is not a lookup, in workspace `team`."""
    word, rest = _word_and_rest(typed(body))
    handler = SUBCOMMANDS.get(_subcommand(word))
    if handler is None:
        # Nothing, or one bare word that is not a subcommand: a typo, not an error string.
        return ui.help_message()
    return handler(deps, Invocation(team, body.get("user_id") or "unknown", body.get("channel_id"), rest.strip(),
                                    str(body.get("channel_name") or ""), bot_team, client))


def register(app: App, deps: BotDeps) -> None:
    def on_lookup(ack: Ack, body: dict[str, Any]) -> None:
        text, blocks = lookup(deps, body)
        ack(text=text, blocks=blocks, response_type="ephemeral")

    def on_denpex(ack: Ack, body: dict[str, Any], context: Any, client: WebClient) -> None:
        try:
            text, blocks = respond_to(deps, body, context["workspace_id"], token_team(deps, context), client)
        except StoreUnavailable:
            text, blocks = ui.unavailable_message()
        ack(text=text, blocks=blocks, response_type="ephemeral")

    app.command("/denpex", matchers=[is_lookup], middleware=[limited(deps, LOOKUP)])(on_lookup)
    app.command("/denpex", matchers=[is_subcommand])(on_denpex)
