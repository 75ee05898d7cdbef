"""Posting to a request's `response_url`, said plainly whether Slack showed the answer.

Bolt's `respond()` uses slack_sdk's WebhookClient with its default retry handler, which posts
again after a reset or a dropped connection: after Slack had shown the answer, the person saw
it twice. A response_url answer is ephemeral, and nothing can read one back to check, so here
only a 429 (Slack showed nothing) is retried; a 5xx, a reset or a timeout is an unknown
outcome, told as such so the caller does not send the answer another way too.
"""

from __future__ import annotations

import enum
import logging
import socket
import urllib.error
from typing import Any

from slack_sdk.webhook import WebhookClient

from bot.slack.webapi import MAX_RETRY_AFTER_S, BoundedRateLimitRetryHandler, api_timeout

log = logging.getLogger("denpex.slack")


class Shown(enum.Enum):
    YES = "yes"  # Slack answered 200
    NO = "no"  # Slack refused it (the URL expired or was used 5 times, a 4xx) or was never reached
    UNKNOWN = "unknown"  # a 5xx, a reset, a timeout: it may be on the person's screen


def respond(url: str, message: dict[str, Any]) -> Shown:
    """Post `message` (text, blocks, response_type...) to `url` once (a 429 after its wait)."""
    client = WebhookClient(url=url, timeout=int(api_timeout()),
                           retry_handlers=[BoundedRateLimitRetryHandler(max_retry_count=2, max_wait_s=MAX_RETRY_AFTER_S)])
    try:
        answer = client.send_dict(message)
    except urllib.error.URLError as exc:
        # Never connected (refused, no such host): nothing was sent. What else urllib wraps (a
        # reset or a timeout while sending) may have reached Slack.
        if isinstance(exc.reason, (ConnectionRefusedError, socket.gaierror)):
            log.info("response_url not reached: %s", type(exc.reason).__name__)
            return Shown.NO
        log.info("response_url post of unknown outcome: %s", type(exc.reason).__name__)
        return Shown.UNKNOWN
    except OSError as exc:  # a reset or a dropped connection after sending, a timeout
        log.info("response_url post of unknown outcome: %s", type(exc).__name__)
        return Shown.UNKNOWN
    if answer.status_code == 200:
        return Shown.YES
    if answer.status_code >= 500:
        log.info("response_url post of unknown outcome: HTTP %s", answer.status_code)
        return Shown.UNKNOWN
    log.info("response_url refused the answer: HTTP %s %s", answer.status_code, str(answer.body)[:40])
    return Shown.NO
