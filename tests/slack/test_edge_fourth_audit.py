"""Fourth audit of the Slack edge: scenarios an outside end-to-end check would build from
SLACK.md, DESIGN.md, README.md and Slack's reference pages that no other test runs yet,
through the real bot over signed HTTP against the recording stand-in and a real Redis.

Slack's shapes used here: a mention in message text may carry the name Slack knew it by
(`<@U123|name>`, the form the reference's formatting page gives for user links); `@here` /
`@channel` / a user group arrive as `<!here>`, `<!channel>`, `<!subteam^S123|@group>`;
`tokens_revoked` lists user ids under `oauth` (user tokens) and `bot` (the bot's token)."""

from __future__ import annotations

import json
import re
import time

import pytest
import redis

from bot.store import Store, StoreConfig, keys
from tests.slack.conftest import Bot, wait_handled
from tests.slack.events import CHANNEL, all_text, message, used
from tests.slack.fake_slack import BOT_USER_ID, TEAM_ID, FakeFile

SAMPLE_PATH = "tests/data/samples/rank3-oom-8-ranks.log"
OOM = (
    "[rank3]: Traceback (most recent call last):\n"
    '[rank3]:   File "train.py", line 88, in <module>\n'
    "[rank3]:     loss.backward()\n"
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
    "capacity of 79.15 GiB of which 1.2 GiB is free.\n"
)
# What Slack renders live in mrkdwn: a special mention, a user, a channel, a link.
LIVE = re.compile(r"<(?:!|@[UW]|#C|https?:|mailto:)")


@pytest.fixture(scope="module")
def sample() -> str:
    from tests.slack.conftest import ROOT

    return (ROOT / SAMPLE_PATH).read_text()


def mrkdwn_strings(call) -> list[str]:
    """Every string Slack would render as mrkdwn from a call: the fallback and each block's."""
    out = [call.params.get("text") or ""]

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "mrkdwn" and isinstance(node.get("text"), str):
                out.append(node["text"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(call.params.get("blocks") or [])
    return out


def store_for(bot: Bot) -> Store:
    return Store(StoreConfig(url=bot.redis_url))


def replies(fake) -> list:
    return fake.of("chat.postMessage")


# --- mentions ------------------------------------------------------------------------------

def test_a_mention_written_with_the_bots_name_is_answered_once(bot, fake_slack):
    """`<@UBOT|denpex> hello` (a mention carrying the name) in a channel, as `message` and
    `app_mention`: one help reply in its thread, as for `<@UBOT> hello`."""
    ts = "1700400000.000100"
    text = f"<@{BOT_USER_ID}|denpex> hello, what can you do?"
    assert bot.event(message(text, ts)).status == 200
    assert bot.event({"type": "app_mention", "channel": CHANNEL, "user": "U0ALICE", "text": text, "ts": ts,
                      "team": TEAM_ID}).status == 200
    wait_handled(bot, ts)
    # The app_mention waits a second for the message event (bot.slack.listeners.messages):
    # past that, it has found the message claimed and posted nothing.
    time.sleep(1.5)
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert post.params["thread_ts"] == ts
    assert "/denpex" in all_text(post)


def test_a_named_mention_asking_in_a_diagnosis_thread_is_answered(bot, fake_slack, sample):
    """In a diagnosis thread, `<@UBOT|denpex> thanks! how do I confirm this?` is a question to
    the bot (the mention decides, not the chatter in it): answered once from the entry."""
    ts = "1700400010.000100"
    bot.event(message(sample, ts))
    wait_handled(bot, ts)
    q = "1700400011.000100"
    text = f"<@{BOT_USER_ID}|denpex> thanks! how do I confirm this?"
    bot.event(message(text, q, thread_ts=ts))
    bot.event({"type": "app_mention", "channel": CHANNEL, "user": "U0ALICE", "text": text, "ts": q,
               "thread_ts": ts, "team": TEAM_ID})
    time.sleep(1.5)
    wait_handled(bot, q)
    posts = replies(fake_slack)
    assert len(posts) == 2, [(p.params.get("thread_ts"), all_text(p)[-300:]) for p in posts]
    assert posts[1].params["thread_ts"] == ts and "How to confirm" in all_text(posts[1])


SPECIALS = "<!here> <!channel> <!everyone> <!here|@here> <!subteam^S0ONCALL|@oncall> <#C0GENERAL|general>"


@pytest.mark.parametrize("log_text", [
    "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
    f"ZorgleError: paging {SPECIALS} about rank 3\n",
    OOM.replace("Tried to allocate", f"{SPECIALS} Tried to allocate"),
], ids=["unmatched-line", "matched-evidence"])
def test_at_here_at_channel_and_groups_in_a_pasted_log_never_ping(bot, fake_slack, log_text):
    """A log whose lines carry `@here`, `@channel`, `@everyone`, a user group or a channel
    link (Slack sends them as `<!here>`...): whether the line is the unmatched one quoted back
    or matched evidence, nothing the bot posts renders a live mention."""
    ts = "1700400020.000100"
    bot.event(message(log_text, ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    strings = mrkdwn_strings(post)
    for s in strings:
        assert not LIVE.search(s), f"live markup reached Slack: {s[:400]!r}"
    assert "ZorgleError" in all_text(post) or "cuda-oom" in all_text(post)


# --- tokens and the workspace's state --------------------------------------------------------

def test_a_revoked_user_token_leaves_the_workspace_as_it_was(bot, fake_slack, sample):
    """`tokens_revoked` naming only a user's token (`oauth`), not the bot's: the workspace's
    usage, thread context and history stay, and a follow-up in the thread is still answered."""
    ts = "1700400100.000100"
    bot.event(message(sample, ts))
    wait_handled(bot, ts)
    assert used(bot) == 1
    assert bot.event({"type": "tokens_revoked", "tokens": {"oauth": ["U0ALICE"]}}).status == 200
    time.sleep(0.5)
    with store_for(bot) as store:
        assert store.threads.load(TEAM_ID, CHANNEL, ts) is not None
        assert store.history.recent(TEAM_ID, 3, viewer="U0ALICE")
    assert used(bot) == 1
    q = "1700400101.000100"
    bot.event(message("how do I confirm this?", q, thread_ts=ts))
    wait_handled(bot, q)
    assert "How to confirm" in all_text(replies(fake_slack)[-1])


def test_every_per_workspace_key_a_diagnosis_leaves_expires(bot, fake_slack, sample):
    """A day's use (a diagnosis, a follow-up, a retried event, a vote) leaves keys that expire:
    dedupe markers, claims, thread context, the day's counters. Only the lasting records
    (plan, history index, feedback and unmatched counters) may have no TTL."""
    ts = "1700400200.000100"
    bot.event(message(sample, ts), event_id="EvKEYS0001")
    bot.event(message(sample, ts), event_id="EvKEYS0001", headers={"X-Slack-Retry-Num": "1",
                                                                   "X-Slack-Retry-Reason": "http_timeout"})
    wait_handled(bot, ts)
    q = "1700400201.000100"
    bot.event(message("is this hardware?", q, thread_ts=ts))
    wait_handled(bot, q)
    bot.action("denpex_feedback_right", "cuda-oom", thread_ts=ts)
    fake_slack.wait_for("chat.postEphemeral")
    r = redis.Redis.from_url(bot.redis_url)
    forever = [k.decode() for k in r.scan_iter(keys.workspace_pattern(TEAM_ID)) if r.ttl(k) == -1]
    lasting = re.compile(r":(?:plan|history|feedback|unmatched)")
    assert [k for k in forever if not lasting.search(k)] == []


# --- files -----------------------------------------------------------------------------------

def test_a_windows_log_with_crlf_line_ends_is_diagnosed_without_carriage_returns(bot, fake_slack, sample):
    """An upload written on Windows (CRLF): diagnosed, and no evidence line ends in a stray `\\r`."""
    f = fake_slack.add_file(FakeFile(id="F0CRLF0001", name="train.log", content=sample.replace("\n", "\r\n").encode()))
    ts = "1700400300.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post)
    assert "\r" not in json.dumps(post.params["blocks"], ensure_ascii=False)
    assert used(bot) == 1


# --- unicode ---------------------------------------------------------------------------------

def test_unicode_in_a_log_comes_back_intact(bot, fake_slack):
    """CJK, emoji, right-to-left text and combining accents in the error line: quoted back as
    they were (JSON carries them as they are), the reply within Block Kit's limits."""
    line = "RuntimeError: 数据加载失败 🚀 في المسار /data/café/naïve ẞ"
    log_text = f"Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n{line}\n"
    ts = "1700400400.000100"
    bot.event(message(log_text, ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    out = all_text(post)
    shown = json.loads(json.dumps(post.params["blocks"]))
    text = json.dumps(shown, ensure_ascii=False)
    for piece in ("数据加载失败", "🚀", "في المسار", "café", "naïve", "ẞ"):
        assert piece in text or piece in post.params["text"], (piece, out[:600])
    assert len(post.params["blocks"]) <= 50


# --- rate limits ------------------------------------------------------------------------------

def test_a_rate_limited_home_tab_is_published_after_retry_after(bot, fake_slack):
    """views.publish answering 429 with Retry-After: 1: the Home tab is published once, after the wait."""
    fake_slack.fail("views.publish", 429, times=1, retry_after=1)
    started = time.monotonic()
    assert bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"}).status == 200
    calls = fake_slack.wait_for("views.publish", count=2, timeout=15)
    assert calls[1].at - calls[0].at >= 0.9
    time.sleep(0.3)
    assert len(fake_slack.of("views.publish")) == 2
    assert time.monotonic() - started < 15


# --- quota -------------------------------------------------------------------------------------

def test_after_the_days_diagnoses_lookups_entries_and_clicks_still_answer(bot, fake_slack, sample):
    """The free plan's three diagnoses spent: the fourth log is told the limit, but a lookup,
    `/denpex show` and an entry button still answer (they are free), and nothing more is charged."""
    for i in range(4):
        ts = f"1700400500.00010{i}"
        bot.event(message(sample, ts))
        wait_handled(bot, ts)
    assert used(bot) == 3
    assert "Daily limit reached" in all_text(replies(fake_slack)[-1])
    assert "cuda-oom" in json.dumps(bot.command("torch.OutOfMemoryError: CUDA out of memory").json())
    assert "CUDA" in json.dumps(bot.command("show cuda-oom").json())
    bot.action("denpex_full_entry", "cuda-oom")
    fake_slack.wait_for("chat.postMessage", count=5)
    assert used(bot) == 3


def test_a_grid_slash_command_reads_the_workspaces_quota(bot, fake_slack, sample):
    """A slash command from an Enterprise Grid workspace (enterprise_id, is_enterprise_install
    false in the form): the quota shown is the workspace's, the one its diagnoses are charged to."""
    ts = "1700400600.000100"
    bot.event(message(sample, ts))
    wait_handled(bot, ts)
    import urllib.parse

    form = dict(urllib.parse.parse_qsl(Bot.command_body("quota").decode()))
    form.update({"enterprise_id": "E0GRID001", "enterprise_name": "Grid", "is_enterprise_install": "false"})
    reply = bot.post(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    assert reply.status == 200 and "1 of 3" in reply.json()["text"]
