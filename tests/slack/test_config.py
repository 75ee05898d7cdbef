"""Start-up configuration: missing or malformed settings stop the bot with the variable's name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.slack.config import ConfigError, SlackConfig

ROOT = Path(__file__).resolve().parents[2]
GOOD = {"SLACK_BOT_TOKEN": "xoxb-1-2", "SLACK_SIGNING_SECRET": "s3cr3t"}


@pytest.mark.parametrize(
    ("mode", "env", "names"),
    [
        ("http", {"SLACK_SIGNING_SECRET": "x"}, "SLACK_BOT_TOKEN"),
        ("http", {"SLACK_BOT_TOKEN": "xoxp-user-token", "SLACK_SIGNING_SECRET": "x"}, "SLACK_BOT_TOKEN"),
        ("http", {"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
        ("socket", {"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_APP_TOKEN"),
        ("socket", {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xoxb-wrong"}, "SLACK_APP_TOKEN"),
        ("http", {**GOOD, "SLACK_API_URL": "ftp://x"}, "SLACK_API_URL"),
        ("http", {**GOOD, "DENPEX_MAX_UPLOAD_BYTES": "25MB"}, "DENPEX_MAX_UPLOAD_BYTES"),
        ("http", {**GOOD, "SLACK_CLIENT_ID": "123.456"}, "SLACK_CLIENT_SECRET"),
    ],
)
def test_bad_configuration_names_the_variable(mode, env, names):
    """Each bad setting is refused with a message that names it."""
    with pytest.raises(ConfigError, match=names):
        SlackConfig.from_env(mode, env)


def test_good_configuration_normalises_the_api_url():
    """SLACK_API_URL gains its trailing slash; caps have defaults."""
    cfg = SlackConfig.from_env("http", {**GOOD, "SLACK_API_URL": "http://127.0.0.1:9/api"})
    assert cfg.api_url == "http://127.0.0.1:9/api/" and cfg.max_upload_bytes == 25_000_000


def test_serve_refuses_to_start_without_configuration():
    """`denpex serve --http` with no token exits 2 with one line naming SLACK_BOT_TOKEN."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    out = subprocess.run([sys.executable, "-m", "bot", "serve", "--http"], cwd=ROOT, env=env,
                         capture_output=True, timeout=60)
    assert out.returncode == 2 and b"SLACK_BOT_TOKEN" in out.stderr
    plain = subprocess.run([sys.executable, "-m", "bot", "serve"], cwd=ROOT, env=env, capture_output=True, timeout=60)
    assert plain.returncode == 2 and b"SLACK_APP_TOKEN" in plain.stderr
