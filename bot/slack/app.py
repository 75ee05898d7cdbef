"""Build the Bolt app: a Web API client pointed at SLACK_API_URL, the listeners, nothing else."""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)

from bot.slack.config import SlackConfig
from bot.slack.deps import BotDeps
from bot.slack.listeners import register_listeners

WEB_API_TIMEOUT_S = 10


def retry_handlers() -> list:
    """slack_sdk does not retry by default: honour Retry-After on 429, retry 5xx and resets."""
    return [
        RateLimitErrorRetryHandler(max_retry_count=3),
        ServerErrorRetryHandler(max_retry_count=2),
        ConnectionErrorRetryHandler(max_retry_count=2),
    ]


def web_client(config: SlackConfig, token: str | None) -> WebClient:
    return WebClient(token=token, base_url=config.api_url, timeout=WEB_API_TIMEOUT_S, retry_handlers=retry_handlers())


def build_app(deps: BotDeps) -> App:
    config = deps.config
    app = App(
        # The token travels with the client (whose base URL is SLACK_API_URL).
        signing_secret=config.signing_secret or "socket-mode-does-not-sign",
        client=web_client(config, config.bot_token),
        # Bolt logs request bodies at DEBUG: keep its logger above that, logs carry no log text.
        logger=logging.getLogger("denpex.bolt"),
        process_before_response=False,
    )
    register_listeners(app, deps)
    return app
