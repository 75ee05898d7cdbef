"""A bare `[Rank r]` of ProcessGroupNCCL's watchdog is the rank within the work's process group.

PyTorch 2.3+ prints the timeout as `[Rank r] Watchdog caught collective operation timeout`
(WorkNCCL has no group name) and, on the next line, the group: `[PG ID 2 PG GUID 3 Rank r]
Exception (either an error or timeout) detected by watchdog`. Only the default group (PG 0)
numbers ranks globally. The lines below are from real pastes (vllm-project/vllm, a Ray tensor-
parallel worker; XPixelGroup/BasicSR#737, the default group) with the launcher prefix removed, as
a collector that drops it leaves them.
"""

from __future__ import annotations

from pathlib import Path

from bot.matcher import default_matcher
from bot.matcher.lines import LineReader
from bot.matcher.model import Stats

MATCHER = default_matcher(Path(__file__).resolve().parents[2] / "rules")

SUBGROUP = (
    "[E219 08:58:32.606233339 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=31, OpType=ALLREDUCE, NumelIn=117440512, NumelOut=117440512, Timeout(ms)=600000) ran for "
    "600031 milliseconds before timing out.\n"
    "[E219 08:58:32.606667496 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG GUID 3 Rank 3] Exception (either an error or "
    "timeout) detected by watchdog at work: 31, last enqueued NCCL work: 58, last completed NCCL work: 30.\n"
    "[E219 08:58:32.606693321 ProcessGroupNCCL.cpp:1834] [PG ID 2 PG GUID 3 Rank 3] Timeout at NCCL work: 31, "
    "last enqueued NCCL work: 58, last completed NCCL work: 30.\n"
)

DEFAULT_GROUP = (
    "[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for "
    "600020 milliseconds before timing out.\n"
    "[E626 06:24:44.906457629 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either "
    "an error or timeout) detected by watchdog at work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807.\n"
)


def test_subgroup_line_withdraws_the_bare_rank() -> None:
    """The bare `[Rank 3]` is withdrawn once the group's line says it is PG 2's rank 3."""
    d = MATCHER.diagnose(SUBGROUP)
    assert d.root is not None and d.root.id == "nccl-watchdog-timeout"
    assert d.root.ranks == []
    assert d.initiating_rank is None
    assert all(e.rank is None for e in d.root.evidence)


def test_default_group_line_keeps_the_bare_rank() -> None:
    """`[PG ID 0 ... (default_pg) Rank 1]` says the bare `[Rank 1]` was global: it stands."""
    d = MATCHER.diagnose(DEFAULT_GROUP)
    assert d.root is not None and d.root.ranks == [1]


def test_launcher_prefix_keeps_the_global_rank() -> None:
    """`[rank3]:` is PyTorch's global rank: a subgroup's `Rank 3` on the next line does not withdraw it."""
    prefixed = "".join("[rank3]:" + line + "\n" for line in SUBGROUP.splitlines())
    d = MATCHER.diagnose(prefixed)
    assert d.root is not None and d.root.ranks == [3]


def test_reader_withdraws_only_ranks_named_as_subgroup_ranks() -> None:
    """A bare rank is group-numbered when a subgroup names it and no line names it globally."""
    reader = LineReader()
    for line in [*SUBGROUP.splitlines(), "[E ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught collective operation timeout"]:
        reader.facts(line)
    assert reader.group_numbered() == {3}
    reader.prefix("[PG ID 0 PG GUID 0(default_pg) Rank 3] Exception (either an error or timeout) detected by watchdog")
    assert reader.group_numbered() == set()


def test_withdrawal_is_a_reading_a_later_global_line_undoes() -> None:
    """An interim verdict withdraws the bare rank; a later default-group line naming it gives it back."""
    scan = MATCHER.scan()
    scan.feed(SUBGROUP.encode())
    stats = Stats(bytes=scan.bytes, lines=scan.lines, elapsed_ms=0, regex_timeouts=0)
    interim = scan.decide(stats)
    assert interim.root is not None and interim.root.ranks == []
    scan.feed(
        b"[E219 08:58:33.100000000 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 3] Exception "
        b"(either an error or timeout) detected by watchdog at work: 12, last enqueued NCCL work: 12, last completed NCCL work: 11.\n"
    )
    final = scan.finish()
    assert final.root is not None and 3 in final.root.ranks
