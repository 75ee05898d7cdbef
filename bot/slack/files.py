"""Reading an uploaded log through the Slack API: files.info, then the private download URL.

What a file is comes from `files.info` (a message's `files[]` item may be abbreviated, e.g.
`{"id": ..., "file_access": "check_file_info"}`) and then from its bytes (gzip magic), never
from the event's file object alone. The bot token goes only to Slack's file hosts: a download
URL or a redirect elsewhere is refused, never sent the token. Streamed, never written to
disk; the size is checked before the download (files.info) and again while reading.
"""

from __future__ import annotations

import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.request import HttpRequest as RetryRequest
from slack_sdk.http_retry.response import HttpResponse as RetryResponse
from slack_sdk.http_retry.state import RetryState

from bot.ingest import InputError
from bot.masking import Masker
from bot.slack import timers
from bot.slack.webapi import RATE_LIMIT_ERRORS, download_retry_handlers, slack_said, unknown_outcome

log = logging.getLogger("denpex.slack")

SUPPORTED_EXTENSIONS = (".log", ".txt", ".out", ".err", ".gz", ".log.gz", ".text")
# files.info `filetype`s of what we read; anything unknown is sniffed (read_log checks bytes).
LOG_FILETYPES = ("text", "gzip", "log", "plain", "")
# What is certainly not a log: skipped without a word when something else is there to read.
MEDIA_PREFIXES = ("image/", "video/", "audio/")
MEDIA_FILETYPES = ("png", "jpg", "jpeg", "gif", "bmp", "webp", "heic", "tiff", "svg", "mp4", "mov", "webm", "mp3", "m4a")
NOT_LOG_FILETYPES = ("pdf", "zip", "docx", "xlsx", "pptx", "gdoc", "gsheet", "gpres", "tar", "rar", "7z", "email", "quip", "canvas", "list")
DOWNLOAD_TIMEOUT_S = 20.0  # no byte for this long: stalled (DENPEX_DOWNLOAD_TIMEOUT_S)
DOWNLOAD_DEADLINE_S = 120.0  # the whole download, however it trickles (DENPEX_DOWNLOAD_DEADLINE_S)
MAX_REDIRECTS = 3
# files.info's answers for a file deleted since it was shared.
GONE_ERRORS = ("file_not_found", "file_deleted")
_CHUNK = 1 << 16
_REDIRECTS = (301, 302, 303, 307, 308)

# Kinds of file (`kind`).
LOG = "log"  # read it
MEDIA = "media"  # a screenshot, a recording: ignore
NOT_LOG = "not_log"  # a document or an archive: say we do not read it


@dataclass(frozen=True)
class SlackFile:
    id: str
    name: str  # as shown to users: masked (file names carry user names and hosts)
    size: int
    url: str
    raw: dict[str, Any]  # the files.info object (no content)


def kind(file: dict[str, Any]) -> str:
    """What a files.info `file` object is: LOG (read it; the bytes have the last word), MEDIA
    or NOT_LOG."""
    name = (file.get("name") or file.get("title") or "").lower()
    ftype = (file.get("filetype") or "").lower()
    mimetype = (file.get("mimetype") or "").lower()
    if name.endswith(SUPPORTED_EXTENSIONS) or file.get("mode") == "snippet":
        return LOG
    if mimetype.startswith(MEDIA_PREFIXES) or ftype in MEDIA_FILETYPES:
        return MEDIA
    if ftype in NOT_LOG_FILETYPES or mimetype in ("application/pdf", "application/zip"):
        return NOT_LOG
    # text/*, gzip, "binary" (an extensionless upload: a .gz renamed, a log with no suffix):
    # the bytes decide (gzip magic, NUL bytes, archive magic) in bot.ingest.read_log.
    return LOG


_VIDEO_FILETYPES = ("mp4", "mov", "webm")
_AUDIO_FILETYPES = ("mp3", "m4a")
_ARCHIVE_FILETYPES = ("zip", "tar", "rar", "7z")


def what_it_is(file: dict[str, Any]) -> str:
    """A file of no log kind (MEDIA, NOT_LOG) in a word for the person who sent it: "an
    image", "a video", "a recording", "a PDF", "an archive", or "a document"."""
    ftype = (file.get("filetype") or "").lower()
    mimetype = (file.get("mimetype") or "").lower()
    if mimetype.startswith("video/") or ftype in _VIDEO_FILETYPES:
        return "a video"
    if mimetype.startswith("audio/") or ftype in _AUDIO_FILETYPES:
        return "a recording"
    if mimetype.startswith("image/") or ftype in MEDIA_FILETYPES:
        return "an image"
    if ftype == "pdf" or mimetype == "application/pdf":
        return "a PDF"
    if ftype in _ARCHIVE_FILETYPES or mimetype == "application/zip":
        return "an archive"
    return "a document"


def named_as_log(file: dict[str, Any]) -> bool:
    """The file says it is a log: by its extension, snippet mode, a text type or gzip."""
    name = (file.get("name") or file.get("title") or "").lower()
    ftype = (file.get("filetype") or "").lower()
    mimetype = (file.get("mimetype") or "").lower()
    return (name.endswith(SUPPORTED_EXTENSIONS) or file.get("mode") == "snippet" or ftype in ("text", "log", "gzip", "plain")
            or mimetype.startswith("text/") or mimetype in ("application/gzip", "application/x-gzip"))


def message_files(event: dict[str, Any]) -> list[dict[str, Any]]:
    """The files a message event carries: its own (`files`), then those of each message it
    forwards. Slack nests a forwarded message's files in its shared attachment (`is_share`),
    not in the new message's `files`. A link's preview of another message (`is_msg_unfurl`
    alone: a permalink someone pasted, maybe to a channel the bot cannot read) is no request
    to read its files. Only objects with an id; each file once."""
    found: list[dict[str, Any]] = []
    groups = [event.get("files")]
    attachments = event.get("attachments")
    for att in attachments if isinstance(attachments, list) else []:
        if isinstance(att, dict) and att.get("is_share"):
            groups.append(att.get("files"))
    seen: set[str] = set()
    for group in groups:
        for f in group if isinstance(group, list) else []:
            if isinstance(f, dict) and isinstance(f.get("id"), str) and f["id"] and f["id"] not in seen:
                seen.add(f["id"])
                found.append(f)
    return found


def closed_to_app(file: dict[str, Any]) -> bool:
    """A message's file Slack does not let the app open (`file_access: access_denied`: in a
    shared channel, a file of another organization): it comes with no name or URL, and
    files.info does not describe it either."""
    return file.get("file_access") == "access_denied"


def describe(file: dict[str, Any]) -> str:
    """A file's name as it may be shown (masked: names carry users, hosts, ids).

    Names glue their parts with `_` (`jane@corp.com_rank3.log`, `rank3_10.1.2.3.log`), which
    the masker reads as a word character, so an address or a host there ran on into the next
    part unseen: each `_`-part is masked again, after the whole name (where a token that has
    `_` in it, `hf_...`, is found)."""
    masker = Masker()
    whole = masker.mask(file.get("name") or file.get("title") or file.get("id") or "the file")
    return "_".join(masker.mask(part) for part in whole.split("_"))


# The names of this machine's loopback interface a local stand-in may give its file links
# under while SLACK_API_URL names it another of them: one server on one port.
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def allowed_host(url: str, api_url: str) -> bool:
    """May this URL get the bot token? Only https on Slack's own hosts (files.slack.com and
    any *.slack.com), or the scheme and host:port of SLACK_API_URL (a local stand-in; on
    loopback, under any of its names: files.info may say `localhost` where the URL said
    `127.0.0.1`). Another port is another server, and never gets it."""
    try:
        target = urllib.parse.urlsplit(url)
        api = urllib.parse.urlsplit(api_url)
        host = (target.hostname or "").lower().rstrip(".")
        api_host = (api.hostname or "").lower().rstrip(".")
        port = target.port or _DEFAULT_PORTS.get(target.scheme)
        api_port = api.port or _DEFAULT_PORTS.get(api.scheme)
    except ValueError:
        return False
    if not host:
        return False
    if target.scheme == "https" and (host == "slack.com" or host.endswith(".slack.com")):
        return True
    if not api_host or target.scheme != api.scheme or port != api_port:
        return False
    return host == api_host or (host in _LOOPBACK and api_host in _LOOPBACK)


def host_of(url: str) -> str:
    try:
        return urllib.parse.urlsplit(url).hostname or "an unknown host"
    except ValueError:
        return "an unknown host"


def file_info(client: WebClient, file_id: str, max_bytes: int, api_url: str) -> tuple[SlackFile, str]:
    """files.info: the file and its kind, with the size and the download host checked before
    anything is downloaded."""
    try:
        info = read_file_info(client, file_id)
    except SlackApiError as exc:
        error = exc.response.get("error", "error")
        if unknown_outcome(error):
            said = error if slack_said(error) else "an answer that was not Slack's JSON"
            raise InputError(f"could not read the file from Slack ({said}): a hiccup on Slack's side; try again in a minute") from None
        if error in RATE_LIMIT_ERRORS:  # a Retry-After longer than the person should wait
            raise InputError(f"could not read the file from Slack ({error}): Slack is rate-limiting the bot; "
                             "try again in a few minutes") from None
        if error in GONE_ERRORS:
            # Deleted between the upload and our read: no scope would help, the upload would.
            raise InputError(f"could not read the file from Slack ({error}): it was deleted before I read it; upload it again") from None
        raise InputError(f"could not read the file from Slack ({error}): is the bot allowed to see it (files:read)?") from None
    except OSError as exc:  # Slack unreachable or too slow (URLError, timeouts, resets)
        raise InputError(f"Slack did not answer when I asked for the file ({_reason(exc)}); try again in a minute") from None
    except ValueError:  # its answer cut off every time
        raise InputError("Slack's answer about the file was cut off; try again in a minute") from None
    name = describe(info)
    what = kind(info)
    size = int(info.get("size") or 0)
    url = info.get("url_private_download") or info.get("url_private") or ""
    if what == LOG:
        if info.get("mode") == "hidden_by_limit":
            # On a free plan Slack hides files past its history limit: files.info names them,
            # with no URL to read them by. (A hidden screenshot is passed over as any other.)
            raise InputError(f"{name} is hidden by this workspace's Slack plan (past its file history limit), so I cannot "
                             "read it: upload the log again, or paste the error as text")
        if size > max_bytes:
            raise InputError(
                f"{name} is {size / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit: "
                "upload the part around the failure, or gzip the log"
            )
        if not url:
            raise InputError(f"Slack gives no download link for {name} (an external file?), so I cannot read it")
        if not allowed_host(url, api_url):
            raise InputError(
                f"{name} is not hosted by Slack (its download link points at {host_of(url)}): "
                "I only download with the bot token from Slack's own file servers; upload the log to Slack itself"
            )
    return SlackFile(id=file_id, name=name, size=size, url=url, raw=info), what


# files.info asks: a read, so an answer that says nothing (a transient error, a body that is not
# Slack's JSON) is simply asked again, this many times in all.
FILES_INFO_ATTEMPTS = 3


def read_file_info(client: WebClient, file_id: str) -> dict[str, Any]:
    """files.info's file, asked again after a transient answer (slack_sdk's handlers already
    retry 429s, 5xx and resets); the last attempt's failure is the caller's."""
    for _ in range(FILES_INFO_ATTEMPTS - 1):
        try:
            return client.files_info(file=file_id)["file"]
        except SlackApiError as exc:
            # A 5xx was retried by slack_sdk already: only an HTTP 200 saying nothing is asked again.
            if exc.response.status_code >= 500 or not unknown_outcome(exc.response.get("error")):
                raise
            log.info("files.info answered %s: asking again", str(exc.response.get("error"))[:60])
        except ValueError:  # a JSON body cut off: slack_sdk raises the decoding error itself
            log.info("files.info answered a cut-off body: asking again")
    return client.files_info(file=file_id)["file"]


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or exc
    return "timed out" if isinstance(reason, TimeoutError) else str(reason) or type(reason).__name__


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """urllib would follow a redirect with every header, the token included: never follow;
    `_open` decides per hop."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects())
# What a URL may hold as it is: reserved characters and percent-escapes already made.
_URL_SAFE = "%/:=&?~#+!$,;'@()*[]"


def _ascii(url: str) -> str:
    """The URL with any non-ASCII character percent-encoded (a file named `学習.log`, or one
    with a right-to-left override, in its path): http.client sends only ASCII and raised
    UnicodeEncodeError, which no retry policy or message caught."""
    return url if url.isascii() else urllib.parse.quote(url, safe=_URL_SAFE)


def _open(file: SlackFile, token: str, api_url: str, timeout_s: float) -> Any:
    """GET the file, following at most MAX_REDIRECTS redirects, each only to a host that may
    get the token; a redirect anywhere else is refused (and the token never sent there).
    An HTTP error status is raised as urllib's HTTPError, for the retry policy to judge."""
    url = file.url
    for _ in range(MAX_REDIRECTS + 1):
        if not allowed_host(url, api_url):
            raise InputError(
                f"Slack's download of {file.name} redirected to {host_of(url)}, which is not a Slack "
                "file server: I did not follow it (the bot token only goes to Slack); try uploading the file again"
            )
        req = urllib.request.Request(_ascii(url), headers={"Authorization": f"Bearer {token}"})
        try:
            return _OPENER.open(req, timeout=timeout_s)
        except urllib.error.HTTPError as exc:
            location = exc.headers.get("Location") if exc.code in _REDIRECTS else None
            if not location:
                raise
            exc.close()
            url = urllib.parse.urljoin(url, location)
    raise InputError(f"downloading {file.name} failed: more than {MAX_REDIRECTS} redirects")


def _open_retrying(file: SlackFile, token: str, api_url: str, timeout_s: float) -> Any:
    """`_open`, retried the way the Web API calls are: slack_sdk's retry handlers decide (a
    429 after its Retry-After, a 500/503 or a reset after a back-off). Only the request is
    retried, never a body already being read: its bytes are fed to the diagnosis as they come.
    A stall is not retried either, or one stalled download would take several timeouts."""
    handlers = download_retry_handlers()
    state = RetryState()
    # What the handlers see of the request: where it goes, never the token.
    request = RetryRequest(method="GET", url=host_of(file.url), headers={})
    while True:
        response: RetryResponse | None = None
        error: Exception | None = None
        try:
            return _open(file, token, api_url, timeout_s)
        except urllib.error.HTTPError as exc:
            response = RetryResponse(status_code=exc.code, headers=dict(exc.headers.items()), data=b"")
            exc.close()
            failure: Exception = exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
                raise
            error = reason if isinstance(reason, Exception) else exc
            failure = exc
        state.next_attempt_requested = False
        for handler in handlers:
            if handler.can_retry(state=state, request=request, response=response, error=error):
                log.info("download of %s: retrying after %s", file.id,
                         f"HTTP {response.status_code}" if response is not None else type(error).__name__)
                handler.prepare_for_next_attempt(state=state, request=request, response=response, error=error)
                break
        if not state.next_attempt_requested:
            raise failure


def download(
    file: SlackFile, token: str, timeout_s: float = DOWNLOAD_TIMEOUT_S, deadline_s: float = DOWNLOAD_DEADLINE_S,
    api_url: str = "https://slack.com/api/",
) -> Iterator[bytes]:
    """Stream the file's bytes. Raises InputError for a host that is not Slack's, an auth
    page, an HTTP error, a stall (no byte for `timeout_s`) or a trickle that outlasts
    `deadline_s` in all."""
    # The deadline counts time spent waiting on Slack, not the time the reader (the matcher,
    # streaming) spends between chunks: a slow diagnosis of a fast download is no trickle.
    waited = 0.0
    began = time.monotonic()
    try:
        resp = _open_retrying(file, token, api_url, timeout_s)
    except urllib.error.HTTPError as exc:
        if exc.code == 429:
            raise InputError(f"Slack is rate-limiting downloads of {file.name} (HTTP 429); try again in a minute") from None
        raise InputError(_refused(file.name, exc.code)) from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        if isinstance(getattr(exc, "reason", exc), TimeoutError):
            raise InputError(f"downloading {file.name} stalled: Slack sent nothing for {timeout_s:.0f} s; try again") from None
        raise InputError(f"downloading {file.name} failed ({_reason(exc)})") from None
    with resp:
        if "text/html" in (resp.headers.get("Content-Type") or ""):
            raise InputError(
                f"Slack answered the download of {file.name} with a login page: the bot token cannot read it "
                "(reinstall the app with the files:read scope)"
            )
        waited += time.monotonic() - began
        while True:
            began = time.monotonic()
            try:
                # read1: one socket read, so a trickle still comes back here to meet the deadline.
                chunk = resp.read1(_CHUNK)
            except (TimeoutError, OSError):
                raise InputError(f"downloading {file.name} stalled for {timeout_s:.0f} s; try again") from None
            waited += time.monotonic() - began
            if not chunk:
                return
            if waited > deadline_s:
                raise InputError(f"downloading {file.name} took over {deadline_s:.0f} s; try again, or upload the part around the failure") from None
            yield chunk


def _refused(name: str, status: int) -> str:
    """A download Slack refused, with what to do about it: the status alone ("failed (HTTP
    403)") leaves the person guessing whether to retry, reinstall or re-upload."""
    if status in (401, 403):
        return (f"Slack refused the bot the download of {name} (HTTP {status}): the app needs the files:read scope "
                "(a workspace admin can reinstall Denpex to grant it); meanwhile, paste the error as text")
    if status in (404, 410):
        return f"{name} is gone from Slack (HTTP {status}): it was deleted, or its link expired; upload it again"
    return f"downloading {name} failed (HTTP {status}); try again in a minute"


def download_timeout() -> float:
    return timers.seconds("DENPEX_DOWNLOAD_TIMEOUT_S", DOWNLOAD_TIMEOUT_S, allow_zero=False)


def download_deadline() -> float:
    return timers.seconds("DENPEX_DOWNLOAD_DEADLINE_S", DOWNLOAD_DEADLINE_S, allow_zero=False)
