"""Sixth audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP (or Socket Mode) against the recording stand-in
and a real Redis.

Slack's shapes used here, from its reference pages: a Socket Mode client must acknowledge every
envelope by its `envelope_id` or Slack re-delivers it; `disconnect` with reason
`refresh_requested` asks the client to reconnect; a file object may be a `tombstone` (deleted),
`external` (`is_external`, a Google Drive file), or carry `file_access: access_denied` (Slack
Connect) with no URLs; Web API errors `restricted_action` (a channel where only admins post),
`account_inactive` and `token_revoked`; an Events API payload's JSON escapes `/` as `\\/`."""

from __future__ import annotations

import gzip
import json
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.slack.conftest import ROOT, Bot, slack_redis_url, start_bot, stop_bot, wait_handled
from tests.slack.events import CHANNEL, OOM_PASTE, all_text, message, used
from tests.slack.fake_slack import TEAM_ID, FakeFile, FakeSlack
from tests.slack.fake_socket import FakeSocketMode

SAMPLE_TEXT = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()


def replies(fake: FakeSlack) -> list:
    return fake.of("chat.postMessage")


def no_traceback(bot: Bot) -> None:
    log = Path(bot.log_path).read_text(errors="replace")  # type: ignore[attr-defined]
    assert "Traceback" not in log, log[log.find("Traceback") - 300:][:3000]


def upload(bot: Bot, fake: FakeSlack, name: str, content: bytes, ts: str, **kw) -> list:
    f = fake.add_file(FakeFile(id="F0" + uuid.uuid4().hex[:8].upper(), name=name, content=content, **kw))
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    return replies(fake)


# --- pastes with line and paragraph separators, zero-width characters ----------------------------

@pytest.mark.parametrize("sep", ["\u2028", "\u2029"], ids=["line-separator", "paragraph-separator"])
def test_a_log_pasted_with_unicode_line_separators_is_diagnosed(bot: Bot, fake_slack, sep):
    """A log copied out of a rich-text editor (Word, Notes, a web page's contenteditable) can
    hold U+2028/U+2029 where the log had line breaks: diagnosed as the log it was, and no such
    separator in what the bot posts (Slack clients show it as an invisible or broken glyph, and
    it breaks a code block's lines)."""
    ts = "1700600000.000100"
    bot.event(message(SAMPLE_TEXT.replace("\n", sep), ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and used(bot) == 1
    assert sep not in json.dumps(post.params, ensure_ascii=False)


@pytest.mark.parametrize("sep", ["\u2028", "\u2029"], ids=["line-separator", "paragraph-separator"])
def test_an_uploaded_log_with_unicode_line_separators_is_diagnosed(bot: Bot, fake_slack, sep):
    """The same log saved to a file and uploaded: diagnosed, and no separator posted back."""
    (post,) = upload(bot, fake_slack, "train.log", SAMPLE_TEXT.replace("\n", sep).encode(), "1700600002.000100")
    assert "cuda-oom" in all_text(post) and used(bot) == 1
    assert sep not in json.dumps(post.params, ensure_ascii=False)


def test_a_log_pasted_with_separators_inside_a_code_block_is_diagnosed(bot: Bot, fake_slack):
    """The same inside a code block, mixed with ordinary line breaks (a few lines retyped)."""
    text = "```" + OOM_PASTE.replace("\n", "\u2028", 2) + "```"
    ts = "1700600001.000100"
    bot.event(message(text, ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post)
    assert "\u2028" not in json.dumps(post.params, ensure_ascii=False)


@pytest.mark.parametrize("junk", ["\ufeff", "\u200b", "\u2060"], ids=["bom", "zero-width-space", "word-joiner"])
def test_a_paste_with_zero_width_characters_is_diagnosed(bot: Bot, fake_slack, junk):
    """A byte-order mark at the start (a log copied from a file an editor saved with one) and
    zero-width spaces or word joiners a web page put between words to let them wrap: the log is
    diagnosed, and none of them is echoed back."""
    ts = "1700600010.000100"
    text = junk + OOM_PASTE.replace(" ", junk + " ")
    bot.event(message(text, ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post), all_text(post)[:300]
    assert junk not in json.dumps(post.params, ensure_ascii=False)


def test_an_event_with_slacks_json_escaping_and_a_charset_is_read(bot: Bot, fake_slack):
    """Slack's JSON escapes `/` as `\\/` and may escape non-ASCII as `\\uXXXX`; the content type
    may carry `; charset=utf-8`. The paste is read as it was typed."""
    ts = "1700600020.000100"
    body = {"token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "type": "event_callback",
            "event_id": "EvJSONESC01", "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM_ID, "user_id": "UBOT0001", "is_bot": True}],
            "event": message(OOM_PASTE.replace("train.py", "/home/ünï/train.py"), ts)}
    raw = json.dumps(body, ensure_ascii=True).replace("/", "\\/").encode()
    assert b"\\/home\\/\\u00fcn" in raw
    assert bot.post(raw, "application/json; charset=utf-8").status == 200
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post)
    assert "\\/" not in all_text(post)


def test_an_event_without_authorizations_is_answered(bot: Bot, fake_slack):
    """An older payload shape (and some Enterprise deliveries) carries no `authorizations`:
    the envelope's `team_id` names the workspace; the log is diagnosed and charged there."""
    ts = "1700600030.000100"
    body = {"token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "type": "event_callback",
            "event_id": "EvNOAUTHZ01", "event_time": int(time.time()), "event": message(OOM_PASTE, ts)}
    assert bot.post(json.dumps(body).encode(), "application/json").status == 200
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and used(bot) == 1


@pytest.mark.parametrize("fields", [{"text": None}, {"text": None, "blocks": None}, {"text": 42}, {"user": None}],
                         ids=["text-null", "text-and-blocks-null", "text-a-number", "user-null"])
def test_a_message_with_null_or_odd_fields_is_acked_and_ignored(bot: Bot, fake_slack, fields):
    """A message whose `text` is null or not a string, or with no user (a workflow's post): 200,
    nothing posted, nothing charged, no traceback; the next log is answered."""
    ts = "1700600040.000100"
    assert bot.event({**message("x", ts), **fields}).status == 200
    ts2 = "1700600041.000100"
    bot.event(message(OOM_PASTE, ts2))
    wait_handled(bot, ts2)
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == ts2 and used(bot) == 1
    no_traceback(bot)


# --- uploads: progress bars, NUL runs, archives, odd file objects --------------------------------

def test_a_log_with_progress_bar_carriage_returns_is_diagnosed_without_them(bot: Bot, fake_slack):
    """tqdm redraws its bar with `\\r` and no newline, so a training log saved to a file holds
    lines made of hundreds of redraws, the last one followed by the traceback's first line on
    the same line. Diagnosed, and no `\\r` or bar redraw pile-up in what is posted."""
    bars = "".join(f"\rEpoch 1:  {i:3d}%|{'#' * (i // 10):<10}| {i}/100 [00:{i:02d}<00:00, 3.1it/s]" for i in range(101))
    content = ("Loading checkpoint shards: 100%\n" + bars + "\n" + SAMPLE_TEXT).encode()
    (post,) = upload(bot, fake_slack, "train.log", content, "1700600100.000100")
    assert "cuda-oom" in all_text(post) and used(bot) == 1
    assert "\r" not in json.dumps(post.params)


def test_a_log_with_a_run_of_nul_bytes_is_diagnosed(bot: Bot, fake_slack):
    """A log on a network file system after its node crashed ends in a run of NUL bytes (the
    file's length was extended, its last blocks never written), or holds one where a restarted
    job appended: still a log, diagnosed, not refused as binary."""
    content = SAMPLE_TEXT.encode() + b"\x00" * 65536 + b"\n[restarted]\n" + SAMPLE_TEXT.encode()[:2000]
    (post,) = upload(bot, fake_slack, "train.log", content, "1700600110.000100")
    assert "cuda-oom" in all_text(post), all_text(post)[:400]
    assert used(bot) == 1 and "\\u0000" not in json.dumps(post.params)


@pytest.mark.parametrize(("name", "magic"), [("logs.tar.zst", b"\x28\xb5\x2f\xfd"), ("logs.7z", b"7z\xbc\xaf\x27\x1c"),
                                             ("train.log.lz4", b"\x04\x22\x4d\x18")],
                         ids=["zstd", "7z", "lz4"])
def test_a_compressed_log_in_a_format_not_read_gets_a_clear_word(bot: Bot, fake_slack, name, magic):
    """A damaged zstd file, a 7-Zip archive, an LZ4 frame (what `tar --zstd` and log shippers
    make): one reply saying why the file could not be read, nothing charged, no traceback."""
    (post,) = upload(bot, fake_slack, name, magic + bytes(range(256)) * 40, "1700600120.000100",
                     filetype="binary", mimetype="application/octet-stream")
    words = all_text(post).lower()
    assert "cuda-oom" not in words and used(bot) == 0
    assert "could not read" in words and any(w in words for w in ("corrupt", "archive", "binary")), words[:400]
    no_traceback(bot)


@pytest.mark.parametrize("kind", ["tombstone", "access-denied", "google-drive"])
def test_a_file_the_bot_cannot_read_is_never_fetched_with_the_token(bot: Bot, fake_slack, kind):
    """A file deleted before the bot read it (a tombstone in the event, `file_deleted` from
    files.info), one of a Slack Connect partner the app may not see (`file_access:
    access_denied`, no URLs), a Google Drive file linked in (`mode: external`, its URL
    Google's): nothing downloaded, the token sent nowhere but the Web API, one clear word in
    the thread, nothing charged, no traceback."""
    if kind == "tombstone":
        obj = {"id": "F0TOMB0001", "mode": "tombstone"}
        fake_slack.fail("files.info", 200, times=5, body={"ok": False, "error": "file_deleted"})
    elif kind == "access-denied":
        obj = {"id": "F0DENIED01", "file_access": "access_denied"}
        fake_slack.fail("files.info", 200, times=5, body={"ok": False, "error": "file_not_found"})
    else:
        obj = fake_slack.add_file(FakeFile(id="F0EXTERN01", name="train.log", content=b"", mode="external",
                                           declared_size=1000, download_url="https://docs.google.com/document/d/1abc/export"))
    ts = "1700600130.000100"
    assert bot.event(message("", ts, subtype="file_share", files=[obj])).status == 200
    wait_handled(bot, ts)
    assert used(bot) == 0 and fake_slack.of("files.download") == []
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == ts and "cuda-oom" not in all_text(post)
    no_traceback(bot)


def test_gzip_of_a_gzip_is_read(bot: Bot, fake_slack):
    """A log gzipped twice (a shipper compressed an already `.gz` file): inflated twice within
    the inflated-size cap and diagnosed, not called a binary file for the inner gzip header."""
    content = gzip.compress(gzip.compress(SAMPLE_TEXT.encode()))
    (post,) = upload(bot, fake_slack, "train.log.gz.gz", content, "1700600140.000100")
    assert "cuda-oom" in all_text(post), all_text(post)[:300]
    no_traceback(bot)


# --- Slack Web API answers ---------------------------------------------------------------------

@pytest.mark.parametrize("error", ["restricted_action", "account_inactive", "token_revoked", "channel_not_found",
                                   # thirteenth audit (248): auth and channel refusals
                                   "invalid_auth", "not_authed", "team_access_not_granted", "missing_scope",
                                   "no_permission", "ekm_access_denied", "is_archived", "not_in_channel"])
def test_a_post_refused_for_good_charges_nothing_and_is_not_retried(bot: Bot, fake_slack, error):
    """chat.postMessage answering an error no retry cures (a channel where only admins may post,
    a deactivated bot user, a revoked token, a channel gone): one attempt, nothing charged, no
    traceback, and the bot answers the next log."""
    fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": error})
    ts = "1700600200.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    assert len(replies(fake_slack)) == 1 and used(bot) == 0
    ts2 = "1700600201.000100"
    bot.event(message(SAMPLE_TEXT, ts2, channel="C0OTHER"))
    wait_handled(bot, ts2, channel="C0OTHER")
    assert replies(fake_slack)[-1].params["thread_ts"] == ts2 and used(bot) == 1
    no_traceback(bot)


def test_a_post_answered_with_an_html_page_lands_once(bot: Bot, fake_slack):
    """A proxy in front of Slack answering chat.postMessage with a 502 HTML page: the post is
    of unknown outcome like any 5xx; it lands once (looked for, then re-posted)."""
    fake_slack.fail("chat.postMessage", 502, body=None)
    ts = "1700600210.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    landed = [c for c in fake_slack.messages if c["thread_ts"] == ts]
    assert len(landed) == 1 and used(bot) == 1


@pytest.mark.parametrize("error", ["already_reacted", "too_many_reactions", "missing_scope", "no_reaction"])
def test_reaction_errors_never_cost_the_reply(bot: Bot, fake_slack, error):
    """reactions.add/remove refused (already there, the message's reaction limit, a scope the
    admin removed): the diagnosis is posted and charged once all the same."""
    fake_slack.fail("reactions.add", 200, times=3, body={"ok": False, "error": error})
    fake_slack.fail("reactions.remove", 200, times=3, body={"ok": False, "error": error})
    ts = "1700600220.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and used(bot) == 1
    no_traceback(bot)


def test_a_home_tab_slack_refuses_does_not_break_the_next(bot: Bot, fake_slack):
    """views.publish refused (`not_enabled`: the Home tab is off in the app's config, or
    `invalid_blocks`): no traceback, and the next open publishes."""
    fake_slack.fail("views.publish", 200, body={"ok": False, "error": "not_enabled"})
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"})
    fake_slack.wait_for("views.publish")
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"})
    fake_slack.wait_for("views.publish", count=2)
    no_traceback(bot)


# --- slash commands and clicks -------------------------------------------------------------------

def test_a_slash_command_with_invalid_utf8_percent_escapes_is_answered(bot: Bot):
    """`text=%FF%FE...`: a form body that is ASCII (so signed fine) but decodes to invalid
    UTF-8. Answered 200 ephemerally, no traceback."""
    body = Bot.command_body("lookup x").replace(b"text=lookup+x", b"text=lookup+%FF%FEout+of+memory%C3")
    assert b"%FF%FE" in body
    reply = bot.post(body, "application/x-www-form-urlencoded")
    assert reply.status == 200, reply.body[:200]
    assert reply.json().get("response_type") == "ephemeral"
    no_traceback(bot)


@pytest.mark.parametrize("text", ["\n\n", "\t", "\u00a0\u3000"], ids=["newlines", "tab", "unicode-spaces"])
def test_a_slash_command_of_only_whitespace_gets_help(bot: Bot, text):
    """`/denpex` followed by only blank characters is the bare command: help, ephemerally."""
    reply = bot.command(text)
    assert reply.status == 200
    words = reply.json()["text"] + json.dumps(reply.json().get("blocks") or [])
    assert "/denpex" in words and reply.json().get("response_type") == "ephemeral"


def click(bot: Bot, action: dict, container: dict, **extra) -> int:
    payload = {"type": "block_actions", "team": {"id": TEAM_ID, "domain": "test"}, "api_app_id": "A0DENPEX",
               "user": {"id": "U0ALICE", "team_id": TEAM_ID}, "trigger_id": f"{time.time_ns()}.1.2",
               "container": container, "actions": [action], **extra}
    return bot.post(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(),
                    "application/x-www-form-urlencoded").status


def test_a_click_on_our_button_without_a_value_is_acked(bot: Bot, fake_slack):
    """A click whose action carries no `value` (an old message's button, a select of ours that
    sends `selected_option` instead): 200, nothing posted, no traceback."""
    container = {"type": "message", "message_ts": "1700600300.000100", "channel_id": CHANNEL, "is_ephemeral": False}
    for action_id in ("denpex_full_entry", "denpex_related_0", "denpex_feedback_right", "denpex_followup_0"):
        action = {"action_id": action_id, "block_id": "b", "type": "static_select", "action_ts": "1.2",
                  "selected_option": {"value": "cuda-oom", "text": {"type": "plain_text", "text": "x"}}}
        assert click(bot, action, container, channel={"id": CHANNEL}) == 200
    time.sleep(1.0)  # the clicks' lazy work: nothing to wait on when it posts nothing
    assert replies(fake_slack) == []
    no_traceback(bot)


def test_a_button_clicked_on_the_home_tab_is_acked_without_a_channel(bot: Bot, fake_slack):
    """A click in a view (the Home tab: `container.type` view, no channel, no message): 200
    and no traceback, whatever our action id."""
    container = {"type": "view", "view_id": "V0HOME"}
    action = {"action_id": "denpex_full_entry", "block_id": "b", "type": "button", "value": "cuda-oom", "action_ts": "1.2"}
    assert click(bot, action, container, view={"id": "V0HOME", "type": "home", "callback_id": ""}) == 200
    time.sleep(1.0)
    assert replies(fake_slack) == []
    no_traceback(bot)


# --- Redis refusing writes ---------------------------------------------------------------------

@pytest.fixture
def private_redis_bot(fake_slack, tmp_path) -> Iterator[tuple[Bot, object]]:
    from tests.store.conftest import PrivateRedis

    server = PrivateRedis(tmp_path)
    server.start()
    fake_slack.reset()
    bot = start_bot(fake_slack, server.url)
    try:
        yield bot, server
    finally:
        stop_bot(bot)
        server.stop()


@pytest.mark.parametrize("how", ["maxmemory", "readonly"])
def test_a_redis_that_refuses_writes_is_an_outage_not_a_crash(private_redis_bot, fake_slack, how):
    """Redis answering every write with an error while connected: at `maxmemory` with the
    `noeviction` policy (`OOM command not allowed`), or a replica after a failover the bot's
    address still points at (`READONLY You can't write against a read only replica`). A log
    is acked inside 3 s and answered with the outage notice, as when Redis is down; no
    traceback; once Redis takes writes again, the next log is diagnosed."""
    bot, server = private_redis_bot
    with redis.Redis.from_url(server.url) as r:
        if how == "maxmemory":
            r.config_set("maxmemory-policy", "noeviction")
            r.set("ballast", "x" * 2_000_000)
            r.config_set("maxmemory", "1000000")
        else:
            r.execute_command("REPLICAOF", "127.0.0.1", "1")
        ts = "1700600400.000100"
        started = time.monotonic()
        assert bot.event(message(SAMPLE_TEXT, ts)).status == 200
        assert time.monotonic() - started < 3
        (notice,) = fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=20)
        assert "temporarily unavailable" in all_text(notice), all_text(notice)[:300]
        no_traceback(bot)
        if how == "maxmemory":
            r.config_set("maxmemory", "0")
        else:
            r.execute_command("REPLICAOF", "NO", "ONE")
    ts2 = "1700600401.000100"
    bot.event(message(SAMPLE_TEXT, ts2))
    post = fake_slack.wait_for("chat.postMessage", thread_ts=ts2, timeout=20)[0]
    assert "cuda-oom" in all_text(post)


# --- Socket Mode: acknowledge what is refused, reconnect when asked --------------------------------

@pytest.fixture
def socket_bot(fake_slack) -> Iterator[tuple[object, FakeSocketMode]]:
    from tests.slack.test_socket_mode import SocketBot

    ws = FakeSocketMode()
    fake_slack.socket_url = ws.url
    fake_slack.reset()
    url = slack_redis_url()
    redis.Redis.from_url(url).flushdb()
    bot = SocketBot(fake_slack, url)
    try:
        yield bot, ws
    finally:
        bot.stop()
        fake_slack.socket_url = None
        ws.stop()
        redis.Redis.from_url(url).flushdb()


def _send(conn, kind: str, payload: dict, retry_attempt: int = 0) -> str:
    envelope_id = str(uuid.uuid4())
    conn.send_text(json.dumps({"envelope_id": envelope_id, "type": kind, "payload": payload,
                               "accepts_response_payload": kind != "events_api", "retry_attempt": retry_attempt,
                               "retry_reason": ""}))
    return envelope_id


def _callback(event: dict, team: str = TEAM_ID, event_id: str | None = None) -> dict:
    return {"token": "legacy", "team_id": team, "api_app_id": "A0DENPEX", "type": "event_callback",
            "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}", "event_time": int(time.time()),
            "authorizations": [{"team_id": team, "user_id": "UBOT0001", "is_bot": True}], "event": event}


REFUSED_OVER_SOCKET = [
    ("events_api", _callback(message("chatter", "1700600500.000100", team="not a team"), team="not a team")),
    ("events_api", _callback(message("chatter", "1700600500.000200"), event_id="Ev with spaces")),
    ("events_api", {"token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "type": "some_future_kind"}),
    ("interactive", {"type": "some_future_interaction", "team": {"id": TEAM_ID}, "user": {"id": "U0ALICE"}}),
]


def test_over_socket_mode_an_envelope_bolt_refuses_is_still_acknowledged(fake_slack, socket_bot):
    """What HTTP answers with a 4xx (an invalid workspace id, an event id no key can hold, a
    payload kind no listener takes) Bolt hands back as a non-200 result, which its Socket Mode
    adapter does not acknowledge: Slack re-delivers such an envelope (refused again) until it
    gives up. Each is acknowledged; nothing is posted; the next log is answered."""
    _, ws = socket_bot
    (conn,) = ws.wait_connections(1)
    for kind, payload in REFUSED_OVER_SOCKET:
        ws.wait_ack(_send(conn, kind, payload))
    ts = f"{time.time():.6f}"
    ws.wait_ack(_send(conn, "events_api", _callback(message(SAMPLE_TEXT, ts))))
    (post,) = fake_slack.wait_for("chat.postMessage", timeout=20)
    assert post.params["thread_ts"] == ts and "cuda-oom" in all_text(post)


def test_over_socket_mode_a_refresh_request_reconnects_and_the_bot_answers_on(fake_slack, socket_bot):
    """Slack asks a client to reconnect (`{"type": "disconnect", "reason": "refresh_requested"}`)
    before it closes a connection: the bot opens a new one through apps.connections.open and
    answers the next log sent on it."""
    bot, ws = socket_bot
    (conn,) = ws.wait_connections(1)
    opened = len(fake_slack.of("apps.connections.open"))
    conn.send_text(json.dumps({"type": "disconnect", "reason": "refresh_requested",
                               "debug_info": {"host": "applink-1"}}))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        fresh = [c for c in ws.live() if c is not conn]
        if fresh:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the bot did not reconnect when asked")
    assert len(fake_slack.of("apps.connections.open")) > opened
    conn.drop()  # Slack closes the old connection
    ts = f"{time.time():.6f}"
    ws.wait_ack(_send(fresh[0], "events_api", _callback(message(SAMPLE_TEXT, ts))))
    post = fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=20)[0]
    assert "cuda-oom" in all_text(post)
    assert bot.proc.poll() is None


# --- HTTP transport: chunked bodies, kept-alive connections --------------------------------------

def _raw_post(conn, bot: Bot, body: bytes, ctype: str, chunked: bool = False, signed: bool = True) -> tuple[int, bytes]:
    from tests.slack.conftest import sign

    headers = {"Content-Type": ctype, **(sign(body) if signed else {})}
    if chunked:
        headers["Transfer-Encoding"] = "chunked"
        conn.request("POST", "/slack/events", body=iter([body[: len(body) // 2], body[len(body) // 2 :]]),
                     headers=headers, encode_chunked=True)
    else:
        conn.request("POST", "/slack/events", body=body, headers=headers)
    r = conn.getresponse()
    return r.status, r.read()


def _event_body(event: dict, event_id: str) -> bytes:
    return json.dumps({"token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "type": "event_callback",
                       "event_id": event_id, "event_time": int(time.time()),
                       "authorizations": [{"team_id": TEAM_ID, "user_id": "UBOT0001", "is_bot": True}],
                       "event": event}).encode()


def test_a_signed_event_sent_chunked_is_answered(bot: Bot, fake_slack):
    """A proxy or load balancer in front of the bot may forward Slack's request with
    `Transfer-Encoding: chunked` and no Content-Length: the signed body is read whole,
    verified and answered, not refused as empty."""
    import http.client

    ts = "1700600600.000100"
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(bot.url).netloc, timeout=10)
    try:
        status, body = _raw_post(conn, bot, _event_body(message(OOM_PASTE, ts), "EvCHUNKED01"), "application/json",
                                 chunked=True)
    finally:
        conn.close()
    assert status == 200, body[:200]
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post)


def test_requests_on_one_kept_alive_connection_are_each_answered(bot: Bot, fake_slack):
    """Slack keeps its connection to an app open between requests: an event, a refused forgery,
    a malformed body and a slash command in a row on one connection each get their own answer,
    and the log is diagnosed once."""
    import http.client

    ts = "1700600610.000100"
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(bot.url).netloc, timeout=10)
    try:
        assert _raw_post(conn, bot, _event_body(message(OOM_PASTE, ts), "EvKEEP0001"), "application/json")[0] == 200
        assert _raw_post(conn, bot, b'{"type": "event_callback"}', "application/json", signed=False)[0] == 401
        assert _raw_post(conn, bot, b'{"type": ', "application/json")[0] == 400
        status, body = _raw_post(conn, bot, Bot.command_body("quota"), "application/x-www-form-urlencoded")
        assert status == 200 and json.loads(body)["response_type"] == "ephemeral"
    finally:
        conn.close()
    wait_handled(bot, ts)
    assert len(replies(fake_slack)) == 1


def test_a_paste_with_windows_line_ends_is_diagnosed_without_carriage_returns(bot: Bot, fake_slack):
    """A paste from a Windows terminal keeps `\\r\\n` in the event's text: diagnosed, no `\\r`
    in the evidence posted back."""
    ts = "1700600620.000100"
    bot.event(message(SAMPLE_TEXT.replace("\n", "\r\n"), ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and "\r" not in json.dumps(post.params)


# --- 429 on an ephemeral answer ------------------------------------------------------------------

def test_a_rate_limited_ephemeral_answer_to_a_click_lands_once(bot: Bot, fake_slack):
    """chat.postEphemeral (the thanks for a feedback vote) answered 429 with Retry-After: 1: sent
    again after the wait, shown once, the vote counted once."""
    fake_slack.fail("chat.postEphemeral", 429, retry_after=1)
    assert bot.action("denpex_feedback_right", "cuda-oom", thread_ts="1700600630.000100").status == 200
    calls = fake_slack.wait_for("chat.postEphemeral", count=2, timeout=15)
    assert calls[1].at - calls[0].at >= 0.9
    time.sleep(0.5)
    assert len(fake_slack.of("chat.postEphemeral")) == 2
    from tests.slack.test_bot import store_for

    rows = {r.rule_id: r for r in store_for(bot).feedback.summary()}
    assert rows["cuda-oom"].right == 1


# --- Redis down: the Home tab and a vote ---------------------------------------------------------

def test_with_redis_down_the_home_tab_and_a_vote_say_so(bot_without_redis, fake_slack):
    """Redis unreachable: opening the Home tab publishes a view that says the service is
    temporarily unavailable (not a stale or empty page, not a traceback); a feedback vote gets
    an ephemeral word that it was not recorded."""
    bot = bot_without_redis
    assert bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"}).status == 200
    (view,) = fake_slack.wait_for("views.publish", timeout=20)
    assert "temporarily unavailable" in json.dumps(view.params["view"])
    assert bot.action("denpex_feedback_right", "cuda-oom").status == 200
    (said,) = fake_slack.wait_for("chat.postEphemeral", timeout=20)
    assert "not recorded" in all_text(said)
    no_traceback(bot)


# --- OAuth: a cancelled install, a code that no longer works -------------------------------------

@pytest.fixture
def multi(fake_slack) -> Iterator[Bot]:
    """A multi-workspace bot (no token of its own; installs through OAuth), on a clean Redis."""
    from tests.slack import test_oauth as oa
    from tests.slack.conftest import fresh_state

    bot = start_bot(fake_slack, slack_redis_url(), {"SLACK_BOT_TOKEN": "", "SLACK_CLIENT_ID": oa.CLIENT_ID,
                                                    "SLACK_CLIENT_SECRET": oa.CLIENT_SECRET, "DENPEX_TOKEN_KEY": oa.TOKEN_KEY})
    try:
        with fresh_state(bot, fake_slack):
            yield bot
    finally:
        stop_bot(bot)


def test_an_install_the_admin_cancels_or_whose_code_fails_gets_a_page_not_a_crash(multi, fake_slack):
    """Slack sends the admin back with `error=access_denied` when they press Cancel, and a code
    used twice (a double click, a reload) is refused by oauth.v2.access (`invalid_code`): each
    gets a page saying the install did not happen and how to try again (no 5xx, no traceback),
    and nothing is installed."""
    from tests.slack import test_oauth as oa

    for query in ("error=access_denied", "code=spent-code"):
        state = oa.open_install_page(multi)
        page = oa.get(multi, f"/slack/oauth_redirect?{query}&state={state}", cookie=state)
        assert page.status < 500 and "/slack/install" in page.text, (page.status, page.text[:300])
    assert [c.params.get("code") for c in fake_slack.of("oauth.v2.access")] == ["spent-code"]
    with redis.Redis.from_url(multi.redis_url) as r:
        assert not [k for k in r.keys("*") if b"install" in k.lower() or b"token" in k.lower()]
    no_traceback(multi)


# --- a message with both a pasted log and a file ---------------------------------------------------

@pytest.mark.parametrize("text", [OOM_PASTE, "here is the log from last night's run, any idea?"],
                         ids=["log-in-text-too", "words-in-text"])
def test_a_message_with_a_log_file_and_text_is_one_reply_one_charge(bot: Bot, fake_slack, text):
    """An upload with a message typed beside it (the log's tail pasted as well, or a question):
    one diagnosis in the message's thread, charged once, the file read once."""
    f = fake_slack.add_file(FakeFile(id="F0BOTH0001", name="train.log", content=SAMPLE_TEXT.encode()))
    ts = "1700600700.000100"
    bot.event(message(text, ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == ts and "cuda-oom" in all_text(post)
    assert used(bot) == 1 and len(fake_slack.of("files.info")) == 1


# --- Socket Mode with Redis down: a slash command -----------------------------------------------

def test_over_socket_mode_with_redis_down_a_slash_command_is_answered_in_its_ack(fake_slack):
    """The ack of a slash command envelope carries its answer; with Redis unreachable that answer
    is the outage notice, ephemeral, inside Slack's 3 s, as over HTTP."""
    from tests.ports import free_port
    from tests.slack.test_socket_mode import SocketBot, command_body

    ws = FakeSocketMode()
    fake_slack.socket_url = ws.url
    fake_slack.reset()
    bot = SocketBot(fake_slack, f"redis://127.0.0.1:{free_port()}/0")
    try:
        (conn,) = ws.wait_connections(1)
        started = time.monotonic()
        # `quota` reads the store (a lookup reads only the rulebook and is answered anyway).
        answer = ws.wait_ack(ws.send_command(conn, command_body("quota")))
        assert time.monotonic() - started < 3
        assert answer is not None and answer.get("response_type") == "ephemeral"
        assert "temporarily unavailable" in answer["text"], answer
    finally:
        bot.stop()
        fake_slack.socket_url = None
        ws.stop()


# --- quotas: the evaluation ends mid-day ----------------------------------------------------------

def test_when_the_evaluation_ends_mid_day_the_free_limit_applies_at_once(bot: Bot, fake_slack):
    """A workspace on the scale plan that used more than the free plan's 3 diagnoses today, whose
    14 days end now: `/denpex quota` says free, and the next log gets the daily-limit word, not a
    diagnosis and not a charge."""
    from datetime import UTC, datetime, timedelta

    from tests.slack.test_bot import store_for

    # After the four runs' paste windows; on a whole second, as the store keeps it.
    ends = (datetime.now(UTC) + timedelta(seconds=9)).replace(microsecond=0)
    with store_for(bot) as store:
        store.plans.grant(TEAM_ID, "scale", ends)
    # (The limit as `of N`: the reset time's minutes may hold the same digits.)
    assert "of 50" in bot.command("quota").json()["text"]
    for i in range(4):  # four runs, four channels (one person's pastes in a row are one log)
        ts, channel = f"17006008{i:02d}.000100", f"C0RUN{i}"
        bot.event(message(SAMPLE_TEXT, ts, channel=channel))
        wait_handled(bot, ts, channel=channel)
    assert used(bot) == 4
    assert datetime.now(UTC) < ends, "the machine was too slow to run four diagnoses in 8 s"
    time.sleep((ends - datetime.now(UTC)).total_seconds() + 0.2)
    words = bot.command("quota").json()["text"]
    assert "*free*" in words and "of 3;" in words and "of 50" not in words, words
    ts = "1700600810.000100"
    bot.event(message(SAMPLE_TEXT, ts))
    wait_handled(bot, ts)
    last = [p for p in replies(fake_slack) if p.params["thread_ts"] == ts]
    assert len(last) == 1 and "cuda-oom" not in all_text(last[0]), all_text(last[0])[:300]
    assert used(bot) == 4


def test_a_paste_holding_nul_characters_is_diagnosed(bot: Bot, fake_slack):
    """JSON carries `\\u0000`, and a paste from a terminal that showed a NUL-padded field (a
    C string buffer, a fixed-width record) holds some: a paste is text whatever it holds, so it
    is diagnosed, never called a binary file; no NUL posted back."""
    ts = "1700600900.000100"
    text = "rank3 hostname: node7\u0000\u0000\u0000\n" + SAMPLE_TEXT.replace("Traceback", "\u0000Traceback", 1)
    bot.event(message(text, ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post), all_text(post)[:300]
    assert "\\u0000" not in json.dumps(post.params)


def test_over_socket_mode_a_clean_close_reconnects_and_the_bot_answers_on(fake_slack, socket_bot):
    """Slack closing a connection with a close frame (1001, going away: a deploy on its side)
    rather than dropping it: the bot opens a new one and answers the next log sent on it."""
    import struct

    bot, ws = socket_bot
    (conn,) = ws.wait_connections(1)
    conn.send_frame(0x8, struct.pack("!H", 1001))
    deadline = time.monotonic() + 20
    while not (fresh := [c for c in ws.live() if c is not conn]):
        assert time.monotonic() < deadline, "the bot did not reconnect after a close frame"
        time.sleep(0.05)
    ts = f"{time.time():.6f}"
    ws.wait_ack(_send(fresh[0], "events_api", _callback(message(SAMPLE_TEXT, ts))))
    assert "cuda-oom" in all_text(fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=20)[0])
    assert bot.proc.poll() is None


def test_terminal_hyperlinks_and_line_clears_in_an_upload_do_not_reach_slack(bot: Bot, fake_slack):
    """A log captured from a modern terminal (`script`, a CI runner with colours forced): rich's
    tracebacks wrap file names in OSC 8 hyperlinks (`ESC ] 8 ; ; file://... ESC \\`), progress
    bars clear their line with `ESC [2K` and hide the cursor with `ESC [?25l`. Diagnosed, and no
    escape, no `]8;;` remains and no user's home folder shows in the reply."""
    def link(target: str, shown: str) -> str:
        return f"\x1b]8;;{target}\x1b\\{shown}\x1b]8;;\x1b\\"

    docs = "https://pytorch.org/docs/stable/notes/cuda.html#environment-variables"
    lines = []
    for line in SAMPLE_TEXT.splitlines():
        line = line.replace('"/workspace/train.py"', '"' + link("file:///home/alice/workspace/train.py", "/workspace/train.py") + '"')
        line = line.replace(docs, link(docs, docs))
        lines.append("\x1b[?25l\x1b[2K" + line if "Error" in line else line)
    content = ("\n".join(lines) + "\n").encode()
    assert b"\x1b]8;;" in content
    (post,) = upload(bot, fake_slack, "train.log", content, "1700601000.000100")
    shown = json.dumps(post.params, ensure_ascii=False)
    assert "cuda-oom" in shown
    assert "\x1b" not in shown and "\\u001b" not in shown and "]8;;" not in shown and "[2K" not in shown, shown[:2000]
    assert "alice" not in shown


# --- Slack failing while the bot starts -----------------------------------------------------------

@pytest.mark.parametrize(("status", "retry_after"), [(503, None), (429, 1)], ids=["503", "429"])
def test_a_bot_starting_while_slack_fails_auth_test_comes_up_and_answers(fake_slack, status, retry_after):
    """The bot checks its token with auth.test as it starts; Slack answering that with a 503 or
    a 429 (a deploy in a Slack incident, many replicas starting at once) twice: the bot still
    comes up (no crash loop) and diagnoses the next log with its own identity known."""
    url = slack_redis_url()
    redis.Redis.from_url(url).flushdb()
    fake_slack.reset()
    fake_slack.fail("auth.test", status, times=2, retry_after=retry_after)
    bot = start_bot(fake_slack, url)
    try:
        ts = f"{time.time():.6f}"
        bot.event(message(SAMPLE_TEXT, ts))
        post = fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=20)[0]
        assert "cuda-oom" in all_text(post)
        # Its own message, echoed back, is still known as its own: nothing more is posted.
        bot.event(message(SAMPLE_TEXT, f"{float(ts) + 5:.6f}", user="UBOT0001"))
        time.sleep(1.5)
        assert len(replies(fake_slack)) == 1
        no_traceback(bot)
    finally:
        stop_bot(bot)
        redis.Redis.from_url(url).flushdb()


def test_a_notebook_with_a_failed_cell_is_diagnosed_without_escape_remains(bot: Bot, fake_slack):
    """A Jupyter notebook uploaded as it is (`.ipynb`: JSON whose failed cell keeps its
    traceback as strings with the colour codes escaped, `\\u001b[0;31m`): diagnosed, and no
    escape or its remains in the reply."""
    error = "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.2 GiB is free."
    traceback = ["\x1b[0;31m" + "-" * 75 + "\x1b[0m",
                 "\x1b[0;31mOutOfMemoryError\x1b[0m                          Traceback (most recent call last)",
                 "Cell \x1b[0;32mIn[7], line 3\x1b[0m\n\x1b[0;32m----> 3\x1b[0m     loss \x1b[38;5;241m=\x1b[39m model(batch)\n",
                 f"\x1b[0;31mOutOfMemoryError\x1b[0m: {error}"]
    cell = {"cell_type": "code", "execution_count": 7, "metadata": {}, "source": ["loss = model(batch)"],
            "outputs": [{"output_type": "error", "ename": "OutOfMemoryError", "evalue": error, "traceback": traceback}]}
    nb = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1).encode()
    assert b"\\u001b[0;31m" in nb
    (post,) = upload(bot, fake_slack, "train.ipynb", nb, "1700601100.000100", filetype="json", mimetype="application/json")
    shown = json.dumps(post.params, ensure_ascii=False)
    assert "cuda-oom" in shown, shown[:500]
    assert "u001b" not in shown and "[0;31m" not in shown and "[0m" not in shown, shown[:3000]


BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_bidirectional_controls_in_a_file_name_or_a_log_never_reach_slack(bot: Bot, fake_slack):
    """A right-to-left override (U+202E) makes `train\u202egol.exe` show as `trainexe.log`, and
    bidi controls in a log line reorder what a reader sees of it (Trojan Source): none is
    posted back, in a file name the bot names or in an evidence line it quotes."""
    (post,) = upload(bot, fake_slack, "train\u202egol.exe", b"\x7fELF\x02\x01\x01" + b"\x00" * 200, "1700601200.000100")
    shown = json.dumps(post.params, ensure_ascii=False)
    assert "gol.exe" in shown and not set(shown) & set(BIDI_CONTROLS), shown[:400]
    ts = "1700601201.000100"
    bot.event(message(OOM_PASTE.replace("CUDA out of memory", "CUDA out of memory\u2067 \u202e(gpu 3)\u2069\u202c"), ts,
                      channel="C0OTHER"))
    wait_handled(bot, ts, channel="C0OTHER")
    post = replies(fake_slack)[-1]
    shown = json.dumps(post.params, ensure_ascii=False)
    assert "cuda-oom" in shown and not set(shown) & set(BIDI_CONTROLS), shown[:400]


@pytest.mark.parametrize("name", ["学習ログ.log", "entraînement 2.log", "train-🔥.txt"], ids=["cjk", "accents-space", "emoji"])
def test_a_log_file_named_in_unicode_is_read(bot: Bot, fake_slack, name):
    """A file named in Japanese, with accents and a space, or an emoji: its download URL holds
    the name: fetched (percent-encoded) with the token, and diagnosed."""
    (post,) = upload(bot, fake_slack, name, SAMPLE_TEXT.encode(), "1700601300.000100")
    assert "cuda-oom" in all_text(post), all_text(post)[:300]
    assert used(bot) == 1
    (download,) = fake_slack.of("files.download")
    assert download.token


def test_a_gzip_bomb_inside_a_gzip_is_refused_in_bounded_time(bot: Bot, fake_slack):
    """The second layer is read within the same inflated cap as the first: a bomb wrapped in a
    gzip (a few KB that inflate to 50 MB of zeros behind a log line) is refused with the size
    word, quickly, and nothing is charged."""
    inner = gzip.compress(b"RuntimeError: CUDA out of memory\n" + b"\0" * 50_000_000, compresslevel=9)
    content = gzip.compress(inner, compresslevel=9)
    assert len(content) < 200_000
    started = time.monotonic()
    (post,) = upload(bot, fake_slack, "train.log.gz", content, "1700601400.000100")
    assert time.monotonic() - started < 20
    assert "limit" in all_text(post).lower() and "cuda-oom" not in all_text(post), all_text(post)[:300]
    assert used(bot) == 0


@pytest.mark.parametrize("dress", ["`{}`", "*{}*", "\u201c{}\u201d", "{}"], ids=["backticks", "bold", "quotes", "nb-hyphens"])
def test_an_evaluation_code_pasted_with_its_formatting_is_redeemed(bot: Bot, dress):
    """An evaluation code copied out of the message or mail that brought it keeps what dressed
    it there: inline-code backticks, bold asterisks, curly quotes, or the non-breaking hyphens
    (U+2011) an HTML mail writes so the code never wraps. `/denpex redeem` still redeems it,
    once, and the quota says scale."""
    from tests.slack.test_bot import store_for

    with store_for(bot) as store:
        (code,) = store.codes.create("scale", 14, 1)
    typed = dress.format(code if dress != "{}" else code.replace("-", "\u2011"))
    answer = bot.command(f"redeem {typed}").json()["text"]
    assert "scale" in answer.lower() and "could not" not in answer.lower(), answer
    assert "50" in bot.command("quota").json()["text"]
