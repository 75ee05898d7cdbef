"""Feedback votes: one per user, rule and thread; the last one counts; summed across teams."""

from __future__ import annotations

from bot.store import FeedbackRow, Store, TeamVotes


def test_votes_are_counted_per_rule(store: Store) -> None:
    """Right and wrong votes add up per rule."""
    store.feedback.vote("T1", "rule-a", "U1", True, "C1:1.1")
    store.feedback.vote("T1", "rule-a", "U2", False, "C1:1.1")
    store.feedback.vote("T1", "rule-a", "U3", True, "C1:1.1")
    store.feedback.vote("T1", "rule-b", "U1", False, "C1:1.2")
    assert store.feedback.summary() == [
        FeedbackRow("rule-a", 2, 1, (TeamVotes("T1", 2, 1),)),
        FeedbackRow("rule-b", 0, 1, (TeamVotes("T1", 0, 1),)),
    ]


def test_last_vote_wins(store: Store) -> None:
    """A user changing their vote in a thread moves it; repeating it changes nothing."""
    for right in (True, True, False, False, True):
        store.feedback.vote("T1", "rule-a", "U1", right, "C1:1.1")
    assert store.feedback.summary() == [FeedbackRow("rule-a", 1, 0, (TeamVotes("T1", 1, 0),))]


def test_same_user_in_two_threads_counts_twice(store: Store) -> None:
    """Votes are per thread: the same user on the same rule in another thread counts."""
    store.feedback.vote("T1", "rule-a", "U1", True, "C1:1.1")
    store.feedback.vote("T1", "rule-a", "U1", False, "C1:1.2")
    row = store.feedback.summary()[0]
    assert (row.right, row.wrong) == (1, 1)


def test_summary_adds_up_workspaces_with_their_split(store: Store) -> None:
    """The summary sums votes across workspaces, most-voted rule first, with per-team counts."""
    store.feedback.vote("T1", "rule-a", "U1", True, "C1:1.1")
    store.feedback.vote("T2", "rule-a", "U1", False, "C9:2.2")
    store.feedback.vote("T2", "rule-a", "U2", False, "C9:2.2")
    store.feedback.vote("T2", "rule-b", "U1", True, "C9:2.3")
    assert store.feedback.summary() == [
        FeedbackRow("rule-a", 1, 2, (TeamVotes("T1", 1, 0), TeamVotes("T2", 0, 2))),
        FeedbackRow("rule-b", 1, 0, (TeamVotes("T2", 1, 0),)),
    ]


def test_no_votes_no_rows(store: Store) -> None:
    """An empty store summarises to an empty list."""
    assert store.feedback.summary() == []
