"""A log changes shape as it goes (an env dump, then training lines): the prefilter samples it
again and chooses anew, and the diagnosis is still the naive path's.

Apart from tests/matcher/test_equivalence.py (whose matchers and helpers these use) only so that
the suite's workers, which take a file each, run these two slow comparisons beside that file's.
"""

from __future__ import annotations

from tests.matcher.test_equivalence import FAST, NAIVE, _generated_log, comparable


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


def test_a_log_that_changes_shape_is_sampled_again_and_the_diagnosis_stands(monkeypatch):
    """An env dump first, Megatron iterations after: the database chosen on the dump is chosen
    again on a later sample (it leaves out the literals the iterations repeat), and the
    diagnosis of the whole log is still the naive path's."""
    from bot.matcher import engine

    log = _generated_log(2_000_000, "env-dump", seed=5)
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


def test_a_log_whose_pace_of_candidate_lines_jumps_is_sampled_again_sooner(monkeypatch):
    """An env dump, then Megatron iterations: long before RESAMPLE_EVERY, two stretches in a
    row bring many more candidate lines than the sample saw, and the scan samples again (it
    now leaves out what the iterations repeat); the diagnosis is still the naive path's.

    Each iteration line is made a shape of its own (a word of letters at its end): lines of one
    shape settle and are emptied before the prefilter sees them (`blanking`), so they never
    make the pace jump, and leaving out their literals would not matter."""
    from bot.matcher import engine

    log = _generated_log(2_000_000, "env-dump", seed=5)
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
