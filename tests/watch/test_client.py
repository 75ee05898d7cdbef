"""The watcher's delivery against a scripted stand-in of the bot on loopback: retried in the
background with a new nonce each time, a refusal told once, never the token."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bot.watch.client import AlertClient
from bot.watch.protocol import parse_alert
from tests.watch.test_ingest import ALERT

TOKEN = "dpx1.T0TEST001." + "s" * 43


class StandIn:
    """Answers each POST with the next scripted (status, error) and keeps what it got."""

    def __init__(self, script: list[tuple[int, str]]):
        self.script, self.bodies, self.auth = list(script), [], []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                stand_in.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
                stand_in.auth.append(self.headers.get("Authorization"))
                status, error = stand_in.script.pop(0) if stand_in.script else (200, "")
                body = json.dumps({"ok": status == 200, "error": error}).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                if status == 503:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def stand_in(request: pytest.FixtureRequest) -> Iterator[StandIn]:
    s = StandIn(request.param)
    yield s
    s.server.shutdown()


@pytest.mark.parametrize("stand_in", [[(503, "store down"), (503, "store down")]], indirect=True, ids=["two-503s"])
def test_a_bot_that_is_down_for_a_while_gets_the_alert_later(stand_in: StandIn) -> None:
    said: list[str] = []
    client = AlertClient(stand_in.url, TOKEN, said.append, first_backoff_s=0.02)
    client.send(ALERT)
    assert client.close(10)
    assert len(stand_in.bodies) == 3
    nonces = {parse_alert(b).nonce for b in stand_in.bodies}
    assert len(nonces) == 3  # a retry is a new request, never a replay
    assert stand_in.auth == [f"Bearer {TOKEN}"] * 3
    assert any("retrying in the background" in s for s in said)
    assert not any(TOKEN in s for s in said)


@pytest.mark.parametrize("stand_in", [[(402, "alerts are a Scale plan feature")]], indirect=True, ids=["free-plan"])
def test_a_refusal_is_final_and_told(stand_in: StandIn) -> None:
    said: list[str] = []
    client = AlertClient(stand_in.url, TOKEN, said.append)
    client.send(ALERT)
    assert not client.close(10)
    assert len(stand_in.bodies) == 1
    assert any("not delivered" in s and "Scale plan feature" in s for s in said)
