"""The Slack bot end to end: signed requests in, Web API calls out, Redis state in between."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import redis

from bot.store import Store, StoreConfig
from tests.slack.conftest import INFLATED_CAP, UPLOAD_CAP, wait_handled
from tests.slack.events import CHANNEL, all_text, message
from tests.slack.fake_slack import TEAM_ID, FakeFile, FakeSlack

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()


def settle(seconds: float = 0.3) -> None:
    """Give lazy listeners time to act when the test asserts that nothing happened, for
    requests that leave no claim to wait for (refused ones, bot messages, edits)."""
    time.sleep(seconds)


def store_for(bot) -> Store:
    return Store(StoreConfig(url=bot.redis_url))


def check_limits(call) -> None:
    blocks = call.params.get("blocks") or []
    assert len(blocks) <= 50
    for b in blocks:
        if b["type"] == "section":
            assert len(b["text"]["text"]) <= 3000
        if b["type"] == "header":
            assert len(b["text"]["text"]) <= 150
    assert call.params.get("text"), "every message needs a plain-text fallback"


def test_url_verification_is_answered(bot):
    """Slack's URL check gets its challenge back."""
    body = json.dumps({"type": "url_verification", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "token": "x"}).encode()
    reply = bot.post(body, "application/json")
    assert reply.status == 200 and b"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" in reply.body


def test_bad_signature_and_stale_timestamp_are_refused(bot, fake_slack):
    """A forged signature or a replayed old request gets 401 and does nothing."""
    body = json.dumps({"type": "event_callback", "team_id": TEAM_ID, "event_id": "Ev1", "event": message(SAMPLE, "1.1")}).encode()
    forged = bot.post(body, "application/json", headers={"X-Slack-Signature": "v0=" + "0" * 64}, sign_it=True)
    stale = bot.post(body, "application/json", ts=int(time.time()) - 600)
    unsigned = bot.post(body, "application/json", sign_it=False)
    assert (forged.status, stale.status, unsigned.status) == (401, 401, 401)
    settle()
    assert fake_slack.of("chat.postMessage") == []


def test_pasted_log_gets_a_threaded_diagnosis(bot, fake_slack):
    """A pasted multi-rank log: :mag:, then the root cause in the thread, then a done mark."""
    reply = bot.event(message(SAMPLE, "1700000100.000100"))
    assert reply.status == 200
    post = fake_slack.wait_for("chat.postMessage")[0]
    assert post.params["thread_ts"] == "1700000100.000100" and post.params["channel"] == CHANNEL
    text = all_text(post)
    assert "CUDA Out of Memory" in text or "cuda-oom" in text
    assert "Initiating rank:* 3" in text
    check_limits(post)
    fake_slack.wait_for("reactions.add", name="white_check_mark")
    adds = [c.params["name"] for c in fake_slack.of("reactions.add")]
    assert adds[0] == "mag"
    assert store_for(bot).quotas.status(TEAM_ID).used == 1


def test_chatter_gets_nothing(bot, fake_slack):
    """Messages that are not logs (or are edits, joins, bots) get no reply and no reaction."""
    bot.event({**message(SAMPLE, "1700000202.000100"), "bot_id": "B0OTHER", "subtype": "bot_message"})
    bot.event({**message(SAMPLE, "1700000203.000100"), "subtype": "message_changed"})
    bot.event({"type": "member_joined_channel", "user": "U0BOB", "channel": CHANNEL})
    bot.event(message("lunch at noon? the training run looks fine btw", "1700000200.000100"))
    bot.event(message("anyone seen out of memory errors today?", "1700000201.000100"))
    wait_handled(bot, "1700000200.000100", "1700000201.000100")
    settle(0.1)  # the bot's and the edited message leave no claim
    assert fake_slack.of("chat.postMessage") == []
    assert [c.params["name"] for c in fake_slack.of("reactions.add")].count("white_check_mark") == 0


def test_retried_event_is_answered_and_charged_once(bot, fake_slack):
    """Slack's re-sent event (same event_id, X-Slack-Retry-Num) gets no second reply or charge."""
    ev = message(SAMPLE, "1700000300.000100")
    bot.event(ev, event_id="EvRETRY1")
    bot.event(ev, event_id="EvRETRY1", headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    wait_handled(bot, "1700000300.000100")
    assert len(fake_slack.of("chat.postMessage")) == 1
    assert store_for(bot).quotas.status(TEAM_ID).used == 1


def test_quota_exhaustion_says_when_it_resets(bot, fake_slack):
    """Past the free plan's 3 a day: a message with the reset time and the way to upgrade, no charge."""
    for i in range(4):
        bot.event(message(SAMPLE, f"1700000400.00010{i}"))
        fake_slack.wait_for("chat.postMessage", count=i + 1)
    last = fake_slack.of("chat.postMessage")[-1]
    assert "Daily limit reached" in all_text(last) and "/denpex redeem" in all_text(last)
    assert store_for(bot).quotas.status(TEAM_ID).used == 3


def _tarball(log: str) -> bytes:
    """A .tar.gz holding one log, as people hand over a run's folder (fixed mtime: stable bytes)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo("logs/rank3.log")
        info.size, info.mtime = len(log.encode()), 1_700_000_000
        tar.addfile(info, io.BytesIO(log.encode()))
    return out.getvalue()


TARBALL = _tarball(SAMPLE)


def upload(fake_slack: FakeSlack, name: str, content: bytes, **kw) -> dict:
    return fake_slack.add_file(FakeFile(id=f"F{abs(hash(name)) % 10**8}", name=name, content=content, **kw))


def test_uploaded_log_file_is_read_through_the_api(bot, fake_slack):
    """An uploaded .log is fetched (files.info, then the private URL with the bot token) and diagnosed."""
    f = upload(fake_slack, "train.log", SAMPLE.encode())
    bot.event(message("here is the log", "1700000500.000100", subtype="file_share", files=[f]))
    post = fake_slack.wait_for("chat.postMessage")[0]
    assert "cuda-oom" in all_text(post)
    assert fake_slack.of("files.info")[0].params["file"] == f["id"]
    assert fake_slack.of("files.download")[0].token.startswith("xoxb-")


def test_uploaded_gzip_is_inflated(bot, fake_slack):
    """A .gz upload streams through gzip."""
    f = upload(fake_slack, "train.log.gz", gzip.compress(SAMPLE.encode()), filetype="gzip", mimetype="application/gzip")
    bot.event(message("", "1700000510.000100", subtype="file_share", files=[f]))
    assert "cuda-oom" in all_text(fake_slack.wait_for("chat.postMessage")[0])


@pytest.mark.parametrize(
    ("name", "content", "kw", "expect"),
    [
        ("huge.log", b"x\n" * 10, {"declared_size": UPLOAD_CAP + 1}, "over the"),
        ("liar.log", b"line\n" * (UPLOAD_CAP // 5 + 10), {"declared_size": 1000}, "larger than the"),
        ("bomb.log.gz", gzip.compress(b"\n" * (INFLATED_CAP + 1000)), {"filetype": "gzip"}, "inflates past"),
        ("core.log", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 100, {}, "not a text log"),
        ("blob.txt", b"abc\x00\x00\x01\x02" * 100, {}, "binary"),
        ("login.log", b"irrelevant", {"serve_html": True}, "login page"),
        ("logs.tar.gz", TARBALL, {"filetype": "gzip", "mimetype": "application/gzip"}, "tar archive (.gz of one)"),
    ],
    # Named ids: the bomb's bytes (and gzip's mtime in them) would make an id that differs per
    # run, which pytest-xdist's workers must agree on.
    # (An image alone is told what it is, with no :x:: test_edge_tenth_audit.)
    ids=["oversized", "size-liar", "gzip-bomb", "elf-core", "binary-blob", "login-page", "tarball"],
)
def test_bad_uploads_get_a_clear_message(bot, fake_slack, name, content, kw, expect):
    """Oversized, lying, bomb, binary and unauthorised uploads: a specific message, no charge."""
    f = upload(fake_slack, name, content, **kw)
    bot.event(message("", "1700000520.000100", subtype="file_share", files=[f]))
    post = fake_slack.wait_for("chat.postMessage", timeout=20)[0]
    assert expect in all_text(post), all_text(post)
    assert post.params["thread_ts"] == "1700000520.000100"
    fake_slack.wait_for("reactions.add", name="x")
    assert store_for(bot).quotas.status(TEAM_ID).used == 0


def test_follow_up_questions_are_answered_from_the_entry(bot, fake_slack):
    """In a diagnosis thread: the confirm question gets the checklist, one it cannot place the list."""
    bot.event(message(SAMPLE, "1700000600.000100"))
    fake_slack.wait_for("chat.postMessage")
    # The thread's context is kept once the reply is out: ask after the bot is done with it.
    wait_handled(bot, "1700000600.000100")
    bot.event(message("how do I confirm this?", "1700000601.000100", thread_ts="1700000600.000100"))
    answer = fake_slack.wait_for("chat.postMessage", count=2)[1]
    assert answer.params["thread_ts"] == "1700000600.000100"
    assert "How to confirm" in all_text(answer)
    bot.event(message("what's the DeepSpeed version of the fix?", "1700000602.000100", thread_ts="1700000600.000100"))
    code = fake_slack.wait_for("chat.postMessage", count=3)[2]
    assert "```" in all_text(code)
    bot.event(message("can you rerun it with NCCL_DEBUG=INFO?", "1700000603.000100", thread_ts="1700000600.000100"))
    unknown = fake_slack.wait_for("chat.postMessage", count=4)[3]
    assert "I can answer" in all_text(unknown)
    assert store_for(bot).quotas.status(TEAM_ID).used == 1, "follow-ups are not charged"


UNKNOWN_FAILURE = (
    "[rank0]: Traceback (most recent call last):\n"
    '[rank0]:   File "/home/alice/train.py", line 88, in <module>\n'
    "[rank0]: RuntimeError: ZorgleFault: the frobnicator of alice@corp.example.com gave up\n"
)


def test_a_question_in_the_thread_of_an_unmatched_log_is_told_what_helps(bot, fake_slack):
    """No entry matched: a follow-up still gets an answer (what to paste, the lookup, entries its
    words name) instead of silence, free, and nothing of the log in it."""
    bot.event(message(UNKNOWN_FAILURE, "1700000650.000100"))
    first = fake_slack.wait_for("chat.postMessage")[0]
    assert "No known failure matched" in all_text(first)
    wait_handled(bot, "1700000650.000100")
    bot.event(message("what should I check next? could it be NCCL timeouts?", "1700000651.000100",
                      thread_ts="1700000650.000100"))
    answer = fake_slack.wait_for("chat.postMessage", count=2)[1]
    out = all_text(answer)
    assert answer.params["thread_ts"] == "1700000650.000100"
    assert "No entry matched this log" in out and "/denpex &lt;the error line&gt;" in out, out
    assert "/denpex show nccl-" in out  # entries the question's words name
    assert "alice" not in out and "ZorgleFault" not in out
    assert store_for(bot).quotas.status(TEAM_ID).used == 0, "nothing matched: nothing charged"


def test_reply_in_an_undiagnosed_thread_gets_nothing(bot, fake_slack):
    """A question in someone else's thread is none of the bot's business."""
    bot.event(message("how do I confirm this?", "1700000700.000200", thread_ts="1700000700.000100"))
    wait_handled(bot, "1700000700.000200")
    assert fake_slack.of("chat.postMessage") == []


def test_slash_command_help_lookup_show_quota(bot):
    """`/denpex`: empty and unknown words get help; an error string gets entries; show and quota work."""
    assert "Denpex" in bot.command("").json()["text"]
    assert "Denpex" in bot.command("frobnicate").json()["text"]
    lookup = bot.command("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB").json()
    assert lookup["response_type"] == "ephemeral" and "cuda-oom" in json.dumps(lookup["blocks"])
    show = bot.command("show cuda-oom").json()
    assert "CUDA" in show["blocks"][0]["text"]["text"]
    assert "No entry" in bot.command("show no-such-entry").json()["text"]
    quota = bot.command("quota").json()
    assert "free" in quota["text"] and "0 of 3" in quota["text"]


def test_redeem_switches_the_plan_once(bot):
    """A valid evaluation code turns on the scale plan; a second use is refused."""
    code = store_for(bot).codes.create("scale", 14, 1)[0]
    assert "scale" in bot.command(f"redeem {code}").json()["text"]
    assert "50" in bot.command("quota").json()["text"]
    assert "already been used" in bot.command(f"redeem {code}", team="T0OTHER").json()["text"]


def test_buttons_post_entries_and_record_feedback(bot, fake_slack):
    """Related and full-entry clicks post in the thread; feedback is counted per rule."""
    bot.action("denpex_related_0", "nccl-watchdog-timeout")
    post = fake_slack.wait_for("chat.postMessage")[0]
    assert post.params["thread_ts"] == "1700000000.000100" and "nccl-watchdog-timeout" in all_text(post)
    check_limits(post)
    bot.action("denpex_full_entry", "cuda-oom")
    full = fake_slack.wait_for("chat.postMessage", count=2)[1]
    check_limits(full)
    bot.action("denpex_feedback_right", "cuda-oom")
    fake_slack.wait_for("chat.postEphemeral")
    rows = {r.rule_id: r for r in store_for(bot).feedback.summary()}
    assert rows["cuda-oom"].right == 1


def test_app_home_shows_plan_and_usage(bot, fake_slack):
    """Opening the Home tab publishes the plan, usage and how to redeem."""
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"})
    view = fake_slack.wait_for("views.publish")[0].params["view"]
    text = json.dumps(view)
    assert view["type"] == "home" and "Plan" in text and "redeem" in text


def test_app_home_lists_a_dm_diagnosis_only_to_who_asked(bot, fake_slack):
    """A log diagnosed in a DM is in its asker's Home tab history, not in a colleague's; one
    diagnosed in a public channel is in both (scale plan: the history is listed)."""
    store = store_for(bot)
    store.plans.grant(TEAM_ID, "scale", datetime.now(UTC) + timedelta(days=14))
    bot.event(message(SAMPLE, "1700000900.000100", channel="D0ALICEDM", channel_type="im"))
    bot.event(message(SAMPLE, "1700000901.000100", user="U0BOB"))
    wait_handled(bot, "1700000900.000100", channel="D0ALICEDM")
    wait_handled(bot, "1700000901.000100")

    def home(user: str) -> str:
        before = len(fake_slack.of("views.publish"))
        bot.event({"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": "home"})
        fake_slack.wait_for("views.publish", count=before + 1)
        return json.dumps(fake_slack.of("views.publish")[-1].params["view"])

    alice, carol = home("U0ALICE"), home("U0CAROL")
    # A DM is linked as the DM with the bot (app_redirect), not as a channel `<#D…>`.
    assert "your DM with Denpex" in alice and f"<#{CHANNEL}>" in alice
    assert "your DM with Denpex" not in carol and f"<#{CHANNEL}>" in carol


def test_no_secret_reaches_redis_or_slack(bot, fake_slack):
    """Secrets planted in a pasted log appear neither in Redis nor in what the bot posted."""
    secrets = ["hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "AKIAIOSFODNN7EXAMPLE", "ghp_0123456789abcdefghijABCDEFGHIJklmnop"]
    log = (
        f"HF_TOKEN={secrets[0]}\nAWS_ACCESS_KEY_ID={secrets[1]}\n"
        f"git clone https://alice:{secrets[2]}@github.com/acme/train.git\n" + SAMPLE
        + f"[rank3]:torch.OutOfMemoryError: CUDA out of memory token={secrets[0]}\n"
    )
    bot.event(message(log, "1700000800.000100"))
    fake_slack.wait_for("chat.postMessage")
    bot.event(message("how do I confirm this?", "1700000801.000100", thread_ts="1700000800.000100"))
    fake_slack.wait_for("chat.postMessage", count=2)
    r = redis.Redis.from_url(bot.redis_url)
    dump = " ".join(f"{k!r} {r.dump(k)!r}" for k in r.scan_iter())
    posted = " ".join(all_text(c) for c in fake_slack.calls)
    for s in secrets:
        assert s[:12] not in dump and s[:12] not in posted
    assert "<SECRET" in posted or "&lt;SECRET" in posted
    assert "train.py" not in dump, "Redis must not hold the log"
