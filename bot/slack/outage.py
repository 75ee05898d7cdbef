"""A Redis outage, answered one way whichever listener meets it.

Bolt middleware cannot be where this lives on its own: Bolt runs lazy listeners on threads of
their own after the middleware chain has returned, and an exception there is only logged by
Bolt, never passed to its error handler. So every listener function, acknowledging or lazy,
is registered through `OutageGuardedApp`, which wraps it in `guard`: a StoreUnavailable that
escapes it is answered by `tell_unavailable`, the one place that decides what the user sees
(a notice in the message's thread, an ephemeral notice for a click or a command) and that
nothing was charged. Listeners that can do something useful without Redis (the Home tab
without usage, an entry without a rate limit) still degrade on their own before that.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from bot.slack import blocks as ui
from bot.slack.diagnosis import Where, tell
from bot.slack.webapi import CALL_FAILED, reply_client
from bot.store import StoreUnavailable

log = logging.getLogger("denpex.slack")

# What the guard needs of Bolt's arguments to answer an outage, besides the listener's own.
_NEEDED = ("body", "client", "context")


def unavailable_in_thread(client: WebClient, where: Where) -> None:
    """The outage notice in a message's thread (nothing was charged: a charge needs Redis)."""
    tell(client, where, ui.unavailable_message())


def tell_unavailable(client: WebClient | None, body: dict[str, Any], context: Any, ack: Any = None) -> None:
    """Tell the person whose request met the outage, where they made it."""
    team = (context or {}).get("workspace_id") or "unknown"
    log.warning("store unavailable for a %s in team=%s", body.get("type") or body.get("command") or "request", team)
    _tell_requester(client, body, team, ack, ui.unavailable_message())


def tell_failed(client: WebClient | None, body: dict[str, Any], context: Any) -> None:
    """Tell the person whose request a lazy listener failed on that it failed (the traceback is
    already logged): silence would leave them waiting for a reply that never comes."""
    team = (context or {}).get("workspace_id") or "unknown"
    _tell_requester(client, body, team, None, ui.internal_error_message())


def _tell_requester(client: WebClient | None, body: dict[str, Any], team: str, ack: Any,
                    message: tuple[str, ui.Blocks]) -> None:
    """`message` where the request was made: the command's ack, the message's thread, or an
    ephemeral note to whoever clicked."""
    text, blocks = message
    if ack is not None and body.get("command"):
        ack(text=text, blocks=blocks, response_type="ephemeral")
        return
    if client is None:
        return
    event = body.get("event") if isinstance(body.get("event"), dict) else None
    if event is not None and event.get("type") in ("message", "app_mention"):
        channel, ts = event.get("channel"), event.get("ts")
        if channel and ts:
            tell(client, Where(team, channel, ts, event.get("thread_ts") or ts, event.get("user")), message)
        return
    if body.get("type") == "block_actions":
        channel = (body.get("container") or {}).get("channel_id") or (body.get("channel") or {}).get("id")
        user = (body.get("user") or {}).get("id")
    elif body.get("command"):  # a command's lazy part: its ack is long gone
        channel, user = body.get("channel_id"), body.get("user_id")
    else:
        return
    if channel and user:
        try:
            # Not repeated after a 5xx: an ephemeral notice cannot be looked for (it would double).
            reply_client(client).chat_postEphemeral(channel=channel, user=user, text=text)
        except CALL_FAILED as exc:
            log.info("notice for a request in %s not posted: %s", channel, type(exc).__name__)


def guard(func: Callable[..., Any], *, lazy: bool = False) -> Callable[..., Any]:
    """`func` as a Bolt listener whose StoreUnavailable is answered by `tell_unavailable`.

    A lazy one's other exceptions are logged with their traceback and answered by
    `tell_failed`: Bolt would log only the exception's message, with no traceback, and the
    person would hear nothing. (An acknowledging listener's are Bolt's: its error handler logs
    the traceback and the request gets a 500, which Slack retries.)

    Bolt passes a listener the arguments its signature names: the wrapper's signature is the
    listener's own plus what the answer needs, and the listener gets only its own."""
    names = list(inspect.signature(func).parameters)
    # Bolt reads the argument names with getfullargspec(inspect.unwrap(f)).args: plain
    # parameters, and no __wrapped__ for it to follow back to the listener's own.
    wanted = [*names, *(n for n in (*_NEEDED, "ack") if n not in names)]

    def guarded(**kwargs: Any) -> Any:
        try:
            return func(**{n: kwargs[n] for n in names if n in kwargs})
        except StoreUnavailable:
            tell_unavailable(kwargs.get("client"), kwargs.get("body") or {}, kwargs.get("context"), kwargs.get("ack"))
            return None
        except Exception:
            if not lazy:
                raise
            log.exception("%s failed", func.__qualname__)
            tell_failed(kwargs.get("client"), kwargs.get("body") or {}, kwargs.get("context"))
            return None

    functools.update_wrapper(guarded, func)
    del guarded.__wrapped__
    signature = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in wanted])
    setattr(guarded, "__signature__", signature)  # noqa: B010 - a function has no typed slot for it
    return guarded


class OutageGuardedApp:
    """The Bolt app as the listener modules register on it: every function given to
    `event`, `message`, `command`, `action`, `view`, `shortcut` or `options` (the acknowledging
    one and the lazy ones) is wrapped in `guard`. Anything else is the app's own."""

    _REGISTRARS = ("event", "message", "command", "action", "view", "shortcut", "options")

    def __init__(self, app: App) -> None:
        self._app = app

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._app, name)
        if name not in self._REGISTRARS:
            return target

        def registrar(*args: Any, **kwargs: Any) -> Callable[..., Any]:
            register = target(*args, **kwargs)

            def wrapped(*functions: Callable[..., Any], ack: Callable[..., Any] | None = None,
                        lazy: list[Callable[..., Any]] | None = None) -> Any:
                if ack is not None or lazy is not None:
                    return register(ack=guard(ack) if ack else None, lazy=[guard(f, lazy=True) for f in lazy or []])
                return register(*[guard(f) for f in functions])

            return wrapped

        return registrar
