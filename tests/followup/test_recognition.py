"""Follow-up recognition on real-sounding questions: accuracy on the tuning part, and the held-out part that nothing was fitted on."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.followup.recognizer import Recognizer, load_examples, recognise
from bot.followup.topics import BY_NAME, UNKNOWN

HERE = Path(__file__).parent
HELDOUT_MIN = 0.95


def _rows(part: str) -> list[tuple[str, str]]:
    rows = yaml.safe_load((HERE / f"evalset_{part}.yaml").read_text(encoding="utf-8"))
    return [(topic, question) for topic, question in rows]


def _accuracy(rows: list[tuple[str, str]]) -> tuple[float, list[str]]:
    misses = [f"{q!r}: expected {t}, got {recognise(q).topic}" for t, q in rows if recognise(q).topic != t]
    return 1 - len(misses) / len(rows), misses


def test_the_evaluation_set_is_big_enough_and_names_real_topics():
    """At least 300 questions in all, every expected topic one the bot answers (or unknown)."""
    rows = _rows("tuning") + _rows("heldout")
    assert len(rows) >= 300
    assert {t for t, _ in rows} <= set(BY_NAME) | {UNKNOWN}
    assert {t for t, _ in rows} == set(BY_NAME) | {UNKNOWN}, "every topic is measured"


def test_heldout_questions_are_not_training_examples():
    """The held-out part measures generalisation: none of its questions is an example."""
    examples = {q.lower().strip() for _, q in load_examples()}
    leaked = [q for _, q in _rows("heldout") if q.lower().strip() in examples]
    assert leaked == []


@pytest.mark.parametrize("part", ["tuning", "heldout"])
def test_accuracy(part, capsys):
    """Accuracy is reported for both parts; the held-out part must reach 95%."""
    acc, misses = _accuracy(_rows(part))
    with capsys.disabled():
        print(f"\nfollow-up recognition, {part}: {acc:.1%} ({len(misses)} missed)")
    if part == "heldout":
        assert acc >= HELDOUT_MIN, "\n".join(misses)


def test_unrecognised_question_ranks_topics_but_claims_none():
    """Chatter is not taken for a question; the closest topics are still ranked for buttons."""
    r = recognise("tell me a joke about penguins")
    assert r.topic == UNKNOWN
    assert len(r.closest(3)) == 3 and UNKNOWN not in r.closest(3)


def test_typos_still_land():
    """Misspelt words share enough character n-grams with the right examples."""
    assert recognise("how do i confrim this").topic == "confirm"
    assert recognise("is it a hardwre problem").topic == "hardware_or_software"
    assert recognise("wich rank faild first").topic == "initiating_rank"
    assert recognise("show me teh line").topic == "evidence"


def test_examples_naming_a_missing_topic_are_refused():
    """A typo in examples.yaml's topic names is an error, not a silently dead topic."""
    with pytest.raises(ValueError, match="confirmm"):
        Recognizer([("confirmm", "how do I confirm this")])
