"""Multi-workspace mode: the OAuth v2 install flow and per-workspace tokens, through Bolt.

`/slack/install` shows an "Add to Slack" page (a single-use state in Redis, and in a cookie),
`/slack/oauth_redirect` trades Slack's code for the workspace's bot token (`oauth.v2.access`)
and stores the installation, encrypted, in Redis. On every request Bolt's authorize finds the
workspace's installation, refreshes a rotating token that is about to expire, and hands the
listeners a client carrying that workspace's token. Every Web API call (the code exchange,
`auth.test`, token refreshes) goes to SLACK_API_URL.
"""

from __future__ import annotations

import logging

from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk import WebClient

from bot.slack.config import SlackConfig
from bot.store import Store

# The bot scopes of manifest.yaml (oauth_config.scopes.bot); a test keeps the two in step.
# SLACK_SCOPES (comma-separated) overrides them.
MANIFEST_SCOPES = (
    "app_mentions:read",
    "channels:history",
    "chat:write",
    "commands",
    "files:read",
    "groups:history",
    "im:history",
    "mpim:history",
    "reactions:write",
)


def oauth_settings(config: SlackConfig, store: Store, client: WebClient) -> OAuthSettings:
    """Bolt's OAuth settings over our Redis stores; `client` (token-less, base URL
    SLACK_API_URL) is what refreshes rotating tokens."""
    if not (config.client_id and config.client_secret and config.token_key):
        raise ValueError("multi-workspace mode needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and DENPEX_TOKEN_KEY")
    logger = logging.getLogger("denpex.oauth")
    installations = store.installations(config.token_key)
    settings = OAuthSettings(
        client_id=config.client_id,
        client_secret=config.client_secret,
        scopes=list(config.scopes or MANIFEST_SCOPES),
        user_scopes=[],
        installation_store=installations,
        state_store=store.oauth_states,
        state_expiration_seconds=store.oauth_states.ttl_s,
        token_rotation_expiration_minutes=config.token_rotation_minutes,
        logger=logger,
    )
    # OAuthSettings builds an authorize whose token rotator calls slack.com with a client of
    # its own; this one calls SLACK_API_URL like everything else.
    settings.authorize = InstallationStoreAuthorize(
        logger=logger,
        installation_store=installations,
        client_id=config.client_id,
        client_secret=config.client_secret,
        token_rotation_expiration_minutes=config.token_rotation_minutes,
        # Not bot_only: Bolt's find_bot path swallows any error as "not installed" and answers
        # 200, losing the event; through find_installation a StoreUnavailable becomes a 500,
        # and Slack delivers the event again once Redis is back.
        client=client,
        # Bolt checks the token with auth.test before the ack, on every request unless cached:
        # a rate-limited or slow auth.test then holds each ack past Slack's 3 s (and its
        # retries). Cached per token, in this process: the installation is still read from
        # Redis on every request, so an uninstall or a rotated token takes effect at once.
        cache_enabled=True,
    )
    return settings
