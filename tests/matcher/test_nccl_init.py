"""NCCL's `Init COMPLETE` lines tell which rank each process `host:pid` holds, whatever a
launcher wrote before NCCL's own prefix (`LogFacts.observe_nccl_init`)."""

from __future__ import annotations

import pytest

from bot.matcher.salient import LogFacts

_INIT = "NCCL INFO comm 0x55d4c1a3b2f0 rank {rank} nranks 64 cudaDev 3 busId 1b000 commId 0x8a5e0c1f2d3b4a69 - Init COMPLETE"


@pytest.mark.parametrize(
    "before",
    [
        "",
        "[rank9]:",  # torchrun --tee: no space between the launcher's prefix and the host
        "\x1b[36m(RayTrainWorker pid=3097252, ip=10.16.2.191)\x1b[0m ",
        "9: ",  # srun -l
        "[1,9]<stdout>:",  # mpirun --tag-output
        "worker-3: [2025-11-30 01:08:34] ",
        "a:b [c] ",  # separators of every kind before the host's own run
        "[2025-11-30 01:08:34,120][rank9]:",  # a bracket, a space and a colon before it, none after
    ],
)
def test_the_rank_of_host_and_pid_is_read_behind_any_launcher_prefix(before: str) -> None:
    facts = LogFacts()
    facts.observe_nccl_init(before + "gpu-node-017:48213:48390 [3] " + _INIT.format(rank=9))
    assert facts.nccl_rank_by_proc == {("gpu-node-017", 48213): (64, 9)}


def test_a_line_whose_first_nccl_prefix_reads_no_comm_is_read_at_its_second() -> None:
    facts = LogFacts()
    facts.observe_nccl_init("h:1:2 [0] NCCL INFO Init timings: rank 7 nranks 32 | node-2:77:78 [1] " + _INIT.format(rank=5))
    assert facts.nccl_rank_by_proc == {("node-2", 77): (64, 5)}


def test_lines_without_an_init_are_left_alone() -> None:
    facts = LogFacts()
    for line in ("h:1:2 [0] NCCL INFO Init timings: rank 7 nranks 32 total 1.22",
                 "h:1:2 [0] NCCL INFO comm 0x1 rank 1",
                 "comm 0x1 rank 1 nranks 2 without NCCL's prefix"):  # fmt: skip
        facts.observe_nccl_init(line)
    assert facts.nccl_rank_by_proc == {}
