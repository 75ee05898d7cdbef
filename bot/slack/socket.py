"""Socket Mode: Bolt's handler over slack_sdk's built-in WebSocket client, tuned to notice a
dropped connection.

The built-in client learns that its socket is dead only from failed pings, and gives the
socket up after five in a row, one per `ping_interval`: at its default of 10 s a dropped
connection (a NAT timeout, a load balancer restart) stays dead for about a minute while
/healthz still reports it connected. Pinging every DENPEX_SOCKET_PING_S (default 2 s)
replaces it, through apps.connections.open, within about ten seconds.
"""

from __future__ import annotations

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler

from bot.slack import timers

SOCKET_PING_S = 2.0


def ping_interval() -> float:
    return timers.seconds("DENPEX_SOCKET_PING_S", SOCKET_PING_S, allow_zero=False)


def socket_mode_handler(app: App, app_token: str) -> SocketModeHandler:
    """The Socket Mode handler `denpex serve` runs (its Web API client is the app's, so
    apps.connections.open goes to SLACK_API_URL too)."""
    return SocketModeHandler(app, app_token, ping_interval=ping_interval())
