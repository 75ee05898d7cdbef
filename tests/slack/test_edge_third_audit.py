"""Third audit of the Slack edge: the scenarios an outside check built from SLACK.md, DESIGN.md
and README.md alone would run that no other file runs yet, through the real bot over signed
HTTP against the recording stand-in (/tmp/slackedge3/scenarios.md lists all ~100 and where
each is covered). Event shapes follow Slack's reference pages (docs.slack.dev/reference/events:
file_shared carries only `file_id`, `file`, `user_id`, `channel_id`, `event_ts`)."""

from __future__ import annotations

import json
import time
import urllib.parse

import pytest
import redis

from bot.store import Store, StoreConfig
from tests.slack.conftest import Bot, sign, wait_handled
from tests.slack.events import CHANNEL, all_text, file_shared, message, used
from tests.slack.fake_slack import BOT_USER_ID, TEAM_ID, FakeFile

SAMPLE_PATH = "tests/data/samples/rank3-oom-8-ranks.log"
MESSAGE_METHODS = ("chat.postMessage", "chat.postEphemeral", "chat.update")


@pytest.fixture(scope="module")
def sample() -> str:
    from tests.slack.conftest import ROOT

    return (ROOT / SAMPLE_PATH).read_text()


def retried(bot: Bot, event: dict, event_id: str) -> None:
    """Deliver `event` as Slack does when it thinks the first delivery failed: the original,
    then retries 1 to 3 with the same event id."""
    assert bot.event(event, event_id=event_id).status == 200
    for n in (1, 2, 3):
        reply = bot.event(event, event_id=event_id, headers={"X-Slack-Retry-Num": str(n),
                                                             "X-Slack-Retry-Reason": "http_timeout"})
        assert reply.status == 200


def store_for(bot: Bot) -> Store:
    return Store(StoreConfig(url=bot.redis_url))


# --- retries and the same thing twice ------------------------------------------------------

def test_an_upload_as_file_shared_and_file_share_each_retried_three_times_is_one_reply(bot, fake_slack, sample):
    """An upload arrives as `file_shared` (ids only) and a `message` with subtype file_share;
    Slack re-sends each up to three times: one reply under the message, one download, one charge."""
    f = fake_slack.add_file(FakeFile(id="F0TWOWAYS1", name="train.log", content=sample.encode()))
    ts = "1700200000.000100"
    retried(bot, file_shared("F0TWOWAYS1"), "EvFILESHARED1")
    retried(bot, message("", ts, subtype="file_share", files=[f]), "EvFILESHARE1")
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == ts and "cuda-oom" in all_text(post)
    assert len(fake_slack.of("files.download")) == 1
    assert used(bot) == 1


def test_a_mention_with_a_log_retried_as_both_events_is_one_reply(bot, fake_slack, sample):
    """"@denpex <log>" arrives as `message` and `app_mention` (two event ids), each re-sent
    three times: one reply, one charge."""
    ts = "1700200100.000100"
    text = f"<@{BOT_USER_ID}> our run died:\n{sample}"
    retried(bot, message(text, ts), "EvMENTIONMSG1")
    retried(bot, {**message(text, ts), "type": "app_mention"}, "EvMENTIONAPP1")
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post)
    assert used(bot) == 1


def test_a_follow_up_retried_three_times_is_answered_once(bot, fake_slack, sample):
    """A question in a diagnosis thread re-sent by Slack three times: one answer."""
    bot.event(message(sample, "1700200200.000100"))
    wait_handled(bot, "1700200200.000100")
    q = message("how do I confirm this?", "1700200200.000300", thread_ts="1700200200.000100")
    retried(bot, q, "EvQUESTION01")
    wait_handled(bot, "1700200200.000300")
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 2 and posts[1].params["thread_ts"] == "1700200200.000100"
    assert used(bot) == 1


@pytest.mark.parametrize("text", [":+1:", ":pray: :pray:", "```\n```", "\u200b\u200d", "!!!"],
                         ids=["thumbs-up", "emoji", "empty-fence", "invisible", "punctuation"])
def test_a_wordless_reply_in_a_diagnosis_thread_gets_nothing(bot, fake_slack, sample, text):
    """":+1:" or an empty code block typed under a diagnosis is a reaction, not a question: no
    topic buttons, nothing counted. "@denpex" alone there still gets the topics."""
    bot.event(message(sample, "1700200250.000100"))
    wait_handled(bot, "1700200250.000100")
    bot.event(message(text, "1700200250.000200", thread_ts="1700200250.000100"))
    wait_handled(bot, "1700200250.000200")
    assert len(fake_slack.of("chat.postMessage")) == 1
    bot.event({**message(f"<@{BOT_USER_ID}>", "1700200250.000300", thread_ts="1700200250.000100"),
               "type": "app_mention"})
    wait_handled(bot, "1700200250.000300")
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 2 and "not sure what you are asking" in all_text(posts[1])


# --- message shapes ------------------------------------------------------------------------

def test_a_log_file_shared_into_a_thread_is_answered_in_that_thread(bot, fake_slack, sample):
    """An upload made as a reply in a thread (file_share with thread_ts): the diagnosis goes to
    that thread, not a new one under the upload."""
    f = fake_slack.add_file(FakeFile(id="F0INTHREAD", name="rank3.log", content=sample.encode()))
    parent, ts = "1700200300.000100", "1700200300.000200"
    bot.event(message("", ts, subtype="file_share", files=[f], thread_ts=parent))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == parent and "cuda-oom" in all_text(post)
    assert used(bot) == 1


@pytest.mark.parametrize("text", ["```\n```", "``````", "```   \n\n```", "> ", "`   `", "&gt; ```\n```"],
                         ids=["fence-newline", "fence-empty", "fence-blank", "quote-blank", "inline-code-blank",
                              "quoted-fence"])
def test_a_paste_of_only_formatting_gets_nothing(bot, fake_slack, text):
    """An empty code block, an empty quote: nothing to read, nothing posted, nothing charged."""
    ts = f"1700200400.{abs(hash(text)) % 1000000:06d}"
    bot.event(message(text, ts))
    wait_handled(bot, ts)
    assert fake_slack.of("chat.postMessage") == [] and used(bot) == 0


def test_an_empty_code_block_mentioning_the_bot_gets_help(bot, fake_slack):
    """"@denpex ```\\n```": a message to the bot with nothing to read gets help, not a diagnosis."""
    ts = "1700200500.000100"
    bot.event({**message(f"<@{BOT_USER_ID}> ```\n```", ts), "type": "app_mention"})
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "/denpex" in all_text(post) and used(bot) == 0


def test_a_log_in_a_dm_is_diagnosed_in_its_thread_and_charged(bot, fake_slack, sample):
    """A log sent to the bot in a DM (channel_type im): diagnosed in the DM's thread, one charge."""
    ts = "1700200600.000100"
    bot.event(message(sample, ts, channel="D0ALICE001", channel_type="im"))
    wait_handled(bot, ts, channel="D0ALICE001")
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["channel"] == "D0ALICE001" and post.params["thread_ts"] == ts
    assert "cuda-oom" in all_text(post) and used(bot) == 1


def test_several_log_files_in_one_message_are_one_run_one_reply_one_charge(bot, fake_slack, sample):
    """Per-rank logs uploaded together in one message: one reply, the root cause found across
    them, one charge."""
    lines = sample.splitlines(keepends=True)
    half = len(lines) // 2
    a = fake_slack.add_file(FakeFile(id="F0RANKS001", name="part1.log", content="".join(lines[:half]).encode()))
    b = fake_slack.add_file(FakeFile(id="F0RANKS002", name="part2.log", content="".join(lines[half:]).encode()))
    ts = "1700200700.000100"
    bot.event(message("", ts, subtype="file_share", files=[a, b]))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post)
    assert len(fake_slack.of("files.download")) == 2 and used(bot) == 1


@pytest.mark.parametrize("name,encode", [
    ("train.log", lambda t: t.encode("utf-16")),
    ("train.txt", lambda t: b"\xef\xbb\xbf" + t.encode()),
    ("train.log.bz2", lambda t: __import__("bz2").compress(t.encode())),
    ("train.log.xz", lambda t: __import__("lzma").compress(t.encode())),
    ("job.err", lambda t: t.encode()),
    ("job.out", lambda t: t.replace("\n", "\r\n").encode()),
], ids=["utf16-windows", "utf8-bom", "bz2", "xz", "err", "out-crlf"])
def test_uploads_in_every_form_the_readme_names_are_diagnosed(bot, fake_slack, sample, name, encode):
    """The upload forms README names beside .log and gzip (UTF-16 from Windows, a BOM, bzip2,
    xz, .err and .out with CRLF line ends): read and diagnosed, one charge."""
    f = fake_slack.add_file(FakeFile(id="F0FORM0001", name=name, content=encode(sample), filetype="text"))
    ts = "1700200750.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post) and used(bot) == 1


def test_an_enterprise_grid_workspace_event_is_charged_to_the_workspace(bot, fake_slack, sample):
    """A workspace install inside an Enterprise Grid org: the envelope and authorizations
    carry `enterprise_id` with `is_enterprise_install: false`; the workspace, not the org, is
    charged."""
    ts = "1700200800.000100"
    body = {"token": "legacy", "team_id": TEAM_ID, "enterprise_id": "E0GRIDORG1", "api_app_id": "A0DENPEX",
            "type": "event_callback", "event_id": "EvGRIDWS0001", "event_time": int(time.time()),
            "event": {**message(sample, ts), "team": TEAM_ID},
            "authorizations": [{"enterprise_id": "E0GRIDORG1", "team_id": TEAM_ID, "user_id": BOT_USER_ID,
                                "is_bot": True, "is_enterprise_install": False}],
            "is_ext_shared_channel": False}
    assert bot.post(json.dumps(body).encode(), "application/json").status == 200
    wait_handled(bot, ts)
    assert "cuda-oom" in all_text(fake_slack.of("chat.postMessage")[0])
    assert used(bot, TEAM_ID) == 1 and used(bot, "E0GRIDORG1") == 0


# --- secrets in uploads --------------------------------------------------------------------

def test_a_secret_in_an_uploaded_log_is_masked_in_the_reply_and_redis(bot, fake_slack):
    """An uploaded log whose error line carries a token, an address and a corporate host: the
    evidence in the reply is masked, and Redis holds none of them."""
    token, email = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm01234567", "bob.jones@corp.example.com"
    log = ("[rank3]: Traceback (most recent call last):\n[rank3]:   File \"train.py\", line 9, in <module>\n"
           "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
           f"capacity of 79.15 GiB of which 1.2 GiB is free. run by {email} token={token} "
           "on node gpu-17.corp.example.com\n")
    f = fake_slack.add_file(FakeFile(id="F0SECRET01", name="train.log", content=log.encode()))
    ts = "1700200900.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    out = all_text(post)
    assert "cuda-oom" in out
    with redis.Redis.from_url(bot.redis_url) as r:
        dump = " ".join(f"{k!r} {r.dump(k)!r}" for k in r.scan_iter())
    for leak in (token[:12], email, "bob.jones", "corp.example.com"):
        assert leak not in out and leak not in dump, leak


# --- Slack Web API faults ------------------------------------------------------------------

@pytest.mark.parametrize("status,retry_after", [(429, 1), (500, None), (503, None)], ids=["429", "500", "503"])
def test_files_info_failing_once_is_retried_and_answered_once(bot, fake_slack, sample, status, retry_after):
    """files.info answering 429 (Retry-After: 1) or a 5xx once: retried, one reply, one charge."""
    fake_slack.fail("files.info", status, times=1, retry_after=retry_after)
    f = fake_slack.add_file(FakeFile(id=f"F0INFO{status}", name="train.log", content=sample.encode()))
    ts = f"1700201000.000{status}"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post)
    assert len(fake_slack.of("files.info")) == 2 and used(bot) == 1


@pytest.mark.parametrize("error", ["invalid_auth", "account_inactive", "token_revoked", "not_authed"])
def test_a_bot_token_slack_no_longer_takes_charges_nothing_and_does_not_loop(bot, fake_slack, sample, error):
    """chat.postMessage answering an auth error (the token was revoked, the workspace deleted):
    not retried in a loop, the charge refunded, and the next log is answered once Slack takes
    the token again."""
    fake_slack.fail("chat.postMessage", 200, times=3, body={"ok": False, "error": error})
    ts = "1700201100.000100"
    assert bot.event(message(sample, ts)).status == 200
    wait_handled(bot, ts)
    assert len(fake_slack.of("chat.postMessage")) == 1  # refused: Slack posted nothing, asking again cannot help
    assert used(bot) == 0
    with fake_slack.lock:
        fake_slack.failures.clear()
    bot.event(message(sample, "1700201100.000200"))
    wait_handled(bot, "1700201100.000200")
    assert used(bot) == 1


def test_a_download_answering_404_says_so_and_charges_nothing(bot, fake_slack, sample):
    """files.info knows the file but its download answers 404 (deleted meanwhile): one message
    saying it could not be read, nothing charged."""
    f = fake_slack.add_file(FakeFile(id="F0GONE0001", name="train.log", content=sample.encode(),
                                     download_url=f"{fake_slack.base}/files/F0NOSUCHFILE/download/train.log"))
    ts = "1700201200.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "train.log" in all_text(post) and "cuda-oom" not in all_text(post)
    assert used(bot) == 0


# --- slash commands ------------------------------------------------------------------------

def _command_in(bot: Bot, text: str, channel: str, channel_name: str) -> dict:
    form = dict(urllib.parse.parse_qsl(Bot.command_body(text).decode()))
    form.update(channel_id=channel, channel_name=channel_name)
    reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    assert reply.status == 200
    return reply.json()


def test_alerts_revoke_in_a_dm_says_where_to_run_it(bot):
    """`/denpex alerts revoke` in a DM: told to run it in the channel."""
    answer = _command_in(bot, "alerts revoke", "D0ALICE01", "directmessage")
    assert "not in a direct message" in answer["text"] and answer["response_type"] == "ephemeral"


def test_alerts_connect_on_free_is_refused_and_on_scale_gives_a_token_once(bot):
    """Free plan: told alerts are a Scale feature, no token. Scale: a token in the ephemeral
    answer, kept only hashed in Redis."""
    free = _command_in(bot, "alerts connect", CHANNEL, "training")
    assert "Scale plan feature" in json.dumps(free) and "dpx1" not in json.dumps(free)
    from datetime import UTC, datetime, timedelta

    with store_for(bot) as store:
        store.plans.grant(TEAM_ID, "scale", datetime.now(UTC) + timedelta(days=14))
    scale = _command_in(bot, "alerts connect", CHANNEL, "training")
    shown = json.dumps(scale)
    assert scale["response_type"] == "ephemeral" and "dpx1" in shown
    token = shown.split("```")[1]
    with redis.Redis.from_url(bot.redis_url) as r:
        dump = " ".join(f"{k!r} {r.dump(k)!r}" for k in r.scan_iter())
    assert token not in dump


def test_quota_on_scale_says_fifty(bot):
    """`/denpex quota` on the Scale plan names the plan and its 50 a day."""
    from datetime import UTC, datetime, timedelta

    with store_for(bot) as store:
        store.plans.grant(TEAM_ID, "scale", datetime.now(UTC) + timedelta(days=14))
    answer = bot.command("quota").json()
    assert "scale" in answer["text"].lower() and "50" in answer["text"]


def test_a_stale_or_future_signed_slash_command_is_refused(bot, fake_slack):
    """A form body (slash command) signed 6 minutes ago or 6 minutes ahead: 401, nothing run."""
    body = Bot.command_body("quota")
    now = int(time.time())
    for ts in (now - 360, now + 360):
        reply = bot.post(body, "application/x-www-form-urlencoded", headers=sign(body, ts), sign_it=False)
        assert reply.status == 401
    tampered = body.replace(b"quota", b"help")
    assert bot.post(tampered, "application/x-www-form-urlencoded", headers=sign(body), sign_it=False).status == 401


def test_url_verification_with_a_bad_signature_is_refused(bot):
    """Slack signs the URL check too: a forged one gets 401, not the challenge."""
    body = json.dumps({"type": "url_verification", "challenge": "forged-challenge", "token": "x"}).encode()
    reply = bot.post(body, "application/json", headers={"X-Slack-Signature": "v0=" + "1" * 64,
                                                        "X-Slack-Request-Timestamp": str(int(time.time()))},
                     sign_it=False)
    assert reply.status == 401 and b"forged-challenge" not in reply.body


# --- buttons -------------------------------------------------------------------------------

@pytest.mark.parametrize("action_id", ["denpex_feedback_right", "denpex_feedback_wrong", "denpex_full_entry",
                                       "denpex_related_0"])
@pytest.mark.parametrize("value", ["no-such-entry", "../../etc/passwd", "", "x" * 2000, "<!channel>"],
                         ids=["unknown", "path", "empty", "huge", "markup"])
def test_a_stale_or_unknown_button_value_does_nothing(bot, fake_slack, action_id, value):
    """A button whose entry no longer exists (a removed entry, an old message) or whose value
    is not an entry id: acked, nothing posted in the channel, no vote counted. A vote for such
    an entry tells the person who clicked, privately, that it was not recorded (the twentieth
    audit); the value itself is never echoed."""
    reply = bot.action(action_id, value)
    assert reply.status == 200
    if value and action_id.startswith("denpex_feedback_"):
        (note,) = fake_slack.wait_for("chat.postEphemeral", count=1)
        assert note.params["user"] == "U0ALICE" and "not recorded" in note.params["text"]
        assert value not in note.params["text"]
    time.sleep(0.3)
    noted = 1 if value and action_id.startswith("denpex_feedback_") else 0
    assert len([c for c in fake_slack.calls if c.method in MESSAGE_METHODS]) == noted
    with store_for(bot) as store:
        assert store.feedback.summary() == []


def test_a_vote_clicked_twice_counts_once_and_can_change(bot, fake_slack):
    """The same person clicking "right" twice on one diagnosis, then "wrong": one vote, the last."""
    for action in ("denpex_feedback_right", "denpex_feedback_right", "denpex_feedback_wrong"):
        bot.action(action, "cuda-oom")
    fake_slack.wait_for("chat.postEphemeral", count=3)
    with store_for(bot) as store:
        (row,) = store.feedback.summary()
    assert (row.rule_id, row.right, row.wrong) == ("cuda-oom", 0, 1)


# --- every message within Block Kit's limits, with a plain-text fallback -------------------

def _check_message(params: dict) -> None:
    text = params.get("text")
    assert isinstance(text, str) and text.strip(), f"no plain-text fallback: {params}"
    assert len(text) <= 4000
    blocks = params.get("blocks") or []
    assert len(blocks) <= 50
    total = 0
    for b in blocks:
        if b["type"] == "section" and "text" in b:
            assert len(b["text"]["text"]) <= 3000
            total += len(b["text"]["text"])
        if b["type"] == "header":
            assert len(b["text"]["text"]) <= 150
        if b["type"] == "context":
            total += sum(len(e.get("text", "")) for e in b.get("elements", []))
    assert total <= 12_000, total


def test_every_message_the_bot_sends_has_a_text_fallback_and_fits_block_kit(bot, fake_slack, sample):
    """Diagnoses (matched, unmatched, huge), help, the limit notice, follow-ups, entry and
    feedback clicks, slash answers: each carries a non-empty plain `text` under 4,000
    characters, and blocks within 50 / 3,000 / 150 and ~12k in all."""
    huge = "".join(f"[rank{i % 8}]: RuntimeError: {f'frobnication failed at stage {i} ' * 40}\n" for i in range(200))
    events = [
        message(sample, "1700201300.000100"),
        message(huge, "1700201300.000200", channel="C0HUGE"),
        message("hi", "1700201300.000300", channel="D0ALICE02", channel_type="im"),
        message(sample, "1700201300.000400", channel="C0THIRD"),
        message(sample, "1700201300.000500", channel="C0FOURTH"),
        message(sample, "1700201300.000800", channel="C0FIFTH"),  # over the free quota
    ]
    # The quota goes to whichever paste the bot reaches first: the matched and the unmatched
    # one are answered before the three that use up and pass the free plan's three.
    for batch in (events[:2], events[2:]):
        for ev in batch:
            bot.event(ev)
        for ev in batch:
            wait_handled(bot, ev["ts"], channel=ev["channel"])
    bot.event(message("how do I confirm this?", "1700201300.000600", thread_ts="1700201300.000100"))
    bot.event(message("can you rerun it with NCCL_DEBUG=INFO?", "1700201300.000700", thread_ts="1700201300.000100"))
    wait_handled(bot, "1700201300.000600", "1700201300.000700")
    bot.action("denpex_full_entry", "cuda-oom", thread_ts="1700201300.000100")
    bot.action("denpex_related_0", "nccl-watchdog-timeout", thread_ts="1700201300.000100")
    bot.action("denpex_feedback_wrong", "cuda-oom", thread_ts="1700201300.000100")
    fake_slack.wait_for("chat.postEphemeral")
    fake_slack.wait_for("chat.postMessage", count=len(events) + 4)
    sent = [c for c in fake_slack.calls if c.method in ("chat.postMessage", "chat.postEphemeral", "chat.update")]
    assert len(sent) >= len(events) + 5
    texts = " ".join(all_text(c) for c in sent)
    assert "Daily limit reached" in texts and "No known failure matched" in texts, [all_text(c)[:300] for c in sent]
    for call in sent:
        _check_message(call.params)
    for text in ("", "help", "quota", "show cuda-oom", "CUDA out of memory", "frobnicate the thing", "x" * 3900):
        _check_message(bot.command(text).json())


def _every_entrys_first_example() -> str:
    """One log holding the first example of every entry: a diagnosis with ~200 matches."""
    import yaml

    from tests.slack.conftest import ROOT

    logs = []
    for path in sorted((ROOT / "rules").glob("*/*.yaml")):
        examples = (yaml.safe_load(path.read_text()).get("examples") or {}).get("match") or []
        if examples and examples[0].get("log"):
            logs.append(examples[0]["log"])
    return "\n".join(logs)


def test_a_log_matching_every_entry_is_one_reply_within_block_kit(bot, fake_slack):
    """An upload in which every entry of the knowledge base matches (about 200 matches, several
    hundred evidence lines), and the first 40,000 characters of it pasted (Slack's cut): each one
    reply that fits Block Kit with a text fallback, one charge each."""
    text = _every_entrys_first_example()
    f = fake_slack.add_file(FakeFile(id="F0EVERYONE", name="everything.log", content=text.encode()))
    bot.event(message("", "1700201400.000100", subtype="file_share", files=[f]))
    bot.event(message(text[:40_000], "1700201400.000200", channel="C0PASTED"))
    wait_handled(bot, "1700201400.000100")
    wait_handled(bot, "1700201400.000200", channel="C0PASTED")
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 2
    for post in posts:
        _check_message(post.params)
    assert used(bot) == 2


# --- a mention in a public channel is a public diagnosis -----------------------------------

def _app_mention(text: str, ts: str, channel: str = CHANNEL) -> dict:
    """An app_mention as Slack sends it: no channel_type (docs.slack.dev/reference/events/app_mention)."""
    return {"type": "app_mention", "user": "U0ALICE", "text": text, "ts": ts, "channel": channel,
            "event_ts": ts, "team": TEAM_ID}


@pytest.mark.parametrize("first", ["app_mention", "message"])
def test_a_mention_with_a_log_in_a_public_channel_is_listed_to_everyone(bot, fake_slack, sample, first):
    """"@denpex <log>" in a public channel arrives as an app_mention (no channel_type) and a
    message (channel_type channel), in either order: one reply, and the diagnosis is a public
    channel's, in a colleague's Home tab too (README: only DM and private diagnoses are listed
    to their asker alone)."""
    ts = "1700201500.000100"
    text = f"<@{BOT_USER_ID}> our run died:\n{sample}"
    events = {"app_mention": _app_mention(text, ts), "message": message(text, ts)}
    second = "message" if first == "app_mention" else "app_mention"
    bot.event(events[first])
    time.sleep(0.1)
    bot.event(events[second])
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert "cuda-oom" in all_text(post) and used(bot) == 1
    bot.event({"type": "app_home_opened", "user": "U0CAROL", "channel": "D0HOME", "tab": "home"})
    view = json.dumps(fake_slack.wait_for("views.publish")[0].params["view"])
    assert f"<#{CHANNEL}> CUDA Out of Memory" in view, view


def test_a_mention_alone_is_still_answered(bot, fake_slack):
    """An app_mention with no message event beside it (the bot invited by the mention): help."""
    ts = "1700201600.000100"
    bot.event(_app_mention(f"<@{BOT_USER_ID}> what can you do?", ts))
    wait_handled(bot, ts)
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["thread_ts"] == ts and "/denpex" in all_text(post)
