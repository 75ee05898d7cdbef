"""HTTP mode: Bolt behind a production WSGI server (waitress), plus `/healthz`.

Bolt parses a request body before it checks the signature, and answers a body it cannot parse
(malformed or deeply nested JSON, bytes that are not UTF-8) with a 500 and a traceback. So
every POST to the events endpoint is screened here first: too large 413, Slack's ssl_check 200
(as Bolt answers it, unsigned), bad signature 401, unparseable or misshapen 400; only then does
Bolt see it.
"""

from __future__ import annotations

import io
import json
import logging
import threading
import urllib.parse
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from slack_bolt import App, BoltRequest
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk.signature import SignatureVerifier

from bot.slack.blocks import NOT_INSTALLED_TEXT, unavailable_message
from bot.slack.response_url import respond
from bot.store import Store, StoreUnavailable

log = logging.getLogger("denpex.slack")

EVENTS_PATH = "/slack/events"
# Alerts from `denpex watch` (bot.slack.ingest_endpoint): their own auth, not Slack's signature.
ALERTS_PATH = "/denpex/alerts"
# Slack's largest events (a 40,000-character message with its rich-text blocks) are a few
# hundred KB; anything past this is not from Slack.
MAX_BODY_BYTES = 2_000_000
# A request signed longer ago (or further ahead) than this is a replay.
MAX_CLOCK_SKEW_S = 300
# Slack re-sends an event answered with anything but a 2xx, three times over five minutes,
# unless the answer carries this header (Events API, "turning retries off"). Sent with a
# refusal of what the body is (too large, unparseable, misshapen): the same body would be
# refused again. Not with a 401: a signing secret being rotated is fixed by the next try.
NO_RETRY = {"X-Slack-No-Retry": "1"}


@lru_cache(maxsize=4)
def _verifier(secret: str) -> SignatureVerifier:
    return SignatureVerifier(secret)


def signed(raw: bytes, timestamp: str, signature: str, secret: str, now: float | None = None) -> bool:
    """Slack's v0 signature over the raw body, with a timestamp within 5 minutes: slack_sdk's
    SignatureVerifier, fed only what it can read (a UTF-8 body, a numeric timestamp)."""
    if not timestamp.isascii() or not timestamp.isdigit() or not signature:
        return False
    if now is not None and abs(now - int(timestamp)) > MAX_CLOCK_SKEW_S:
        return False
    try:
        body = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _verifier(secret).is_valid(body=body, timestamp=timestamp, signature=signature)


def parse_body(text: str, ctype: str | None) -> Any:
    """The request as Bolt will read it: JSON (events), or a form whose `payload` field is
    JSON (interactivity), or a plain form (slash commands)."""
    if not text:
        return {}
    if ctype == "application/json" or text.startswith("{"):
        return json.loads(text)
    params = dict(urllib.parse.parse_qsl(text, keep_blank_values=True))
    if "payload" in params:
        return json.loads(params["payload"])
    return params


def _answer(start_response: Callable[..., Any], status: str, body: bytes, ctype: str = "text/plain",
            extra: tuple[tuple[str, str], ...] = ()) -> list[bytes]:
    start_response(status, [("Content-Type", ctype), ("Content-Length", str(len(body))), *extra])
    return [body]


# Slack checks a slash command URL's certificate with a form post `ssl_check=1&token=...` and
# wants a 200. Bolt answers it before any signature check (its SslCheck middleware runs ahead of
# RequestVerification), empty, running nothing: so does the screen, signed or not.
SSL_CHECK_ANSWER = ("200 OK", b"")


def ssl_check(text: str) -> bool:
    """Is this body Slack's ssl_check (a form whose `ssl_check` is 1, whatever else it holds)?"""
    if "ssl_check" not in text or text.lstrip().startswith("{"):
        return False
    return dict(urllib.parse.parse_qsl(text, keep_blank_values=True)).get("ssl_check") == "1"


def screen(environ: dict[str, Any], secret: str | None) -> tuple[str, bytes] | bytes:
    """The raw body of an acceptable request, or (status, body) to answer it with at once: a
    refusal, or SSL_CHECK_ANSWER."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return "400 Bad Request", b"bad Content-Length"
    if length > MAX_BODY_BYTES:
        return "413 Payload Too Large", b"request body too large"
    raw = environ["wsgi.input"].read(length) if length > 0 else b""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "400 Bad Request", b"body is not UTF-8"  # not from Slack, signed or not
    if ssl_check(text):
        return SSL_CHECK_ANSWER
    if secret:
        ts = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP") or ""
        sig = environ.get("HTTP_X_SLACK_SIGNATURE") or ""
        if not signed(raw, ts, sig, secret):
            return "401 Unauthorized", b"invalid request"
    if not raw.strip():
        return "400 Bad Request", b"empty body"
    ctype = (environ.get("CONTENT_TYPE") or "").split(";")[0].strip() or None
    try:
        body = parse_body(text, ctype)
    except (ValueError, RecursionError):
        return "400 Bad Request", b"malformed body"
    problem = misshapen(body)
    if problem:
        return "400 Bad Request", problem
    return as_bolt_reads_it(raw, text, environ, secret)


# Bolt takes a form body for an interaction (`payload=<JSON>`) whenever the letters "payload"
# appear anywhere in its raw text, not only as that field: a slash command whose text, channel
# or user name holds them ("413 payload too large", #payload-infra) was read as an empty
# request, refused with "invalid team" (Slack shows the person a failed command).
_PAYLOAD_WORD = "payload"


def as_bolt_reads_it(raw: bytes, text: str, environ: dict[str, Any], secret: str | None) -> bytes:
    """The accepted body as Bolt is to read it: unchanged, but for a form with the letters
    "payload" outside a `payload` field. There each is written `p%61yload`, which every form
    parser decodes to the same text, so Bolt reads the form's own fields; and the request is
    signed again over the new body with the same secret and timestamp, for Bolt's own check
    (the original signature was checked above)."""
    if _PAYLOAD_WORD not in text or text.startswith("{"):
        return raw
    if any(key == _PAYLOAD_WORD for key, _ in urllib.parse.parse_qsl(text, keep_blank_values=True)):
        return raw
    body = text.replace(_PAYLOAD_WORD, "p%61yload").encode("utf-8")
    if secret:
        ts = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP") or ""
        environ["HTTP_X_SLACK_SIGNATURE"] = _verifier(secret).generate_signature(timestamp=ts, body=body) or ""
    return body


def misshapen(body: Any) -> bytes | None:
    """Why a parsed request (or a Socket Mode envelope's payload) is not one Bolt can take
    without a 500, or None: not an object, an event_callback without an event, an interaction
    without what Bolt indexes blindly."""
    if not isinstance(body, dict):
        return b"body is not an object"
    if body.get("type") == "url_verification" and not (isinstance(body.get("challenge"), str) and body["challenge"]):
        # Slack's handshake always carries the string to echo; Bolt would answer
        # `{"challenge": null}` (or a number, an object) with a 200, as if verified.
        return b"url_verification without a challenge"
    if body.get("type") == "event_callback":
        event = body.get("event")
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return b"event_callback without an event"
    return _misshapen_ids(body) or _misshapen_interaction(body)


# Where Bolt's context builder looks for who and where (extract_user_id, extract_channel_id)
# before any listener: the request, its event, and these objects of the event.
_BOLT_LOOKS_IN = ("message", "previous_message", "item", "assistant_thread")
# The events the bot acts on, and the fields it reads as strings: the ids and stamps a
# message's claim and reply are keyed by, who opened which tab.
_STRING_FIELDS = {
    "message": ("channel", "user", "ts", "thread_ts"),
    "app_mention": ("channel", "user", "ts", "thread_ts"),
    "app_home_opened": ("user", "channel", "tab"),
}


def _misshapen_ids(body: dict[str, Any]) -> bytes | None:
    """Ids Bolt or the bot read blindly, in a shape Slack never sends: a `user` or `channel`
    that is neither an id nor an object (Bolt tests `"id" in` it: a TypeError for a number),
    `authorizations` that is no list of objects, a message whose channel, user or stamps are
    not strings (_STRING_FIELDS), `tokens_revoked` whose tokens are not lists of ids."""
    event = body.get("event") if isinstance(body.get("event"), dict) else {}
    places = [body, event, *(event[k] for k in _BOLT_LOOKS_IN if isinstance(event.get(k), dict))]
    for place in places:
        for key in ("user", "channel"):
            if place.get(key) is not None and not isinstance(place[key], (str, dict)):
                return b"a user or channel that is neither an id nor an object"
    auths = body.get("authorizations")
    if auths is not None and not (isinstance(auths, list) and all(isinstance(a, dict) for a in auths)):
        return b"authorizations that are not a list of objects"
    kind = event.get("type") if isinstance(event.get("type"), str) else ""
    for key in _STRING_FIELDS.get(kind, ()):
        if event.get(key) is not None and not isinstance(event[key], str):
            return b"an event whose ids or stamps are not strings"
    if kind == "tokens_revoked" and event.get("tokens") is not None:
        tokens = event["tokens"]
        if not (isinstance(tokens, dict)
                and all(isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in tokens.values())):
            return b"tokens_revoked whose tokens are not lists of ids"
    return None


def _misshapen_interaction(body: dict[str, Any]) -> bytes | None:
    """What Bolt would index blindly in an interaction payload before any listener runs (its
    kwargs builder reads `actions[0]`, its matchers a block action's `action_id`, `view["type"]`,
    `workflow_step`), and a signed payload lacks: a 400 here, where Bolt would answer 500 with a traceback. Slack never sends these."""
    kind = body.get("type")
    if kind in ("block_actions", "interactive_message") and "actions" in body:
        actions = body["actions"]
        if not isinstance(actions, list) or not actions or not isinstance(actions[0], dict):
            return b"interaction without an action"
        # Bolt's action matchers read `action_id` blindly (a KeyError, or a TypeError matching a
        # pattern against a number) before any listener runs.
        if kind == "block_actions" and not isinstance(actions[0].get("action_id"), str):
            return b"action without an action_id"
    if kind == "block_actions":
        # Who clicked, and where: objects in every click Slack sends, read as such by the
        # listeners (and by the answer to their failure). Absent is fine (a Home tab's click
        # has no channel or message); `team` Bolt reads as an id or an object alike.
        for field in ("user", "container", "channel", "message"):
            if body.get(field) is not None and not isinstance(body[field], dict):
                return b"click with a misshapen " + field.encode()
    if kind in ("view_submission", "view_closed") and "view" in body:
        view = body["view"]
        if not isinstance(view, dict) or not isinstance(view.get("type"), str) or not isinstance(view.get("callback_id"), str):
            return b"view payload without a view"
    if kind == "workflow_step_edit" and not isinstance(body.get("workflow_step"), dict):
        return b"workflow_step_edit without a workflow step"
    # What Bolt's matchers search as text in the other interactions (a TypeError for a number).
    matched = _MATCHED_FIELD.get(kind) if isinstance(kind, str) else None
    if matched and body.get(matched) is not None and not isinstance(body[matched], str):
        return b"interaction whose " + matched.encode() + b" is not a string"
    # A shortcut always names its callback_id (the app config's); without one no listener, the
    # catch-all included, matches it: Bolt's 404, and Slack shows the person an error.
    if kind in ("shortcut", "message_action") and not body.get("callback_id"):
        return b"shortcut without a callback_id"
    return None


_MATCHED_FIELD = {
    "shortcut": "callback_id", "message_action": "callback_id", "interactive_message": "callback_id",
    "dialog_submission": "callback_id", "dialog_cancellation": "callback_id", "dialog_suggestion": "callback_id",
    "block_suggestion": "action_id",
}


def installation_answer(app: App, raw: bytes, ctype: str | None) -> tuple[str, bytes, str] | None:
    """Multi-workspace mode: the answer to a slash command or a click from a workspace with no
    installation (uninstalled, or an install that never finished), or while the store of
    installations does not answer; None to leave the request to Bolt.

    Bolt's authorization would post its word to the request's response_url from inside the
    request, with slack_sdk's retrying webhook client: a reset posts it twice, an unreachable
    or slow response_url turns the ack into a 500 and a traceback, or holds it past Slack's
    3 s; a store that does not answer is a 500 (Slack shows "dispatch_failed"). A slash
    command is answered in its ack instead (Slack shows the body, ephemeral); a click, whose
    ack's body Slack does not show, with a 200 and then through its response_url, once."""
    installations = app.installation_store
    if installations is None:  # one workspace, one token: always installed
        return None
    try:
        request = BoltRequest(body=raw.decode("utf-8"), headers={"content-type": [ctype or ""]})
    except (ValueError, TypeError, KeyError, AttributeError):
        return None  # Bolt reads the same body next, and answers for it
    context = request.context
    if not context.response_url or not (context.team_id or context.enterprise_id):
        return None  # events, and requests with no way to answer: Bolt's own answer
    team = context.enterprise_id if context.is_enterprise_install else context.team_id
    try:
        found = installations.find_installation(enterprise_id=context.enterprise_id, team_id=context.team_id,
                                                is_enterprise_install=context.is_enterprise_install)
    except ValueError:
        return None  # ids no key can hold: Bolt's authorize meets the same and answers for it
    except StoreUnavailable:
        log.warning("store unavailable: a request from team=%s told so before Bolt", team)
        return _early_answer(request.body, context.response_url, unavailable_message()[0])
    if found is not None and found.bot_token:
        return None
    log.info("a request from team=%s, which has no installation: told Denpex is not installed", team)
    return _early_answer(request.body, context.response_url, NOT_INSTALLED_TEXT)


def _early_answer(body: dict[str, Any], response_url: str, text: str) -> tuple[str, bytes, str]:
    """`text` to whoever sent a command (in its ack) or a click (after its ack, through its
    response_url, where a stalling URL cannot hold the ack past 3 s)."""
    if body.get("command"):
        return "200 OK", json.dumps({"response_type": "ephemeral", "text": text}).encode(), "application/json"
    word = {"response_type": "ephemeral", "replace_original": False, "text": text}
    threading.Thread(target=respond, args=(response_url, word), name="denpex-early-answer", daemon=True).start()
    return "200 OK", b"", "text/plain"


def wsgi_app(app: App, store: Store, signing_secret: str | None = None,
             ingest: Callable[..., Iterable[bytes]] | None = None) -> Callable[..., Iterable[bytes]]:
    """The WSGI callable: Slack's endpoints through Bolt, `/healthz` for load balancers.

    With `signing_secret`, signatures are checked before anything parses the body."""
    slack = SlackRequestHandler(app)

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        # `/denpex/alerts/` too: a URL written with a trailing slash (a watcher's config, a
        # curl by hand) would otherwise get a bare "Not Found" and read as a bot that is down.
        if ingest is not None and (environ.get("PATH_INFO") or "").rstrip("/") == ALERTS_PATH:
            return ingest(environ, start_response)
        if environ.get("REQUEST_METHOD") == "POST" and environ.get("PATH_INFO") == EVENTS_PATH:
            screened = screen(environ, signing_secret)
            if screened == SSL_CHECK_ANSWER:
                return _answer(start_response, *SSL_CHECK_ANSWER)
            if isinstance(screened, tuple):
                status, reason = screened
                log.info("refused a request to %s: %s %s", EVENTS_PATH, status, reason.decode())
                final = () if status.startswith("401") else tuple(NO_RETRY.items())
                return _answer(start_response, status, reason, extra=final)
            answered = installation_answer(app, screened, environ.get("CONTENT_TYPE"))
            if answered is not None:
                return _answer(start_response, *answered)
            environ["wsgi.input"] = io.BytesIO(screened)
            environ["CONTENT_LENGTH"] = str(len(screened))
        if environ.get("PATH_INFO") == "/healthz":
            redis_ok = store.ping()
            # Up even without Redis: the bot keeps answering (with "temporarily unavailable").
            body = json.dumps({"ok": True, "redis": redis_ok}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        return slack(environ, start_response)

    return application


def serve_http(app: App, store: Store, host: str, port: int, threads: int = 16, signing_secret: str | None = None,
               ingest: Callable[..., Iterable[bytes]] | None = None) -> None:
    import waitress

    waitress.serve(wsgi_app(app, store, signing_secret, ingest), host=host, port=port, threads=threads, ident="denpex",
                   max_request_body_size=MAX_BODY_BYTES * 2)
