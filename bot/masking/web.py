"""Credentials the web carries outside `key=value` syntax: tokens in URL paths and cookies.

`https://conda.anaconda.org/t/<token>/channel`, `https://discord.com/api/webhooks/<id>/<token>`,
`https://api.telegram.org/bot<id>:<token>/sendMessage` put the secret in the path; a `Cookie:`
or `Set-Cookie:` header carries session values under names that say nothing (`session=`,
`sid=`). The host, the path around the token and the cookie names stay.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.literals import LiteralSet
from bot.masking.edits import Edit
from bot.masking.keys import looks_like_secret
from bot.masking.vendor import char_classes, entropy

# (literal the text must hold, pattern with a `v` group, kind, and where the shape alone cannot
# tell a token, what must hold of the value)
_PATH_TOKENS: list[tuple[str, re.Pattern[str], str, Callable[[str], bool] | None]] = [
    ("anaconda", re.compile(r"anaconda\.(?:org|cloud|com)/t/(?P<v>[A-Za-z0-9_-]{8,128})/"), "anaconda-token", None),
    # The same token path on a self-hosted channel server or mirror (Anaconda Server, a
    # proxy), as `conda info` prints its channel URLs: judged by the token's look, since
    # forums put topic slugs there too (`discuss.pytorch.org/t/cuda-out-of-memory/12345`).
    ("/t/", re.compile(r"://[^\s/?#\"'<>]{1,253}/t/(?P<v>[A-Za-z0-9_-]{16,128})/"), "anaconda-token",
     lambda value: _channel_token(value)),
    ("/webhooks/", re.compile(r"discord(?:app)?\.com/api/webhooks/\d{5,25}/(?P<v>[A-Za-z0-9_-]{40,100})"), "discord-webhook", None),
    ("telegram", re.compile(r"api\.telegram\.org/(?:file/)?bot(?P<v>\d{5,12}:[A-Za-z0-9_-]{30,50})"), "telegram-token", None),
    # PagerDuty's Events API v1 takes the service's integration key in the path
    # (`https://events.pagerduty.com/integration/<key>/enqueue`): whoever holds it pages the rotation.
    ("/integration/", re.compile(r"events\.(?:eu\.)?pagerduty\.com/integration/(?P<v>[0-9A-Za-z]{32})(?![0-9A-Za-z])"), "pagerduty-key", None),
    # Healthchecks.io: a check's ping URL is its credential (`https://hc-ping.com/<uuid>[/fail]`,
    # or the project's ping key before the check's slug, `hc-ping.com/<ping-key>/<slug>`).
    ("hc-ping.com/", re.compile(r"hc-ping\.com/(?P<v>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9_-]{22}(?=/))"),
     "healthcheck-url", None),
    # SMTP authentication as smtplib's debug output (`server.set_debuglevel(1)`) shows it:
    # `send: 'AUTH PLAIN AGFsZXJ0c0BhY21lLmlvAHMzY3JldA==\r\n'` is base64 of the user and the
    # password; AUTH LOGIN sends the user, then the password after the server's base64
    # `334 UGFzc3dvcmQ6` ("Password:").
    ("AUTH ", re.compile(r"AUTH (?:PLAIN|LOGIN) (?P<v>[A-Za-z0-9+/]{4,1024}={0,2})(?![A-Za-z0-9+/=])"), "password", None),
    # S3's SignatureDoesNotMatch error body: the signature the client sent (a presigned URL's
    # X-Amz-Signature: whoever holds it can replay the request until it expires). Its
    # StringToSign is a date, a scope and a hash, and stays; the CanonicalRequest's hex bytes
    # spell a session token out when the request carried one.
    ("<SignatureProvided>", re.compile(r"<SignatureProvided>(?P<v>[A-Za-z0-9+/=]{16,128})</SignatureProvided>"), "aws-signature", None),
    ("<CanonicalRequestBytes>", re.compile(r"<CanonicalRequestBytes>(?P<v>[0-9a-f]{2}(?:[ \t\r\n]{1,3}[0-9a-f]{2}){0,40000})</CanonicalRequestBytes>"),
     "aws-session-token", lambda value: _spells_token(value)),
    ("UGFzc3dvcmQ6", re.compile(r"334 UGFzc3dvcmQ6[^\n]{0,64}\n(?:[^\n]{0,200}\n){0,2}?send: [b]?'(?P<v>[A-Za-z0-9+/]{4,1024}={0,2})\\r\\n'"),
     "password", None),
]
_COOKIE_HEADER = re.compile(r"(?i)(?:\b|(?<=\\n))(?:set-)?cookie:[ \t]*")  # also after an escaped `\r\n`
# A client's `cookies=` argument as a header's string (Kubeflow's `kfp.Client(host=...,
# cookies="authservice_session=...")`): the string's closing quote ends it.
_COOKIE_ARGUMENT = re.compile(r"(?<![\w.])cookies?[ \t]*=[ \t]*[fbr]?(?P<q>[\"'])")
_COOKIE_ATTRS = re.compile(r"(?i)(?:path|domain|expires|max-age|samesite)\Z")
# RFC 6265's cookie-octet has no backslash: http.client's `send: b'...\r\nCookie: sid=x\r\n...'`
# debug line escapes the header's end, and the value stops there.
_COOKIE = re.compile(r"(?P<name>[^\s=;,\\]{1,64})=(?P<v>[^\s;,\\]{1,4096})")
# One scan for which literals a text holds, not one sweep of the text per literal.
_PATH_LITERALS = LiteralSet(literal for literal, _, _, _ in _PATH_TOKENS)
WEB_KINDS = (*(kind for _, _, kind, _ in _PATH_TOKENS), "cookie")
WEB_WORDS = ("cookie:", "cookies=", "cookie=")


def find_web_credentials(text: str, present: set[str], edits: list[Edit]) -> None:
    """Mask tokens in URL paths and the values of session cookies."""
    found = _PATH_LITERALS.present(text)
    for literal, rx, kind, valid in _PATH_TOKENS:
        if literal in found:
            for m in rx.finditer(text):
                if valid is not None and not valid(m.group("v")):
                    continue
                edits.append((m.start("v"), m.end("v"), kind, m.group("v")))
    if "cookie:" in present:
        for header in _COOKIE_HEADER.finditer(text):
            end = text.find("\n", header.end())
            end = len(text) if end == -1 else end
            escaped_end = text.find("\\r\\n", header.end(), end)  # the next header of an escaped request
            _mask_cookies(text, header.end(), end if escaped_end == -1 else escaped_end, edits)
    if "cookies=" in present or "cookie=" in present:
        for argument in _COOKIE_ARGUMENT.finditer(text):
            end = text.find(argument.group("q"), argument.end(), argument.end() + 8192)
            if end != -1:
                _mask_cookies(text, argument.end(), end, edits)


def _mask_cookies(text: str, start: int, end: int, edits: list[Edit]) -> None:
    """The session values of the cookies in text[start:end], their names and attributes kept."""
    for m in _COOKIE.finditer(text, start, end):
        if _COOKIE_ATTRS.match(m.group("name")):
            continue  # `Set-Cookie: sid=x; Path=/; Expires=...`: attributes hold no secret
        value = m.group("v").strip("\"'")
        if value and (looks_like_secret(value) or _session_like(value)):
            vstart = m.start("v") + m.group("v").index(value)
            edits.append((vstart, vstart + len(value), "cookie", value))


def _session_like(value: str) -> bool:
    """A signed session value (`eyJ1c2Vy...ZQ.Zm...`): long and random, dots or not."""
    return len(value) >= 16 and char_classes(value) >= 2 and entropy(value) >= 3.5


# anaconda.org's tokens: two letters and a UUID (`ab-3f2a1b9d-8c7e-...`).
_UUID_TOKEN = re.compile(r"(?:[a-z]{2}-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _channel_token(value: str) -> bool:
    """A channel token, not a forum topic's slug: a UUID, or one random run with digits."""
    if _UUID_TOKEN.fullmatch(value):
        return True
    return value.isalnum() and len(value) >= 20 and any(c.isdigit() for c in value) and _session_like(value)


def _spells_token(hex_bytes: str) -> bool:
    """The hex bytes of a canonical request that holds a session token (a header's or the
    presigned query's `X-Amz-Security-Token`)."""
    raw = bytes.fromhex("".join(hex_bytes.split()))
    return b"security-token" in raw.lower()
