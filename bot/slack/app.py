"""Build the Bolt app: a Web API client pointed at SLACK_API_URL, the listeners, nothing else."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from slack_bolt import App
from slack_sdk import WebClient

from bot.slack.blocks import NOT_INSTALLED_TEXT
from bot.slack.config import SlackConfig
from bot.slack.deps import BotDeps
from bot.slack.listeners import register_listeners
from bot.slack.recovery import start_sweeper
from bot.slack.webapi import api_timeout, retry_handlers

# Lazy listeners mostly wait on Slack and Redis (a 429's Retry-After, a slow download): Bolt's
# default of 5 threads lets five such waits stall every other event of the process.
LAZY_WORKERS = 32


def web_client(config: SlackConfig, token: str | None) -> WebClient:
    """slack_sdk does not retry by default: see bot.slack.webapi for the policy."""
    return WebClient(token=token, base_url=config.api_url, timeout=api_timeout(), retry_handlers=retry_handlers())


def build_app(deps: BotDeps) -> App:
    config = deps.config
    multi: dict = {}
    if config.multi_workspace:
        from bot.slack.oauth import oauth_settings

        # No token of our own: Bolt's authorize puts each workspace's token on the client
        # it hands the listeners; /slack/install and /slack/oauth_redirect install the app.
        multi["oauth_settings"] = oauth_settings(config, deps.store, web_client(config, None))
        multi["user_facing_authorize_error_message"] = NOT_INSTALLED_TEXT
    app = App(
        # The token travels with the client (whose base URL is SLACK_API_URL).
        signing_secret=config.signing_secret or "socket-mode-does-not-sign",
        client=web_client(config, None if config.multi_workspace else config.bot_token),
        **multi,
        # Bolt logs request bodies at DEBUG: keep its logger above that, logs carry no log text.
        logger=logging.getLogger("denpex.bolt"),
        process_before_response=False,
        listener_executor=ThreadPoolExecutor(max_workers=LAZY_WORKERS, thread_name_prefix="denpex-lazy"),
    )
    register_listeners(app, deps)
    # Messages a dead process claimed and never answered are taken over (bot.slack.recovery).
    start_sweeper(app, deps)
    return app
