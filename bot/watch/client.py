"""Posting alerts to the bot's ingest endpoint, in the background, never in the job's way.

Each alert is queued and sent by one daemon thread: a bot that is down, slow or refusing never
delays the child's output or its exit. Network failures, 5xx, 429 and 503 are retried with
backoff (each attempt a new nonce and timestamp: the bot refuses a replayed request, and makes
a retried alert idempotent by job and root cause instead); a refusal (401, 402, 403, 400) is
final and its reason is printed once. The token is never printed.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from bot.watch.protocol import INGEST_PATH, Alert

RETRY_FOR_S = 900.0
FIRST_BACKOFF_S = 0.5
BACKOFF_MAX_S = 30.0
REQUEST_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Delivery:
    """How one alert ended: `status` is the HTTP status (0: the bot was never reached)."""

    alert: Alert
    status: int
    message: str

    @property
    def ok(self) -> bool:
        return self.status == 200


def ingest_url(base: str) -> str:
    """The bot's base URL (`https://denpex.example.com`) or the endpoint's full URL."""
    base = base.rstrip("/")
    if base.endswith(INGEST_PATH):
        return base
    # The URL Slack is given for events names the bot too: `https://bot.example/slack/events`.
    return base.removesuffix("/slack/events") + INGEST_PATH


class AlertClient:
    """Send alerts to `url` with `token`; `say` prints a line for the user (stderr)."""

    def __init__(self, url: str, token: str, say: Callable[[str], None], *, retry_for_s: float = RETRY_FOR_S,
                 timeout_s: float = REQUEST_TIMEOUT_S, first_backoff_s: float = FIRST_BACKOFF_S):
        self.url = ingest_url(url)
        self._token = token
        self._say = say
        self._retry_for_s = retry_for_s
        self._timeout_s = timeout_s
        self._first_backoff_s = first_backoff_s
        self._queue: queue.Queue[Alert | None] = queue.Queue()
        self.deliveries: list[Delivery] = []
        self._thread = threading.Thread(target=self._run, name="denpex-alerts", daemon=True)
        self._thread.start()

    def send(self, alert: Alert) -> None:
        self._queue.put(alert)

    def close(self, wait_s: float) -> bool:
        """Stop after what is queued is sent, waiting at most `wait_s`; True when all went."""
        self._queue.put(None)
        self._thread.join(wait_s)
        if self._thread.is_alive():
            left = self._queue.qsize()
            self._say(f"denpex watch: gave up waiting for the bot after {wait_s:.0f} s; "
                      f"{max(left, 1)} alert(s) not delivered (they are printed above)")
            return False
        return all(d.ok for d in self.deliveries)

    def _run(self) -> None:
        while True:
            alert = self._queue.get()
            if alert is None:
                return
            delivery = self._deliver(alert)
            self.deliveries.append(delivery)
            if not delivery.ok:
                self._say(f"denpex watch: alert not delivered to {self.url}: {delivery.message}")

    def _deliver(self, alert: Alert) -> Delivery:
        deadline = time.monotonic() + self._retry_for_s
        delay = self._first_backoff_s
        told = False
        while True:
            status, message, retry_after = self._post(alert)
            if status == 200 or status not in (0, 429, 500, 502, 503, 504):
                return Delivery(alert, status, message)
            if time.monotonic() + delay > deadline:
                return Delivery(alert, status, f"{message} (retried for {self._retry_for_s:.0f} s)")
            if not told:
                self._say(f"denpex watch: the bot did not take the alert ({message}); retrying in the background")
                told = True
            time.sleep(max(delay, min(retry_after or 0, BACKOFF_MAX_S)))
            delay = min(delay * 2, BACKOFF_MAX_S)

    def _post(self, alert: Alert) -> tuple[int, str, float | None]:
        body = alert.to_json(secrets.token_hex(16), time.time())
        req = urllib.request.Request(self.url, data=body, method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self._token}",
            "User-Agent": "denpex-watch",
        })  # fmt: skip
        try:
            with urllib.request.urlopen(req, timeout=self._timeout_s) as resp:
                return resp.status, _reason(resp.read()), None
        except urllib.error.HTTPError as exc:
            retry = exc.headers.get("Retry-After") if exc.headers else None
            return exc.code, _reason(exc.read()), float(retry) if retry and retry.isdigit() else None
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            return 0, f"cannot reach the bot ({reason})", None


def _reason(raw: bytes) -> str:
    """The bot's one-line answer: its `error` text, else the body's start."""
    try:
        doc = json.loads(raw)
        if isinstance(doc, dict):
            return str(doc.get("error") or doc.get("message") or "ok")[:300]
    except ValueError:
        pass
    return raw[:200].decode("utf-8", "replace")
