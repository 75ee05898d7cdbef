"""Slack-side configuration from the environment, checked at start-up.

A missing or malformed variable stops start-up with a message naming it: a bot that starts
and then fails on the first event is worse than one that refuses to start.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from bot.store import StoreConfigError
from bot.store.sealing import parse_keys

DEFAULT_API_URL = "https://slack.com/api/"


class ConfigError(Exception):
    """Start-up configuration is missing or malformed; the message names the variable."""


def _int(env: Mapping[str, str], name: str, default: int, unit: str = "bytes") -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number of {unit}, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {value}")
    return value


@dataclass(frozen=True)
class SlackConfig:
    bot_token: str | None
    signing_secret: str | None
    app_token: str | None
    api_url: str
    max_upload_bytes: int
    max_inflated_bytes: int
    client_id: str | None = None
    client_secret: str | None = None
    scopes: tuple[str, ...] = ()
    token_key: str | None = None  # key for encrypting installation tokens at rest
    # Refresh a rotating bot token this many minutes before it expires (token rotation on).
    token_rotation_minutes: int = 120

    @property
    def multi_workspace(self) -> bool:
        return bool(self.client_id)

    @classmethod
    def from_env(cls, mode: str, env: Mapping[str, str] | None = None) -> SlackConfig:
        """Read and check the variables `mode` ("http" or "socket") needs."""
        env = os.environ if env is None else env
        api_url = env.get("SLACK_API_URL") or DEFAULT_API_URL
        parsed = urllib.parse.urlparse(api_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ConfigError(f"SLACK_API_URL must be an http(s) URL such as {DEFAULT_API_URL}, got {api_url!r}")
        if not api_url.endswith("/"):
            api_url += "/"
        client_id = env.get("SLACK_CLIENT_ID") or None
        bot_token = env.get("SLACK_BOT_TOKEN") or None
        if not client_id:
            if not bot_token:
                raise ConfigError("SLACK_BOT_TOKEN is not set (the xoxb- token from the app's OAuth & Permissions page)")
            if not bot_token.startswith("xoxb-"):
                raise ConfigError("SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
        signing_secret = env.get("SLACK_SIGNING_SECRET") or None
        app_token = env.get("SLACK_APP_TOKEN") or None
        if mode == "http":
            if not signing_secret:
                raise ConfigError("SLACK_SIGNING_SECRET is not set (Basic Information > App Credentials); HTTP mode needs it")
        elif mode == "socket":
            if not app_token:
                raise ConfigError("SLACK_APP_TOKEN is not set (an xapp- app-level token with connections:write); Socket Mode needs it")
            if not app_token.startswith("xapp-"):
                raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
        else:
            raise ConfigError(f"unknown mode {mode!r}")
        client_secret = env.get("SLACK_CLIENT_SECRET") or None
        token_key = env.get("DENPEX_TOKEN_KEY") or None
        if client_id:
            if mode != "http":
                raise ConfigError("SLACK_CLIENT_ID is set: multi-workspace installs need HTTP mode (denpex serve --http)")
            if not client_secret:
                raise ConfigError("SLACK_CLIENT_SECRET is not set; multi-workspace mode (SLACK_CLIENT_ID) needs it")
            if not token_key:
                raise ConfigError("DENPEX_TOKEN_KEY is not set; multi-workspace mode encrypts bot tokens at rest with it")
            try:
                parse_keys(token_key)
            except StoreConfigError as exc:
                raise ConfigError(str(exc)) from None
        scopes = tuple(s.strip() for s in (env.get("SLACK_SCOPES") or "").split(",") if s.strip())
        return cls(
            bot_token=bot_token,
            signing_secret=signing_secret,
            app_token=app_token,
            api_url=api_url,
            max_upload_bytes=_int(env, "DENPEX_MAX_UPLOAD_BYTES", 25_000_000),
            max_inflated_bytes=_int(env, "DENPEX_MAX_INFLATED_BYTES", 100_000_000),
            client_id=client_id,
            client_secret=client_secret,
            scopes=scopes,
            token_key=token_key,
            token_rotation_minutes=_int(env, "DENPEX_TOKEN_ROTATION_MINUTES", 120, "minutes"),
        )
