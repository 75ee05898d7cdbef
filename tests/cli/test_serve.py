"""`denpex serve` at start-up: Slack unreachable is one line; Socket Mode has a health endpoint."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("slack_bolt")

ROOT = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_slack_unreachable_at_start_is_one_line():
    dead = _closed_port()
    env = {
        **os.environ,
        "SLACK_BOT_TOKEN": "xoxb-1-2-test",
        "SLACK_SIGNING_SECRET": "test-secret",
        "SLACK_API_URL": f"http://127.0.0.1:{dead}/api/",
        "REDIS_URL": f"redis://127.0.0.1:{_closed_port()}/0",
        "DENPEX_LOG_LEVEL": "ERROR",
    }
    out = subprocess.run(
        [sys.executable, "-m", "bot", "serve", "--http", "--port", str(_closed_port())],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("denpex:")]
    assert len(lines) == 1 and "Slack does not answer" in lines[0] and str(dead) in lines[0], out.stderr


def test_socket_mode_health_follows_the_connection():
    from bot.cli.serve import serve_health

    state = {"up": False}
    server = serve_health("127.0.0.1", 0, lambda: state["up"], lambda: True)
    url = f"http://127.0.0.1:{server.server_port}/healthz"
    try:
        with pytest.raises(urllib.error.HTTPError) as down:
            urllib.request.urlopen(url, timeout=5)
        assert down.value.code == 503
        state["up"] = True
        with urllib.request.urlopen(url, timeout=5) as r:
            assert r.status == 200 and json.loads(r.read()) == {"ok": True, "mode": "socket", "slack": True, "redis": True}
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url.replace("healthz", "other"), timeout=5)
        assert missing.value.code == 404
    finally:
        server.shutdown()
        server.server_close()
