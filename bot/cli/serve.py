"""`denpex serve`: the Slack bot, in Socket Mode (SLACK_APP_TOKEN) or HTTP mode (--http)."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from bot.cli import UsageError


def run(args: argparse.Namespace) -> int:
    from bot.matcher import RuleError
    from bot.service import Denpex
    from bot.slack.app import build_app
    from bot.slack.config import ConfigError, SlackConfig
    from bot.slack.deps import BotDeps
    from bot.store import Store, StoreConfigError

    logging.basicConfig(
        level=os.environ.get("DENPEX_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
        stream=sys.stderr,
    )
    from bot.masking import logfilter

    logfilter.install()
    # Bolt and slack_sdk log request and response bodies at DEBUG; those can hold log text.
    for name in ("slack_bolt", "slack_sdk", "denpex.bolt"):
        logging.getLogger(name).setLevel(max(logging.INFO, logging.getLogger().level))
    mode = "http" if args.http or not os.environ.get("SLACK_APP_TOKEN") else "socket"
    if mode == "http" and not args.http:
        raise UsageError("SLACK_APP_TOKEN is not set: set it for Socket Mode, or run `denpex serve --http` for HTTP mode")
    try:
        config = SlackConfig.from_env(mode)
        store = Store.from_env()
        deps = BotDeps(denpex=Denpex(), store=store, config=config)
    except (ConfigError, StoreConfigError) as exc:
        raise UsageError(str(exc)) from None
    except RuleError as exc:
        raise UsageError(f"the rules do not load: {exc.problems[0]} (and {len(exc.problems) - 1} more)") from None
    if not store.ping():
        logging.getLogger("denpex").warning("Redis does not answer at start-up; the bot runs and recovers when it returns")
    app = build_app(deps)
    if mode == "http":
        from bot.slack.http import serve_http

        logging.getLogger("denpex").info("HTTP mode on %s:%d (events at /slack/events, health at /healthz)", args.host, args.port)
        serve_http(app, store, args.host, args.port, signing_secret=config.signing_secret)
    else:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        logging.getLogger("denpex").info("Socket Mode")
        SocketModeHandler(app, config.app_token).start()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the Slack bot (Socket Mode, or HTTP with --http)")
    p.add_argument("--http", action="store_true", help="HTTP mode (needs SLACK_SIGNING_SECRET)")
    p.add_argument("--host", default=os.environ.get("DENPEX_HOST", "0.0.0.0"))
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "3000")))
    p.set_defaults(handler=run)
