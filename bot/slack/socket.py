"""Socket Mode: Bolt's handler over slack_sdk's built-in WebSocket client, tuned to notice a
dropped connection.

The built-in client learns that its socket is dead only from failed pings, and gives the
socket up after five in a row, one per `ping_interval`: at its default of 10 s a dropped
connection (a NAT timeout, a load balancer restart) stays dead for about a minute while
/healthz still reports it connected. Pinging every DENPEX_SOCKET_PING_S (default 2 s)
replaces it, through apps.connections.open, within about ten seconds.

Envelopes reach Bolt without the HTTP screen (bot.slack.http), so the same check of the
payload's shape runs here: a payload Bolt would fail on with a 500 is acknowledged and dropped
(unacknowledged, Slack would re-deliver it, malformed again), as HTTP refuses it with a 400.

Bolt's Socket Mode adapter acknowledges only a 200. What HTTP answers with a 4xx (a workspace
id no key can hold, an invalid event id, a payload kind no listener takes: Bolt's 404) would
stay unacknowledged, and Slack would re-deliver it, to be refused again, until it gives up:
such an envelope is acknowledged with nothing in it. A 5xx (a failure a later delivery may not
meet, such as no installation store) stays unacknowledged, so Slack re-delivers it, as it
retries an HTTP 500.
"""

from __future__ import annotations

import json
import logging

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.socket_mode import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from bot.slack import timers
from bot.slack.http import misshapen

log = logging.getLogger("denpex.slack")

SOCKET_PING_S = 2.0


def ping_interval() -> float:
    return timers.seconds("DENPEX_SOCKET_PING_S", SOCKET_PING_S, allow_zero=False)


class ScreenedSocketModeHandler(SocketModeHandler):
    """Bolt's Socket Mode handler behind the screen HTTP requests pass."""

    def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:
        problem = misshapen(req.payload)
        if problem:
            log.info("dropped a Socket Mode %s envelope: %s", req.type, problem.decode())
            client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            return
        # What the base class does (through Bolt's public API), but a refusal (4xx) is
        # acknowledged too.
        response = self.app.dispatch(BoltRequest(mode="socket_mode", body=req.payload, headers=retry_headers(req)))
        if response.status == 200:
            client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id, payload=ack_payload(response)))
        elif 400 <= response.status < 500:
            log.info("acknowledged a Socket Mode %s envelope Bolt refused: %s %s", req.type, response.status,
                     str(response.body)[:200])
            client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
        else:
            log.info("left a Socket Mode %s envelope unacknowledged for Slack to re-deliver: %s", req.type, response.status)


def retry_headers(req: SocketModeRequest) -> dict[str, str] | None:
    """A re-delivery's attempt and reason as the HTTP headers Slack sends with one, so the
    listeners see a Socket Mode retry as they see an HTTP one."""
    headers = {}
    if req.retry_attempt is not None:
        headers["x-slack-retry-num"] = str(req.retry_attempt)
    if req.retry_reason is not None:
        headers["x-slack-retry-reason"] = req.retry_reason
    return headers or None


def ack_payload(response: BoltResponse) -> dict | None:
    """What an acknowledgement carries back: nothing, a JSON answer (a slash command's reply,
    a view's errors), or a text answer as Slack's `text`."""
    if not response.body:
        return None
    if response.headers.get("content-type", [""])[0].startswith("application/json"):
        return json.loads(response.body)
    return {"text": response.body}


def socket_mode_handler(app: App, app_token: str) -> SocketModeHandler:
    """The Socket Mode handler `denpex serve` runs (its Web API client is the app's, so
    apps.connections.open goes to SLACK_API_URL too)."""
    return ScreenedSocketModeHandler(app, app_token, ping_interval=ping_interval())
