"""Property tests over the matcher and the diagnose path (mask, then match): no exception but a
clear InputError escapes for any input, and the diagnosis of a log does not depend on its line
endings (`\\n`, `\\r\\n`) or on trailing noise."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.ingest import InputError
from tests.fuzz.corpus import corpus, denpex, fuzz, verdict

FUZZ = fuzz(150)
LOGS = st.sampled_from(range(len(corpus())))

# What follows the end of a failed run without being part of it: blank or whitespace lines,
# progress bars, metrics, launcher chatter with no error in it.
BENIGN = st.sampled_from([
    "", " ", "\t", "   \t  ",
    "Epoch 3: 100%|##########| 250/250 [00:41<00:00,  6.02it/s, v_num=0, train_loss=0.231]",
    "{'loss': 1.2345, 'grad_norm': 0.98, 'learning_rate': 1e-05, 'epoch': 0.5}",
    "wandb: Syncing run lucky-sun-42", "wandb: Find logs at: ./wandb/run-20240101_000000-abc/logs",
    "  0%|          | 0/1000 [00:00<?, ?it/s]", "step 1200 | lr 3.0e-04 | tokens/s 51234",
    "Saving model checkpoint to ./out/checkpoint-500", "[INFO] heartbeat ok",
])  # fmt: skip


def diagnose(text: str) -> tuple | None:
    """The verdict of the full path (masking included); None for input it refuses."""
    try:
        return verdict(denpex().diagnose_text(text).diagnosis)
    except InputError:
        return None


def _crlf(log: str) -> str:
    return log.replace("\r\n", "\n").replace("\n", "\r\n")


def test_every_example_log_diagnoses_the_same_with_crlf_and_trailing_blank_lines():
    """Every example log: CRLF endings, no final newline or trailing blank lines change nothing a user sees."""
    differ = []
    for name, log in corpus():
        base = diagnose(log)
        for kind, variant in (("crlf", _crlf(log)), ("no-final-newline", log.rstrip("\n")),
                              ("trailing-blank-lines", log + "\n\n   \n\t\n")):
            if diagnose(variant) != base:
                differ.append((name, kind))
    assert differ == [], differ


@FUZZ
@given(LOGS, st.lists(st.booleans(), min_size=1, max_size=64))
def test_mixed_line_endings_do_not_change_the_diagnosis(i: int, crlf_at: list[bool]) -> None:
    """Some lines ending `\\r\\n`, others `\\n` (a log stitched from two tools): same diagnosis."""
    log = corpus()[i][1]
    lines = log.split("\n")
    mixed = "".join(
        line + ("" if n == len(lines) - 1 else "\r\n" if crlf_at[n % len(crlf_at)] else "\n")
        for n, line in enumerate(lines)
    )
    assert diagnose(mixed) == diagnose(log)


@FUZZ
@given(LOGS, st.lists(BENIGN, min_size=1, max_size=20), st.sampled_from(["\n", "\r\n"]))
def test_trailing_noise_does_not_change_the_diagnosis(i: int, noise: list[str], eol: str) -> None:
    """Blank lines, whitespace, progress bars and metrics after the end: same diagnosis."""
    log = corpus()[i][1]
    tail = "" if log.endswith("\n") else "\n"
    assert diagnose(log + tail + eol.join(noise) + eol) == diagnose(log)


@fuzz(300)
@given(st.binary(max_size=4000), st.lists(st.integers(1, 500), max_size=20))
def test_any_bytes_in_any_pieces_give_a_diagnosis_or_an_input_error(data: bytes, cuts: list[int]) -> None:
    """Arbitrary bytes cut anywhere: a JSON-serialisable diagnosis, or InputError; nothing else."""
    pieces, at = [], 0
    for n in cuts:
        pieces.append(data[at : at + n])
        at += n
    pieces.append(data[at:])
    try:
        outcome = denpex().diagnose_stream(pieces)
    except InputError as exc:
        assert str(exc)
        return
    json.dumps(outcome.diagnosis.to_dict())
    if not data[:1].isspace() and not data.startswith(b"\x1f\x8b"):
        # Every byte counted once (leading blank space is kept as newlines only; gzip inflates).
        assert outcome.diagnosis.stats.bytes == len(data)


@fuzz(300)
@given(st.text(st.characters(exclude_categories=()), max_size=2000))
def test_any_text_gives_a_diagnosis_or_an_input_error(text: str) -> None:
    """Any pasted text, surrogates and control characters included: a diagnosis or InputError."""
    try:
        outcome = denpex().diagnose_text(text)
    except InputError as exc:
        assert str(exc)
        return
    json.dumps(outcome.diagnosis.to_dict())


@fuzz(100)
@given(LOGS, st.integers(0, 10_000), st.sampled_from(["a", " ", "(", "[rank", "Error:", "\x00", "é", "\ud800"]))
def test_a_hostile_run_inside_a_real_log_never_raises(i: int, at: int, run: str) -> None:
    """A long run of one fragment spliced into a real log: a diagnosis or InputError, no exception."""
    log = corpus()[i][1]
    at %= max(1, len(log))
    with contextlib.suppress(InputError):
        denpex().diagnose_text(log[:at] + run * (20_000 // len(run)) + log[at:])


@pytest.mark.parametrize("name", ["samples/rank3-oom-8-ranks.log"])
def test_the_sample_log_survives_every_line_ending_at_once(name):
    """The shipped sample with CRLF endings, trailing noise and no final newline: still cuda-oom, rank 3."""
    log = dict(corpus())[name]
    noisy = _crlf(log) + "\r\n\r\n  \r\nEpoch 3: 100%|##########| 250/250"
    d = denpex().diagnose_text(noisy).diagnosis
    assert d.matches[0].id == "cuda-oom" and d.initiating_rank == 3
