"""A paste burst taken by the log file sent after it (Bursts.take)."""

from __future__ import annotations

from bot.masking import mask
from bot.store import Store
from bot.store.bursts import Part

TEAM, PLACE = "T0BURST01", "C1:top:U1"


def test_a_burst_of_words_is_taken_and_its_closer_answers_nothing(store: Store) -> None:
    first = store.bursts.join(TEAM, PLACE, Part("1.2", "1.2", mask("rank 3 died with CUDA OOM").text, False), 5)
    second = store.bursts.join(TEAM, PLACE, Part("1.1", "1.1", mask("again, log attached").text, False), 5)
    assert [p.ts for p in store.bursts.take(TEAM, PLACE)] == ["1.1", "1.2"]
    assert store.bursts.close(TEAM, PLACE, first) is None
    assert store.bursts.close(TEAM, PLACE, second) is None
    assert store.bursts.take(TEAM, PLACE) == []


def test_a_burst_holding_a_log_is_taken_with_its_parts_strength(store: Store) -> None:
    seq = store.bursts.join(TEAM, PLACE, Part("2.1", "2.1", mask("see below").text, False), 5)
    seq = store.bursts.join(TEAM, PLACE, Part("2.2", "2.1", mask("Traceback (most recent call last):").text, True), 5)
    assert [(p.ts, p.strong) for p in store.bursts.take(TEAM, PLACE)] == [("2.1", False), ("2.2", True)]
    assert store.bursts.close(TEAM, PLACE, seq) is None


def test_no_burst_is_nothing_to_take(store: Store) -> None:
    assert store.bursts.take(TEAM, "C1:top:U2") == []
