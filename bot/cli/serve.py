"""`denpex serve`: the Slack bot, in Socket Mode (SLACK_APP_TOKEN) or HTTP mode (--http)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bot.cli import UsageError, require_extra, rule_error_line


def run(args: argparse.Namespace) -> int:
    require_extra("slack", "serve")
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
        raise UsageError(rule_error_line(exc)) from None
    if not store.ping():
        logging.getLogger("denpex").warning("Redis does not answer at start-up; the bot runs and recovers when it returns")
    # Bolt checks the token with auth.test here: Slack unreachable or a revoked token is one
    # line, not a traceback after the SDK's own retry log.
    sdk_log = logging.getLogger("slack_sdk.web.base_client")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)
    try:
        app = build_app(deps)
    except Exception as exc:
        api = os.environ.get("SLACK_API_URL") or "https://slack.com/api/"
        if isinstance(exc, OSError):  # URLError, refused, DNS, TLS: the network
            raise UsageError(f"cannot start: Slack does not answer at {api} ({getattr(exc, 'reason', exc)})") from None
        raise UsageError(f"cannot start: Slack at {api} refused the bot ({type(exc).__name__}: {exc})") from None
    finally:
        sdk_log.setLevel(level)
    if mode == "http":
        from bot.slack.http import serve_http
        from bot.slack.ingest_endpoint import ingest_endpoint

        logging.getLogger("denpex").info("HTTP mode on %s:%d (events at /slack/events, alerts at /denpex/alerts, "
                                         "health at /healthz)", args.host, args.port)
        serve_http(app, store, args.host, args.port, signing_secret=config.signing_secret,
                   ingest=ingest_endpoint(deps, app))
    else:
        from bot.slack.socket import socket_mode_handler

        handler = socket_mode_handler(app, config.app_token)
        from bot.slack.ingest_endpoint import ingest_endpoint

        try:
            health = serve_health(args.host, args.port, lambda: handler.client.is_connected(), store.ping,
                                  ingest=ingest_endpoint(deps, app))
            logging.getLogger("denpex").info("Socket Mode (health at http://%s:%d/healthz, alerts at /denpex/alerts)",
                                             args.host, health.server_port)
        except OSError as exc:  # the port is taken (another replica on this host): run without it
            logging.getLogger("denpex").warning(
                "Socket Mode without /healthz: cannot listen on %s:%d (%s); set PORT or --port", args.host, args.port, exc.strerror
            )
        try:
            handler.start()
        except Exception as exc:
            # Slack unreachable, a revoked app token: one line, not a traceback.
            raise UsageError(f"cannot connect to Slack in Socket Mode: {type(exc).__name__}: {exc}") from None
    return 0


def serve_health(host: str, port: int, connected: Callable[[], bool], redis_ok: Callable[[], bool],
                 ingest: Any = None) -> ThreadingHTTPServer:
    """`/healthz` in Socket Mode, where no HTTP server runs otherwise: 200 while the socket to
    Slack is connected, 503 while it is not (a container health check then restarts a bot
    that lost Slack for good). Redis is reported, not required: the bot answers without it.
    With `ingest`, `POST /denpex/alerts` takes alerts from `denpex watch` here too."""

    class Health(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            from bot.slack.http import ALERTS_PATH
            from bot.slack.ingest_endpoint import answer_http

            if ingest is None or self.path.split("?")[0].rstrip("/") != ALERTS_PATH:
                self.send_error(404)
                return
            answer_http(ingest, self)

        def do_GET(self) -> None:
            if self.path.split("?")[0] != "/healthz":
                self.send_error(404)
                return
            up = bool(connected())
            body = json.dumps({"ok": up, "mode": "socket", "slack": up, "redis": bool(redis_ok())}).encode()
            self.send_response(200 if up else 503)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # probes every few seconds: quiet
            pass

    server = ThreadingHTTPServer((host, port), Health)
    threading.Thread(target=server.serve_forever, name="denpex-health", daemon=True).start()
    return server


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run the Slack bot (Socket Mode, or HTTP with --http); needs denpex[slack]",
        description="Run the Slack bot: Socket Mode with SLACK_APP_TOKEN, or HTTP mode with --http "
        "and SLACK_SIGNING_SECRET. Needs SLACK_BOT_TOKEN, a Redis at REDIS_URL, and the slack extra "
        "(pip install 'denpex[slack]').",
    )
    p.add_argument("--http", action="store_true", help="HTTP mode (needs SLACK_SIGNING_SECRET)")
    p.add_argument(
        "--host", default=os.environ.get("DENPEX_HOST", "0.0.0.0"),
        help="HTTP mode: address to listen on (default $DENPEX_HOST or 0.0.0.0)",
    )
    p.add_argument(
        "--port", type=int, default=int(os.environ.get("PORT", "3000")),
        help="HTTP mode: port to listen on; the health server's port in Socket Mode (default $PORT or 3000)",
    )
    p.set_defaults(handler=run)
