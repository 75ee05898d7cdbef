"""Exactly once: Slack's re-sent events, and one event reaching two replicas at the same moment,
give one reply and one charge; concurrent diagnoses never overspend the quota."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from tests.reliability.conftest import SAMPLE, all_text, message, new_ts, used
from tests.slack.conftest import wait_handled

RETRY = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}


def at_once(*calls: Callable[[], object]) -> list[object]:
    """Run the calls in threads released together; their results in order."""
    gate = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(i: int, call: Callable[[], object]) -> None:
        gate.wait()
        results[i] = call()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_slack_resending_an_event_three_times_gets_one_reply(rbot, rfake):
    """The original and retries 1-3 of one event, all at once: one reply, one charge, all acked 200."""
    ts, ev = new_ts(), "EvRESENT0001"
    event = message(SAMPLE, ts)
    statuses = at_once(
        lambda: rbot.event(event, event_id=ev),
        *[lambda n=n: rbot.event(event, event_id=ev, headers={"X-Slack-Retry-Num": str(n),
                                                               "X-Slack-Retry-Reason": "http_timeout"})
          for n in (1, 2, 3)],
    )
    assert [r.status for r in statuses] == [200] * 4
    wait_handled(rbot, ts)
    assert len(rfake.delivered("chat.postMessage", thread_ts=ts)) == 1
    assert used(rbot) == 1


def test_one_event_on_two_replicas_at_once_is_answered_once_and_quota_is_exact(rbot, replica, rfake):
    """Ten logs, each delivered to both replicas at the same instant: ten replies, three charged (free plan)."""
    stamps = [new_ts() + f"{i}" for i in range(10)]
    for i, ts in enumerate(stamps):
        # Ten people (one person's consecutive messages would be one pasted log).
        ev, event = f"EvTWICE{i:04d}", {**message(SAMPLE, ts), "user": f"U0USER{i:03d}"}
        replies = at_once(lambda e=event, i=ev: rbot.event(e, event_id=i),
                          lambda e=event, i=ev: replica.event(e, event_id=i, headers=RETRY))
        assert [r.status for r in replies] == [200, 200]
    wait_handled(rbot, *stamps)
    per_thread = Counter(c.params["thread_ts"] for c in rfake.delivered("chat.postMessage"))
    assert per_thread == Counter(stamps), "every event answered exactly once"
    texts = [all_text(c) for c in rfake.delivered("chat.postMessage")]
    assert sum("cuda-oom" in t for t in texts) == 3
    assert sum("Daily limit reached" in t for t in texts) == 7
    assert used(rbot) == 3


def test_a_mention_arriving_as_two_events_on_two_replicas_gets_one_reply(rbot, replica, rfake):
    """The `message` and `app_mention` events of one post, on different replicas at once: one reply."""
    ts = new_ts()
    text = "<@UBOT0001> why did this die?\n" + SAMPLE
    as_message = message(text, ts, channel_type="im", channel="D0ALICE")
    as_mention = {**message(text, ts, channel="D0ALICE"), "type": "app_mention"}
    at_once(lambda: rbot.event(as_message), lambda: replica.event(as_mention))
    wait_handled(rbot, ts, channel="D0ALICE")
    assert len(rfake.delivered("chat.postMessage", thread_ts=ts)) == 1
    assert used(rbot) == 1


def test_a_follow_up_resent_to_the_other_replica_is_answered_once(rbot, replica, rfake):
    """A follow-up question delivered to both replicas: one answer, and follow-ups stay free."""
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("chat.postMessage", thread_ts=ts)
    q = message("how do I confirm this?", new_ts(), thread_ts=ts)
    at_once(lambda: rbot.event(q, event_id="EvFOLLOW01"), lambda: replica.event(q, event_id="EvFOLLOW01", headers=RETRY))
    wait_handled(rbot, ts, q["ts"])
    assert len(rfake.delivered("chat.postMessage", thread_ts=ts)) == 2
    assert used(rbot) == 1
