"""Requests that are not what Slack sends: forged, replayed, malformed, unknown. Each gets the
right status at once, nothing reaches Slack, and the bot goes on answering real events."""

from __future__ import annotations

import json
import time
import urllib.parse

import pytest

from tests.reliability.conftest import SAMPLE, message, new_ts, settle
from tests.slack.conftest import sign
from tests.slack.fake_slack import TEAM_ID


def envelope(event: dict | str, **extra) -> dict:
    return {"token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "type": "event_callback",
            "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()), "event": event, **extra}


def body_of(obj: dict) -> bytes:
    return json.dumps(obj).encode()


def still_answers(rbot, rfake) -> None:
    """A real log after the junk is answered as usual."""
    ts = new_ts()
    assert rbot.event(message(SAMPLE, ts)).status == 200
    rfake.wait_delivered("chat.postMessage", thread_ts=ts)


def _headers_without(name: str, body: bytes) -> dict[str, str]:
    h = sign(body)
    h[name] = ""
    return h


@pytest.mark.parametrize(
    "case",
    ["forged", "no-signature", "no-timestamp", "neither", "replayed-6-min-old", "from-the-future",
     "wrong-secret", "signature-of-another-body", "garbage-timestamp"],
)
def test_unsigned_forged_or_replayed_requests_get_401(rbot, rfake, case):
    """Bad signature, missing headers, a timestamp over five minutes off: 401, nothing posted."""
    body = body_of(envelope(message(SAMPLE, new_ts())))
    now = int(time.time())
    headers = {
        "forged": {"X-Slack-Signature": "v0=" + "0" * 64, "X-Slack-Request-Timestamp": str(now)},
        "no-signature": _headers_without("X-Slack-Signature", body),
        "no-timestamp": _headers_without("X-Slack-Request-Timestamp", body),
        "neither": {"X-Slack-Signature": "", "X-Slack-Request-Timestamp": ""},
        "replayed-6-min-old": sign(body, now - 360),
        "from-the-future": sign(body, now + 360),
        "wrong-secret": sign(body, secret="not-the-signing-secret"),
        "signature-of-another-body": sign(body.replace(b"rank3", b"rank4")),
        "garbage-timestamp": {**sign(body), "X-Slack-Request-Timestamp": "yesterday"},
    }[case]
    reply = rbot.post(body, "application/json", headers=headers, sign_it=False)
    assert reply.status == 401
    settle()
    assert rfake.of("chat.postMessage") == [] and rfake.of("reactions.add") == []


def _payload(obj: dict) -> bytes:
    return urllib.parse.urlencode({"payload": json.dumps({"team": {"id": TEAM_ID}, "user": {"id": "U0ALICE"},
                                                          "trigger_id": f"{time.time_ns()}.1", **obj})}).encode()


def _deep(n: int) -> bytes:
    return b'{"type":"event_callback","team_id":"T0TEST001","event":' + b"[" * n + b"]" * n + b"}"


@pytest.mark.parametrize(
    ("body", "ctype"),
    [
        (b'{"type": "event_callback", "event": {', "application/json"),
        (b'{"type": "event_callback", "event": {"text": "\xff\xfe"}}', "application/json"),
        (_deep(100_000), "application/json"),
        (b"[1, 2, 3]", "application/json"),
        (b'"just a string"', "application/json"),
        (b"", "application/json"),
        (b"   \n  ", "application/json"),
        (b"null", "application/json"),
        (body_of(envelope("not an object")), "application/json"),
        (body_of(envelope({"text": "an event without a type"})), "application/json"),
        (body_of({k: v for k, v in envelope({"type": "message"}).items() if k != "event"}), "application/json"),
        (b"payload=%7Bnot+json", "application/x-www-form-urlencoded"),
        (b"payload=" + b"%5B" * 50_000, "application/x-www-form-urlencoded"),
        (b"payload=%5B1%5D", "application/x-www-form-urlencoded"),
        (b"\xff\xfe=\xff", "application/x-www-form-urlencoded"),
        (body_of(envelope(message("hi", "1.1"), team_id="T BAD {x}")), "application/json"),
        (body_of(envelope(message("hi", "1.1"), team_id=12345)), "application/json"),
        (body_of(envelope(message("hi", "1.1"), event_id="Ev with spaces")), "application/json"),
        (_payload({"type": "block_actions", "actions": []}), "application/x-www-form-urlencoded"),
        (_payload({"type": "block_actions", "actions": {"action_id": "denpex_full_entry"}}), "application/x-www-form-urlencoded"),
        (_payload({"type": "block_actions", "actions": ["denpex_full_entry"]}), "application/x-www-form-urlencoded"),
        (_payload({"type": "view_submission", "view": {"id": "V1", "callback_id": "x"}}), "application/x-www-form-urlencoded"),
        (_payload({"type": "view_closed", "view": "V1"}), "application/x-www-form-urlencoded"),
    ],
    ids=["truncated-json", "not-utf8", "nested-100k-deep", "json-array", "json-string", "empty", "blank",
         "json-null", "event-not-object", "event-without-type", "event-missing", "form-payload-not-json",
         "form-payload-deep", "form-payload-array", "form-not-utf8", "team-id-invalid", "team-id-number",
         "event-id-with-spaces", "actions-empty", "actions-not-a-list", "action-not-an-object",
         "view-without-type", "view-not-an-object"],
)
def test_malformed_signed_bodies_get_400_not_a_crash(rbot, rfake, body, ctype):
    """Correctly signed but malformed, non-UTF-8, deeply nested or misshapen bodies: 400, no traceback."""
    reply = rbot.post(body, ctype)
    assert reply.status == 400, (reply.status, reply.body[:200])
    settle(0.3)
    assert rfake.of("chat.postMessage") == []


def test_oversized_body_gets_413_and_a_big_valid_event_is_acked(rbot, rfake):
    """A 3 MB body is refused with 413 before parsing; a 1.5 MB event of junk fields is acked."""
    huge = body_of(envelope(message("chatter", new_ts()), junk="x" * 3_000_000))
    assert rbot.post(huge, "application/json").status == 413
    big = body_of(envelope(message("chatter", new_ts()), junk=["y" * 1000] * 1500))
    started = time.monotonic()
    assert rbot.post(big, "application/json").status == 200
    assert time.monotonic() - started < 3, "Slack's 3 s ack budget"
    still_answers(rbot, rfake)


@pytest.mark.parametrize(
    "body",
    [
        envelope({"type": "frobnicate_happened", "user": "U0ALICE"}),
        envelope({"type": "message", "subtype": "message_deleted", "channel": "C0LOGS", "ts": "1.2"}),
        envelope({"type": "reaction_added", "user": "U0ALICE", "reaction": "mag"}),
        envelope({"type": "channel_left", "channel": "C0LOGS"}),
        envelope({"type": "assistant_thread_started", "event_ts": "1.4", "assistant_thread": {
            "user_id": "U0ALICE", "channel_id": "D0ALICE", "thread_ts": "1.3", "context": {}}}),
        envelope({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0ALICE", "tab": "messages"}),
        envelope({"type": "message", "subtype": "me_message", "channel": "C0LOGS", "user": "U0ALICE", "text": SAMPLE,
                  "ts": "1700000000.000501"}),
        envelope({"type": "message", "channel": "C0LOGS", "user": "UBOT0001", "text": SAMPLE, "ts": "1700000000.000502"}),
        envelope({"type": "message", "subtype": "message_replied", "hidden": True, "channel": "C0LOGS", "ts": "1.5",
                  "message": {"type": "message", "user": "U0ALICE", "text": SAMPLE, "ts": "1.1", "thread_ts": "1.1"}}),
        envelope({"type": "file_deleted", "file_id": "F0GONE", "event_ts": "1.6"}),
        {"token": "legacy", "team_id": TEAM_ID, "type": "app_rate_limited", "minute_rate_limited": 1518467820,
         "api_app_id": "A0DENPEX"},
    ],
    ids=["unknown-event", "deleted-message", "reaction", "channel-left", "assistant-thread-started",
         "home-messages-tab", "me-message", "own-message-without-bot-id", "message-replied", "file-deleted",
         "app-rate-limited"],
)
def test_unknown_or_irrelevant_events_are_acked_and_ignored(rbot, rfake, body):
    """Events the bot has nothing to do for: 200 (so Slack does not re-send), nothing posted."""
    reply = rbot.post(body_of(body), "application/json")
    assert reply.status == 200
    settle()
    assert rfake.of("chat.postMessage") == [] and rfake.of("views.publish") == []


def test_unknown_request_kinds_are_refused_without_a_crash(rbot, rfake):
    """A signed request of no kind Bolt knows (an unknown envelope, an event as text/plain) is refused
    with a 4xx. (A slash command other than /denpex is answered: tests/slack/test_edge_fifth_audit.py.)"""
    for body, ctype in [
        (body_of({"type": "weird_callback", "team_id": TEAM_ID}), "application/json"),
        (b'{"type": "event_callback"}', "text/plain"),
    ]:
        reply = rbot.post(body, ctype)
        assert 400 <= reply.status < 500, (body, reply.status)
    still_answers(rbot, rfake)


def test_url_verification_still_answers_and_non_event_paths_are_untouched(rbot):
    """The screening keeps Slack's URL check working, and /healthz and unknown paths behave."""
    reply = rbot.post(body_of({"type": "url_verification", "challenge": "c-123", "token": "x"}), "application/json")
    assert reply.status == 200 and b"c-123" in reply.body
    assert rbot.get("/healthz").json()["ok"] is True
    assert rbot.get("/nope").status == 404
