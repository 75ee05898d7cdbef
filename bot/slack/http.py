"""HTTP mode: Bolt behind a production WSGI server (waitress), plus `/healthz`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

from bot.store import Store


def wsgi_app(app: App, store: Store) -> Callable[..., Iterable[bytes]]:
    """The WSGI callable: Slack's endpoints through Bolt, `/healthz` for load balancers."""
    slack = SlackRequestHandler(app)

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/healthz":
            redis_ok = store.ping()
            # Up even without Redis: the bot keeps answering (with "temporarily unavailable").
            body = json.dumps({"ok": True, "redis": redis_ok}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        return slack(environ, start_response)

    return application


def serve_http(app: App, store: Store, host: str, port: int, threads: int = 16) -> None:
    import waitress

    waitress.serve(wsgi_app(app, store), host=host, port=port, threads=threads, ident="denpex")
