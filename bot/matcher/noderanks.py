"""One node's local ranks, read as the global ranks a multi-node job knows them by.

torchrun on node 2 of a 4x8 job prefixes its workers' lines `[default0]:` .. `[default7]:`
(`--tee`, the role name and the LOCAL rank), its agent reports `local_rank: 3`, and
`torch.multiprocessing.spawn` numbers its processes from 0 on every node. The rank an on-call
engineer needs is the global one (19, not 3): the node's offset comes from what the log states
(`LogFacts.node_offset`), and these functions add it where a rank is local.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.matcher.salient import LogFacts

if TYPE_CHECKING:
    from bot.matcher.engine import Hit, RuleHits


def line_ranks_are_local(rule_hits: list[RuleHits], facts: LogFacts, offset: int) -> bool:
    """Do the ranks read off the lines (prefixes) count from this node's 0?

    A node starting at global rank 8 has no local rank of 8 or more: when every rank the lines
    carry is below the offset they are local; one at or past it means the lines carry global
    ranks (`[rank11]:`), or the log mixes nodes, and nothing is added.
    """
    seen = {h.rank for rh in rule_hits for h in rh.hits if h.rank is not None}
    seen |= facts.ranks_seen | {r for r in facts.traceback_by_rank if r is not None}
    return bool(seen) and max(seen) < offset


def to_global(rule_hits: list[RuleHits], facts: LogFacts) -> tuple[list[RuleHits], LogFacts]:
    """The hits and facts with every local rank made global; unchanged when no offset is known."""
    facts = _host_tracebacks_placed(facts)
    offset = facts.node_offset()
    if not offset:
        return rule_hits, facts
    lines_local = line_ranks_are_local(rule_hits, facts, offset)

    def launcher(rank: int) -> int:
        # Agent lines, `--local_rank=N` and spawn's `Process N` always count per node.
        return rank + offset

    def line(rank: int | None) -> int | None:
        return rank + offset if lines_local and rank is not None else rank

    facts = replace(
        facts,
        launcher_ranks=[launcher(r) for r in facts.launcher_ranks],
        spawn_ranks=[launcher(r) for r in facts.spawn_ranks],
        # HF scripts' `Process rank: K` banner prints the local rank.
        banner_ranks={launcher(r) for r in facts.banner_ranks},
        ranks_seen={line(r) for r in facts.ranks_seen},  # type: ignore[misc]
        seq_by_rank={line(r): s for r, s in facts.seq_by_rank.items()},  # type: ignore[misc]
        traceback_by_rank={line(r): v for r, v in facts.traceback_by_rank.items()},
        first_traceback=_shift(facts.first_traceback, line),
        first_error=_shift(facts.first_error, line),
        node_shift="all" if lines_local else "launcher",
    )
    if not lines_local:
        return rule_hits, facts
    return [_hits_shifted(rh, line) for rh in rule_hits], facts


def _host_tracebacks_placed(facts: LogFacts) -> LogFacts:
    """pdsh: a host's traceback carries no rank; the host's launcher names the local rank that
    failed (`'--local_rank=2' ... exits with return code = 1`), already made global with the
    host's offset. The traceback is that rank's, where the log held it under no rank."""
    placed = facts.host_traceback_ranks()
    if not placed:
        return facts
    lines = {line for line, _ in placed.values()}
    by_rank = {r: v for r, v in facts.traceback_by_rank.items() if not (r is None and v[0] in lines)}
    for rank, entry in placed.items():
        by_rank.setdefault(rank, entry)
    first = facts.first_traceback
    if first is not None and first[1] is None:
        rank = next((r for r, (line, _) in placed.items() if line == first[0]), None)
        first = (first[0], rank, first[2])
    return replace(facts, traceback_by_rank=by_rank, first_traceback=first)


def _shift(entry: tuple[int, int | None, str] | None, line) -> tuple[int, int | None, str] | None:
    return None if entry is None else (entry[0], line(entry[1]), entry[2])


def _hits_shifted(rh: RuleHits, line) -> RuleHits:
    out = copy.copy(rh)

    def moved(h: Hit) -> Hit:
        return replace(h, rank=line(h.rank))

    out.hits = [moved(h) for h in rh.hits]
    out.first_by_rank = {line(r): moved(h) for r, h in rh.first_by_rank.items()}
    return out
