"""A log changes shape as it goes (an env dump, then training lines): the prefilter samples it
again and chooses anew, and the diagnosis is still the naive path's.

Apart from tests/matcher/test_equivalence.py (whose matchers and helpers these use) only so that
the suite's workers, which take a file each, run these two slow comparisons beside that file's.
"""

from __future__ import annotations

import pytest

from tests.matcher.test_equivalence import FAST, NAIVE, _generated_log, comparable

# Each test is ~70 s of CPU, ~55 s of it the naive path on the env dump (11,559 lines at ~5 ms):
# on a machine shared with other jobs both passed the suite's 300 s hang guard (a run beside
# other test runs, 4-5x slower). Nothing here reads the clock (FAST and NAIVE have a 1 s regex
# timeout), so a guard of their own, as test_flood_generated has; it still ends a real hang.
# The dump cannot be smaller: one of 128 ranks (a 600 KB log) is sampled without leaving any
# literal out, and a first choice that leaves some out is what the tests start from.
_GUARD = pytest.mark.timeout(900)


def _dump_then_iterations() -> str:
    """An env-dump log as bench/loggen.py writes one of 2 MB (so the dump is of 208 ranks, 460
    KB, the first sample's choice on it leaves literals out), its failure early in the iterations,
    and the iterations cut to their first 400 KB, then the log's end (the other ranks' watchdogs,
    the launcher's summary). The whole 2 MB log cost each test ~24 s of CPU on the naive path
    for iterations no sample reached; the dump, both samples' stretches and the failure stay."""
    log = _generated_log(2_000_000, "env-dump", seed=5, failure_at=0.3)
    dump_end = log.index(" iteration ")
    keep_until = log.index("\n", dump_end + 400_000) + 1
    tail_from = log.index("\n", log.rindex(" iteration ")) + 1
    assert "OutOfMemoryError" in log[dump_end:keep_until]  # the failure is in what is kept
    return log[:keep_until] + log[tail_from:]


def _choices_as_fed(data: bytes) -> tuple[list[list[str]], object]:
    """Feed `data` in 64 KB pieces: each database the prefilter chose in turn (what it left
    out), and the diagnosis."""
    scan = FAST.scan()
    chosen: list[list[str]] = []
    for i in range(0, len(data), 64 * 1024):
        scan.feed(data[i : i + 64 * 1024])
        if not chosen or chosen[-1] != scan.left_out():
            chosen.append(scan.left_out())
    return chosen, scan.finish()


def _assert_chosen_anew_on_the_iterations(log: str) -> None:
    """Fed in 64 KB pieces, the env dump then the iterations: the database chosen on the dump
    keeps the training lines' literals, a later one leaves out what the iterations repeat, and
    the diagnosis is still the naive path's."""
    chosen, got = _choices_as_fed(log.encode())
    first = next(left for left in chosen if left)  # chosen on the dump
    assert "loss" not in first and "grad norm" not in first, chosen
    assert any("loss" in left and "grad norm" in left for left in chosen), chosen
    assert comparable(got, timeouts=False) == comparable(NAIVE.diagnose(log), timeouts=False)


@_GUARD
def test_a_log_that_changes_shape_is_sampled_again_and_the_diagnosis_stands(monkeypatch):
    """An env dump first, Megatron iterations after: the database chosen on the dump is chosen
    again on a later sample (it leaves out the literals the iterations repeat), and the
    diagnosis of the whole log is still the naive path's."""
    from bot.matcher import engine

    log = _dump_then_iterations()
    dump_end = log.index(" iteration ")
    monkeypatch.setattr(engine, "LEARN_BYTES", dump_end // 2)
    monkeypatch.setattr(engine, "RESAMPLE_BYTES", 100_000)
    monkeypatch.setattr(engine, "RESAMPLE_EVERY", dump_end)
    _assert_chosen_anew_on_the_iterations(log)


def _letters(n: int) -> str:
    out = ""
    while True:
        n, k = divmod(n, 26)
        out += "abcdefghijklmnopqrstuvwxyz"[k]
        if not n:
            return out


@_GUARD
def test_a_log_whose_pace_of_candidate_lines_jumps_is_sampled_again_sooner(monkeypatch):
    """An env dump, then Megatron iterations: long before RESAMPLE_EVERY, two stretches in a
    row bring many more candidate lines than the sample saw, and the scan samples again (it
    now leaves out what the iterations repeat); the diagnosis is still the naive path's.

    Each iteration line is made a shape of its own (a word of letters at its end): lines of one
    shape settle and are emptied before the prefilter sees them (`blanking`), so they never
    make the pace jump, and leaving out their literals would not matter."""
    from bot.matcher import engine

    log = _dump_then_iterations()
    dump_end = log.index(" iteration ")
    head, tail = log[:dump_end], log[dump_end:].split("\n")
    log = head + "\n".join(f"{line} {_letters(i)}" if " iteration " in line else line for i, line in enumerate(tail))
    monkeypatch.setattr(engine, "LEARN_BYTES", dump_end // 2)
    monkeypatch.setattr(engine, "RESAMPLE_EVERY", 10**12)
    monkeypatch.setattr(engine, "RESAMPLE_BYTES", 64 * 1024)
    monkeypatch.setattr(engine, "RESHAPED_AFTER", 64 * 1024)
    monkeypatch.setattr(engine, "RESHAPED_LINES", 20)
    data = log.encode()
    _assert_chosen_anew_on_the_iterations(log)
    # A log of one pace is sampled once.
    steady = FAST.scan()
    for i in range(dump_end, len(data), 64 * 1024):
        steady.feed(data[i : i + 64 * 1024])
    assert steady._sampled_at == 0
