"""Fifteenth audit of the Slack edge: the scenarios an outside end-to-end check runs, written the
way such a check writes them (signed HTTP against the real bot, a stand-in Web API, a real
Redis), each asserting what a person in the channel would see.

First what a person types right after uploading a log file ("what now?", or a mention of the
bot), then the request edge (signatures, retries, acks), slash commands, uploads, message
subtypes and loops, DMs and threads, the Home tab, quotas and Redis, Web API faults, tokens,
and the masking of everything posted."""

from __future__ import annotations

import gzip
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.slack import events as ev
from tests.slack.conftest import UPLOAD_CAP, Bot, quiesce, sign, wait_handled
from tests.slack.fake_slack import BOT_ID, BOT_USER_ID, TEAM_ID, FakeFile, FakeSlack

LIVE_MRKDWN, OOM_PASTE, all_text, message, used = ev.LIVE_MRKDWN, ev.OOM_PASTE, ev.all_text, ev.message, ev.used
file_shared, mrkdwn_strings = ev.file_shared, ev.mrkdwn_strings
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
HELP_MARK = "diagnoses failed training runs"  # the help text's first line
MENTION = f"<@{BOT_USER_ID}>"


def posts(fake: FakeSlack) -> list:
    return fake.of("chat.postMessage")


def texts(fake: FakeSlack) -> list[str]:
    return [all_text(p)[:300] for p in posts(fake)]


def settle(bot: Bot, fake: FakeSlack, seconds: float = 0.5) -> None:
    """For a request that leaves no claim to wait for (refused, ignored): give its lazy
    listener time to act, then wait until the bot is quiet."""
    time.sleep(seconds)
    quiesce(bot, fake, quiet_s=0.2)


def envelope(event: dict[str, Any], event_id: str | None = None) -> bytes:
    return json.dumps({
        "token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0DENPEX", "event": event,
        "type": "event_callback", "event_id": event_id or f"Ev{time.time_ns()}", "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    }).encode()


def upload(fake: FakeSlack, file_id: str, content: bytes, name: str = "rank3.log", **kw: Any) -> dict[str, Any]:
    return fake.add_file(FakeFile(id=file_id, name=name, content=content, **kw))


def answered_file(bot: Bot, fake: FakeSlack, file_id: str, ts: str, channel: str = "C0LOGS",
                  **extra: Any) -> None:
    """A log file uploaded at the channel's root (or a DM's), answered in its thread."""
    f = upload(fake, file_id, OOM_PASTE.encode())
    bot.event(message("", ts, subtype="file_share", files=[f], channel=channel, **extra))
    wait_handled(bot, ts, channel=channel, timeout=30)
    assert "cuda-oom" in json.dumps(posts(fake)[0].params)


# --- 1. what a person types right after uploading a log file -----------------------------------------

@pytest.mark.parametrize("words", ["what now?", "any idea?", "?", "now what??"])
@pytest.mark.parametrize("where", ["root", "thread"])
def test_a_short_question_right_after_a_log_file_is_a_follow_up(bot: Bot, fake_slack, words, where):
    """The log file is answered in its thread; a second later its sender asks "what now?"
    (or "any idea?", or only "?"), at the channel's root or in that thread: answered there as
    a question about that diagnosis (was: nothing at the root, nothing for a lone "?"), not
    charged again."""
    file_ts, ts = "1701500000.000100", "1701500001.000100"
    answered_file(bot, fake_slack, "F15Q" + str(len(words)) + where[0].upper(), file_ts)
    bot.event(message(words, ts, **({"thread_ts": file_ts} if where == "thread" else {})))
    wait_handled(bot, ts, timeout=30)
    answer = posts(fake_slack)[1:]
    assert len(answer) == 1, texts(fake_slack)
    assert answer[0].params["thread_ts"] == file_ts
    assert HELP_MARK not in all_text(answer[0])
    assert used(bot) == 1


@pytest.mark.parametrize("words", [MENTION, f"{MENTION} what now?", f"{MENTION} any idea?", f"{MENTION} why?"],
                         ids=["alone", "what-now", "any-idea", "why"])
def test_a_mention_right_after_a_log_file_is_about_its_diagnosis(bot: Bot, fake_slack, words):
    """A log file, and then "@denpex what now?" at the channel's root: answered in the file's
    thread about its diagnosis (was: the generic help under the mention)."""
    file_ts, ts = "1701500010.000100", "1701500011.000100"
    answered_file(bot, fake_slack, "F15M" + str(len(words)), file_ts)
    bot.event(message(words, ts))
    wait_handled(bot, ts, timeout=30)
    answer = posts(fake_slack)[1:]
    assert len(answer) == 1, texts(fake_slack)
    assert answer[0].params["thread_ts"] == file_ts
    assert HELP_MARK not in all_text(answer[0]), all_text(answer[0])[:300]
    assert used(bot) == 1


def test_a_mention_after_a_log_file_arriving_as_app_mention_only_is_about_its_diagnosis(bot: Bot, fake_slack):
    """The same mention delivered only as `app_mention` (no channel_type, no message event)."""
    file_ts, ts = "1701500020.000100", "1701500021.000100"
    answered_file(bot, fake_slack, "F15APPM", file_ts)
    mention = {k: v for k, v in message(f"{MENTION} what now?", ts).items() if k != "channel_type"}
    bot.event({**mention, "type": "app_mention"})
    wait_handled(bot, ts, timeout=30)
    answer = posts(fake_slack)[1:]
    assert [a.params["thread_ts"] for a in answer] == [file_ts], texts(fake_slack)
    assert HELP_MARK not in all_text(answer[0])


def test_a_question_sent_while_the_log_file_is_still_downloading_is_answered_after_it(bot: Bot, fake_slack):
    """"what now?" sent while the file is still being read: the diagnosis first, then the
    answer, both in the file's thread."""
    file_ts, ts = "1701500030.000100", "1701500031.000100"
    f = upload(fake_slack, "F15SLOW", OOM_PASTE.encode(), stall_s=1.0)
    bot.event(message("", file_ts, subtype="file_share", files=[f]))
    fake_slack.wait_for("files.download", timeout=15)
    bot.event(message("what now?", ts))
    wait_handled(bot, file_ts, ts, timeout=30)
    got = posts(fake_slack)
    assert [p.params["thread_ts"] for p in got] == [file_ts, file_ts], texts(fake_slack)
    assert "cuda-oom" in json.dumps(got[0].params) and HELP_MARK not in all_text(got[1])


@pytest.mark.parametrize("words", ["what now?", "?", MENTION, f"{MENTION} what now?"],
                         ids=["what-now", "question-mark", "mention", "mention-what-now"])
def test_a_question_sent_at_once_after_a_log_file_waits_for_its_diagnosis(bot: Bot, fake_slack, words):
    """The upload and, at once, the question (an outside check sends them back to back; the
    question's listener runs while the file is still being looked up): one diagnosis, then
    the answer, both in the file's thread (was, often: help under the mention first, or
    nothing)."""
    file_ts, ts = "1701500035.000100", "1701500035.900100"
    f = upload(fake_slack, "F15ATONCE" + str(len(words)), OOM_PASTE.encode())
    bot.event(message("", file_ts, subtype="file_share", files=[f]))
    bot.event(message(words, ts))
    wait_handled(bot, file_ts, ts, timeout=30)
    got = posts(fake_slack)
    assert [p.params["thread_ts"] for p in got] == [file_ts, file_ts], texts(fake_slack)
    assert "cuda-oom" in json.dumps(got[0].params) and HELP_MARK not in all_text(got[1])
    assert used(bot) == 1


@pytest.mark.parametrize("words", ["what now?", f"{MENTION} what now?"], ids=["words", "mention"])
def test_a_question_right_after_a_pasted_log_is_about_its_diagnosis(bot: Bot, fake_slack, words):
    """The same after a pasted log, once it is answered: the question answered in the log's
    thread (was: nothing, or the help under the mention)."""
    log_ts, ts = "1701500037.000100", "1701500038.000100"
    bot.event(message(OOM_PASTE, log_ts))
    wait_handled(bot, log_ts)
    bot.event(message(words, ts))
    wait_handled(bot, ts)
    got = posts(fake_slack)
    assert [p.params["thread_ts"] for p in got] == [log_ts, log_ts], texts(fake_slack)
    assert HELP_MARK not in all_text(got[1]) and used(bot) == 1


def test_a_mention_before_any_log_still_gets_the_help(bot: Bot, fake_slack):
    """With no log of its sender's just answered, "@denpex what now?" gets the help as before."""
    ts = "1701500039.000100"
    bot.event(message(f"{MENTION} what now?", ts))
    wait_handled(bot, ts)
    (post,) = posts(fake_slack)
    assert post.params["thread_ts"] == ts and HELP_MARK in all_text(post)


def test_a_question_after_a_log_file_in_a_dm_is_about_its_diagnosis(bot: Bot, fake_slack):
    """In the bot's DM: a log file, then "what now?": a follow-up in the file's thread, not help."""
    dm = {"channel_type": "im"}
    file_ts, ts = "1701500040.000100", "1701500041.000100"
    answered_file(bot, fake_slack, "F15DMQ", file_ts, channel="D0ALICEDM", **dm)
    bot.event(message("what now?", ts, channel="D0ALICEDM", **dm))
    wait_handled(bot, ts, channel="D0ALICEDM", timeout=30)
    answer = posts(fake_slack)[1:]
    assert [a.params["thread_ts"] for a in answer] == [file_ts], texts(fake_slack)
    assert HELP_MARK not in all_text(answer[0])


@pytest.mark.parametrize(("user", "words"), [
    ("U0ALICE", "thanks!"), ("U0ALICE", "ok, trying that"), ("U0BOB", "what now?"),
    ("U0ALICE", "<@U0BOB> what now?"),
], ids=["thanks", "ok", "a-colleague", "to-a-colleague"])
def test_talk_after_a_log_file_at_the_root_gets_nothing(bot: Bot, fake_slack, user, words):
    """Chatter from the uploader, a colleague's own question at the root, or words addressed
    to a colleague: the channel's, not the bot's; nothing posted."""
    file_ts, ts = "1701500050.000100", "1701500051.000100"
    answered_file(bot, fake_slack, "F15TALK" + user[-1] + str(len(words)), file_ts)
    bot.event(message(words, ts, user=user))
    wait_handled(bot, ts, timeout=30)
    assert len(posts(fake_slack)) == 1, texts(fake_slack)


def test_a_lone_question_mark_under_a_pasted_diagnosis_is_answered(bot: Bot, fake_slack):
    """"?" typed under a pasted log's diagnosis is a question too: topics offered, nothing charged."""
    ts, q = "1701500060.000100", "1701500061.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    bot.event(message("?", q, thread_ts=ts))
    wait_handled(bot, q)
    assert [p.params["thread_ts"] for p in posts(fake_slack)] == [ts, ts] and used(bot) == 1


# --- 2. signatures --------------------------------------------------------------------------------

def _forged(body: bytes) -> list[tuple[str, bytes, dict[str, str]]]:
    now = int(time.time())
    good = sign(body, now)
    return [
        ("bad-signature", body, {**good, "X-Slack-Signature": "v0=" + "0" * 64}),
        ("no-signature", body, {"X-Slack-Request-Timestamp": str(now)}),
        ("no-timestamp", body, {"X-Slack-Signature": good["X-Slack-Signature"]}),
        ("no-headers", body, {}),
        ("old-timestamp", body, sign(body, now - 400)),
        ("future-timestamp", body, sign(body, now + 400)),
        ("garbage-timestamp", body, {**good, "X-Slack-Request-Timestamp": "yesterday"}),
        ("tampered-body", body.replace(b"rank3", b"rank4"), good),
        ("wrong-secret", body, sign(body, now, secret="not-the-signing-secret-0000000000")),
        ("v1-prefix", body, {**good, "X-Slack-Signature": good["X-Slack-Signature"].replace("v0=", "v1=")}),
        ("empty-signature", body, {**good, "X-Slack-Signature": ""}),
    ]


@pytest.mark.parametrize("case", [c[0] for c in _forged(b"x")])
def test_a_badly_signed_event_is_refused_and_does_nothing(bot: Bot, fake_slack, case):
    """Every way a signature can be wrong: 401, nothing posted, nothing charged."""
    body = envelope(message(OOM_PASTE, "1701500100.000100"))
    _, sent, headers = next(c for c in _forged(body) if c[0] == case)
    reply = bot.post(sent, JSON, headers=headers, sign_it=False)
    assert reply.status == 401, (reply.status, reply.body[:200])
    settle(bot, fake_slack)
    assert posts(fake_slack) == [] and used(bot) == 0


def test_a_badly_signed_slash_command_is_refused(bot: Bot, fake_slack):
    body = bot.command_body("torch.OutOfMemoryError: CUDA out of memory")
    for headers in ({**sign(body), "X-Slack-Signature": "v0=" + "1" * 64}, sign(body, int(time.time()) - 600)):
        assert bot.post(body, FORM, headers=headers, sign_it=False).status == 401
    settle(bot, fake_slack)
    assert fake_slack.calls == [] or all(c.method == "auth.test" for c in fake_slack.calls)


@pytest.mark.parametrize("challenge", ["3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "a" * 200],
                         ids=["slack-shaped", "long"])
def test_url_verification_returns_the_challenge(bot: Bot, challenge):
    reply = bot.post(json.dumps({"token": "x", "challenge": challenge, "type": "url_verification"}).encode(), JSON)
    assert reply.status == 200 and challenge.encode() in reply.body


def test_url_verification_with_a_bad_signature_is_refused(bot: Bot):
    body = json.dumps({"token": "x", "challenge": "abc", "type": "url_verification"}).encode()
    reply = bot.post(body, JSON, headers={"X-Slack-Signature": "v0=" + "2" * 64})
    assert reply.status == 401 and b"abc" not in reply.body


# --- 3. retries and acks ---------------------------------------------------------------------------

@pytest.mark.parametrize("reason", ["http_timeout", "http_error", "connection_failed", "too_many_websocket_messages"])
def test_a_retried_event_is_answered_and_charged_once(bot: Bot, fake_slack, reason):
    """The original, then Slack's three retries with the same event id: one reply, one charge."""
    ts = "1701500200.000100"
    ev = message(OOM_PASTE, ts)
    bot.event(ev, event_id="Ev15RETRY" + reason[:4].upper())
    for n in (1, 2, 3):
        reply = bot.event(ev, event_id="Ev15RETRY" + reason[:4].upper(),
                          headers={"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": reason})
        assert reply.status == 200
    wait_handled(bot, ts)
    assert len(posts(fake_slack)) == 1 and used(bot) == 1


def test_retries_arriving_all_at_once_are_answered_once(bot: Bot, fake_slack):
    """The original and three retries sent at the same moment (four connections)."""
    ts = "1701500210.000100"
    body = envelope(message(OOM_PASTE, ts), "Ev15BURST")
    statuses: list[int] = []

    def send(n: int) -> None:
        extra = {"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": "http_timeout"} if n else {}
        statuses.append(bot.post(body, JSON, headers=extra).status)

    threads = [threading.Thread(target=send, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait_handled(bot, ts)
    assert statuses == [200] * 4 and len(posts(fake_slack)) == 1 and used(bot) == 1


def test_a_retried_upload_downloads_and_answers_once(bot: Bot, fake_slack):
    ts = "1701500220.000100"
    f = upload(fake_slack, "F15RETRY", SAMPLE.encode())
    ev = message("", ts, subtype="file_share", files=[f])
    for n in (0, 1, 2):
        bot.event(ev, event_id="Ev15UPRETRY", headers={"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": "http_timeout"} if n else None)
    wait_handled(bot, ts, timeout=30)
    assert len(posts(fake_slack)) == 1 and len(fake_slack.of("files.download")) == 1 and used(bot) == 1


@pytest.mark.parametrize("kind", ["big-paste", "slow-upload", "lookup"])
def test_every_request_is_acknowledged_inside_three_seconds(bot: Bot, fake_slack, kind):
    """Slack gives 3 s: a 500 KB paste, an upload whose download stalls, a slash command."""
    start = time.monotonic()
    if kind == "big-paste":
        reply = bot.event(message(SAMPLE * 40, "1701500230.000100"))
    elif kind == "slow-upload":
        f = upload(fake_slack, "F15STALL", SAMPLE.encode(), stall_s=1.5)
        reply = bot.event(message("", "1701500231.000100", subtype="file_share", files=[f]))
    else:
        reply = bot.command("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert reply.status == 200 and time.monotonic() - start < 3.0
    quiesce(bot, fake_slack, quiet_s=0.3, max_s=30)


# --- 4. slash commands ----------------------------------------------------------------------------

def command_answer(bot: Bot, fake: FakeSlack, text: str) -> tuple[float, str, dict[str, Any]]:
    """Send `/denpex text`; return how long the ack took and everything the person was shown
    (the ack's body, or what was posted to the response_url)."""
    url = fake.base + "/response/c15"
    start = time.monotonic()
    reply = bot.command(text, response_url=url)
    took = time.monotonic() - start
    assert reply.status == 200, reply.body[:300]
    shown = reply.json() if reply.body.strip() else {}
    if not shown:
        deadline = time.monotonic() + 10
        while not fake.responses and time.monotonic() < deadline:
            time.sleep(0.05)
        shown = fake.responses[-1]
    return took, json.dumps(shown), shown


@pytest.mark.parametrize(("text", "expect"), [
    ("", HELP_MARK), ("help", HELP_MARK), ("  HELP  ", HELP_MARK), ("Help", HELP_MARK),
    ("show cuda-oom", "CUDA"), ("quota", "of 3"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "cuda-oom"),
], ids=["empty", "help", "padded-help", "capital-help", "show", "quota", "lookup"])
def test_a_slash_command_is_answered_privately_at_once(bot: Bot, fake_slack, text, expect):
    took, shown, body = command_answer(bot, fake_slack, text)
    assert took < 3.0 and expect in shown, shown[:400]
    assert body.get("response_type", "ephemeral") == "ephemeral"
    assert posts(fake_slack) == []


@pytest.mark.parametrize("text", [
    "CUDA out of memory " * 600,
    "(a+)+$" * 300 + "!",
    "a" * 20000 + "!",
    "[[[[((((****????\\\\\\" * 200,
    "\\d{999999999}",
    "(?P<x>" * 500,
    "%s%n%x" * 500,
    "\u202e\u0000\ufeff" * 300 + "NCCL error",
    "<!channel> <!here> <@U0BOB> <#C0LOGS> CUDA out of memory",
], ids=["long", "catastrophic", "20k-chars", "brackets", "huge-quantifier", "open-groups", "format", "control",
        "specials"])
def test_a_hostile_slash_command_is_answered_in_bounded_time_and_inert(bot: Bot, fake_slack, text):
    """Long or regex-hostile text: acked inside 3 s, a private answer within Block Kit's
    limits, nothing rendered live (no ping, no link), nothing posted to the channel."""
    took, _, body = command_answer(bot, fake_slack, text)
    assert took < 3.0
    assert len(body.get("text") or "") <= 4000
    for block in body.get("blocks") or []:
        if block.get("type") == "section" and block.get("text"):
            assert len(block["text"]["text"]) <= 3000
    for s in [body.get("text") or ""] + [b.get("text", {}).get("text", "") for b in body.get("blocks") or []
                                         if isinstance(b.get("text"), dict)]:
        assert not LIVE_MRKDWN.search(s), s[:300]
    assert posts(fake_slack) == []


# --- 5. uploads -----------------------------------------------------------------------------------

def _one_upload(bot: Bot, fake: FakeSlack, f: dict[str, Any], ts: str) -> Any:
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts, timeout=30)
    got = posts(fake)
    assert len(got) == 1, texts(fake)
    assert got[0].params["thread_ts"] == ts
    return got[0]


@pytest.mark.parametrize(("name", "content", "kw", "diagnosed"), [
    ("rank3.log.gz", gzip.compress(OOM_PASTE.encode(), mtime=0), {"filetype": "gzip", "mimetype": "application/gzip"}, True),
    ("rank3.log", OOM_PASTE.encode("utf-8").replace(b"train.py", b"tr\xe4in\xff\xfe.py"), {}, True),
    ("rank3.log", b"\xef\xbb\xbf" + OOM_PASTE.encode(), {}, True),
    ("rank3.txt", OOM_PASTE.replace("\n", "\r\n").encode(), {}, True),
    ("empty.log", b"", {}, False),
    ("blank.log", b"\n \n\t\n", {}, False),
    ("blob.log", bytes(range(256)) * 40, {}, False),
    ("empty.log.gz", gzip.compress(b"", mtime=0), {"filetype": "gzip"}, False),
    ("garbage.log.gz", b"\x1f\x8b\x08\x00garbage-not-deflate" * 10, {"filetype": "gzip"}, False),
], ids=["gzip", "invalid-utf8", "bom", "crlf", "empty", "blank", "binary", "empty-gzip", "corrupt-gzip"])
def test_an_upload_is_diagnosed_or_told_what_is_wrong(bot: Bot, fake_slack, name, content, kw, diagnosed):
    """A readable log (compressed, with bytes that are not UTF-8, a BOM, CRLF) is diagnosed
    and charged once; an empty, blank, binary or broken one gets one word on it, no charge,
    no U+FFFD or raw bytes posted."""
    f = upload(fake_slack, "F15UP" + name[:6].upper().replace(".", "") + str(len(content) % 97), content, name, **kw)
    post = _one_upload(bot, fake_slack, f, "1701500300.000100")
    shown = all_text(post)
    assert "\ufffd" not in shown
    if diagnosed:
        assert "cuda-oom" in shown and used(bot) == 1
    else:
        assert "cuda-oom" not in shown and used(bot) == 0 and len(shown) > 20


@pytest.mark.parametrize("size", [UPLOAD_CAP + 1, 5 * 1024**3], ids=["one-byte-over", "5-GB"])
def test_a_huge_upload_is_refused_from_its_size_without_a_download(bot: Bot, fake_slack, size):
    """files.info says the file is over the limit: told so, nothing downloaded, nothing charged."""
    f = upload(fake_slack, "F15HUGE" + str(size)[:4], b"x\n" * 10, "huge.log", declared_size=size)
    post = _one_upload(bot, fake_slack, f, "1701500310.000100")
    assert "over the" in all_text(post) and fake_slack.of("files.download") == [] and used(bot) == 0


def test_a_file_shared_event_alone_for_an_unknown_file_posts_nothing(bot: Bot, fake_slack):
    """`file_shared` for a file files.info does not know: no post, no crash."""
    assert bot.event(file_shared("F15GHOST")).status == 200
    settle(bot, fake_slack, 1.0)
    assert posts(fake_slack) == [] and fake_slack.of("files.download") == []


def test_an_upload_seen_as_file_shared_and_file_share_is_one_answer(bot: Bot, fake_slack):
    ts = "1701500320.000100"
    f = upload(fake_slack, "F15TWICE", OOM_PASTE.encode(), shares={"public": {"C0LOGS": [{"ts": ts}]}})
    bot.event(file_shared("F15TWICE"))
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts, timeout=30)
    settle(bot, fake_slack, 1.0)
    assert len(posts(fake_slack)) == 1 and len(fake_slack.of("files.download")) == 1 and used(bot) == 1


@pytest.mark.parametrize("error", ["file_not_found", "missing_scope", "file_deleted", "invalid_auth"])
def test_files_info_refusing_reads_nothing_and_charges_nothing(bot: Bot, fake_slack, error):
    ts = "1701500330.000100"
    f = upload(fake_slack, "F15INFO" + error[:4].upper(), OOM_PASTE.encode())
    fake_slack.fail("files.info", 200, times=5, body={"ok": False, "error": error})
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts, timeout=30)
    assert fake_slack.of("files.download") == [] and used(bot) == 0
    assert len(posts(fake_slack)) <= 1


@pytest.mark.parametrize(("status", "retry_after"), [(429, 1), (500, None), (503, None)])
def test_files_info_failing_once_is_retried_and_answered(bot: Bot, fake_slack, status, retry_after):
    ts = "1701500340.000100"
    f = upload(fake_slack, "F15INFOX" + str(status), OOM_PASTE.encode())
    fake_slack.fail("files.info", status, times=1, retry_after=retry_after)
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts, timeout=30)
    got = posts(fake_slack)
    assert len(got) == 1 and "cuda-oom" in json.dumps(got[0].params) and used(bot) == 1


# --- 6. messages: empty, edited, deleted, other bots, itself --------------------------------------------

@pytest.mark.parametrize("text", ["", " ", "\n\n", "```\n```", "\u200b"], ids=["empty", "space", "newlines", "fence", "zwsp"])
def test_an_empty_message_in_a_channel_gets_nothing(bot: Bot, fake_slack, text):
    ts = "1701500400.000100"
    bot.event(message(text, ts))
    settle(bot, fake_slack)
    assert posts(fake_slack) == [] and used(bot) == 0


@pytest.mark.parametrize("shape", ["message_changed", "message_deleted", "message_replied", "channel_join",
                                   "channel_topic", "me_message", "bot_message", "own-message", "own-thread-reply",
                                   "other-app-user", "bot_add", "pinned_item", "ekm_access_denied"])
def test_events_that_are_not_a_persons_new_log_get_nothing(bot: Bot, fake_slack, shape):
    """An edit into a log, a delete, a reply notice, a join, another bot's log, the bot's own
    diagnosis coming back: nothing posted, nothing charged, no loop."""
    ts = "1701500410.000100"
    inner = message(OOM_PASTE, "1701500409.000100")
    events = {
        "message_changed": {"type": "message", "subtype": "message_changed", "channel": "C0LOGS", "hidden": True,
                            "ts": ts, "message": {**inner, "edited": {"user": "U0ALICE", "ts": ts}},
                            "previous_message": {**inner, "text": "typo"}, "channel_type": "channel"},
        "message_deleted": {"type": "message", "subtype": "message_deleted", "channel": "C0LOGS", "hidden": True,
                            "ts": ts, "deleted_ts": inner["ts"], "previous_message": inner, "channel_type": "channel"},
        "message_replied": {"type": "message", "subtype": "message_replied", "channel": "C0LOGS", "hidden": True,
                            "ts": ts, "message": {**inner, "thread_ts": inner["ts"], "reply_count": 1},
                            "channel_type": "channel"},
        "channel_join": message(f"<@U0BOB> has joined the channel\n{OOM_PASTE}", ts, subtype="channel_join", user="U0BOB"),
        "channel_topic": message(f"set the channel topic: {OOM_PASTE}", ts, subtype="channel_topic"),
        "me_message": message(OOM_PASTE, ts, subtype="me_message"),
        "bot_message": {"type": "message", "subtype": "bot_message", "bot_id": "B0CI", "username": "ci",
                        "text": OOM_PASTE, "ts": ts, "channel": "C0LOGS", "channel_type": "channel"},
        "own-message": message(OOM_PASTE, ts, user=BOT_USER_ID, bot_id=BOT_ID),
        "own-thread-reply": message(OOM_PASTE, ts, user=BOT_USER_ID, bot_id=BOT_ID, thread_ts=inner["ts"]),
        "other-app-user": message(OOM_PASTE, ts, user="U0OTHERBOT", bot_id="B0OTHER",
                                  bot_profile={"id": "B0OTHER", "name": "ci"}),
        "bot_add": message(f"added an integration to this channel: {OOM_PASTE}", ts, subtype="bot_add"),
        "pinned_item": message(f"pinned a message: {OOM_PASTE}", ts, subtype="pinned_item"),
        "ekm_access_denied": message(OOM_PASTE, ts, subtype="ekm_access_denied", user="U00"),
    }
    reply = bot.event(events[shape])
    assert reply.status == 200
    settle(bot, fake_slack)
    assert posts(fake_slack) == [] and used(bot) == 0, texts(fake_slack)


def test_two_bots_cannot_make_denpex_loop(bot: Bot, fake_slack):
    """A log, its diagnosis echoed back as the bot's message event, and a CI bot quoting the
    diagnosis: one post in all."""
    ts = "1701500420.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    (diagnosis,) = posts(fake_slack)
    echo = {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "text": diagnosis.params["text"],
            "ts": "1701500421.000100", "thread_ts": ts, "channel": "C0LOGS", "channel_type": "channel",
            "blocks": diagnosis.params.get("blocks")}
    bot.event(echo)
    bot.event({"type": "message", "subtype": "bot_message", "bot_id": "B0CI", "text": OOM_PASTE + diagnosis.params["text"],
               "ts": "1701500422.000100", "thread_ts": ts, "channel": "C0LOGS", "channel_type": "channel"})
    settle(bot, fake_slack, 1.0)
    assert len(posts(fake_slack)) == 1 and used(bot) == 1


# --- 7. DMs, threads, channel root -----------------------------------------------------------------

@pytest.mark.parametrize(("where", "extra"), [
    ("channel-root", {}),
    ("thread-reply", {"thread_ts": "1701500500.000050"}),
    ("dm", {"channel": "D0ALICEDM", "channel_type": "im"}),
    ("private", {"channel": "G0PRIVATE", "channel_type": "group"}),
    ("group-dm", {"channel": "G0MPIM", "channel_type": "mpim"}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_pasted_log_is_answered_in_the_right_thread(bot: Bot, fake_slack, where, extra):
    ts = "1701500500.000100"
    bot.event(message(OOM_PASTE, ts, **extra))
    wait_handled(bot, ts, channel=extra.get("channel", "C0LOGS"))
    (post,) = posts(fake_slack)
    assert post.params["thread_ts"] == extra.get("thread_ts", ts)
    assert post.params["channel"] == extra.get("channel", "C0LOGS")
    assert "cuda-oom" in json.dumps(post.params) and used(bot) == 1


@pytest.mark.parametrize(("channel", "extra", "helped"), [
    ("D0ALICEDM", {"channel_type": "im"}, True),
    ("C0LOGS", {}, False),
], ids=["dm", "channel"])
def test_chatter_gets_help_in_a_dm_and_nothing_in_a_channel(bot: Bot, fake_slack, channel, extra, helped):
    ts = "1701500510.000100"
    bot.event(message("hello there", ts, channel=channel, **extra))
    wait_handled(bot, ts, channel=channel)
    got = posts(fake_slack)
    assert (len(got) == 1 and HELP_MARK in all_text(got[0])) if helped else got == []


# --- 8. the Home tab --------------------------------------------------------------------------------

def test_app_home_opened_publishes_the_home_tab_once(bot: Bot, fake_slack):
    ts = "1701500600.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0ALICEDM", "tab": "home",
               "event_ts": f"{time.time():.6f}"})
    (view,) = fake_slack.wait_for("views.publish", timeout=15)
    assert view.params["user_id"] == "U0ALICE" and view.params["view"]["type"] == "home"
    shown = json.dumps(view.params["view"])
    assert "1 of 3" in shown or "1/3" in shown or "cuda-oom" in shown.lower() or "CUDA" in shown
    settle(bot, fake_slack)
    assert len(fake_slack.of("views.publish")) == 1


def test_app_home_opened_on_the_messages_tab_publishes_nothing(bot: Bot, fake_slack):
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0ALICEDM", "tab": "messages",
               "event_ts": f"{time.time():.6f}"})
    settle(bot, fake_slack)
    assert fake_slack.of("views.publish") == [] and posts(fake_slack) == []


# --- 9. quotas and Redis ---------------------------------------------------------------------------

def test_the_fourth_log_of_a_free_day_is_told_the_limit_and_not_charged(bot: Bot, fake_slack):
    stamps = [f"17015007{i}0.000100" for i in range(4)]
    for i, ts in enumerate(stamps):
        bot.event(message(OOM_PASTE, ts, user=f"U0USER{i}"))
        wait_handled(bot, ts)
    got = posts(fake_slack)
    assert len(got) == 4 and all("cuda-oom" in json.dumps(p.params) for p in got[:3])
    assert "Daily limit reached" in all_text(got[3]) and used(bot) == 3
    # Lookups still answer.
    _, shown, _ = command_answer(bot, fake_slack, "torch.OutOfMemoryError: CUDA out of memory")
    assert "cuda-oom" in shown


def test_with_redis_down_a_log_is_told_chatter_is_not_and_commands_answer(bot_without_redis: Bot, fake_slack):
    """Redis unreachable: a pasted log gets "temporarily unavailable" in its thread, once even
    when retried; chatter nothing; `/denpex help` still answers; acks inside 3 s; no traceback."""
    dead = bot_without_redis
    ts = "1701500800.000100"
    start = time.monotonic()
    assert dead.event(message(OOM_PASTE, ts), event_id="Ev15NOREDIS").status == 200
    assert time.monotonic() - start < 3.0
    dead.event(message("lunch?", "1701500801.000100"))
    (post,) = fake_slack.wait_for("chat.postMessage", timeout=20)
    assert post.params["thread_ts"] == ts and "temporarily unavailable" in all_text(post)
    reply = dead.command("help")
    assert reply.status == 200 and HELP_MARK in reply.body.decode()
    time.sleep(1.0)
    assert len(posts(fake_slack)) == 1, texts(fake_slack)
    assert "Traceback" not in dead.log_path.read_text()  # type: ignore[attr-defined]


# --- 10. Web API faults -----------------------------------------------------------------------------

@pytest.mark.parametrize(("times", "retry_after"), [(1, 1), (2, 1), (1, 0)])
def test_a_rate_limited_post_lands_once_after_retry_after(bot: Bot, fake_slack, times, retry_after):
    ts = "1701500900.000100"
    fake_slack.fail("chat.postMessage", 429, times=times, retry_after=retry_after)
    start = time.monotonic()
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts, timeout=30)
    landed = [p for p in posts(fake_slack)]
    assert len(landed) == times + 1  # the refused tries, then the one that landed
    assert time.monotonic() - start >= times * retry_after * 0.9
    assert used(bot) == 1


@pytest.mark.parametrize("error", ["channel_not_found", "not_in_channel", "is_archived", "token_revoked",
                                   "account_inactive", "invalid_auth"])
def test_a_post_refused_for_good_charges_nothing_and_the_bot_answers_on(bot: Bot, fake_slack, error):
    ts, nxt = "1701500910.000100", "1701500911.000100"
    fake_slack.fail("chat.postMessage", 200, times=1, body={"ok": False, "error": error})
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts, timeout=30)
    assert len(posts(fake_slack)) == 1 and used(bot) == 0
    bot.event(message(OOM_PASTE, nxt, user="U0BOB"))
    wait_handled(bot, nxt, timeout=30)
    assert len(posts(fake_slack)) == 2 and used(bot) == 1


# --- 11. tokens -------------------------------------------------------------------------------------

@pytest.mark.parametrize("event", [
    {"type": "app_uninstalled"},
    {"type": "tokens_revoked", "tokens": {"oauth": ["U0ALICE"], "bot": []}},
    {"type": "tokens_revoked", "tokens": {"bot": [BOT_USER_ID]}},
], ids=["app_uninstalled", "user-token-revoked", "bot-token-revoked"])
def test_a_token_event_is_acknowledged_and_posts_nothing(bot: Bot, fake_slack, event):
    reply = bot.event({**event, "event_ts": f"{time.time():.6f}"})
    assert reply.status == 200
    settle(bot, fake_slack)
    assert posts(fake_slack) == [] and fake_slack.of("views.publish") == []


def test_a_log_after_the_token_was_revoked_is_not_charged(bot: Bot, fake_slack):
    """Slack revoked the token: every call answers `token_revoked`. A log then: no charge,
    no crash, no retry storm."""
    bot.event({"type": "tokens_revoked", "tokens": {"bot": [BOT_USER_ID]}, "event_ts": f"{time.time():.6f}"})
    settle(bot, fake_slack)
    for method in ("chat.postMessage", "reactions.add", "reactions.remove"):
        fake_slack.fail(method, 200, times=20, body={"ok": False, "error": "token_revoked"})
    ts = "1701501000.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts, timeout=30)
    assert used(bot) == 0 and len(posts(fake_slack)) <= 2


# --- 12. masking of everything posted ----------------------------------------------------------------

SECRETS = {
    "aws": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9Qk3Lm2T",
    "hf": "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",
    "github": "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "email": "jane.doe@acme-corp.com",
    "host": "gpu-node-17.acme.internal",
    "ip": "10.42.7.19",
    "home": "/home/jdoe/",
}
SECRET_LOG = (
    "[rank3]: Traceback (most recent call last):\n"
    '[rank3]:   File "/home/jdoe/projects/train.py", line 88, in <module>\n'
    f'[rank3]:     os.environ["AWS_SECRET_ACCESS_KEY"] = "{SECRETS["aws"]}"\n'
    f"[rank3]: export HF_TOKEN={SECRETS['hf']}\n"
    f"[rank3]: git clone https://oauth2:{SECRETS['github']}@github.com/acme/llm.git\n"
    f"[rank3]: user={SECRETS['email']} host={SECRETS['host']} ip={SECRETS['ip']}\n"
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
    "capacity of 79.15 GiB of which 1.2 GiB is free.\n"
)


def assert_nothing_leaked(fake: FakeSlack) -> None:
    with fake.lock:
        sent = json.dumps([c.params for c in fake.calls]) + json.dumps(fake.responses)
    for kind, secret in SECRETS.items():
        assert secret not in sent and secret.replace("/", "\\/") not in sent, kind


@pytest.mark.parametrize("how", ["paste", "upload", "gzip-upload", "dm", "mention"])
def test_nothing_secret_in_a_log_is_posted(bot: Bot, fake_slack, how):
    """A log with a cloud key, tokens, an e-mail, a host, an IP and a home folder: diagnosed,
    and none of them in any call the bot makes (posts, reactions, the Home tab)."""
    ts = "1701501100.000100"
    channel = "D0ALICEDM" if how == "dm" else "C0LOGS"
    if how in ("upload", "gzip-upload"):
        raw = SECRET_LOG.encode()
        content = gzip.compress(raw, mtime=0) if how == "gzip-upload" else raw
        f = upload(fake_slack, "F15SECRET" + how[0].upper(), content,
                   f"{SECRETS['email']}-train.log" + (".gz" if how == "gzip-upload" else ""))
        bot.event(message("", ts, subtype="file_share", files=[f]))
    else:
        text = f"{MENTION} {SECRET_LOG}" if how == "mention" else SECRET_LOG
        bot.event(message(text, ts, channel=channel, **({"channel_type": "im"} if how == "dm" else {})))
    wait_handled(bot, ts, channel=channel, timeout=30)
    assert "cuda-oom" in json.dumps(posts(fake_slack)[0].params)
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0ALICEDM", "tab": "home",
               "event_ts": f"{time.time():.6f}"})
    fake_slack.wait_for("views.publish", timeout=15)
    quiesce(bot, fake_slack)
    assert_nothing_leaked(fake_slack)


def test_nothing_secret_in_a_follow_up_or_a_lookup_is_echoed(bot: Bot, fake_slack):
    ts, q = "1701501110.000100", "1701501111.000100"
    bot.event(message(SECRET_LOG, ts))
    wait_handled(bot, ts)
    bot.event(message(f"is {SECRETS['host']} ({SECRETS['ip']}) bad hardware? ask {SECRETS['email']}", q, thread_ts=ts))
    wait_handled(bot, q)
    assert len(posts(fake_slack)) == 2
    command_answer(bot, fake_slack, f"CUDA out of memory on {SECRETS['host']} token {SECRETS['hf']}")
    quiesce(bot, fake_slack)
    assert_nothing_leaked(fake_slack)


def test_nothing_posted_renders_live_markup_from_a_log(bot: Bot, fake_slack):
    """A log quoting `<!channel>`, a user and a link: nothing posted pings or links."""
    ts = "1701501120.000100"
    log_text = OOM_PASTE + "[rank3]: note: <!channel> <!here> <@U0BOB> <https://evil.example/x|click> &lt;!everyone&gt;\n"
    bot.event(message(log_text, ts))
    wait_handled(bot, ts)
    for p in posts(fake_slack):
        for s in mrkdwn_strings(p):
            assert not LIVE_MRKDWN.search(s), s[:300]


# --- 13. the process survives all of it ----------------------------------------------------------------

def test_after_the_audit_the_bot_is_healthy_and_answers(bot: Bot, fake_slack):
    """The bot that took everything above still answers /healthz and a fresh log."""
    assert bot.get("/healthz").status == 200
    ts = "1701501200.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    assert len(posts(fake_slack)) == 1


# --- 14. uploads seen only as `file_shared` -------------------------------------------------------------

def _shares(ts: str) -> dict[str, Any]:
    return {"public": {"C0LOGS": [{"ts": ts, "channel_name": "training", "team_id": TEAM_ID}]}}


@pytest.mark.parametrize(("name", "content", "kw", "expect", "charged"), [
    ("rank3.log.gz", gzip.compress(OOM_PASTE.encode(), mtime=0), {"filetype": "gzip"}, "cuda-oom", 1),
    ("core.bin", bytes(range(256)) * 40, {}, "", 0),
    ("empty.log", b"", {}, "", 0),
    ("huge.log", b"x\n", {"declared_size": UPLOAD_CAP * 10}, "over the", 0),
], ids=["gzip", "binary", "empty", "huge"])
def test_an_upload_seen_only_as_file_shared_is_answered_under_its_message(bot: Bot, fake_slack, name, content, kw,
                                                                          expect, charged):
    """Only the `file_shared` event comes (the message event lost): the file is looked up,
    answered once under the message files.info names, charged only when diagnosed."""
    ts = "1701501300.000100"
    upload(fake_slack, "F15FS" + name[:4].upper(), content, name, shares=_shares(ts), **kw)
    assert bot.event(file_shared("F15FS" + name[:4].upper())).status == 200
    fake_slack.wait_for("chat.postMessage", timeout=20)
    settle(bot, fake_slack, 1.0)
    (post,) = posts(fake_slack)
    assert post.params["thread_ts"] == ts and expect in all_text(post)
    assert used(bot) == charged
    if kw.get("declared_size"):
        assert fake_slack.of("files.download") == []


# --- 15. Slack re-sending while a post is rate limited --------------------------------------------------

def test_retries_while_the_post_waits_out_a_429_are_one_reply(bot: Bot, fake_slack):
    """chat.postMessage answers 429 (Retry-After 2) and Slack, seeing no answer yet, re-sends
    the event (`http_timeout`) twice meanwhile: one reply lands, one charge."""
    ts = "1701501400.000100"
    fake_slack.fail("chat.postMessage", 429, times=1, retry_after=2)
    ev = message(OOM_PASTE, ts)
    bot.event(ev, event_id="Ev15WAIT429")
    for n in (1, 2):
        time.sleep(0.5)
        bot.event(ev, event_id="Ev15WAIT429", headers={"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": "http_timeout"})
    wait_handled(bot, ts, timeout=30)
    assert len(posts(fake_slack)) == 2 and used(bot) == 1  # the refused try, then the one that landed


@pytest.mark.parametrize("error", ["channel_not_found", "not_in_channel"])
def test_a_follow_up_or_help_refused_by_slack_is_dropped_quietly(bot: Bot, fake_slack, error):
    """The answer to a question, or the help in a DM, refused for good: one try each, no
    crash, the bot answers on."""
    ts, q = "1701501410.000100", "1701501411.000100"
    bot.event(message(OOM_PASTE, ts))
    wait_handled(bot, ts)
    fake_slack.fail("chat.postMessage", 200, times=2, body={"ok": False, "error": error})
    bot.event(message("how do I confirm this?", q, thread_ts=ts))
    wait_handled(bot, q)
    bot.event(message("hello", "1701501412.000100", channel="D0ALICEDM", channel_type="im"))
    wait_handled(bot, "1701501412.000100", channel="D0ALICEDM")
    assert len(posts(fake_slack)) == 3
    bot.event(message("how do I confirm this?", "1701501413.000100", thread_ts=ts))
    wait_handled(bot, "1701501413.000100")
    assert len(posts(fake_slack)) == 4 and used(bot) == 1


# --- 16. Redis down, beyond a pasted log ------------------------------------------------------------------

def test_with_redis_down_a_lookup_a_dm_and_a_thread_question_are_answered_or_told(bot_without_redis: Bot, fake_slack):
    dead = bot_without_redis
    start = time.monotonic()
    reply = dead.command("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert reply.status == 200 and time.monotonic() - start < 3.0
    body = reply.body.decode()
    assert "cuda-oom" in body or "temporarily unavailable" in body
    dead.event(message("hello", "1701501500.000100", channel="D0ALICEDM", channel_type="im"))
    dead.event(message("how do I confirm this?", "1701501501.000100", thread_ts="1701501400.000100"))
    fake_slack.wait_for("chat.postMessage", count=2, timeout=20)
    time.sleep(1.0)
    got = posts(fake_slack)
    assert len(got) == 2 and all("temporarily unavailable" in all_text(p) or HELP_MARK in all_text(p) for p in got)
    assert "Traceback" not in dead.log_path.read_text()  # type: ignore[attr-defined]


# --- 17. masking: file names, unmatched lines, evidence, the bot's own log ------------------------------

@pytest.mark.parametrize(("content", "kw"), [
    (bytes(range(256)) * 40, {}), (b"", {}), (b"x\n", {"declared_size": UPLOAD_CAP * 3}),
    (SECRET_LOG.encode(), {}),
], ids=["binary", "empty", "huge", "log"])
def test_a_file_name_holding_personal_data_is_never_posted(bot: Bot, fake_slack, content, kw):
    ts = "1701501600.000100"
    name = f"{SECRETS['email']}_{SECRETS['host']}_{SECRETS['ip']}.log"
    f = upload(fake_slack, "F15NAME" + str(len(content) % 1000), content, name, **kw)
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts, timeout=30)
    assert len(posts(fake_slack)) == 1
    quiesce(bot, fake_slack)
    assert_nothing_leaked(fake_slack)


UNMATCHED_SECRET = (
    "[rank0]: Traceback (most recent call last):\n"
    '[rank0]:   File "/home/jdoe/train.py", line 88, in <module>\n'
    f"[rank0]: RuntimeError: ZorgleFault: frobnicator at {SECRETS['host']} ({SECRETS['ip']}) rejected "
    f"token {SECRETS['hf']} for {SECRETS['email']}\n"
)


@pytest.mark.parametrize("question", ["show me the lines", "which rank failed first?", "what else could it be?",
                                      "which ranks and hosts?"])
def test_run_answers_and_unmatched_lines_carry_nothing_secret(bot: Bot, fake_slack, question):
    """Evidence shown in follow-ups, the hosts named, and the most telling line of a log no
    entry matched: all masked."""
    for i, log_text in enumerate((SECRET_LOG, UNMATCHED_SECRET)):
        ts, q = f"170150170{i}.000100", f"170150170{i}.000200"
        bot.event(message(log_text, ts, user=f"U0USER{i}"))
        wait_handled(bot, ts)
        bot.event(message(question, q, thread_ts=ts, user=f"U0USER{i}"))
        wait_handled(bot, q)
    assert len(posts(fake_slack)) == 4
    quiesce(bot, fake_slack)
    assert_nothing_leaked(fake_slack)


def test_the_bots_own_log_holds_nothing_secret(bot: Bot, fake_slack):
    """What the bot writes to its own log (stdout) while reading pastes, uploads, lookups,
    questions and failures is masked as well."""
    log_path = Path(bot.log_path)  # type: ignore[attr-defined]
    start = log_path.stat().st_size
    ts = "1701501800.000100"
    bot.event(message(SECRET_LOG, ts))
    wait_handled(bot, ts)
    bot.event(message(f"is {SECRETS['host']} broken?", "1701501800.000200", thread_ts=ts))
    wait_handled(bot, "1701501800.000200")
    f = upload(fake_slack, "F15OWNLOG", UNMATCHED_SECRET.encode(), f"{SECRETS['email']}.log")
    fake_slack.fail("chat.postMessage", 200, times=1, body={"ok": False, "error": "not_in_channel"})
    bot.event(message("", "1701501801.000100", subtype="file_share", files=[f]))
    wait_handled(bot, "1701501801.000100", timeout=30)
    command_answer(bot, fake_slack, f"CUDA out of memory {SECRETS['github']} {SECRETS['email']}")
    bot.event(message(f"{MENTION} {SECRETS['aws']} {SECRETS['email']}", "1701501802.000100"))
    wait_handled(bot, "1701501802.000100")
    quiesce(bot, fake_slack)
    with log_path.open("rb") as fh:
        fh.seek(start)
        written = fh.read().decode("utf-8", "replace")
    for kind, secret in SECRETS.items():
        assert secret not in written, kind


@pytest.mark.parametrize("text", ["show ../../etc/passwd", "show (a+)+$", "show " + "x" * 5000, "show <!channel>",
                                  "show cuda-oom cuda-oom", "redeem " + "(" * 500, "quota please <!here>"],
                         ids=["path", "regex", "long-id", "special", "two-ids", "hostile-code", "quota-special"])
def test_hostile_arguments_to_show_redeem_and_quota_are_answered_inertly(bot: Bot, fake_slack, text):
    took, _, body = command_answer(bot, fake_slack, text)
    assert took < 3.0 and (body.get("text") or body.get("blocks"))
    for s in [body.get("text") or ""] + [b.get("text", {}).get("text", "") for b in body.get("blocks") or []
                                         if isinstance(b.get("text"), dict)]:
        assert not LIVE_MRKDWN.search(s), s[:300]
    assert posts(fake_slack) == [] and used(bot) == 0
