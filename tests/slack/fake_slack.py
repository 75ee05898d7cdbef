"""A local stand-in for the Slack Web API that records every call the bot makes.

Serves the methods the bot uses over real HTTP on loopback, file downloads, and the
response_url of slash commands. Tests script failures (429 with Retry-After, 5xx, stalls) and
read back what was posted.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT_TOKEN = "xoxb-test-0000000000-denpex"
BOT_USER_ID = "UBOT0001"
BOT_ID = "BBOT0001"
TEAM_ID = "T0TEST001"
APP_TOKEN = "xapp-1-A0DENPEX-0000-denpex"


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    token: str | None
    at: float


@dataclass
class FakeFile:
    id: str
    name: str
    content: bytes
    filetype: str = "text"
    mimetype: str = "text/plain"
    declared_size: int | None = None  # what files.info says; defaults to the real size
    mode: str = "hosted"  # "snippet" for a text snippet made in Slack
    serve_html: bool = False  # answer the download with a login page, as Slack does on bad auth
    stall_s: float = 0.0  # sleep before sending the body
    download_url: str | None = None  # what files.info gives as url_private_download (default: ours)
    redirect_to: str | None = None  # answer the download with a 302 to this URL
    dribble: str | None = None  # "trickle" (a byte every 0.3 s) or "stall" (nothing) after a first line
    # The next downloads answer these (status, Retry-After or None) before one succeeds.
    download_failures: list[tuple[int, int | None]] = field(default_factory=list)
    # Where files.info says the file was shared: {"public"|"private": {channel: [{"ts": ...,
    # "thread_ts"?: ...}]}}, as Slack lists the messages that carry it. None: no `shares` field.
    shares: dict[str, dict[str, list[dict[str, str]]]] | None = None
    # files.info gives no url_private / url_private_download (a file hidden by a free plan's
    # limit, `mode: hidden_by_limit`, comes without them).
    no_urls: bool = False


@dataclass
class Failure:
    status: int
    retry_after: int | None = None
    body: dict[str, Any] | None = None
    delay_s: float = 0.0
    posted: bool = False  # Slack did the work (posted the message) and then answered this
    raw: bytes | None = None  # answer these bytes (as `raw_type`) instead of a JSON body
    raw_type: str = "application/json"


class _QuietServer(ThreadingHTTPServer):
    """The bot hanging up on a stalled or dribbling download is what those tests provoke: not
    an error worth a traceback in the test output."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class FakeSlack:
    """Start with `start()`; base URL for the Web API is `api_url`."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.files: dict[str, FakeFile] = {}
        self.responses: list[dict[str, Any]] = []  # posts to response_url
        self.failures: dict[str, list[Failure]] = {}
        self.tokens: dict[str, str] = {BOT_TOKEN: TEAM_ID}  # token -> team, for auth.test
        self.oauth_codes: dict[str, dict[str, Any]] = {}
        self.refresh_tokens: dict[str, str] = {}  # refresh token -> team, for token rotation
        self.rotations = 0
        self.messages: list[dict[str, Any]] = []  # posted messages, as conversations.replies shows them
        self.history: list[dict[str, Any]] = []  # people's messages, as conversations.history shows them
        self.socket_url: str | None = None  # what apps.connections.open hands out (Socket Mode)
        # Channels whose posting settings turn threads off: a post with thread_ts is refused there.
        self.no_threads: set[str] = set()
        self.lock = threading.Lock()
        self.stop_dribbles = threading.Event()
        self._ts = 1_700_000_000.000100
        self.server = _QuietServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # --- control -------------------------------------------------------------------------
    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.base + "/api/"

    def start(self) -> FakeSlack:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def reset(self) -> None:
        self.stop_dribbles.set()  # end the dribbling downloads of the last test
        self.stop_dribbles = threading.Event()
        with self.lock:
            self.calls.clear()
            self.responses.clear()
            self.failures.clear()
            self.files.clear()
            self.messages.clear()
            self.history.clear()
            self.no_threads.clear()

    def fail(self, method: str, status: int, times: int = 1, retry_after: int | None = None,
             body: dict[str, Any] | None = None, delay_s: float = 0.0, posted: bool = False,
             raw: bytes | None = None, raw_type: str = "application/json") -> None:
        """Script the next `times` calls of `method` to answer `status` (after `delay_s`);
        with `posted`, Slack first does the work (the message is posted), as after a 5xx or a
        slow answer that came too late; with `raw`, the answer's body is those bytes (a body
        cut off by a proxy, a page that is not JSON)."""
        with self.lock:
            self.failures.setdefault(method, []).extend(
                Failure(status, retry_after, body, delay_s, posted, raw, raw_type) for _ in range(times)
            )

    def add_file(self, f: FakeFile) -> dict[str, Any]:
        """Register a file; returns the `files[]` item a file_share message carries."""
        self.files[f.id] = f
        return self._file_obj(f)

    def _file_obj(self, f: FakeFile) -> dict[str, Any]:
        obj = {
            "id": f.id,
            "name": f.name,
            "title": f.name,
            "filetype": f.filetype,
            "mimetype": f.mimetype,
            "size": f.declared_size if f.declared_size is not None else len(f.content),
            "mode": f.mode,
            "url_private": f"{self.base}/files/{f.id}/{f.name}",
            "url_private_download": f.download_url or f"{self.base}/files/{f.id}/download/{f.name}",
        }
        if f.shares is not None:
            obj["shares"] = f.shares
        if f.no_urls:
            del obj["url_private"], obj["url_private_download"]
        return obj

    def of(self, method: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 10.0, **match: Any) -> list[Call]:
        """Block until `count` calls of `method` (whose params include `match`) were recorded."""
        deadline = time.monotonic() + timeout
        while True:
            found = [c for c in self.of(method) if all(c.params.get(k) == v for k, v in match.items())]
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"expected {count} {method} call(s) matching {match}, got {len(found)}; "
                    f"all calls: {[c.method for c in self.calls]}"
                )
            time.sleep(0.02)

    def next_ts(self) -> str:
        with self.lock:
            self._ts += 1
            return f"{self._ts:.6f}"

    # --- HTTP ----------------------------------------------------------------------------
    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: bytes, ctype: str = "application/json", headers: dict | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, obj: dict[str, Any], headers: dict | None = None) -> None:
                self._send(status, json.dumps(obj).encode(), headers=headers)

            def _dribble(self, mode: str, stop: threading.Event) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "100000000")
                self.end_headers()
                try:
                    self.wfile.write(b"[rank0]: starting\n")
                    self.wfile.flush()
                    deadline = time.monotonic() + 60
                    while not stop.wait(0.3) and time.monotonic() < deadline:
                        if mode == "trickle":
                            self.wfile.write(b"x")
                            self.wfile.flush()
                except OSError:
                    pass
                self.close_connection = True

            def do_GET(self) -> None:
                parts = self.path.split("/")
                if len(parts) >= 3 and parts[1] == "files":
                    f = fake.files.get(parts[2])
                    auth = self.headers.get("Authorization", "")
                    with fake.lock:
                        fake.calls.append(Call("files.download", {"file": parts[2]}, auth.removeprefix("Bearer ") or None, time.time()))
                    if f is None:
                        return self._send(404, b"not found", "text/plain")
                    with fake.lock:
                        failure = f.download_failures.pop(0) if f.download_failures else None
                    if failure is not None:
                        status, after = failure
                        return self._send(status, b"try again", "text/plain",
                                          {"Retry-After": str(after)} if after is not None else None)
                    if f.redirect_to:
                        return self._send(302, b"", "text/plain", {"Location": f.redirect_to})
                    if f.serve_html or auth.removeprefix("Bearer ") not in fake.tokens:
                        return self._send(200, b"<!DOCTYPE html><html>Sign in to Slack</html>", "text/html")
                    if f.dribble:
                        return self._dribble(f.dribble, fake.stop_dribbles)
                    if f.stall_s:
                        time.sleep(f.stall_s)
                    return self._send(200, f.content, f.mimetype)
                return self._send(404, b"not found", "text/plain")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.path.startswith("/response/expired/"):
                    # A response_url past its 30 minutes (or its 5 uses): Slack refuses the post.
                    return self._send(404, b"expired_url", "text/plain")
                if self.path.startswith("/response/reset/"):
                    # Slack showed the answer, and the connection dropped before its 200: an
                    # unknown outcome for the bot (a reset with the post delivered).
                    with fake.lock:
                        fake.responses.append(json.loads(raw or b"{}"))
                    self.close_connection = True
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                if self.path.startswith("/response/5xx/"):
                    # Slack showed the answer, then answered 503 (its edge timing out behind it).
                    with fake.lock:
                        fake.responses.append(json.loads(raw or b"{}"))
                    return self._send(503, b"service unavailable", "text/plain")
                if self.path.startswith("/response/"):
                    with fake.lock:
                        fake.responses.append(json.loads(raw or b"{}"))
                    return self._send(200, b"ok", "text/plain")
                if not self.path.startswith("/api/"):
                    return self._send(404, b"not found", "text/plain")
                method = self.path[len("/api/"):].split("?")[0]
                params: dict[str, Any] = {}
                ctype = self.headers.get("Content-Type", "")
                if "json" in ctype:
                    params = json.loads(raw or b"{}")
                else:
                    params = {k: v[0] for k, v in urllib.parse.parse_qs(raw.decode()).items()}
                for key in ("blocks", "attachments", "view"):
                    if isinstance(params.get(key), str):
                        with contextlib.suppress(ValueError):
                            params[key] = json.loads(params[key])
                auth = self.headers.get("Authorization", "")
                token = auth.removeprefix("Bearer ") or params.get("token")
                if method == "chat.postMessage" and params.get("thread_ts") and params.get("channel") in fake.no_threads:
                    # Refused before anything else (a scripted failure is for a post Slack takes).
                    with fake.lock:
                        fake.calls.append(Call(method, params, token, time.time()))
                    return self._json(200, {"ok": False, "error": "restricted_action_non_threadable_channel"})
                with fake.lock:
                    failure = fake.failures.get(method, []).pop(0) if fake.failures.get(method) else None
                    fake.calls.append(Call(method, params, token, time.time()))
                if failure is not None:
                    if failure.posted:
                        fake.answer(method, params, token)
                    if failure.delay_s:
                        time.sleep(failure.delay_s)
                    headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after is not None else None
                    if failure.raw is not None:
                        return self._send(failure.status, failure.raw, failure.raw_type, headers)
                    return self._json(failure.status, failure.body or {"ok": False, "error": "ratelimited" if failure.status == 429 else "internal_error"}, headers)
                if method == "apps.connections.open":
                    if token != APP_TOKEN or not fake.socket_url:
                        return self._json(200, {"ok": False, "error": "invalid_auth"})
                    return self._json(200, {"ok": True, "url": fake.socket_url})
                if method not in ("oauth.v2.access",) and token not in fake.tokens:
                    return self._json(200, {"ok": False, "error": "invalid_auth"})
                return self._json(200, fake.answer(method, params, token))

        return Handler

    def answer(self, method: str, params: dict[str, Any], token: str | None) -> dict[str, Any]:
        team = self.tokens.get(token or "", TEAM_ID)
        if method == "auth.test":
            return {"ok": True, "url": "https://test.slack.com/", "team": "Test", "user": "denpex",
                    "team_id": team, "user_id": BOT_USER_ID, "bot_id": BOT_ID, "is_enterprise_install": False}
        if method in ("chat.postMessage", "chat.update"):
            ts = params.get("ts") or self.next_ts()
            if method == "chat.postMessage":
                with self.lock:
                    self.messages.append({"type": "message", "channel": params.get("channel"), "ts": ts,
                                          "thread_ts": params.get("thread_ts") or ts, "text": params.get("text"),
                                          "bot_id": BOT_ID, "metadata": params.get("metadata")})
            return {"ok": True, "channel": params.get("channel"), "ts": ts, "message": {"text": params.get("text"), "ts": ts}}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": self.next_ts()}
        if method in ("reactions.add", "reactions.remove", "auth.revoke"):
            return {"ok": True}
        if method == "files.info":
            f = self.files.get(params.get("file", ""))
            if f is None:
                return {"ok": False, "error": "file_not_found"}
            return {"ok": True, "file": self._file_obj(f)}
        if method == "views.open":
            return {"ok": True, "view": {"id": "V2", **(params.get("view") or {})}}
        if method == "views.publish":
            return {"ok": True, "view": {"id": "V1", **(params.get("view") or {})}}
        if method == "conversations.history":
            # Newest first, within [oldest, latest] (inclusive), as Slack pages them.
            lo, hi = float(params.get("oldest") or 0), float(params.get("latest") or 1e12)
            with self.lock:
                found = [dict(m) for m in self.history
                         if m.get("channel") == params.get("channel") and lo <= float(m["ts"]) <= hi]
                # The bot's own top-level posts (alerts) are the channel's messages too.
                found += [dict(m) for m in self.messages
                          if m["channel"] == params.get("channel") and m["thread_ts"] == m["ts"]
                          and lo <= float(m["ts"]) <= hi]
            if str(params.get("include_all_metadata")).lower() not in ("true", "1"):
                for m in found:
                    m.pop("metadata", None)
            found.sort(key=lambda m: float(m["ts"]), reverse=True)
            return {"ok": True, "messages": found[: int(params.get("limit") or 100)], "has_more": False}
        if method == "conversations.replies":
            # The thread's messages; metadata only with include_all_metadata, as Slack does.
            with self.lock:
                found = [dict(m) for m in self.messages
                         if m["channel"] == params.get("channel") and m["thread_ts"] == params.get("ts")]
            if str(params.get("include_all_metadata")).lower() not in ("true", "1"):
                for m in found:
                    m.pop("metadata", None)
            return {"ok": True, "messages": found, "has_more": False}
        if method == "oauth.v2.access" and params.get("grant_type") == "refresh_token":
            # Token rotation: a new access token and refresh token for the refresh token's
            # workspace; the old refresh token is spent.
            with self.lock:
                team = self.refresh_tokens.pop(params.get("refresh_token", ""), None)
                if team is None:
                    return {"ok": False, "error": "invalid_refresh_token"}
                self.rotations += 1
                access, refresh = f"xoxe.xoxb-{team}-rotated-{self.rotations}", f"xoxe-1-{team}-refresh-{self.rotations}"
                self.tokens[access] = team
                self.refresh_tokens[refresh] = team
            return {"ok": True, "access_token": access, "token_type": "bot", "refresh_token": refresh,
                    "expires_in": 43200, "team": {"id": team}, "enterprise": None}
        if method == "oauth.v2.access":
            grant = self.oauth_codes.get(params.get("code", ""))
            if grant is None:
                return {"ok": False, "error": "invalid_code"}
            # An org-wide (Enterprise Grid) install names no workspace: its token is the org's.
            owner = (grant.get("team") or {}).get("id") or (grant.get("enterprise") or {}).get("id")
            self.tokens[grant["access_token"]] = owner
            if grant.get("refresh_token"):
                self.refresh_tokens[grant["refresh_token"]] = owner
            return {"ok": True, **grant}
        return {"ok": False, "error": "unknown_method"}
