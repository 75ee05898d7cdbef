"""A paste burst taken by the log file sent after it (Bursts.take)."""

from __future__ import annotations

import time

from bot.masking import mask
from bot.store import Store
from bot.store.bursts import Part

TEAM, PLACE = "T0BURST01", "C1:top:U1"


def test_a_burst_of_words_is_taken_and_its_closer_answers_nothing(store: Store) -> None:
    first = store.bursts.join(TEAM, PLACE, Part("1.2", "1.2", mask("rank 3 died with CUDA OOM").text, False), 5)
    second = store.bursts.join(TEAM, PLACE, Part("1.1", "1.1", mask("again, log attached").text, False), 5)
    assert [p.ts for p in store.bursts.take(TEAM, PLACE, "9.9", 5)] == ["1.1", "1.2"]
    assert store.bursts.close(TEAM, PLACE, first) is None
    assert store.bursts.close(TEAM, PLACE, second) is None
    assert store.bursts.take(TEAM, PLACE, "9.9", 5) == []


def test_a_burst_holding_a_log_is_taken_with_its_parts_strength(store: Store) -> None:
    seq = store.bursts.join(TEAM, PLACE, Part("2.1", "2.1", mask("see below").text, False), 5)
    seq = store.bursts.join(TEAM, PLACE, Part("2.2", "2.1", mask("Traceback (most recent call last):").text, True), 5)
    assert [(p.ts, p.strong) for p in store.bursts.take(TEAM, PLACE, "9.9", 5)] == [("2.1", False), ("2.2", True)]
    assert store.bursts.close(TEAM, PLACE, seq) is None


def test_no_burst_is_nothing_to_take(store: Store) -> None:
    assert store.bursts.take(TEAM, "C1:top:U2", "9.9", 5) == []


def test_closers_firing_out_of_order_answer_the_burst_once(store: Store) -> None:
    """Three parts joined at once set three closers' timers that fire in any order: the last
    part's closer may run first and close the burst. An earlier part's closer running after
    it is told a later part joined (None), not that the burst expired ([], which answers its
    part alone: a fresh process's first three-part paste was answered twice so)."""
    seqs = [store.bursts.join(TEAM, "C1:top:U3", Part(f"3.{i}", "3.1", mask(f"part {i}").text), 5) for i in (1, 2, 3)]
    assert [p.ts for p in store.bursts.close(TEAM, "C1:top:U3", seqs[2]) or []] == ["3.1", "3.2", "3.3"]
    assert store.bursts.close(TEAM, "C1:top:U3", seqs[0]) is None
    assert store.bursts.close(TEAM, "C1:top:U3", seqs[1]) is None
    assert not store.bursts.is_open(TEAM, "C1:top:U3")
    # A new burst in the place after the close: its own closer closes it, an old one does not.
    later = store.bursts.join(TEAM, "C1:top:U3", Part("3.9", "3.9", mask("part 9").text), 5)
    assert later is not None and later > seqs[2] and store.bursts.is_open(TEAM, "C1:top:U3")
    assert store.bursts.close(TEAM, "C1:top:U3", seqs[2]) is None
    assert [p.ts for p in store.bursts.close(TEAM, "C1:top:U3", later) or []] == ["3.9"]


def test_words_read_after_the_log_file_they_announce_join_nothing(store: Store) -> None:
    """A log file answered with no burst open (its words not read yet) is noted: the words, or
    an excerpt pasted before the file, then join nothing; a new log pasted after it does."""
    place = "C1:top:U4"
    assert store.bursts.take(TEAM, place, "4.5", 5) == []
    assert store.bursts.after_upload(TEAM, place)
    assert store.bursts.join(TEAM, place, Part("4.1", "4.1", mask("here is the log, CUDA OOM").text, False), 5) is None
    assert store.bursts.join(TEAM, place, Part("4.2", "4.2", mask("Traceback (most recent call last):").text), 5) is None
    assert store.bursts.join(TEAM, place, Part("4.7", "4.7", mask("thoughts? CUDA OOM again").text, False), 5) is None
    assert not store.bursts.is_open(TEAM, place)
    assert store.bursts.join(TEAM, place, Part("4.8", "4.8", mask("Traceback (most recent call last):").text), 5) == 1
    assert not store.bursts.after_upload(TEAM, "C1:top:U5")


def test_the_thread_a_log_is_answered_in_is_kept_a_moment(store: Store) -> None:
    """What a question sent just after a log is asked about: the file's own thread when it
    took no burst, the first part's when it took one (the words sent before it, in the
    middle of a thread of theirs), a pasted log's as noted; nothing elsewhere or after."""
    assert store.bursts.recent_answer(TEAM, "C1:top:U6") is None
    store.bursts.take(TEAM, "C1:top:U6", "6.5", 5, upload_thread="6.5")
    assert store.bursts.recent_answer(TEAM, "C1:top:U6") == "6.5"
    store.bursts.join(TEAM, "C1:top:U7", Part("7.3", "7.3", mask("log attached").text, False), 5)
    store.bursts.join(TEAM, "C1:top:U7", Part("7.2", "7.0", mask("rank 3 died with CUDA OOM").text, False), 5)
    assert [p.ts for p in store.bursts.take(TEAM, "C1:top:U7", "7.9", 5, upload_thread="7.9")] == ["7.2", "7.3"]
    assert store.bursts.recent_answer(TEAM, "C1:top:U7") == "7.0"
    store.bursts.note_answer(TEAM, "C1:top:U8", "8.1", 0.05)
    assert store.bursts.recent_answer(TEAM, "C1:top:U8") == "8.1"
    assert store.bursts.recent_answer(TEAM, "C1:top:U9") is None
    time.sleep(0.1)
    assert store.bursts.recent_answer(TEAM, "C1:top:U8") is None


def test_an_edit_is_noted_per_message_and_read_back_masked(store: Store) -> None:
    """The latest edit of a message is what `edit_of` gives, with its strength and the edit's
    ts; another message, or another channel's message of the same ts, has none."""
    assert store.bursts.edit_of("T1", "C1", "1.1") is None
    store.bursts.note_edit("T1", "C1", Part("1.1", "1.0", mask("first edit").text, False, "1.2"), 5)
    store.bursts.note_edit("T1", "C1", Part("1.1", "1.0", mask("alice@example.com wrote").text, True, "1.3"), 5)
    edit = store.bursts.edit_of("T1", "C1", "1.1")
    assert edit is not None and (edit.ts, edit.thread_ts, edit.strong, edit.edited) == ("1.1", "1.0", True, "1.3")
    assert "alice@example.com" not in edit.text
    assert store.bursts.edit_of("T1", "C2", "1.1") is None and store.bursts.edit_of("T1", "C1", "1.2") is None
