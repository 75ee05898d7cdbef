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
from tests.slack.events import (
    CHANNEL,
    LIVE_MRKDWN,
    OOM_PASTE,
    all_text,
    message,
    mrkdwn_strings,
    used,
)
from tests.slack.fake_slack import BOT_USER_ID, TEAM_ID, FakeFile

SAMPLE_PATH = "tests/data/samples/rank3-oom-8-ranks.log"


@pytest.fixture(scope="module")
def sample() -> str:
    from tests.slack.conftest import ROOT

    return (ROOT / SAMPLE_PATH).read_text()



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
    OOM_PASTE.replace("Tried to allocate", f"{SPECIALS} Tried to allocate"),
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
        assert not LIVE_MRKDWN.search(s), f"live markup reached Slack: {s[:400]!r}"
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


# --- Block Kit, strictly ---------------------------------------------------------------------

def _rule_ids() -> list[str]:
    from tests.slack.conftest import ROOT

    return sorted(p.stem for p in (ROOT / "rules").rglob("*.yaml"))


def _text_obj(obj: dict, limit: int, kinds: tuple[str, ...] = ("plain_text", "mrkdwn")) -> None:
    assert obj.get("type") in kinds, obj
    text = obj.get("text")
    assert isinstance(text, str) and text.strip(), f"empty text object: {obj}"
    assert len(text) <= limit, (len(text), text[:200])


def check_block_kit(blocks: list[dict], max_blocks: int = 50) -> None:
    """Slack's published limits for the blocks the bot uses (Block Kit reference): the
    message (or view) block count, unique block ids, and per block: header 150 plain text;
    section 3,000 (non-empty), 10 fields of 2,000; context 10 elements of 3,000; actions 25
    elements; buttons 75 plain text, value 2,000, action_id 255, unique in their block."""
    assert 0 < len(blocks) <= max_blocks, len(blocks)
    block_ids = [b["block_id"] for b in blocks if "block_id" in b]
    assert len(block_ids) == len(set(block_ids)), block_ids
    assert all(0 < len(i) <= 255 for i in block_ids)

    def check_button(el: dict) -> None:
        assert el["type"] == "button", el
        _text_obj(el["text"], 75, ("plain_text",))
        assert 0 < len(el["action_id"]) <= 255
        assert len(el.get("value", "")) <= 2000
        assert el.get("style") in (None, "primary", "danger")

    for b in blocks:
        kind = b["type"]
        if kind == "header":
            _text_obj(b["text"], 150, ("plain_text",))
        elif kind == "section":
            assert "text" in b or "fields" in b, b
            if "text" in b:
                _text_obj(b["text"], 3000)
            for f in b.get("fields", []):
                _text_obj(f, 2000)
            assert len(b.get("fields", [])) <= 10
            if "accessory" in b:
                check_button(b["accessory"])
        elif kind == "context":
            assert 0 < len(b["elements"]) <= 10
            for el in b["elements"]:
                _text_obj(el, 3000)
        elif kind == "actions":
            assert 0 < len(b["elements"]) <= 25
            ids = [el["action_id"] for el in b["elements"]]
            assert len(ids) == len(set(ids)), ids
            for el in b["elements"]:
                check_button(el)
        else:
            assert kind in ("divider", "rich_text"), kind


def test_every_entrys_full_view_and_show_answer_are_valid_block_kit(bot, fake_slack):
    """The "Full entry" button and `/denpex show` for every entry of the knowledge base: each
    message is valid Block Kit by Slack's published limits, with a plain-text fallback."""
    ids = _rule_ids()
    assert len(ids) > 200
    for i, rule_id in enumerate(ids):
        # One person per click: the per-person click limit is another test's business.
        assert bot.action("denpex_full_entry", rule_id, thread_ts=f"1700400700.{i:06d}", user=f"U0FULL{i:04d}").status == 200
        shown = bot.command(f"show {rule_id}", user=f"U0SHOW{i:04d}").json()
        assert shown["text"].strip() and len(shown["text"]) <= 4000
        check_block_kit(shown["blocks"])
    posts = fake_slack.wait_for("chat.postMessage", count=len(ids), timeout=120)
    assert {p.params["thread_ts"] for p in posts} == {f"1700400700.{i:06d}" for i in range(len(ids))}
    for p in posts:
        assert p.params["text"].strip() and len(p.params["text"]) <= 4000
        check_block_kit(p.params["blocks"])


def test_the_home_tab_with_a_full_scale_history_is_valid_block_kit(bot, fake_slack, sample):
    """On scale, the Home tab lists 20 diagnoses: the view stays within a Home tab's 100
    blocks and every block's limits, and names each diagnosis' channel."""
    with store_for(bot) as store:
        code = store.codes.create("scale", 14, 1)[0]
    assert "scale" in bot.command(f"redeem {code}").json()["text"]
    stamps = [f"1700400800.{i:06d}" for i in range(22)]
    for i, ts in enumerate(stamps):
        bot.event(message(sample, ts, channel=f"C0HIST{i:04d}"))
    for i, ts in enumerate(stamps):
        wait_handled(bot, ts, channel=f"C0HIST{i:04d}", timeout=60)
    assert used(bot) == 22
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"})
    view = fake_slack.wait_for("views.publish", timeout=15)[0].params["view"]
    assert view["type"] == "home"
    check_block_kit(view["blocks"], max_blocks=100)
    shown = json.dumps(view)
    assert sum(f"C0HIST{i:04d}" in shown for i in range(22)) == 20


# --- retries over Slack's whole schedule ------------------------------------------------------

def test_an_events_dedupe_marker_outlives_slacks_last_retry(bot, fake_slack, sample):
    """Slack re-sends at once, after about a minute and after about five: the marker that
    drops a re-sent event (and the message's claim) must last past the last retry."""
    ts = "1700400900.000100"
    bot.event(message(sample, ts), event_id="EvSCHEDULE1")
    wait_handled(bot, ts)
    r = redis.Redis.from_url(bot.redis_url)
    assert r.ttl(keys.dedupe(TEAM_ID, "event:EvSCHEDULE1")) > 6 * 60
    assert r.ttl(keys.dedupe(TEAM_ID, f"claim:message:{CHANNEL}:{ts}")) > 6 * 60
    for n, reason in ((1, "http_timeout"), (2, "http_error"), (3, "connection_failed")):
        assert bot.event(message(sample, ts), event_id="EvSCHEDULE1",
                         headers={"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": reason}).status == 200
    time.sleep(0.5)
    wait_handled(bot, ts)
    assert len(replies(fake_slack)) == 1 and used(bot) == 1


# --- 429 without a usable Retry-After ---------------------------------------------------------

@pytest.mark.parametrize("retry_after", [None, "Wed, 21 Oct 2026 07:28:00 GMT"], ids=["absent", "http-date"])
def test_a_429_without_a_usable_retry_after_is_retried_and_lands_once(bot, fake_slack, sample, retry_after):
    """chat.postMessage answering 429 with no Retry-After, or one given as an HTTP date: the
    reply is retried after a short wait and posted once, charged once."""
    fake_slack.fail("chat.postMessage", 429, times=1, retry_after=retry_after)
    ts = "1700401000.000100"
    bot.event(message(sample, ts))
    wait_handled(bot, ts, timeout=30)
    posts = replies(fake_slack)
    assert len(posts) == 2 and "cuda-oom" in all_text(posts[1])
    assert used(bot) == 1


# --- files at the size limit -------------------------------------------------------------------

def test_an_upload_of_exactly_the_size_limit_is_read_and_one_byte_more_is_refused(bot, fake_slack, sample):
    """DENPEX_MAX_UPLOAD_BYTES is the largest upload read: a file of exactly that size is
    diagnosed, one a byte larger is refused with the limit named, and charged nothing."""
    from tests.slack.conftest import UPLOAD_CAP

    body = sample.encode()
    filler = b"step 1 loss 2.0 lr 0.0001\n"
    exact = filler * ((UPLOAD_CAP - len(body)) // len(filler)) + body
    exact = b"#" * (UPLOAD_CAP - len(exact) - 1) + b"\n" + exact
    assert len(exact) == UPLOAD_CAP
    ok = fake_slack.add_file(FakeFile(id="F0EXACTCAP", name="train.log", content=exact))
    over = fake_slack.add_file(FakeFile(id="F0OVERCAP1", name="train.log", content=exact + b"\n"))
    bot.event(message("", "1700401100.000100", subtype="file_share", files=[ok]))
    wait_handled(bot, "1700401100.000100", timeout=60)
    bot.event(message("", "1700401100.000200", subtype="file_share", files=[over]))
    wait_handled(bot, "1700401100.000200", timeout=60)
    first, second = replies(fake_slack)
    assert "cuda-oom" in all_text(first)
    assert "limit" in all_text(second) and "cuda-oom" not in all_text(second), all_text(second)[:400]
    assert used(bot) == 1


# --- DMs ---------------------------------------------------------------------------------------

def test_a_log_file_uploaded_in_a_dm_is_diagnosed_there_and_listed_only_to_its_uploader(bot, fake_slack, sample):
    """A file shared in the DM with the bot: diagnosed in the DM's thread and charged; the Home
    tab lists it to the uploader, not to a colleague."""
    f = fake_slack.add_file(FakeFile(id="F0DMFILE01", name="rank3.log", content=sample.encode()))
    ts = "1700401200.000100"
    bot.event(message("", ts, channel="D0ALICE01", channel_type="im", subtype="file_share", files=[f]))
    wait_handled(bot, ts, channel="D0ALICE01")
    (post,) = replies(fake_slack)
    assert post.params["channel"] == "D0ALICE01" and post.params["thread_ts"] == ts
    assert "cuda-oom" in all_text(post) and used(bot) == 1

    def home(user: str) -> str:
        before = len(fake_slack.of("views.publish"))
        bot.event({"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": "home"})
        fake_slack.wait_for("views.publish", count=before + 1)
        return json.dumps(fake_slack.of("views.publish")[-1].params["view"])

    assert "your DM with Denpex" in home("U0ALICE")
    assert "your DM with Denpex" not in home("U0BOB") and "CUDA" not in home("U0BOB")


# --- a question asked before the diagnosis is out ----------------------------------------------

def test_a_question_asked_in_the_thread_before_the_diagnosis_is_posted_is_answered_after_it(bot, fake_slack, sample):
    """Someone pastes a log and at once asks in its thread "which rank failed first?", before
    the bot has answered: the question is answered once the diagnosis is out, not dropped."""
    ts = "1700401300.000100"
    bot.event(message(sample, ts))
    time.sleep(0.3)  # a person types the question after the log (the bot has taken the log)
    q = "1700401300.000200"
    bot.event(message("which rank failed first?", q, thread_ts=ts))
    wait_handled(bot, ts, q, timeout=30)
    posts = replies(fake_slack)
    assert len(posts) == 2, [all_text(p)[:200] for p in posts]
    assert "cuda-oom" in all_text(posts[0])
    assert posts[1].params["thread_ts"] == ts and "3" in all_text(posts[1])


def test_special_mentions_in_a_follow_up_question_are_not_echoed_live(bot, fake_slack, sample):
    """A question in a diagnosis thread quoting `<!channel>` or a user group: whatever the
    answer quotes of it stays inert."""
    ts = "1700401400.000100"
    bot.event(message(sample, ts))
    wait_handled(bot, ts)
    for i, question in enumerate((f"what does {SPECIALS} mean?", f"<@{BOT_USER_ID}> show me the line <!here>",
                                  "what does ZorgleError <!subteam^S0ONCALL|@oncall> mean?")):
        q = f"1700401400.00020{i}"
        bot.event(message(question, q, thread_ts=ts))
        wait_handled(bot, q)
    posts = replies(fake_slack)
    assert len(posts) == 4
    for post in posts[1:]:
        for s in mrkdwn_strings(post):
            assert not LIVE_MRKDWN.search(s), f"live markup reached Slack: {s[:400]!r}"


_MRKDWN_LINK = re.compile(r"<(?:https?://[^\s|<>]+\|[^<>|]+|#[CDG][A-Z0-9]+)>")


def test_every_link_the_bot_writes_is_well_formed(bot, fake_slack):
    """In every entry's full view, each `<` Slack would parse opens a well-formed link (an
    address without spaces, `|` or `>`, and a label) or a channel: no stray markup that would
    swallow the text after it."""
    ids = _rule_ids()
    for i, rule_id in enumerate(ids):
        bot.action("denpex_full_entry", rule_id, thread_ts=f"1700401500.{i:06d}", user=f"U0LINK{i:04d}")
    posts = fake_slack.wait_for("chat.postMessage", count=len(ids), timeout=120)
    links = 0
    for p in posts:
        for s in mrkdwn_strings(p):
            links += len(_MRKDWN_LINK.findall(s))
            stray = _MRKDWN_LINK.sub("", s)
            assert "<" not in stray and ">" not in stray, stray[max(0, stray.find("<") - 80):][:200]
    assert links > 100  # the entries' references are links


ANSI_LOG = (
    "\x1b[32m[rank3]: step 10 loss 2.1\x1b[0m\n"
    "\x1b[1;31m[rank3]: Traceback (most recent call last):\x1b[0m\n"
    '[rank3]:   File "train.py", line 88, in <module>\n'
    "\x1b[31m[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
    "capacity of 79.15 GiB of which 1.2 GiB is free.\x1b[0m\n"
)


@pytest.mark.parametrize("how", ["upload", "paste-without-esc"])
def test_terminal_colours_in_a_log_do_not_reach_slack(bot, fake_slack, how):
    """A log captured from a terminal (ANSI colour codes around its lines), uploaded, or
    pasted from a notebook that lost the ESC characters (`[31m...[0m` remain): diagnosed, and
    no escape sequence nor its remains shows in the reply."""
    ts = "1700401600.000100"
    if how == "upload":
        f = fake_slack.add_file(FakeFile(id="F0ANSI0001", name="train.log", content=ANSI_LOG.encode()))
        bot.event(message("", ts, subtype="file_share", files=[f]))
    else:
        bot.event(message("```" + ANSI_LOG.replace("\x1b", "") + "```", ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    shown = json.dumps(post.params, ensure_ascii=False)
    assert "cuda-oom" in shown
    assert "\x1b" not in shown and "\\u001b" not in shown and "[31m" not in shown and "[0m" not in shown


def test_a_log_pasted_with_no_break_spaces_is_diagnosed(bot, fake_slack, sample):
    """A log copied from a web page (a CI run's page, a notebook) arrives with no-break spaces
    where it had spaces: read as the log it was, diagnosed and charged once."""
    ts = "1700401700.000100"
    bot.event(message(sample.replace(" ", "\u00a0"), ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and used(bot) == 1


def test_a_lookup_copied_with_no_break_spaces_finds_the_entry(bot):
    """`/denpex <error line>` with the line copied from a web page (no-break spaces): the
    same entries as the line typed with spaces (the lookup reads any whitespace as one)."""
    line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"
    typed = bot.command(line).json()
    copied = bot.command(line.replace(" ", "\u00a0"), user="U0BOB").json()
    assert "cuda-oom" in json.dumps(typed["blocks"])
    assert [b.get("accessory", {}).get("value") for b in copied["blocks"]] == \
        [b.get("accessory", {}).get("value") for b in typed["blocks"]]


# --- channel joins and who asks ------------------------------------------------------------------

def test_the_bot_joining_a_channel_posts_nothing(bot, fake_slack):
    """Invited to a channel: `member_joined_channel` naming the bot and the `channel_join`
    message Slack writes for it are acked; the bot says nothing (it speaks when spoken to)."""
    assert bot.event({"type": "member_joined_channel", "user": BOT_USER_ID, "channel": "C0NEWCHAN",
                      "channel_type": "C", "team": TEAM_ID, "inviter": "U0ALICE"}).status == 200
    ts = "1700401800.000100"
    assert bot.event(message(f"<@{BOT_USER_ID}> has joined the channel", ts, channel="C0NEWCHAN",
                             user=BOT_USER_ID, subtype="channel_join")).status == 200
    time.sleep(0.5)
    assert [c.method for c in fake_slack.calls if c.method not in ("auth.test",)] == []


def test_a_colleague_asking_in_the_diagnosis_thread_is_answered(bot, fake_slack, sample):
    """The follow-up comes from someone other than who pasted the log: the thread is the
    team's, so it is answered like the poster's own question, and not charged."""
    ts = "1700401900.000100"
    bot.event(message(sample, ts))
    wait_handled(bot, ts)
    q = "1700401900.000200"
    bot.event(message("is this hardware?", q, thread_ts=ts, user="U0BOB"))
    wait_handled(bot, q)
    posts = replies(fake_slack)
    assert len(posts) == 2 and posts[1].params["thread_ts"] == ts
    assert "hardware" in all_text(posts[1]).lower()
    assert used(bot) == 1


def test_an_upload_past_the_days_quota_is_told_the_limit_without_a_download(bot, fake_slack, sample):
    """The day's diagnoses spent, a log file is shared: told the limit and when it resets,
    and the file is not downloaded (nothing would be done with it)."""
    for i in range(3):
        ts = f"1700402000.00010{i}"
        bot.event(message(sample, ts))
        wait_handled(bot, ts)
    f = fake_slack.add_file(FakeFile(id="F0OVERQUOTA", name="train.log", content=sample.encode()))
    ts = "1700402000.000200"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    last = replies(fake_slack)[-1]
    assert last.params["thread_ts"] == ts and "Daily limit reached" in all_text(last)
    assert fake_slack.of("files.download") == []
    assert used(bot) == 3
