"""How the bot calls the Slack Web API: timeouts and retry policy, bounded everywhere.

The reply in the thread is what matters; reactions are a courtesy. A courtesy call gets a
short timeout and retries a 429 only when Slack asks for a short wait, so a rate-limited or
slow `reactions.add` can never hold up (or lose) the reply. The reply itself honours
`Retry-After` up to a minute: a 429 means Slack did not post, so retrying never doubles it.
"""

from __future__ import annotations

import logging
import random
import re
import time
from http.client import RemoteDisconnected
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import FixedValueRetryIntervalCalculator
from slack_sdk.http_retry.handler import RetryHandler, default_interval_calculator
from slack_sdk.http_retry.interval_calculator import RetryIntervalCalculator

from bot.slack import timers

log = logging.getLogger("denpex.slack")

WEB_API_TIMEOUT_S = 10.0  # DENPEX_SLACK_TIMEOUT_S overrides
COURTESY_TIMEOUT_S = 3.0
# Longest Retry-After honoured: for the reply, and for courtesy calls (reactions).
MAX_RETRY_AFTER_S = 60.0
COURTESY_MAX_RETRY_AFTER_S = 2.0
# A download is read while the user waits: a longer Retry-After is told, not slept through.
MAX_DOWNLOAD_RETRY_AFTER_S = 20.0
# Added to a 429's Retry-After, so replicas told the same wait do not retry in step
# (DENPEX_RETRY_JITTER_S overrides).
RETRY_JITTER_S = 1.0


# Errors Slack answers with HTTP 200 that say nothing of whether the message was posted: its
# common errors `internal_error` and `fatal_error` ("it's possible some aspect of the operation
# succeeded"), `service_unavailable`, `request_timeout` (the POST arrived truncated). A post is
# handled as after a 5xx (looked for in the thread, posted again only once known to be absent),
# a read is asked again.
UNKNOWN_OUTCOME = ("internal_error", "fatal_error", "service_unavailable", "request_timeout")
# What Slack's own refusals look like: an error code. slack_sdk reports an answer that was not
# Slack's JSON (an HTML page, an empty body, `{}`) with a sentence or no error at all: no word
# from Slack, so an unknown outcome too.
_SLACK_ERROR_CODE = re.compile(r"[a-z0-9_.]+")


def slack_said(error: Any) -> bool:
    """Is `error` an error code Slack answered with (not slack_sdk's note of an odd body)?"""
    return isinstance(error, str) and _SLACK_ERROR_CODE.fullmatch(error) is not None


def unknown_outcome(error: Any) -> bool:
    """Does an `ok: false` answer leave open whether Slack did the work (see UNKNOWN_OUTCOME)?"""
    return not slack_said(error) or error in UNKNOWN_OUTCOME


# What a Web API call raises when it did not plainly succeed: Slack's refusal (SlackApiError),
# the network (OSError: resets, timeouts), or an answer whose JSON was cut off (slack_sdk lets the
# decoding error, a ValueError, through). Where a failed call is only logged, all three are.
CALL_FAILED: tuple[type[Exception], ...] = (SlackApiError, OSError, ValueError)


def api_timeout() -> float:
    """Seconds a Web API call may take (DENPEX_SLACK_TIMEOUT_S, default 10)."""
    return timers.seconds("DENPEX_SLACK_TIMEOUT_S", WEB_API_TIMEOUT_S, allow_zero=False)


def retry_jitter() -> float:
    return timers.seconds("DENPEX_RETRY_JITTER_S", RETRY_JITTER_S)


def backoff() -> RetryIntervalCalculator:
    """The wait between retries of a 5xx or a reset: slack_sdk's exponential back-off with
    jitter, or a fixed DENPEX_RETRY_BACKOFF_S."""
    fixed = timers.seconds("DENPEX_RETRY_BACKOFF_S", -1.0)
    return FixedValueRetryIntervalCalculator(fixed) if fixed >= 0 else default_interval_calculator


def retry_after_s(response: Any) -> float | None:
    """The Retry-After of a 429 in seconds; None when absent or unreadable (an HTTP date)."""
    headers = getattr(response, "headers", None) or {}
    for key, value in headers.items():
        if key.lower() != "retry-after":
            continue
        if isinstance(value, (list, tuple)):
            value = value[0] if value else None
        try:
            return max(0.0, float(value))
        except (TypeError, ValueError):
            return None
    return None


# The error codes of a rate limit: `ratelimited` (the Web API's common error, with its
# Retry-After) and `rate_limited`, which chat.postMessage and others list apart ("Application
# has posted too many messages"). Either way Slack did nothing, so the call may be made again.
RATE_LIMIT_ERRORS = ("ratelimited", "rate_limited")


def rate_limited(response: Any) -> bool:
    """A 429, or a rate limit's error code in an HTTP 200 body (a proxy or an older edge
    answers so; the Web API's error lists name both codes): either way Slack did nothing."""
    if response.status_code == 429:
        return True
    body = getattr(response, "body", None)
    return isinstance(body, dict) and body.get("ok") is False and body.get("error") in RATE_LIMIT_ERRORS


class BoundedRateLimitRetryHandler(RateLimitErrorRetryHandler):
    """Retry a 429 after its Retry-After, but only when the wait is at most `max_wait_s`.

    slack_sdk's own handler sleeps whatever Slack says and fails on a non-integer header.
    """

    def __init__(self, max_retry_count: int, max_wait_s: float, jitter_s: float | None = None) -> None:
        super().__init__(max_retry_count=max_retry_count)
        self.max_wait_s = max_wait_s
        self.jitter_s = retry_jitter() if jitter_s is None else jitter_s

    def _wait(self, response: Any) -> float:
        after = retry_after_s(response)
        return 1.0 if after is None else after

    def _can_retry(self, *, state: Any, request: Any, response: Any = None, error: Any = None) -> bool:
        if response is None or not rate_limited(response):
            return False
        wait = self._wait(response)
        if wait > self.max_wait_s:
            log.info("Slack asked to wait %.0f s (over %.0f s): not retrying %s", wait, self.max_wait_s, request.url)
            return False
        return True

    def prepare_for_next_attempt(self, *, state: Any, request: Any, response: Any = None, error: Any = None) -> None:
        if response is None:
            raise error  # pragma: no cover - _can_retry only accepts responses
        state.next_attempt_requested = True
        time.sleep(self._wait(response) + random.random() * self.jitter_s)
        state.increment_current_attempt()


def retry_handlers() -> list[RetryHandler]:
    """For the reply and everything else: honour Retry-After on 429, retry 5xx and resets."""
    return [
        BoundedRateLimitRetryHandler(max_retry_count=3, max_wait_s=MAX_RETRY_AFTER_S),
        ServerErrorRetryHandler(max_retry_count=2, interval_calculator=backoff()),
        ConnectionErrorRetryHandler(max_retry_count=2, interval_calculator=backoff()),
    ]


def download_retry_handlers() -> list[RetryHandler]:
    """For a file's download (urllib, not the WebClient): the same slack_sdk handlers. A
    reset is retried, a timeout is not (a stalled download would take several timeouts)."""
    return [
        BoundedRateLimitRetryHandler(max_retry_count=2, max_wait_s=MAX_DOWNLOAD_RETRY_AFTER_S),
        ServerErrorRetryHandler(max_retry_count=2, interval_calculator=backoff()),
        ConnectionErrorRetryHandler(max_retry_count=2, interval_calculator=backoff(),
                                    error_types=[ConnectionResetError, RemoteDisconnected]),
    ]


def courtesy_client(client: WebClient, timeout_s: float = COURTESY_TIMEOUT_S, retry: bool = True) -> WebClient:
    """A client for calls that must not delay the reply (reactions): short timeout, one short
    retry; with `retry` False none, for a call made inside a 3-second acknowledgement."""
    return WebClient(
        token=client.token,
        base_url=client.base_url,
        timeout=min(client.timeout, timeout_s),
        headers=client.headers,
        team_id=(client.default_params or {}).get("team_id"),
        logger=client.logger,
        retry_handlers=[
            BoundedRateLimitRetryHandler(max_retry_count=1, max_wait_s=COURTESY_MAX_RETRY_AFTER_S,
                                         jitter_s=min(0.2, retry_jitter())),
            ConnectionErrorRetryHandler(max_retry_count=1, interval_calculator=backoff()),
        ] if retry else [],
    )


def reply_client(client: WebClient) -> WebClient:
    """A client for posts that must not double: only a 429 is retried (Slack posted nothing).

    A 5xx, a reset or a timeout may come after Slack did post, so slack_sdk's server-error
    and connection retry handlers, which would repeat the post blindly, are left out: the
    caller looks for the post before repeating it (bot.slack.diagnosis.post_verified)."""
    return WebClient(
        token=client.token,
        base_url=client.base_url,
        timeout=client.timeout,
        headers=client.headers,
        team_id=(client.default_params or {}).get("team_id"),
        logger=client.logger,
        retry_handlers=[BoundedRateLimitRetryHandler(max_retry_count=3, max_wait_s=MAX_RETRY_AFTER_S)],
    )
