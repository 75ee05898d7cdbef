"""Posts of unknown outcome: Slack answering 5xx after it posted, or answering after the
timeout. The bot looks for its answer (message metadata with the diagnosis id) before it
repeats it: one answer, told once, charged once. And a log pasted in parts across replicas."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.reliability.conftest import (
    SAMPLE,
    SLACK_TIMEOUT_S,
    TUNED_ENV,
    all_text,
    message,
    new_ts,
    settle,
    used,
)
from tests.slack.conftest import Bot, start_bot, stop_bot


def replies(rfake, ts: str):
    return rfake.delivered("chat.postMessage", thread_ts=ts)


def test_5xx_after_slack_posted_is_not_posted_again(rbot, rfake):
    """chat.postMessage posts, then answers 500: the bot finds its answer in the thread and posts nothing more."""
    rfake.fail("chat.postMessage", 500, posted=True)
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("reactions.add", name="white_check_mark", timestamp=ts, timeout=20)
    settle(1.0)
    posts = replies(rfake, ts)
    assert len(posts) == 1 and "cuda-oom" in all_text(posts[0])
    assert posts[0].params["metadata"]["event_payload"]["diagnosis_id"]
    assert rfake.of("conversations.replies"), "the thread was not looked at"
    assert len(rfake.of("chat.postMessage")) == 1
    assert used(rbot) == 1


def test_5xx_before_slack_posted_is_posted_again_after_a_look(rbot, rfake):
    """chat.postMessage answering 502 without posting: looked for, absent, posted once more; charged once."""
    rfake.fail("chat.postMessage", 502)
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=20)
    settle(1.0)
    assert len(replies(rfake, ts)) == 1
    calls = [c.method for c in rfake.calls if c.method in ("chat.postMessage", "conversations.replies")]
    assert calls[:3] == ["chat.postMessage", "conversations.replies", "chat.postMessage"]
    assert used(rbot) == 1


def test_a_post_answering_after_the_timeout_is_told_once_and_charged_once(rbot, rfake):
    """Slack posts but answers 12 s later (past the bot's timeout): one answer, no "nothing was charged" note, one charge."""
    rfake.fail("chat.postMessage", 200, delay_s=12, posted=True, body={"ok": True, "ts": "1.1"})
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("reactions.add", name="white_check_mark", timestamp=ts, timeout=25)
    settle(1.0)
    posts = replies(rfake, ts)
    assert len(posts) == 1 and "cuda-oom" in all_text(posts[0])
    assert not any("did not confirm" in all_text(p) or "nothing was charged" in all_text(p) for p in rfake.delivered("chat.postMessage"))
    assert used(rbot) == 1


def test_a_timeout_where_slack_posted_nothing_is_posted_once_more(rbot, rfake):
    """chat.postMessage hanging past the timeout without posting: looked for, then posted once; charged once."""
    rfake.fail("chat.postMessage", 500, delay_s=SLACK_TIMEOUT_S + 1.5)
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=30)
    settle(1.0)
    assert len(replies(rfake, ts)) == 1 and "cuda-oom" in all_text(replies(rfake, ts)[0])
    assert used(rbot) == 1


def test_a_thread_slack_will_not_show_is_not_posted_twice(rbot, rfake):
    """A 500 after posting and conversations.replies refused: no second post (never a blind retry)."""
    rfake.fail("chat.postMessage", 500, posted=True)
    rfake.fail("conversations.replies", 200, times=3, body={"ok": False, "error": "missing_scope"})
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("reactions.add", timestamp=ts, name="x", timeout=20)
    settle(1.0)
    assert len(rfake.of("chat.postMessage")) == 1


@pytest.fixture(scope="module")
def replica(rbot_process: Bot, rfake) -> Iterator[Bot]:
    bot = start_bot(rfake, rbot_process.redis_url, TUNED_ENV)
    yield bot
    stop_bot(bot)


def test_a_log_pasted_in_parts_across_two_replicas_is_one_diagnosis(rbot, replica, rfake):
    """Three parts of one paste, alternating between two replicas: one answer in the first part's thread, one charge."""
    lines = SAMPLE.splitlines()
    step = len(lines) // 3 + 1
    parts = ["\n".join(lines[i : i + step]) for i in range(0, len(lines), step)]
    base = time.time()
    stamps = [f"{base + i * 0.8:.6f}" for i in range(len(parts))]
    for i, (part, ts) in enumerate(zip(parts, stamps, strict=True)):
        (rbot if i % 2 == 0 else replica).event(message(part, ts))
        time.sleep(0.3)
    post = rfake.wait_delivered("chat.postMessage", timeout=20)[0]
    assert post.params["thread_ts"] == stamps[0] and "cuda-oom" in all_text(post)
    settle(4.0)
    assert len(rfake.delivered("chat.postMessage")) == 1
    assert used(rbot) == 1


def test_a_follow_up_answer_after_a_5xx_that_posted_is_not_doubled(rbot, rfake):
    """A follow-up answer whose post lands before a 500: looked for, found, not posted again."""
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("reactions.add", name="white_check_mark", timestamp=ts, timeout=20)
    rfake.fail("chat.postMessage", 500, posted=True)
    rbot.event(message("how do I confirm this?", new_ts(), thread_ts=ts))
    rfake.wait_delivered("chat.postMessage", count=2, thread_ts=ts, timeout=20)
    settle(2.0)
    answers = [c for c in rfake.delivered("chat.postMessage", thread_ts=ts)
               if (c.params.get("metadata") or {}).get("event_type") == "denpex_reply"]
    assert len(answers) == 1
    assert rfake.of("conversations.replies")
