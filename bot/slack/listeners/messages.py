"""Messages and mentions: pasted logs, uploaded files, follow-up questions in a diagnosis thread."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import regex
from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.delivery import diagnose
from bot.masking.placeholders import PLACEHOLDER_RX
from bot.slack import blocks as ui
from bot.slack import files, logdetect, recovery, timers
from bot.slack.answerable import answerable, between_people
from bot.slack.deps import BotDeps
from bot.slack.diagnosis import SlackReplier, Where, classify, read_message, tell
from bot.slack.listeners.commands import ID_WRAPPING, WORD_WRAPPING, quota_answer
from bot.slack.listeners.uploads import mark_files
from bot.slack.outage import unavailable_in_thread
from bot.slack.user_limits import FOLLOWUP
from bot.store import StoreUnavailable
from bot.store.bursts import Part
from bot.store.claims import Claim
from bot.store.threads import ThreadContext

log = logging.getLogger("denpex.slack")

# Subtypes that carry a person's new text; everything else (edits, deletes, joins, bot
# messages, channel topic changes) is ignored.
_HANDLED_SUBTYPES = (None, "file_share", "thread_broadcast")
# A one-to-one conversation with the bot: every message there is meant for it. `app_home` is
# what Slack's docs give for the App Home's messages (message.app_home), a DM by another name.
_DIRECT_CHANNEL_TYPES = ("im", "app_home")


# Slackbot's own user id: its messages (a reminder, "Reminder: check the run", a custom
# response, a workflow's step posted as Slackbot) are no person's, like another bot's: a
# reminder that quotes a log would otherwise be diagnosed, and charged, every time it fires.
SLACKBOT = "USLACKBOT"


def _direct(event: dict[str, Any]) -> bool:
    return event.get("channel_type") in _DIRECT_CHANNEL_TYPES


# Words in the bot's DM that say a log follows: they wait the paste window for it.
_ANNOUNCES_LOG = regex.compile(r"\b(?:logs?|attached|attaching|below|traceback|stack ?trace|output)\b", regex.IGNORECASE)

# A log pasted as several messages: parts by the same person in the same place, each within
# this many seconds of the last (DENPEX_PASTE_WINDOW_S), are one log.
PASTE_WINDOW_S = 3.0
# This process keeps the raw text of the parts it received, for this long, so the part that
# closes a burst reads the log as typed where it can (Redis holds only masked copies).
_LOCAL_PARTS_S = 120.0
_local_parts: dict[tuple[str, str, str], tuple[float, str, str]] = {}  # (kept at, text, its edit's ts)
_local_lock = threading.Lock()
# Placeholders of the n-th part known only masked are numbered from n * this (see _apart).
_PART_PLACEHOLDER_STRIDE = 1000


def paste_window() -> float:
    return timers.seconds("DENPEX_PASTE_WINDOW_S", PASTE_WINDOW_S)


# A message its sender deleted (`message_deleted`) before it was answered: a log pasted in the
# wrong channel, or with a secret in it, taken back within the paste window. Noted this long,
# so the closer of its paste, or a delivery of it that comes late, answers nothing for it: no
# diagnosis under "This message was deleted.", no charge.
DELETED_NOTED_S = 3600


def _note_deleted(deps: BotDeps, team: str, event: dict[str, Any]) -> None:
    channel, ts = event.get("channel"), event.get("deleted_ts")
    if not (isinstance(channel, str) and channel and isinstance(ts, str) and ts):
        return
    try:
        deps.store.dedupe.first_time(team, f"deleted:{channel}:{ts}", DELETED_NOTED_S)
    except (StoreUnavailable, ValueError) as exc:
        log.info("deletion of a message in team=%s not noted: %s", team, type(exc).__name__)


def _note_edit(deps: BotDeps, team: str, event: dict[str, Any], bot_user_id: str | None) -> None:
    """A message edited by its sender (`message_changed`): noted for the paste window, so a
    paste it is a part of, still open, reads it as edited (a typo fixed, the wrong run's log
    replaced, a secret taken out), not as first sent. An edit after the paste closed changes
    nothing: the answer is out, or being written from what was sent."""
    edited = event.get("message")
    channel = event.get("channel")
    if not (isinstance(edited, dict) and isinstance(edited.get("edited"), dict) and isinstance(channel, str)):
        return  # not a person's edit: a link preview added, a reply counted
    user, ts, thread_ts = edited.get("user"), edited.get("ts"), edited.get("thread_ts")
    if (edited.get("bot_id") or not isinstance(user, str) or user in (bot_user_id, SLACKBOT)
            or not isinstance(ts, str) or not ts):
        return
    text = logdetect.clean(message_text(edited))
    edit_ts = str(edited["edited"].get("ts") or event.get("ts") or "edited")
    thread = thread_ts if isinstance(thread_ts, str) and thread_ts else ts
    try:
        part = Part(ts, thread, deps.denpex.mask_query(text), logdetect.strength(text, deps.keywords) == "strong",
                    edit_ts)
        deps.store.bursts.note_edit(team, channel, part, noted_s=_noted_s())
    except (StoreUnavailable, ValueError) as exc:
        log.info("edit of a message in team=%s not noted: %s", team, type(exc).__name__)
        return
    _keep_local((team, channel, ts), text, edit_ts)


def _as_edited(deps: BotDeps, where: Where, part: Part) -> Part:
    """The part as its sender last edited it, if they did while the paste was open."""
    edit = deps.store.bursts.edit_of(where.team_id, where.channel, part.ts)
    if edit is None:
        return part
    log.info("a pasted message in team=%s channel=%s was edited before its answer: read as edited",
             where.team_id, where.channel)
    return replace(part, text=edit.text, strong=edit.strong, edited=edit.edited)


def _deleted(deps: BotDeps, where: Where, ts: str) -> bool:
    return deps.store.dedupe.seen(where.team_id, f"deleted:{where.channel}:{ts}")


def _kept(deps: BotDeps, where: Where, parts: list[Part]) -> list[Part]:
    """The parts of a paste its sender has not deleted meanwhile, each as they last edited it."""
    kept = []
    for part in parts:
        if _deleted(deps, where, part.ts):
            _take_local((where.team_id, where.channel, part.ts))
            log.info("a pasted message in team=%s channel=%s was deleted before its answer: not read",
                     where.team_id, where.channel)
        else:
            kept.append(_as_edited(deps, where, part))
    return kept


# A reply in the thread of a message still being answered waits for that answer this long at
# most (a download may take DENPEX_DOWNLOAD_DEADLINE_S, 120 s), looking every PARENT_POLL_S.
PARENT_WAIT_S = 180.0
PARENT_POLL_S = 0.2

# How long an app_mention waits for the message event of the same message (see on_mention).
# Slack sends both at once; a second covers their arriving on a busy replica out of order.
MENTION_GRACE_S = 1.0


def _keep_local(key: tuple[str, str, str], text: str, edited: str = "") -> None:
    now = time.monotonic()
    with _local_lock:
        for k in [k for k, (at, _, _) in _local_parts.items() if now - at > _LOCAL_PARTS_S]:
            del _local_parts[k]
        _local_parts[key] = (now, text, edited)


def _take_local(key: tuple[str, str, str], edited: str | None = None) -> str | None:
    """This process's raw copy of a part, taken; with `edited`, only if it is that version of
    the part (the edit of that ts, or "" for the text as first sent)."""
    with _local_lock:
        item = _local_parts.pop(key, None)
    return item[1] if item and (edited is None or item[2] == edited) else None


def _ack(ack: Ack) -> None:
    ack()


def follow_up(deps: BotDeps, client: WebClient, where: Where, question: str, ctx: ThreadContext,
              topic: str | None = None) -> None:
    """Answer a question in a diagnosis thread, from the run kept for it, the entry, the
    knowledge base or the history (bot.followup); an unrecognised one gets topic buttons.

    The per-user limit is checked here, not in middleware: a message is a follow-up only once
    it has been claimed and its thread's kept context found (`_act`), which no middleware knows."""
    if where.user and not FOLLOWUP.allows(deps.store, where.team_id, where.user):
        return
    reply = deps.denpex.follow_up(deps.store, where.team_id, ctx, question, topic)
    if reply is None:
        return
    if reply.limit_reached and not _first_limit_notice(deps, where, reply.resets_at):
        return  # told in this thread already today: every further question would repeat it
    masked = deps.denpex.mask_query(question)
    if reply.answer is None:
        tell(client, where, ui.choices_message(reply.choices, masked))
    elif not tell(client, where, ui.answer_message(reply.answer, reply.rule, reply.choices, masked)) and reply.counted:
        deps.store.followup_quota.refund(where.team_id, reply.counted)  # not posted: not counted


def _first_limit_notice(deps: BotDeps, where: Where, resets_at: datetime | None) -> bool:
    """Is this the thread's first notice of the day's follow-up limit (until it resets)?"""
    ttl = int((resets_at - datetime.now(UTC)).total_seconds()) if resets_at else 0
    return deps.store.dedupe.first_time(where.team_id, f"followup-limit:{where.channel}:{where.thread_ts}", max(ttl, 60))


def paste(deps: BotDeps, client: WebClient, where: Where, place: str, text: str, *,
          strong: bool = True, direct: bool = False, announce: bool = False) -> Callable[[], None] | None:
    """One part of a pasted log: join the place's burst. Returns what to run once the person
    has stopped pasting (answer for every part at once if this one was the last, on any
    replica), or None when it was answered at once (no window, or no store for bursts).
    `strong`: the part looks like a log by itself; a burst with no strong part is chatter,
    except in a conversation with the bot (`direct`), where every message is meant for it.
    `announce`: words there saying a log follows ("here is the log from last night:"), naming
    no error: if nothing follows, they get the help any message there gets."""
    store, window = deps.store, paste_window()
    key = (where.team_id, where.channel, where.ts)
    if window <= 0:
        parts_text, first = [text], where
    else:
        _keep_local(key, text)
        try:
            part = Part(where.ts, where.thread_ts, deps.denpex.mask_query(text), strong)
            seq = store.bursts.join(where.team_id, place, part, lifetime_s=2 * window + 5)
        except StoreUnavailable:
            log.warning("store unavailable joining a paste in team=%s channel=%s: this part is answered alone",
                        where.team_id, where.channel)
            seq = 0
        if seq is None:
            # Words about (or an excerpt of) the log file sent with them, read after the file
            # was answered: that answer is theirs too.
            _take_local(key)
            log.info("a message in team=%s channel=%s goes with the log file answered before it", where.team_id,
                     where.channel)
            return None
        if not seq:
            parts_text, first = [_take_local(key) or text], where
        else:
            return lambda: _close_burst(deps, client, where, place, seq, strong, direct, announce)
    _alone(deps, client, first, parts_text[0], strong=strong, direct=direct, announce=announce, place=place)
    return None


def _alone(deps: BotDeps, client: WebClient, where: Where, text: str, *, strong: bool, direct: bool,
           announce: bool, place: str | None = None) -> None:
    """A part answered by itself: diagnosed (quietly, if weak and not in a DM), or, words that
    only announced a log that never came, the help."""
    if announce:
        tell(client, where, ui.help_message())
    else:
        _answer(deps, client, where, [text], quiet=not strong and not direct, place=place)


def _close_burst(deps: BotDeps, client: WebClient, where: Where, place: str, seq: int, strong: bool,
                 direct: bool = False, announce: bool = False) -> None:
    """The window after a part has passed: if no later part joined, answer for the burst."""
    parts = deps.store.bursts.close(where.team_id, place, seq)
    if parts is None:
        return  # a later part joined: its handler answers for the whole log
    if not parts:
        # The burst expired before this closer ran (a stalled process): no one else will
        # answer, so this part is answered alone rather than dropped.
        log.info("a paste burst in team=%s channel=%s expired before it closed", where.team_id, where.channel)
        own = _take_local((where.team_id, where.channel, where.ts))
        if own is not None and not _deleted(deps, where, where.ts):
            _alone(deps, client, where, own, strong=strong, direct=direct, announce=announce, place=place)
        return
    parts = _kept(deps, where, parts)
    if not parts:
        return
    if announce and len(parts) == 1:
        _take_local((where.team_id, where.channel, where.ts))
        tell(client, where, ui.help_message())
        return
    parts_text = _part_texts(where, parts)
    head = parts[0]
    first = Where(where.team_id, where.channel, head.ts, head.thread_ts, where.user, where.public)
    if len(parts) > 1:
        log.info("%d consecutive messages in team=%s channel=%s read as one log", len(parts), where.team_id, where.channel)
    _answer(deps, client, first, parts_text, quiet=not any(p.strong for p in parts) and not direct, place=place)


def _apart(masked: str, part_no: int) -> str:
    """A part this process knows only by its masked copy (another replica received it), with
    its placeholders renumbered out of the range the whole log's masker numbers from: that
    masker starts again at 1, so `<USER-1>` (alice, masked on the other replica) and the
    `<USER-1>` it would give bob on this one would read as one person."""
    offset = _PART_PLACEHOLDER_STRIDE * part_no

    def renumber(match: Any) -> str:
        kind, _, number = match.group(0)[1:-1].rpartition("-")
        return f"<{kind}-{int(number) + offset}>"

    return PLACEHOLDER_RX.sub(renumber, masked)


def _answer(deps: BotDeps, client: WebClient, first: Where, parts_text: list[str], *, quiet: bool,
            place: str | None = None) -> None:
    log_text = "\n".join(parts_text)
    if place is not None:
        # "what now?" from its sender a moment later is asked about this answer.
        deps.store.bursts.note_answer(first.team_id, place, first.thread_ts, noted_s=_noted_s())
    diagnose(deps.store, SlackReplier(client, first), first.place, lambda: deps.denpex.diagnose_text(log_text),
             quiet=quiet)


def handle_message(deps: BotDeps, client: WebClient, team: str, event: dict[str, Any],
                   bot_user_id: str | None, mentioned: bool, claim: Claim | None = None) -> None:
    """Decide what a message is (a log, a part of one, a question, nothing) and act on it.

    The message is claimed first, with a lease renewed while the work goes on (one reply per
    message: a mention arrives as `message` and `app_mention` events, maybe on two
    replicas); `claim` is given when a sweeper took over a claim whose process died. `team`
    is the workspace from Bolt's context (middleware.workspace), or the claim's."""
    channel, ts = event.get("channel"), event.get("ts")
    if not channel or not ts:
        return
    thread_ts = event.get("thread_ts")
    user = event.get("user")
    where = Where(team, channel, ts, thread_ts or ts, user, public=event.get("channel_type") == "channel")
    store = deps.store
    later: Callable[[], None] | None = None
    try:
        if claim is None:
            claim = store.claims.claim(team, f"message:{channel}:{ts}", {
                "channel": channel, "ts": ts, "thread_ts": thread_ts, "channel_type": event.get("channel_type"),
                "mentioned": mentioned}, recovery.lease_s())
            if claim is None:
                return
        deps.leases.hold(claim)
        try:
            later = _act(deps, client, event, where, mentioned)
        finally:
            if later is None:
                deps.leases.release(claim)
    except StoreUnavailable:
        log.warning("store unavailable for a message in team=%s", team)
        if answerable(deps.denpex, deps.keywords, event, message_text(event), mentioned=mentioned,
                      direct=_direct(event)):
            unavailable_in_thread(client, where)
    except (SlackApiError, OSError) as exc:
        # A help or follow-up answer Slack refused (not_in_channel, archived) or never confirmed.
        error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
        log.info("reply in team=%s channel=%s not posted: %s", team, channel, error)
        return
    if later is not None and claim is not None:
        _after_window(deps, client, where, claim, later)


def _after_window(deps: BotDeps, client: WebClient, where: Where, claim: Claim, later: Callable[[], None]) -> None:
    """Run `later` once the paste window has passed, on a timer thread of its own: the wait
    must not hold one of Bolt's few listener threads (at a few logs a second they would all be
    asleep). The claim's lease stays held until `later` is done."""

    def run() -> None:
        try:
            later()
        except StoreUnavailable:
            log.warning("store unavailable closing a paste in team=%s", where.team_id)
            unavailable_in_thread(client, where)
        except (SlackApiError, OSError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
            log.info("reply in team=%s channel=%s not posted: %s", where.team_id, where.channel, error)
        except Exception:
            log.exception("closing a paste failed in team=%s", where.team_id)
            tell(client, where, ui.internal_error_message())
        finally:
            deps.leases.release(claim)

    timer = threading.Timer(paste_window(), run)
    timer.daemon = True
    timer.start()


# Lists in a message nest a few levels (Slack indents up to 8); past this it is not a person's message.
_RICH_TEXT_DEPTH = 16


def _rich_text(blocks: Any) -> str:
    """The text of a message's rich_text blocks, escaped as Slack escapes `text` (what the rest
    reads), preformatted parts in ``` fences: for a message that carries its words only there."""
    out: list[str] = []

    def inline(elements: Any) -> str:
        pieces = []
        for el in elements if isinstance(elements, list) else []:
            if not isinstance(el, dict):
                continue
            if el.get("type") == "text" or (el.get("type") == "link" and el.get("text")):
                pieces.append(str(el.get("text") or ""))
            elif el.get("type") == "link":
                pieces.append(str(el.get("url") or ""))
            elif el.get("type") == "emoji":
                pieces.append(f":{el.get('name') or ''}:")
        return ui.esc("".join(pieces))

    def walk(elements: Any, depth: int) -> None:
        for el in elements if isinstance(elements, list) and depth <= _RICH_TEXT_DEPTH else []:
            if not isinstance(el, dict):
                continue
            kind = el.get("type")
            if kind == "rich_text_preformatted":
                out.append("```" + inline(el.get("elements")) + "```")
            elif kind in ("rich_text_list", "rich_text"):
                walk(el.get("elements"), depth + 1)
            elif kind in ("rich_text_section", "rich_text_quote"):
                out.append(inline(el.get("elements")))

    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict) and block.get("type") == "rich_text":
            walk(block.get("elements"), 0)
    return "\n".join(p for p in out if p)


def own_text(event: dict[str, Any]) -> str:
    """The message's own `text`, or "" when it has none or it is not a string (a malformed or
    foreign event: Slack's schema says string, but not every sender keeps to it)."""
    text = event.get("text")
    return text if isinstance(text, str) else ""


def message_text(event: dict[str, Any]) -> str:
    """The message's text, and after it the text of each message it forwards: Slack sends a
    forwarded (shared) message as an attachment marked `is_share` or `is_msg_unfurl`, its
    text escaped like the message's own. Link previews and apps' attachments are not read.
    A message whose `text` holds no words (empty, or only a mention) is read from its
    rich_text blocks."""
    text = own_text(event)
    parts = [text if logdetect.clean(text).strip() else f"{text}\n{_rich_text(event.get('blocks'))}".strip()]
    for att in event.get("attachments") or []:
        if isinstance(att, dict) and (att.get("is_share") or att.get("is_msg_unfurl")):
            shared = att.get("text") or att.get("fallback") or ""
            if isinstance(shared, str) and shared.strip():
                parts.append(shared)
    return "\n".join(p for p in parts if p)


def _act(deps: BotDeps, client: WebClient, event: dict[str, Any], where: Where, mentioned: bool) -> Callable[[], None] | None:
    """Act on a message; returns what must still run after the paste window, if anything."""
    store, team, channel, ts, user = deps.store, where.team_id, where.channel, where.ts, where.user
    if _deleted(deps, where, ts):
        # Deleted before this delivery of it was read (a retry, a late event): nothing to answer.
        log.info("a message in team=%s channel=%s was deleted before it was read", team, channel)
        return None
    thread_ts = event.get("thread_ts")
    text = message_text(event)
    strength = logdetect.strength(text, deps.keywords)
    shared = files.message_files(event)
    place = f"{channel}:{thread_ts or 'top'}:{user or 'nobody'}"
    if shared:
        if user and not thread_ts and not mentioned:
            # Noted before the file is read (files.info, the download): a question its sender
            # sends at once ("what now?") waits for this message's answer (`_about_recent_log`).
            store.bursts.note_answer(team, place, ts, noted_s=_noted_s())
        logs, notes, unread = classify(deps, client, shared)
        pasted = logdetect.clean(text) if strength else None
        documents = [u.note for u in unread if not u.media]
        if logs or notes or (pasted and documents):
            # A log file, a file that may be one, or a pasted log: diagnosed, with a word on the
            # files not read (screenshots beside a log go unsaid).
            answer_at, before = _announced(deps, where, place, mentioned) if logs or notes else (where, None)
            if before:
                pasted = f"{before}\n{pasted}" if pasted else before
            replier = SlackReplier(client, answer_at)
            diagnose(store, replier, where.place, read_message(deps, client, replier, pasted, logs, notes + documents))
            return
        if unread and not pasted and (not own_text(event).strip() or mentioned or _direct(event)):
            # Only screenshots or documents, sent alone or to the bot: what they are and what
            # it reads instead. Beside talk in a channel they are people's, like the talk.
            tell(client, where, ui.not_a_log_message([u.said for u in unread], [u.what for u in unread if not u.closed]))
            return None
        # Only images beside a pasted log, or files beside talk: the text decides, as without files.
    # A part of a pasted log: a log itself, or any text by the same person while a burst of
    # theirs is open (a mention of the bot is a message to it, not a part).
    if strength == "strong" or (text.strip() and user and not mentioned and store.bursts.is_open(team, place)):
        return paste(deps, client, where, place, logdetect.clean(text), strong=strength == "strong",
                     direct=_direct(event))
    if strength is None and user and not thread_ts and (mentioned or _asks(text)):
        # "what now?" (or a mention of the bot) from who sent a log (a file, or pasted) here a
        # moment ago: asked about its diagnosis, answered in its thread (not help, not nothing).
        recent = store.bursts.recent_answer(team, place)
        if recent and _earlier(recent, ts):
            return _about_recent_log(deps, client, event, where, place, mentioned, text, recent)
    if strength is None and user and not mentioned and _direct(event) and store.bursts.after_upload(team, place):
        # "here is the log from last night:" in the bot's DM, read after the log file it
        # announced was answered: that answer is its answer, not help.
        return None
    in_thread = bool(thread_ts) and thread_ts != ts
    ctx = store.threads.load(team, channel, thread_ts) if in_thread else None
    if ctx is None and in_thread and store.claims.in_progress(team, f"message:{channel}:{thread_ts}"):
        # Asked in the thread of a log the bot is still answering ("which rank?" typed before
        # the diagnosis is out): answer once it is, from a timer thread, not a listener's.
        return lambda: _after_parent(deps, client, event, where, mentioned, text, strength)
    if (ctx is None and strength is None and user and not mentioned and not in_thread and _direct(event)
            and _ANNOUNCES_LOG.search(text)):
        # "here is the log from last night:" in the bot's DM: the log (pasted or a file) is
        # on its way; wait for it as for a part, so the words and the log get one answer.
        return paste(deps, client, where, place, logdetect.clean(text), strong=False, direct=True, announce=True)
    if ctx is None and strength == "weak" and user and not mentioned:
        # Chatter that names an error opens a burst too: it may be the last part of a log whose
        # first parts are still being read by other listeners (Slack delivers them at once, and
        # a closing part often holds no stack trace), or the sentence before a pasted log or a
        # log file. In a DM too, where it is then answered (not quiet) if nothing follows.
        return paste(deps, client, where, place, logdetect.clean(text), strong=False, direct=_direct(event))
    _reply(deps, client, event, where, mentioned, text, strength, ctx)
    return None


# `show <id>` typed in a diagnosis thread, where Slack refuses slash commands ("/denpex is
# not supported in threads"): as text, with or without the command's name, or to the bot; or
# asked of the bot in a mention or its DM.
_SHOW_TYPED = regex.compile(r"(?:/?denpex\s+)?show:?\s+(?P<id>\S+)", regex.IGNORECASE)


def _entry_asked(deps: BotDeps, text: str) -> tuple[str, list[dict[str, Any]]] | None:
    """The entry a message asks for by id (`show cuda-oom-fragmentation`, an id the diagnosis
    names among its related entries), as `/denpex show` gives it; None for anything else
    ("show me the lines" is a question for the follow-up)."""
    asked = _SHOW_TYPED.fullmatch(logdetect.clean(text).strip())
    rule = deps.denpex.entry(asked.group("id").strip(ID_WRAPPING)) if asked else None
    if rule is None:
        return None
    return ui.entry_message(rule, [r for rid in rule.related if (r := deps.denpex.entry(rid))], full=False)


# `help` or `quota` typed in a diagnosis thread, where Slack refuses `/denpex` ("not supported
# in threads"): alone, with the command's name, or wrapped as in the help's mrkdwn
# (`` `quota` ``, `help?`). The other subcommands change something or show a secret (a code,
# an ingest token) and are not run from a thread's text: their sender is told where to type them.
_COMMAND_TYPED = regex.compile(r"(?:/?denpex:?\s+)?(?P<word>help|quota)", regex.IGNORECASE)
_COMMAND_ELSEWHERE = regex.compile(r"/?denpex:?\s+(?P<word>redeem|alerts)\b.*", regex.IGNORECASE | regex.DOTALL)


def _command_asked(deps: BotDeps, where: Where, text: str) -> tuple[str, list[dict[str, Any]]] | None:
    """What `/denpex help` or `/denpex quota` would answer, for the same words typed as a
    message (in a thread, or to the bot); where to run `/denpex redeem` or `/denpex alerts`
    when typed so; None for anything else."""
    typed = logdetect.clean(text).strip().strip(WORD_WRAPPING + " ")
    asked = _COMMAND_TYPED.fullmatch(typed)
    if asked and asked.group("word").lower() == "help":
        return ui.help_message()
    if asked:
        return quota_answer(deps, where.team_id)
    elsewhere = _COMMAND_ELSEWHERE.fullmatch(typed)
    if elsewhere:
        word = elsewhere.group("word").lower()
        said = (f"Slack runs `/denpex {word}` only from the message box of a channel or of a DM with Denpex, not in a "
                f"thread or as text: type it there{' (in the DM, the code stays private)' if word == 'redeem' else ''}.")
        return said, [ui.section(said)]
    return None


def _asks(text: str) -> bool:
    """Words that ask something ("what now?", "any idea?", a lone "?"), not addressed to a colleague."""
    return "?" in logdetect.clean(text) and not between_people(text)


def _about_recent_log(deps: BotDeps, client: WebClient, event: dict[str, Any], where: Where, place: str,
                      mentioned: bool, text: str, thread: str) -> Callable[[], None] | None:
    """A question sent just after a log, outside its thread: a follow-up in the thread the log
    is (being) answered in. Until that answer is out, waited for, as a question asked in the
    thread before the diagnosis is (`_after_parent`)."""
    store, team, channel = deps.store, where.team_id, where.channel
    ctx = store.threads.load(team, channel, thread)
    if ctx is None and store.claims.in_progress(team, f"message:{channel}:{thread}"):
        def later() -> None:
            _wait_for_answer(deps, team, channel, thread)
            # A log file that took the words sent before it is answered in their thread.
            there = store.bursts.recent_answer(team, place) or thread
            _reply(deps, client, event, where, mentioned, text, None, store.threads.load(team, channel, there),
                   there=replace(where, thread_ts=there))
        return later
    _reply(deps, client, event, where, mentioned, text, None, ctx, there=replace(where, thread_ts=thread))
    return None


def _earlier(ts: str, than: str) -> bool:
    """Was the message at `ts` sent before the one at `than`? (Slack's stamps; False for a
    stamp that is not one, as a malformed event may carry.)"""
    try:
        return float(ts) < float(than)
    except ValueError:
        return False


def _noted_s() -> float:
    """How long a log's answer is noted for its place: the words sent with it (read in any
    order) and a question sent just after it are read against it."""
    return 2 * paste_window() + 5


def _announced(deps: BotDeps, where: Where, place: str, mentioned: bool) -> tuple[Where, str | None]:
    """Where to answer a log file, and what its sender pasted just before it, if they did:
    words announcing it ("rank 3 died with CUDA OOM again, log attached") or an excerpt of the
    same log, whose burst is still open. The file takes that burst (so it is not answered as
    well), is read with the pasted log, and answered in the burst's first thread, as a log
    pasted after such words is; else the file's own message, alone."""
    if not where.user or mentioned:
        return where, None
    taken = deps.store.bursts.take(where.team_id, place, where.ts, noted_s=_noted_s(),
                                   upload_thread=where.thread_ts)
    if not taken:
        return where, None
    log.info("a log file in team=%s channel=%s answers the %d message(s) before it", where.team_id, where.channel,
             len(taken))
    head = taken[0]
    logs = _part_texts(where, taken, strong_only=True)
    return replace(where, ts=head.ts, thread_ts=head.thread_ts), ("\n".join(logs) or None)


def _part_texts(where: Where, parts: list[Part], *, strong_only: bool = False) -> list[str]:
    """Each part's text: this process's own copy of it, else its masked copy renumbered (_apart)."""
    return [_take_local((where.team_id, where.channel, p.ts), p.edited) or _apart(p.text, i + 1)
            for i, p in enumerate(parts) if p.strong or not strong_only]


def _wait_for_answer(deps: BotDeps, team: str, channel: str, ts: str) -> None:
    """Wait (bounded) until the message at `ts` is answered (its claim done)."""
    deadline = time.monotonic() + PARENT_WAIT_S
    while deps.store.claims.in_progress(team, f"message:{channel}:{ts}") and time.monotonic() < deadline:
        time.sleep(PARENT_POLL_S)


def _after_parent(deps: BotDeps, client: WebClient, event: dict[str, Any], where: Where, mentioned: bool,
                  text: str, strength: str | None) -> None:
    """Wait until the thread's first message is answered, then act on this reply with the
    thread's context as that answer left it."""
    team, channel, thread_ts = where.team_id, where.channel, where.thread_ts
    _wait_for_answer(deps, team, channel, thread_ts)
    _reply(deps, client, event, where, mentioned, text, strength, deps.store.threads.load(team, channel, thread_ts))


def _reply(deps: BotDeps, client: WebClient, event: dict[str, Any], where: Where, mentioned: bool, text: str,
           strength: str | None, ctx: ThreadContext | None, there: Where | None = None) -> None:
    """A message that is no part of a pasted log: a follow-up in a diagnosis thread (`there`,
    when that is not the message's own), a log to diagnose at once, a mention or a DM to
    help, or nothing."""
    store = deps.store
    if ctx is not None:
        if mentioned or not between_people(text):
            entry = _entry_asked(deps, text) or _command_asked(deps, there or where, text)
            if entry is not None:
                tell(client, there or where, entry)
                return
            follow_up(deps, client, there or where, logdetect.clean(text), ctx)
        return
    if strength is not None:
        quiet = not mentioned and not _direct(event)
        clean = logdetect.clean(text)
        diagnose(store, SlackReplier(client, where), where.place, lambda: deps.denpex.diagnose_text(clean), quiet=quiet)
        return
    thread_ts = event.get("thread_ts")
    in_thread = bool(thread_ts) and thread_ts != event.get("ts")
    if (in_thread and (mentioned or _direct(event) or not between_people(text))
            and store.threads.expired(where.team_id, where.channel, thread_ts)):
        # A question in a diagnosis thread past its context: say so, not help as to a stranger.
        # `help` or `quota` typed there needs no diagnosis: the command's answer.
        tell(client, where, _command_asked(deps, where, text) or ui.thread_expired_message(store.config.thread_ttl_s))
        return
    if mentioned or _direct(event):
        # `@denpex show cuda-oom`, or `show cuda-oom` in its DM: the entry, not the help.
        tell(client, where, _entry_asked(deps, text) or _command_asked(deps, where, text) or ui.help_message())


def register(app: App, deps: BotDeps) -> None:
    def on_message(body: dict[str, Any], event: dict[str, Any], client: WebClient, context: Any) -> None:
        # Whatever this event decides (another bot's upload gets nothing), the upload's
        # `file_shared` leaves it to this event (bot.slack.listeners.uploads).
        mark_files(deps, context["workspace_id"], event)
        if event.get("subtype") == "message_deleted":
            _note_deleted(deps, context["workspace_id"], event)
            return
        if event.get("subtype") == "message_changed":
            _note_edit(deps, context["workspace_id"], event, context.get("bot_user_id"))
            return
        if event.get("bot_id") or event.get("subtype") not in _HANDLED_SUBTYPES:
            return
        user = event.get("user")
        bot_user_id = context.get("bot_user_id")
        if not user or user in (bot_user_id, SLACKBOT):
            return
        # A mention arrives as this event and as an app_mention: the first to claim the
        # message answers it. This one says whether the channel is public; the other cannot.
        mentioned = logdetect.mentions(own_text(event), bot_user_id)
        handle_message(deps, client, context["workspace_id"], event, bot_user_id, mentioned=mentioned)

    def on_mention(body: dict[str, Any], event: dict[str, Any], client: WebClient, context: Any) -> None:
        mark_files(deps, context["workspace_id"], event)
        if event.get("bot_id") or not event.get("user") or event.get("user") == SLACKBOT:
            return
        if event.get("edited"):
            # Slack sends a mention again when its message is edited (a new event id, the
            # message's own ts): an edit gets nothing, as a `message_changed` does; past the
            # claim's hour it would be a second diagnosis and a second charge.
            return
        if not event.get("channel_type"):
            # An app_mention carries no channel_type, so it would count a public channel's
            # diagnosis as private: let the message event of the same message, which says,
            # claim it first; this one answers only a mention that comes alone (an invite).
            time.sleep(MENTION_GRACE_S)
        handle_message(deps, client, context["workspace_id"], event, context.get("bot_user_id"), mentioned=True)

    app.event("message")(ack=_ack, lazy=[on_message])
    app.event("app_mention")(ack=_ack, lazy=[on_mention])
