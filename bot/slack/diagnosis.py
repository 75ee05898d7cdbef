"""The Slack edge of a diagnosis: what to read from a message, and how the answer is told.

The use case (quota, charge on delivery, refund, thread context, history) is
bot.delivery.diagnose; here a `SlackReplier` renders and posts for it, and `read_message`
reads what a message holds: its log files (kinds from files.info and the bytes; images are
ignored, and a file that cannot be read is noted without stopping the rest) and its pasted
text. The reaction tells the user where things stand: :mag: while working,
:white_check_mark: when answered, :x: when it failed, :no_entry_sign: over the daily quota.

An answer whose post has an unknown outcome (a 5xx, a reset, a timeout: Slack may have
posted) is looked for in the thread by the diagnosis id in its message metadata before it is
posted again, never blindly repeated.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.delivery import NotDelivered, Place, new_diagnosis_id
from bot.ingest import InputError, Limits, ReadStatus, read_log
from bot.service import Outcome
from bot.slack import blocks as ui
from bot.slack import files, timers
from bot.slack.deps import BotDeps
from bot.slack.webapi import CALL_FAILED, courtesy_client, reply_client, unknown_outcome

log = logging.getLogger("denpex.slack")

METADATA_EVENT = "denpex_diagnosis"
REPLY_EVENT = "denpex_reply"
# Posts of one answer: the first, and repeats each made only after looking it is not there.
POST_ATTEMPTS = 3
# Refusals that blame the blocks alone (a limit Slack enforces that fit() did not foresee):
# the answer is posted again as its plain-text fallback.
BLOCKS_REFUSED = ("invalid_blocks", "invalid_blocks_format", "msg_blocks_too_long")
# Refusals of a reply in a thread, the message posted nowhere: a channel whose posting settings
# turn threads off ("Cannot post thread replies into a non_threadable channel"), a message
# Slack lets have no replies ("This message type cannot have thread replies"). The answer goes
# in the channel itself, the only place left to tell the person.
THREAD_REFUSED = ("restricted_action_non_threadable_channel", "cannot_reply_to_message")
# The fallback text of an answer Slack calls too long (`msg_too_long`), posted again.
SHORT_TEXT_CHARS = 1_000
# Where to look for an answer of unknown outcome, seconds after the failure: a 5xx has been
# answered (what Slack posted is there now); a timeout or reset may still be landing.
# DENPEX_POST_LOOKS_5XX_S and DENPEX_POST_LOOKS_TIMEOUT_S ("0,2,4") override.
LOOK_AFTER_5XX_S = (0.3,)
LOOK_AFTER_TIMEOUT_S = (0.0, 2.0, 4.0)


def looks_after_5xx() -> tuple[float, ...]:
    return timers.seconds_list("DENPEX_POST_LOOKS_5XX_S", LOOK_AFTER_5XX_S)


def looks_after_timeout() -> tuple[float, ...]:
    return timers.seconds_list("DENPEX_POST_LOOKS_TIMEOUT_S", LOOK_AFTER_TIMEOUT_S)


@dataclass(frozen=True)
class Where:
    """Where a log was posted and where the reply goes."""

    team_id: str
    channel: str
    ts: str  # the message carrying the log (reactions go on it)
    thread_ts: str  # the thread to reply in ("": none, a message of its own in the channel)
    user: str | None
    # A public channel (the event's channel_type is "channel"). Anything else, or not known (an
    # app_mention carries no channel_type), is treated as private.
    public: bool = False

    @property
    def place(self) -> Place:
        # Outside a public channel a diagnosis is listed in the App Home only to who asked.
        return Place(self.team_id, self.channel, self.thread_ts, None if self.public else (self.user or ""))


def react(client: WebClient, where: Where, add: str | None, remove: str | None = None) -> None:
    # Reactions are a courtesy: a failure here (an error, a 429, a timeout) must never stop
    # or delay the reply itself, so they go through a short-timeout, short-retry client.
    quick = courtesy_client(client)
    for method, name in ((quick.reactions_remove, remove), (quick.reactions_add, add)):
        if not name:
            continue
        try:
            method(channel=where.channel, timestamp=where.ts, name=name)
        except SlackApiError as exc:
            log.info("reaction %s on %s failed: %s", name, where.channel, exc.response.get("error"))
        except Exception as exc:  # timeouts, resets: same courtesy
            log.info("reaction %s on %s failed: %s", name, where.channel, type(exc).__name__)


def post(client: WebClient, where: Where, message: tuple[str, list[dict[str, Any]] | None], **extra: Any) -> Any:
    text, blocks = message
    # No unfurls: a link quoted from a log must not make Slack fetch it.
    # (No thread, `""`: a message of its own in the channel, as an alert of `denpex watch` is.)
    return client.chat_postMessage(channel=where.channel, thread_ts=where.thread_ts or None, text=text, blocks=blocks,
                                   unfurl_links=False, unfurl_media=False, **extra)


def tell(client: WebClient, where: Where, message: tuple[str, list[dict[str, Any]]]) -> bool:
    """Post any other reply (a notice, a follow-up answer, help) the same careful way: never
    twice, and a failure only logged. True when it is known to be in the thread."""
    try:
        post_verified(client, where, message, new_diagnosis_id(), event_type=REPLY_EVENT)
        return True
    except NotDelivered as exc:
        log.info("reply in team=%s channel=%s not posted: %s", where.team_id, where.channel, exc)
    except Exception as exc:  # anything else Slack or the network throws: still only logged
        log.warning("could not post a message in team=%s: %s", where.team_id, type(exc).__name__)
    return False


safe_post = tell


def _landed(client: WebClient, where: Where, diagnosis_id: str, since: float) -> str | bool | None:
    """The ts of the post carrying `diagnosis_id` in the thread (or, with no thread, among the
    channel's latest messages), False when it is not there, None when Slack would not say."""
    try:
        if where.thread_ts:
            resp = client.conversations_replies(channel=where.channel, ts=where.thread_ts, include_all_metadata=True,
                                                oldest=f"{since - 120:.6f}", inclusive=True, limit=200)
        else:  # a post seconds old is among the latest
            resp = client.conversations_history(channel=where.channel, include_all_metadata=True, limit=100)
    except CALL_FAILED as exc:
        log.info("could not look for a post in %s: %s", where.channel, type(exc).__name__)
        return None
    for msg in resp.get("messages") or []:
        payload = ((msg.get("metadata") or {}).get("event_payload")) or {}
        if payload.get("diagnosis_id") == diagnosis_id:
            return str(msg.get("ts"))
    return False


def post_verified(client: WebClient, where: Where, message: tuple[str, list[dict[str, Any]]], diagnosis_id: str,
                  event_type: str = METADATA_EVENT) -> str:
    """Post the answer once; its ts. A refusal raises NotDelivered; an unknown outcome (5xx, a
    transient error in a 200, a cut-off answer, a reset, a timeout) is looked for in the thread
    by its metadata, and posted again only once it is known to be absent; if Slack will not
    show the thread, it is not repeated."""
    once = reply_client(client)
    metadata = {"event_type": event_type, "event_payload": {"diagnosis_id": diagnosis_id}}
    started = time.time()
    problem = ""
    text, blocks = message
    for _attempt in range(POST_ATTEMPTS):
        try:
            return str(post(once, where, (text, blocks), metadata=metadata)["ts"])
        except SlackApiError as exc:
            status, error = exc.response.status_code, exc.response.get("error")
            if error in BLOCKS_REFUSED and blocks:
                # Slack posted nothing and says the blocks are why: the plain-text fallback
                # (the root cause and the fix) still tells the user, and cannot double.
                log.warning("Slack refused the blocks of %s in team=%s (%s): posting the text alone",
                            diagnosis_id, where.team_id, error)
                blocks = None
                continue
            if error in THREAD_REFUSED and where.thread_ts:
                # Posted nothing: no reply in this thread. A message of its own in the channel,
                # looked for among the channel's latest before any repeat.
                log.info("no thread reply in channel %s of team=%s (%s): posting %s in the channel",
                         where.channel, where.team_id, error, diagnosis_id)
                where = replace(where, thread_ts="")
                continue
            if error == "msg_too_long" and (len(text) > SHORT_TEXT_CHARS or blocks):
                # Posted nothing, the message too long for Slack: a shorter fallback text (the
                # blocks carry the answer), then, refused again, the short text alone.
                log.warning("Slack found the answer %s in team=%s too long: posting it shorter", diagnosis_id, where.team_id)
                text, blocks = (ui.cut(text, SHORT_TEXT_CHARS), blocks) if len(text) > SHORT_TEXT_CHARS else (text, None)
                continue
            if status < 500 and not unknown_outcome(error):
                # refused (not_in_channel, ratelimited past retries...): not posted
                raise NotDelivered(f"Slack refused the post: {error}", error=str(error)) from None
            problem, looks = (f"HTTP {status}" if status >= 500 else str(error)[:60]), looks_after_5xx()
        except ValueError:
            # A body that starts as JSON and is cut off (a proxy, a dropped connection): slack_sdk
            # raises the decoding error itself. Nothing says whether Slack posted.
            problem, looks = "a cut-off answer", looks_after_5xx()
        except OSError as exc:  # a reset or a timeout: it may have been posted, or be landing
            problem, looks = type(exc).__name__, looks_after_timeout()
        log.info("post of diagnosis %s in team=%s unconfirmed (%s): looking for it", diagnosis_id, where.team_id, problem)
        found: str | bool | None = False
        for wait in looks:
            time.sleep(wait)
            found = _landed(client, where, diagnosis_id, started)
            if found is not False:
                break
        if isinstance(found, str):
            log.info("diagnosis %s was posted in team=%s after all", diagnosis_id, where.team_id)
            return found
        if found is None:
            raise NotDelivered(f"Slack did not confirm the post ({problem}) and would not show the thread")
    raise NotDelivered(f"Slack did not confirm the post {POST_ATTEMPTS} times ({problem})")


@dataclass
class SlackReplier:
    """bot.delivery.Replier for a Slack thread."""

    client: WebClient
    where: Where
    notes: list[str] = field(default_factory=list)  # files not read, told with the answer

    def working(self) -> None:
        react(self.client, self.where, "mag")

    def over_quota(self, status: Any) -> None:
        safe_post(self.client, self.where, ui.quota_exceeded_message(status))

    def answer(self, outcome: Outcome, diagnosis_id: str) -> None:
        text, blocks = ui.diagnosis_message(outcome.report)
        if self.notes:
            blocks = ui.fit([*blocks, ui.context(ui.esc("Not read: " + "; ".join(self.notes))[:2900])])
        post_verified(self.client, self.where, (text, blocks), diagnosis_id)

    def problem(self, text: str) -> None:
        safe_post(self.client, self.where, ui.error_message(text))

    def unavailable(self) -> None:
        safe_post(self.client, self.where, ui.unavailable_message())

    def finished(self, state: str) -> None:
        mark = {"answered": "white_check_mark", "failed": "x", "over_quota": "no_entry_sign"}.get(state)
        if mark:
            react(self.client, self.where, mark, remove="mag")


@dataclass(frozen=True)
class LogFile:
    info: files.SlackFile
    named_as_log: bool  # its name or type says log; otherwise only its bytes can tell


NOT_A_LOG = "{} is not a log file I read (.log, .txt, .out, .err, a text snippet, or .gz of one)"


@dataclass(frozen=True)
class Unread:
    """A file of no log kind (a screenshot or a recording: media; a document or an archive), or
    one Slack does not let the app open (`closed`: another organization's, in a shared channel)."""

    name: str  # masked (bot.slack.files.describe)
    what: str  # "an image", "a PDF", ... (bot.slack.files.what_it_is)
    media: bool
    closed: bool = False

    @property
    def note(self) -> str:
        """The file, in a word beside a diagnosis."""
        return self.said if self.closed else NOT_A_LOG.format(self.name)

    @property
    def said(self) -> str:
        """The file, in a word when nothing else is there to read."""
        if self.closed:
            return f"{self.name} was shared from another organization, and Slack does not let me open it"
        return f"{self.name} is {self.what}, not a log file I read"


def classify(deps: BotDeps, client: WebClient, shared: list[dict[str, Any]]) -> tuple[list[LogFile], list[str], list[Unread]]:
    """The message's files that are logs (by files.info), a note for each that may be one but
    cannot be read, and the files of no log kind (nothing of theirs is downloaded)."""
    logs: list[LogFile] = []
    notes: list[str] = []
    unread: list[Unread] = []
    for f in shared:
        if files.closed_to_app(f):
            # files.info would not describe it either: said as it is, once, without a look-up.
            name = files.describe(f) if f.get("name") or f.get("title") else "A file here"
            unread.append(Unread(name, "a file of another organization", media=False, closed=True))
            continue
        try:
            info, what = files.file_info(client, f["id"], deps.config.max_upload_bytes, deps.config.api_url)
        except InputError as exc:
            notes.append(str(exc))
            continue
        if what == files.LOG:
            logs.append(LogFile(info, files.named_as_log(info.raw)))
        else:
            unread.append(Unread(info.name, files.what_it_is(info.raw), media=what == files.MEDIA))
    return logs, notes, unread


def _primed(stream: Iterator[bytes]) -> Iterator[bytes]:
    """Pull the first chunk now, so an empty, binary or unreachable file fails here (and is
    noted) rather than in the middle of the diagnosis; end on a newline."""
    first = next(stream, b"")

    def rest() -> Iterator[bytes]:
        last = first
        yield first
        for chunk in stream:
            last = chunk or last
            yield chunk
        if last and not last.endswith(b"\n"):
            yield b"\n"

    return rest()


def read_message(deps: BotDeps, client: WebClient, replier: SlackReplier, text: str | None,
                 logs: list[LogFile], notes: list[str]) -> Callable[[], Outcome]:
    """What `diagnose` reads: every log file of the message, then its pasted text, as one log."""
    cfg = deps.config

    def read() -> Outcome:
        streams: list[Iterable[bytes]] = []
        statuses: list[ReadStatus] = []
        replier.notes = list(notes)
        per_file = Limits(max_bytes=cfg.max_upload_bytes, max_inflated=cfg.max_inflated_bytes)
        for f in logs:
            try:
                chunks = files.download(f.info, client.token or "", files.download_timeout(),
                                        files.download_deadline(), api_url=cfg.api_url)
                statuses.append(ReadStatus())
                streams.append(_primed(read_log(chunks, per_file, statuses[-1])))
            except InputError as exc:
                if f.named_as_log:
                    replier.notes.append(f"{f.info.name}: {exc}")
                else:  # an upload of no log kind whose bytes are not text either
                    replier.notes.append(f"{NOT_A_LOG.format(f.info.name)}: {exc}")
        if text and text.strip():
            streams.append([text.encode("utf-8", "surrogatepass") + b"\n"])
        if not streams:
            raise InputError("; ".join(replier.notes) or "the message holds nothing to read")
        total = Limits(max_bytes=cfg.max_inflated_bytes, max_inflated=cfg.max_inflated_bytes)
        return deps.denpex.diagnose_stream(itertools.chain.from_iterable(streams), limits=total, sources=statuses)

    return read
