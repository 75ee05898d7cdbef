"""Per-user limits on what is free (lookups, entry buttons, follow-up questions), so a loop or a
script cannot hammer the bot; as Bolt listener middleware where a request alone says what it is.

A listener's middleware runs after the global chain (so a replayed command or click, dropped
there, is never counted) and before its ack and its lazy functions: a refused request is
acknowledged and nothing else runs. Bolt's outage guard (bot.slack.outage) wraps listener
functions, not middleware, so a store outage met here is answered here, the same way.

A follow-up question is known only from its thread's kept context, after the message has been
claimed (bot.slack.listeners.messages): its limit is checked there, with FOLLOWUP.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt import Ack, BoltResponse
from slack_sdk import WebClient

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps
from bot.slack.outage import tell_unavailable
from bot.store import Store, StoreUnavailable

log = logging.getLogger("denpex.slack")

WINDOW_S = 60


@dataclass(frozen=True)
class PerUser:
    """One limit: `per_minute` requests of `action` by one person in one workspace."""

    action: str  # the bucket's name in the store
    per_minute: int
    # What a slash command over the limit is answered (ephemerally); None: acknowledged silently.
    refusal: str | None
    # With the store down: True, the request is answered with the outage notice (as the
    # listener would, needing the store itself); False, it runs without a limit.
    needs_store: bool

    def allows(self, store: Store, team: str, user: str) -> bool:
        """Count one request and say whether it is within the limit (a refused one is not counted)."""
        return store.ratelimit.allow(team, user, self.action, self.per_minute, WINDOW_S)


# A lookup reads only the rulebook: with Redis down it is still answered, unlimited (the limit
# fails open, logged), as an entry button is; what reads or writes state refuses instead.
LOOKUP = PerUser("lookup", 30, "Too many lookups in a minute: wait a moment.", needs_store=False)
ENTRY = PerUser("entry", 30, None, needs_store=False)  # an entry is shown without any state
FOLLOWUP = PerUser("followup", 30, None, needs_store=True)


def limited(deps: BotDeps, limit: PerUser) -> Callable[..., BoltResponse | None]:
    """Listener middleware holding one person to `limit`: under it, the listener runs; over it,
    the request is acknowledged (with `limit.refusal` for a command) and nothing else runs."""

    def per_user(ack: Ack, body: dict[str, Any], client: WebClient, context: Any,
                 next: Callable[[], None]) -> BoltResponse | None:
        # Bolt reads who made it (a command's `user_id`, a click's `user.id`) into the context.
        user, team = context.user_id, context["workspace_id"]
        if not user or context.get("replayed"):
            return next()  # a repeated request answered again is counted once (bot.slack.middleware)
        try:
            allowed = limit.allows(deps.store, team, user)
        except StoreUnavailable:
            if not limit.needs_store:
                log.warning("%s limit not checked for team=%s: the store is unavailable; answered without it",
                            limit.action, team)
                return next()
            tell_unavailable(client, body, context, ack)
            return ack.response if ack.response is not None else ack()
        if allowed:
            return next()
        log.info("%s limit reached for a user in team=%s", limit.action, team)
        if limit.refusal is not None and body.get("command"):
            text, blocks = ui.error_message(limit.refusal)
            return ack(text=text, blocks=blocks, response_type="ephemeral")
        return ack()

    per_user.__name__ = f"limit_{limit.action}"
    return per_user
