"""A launcher's teardown kills are not the cause when a rank had already failed on its own.

torchelastic tears the other ranks down once one fails (SIGTERM, then SIGKILL for those that do
not leave within the grace period) and lists them in its failure table as `exitcode : -9` /
`Signal 9 (SIGKILL) received by PID`; srun reports `tasks 0-2: Killed`. The rows below follow the
real table and srun lines pasted in issue threads (pytorch/pytorch#148976, desihub/desitarget#628,
ZhehengJiangLancaster/AMVUR#2); hosts, paths and pids are made up.
"""

from pathlib import Path

import pytest

from bot.matcher import Matcher, load_rulebook
from tests.matcher.rulefactory import rule_doc, sig, write_rules

RULES = Path(__file__).resolve().parents[2] / "rules"


@pytest.fixture
def matcher(tmp_path):
    docs = [
        rule_doc("sigkill", "memory", {
            "keywords": ["exitcode", "sigkill", "killed"],
            "signatures": [
                sig("exitcode-9", r"exitcode\s*:\s*-9\b", 0.45),
                sig("signal-9", r"Signal 9 \(SIGKILL\) received by PID \d+", 0.45),
                sig("srun-killed", r"(?:^|\]:|: )\s*\**Killed\**\s*$", 0.5),
            ],
        }, ["oom", "peer"]),
        rule_doc("oom", "memory", {
            "keywords": ["out of memory"],
            "signatures": [sig("oom", r"CUDA out of memory", 0.9)],
        }, ["sigkill", "peer"]),
        rule_doc("peer", "network", {
            "keywords": ["remote process exited"],
            "signatures": [sig("remote", r"remote process exited or there was a network error", 0.6)],
            "role": "consequence",
        }, ["sigkill", "oom"]),
        rule_doc("wrapper", "distributed", {
            "keywords": ["childfailederror"],
            "signatures": [sig("cfe", r"ChildFailedError", 0.6)],
            "role": "wrapper",
        }, ["sigkill", "oom"]),
    ]  # fmt: skip
    return Matcher(load_rulebook(write_rules(tmp_path, docs)))


KEY_ERROR = """[rank0]: Traceback (most recent call last):
[rank0]:   File "/work/src/train.py", line 60, in preprocess
[rank0]:     prompt = examples["_prompt"][i]
[rank0]: KeyError: '_prompt'
"""

REMOTE_ERROR = """[rank0]: Traceback (most recent call last):
[rank0]:   File "/work/src/train.py", line 196, in main
[rank0]:     dist.barrier()
[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, remote process exited or there was a network error, NCCL version 2.20.5
"""


def _table(root_rank: int, root_code: int, killed: tuple[int, ...]) -> str:
    rows = "".join(
        f"[{r}]:\n  time      : 2025-03-11_18:33:50\n  host      : node1\n  rank      : {r} (local_rank: {r})\n"
        f"  exitcode  : -9 (pid: {340050 + r})\n  error_file: <N/A>\n"
        f"  traceback : Signal 9 (SIGKILL) received by PID {340050 + r}\n"
        for r in killed
    )
    tb = (
        f"Signal 9 (SIGKILL) received by PID {340050 + root_rank}"
        if root_code == -9
        else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    )
    return (
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "train.py FAILED\n------------------------------------------------------------\n"
        f"Failures:\n{rows}------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        f"[0]:\n  time      : 2025-03-11_18:33:20\n  host      : node1\n"
        f"  rank      : {root_rank} (local_rank: {root_rank})\n"
        f"  exitcode  : {root_code} (pid: {340050 + root_rank})\n  error_file: <N/A>\n  traceback : {tb}\n"
        "============================================================\n"
    )


def test_ranks_killed_after_another_ranks_own_error_are_not_a_host_oom(matcher):
    """Rank 0 raised a KeyError (exit code 1); ranks 1-2 were SIGKILLed in the teardown: the
    KeyError is the cause, the kill rows collateral, rank 0 the initiator."""
    d = matcher.diagnose(KEY_ERROR + _table(0, 1, (1, 2)))
    assert d.matches == []
    assert d.unmatched == "KeyError: '_prompt'"
    assert d.initiating_rank == 0
    assert {c.id for c in d.collateral} == {"sigkill", "wrapper"}


def test_a_first_failure_that_was_a_kill_stays_the_cause(matcher):
    """torchelastic names rank 1, killed by SIGKILL, as the first failure: the kill is the cause
    even though rank 0 printed a traceback."""
    d = matcher.diagnose(KEY_ERROR + _table(1, -9, (0,)))
    assert d.matches[0].id == "sigkill" and d.matches[0].role == "root"


def test_a_rank_that_failed_because_a_peer_died_does_not_excuse_the_kill(matcher):
    """Rank 0's error only says a peer went away: the killed rank may be where it began."""
    d = matcher.diagnose(REMOTE_ERROR + _table(0, 1, (1,)))
    assert d.matches[0].id == "sigkill" and d.matches[0].role == "root"


def test_kill_rows_alone_still_diagnose(matcher):
    """No exception anywhere, only the table: nothing says the kill was a teardown."""
    d = matcher.diagnose(_table(1, -9, (0, 2)))
    assert d.matches[0].id == "sigkill"


def test_srun_killing_the_other_tasks_after_a_cuda_oom_is_collateral(matcher):
    """srun's `tasks 0-2: Killed` after task 3's CUDA OOM: the OOM is the root, the kill collateral."""
    log = (
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
        "srun: error: gpu-node-1: task 3: Exited with exit code 1\n"
        "srun: Terminating job step 32233190.0\n"
        "srun: error: gpu-node-1: tasks 0-2: Killed\n"
    )
    d = matcher.diagnose(log)
    assert [(m.id, m.role) for m in d.matches] == [("oom", "root"), ("sigkill", "collateral")]


def test_srun_kill_before_any_error_is_still_the_cause(matcher):
    """The kill comes first, the traceback after it: the kill may have begun it."""
    log = "srun: error: gpu-node-1: task 1: Killed\n" + KEY_ERROR
    d = matcher.diagnose(log)
    assert d.matches[0].id == "sigkill" and d.matches[0].role == "root"


def test_lightning_ranks_told_sigterm_after_another_ranks_error_are_no_preemption(tmp_path):
    """Lightning's `[rank: 1] Received SIGTERM: 15` when srun tears the step down after task 0's
    own exception: the real knowledge base must not call it a preemption."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 88, in validation_step\n'
        "    score = metrics[name]\n"
        "KeyError: 'rougeL'\n"
        "[rank: 1] Received SIGTERM: 15\n"
        "[rank: 2] Received SIGTERM: 15\n"
        "srun: error: gpu-node-1: task 0: Exited with exit code 1\n"
        "srun: error: gpu-node-1: tasks 1-2: Terminated\n"
    )
    d = Matcher(load_rulebook(RULES)).diagnose(log)
    assert d.matches == [] and d.unmatched == "KeyError: 'rougeL'"
    assert "sigterm-preemption" in {c.id for c in d.collateral}
    # The same SIGTERM with nothing failing before it is still what stopped the run.
    d = Matcher(load_rulebook(RULES)).diagnose("[rank: 1] Received SIGTERM: 15\n" + log)
    assert d.matches[0].id == "sigterm-preemption"


def test_newer_torch_table_rows_with_the_signal_name_are_teardown_too(matcher):
    """torch 2.11+ prints `exitcode  : -9 (pid: 340051) (SIGKILL)` (pytorch/pytorch#175254)."""
    table = _table(0, 1, (1, 2)).replace("(pid: 340051)", "(pid: 340051) (SIGKILL)")
    table = table.replace("(pid: 340052)\n  error", "(pid: 340052) (SIGKILL)\n  error")
    assert "(SIGKILL)\n  error_file" in table
    d = matcher.diagnose(KEY_ERROR + table)
    assert d.matches == [] and d.unmatched == "KeyError: '_prompt'"
