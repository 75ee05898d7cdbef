"""What a thread keeps for follow-ups about the run: masked only, times as digits, old records readable."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bot.masking import mask
from bot.masking.masked import UnmaskedTextError
from bot.store import Store, ThreadContext, keys
from bot.store.config import Plan
from bot.store.followup_quota import FREE_FOLLOWUPS_PER_DAY
from bot.store.threads import MAX_MATCH_EVIDENCE, KeptLine, KeptMatch, clock_time


def ctx(**changes) -> ThreadContext:
    line = KeptLine(412, 3, mask("NCCL WARN NET/IB : Got completion from peer 10.0.0.7 with error 12").text,
                    mask("gpu-node-17.corp.example.com").text, "2026-11-30 12:00:01.123")
    values = {
        "entry_ids": ["nccl-ib-retry-exceeded"], "initiating_rank": 3, "evidence": [line.text], "channel": "C1",
        "thread_ts": "1700000000.000100", "created_at": "2026-11-30T12:00:00+00:00",
        "matches": [KeptMatch("nccl-ib-retry-exceeded", "IB retry", "root", "high", 0.93, [3], [line])],
        "lines": 9000, "elapsed_ms": 41,
    }
    values.update(changes)
    return ThreadContext(**values)


@pytest.mark.parametrize(("raw", "kept"), [
    ("2026-11-30 12:00:01,123456", "2026-11-30 12:00:01.123"),
    ("E1130 04:12:55.118204", "04:12:55.118"),
    ("[2026-11-30T12:00:01Z]", "2026-11-30 12:00:01"),
    ("no time here", None),
    (None, None),
], ids=["iso-comma", "glog", "bracketed-iso", "none", "missing"])
def test_clock_time_keeps_only_the_digits_of_a_time(raw, kept):
    """A log's timestamp is rebuilt from its digits; text around it never survives."""
    assert clock_time(raw) == kept


def test_matches_round_trip_masked(store: Store, redis_dump) -> None:
    """Kept matches load back with MaskedText lines and host placeholders, nothing raw in Redis."""
    store.threads.save("T1", "C1", "1700000000.000100", ctx())
    back = store.threads.load("T1", "C1", "1700000000.000100")
    assert back == ctx()
    assert type(back.matches[0].evidence[0].text).__name__ == "MaskedText"
    dump = json.dumps(redis_dump())
    assert "10.0.0.7" not in dump and "corp.example.com" not in dump


def test_unmasked_evidence_or_host_is_refused(store: Store) -> None:
    """A plain str in a kept match's line or host is refused before anything is written."""
    good = ctx().matches[0].evidence[0]
    for bad in (KeptLine(1, 0, "raw line 10.0.0.7"), KeptLine(1, 0, good.text, "gpu-node-17")):
        with pytest.raises(UnmaskedTextError):
            store.threads.save("T1", "C1", "1.1", ctx(matches=[KeptMatch("x", "x", "root", "high", 1.0, [0], [bad])]))
    assert store.threads.load("T1", "C1", "1.1") is None


def test_evidence_per_match_is_capped(store: Store) -> None:
    """A match keeps at most MAX_MATCH_EVIDENCE lines."""
    line = ctx().matches[0].evidence[0]
    many = KeptMatch("x", "x", "root", "high", 1.0, [0], [line] * (MAX_MATCH_EVIDENCE + 4))
    store.threads.save("T1", "C1", "1.1", ctx(matches=[many]))
    assert len(store.threads.load("T1", "C1", "1.1").matches[0].evidence) == MAX_MATCH_EVIDENCE


def test_old_record_loads_with_no_matches(store: Store) -> None:
    """A record written before matches were kept reads back, with empty matches and no timings."""
    old = {"entry_ids": ["cuda-oom"], "initiating_rank": None, "evidence": [], "channel": "C1",
           "thread_ts": "1.1", "created_at": "2026-01-01T00:00:00+00:00"}
    store._client.redis.set(keys.thread("T1", "C1", "1.1"), json.dumps(old))
    back = store.threads.load("T1", "C1", "1.1")
    assert back is not None and back.matches == [] and back.lines is None


def test_follow_up_allowance_follows_the_live_plan(store: Store, clock) -> None:
    """Free: FREE_FOLLOWUPS_PER_DAY a day; scale: unlimited; an expired scale plan is free again."""
    takes = [store.followup_quota.take("T1") for _ in range(FREE_FOLLOWUPS_PER_DAY + 1)]
    assert [t.allowed for t in takes] == [True] * FREE_FOLLOWUPS_PER_DAY + [False]
    assert takes[-1].daily_limit == FREE_FOLLOWUPS_PER_DAY and takes[-1].plan == "free"
    store.plans.grant("T1", Plan.SCALE.value, clock() + timedelta(hours=1))
    scale = store.followup_quota.take("T1")
    assert scale.allowed and scale.daily_limit is None and scale.plan == "scale"
    clock.advance(hours=2)
    assert not store.followup_quota.take("T1").allowed, "the plan ran out: free, and today's allowance is used"


def test_topic_buttons_carry_valid_json_within_slack_limits():
    """A long question full of characters JSON escapes still gives a parseable value of at most 2,000 characters."""
    from bot.followup.topics import BY_NAME
    from bot.slack.blocks import topic_buttons

    question = mask('"\\\\\u0001' * 900).text
    row = topic_buttons([BY_NAME["kb_search"], BY_NAME["fix"]], question)
    for element in row["elements"]:
        assert len(element["value"]) <= 2000
        assert json.loads(element["value"])["t"] in ("kb_search", "fix")


def test_every_answer_but_unknown_is_posted_as_its_own_text():
    """answer_message shows the answer itself (help replaces only the 'unknown' topic), near-ties add a choice row."""
    from bot.followup import Answer
    from bot.followup.topics import BY_NAME
    from bot.matcher import default_matcher
    from bot.slack.blocks import answer_message

    rule = default_matcher().rulebook.get("cuda-oom")
    _, blocks = answer_message(Answer("not_kept", "Not kept for this thread", "Paste the log again"), rule,
                               [BY_NAME["evidence"]], mask("show me the line").text)
    assert "Paste the log again" in blocks[0]["text"]["text"]
    assert blocks[-1]["type"] == "actions" and blocks[-1]["elements"][0]["action_id"] == "denpex_followup_evidence"


def test_a_thread_with_no_entry_is_answered_from_nothing_but_the_question(store: Store) -> None:
    """An unmatched log's thread keeps no entry: a question gets what helps (and the entries its
    words name), round-tripped through Redis, and uses none of the day's follow-ups."""
    from bot.followup.kb_search import KbIndex
    from bot.followup.thread_question import UNMATCHED_HELP, ask
    from bot.matcher import default_matcher

    book = default_matcher().rulebook
    store.threads.save("T1", "C1", "1700000000.000100", ctx(entry_ids=[], evidence=[], matches=[]))
    kept = store.threads.load("T1", "C1", "1700000000.000100")
    assert kept is not None and kept.entry_ids == []
    plain = ask(book, KbIndex(book), store, "T1", kept, "what now?")
    assert plain is not None and plain.rule is None and plain.answer is not None
    assert plain.answer.text == UNMATCHED_HELP, "no words to look up: the help alone"
    named = ask(book, KbIndex(book), store, "T1", kept, "is this an infiniband retry problem?")
    assert named is not None and named.answer is not None and "`/denpex show nccl-ib" in named.answer.text
    assert store.followup_quota.take("T1").used == 1, "the two questions above took none"
