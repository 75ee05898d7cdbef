"""Posts of unknown outcome: Slack answering 5xx after it posted, or answering after the
timeout. The bot looks for its answer (message metadata with the diagnosis id) before it
repeats it: one answer, told once, charged once. And a log pasted in parts across replicas."""

from __future__ import annotations

import re
import time

from tests.reliability.conftest import (
    SAMPLE,
    SLACK_TIMEOUT_S,
    all_text,
    answered_once,
    message,
    new_ts,
    paste,
    replies,
    used,
)
from tests.slack.conftest import wait_handled


def test_5xx_after_slack_posted_is_not_posted_again(rbot, rfake):
    """chat.postMessage posts, then answers 500: the bot finds its answer in the thread and posts nothing more."""
    rfake.fail("chat.postMessage", 500, posted=True)
    ts = paste(rbot)
    post = answered_once(rbot, rfake, ts)
    assert post.params["metadata"]["event_payload"]["diagnosis_id"]
    assert rfake.of("conversations.replies"), "the thread was not looked at"
    assert len(rfake.of("chat.postMessage")) == 1
    assert rfake.delivered("reactions.add", name="white_check_mark", timestamp=ts)


def test_5xx_before_slack_posted_is_posted_again_after_a_look(rbot, rfake):
    """chat.postMessage answering 502 without posting: looked for, absent, posted once more; charged once."""
    rfake.fail("chat.postMessage", 502)
    ts = paste(rbot)
    answered_once(rbot, rfake, ts)
    calls = [c.method for c in rfake.calls if c.method in ("chat.postMessage", "conversations.replies")]
    assert calls[:3] == ["chat.postMessage", "conversations.replies", "chat.postMessage"]


def test_a_post_answering_after_the_timeout_is_told_once_and_charged_once(rbot, rfake):
    """Slack posts but answers 12 s later (past the bot's timeout): one answer, no "nothing was charged" note, one charge."""
    rfake.fail("chat.postMessage", 200, delay_s=12, posted=True, body={"ok": True, "ts": "1.1"})
    ts = paste(rbot)
    answered_once(rbot, rfake, ts)
    assert not any("did not confirm" in all_text(p) or "nothing was charged" in all_text(p)
                   for p in rfake.delivered("chat.postMessage"))
    assert rfake.delivered("reactions.add", name="white_check_mark", timestamp=ts)


def test_a_timeout_where_slack_posted_nothing_is_posted_once_more(rbot, rfake):
    """chat.postMessage hanging past the timeout without posting: looked for, then posted once; charged once."""
    rfake.fail("chat.postMessage", 500, delay_s=SLACK_TIMEOUT_S + 0.5)
    answered_once(rbot, rfake, paste(rbot))


def test_a_thread_slack_will_not_show_is_not_posted_twice(rbot, rfake):
    """A 500 after posting and conversations.replies refused: no second post (never a blind retry)."""
    rfake.fail("chat.postMessage", 500, posted=True)
    rfake.fail("conversations.replies", 200, times=3, body={"ok": False, "error": "missing_scope"})
    ts = paste(rbot)
    wait_handled(rbot, ts)
    assert rfake.delivered("reactions.add", timestamp=ts, name="x")
    assert len(rfake.of("chat.postMessage")) == 1


def test_a_log_pasted_in_parts_across_two_replicas_is_one_diagnosis(rbot, pasting_pair, rfake):
    """Three parts of one paste, alternating between two replicas: one answer in the first part's thread, one charge."""
    one, other = pasting_pair
    lines = SAMPLE.splitlines()
    step = len(lines) // 3 + 1
    parts = ["\n".join(lines[i : i + step]) for i in range(0, len(lines), step)]
    base = time.time()
    stamps = [f"{base + i * 0.8:.6f}" for i in range(len(parts))]
    for i, (part, ts) in enumerate(zip(parts, stamps, strict=True)):
        assert (one if i % 2 == 0 else other).event(message(part, ts)).status == 200
    wait_handled(rbot, *stamps)
    post = rfake.wait_delivered("chat.postMessage", timeout=20)[0]
    assert post.params["thread_ts"] == stamps[0] and "cuda-oom" in all_text(post)
    assert len(rfake.delivered("chat.postMessage")) == 1
    assert used(rbot) == 1


def test_a_follow_up_answer_after_a_5xx_that_posted_is_not_doubled(rbot, rfake):
    """A follow-up answer whose post lands before a 500: looked for, found, not posted again."""
    ts = paste(rbot)
    wait_handled(rbot, ts)
    rfake.fail("chat.postMessage", 500, posted=True)
    question = new_ts()
    rbot.event(message("how do I confirm this?", question, thread_ts=ts))
    wait_handled(rbot, question)
    answers = [c for c in replies(rfake, ts) if (c.params.get("metadata") or {}).get("event_type") == "denpex_reply"]
    assert len(answers) == 1
    assert rfake.of("conversations.replies")


def test_a_part_masked_on_the_other_replica_keeps_its_people_apart(rbot, pasting_pair, rfake):
    """Part 1 (alice's paths) reaches one replica, part 2 (bob's) the other, which answers from
    part 1's masked copy: one diagnosis, no name in it, and alice and bob are two placeholders."""
    first = ("[rank1]: Traceback (most recent call last):\n"
             '[rank1]:   File "/home/alice/train.py", line 88, in <module>\n'
             "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
             "capacity of 79.15 GiB of which 1.2 GiB is free. Log: /home/alice/run.log")
    second = first.replace("rank1", "rank3").replace("GPU 1", "GPU 3").replace("alice", "bob")
    stamps = [new_ts(), new_ts() + "1"]
    one, other = pasting_pair
    assert one.event(message(first, stamps[0])).status == 200
    assert other.event(message(second, stamps[1])).status == 200
    wait_handled(rbot, *stamps)
    (post,) = rfake.delivered("chat.postMessage")
    text = all_text(post)
    assert post.params["thread_ts"] == stamps[0] and "cuda-oom" in text
    assert "alice" not in text and "bob" not in text
    people = set(re.findall(r"USER-\d+", text))
    assert len(people) == 2, (people, text[:2000])
    assert used(rbot) == 1
