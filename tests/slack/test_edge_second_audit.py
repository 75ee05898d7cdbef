"""Second audit of the Slack edge: shapes and combinations an outside check sends that the
other files do not, through the real bot over signed HTTP against the recording stand-in
(/tmp/slackedge2/scenarios.md lists every scenario and where it is covered)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests.slack.conftest import Bot, sign, wait_handled
from tests.slack.events import CHANNEL, all_text, message, used
from tests.slack.fake_slack import FakeFile

SAMPLE_PATH = "tests/data/samples/rank3-oom-8-ranks.log"


@pytest.fixture(scope="module")
def sample() -> str:
    from tests.slack.conftest import ROOT

    return (ROOT / SAMPLE_PATH).read_text()


def raw_request(bot: Bot, method: str, path: str = "/slack/events") -> int:
    req = urllib.request.Request(bot.url + path, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.parametrize("method", ["GET", "HEAD", "PUT", "DELETE"])
def test_other_methods_on_the_events_endpoint_are_refused_without_a_crash(bot, fake_slack, method):
    """GET, HEAD, PUT, DELETE on /slack/events (a browser, a health probe): a 4xx, never a 5xx."""
    status = raw_request(bot, method)
    assert 400 <= status < 500, status
    assert raw_request(bot, "GET", "/healthz") == 200
    assert fake_slack.calls == []


def test_same_file_shared_in_two_channels_is_answered_in_each(bot, fake_slack, sample):
    """One file shared to two channels arrives as two file_share messages with the same file id:
    each channel's message gets its own answer, in its own thread."""
    f = fake_slack.add_file(FakeFile(id="F0TWICE01", name="train.log", content=sample.encode()))
    bot.event(message("", "1700100000.000100", subtype="file_share", files=[f]))
    bot.event(message("", "1700100000.000200", channel="C0OTHER", subtype="file_share", files=[f]))
    wait_handled(bot, "1700100000.000100")
    wait_handled(bot, "1700100000.000200", channel="C0OTHER")
    posts = fake_slack.of("chat.postMessage")
    assert sorted((p.params["channel"], p.params["thread_ts"]) for p in posts) == [
        ("C0LOGS", "1700100000.000100"), ("C0OTHER", "1700100000.000200")]
    assert all("cuda-oom" in all_text(p) for p in posts)


def test_a_snippet_is_read_as_a_log(bot, fake_slack, sample):
    """A text snippet (mode snippet, a language filetype, a name with no log extension) is read."""
    f = fake_slack.add_file(FakeFile(id="F0SNIP0001", name="Untitled", content=sample.encode(), filetype="python",
                                     mimetype="text/plain", mode="snippet"))
    bot.event(message("", "1700100100.000100", subtype="file_share", files=[f]))
    wait_handled(bot, "1700100100.000100")
    assert "cuda-oom" in all_text(fake_slack.of("chat.postMessage")[0])


def test_a_file_with_a_question_as_comment_is_diagnosed_once(bot, fake_slack, sample):
    """An upload with a comment ("why did this die?"): the file is diagnosed, one reply, one charge."""
    f = fake_slack.add_file(FakeFile(id="F0COMMENT1", name="rank3.log", content=sample.encode()))
    bot.event(message("why did this die? it was fine yesterday", "1700100200.000100", subtype="file_share", files=[f]))
    wait_handled(bot, "1700100200.000100")
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 1 and "cuda-oom" in all_text(posts[0])
    assert used(bot) == 1


def test_a_log_in_a_code_block_with_slack_escaping_and_auto_links(bot, fake_slack):
    """A pasted log inside ``` with `&lt; &gt; &amp;` and the links Slack made of a bare
    domain and an address (`<http://x/y|x/y>`, `<mailto:a@b|a@b>`): the quoted line reads as
    typed (no `http://` or `mailto:` Slack added, no link markup, entities not doubled), with
    the address and the corporate host masked."""
    text = (
        "```[rank3]: Traceback (most recent call last):\n"
        "[rank3]:   File \"train.py\", line 12, in &lt;module&gt;\n"
        "[rank3]: RuntimeError: upload to <http://storage.corp.example.com/ckpt|storage.corp.example.com/ckpt> "
        "failed (x &lt; y &amp;&amp; z), ask <mailto:alice@corp.example.com|alice@corp.example.com>```"
    )
    bot.event(message(text, "1700100300.000100"))
    wait_handled(bot, "1700100300.000100")
    post = fake_slack.of("chat.postMessage")[0]
    out = all_text(post)
    assert "No known failure matched" in out
    assert "upload to &lt;HOST-1&gt;/ckpt failed (x &lt; y &amp;&amp; z), ask &lt;EMAIL-1&gt;" in out, out
    assert "alice@" not in out and "corp.example.com" not in out
    assert "mailto:" not in out and "http://" not in out and "&amp;lt;" not in out


def test_a_quota_spent_in_a_burst_of_simultaneous_logs_is_exact(bot, fake_slack, sample):
    """Six logs from six people in six channels at once on the free plan (3 a day): three
    diagnoses, three limit notices, exactly three charged."""
    stamps = [f"1700100400.00010{i}" for i in range(6)]
    threads = [threading.Thread(target=bot.event, args=(
        {**message(sample, ts, channel=f"C0BURST{i}"), "user": f"U0PERSON{i}"},)) for i, ts in enumerate(stamps)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, ts in enumerate(stamps):
        wait_handled(bot, ts, channel=f"C0BURST{i}")
    texts = [all_text(p) for p in fake_slack.of("chat.postMessage")]
    assert len(texts) == 6
    assert sum("cuda-oom" in t for t in texts) == 3
    assert sum("Daily limit reached" in t for t in texts) == 3
    assert used(bot) == 3


@pytest.mark.parametrize("retry_after", [120, 1], ids=["long-wait", "short-wait"])
def test_slack_429_on_every_call_charges_nothing_and_the_bot_recovers(bot, fake_slack, sample, retry_after):
    """Every Web API method answers 429 (a wait too long to sleep through, or a short one
    retried each time): the events are still acked at once, nothing is charged, the work ends
    in bounded time, and the next log after Slack recovers is answered."""
    for method in ("chat.postMessage", "reactions.add", "reactions.remove", "files.info", "conversations.replies",
                   "chat.postEphemeral"):
        fake_slack.fail(method, 429, times=50, retry_after=retry_after)
    f = fake_slack.add_file(FakeFile(id="F0LIMITED1", name="train.log", content=sample.encode()))
    started = time.monotonic()
    assert bot.event(message(sample, "1700100500.000100")).status == 200
    assert bot.event(message("", "1700100500.000200", subtype="file_share", files=[f])).status == 200
    assert time.monotonic() - started < 3
    wait_handled(bot, "1700100500.000100", "1700100500.000200", timeout=30)
    assert time.monotonic() - started < 30
    assert used(bot) == 0
    with fake_slack.lock:
        fake_slack.failures.clear()
    bot.event(message(sample, "1700100500.000300"))
    wait_handled(bot, "1700100500.000300")
    assert used(bot) == 1


def test_a_signature_at_the_edge_of_the_five_minute_window(bot, fake_slack):
    """Clock skew: a request signed 4 min 50 s ago (or ahead) is accepted; 5 min 10 s is refused."""
    body = json.dumps({"type": "url_verification", "challenge": "skew", "token": "x"}).encode()
    now = int(time.time())
    for ts, expected in ((now - 290, 200), (now + 290, 200), (now - 310, 401), (now + 310, 401)):
        assert bot.post(body, "application/json", ts=ts).status == expected, ts


def test_a_form_body_with_a_charset_is_read(bot):
    """`application/x-www-form-urlencoded; charset=utf-8` (some proxies add it): the command runs."""
    body = bot.command_body("help")
    reply = bot.post(body, "application/x-www-form-urlencoded; charset=utf-8")
    assert reply.status == 200 and "Denpex" in reply.body.decode()


@pytest.mark.parametrize("text", ["", "   ", "help", "HELP", "frobnicate", "show", "redeem", "alerts", "quota"])
def test_every_short_slash_command_gets_a_useful_ephemeral_answer(bot, text):
    """`/denpex` with nothing, help in any case, an unknown word, or a subcommand missing its
    argument: an ephemeral answer within Block Kit's limits, never an error page."""
    reply = bot.command(text)
    assert reply.status == 200
    answer = reply.json()
    assert answer["response_type"] == "ephemeral" and answer["text"]
    assert len(answer.get("blocks") or []) <= 50
    assert all(len(b["text"]["text"]) <= 3000 for b in answer.get("blocks") or [] if b["type"] == "section")


def test_a_very_long_lookup_is_answered_within_limits(bot):
    """`/denpex` with several thousand characters of pasted log: one ephemeral answer within limits."""
    text = ("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. " * 60)[:4000]
    started = time.monotonic()
    reply = bot.command(text)
    assert time.monotonic() - started < 3
    answer = reply.json()
    assert "cuda-oom" in json.dumps(answer)
    assert len(answer["text"]) <= 4000
    assert all(len(b["text"]["text"]) <= 3000 for b in answer.get("blocks") or [] if b["type"] == "section")


def test_a_slash_command_from_a_dm_or_a_channel_the_bot_is_not_in_is_answered_in_the_ack(bot, fake_slack):
    """`/denpex` typed in a DM (channel D...) or a channel without the bot: the answer rides in
    the ack (no chat.postMessage, which would fail with channel_not_found)."""
    for channel in ("D0ALICE01", "C0NOTMEMBER"):
        form = dict(urllib.parse.parse_qsl(Bot.command_body("quota").decode()))
        form.update(channel_id=channel, channel_name="directmessage" if channel[0] == "D" else "elsewhere")
        reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
        assert reply.status == 200 and "Plan:" in reply.json()["text"]
    assert fake_slack.of("chat.postMessage") == []


def test_a_log_in_a_private_channel_and_a_group_dm_is_diagnosed(bot, fake_slack, sample):
    """channel_type group (private channel) and mpim (group DM): diagnosed in the thread."""
    bot.event({**message(sample, "1700100600.000100", channel="G0PRIVATE1"), "channel_type": "group"})
    bot.event({**message(sample, "1700100600.000200", channel="G0MPIM0001"), "channel_type": "mpim"})
    wait_handled(bot, "1700100600.000100", channel="G0PRIVATE1")
    wait_handled(bot, "1700100600.000200", channel="G0MPIM0001")
    posts = fake_slack.of("chat.postMessage")
    assert sorted(p.params["thread_ts"] for p in posts) == ["1700100600.000100", "1700100600.000200"]
    assert all("cuda-oom" in all_text(p) for p in posts)


def test_a_message_edited_into_a_log_gets_nothing(bot, fake_slack, sample):
    """message_changed whose new text is a log: edits are not re-diagnosed (no reply, no charge)."""
    bot.event({"type": "message", "subtype": "message_changed", "channel": CHANNEL, "ts": "1700100700.000200",
               "hidden": True, "channel_type": "channel",
               "message": {"type": "message", "user": "U0ALICE", "text": sample, "ts": "1700100700.000100",
                           "edited": {"user": "U0ALICE", "ts": "1700100700.000200"}},
               "previous_message": {"type": "message", "user": "U0ALICE", "text": "wait", "ts": "1700100700.000100"}})
    time.sleep(0.5)
    assert fake_slack.of("chat.postMessage") == [] and used(bot) == 0


def test_a_bot_posting_a_log_in_a_diagnosis_thread_gets_nothing(bot, fake_slack, sample):
    """Another app posting logs (bot_id, with or without subtype bot_message), even in the
    thread of a diagnosis: no reply, so two bots never loop."""
    bot.event(message(sample, "1700100800.000100"))
    wait_handled(bot, "1700100800.000100")
    before = len(fake_slack.of("chat.postMessage"))
    bot.event({**message(sample, "1700100800.000200", thread_ts="1700100800.000100"), "bot_id": "B0OTHER",
               "user": "U0OTHERBOT"})
    bot.event({**message("how do I confirm this?", "1700100800.000300", thread_ts="1700100800.000100"),
               "bot_id": "B0OTHER", "subtype": "bot_message"})
    # Our own reply echoed back as an event (it has our bot_id and user).
    bot.event({**message("Root cause: CUDA out of memory", "1700100800.000400", thread_ts="1700100800.000100"),
               "bot_id": "BBOT0001", "user": "UBOT0001", "app_id": "A0DENPEX"})
    time.sleep(0.6)
    assert len(fake_slack.of("chat.postMessage")) == before and used(bot) == 1


def test_a_mention_with_a_log_in_a_diagnosis_thread_of_another_log(bot, fake_slack, sample):
    """A second, different log posted as a reply in a diagnosis thread: diagnosed (charged), not
    answered as a follow-up question."""
    bot.event(message(sample, "1700100900.000100"))
    wait_handled(bot, "1700100900.000100")
    other = ("[rank0]: Traceback (most recent call last):\n[rank0]:   File \"train.py\", line 3\n"
             "[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
             "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), "
             "NCCL version 2.19.3\n")
    bot.event(message(other, "1700100900.000200", thread_ts="1700100900.000100"))
    wait_handled(bot, "1700100900.000200")
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 2 and posts[1].params["thread_ts"] == "1700100900.000100"
    assert used(bot) == 2


def test_a_retry_arriving_while_the_first_delivery_is_still_running(bot, fake_slack, sample):
    """Slack re-sends (http_timeout) while the first delivery's download is still stalled: one
    reply, one charge."""
    f = fake_slack.add_file(FakeFile(id="F0SLOW0001", name="train.log", content=sample.encode(), stall_s=1.0))
    ev = message("", "1700101000.000100", subtype="file_share", files=[f])
    bot.event(ev, event_id="EvSLOW1")
    time.sleep(0.3)
    for n in (1, 2):
        assert bot.event(ev, event_id="EvSLOW1", headers={"X-Slack-Retry-Num": str(n),
                                                          "X-Slack-Retry-Reason": "http_timeout"}).status == 200
    wait_handled(bot, "1700101000.000100")
    assert len(fake_slack.of("chat.postMessage")) == 1 and used(bot) == 1


def test_an_interaction_form_without_payload_json_is_refused(bot):
    """`payload=` holding broken JSON, or an interaction whose JSON is not an object: 400."""
    for body in (b"payload=%7B%22type%22%3A", b"payload=", b"payload=%22x%22"):
        assert bot.post(body, "application/x-www-form-urlencoded").status == 400, body


def test_a_body_that_is_not_utf8_is_refused_whatever_its_signature(bot):
    """A Latin-1 body, correctly signed over its bytes: 400, not a 500."""
    body = '{"type": "event_callback", "text": "caf\xe9"}'.encode("latin-1")
    reply = bot.post(body, "application/json", headers=sign(body), sign_it=False)
    assert reply.status in (400, 401)


def test_a_log_carried_only_in_rich_text_blocks_is_diagnosed(bot, fake_slack):
    """A message whose `text` is empty and whose log is in rich_text blocks (a preformatted
    block, as the composer makes one): read from the blocks and diagnosed; `&` and `<` in
    them are the log's own characters."""
    log = ("[rank3]: Traceback (most recent call last):\n[rank3]:   File \"train.py\", line 12, in <module>\n"
           "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
           "capacity of 79.15 GiB of which 1.2 GiB is free. a && b\n")
    blocks = [{"type": "rich_text", "block_id": "x1", "elements": [
        {"type": "rich_text_section", "elements": [{"type": "text", "text": "our run died:"}]},
        {"type": "rich_text_preformatted", "elements": [{"type": "text", "text": log}]},
    ]}]
    bot.event(message("", "1700101100.000100", blocks=blocks))
    wait_handled(bot, "1700101100.000100")
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 1 and "cuda-oom" in all_text(posts[0])
    assert "&amp;amp;" not in all_text(posts[0])


def test_alerts_connect_in_a_dm_says_where_to_run_it(bot):
    """`/denpex alerts connect` typed in a DM: told to run it in the channel, no token made."""
    form = dict(urllib.parse.parse_qsl(Bot.command_body("alerts connect").decode()))
    form.update(channel_id="D0ALICE01", channel_name="directmessage")
    reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    assert reply.status == 200 and "not in a direct message" in reply.json()["text"]


def test_a_message_in_the_app_home_messages_tab_is_a_dm(bot, fake_slack):
    """`channel_type: app_home` (Slack's message.app_home shape for the App Home's Messages
    tab): chatter there is a message to the bot, answered with help like any DM."""
    bot.event({**message("hi, what can you do?", "1700101200.000100", channel="D0ALICEHOME"), "channel_type": "app_home"})
    wait_handled(bot, "1700101200.000100", channel="D0ALICEHOME")
    (post,) = fake_slack.of("chat.postMessage")
    assert post.params["channel"] == "D0ALICEHOME" and "/denpex" in all_text(post)


@pytest.mark.parametrize("text", ["show cuda-oom", "show CUDA-OOM", "show `cuda-oom`", "show 'cuda-oom'", "SHOW  cuda-oom ",
                                  "show\u00a0cuda-oom", "show\tcuda-oom", "show cuda-oom.", "show (cuda-oom),", "show *cuda-oom*"])
def test_show_takes_the_id_however_it_was_copied(bot, text):
    """`/denpex show` with the id as the reply shows it (in backticks), quoted, in capitals, or
    after a tab or the no-break space Option+Space types, or lifted from a sentence with its
    full stop or from bold text: the entry."""
    answer = bot.command(text).json()
    shown = json.dumps(answer)
    assert "CUDA Out of Memory" in shown and "*Root cause*" in shown, answer["text"]  # the entry, not a search


def test_secrets_in_a_rich_text_only_or_auto_linked_log_reach_neither_slack_nor_redis(bot, fake_slack):
    """The new ways in (a log carried only in rich_text blocks, an address Slack auto-linked)
    go through the same masking: no token, e-mail or corporate host in any call or in Redis."""
    import redis

    token, email = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "alice.smith@corp.example.com"
    log = (f"[rank3]: Traceback (most recent call last):\n[rank3]: RuntimeError: push to hub failed for {email} "
           f"token={token} host=storage.corp.example.com\n")
    blocks = [{"type": "rich_text", "elements": [{"type": "rich_text_preformatted",
                                                  "elements": [{"type": "text", "text": log}]}]}]
    bot.event(message("", "1700101300.000100", blocks=blocks))
    linked = log.replace(email, f"<mailto:{email}|{email}>")
    bot.event(message(f"```{linked}```", "1700101300.000200", channel="C0OTHER"))
    wait_handled(bot, "1700101300.000100")
    wait_handled(bot, "1700101300.000200", channel="C0OTHER")
    posted = " ".join(all_text(c) + json.dumps(c.params) for c in fake_slack.calls)
    assert len(fake_slack.of("chat.postMessage")) == 2
    with redis.Redis.from_url(bot.redis_url) as r:
        dump = " ".join(f"{k!r} {r.dump(k)!r}" for k in r.scan_iter())
    for leak in (token[:12], email, "alice.smith", "storage.corp"):
        assert leak not in posted and leak not in dump, leak
