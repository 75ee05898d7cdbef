"""Reading an uploaded log through the Slack API: files.info, then the private download URL.

Streamed with the bot token, never written to disk; the size is checked before the download
(files.info) and again while reading, since a declared size can lie.
"""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.ingest import InputError

SUPPORTED_EXTENSIONS = (".log", ".txt", ".out", ".err", ".gz", ".log.gz", ".text")
SUPPORTED_FILETYPES = ("text", "gzip", "log", "")
DOWNLOAD_TIMEOUT_S = 20.0  # no byte for this long: stalled (DENPEX_DOWNLOAD_TIMEOUT_S)
DOWNLOAD_DEADLINE_S = 120.0  # the whole download, however it trickles (DENPEX_DOWNLOAD_DEADLINE_S)
_CHUNK = 1 << 16


@dataclass(frozen=True)
class SlackFile:
    id: str
    name: str
    size: int
    url: str


def supported(file: dict[str, Any]) -> bool:
    """A log we read: by extension, snippet mode, or a plain-text file type."""
    name = (file.get("name") or "").lower()
    if name.endswith(SUPPORTED_EXTENSIONS):
        return True
    if file.get("mode") == "snippet":
        return True
    ftype = (file.get("filetype") or "").lower()
    mimetype = (file.get("mimetype") or "").lower()
    return ftype in ("text", "log") or mimetype.startswith("text/plain")


def describe(file: dict[str, Any]) -> str:
    return file.get("name") or file.get("title") or file.get("id", "the file")


def file_info(client: WebClient, file_id: str, max_bytes: int) -> SlackFile:
    """files.info, with the size checked before anything is downloaded."""
    try:
        info = client.files_info(file=file_id)["file"]
    except SlackApiError as exc:
        raise InputError(f"could not read the file from Slack ({exc.response.get('error', 'error')}): is the bot allowed to see it (files:read)?") from None
    except OSError as exc:  # Slack unreachable or too slow (URLError, timeouts, resets)
        raise InputError(f"Slack did not answer when I asked for the file ({_reason(exc)}); try again in a minute") from None
    name = describe(info)
    size = int(info.get("size") or 0)
    if size > max_bytes:
        raise InputError(
            f"{name} is {size / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit: "
            "upload the part around the failure, or gzip the log"
        )
    url = info.get("url_private_download") or info.get("url_private")
    if not url:
        raise InputError(f"{name} has no download URL: is it an external file?")
    return SlackFile(id=file_id, name=name, size=size, url=url)


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or exc
    return "timed out" if isinstance(reason, TimeoutError) else str(reason) or type(reason).__name__


def download(
    file: SlackFile, token: str, timeout_s: float = DOWNLOAD_TIMEOUT_S, deadline_s: float = DOWNLOAD_DEADLINE_S
) -> Iterator[bytes]:
    """Stream the file's bytes. Raises InputError for an auth page, an HTTP error, a stall
    (no byte for `timeout_s`) or a trickle that outlasts `deadline_s` in all."""
    deadline = time.monotonic() + deadline_s
    req = urllib.request.Request(file.url, headers={"Authorization": f"Bearer {token}"})
    try:
        resp = urllib.request.urlopen(req, timeout=timeout_s)
    except urllib.error.HTTPError as exc:
        raise InputError(f"downloading {file.name} failed (HTTP {exc.code})") from None
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
        while True:
            try:
                # read1: one socket read, so a trickle still comes back here to meet the deadline.
                chunk = resp.read1(_CHUNK)
            except (TimeoutError, OSError):
                raise InputError(f"downloading {file.name} stalled for {timeout_s:.0f} s; try again") from None
            if not chunk:
                return
            if time.monotonic() > deadline:
                raise InputError(f"downloading {file.name} took over {deadline_s:.0f} s; try again, or upload the part around the failure") from None
            yield chunk


def download_timeout() -> float:
    try:
        return float(os.environ.get("DENPEX_DOWNLOAD_TIMEOUT_S", DOWNLOAD_TIMEOUT_S))
    except ValueError:
        return DOWNLOAD_TIMEOUT_S


def download_deadline() -> float:
    try:
        value = float(os.environ.get("DENPEX_DOWNLOAD_DEADLINE_S", DOWNLOAD_DEADLINE_S))
    except ValueError:
        return DOWNLOAD_DEADLINE_S
    return value if value > 0 else DOWNLOAD_DEADLINE_S
