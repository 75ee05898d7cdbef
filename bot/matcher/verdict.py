"""From hits to a diagnosis: which rule is the root cause, which are collateral, which rank began.

The order of decisions follows how an on-call engineer reads a multi-rank log:
1. A rule whose `collateral_of` names another rule that fired is a consequence of it
   (a cuBLAS failure right after an OOM is the OOM).
2. Consequences (watchdog timeouts, peers closing sockets) and wrappers (`ChildFailedError`)
   never win over a specific cause present in the same log.
3. Among the remaining candidates: the more certain first, then the first to happen.
4. The initiating rank is where the root cause happened first: by timestamp, else by the
   rank torchelastic names as the first observed failure, else by line order. When only
   consequences fired (every rank timed out), it is the rank the timeouts point at (torchelastic's
   first failure, the one rank missing from them, the lowest collective sequence number), or
   none: a rank that merely timed out like the others did not begin it.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING

import regex

from bot.matcher.lines import nccl_origin
from bot.matcher.model import Collateral, Confidence, Diagnosis, Evidence, Match, Stats
from bot.matcher.noderanks import to_global
from bot.matcher.salient import LAUNCHER_EXCEPTION, LogFacts

if TYPE_CHECKING:
    from bot.matcher.engine import Hit, RuleHits

MAX_EVIDENCE = 5
EVIDENCE_CHARS = 500
_ROLE_ORDER = {"root": 0, "consequence": 1, "wrapper": 2}
_CONF_ORDER = {"high": 0, "medium": 1, "low": 2}
# `ValueError: ...`, `module.SomeError: ...`: an exception as Python prints it, not a log line
_BARE_EXCEPTION = regex.compile(r"(?:\w+\.)*\w*(?:Error|Exception|Exit|Interrupt)\b(?::|$)")


def confidence_of(score: float) -> Confidence:
    if score >= 0.8:
        return "high"
    if score >= 0.5:
        return "medium"
    return "low"


def _first(hits: list[Hit]) -> Hit:
    """The earliest hit: by timestamp when all carry one of one kind, else by line."""
    kinds = {h.ts_kind for h in hits}
    if len(kinds) == 1 and None not in kinds:
        return min(hits, key=attrgetter("ts_value", "line"))
    return min(hits, key=attrgetter("line"))


def _first_rank(rh: RuleHits) -> int | None:
    firsts = list(rh.first_by_rank.values())
    return _first(firsts).rank if firsts else None


# Why the verdict chose the initiating rank (`Diagnosis.rank_basis`), one per way it decides.
Ranked = tuple[int | None, str | None]
_NONE: Ranked = (None, None)


def _initiating_rank(root: RuleHits, facts: LogFacts, all_hits: list[RuleHits]) -> Ranked:
    ranks = set(root.first_by_rank)
    firsts = list(root.first_by_rank.values())
    timed = len({h.ts_kind for h in firsts}) == 1 and firsts[0].ts_kind is not None
    timeout_ranks: set[int] = set()
    for rh in all_hits:
        if rh.rule.role == "consequence":
            timeout_ranks.update(rh.first_by_rank)
    if root.rule.role == "root":
        if root.rule.waiting:
            # Every rank that printed it arrived and waited: the one missing from them began it.
            silent = _silent_rank(ranks | timeout_ranks, facts)
            return (silent, "silent_rank") if silent is not None else _NONE
        if not ranks:
            return _indirect_rank(root, facts, timeout_ranks)
        if len(ranks) == 1:
            return _first_rank(root), "root_only_rank"
        if timed:
            return _first_rank(root), "root_first_timestamp"
        if facts.elastic_rank in ranks:
            return facts.elastic_rank, "elastic_first_failure"
        return _first_rank(root), "root_first_line"
    if root.rule.role == "wrapper":
        found = _launcher_rank(facts)
        return found if found[0] is not None else _first_own_error_rank(facts, set())
    # The root is a consequence: look for the rank that behaved differently.
    silent = _silent_rank(timeout_ranks, facts)
    if silent is not None:
        return silent, "silent_rank"
    # A rank that raised its own error while the others timed out waiting for it.
    own = _first_own_error_rank(facts, timeout_ranks)
    if own[0] is not None:
        return own
    # torchelastic's "first observed failure" is per node and often just the lowest rank: a rank
    # that timed out like the others is a victim, whatever the launcher says.
    if facts.elastic_rank is not None and facts.elastic_rank not in timeout_ranks:
        return facts.elastic_rank, "elastic_first_failure"
    for rank in facts.launcher_ranks:
        if rank not in timeout_ranks:
            return rank, "launcher_first_failure"
    seqs = facts.seq_by_rank
    if len(seqs) >= 2:
        low = min(seqs.values())
        lowest = [r for r, s in seqs.items() if s == low]
        if len(lowest) == 1 and len(set(seqs.values())) > 1:
            return lowest[0], "lowest_seq"
    # Every rank that shows up timed out (or was torn down) alike: the one that began it left no
    # trace here. The first such line in the log is a victim, not the initiator.
    return _NONE


def _silent_rank(timeout_ranks: set[int], facts: LogFacts) -> int | None:
    """The one rank missing from an otherwise complete set of timeouts.

    First a single gap inside the block of ranks that timed out, when that block is what a node
    prints (ranks 16-23 of one node's pod log, without 19). Else the set is complete up to the world size the log states (`nranks`,
    `WORLD_SIZE`, banners, ranks seen anywhere) and at least up to the highest rank that timed
    out: ranks count from 0, so ranks 1..N-1 timing out leave rank 0 as the one that never
    reached the collective.
    """
    if len(timeout_ranks) < 2:
        return None
    # One node's log: its ranks are the block from the node's offset, as wide as the processes
    # it runs (or reaching the highest that timed out).
    offset = facts.node_offset()
    if offset is not None and min(timeout_ranks) >= offset:
        block = set(range(offset, offset + (facts.local_world_size or max(timeout_ranks) - offset + 1)))
        if timeout_ranks <= block and len(block - timeout_ranks) == 1:
            return (block - timeout_ranks).pop()
    # One gap inside the block of ranks that timed out (a node's log shows its own ranks only).
    low, high = min(timeout_ranks), max(timeout_ranks)
    gaps = set(range(low, high + 1)) - timeout_ranks
    width = high - low + 1
    # Only a block a node would print: from rank 0, or node-aligned (8 ranks from 16). A few
    # timeout lines pasted into a thread (ranks 11, 12, 14, 15) say nothing about rank 13.
    whole_block = low == 0 or (width & (width - 1) == 0 and low % width == 0)
    if len(gaps) == 1 and whole_block:
        return gaps.pop()
    if gaps:
        return None
    known = facts.known_ranks() | set(range(high + 1))
    missing = known - timeout_ranks
    return missing.pop() if len(missing) == 1 else None


def _launcher_rank(facts: LogFacts) -> Ranked:
    """The rank a launcher reports as the failed one: torchelastic's first observed failure,
    else the first worker it reports (agent line, `--local_rank=N`, spawn's `Process N`)."""
    if facts.elastic_rank is not None:
        return facts.elastic_rank, "elastic_first_failure"
    return (facts.launcher_ranks[0], "launcher_first_failure") if facts.launcher_ranks else _NONE


def _first_own_error_rank(facts: LogFacts, exclude: set[int]) -> Ranked:
    for _, rank, _text in facts.own_errors():
        if rank is not None and rank not in exclude:
            return rank, "first_own_error"
    return _NONE


def _multi_rank(facts: LogFacts) -> bool:
    # A rank above 0 anywhere (a peer's watchdog timeout pasted under the error) means at least two.
    ranks = facts.known_ranks() | set(facts.launcher_ranks)
    return (facts.world_size or 0) > 1 or len(ranks) > 1 or any(r > 0 for r in ranks)


def _indirect_rank(root: RuleHits, facts: LogFacts, timeout_ranks: set[int]) -> Ranked:
    """The rank of a cause whose lines carry no rank prefix, from what names it indirectly."""
    hits = sorted(root.hits, key=lambda h: h.line)
    for h in hits:
        # `(RayTrainWorker pid=2893, ...) ...`: Ray Train's process-group line told that pid's rank.
        rank = facts.ray_rank(h.text)
        if rank is not None:
            return rank, "ray_pid"
    for h in hits:
        # `host:pid:tid [dev] ... NCCL WARN`: the init lines told which rank that process is.
        origin = nccl_origin(h.text)
        if origin is not None:
            rank = facts.nccl_rank(*origin)
            if rank is not None:
                return rank, "nccl_init_pid"
    for h in hits:
        # `NVRM: Xid (PCI:0000:3b:00): 94, pid=48211, name=python, ...`: the kernel names the process
        # whose GPU context took the fault, and NCCL's init lines tell which rank that pid held.
        m = _XID_PID.search(h.text)
        if m:
            rank = facts.nccl_rank_of_pid(int(m[1]))
            if rank is not None:
                return rank, "nccl_init_pid"
    if facts.spawn_ranks:
        return facts.spawn_ranks[0], "spawn_process"
    # Every other rank timed out waiting: the one missing from them is where the cause struck.
    rank = _silent_rank(timeout_ranks, facts)
    if rank is not None:
        return rank, "silent_rank"
    found = _launcher_rank(facts)
    if found[0] is not None:
        return found
    if _multi_rank(facts):
        for h in hits:
            # CUDA OOM names the device: `(GPU 3; 23.65 GiB total capacity` / `GPU 3 has a total capacity`;
            # one process per GPU, so on a multi-rank node the device index is the local rank
            # (on a pdsh line, of the host whose prefix it carries).
            m = _GPU_IN_OOM.search(h.text)
            if m:
                host = facts.line_host_offset(h.text)
                if host is not None:
                    return int(m[1] or m[2]) + host, "gpu_index+host_offset"
                offset = facts.node_offset()
                return int(m[1] or m[2]) + (offset or 0), "gpu_index+node_offset" if offset else "gpu_index"
    return _own_error_or_only_rank(facts)


def _own_error_or_only_rank(facts: LogFacts) -> Ranked:
    """The first rank with its own error, else the only rank the log shows (the last resort of
    both the indirect and the unmatched verdicts)."""
    found = _first_own_error_rank(facts, set())
    return found if found[0] is not None else _only_rank_in_log(facts)


def _only_rank_in_log(facts: LogFacts) -> Ranked:
    """The one rank the log shows, when the cause's own lines carry none.

    A traceback pasted into a thread often has its error line bare (`RuntimeError: ...`) while the
    process's other lines carry `[rank0]:`: with every rank-prefixed line of one rank and nothing
    naming another (no world size, banner or launcher rank), that process is the one that failed.
    """
    seen = facts.known_ranks() | set(facts.launcher_ranks)
    if facts.elastic_rank is not None:
        seen.add(facts.elastic_rank)
    return (seen.pop(), "only_rank_in_log") if len(seen) == 1 else _NONE


# The process an Xid names: `pid=48211` (`pid='<unknown>'` when the driver could not tell).
_XID_PID = regex.compile(r"NVRM: Xid \([^)]*\):\s*\d+,\s*pid=(\d+)")
# PyTorch 2.1 spelled it "total capacty"
_GPU_IN_OOM = regex.compile(r"\(GPU (\d{1,4});|\bGPU (\d{1,4}) has a total capac(?:i)?ty")


def _unmatched_rank(facts: LogFacts) -> Ranked:
    """No rule matched: the rank of the first rank's own error, else the one a launcher names."""
    errors = facts.own_errors()
    if errors and errors[0][1] is not None:
        return errors[0][1], "first_own_error"
    found = _launcher_rank(facts)
    if found[0] is not None:
        return found
    # No traceback, no launcher line: the rank whose own line is the error quoted
    # (`[rank7]: torch.distributed.DistBackendError: NCCL error ...`).
    if facts.first_error is not None and facts.first_error[1] is not None:
        return facts.first_error[1], "first_error_line"
    return _own_error_or_only_rank(facts)


# Bases whose rank was read as a local one and made global (noderanks.to_global): by the kind
# of source, as to_global shifts them ("launcher": launcher ranks only; "all": line ranks too).
_LAUNCHER_BASES = frozenset({"launcher_first_failure", "spawn_process"})
_LINE_BASES = frozenset({"root_only_rank", "root_first_timestamp", "root_first_line", "first_own_error",
                         "first_error_line", "lowest_seq", "only_rank_in_log"})  # fmt: skip


def _with_offset(found: Ranked, facts: LogFacts) -> Ranked:
    """The basis, with `+host_offset` / `+node_offset` when the rank it read was local."""
    rank, basis = found
    if rank is None or basis is None or "+" in basis:
        return found
    if basis in ("launcher_first_failure", "first_own_error") and any(
        rank in ranks for ranks in facts.host_failed.values()
    ):
        return rank, basis + "+host_offset"
    shift = facts.node_shift
    if (shift and basis in _LAUNCHER_BASES) or (shift == "all" and basis in _LINE_BASES):
        return rank, basis + "+node_offset"
    return found


def _own_error(facts: LogFacts, rank: int | None, fired: list[RuleHits]) -> tuple[int, int | None, str] | None:
    """The failing rank's own exception that no entry explains: that rank's, else the first.

    A launcher's exception is never one, nor a line a rule that fired matched (`ActorDiedError`
    is the Ray wrapper's own line; `RendezvousClosedError` the rendezvous entry's).
    """
    sigs = [sig.compiled for rh in fired for sig in rh.rule.signatures]
    errors = [e for e in facts.own_errors() if not any(rx.search(e[2]) for rx in sigs)]
    for e in errors:
        if rank is not None and e[1] == rank:
            return e
    if errors:
        return errors[0]
    # An excerpt pasted from an issue often starts inside the failing traceback, its header cut
    # off: the bare exception line before the wrapper's is still the error the wrapper reports.
    first = facts.first_error
    wrapper_line = min((_first(rh.hits).line for rh in fired if rh.rule.role == "wrapper"), default=0)
    if (
        first is not None
        and first[0] < wrapper_line
        and _BARE_EXCEPTION.match(first[2])
        and not LAUNCHER_EXCEPTION.search(first[2])
        and not any(rx.search(first[2]) for rx in sigs)
    ):
        return first
    return None


# A launcher reporting a process it saw die on a signal: a row of torchelastic's failure table
# (`exitcode  : -9 (pid: 3309)`, newer torch adding ` (SIGKILL)`; `traceback : Signal 9 (SIGKILL)
# received by PID 3309`) or srun's task line (`srun: error: node1: tasks 0-2: Killed`); or a rank
# saying the signal reached it (Lightning's `[rank: 1] Received SIGTERM: 15`). Not the agent's
# `failed (exitcode: -9) local_rank: 3` line: that one names the first failure.
_SIGNAL_DEATH_ROW = regex.compile(
    r"(?:^|\s)exitcode\s*:\s*-\d+\s*\(pid: \d+\)(?:\s*\(SIG[A-Z]+\))?\s*$"
    r"|traceback\s*:\s*Signal \d+ \(SIG[A-Z]+\) received by PID \d+\s*$"
    r"|srun: error: \S+: tasks? [\d,\-]+: (?:Killed|Terminated)\s*$"
    r"|Received SIGTERM: 15\b"
)


def _teardown_kills(fired: list[RuleHits], facts: LogFacts) -> tuple[set[str], tuple[int, int | None, str] | None]:
    """Rules that read only the kills a launcher made after a rank had failed on its own.

    When one rank raises (a `KeyError`, exit code 1), torchelastic and srun tear the others down:
    SIGTERM, then SIGKILL for those that do not leave in time, and their failure table lists them
    as `exitcode : -9` / `Signal 9 (SIGKILL)` (srun: `tasks 0-2: Killed`). Those rows name the
    launcher's kill, not a cause (a host OOM, a segfault). They are, when every line the rule
    matched is such a row printed after a specific cause fired or an exception no entry explains,
    and torchelastic (if it says) names a first failure that exited with a code, not a signal.
    Returns the ids, and the unexplained exception (if any) they yield to.
    """
    if facts.elastic_rank is not None and facts.exitcode_by_rank.get(facts.elastic_rank, -1) <= 0:
        return set(), None
    rows_only = [
        rh for rh in fired
        if rh.rule.role == "root" and rh.hits and all(_SIGNAL_DEATH_ROW.search(h.text) for h in rh.hits)
    ]  # fmt: skip
    if not rows_only:
        return set(), None
    sigs = [sig.compiled for rh in fired for sig in rh.rule.signatures]
    errors = [e for e in facts.own_errors() if not any(rx.search(e[2]) for rx in sigs)]
    own = errors[0] if errors else None
    causes = [_first(rh.hits).line for rh in fired if rh.rule.role == "root" and rh not in rows_only]
    if own is not None:
        causes.append(own[0])
    if not causes:
        return set(), None
    first = min(causes)
    ids = {rh.rule.id for rh in rows_only if all(h.line > first for h in rh.hits)}
    return ids, (own if ids else None)


def _evidence(rh: RuleHits, prefer_rank: int | None) -> list[Evidence]:
    """A few lines that show the failure: every signature once, the initiating rank first."""
    chosen: list[Hit] = []
    seen_sig: set[str] = set()
    seen_text: set[str] = set()
    # The initiating rank's hits first, each part by line, then signature: a window's hit is
    # added once its lines are in, after hits of later lines; the order it was added in must
    # not decide. (A stable sort by attributes, then a stable split: a rule seen on every rank
    # of a big job holds tens of thousands of hits, and a key function per hit made a tuple
    # each, which the bot's workers, whose collector is not tuned as the CLI's, paid twice.)
    by_line = sorted(rh.hits, key=attrgetter("line", "signature"))
    ordered = [h for h in by_line if h.rank == prefer_rank] + [h for h in by_line if h.rank != prefer_rank]
    for pass_ in (0, 1):
        for h in ordered:
            if len(chosen) >= MAX_EVIDENCE:
                break
            # The signature first: on the first pass it turns away nearly every hit unread.
            if pass_ == 0 and h.signature in seen_sig:
                continue
            key = h.text.strip()
            if key in seen_text:
                continue
            seen_sig.add(h.signature)
            seen_text.add(key)
            chosen.append(h)
    chosen.sort(key=lambda h: (h.line, h.signature))
    return [
        Evidence(line=h.line, rank=h.rank, text=h.text[:EVIDENCE_CHARS], host=h.host, timestamp=h.ts_text)
        for h in chosen
    ]


def _match(rh: RuleHits, role: str, conf: Confidence, prefer_rank: int | None) -> Match:
    return Match(
        id=rh.rule.id,
        title=rh.rule.title,
        category=rh.rule.category,
        confidence=conf,
        score=rh.score,
        role=role,  # type: ignore[arg-type]
        ranks=sorted(rh.first_by_rank),
        evidence=_evidence(rh, prefer_rank),
        signatures=sorted(rh.signatures),
    )


def _own_error_cause(fired: list[RuleHits], rank: int | None, basis: str | None, text: str | None,
                     stats: Stats) -> Diagnosis:
    """The failing rank's own error line (`text`) is the cause, which no entry knows; every
    rule that fired is collateral, in the order they first fired."""
    coll = sorted(fired, key=lambda rh: _first(rh.hits).line)
    return Diagnosis(
        matches=[], initiating_rank=rank,
        collateral=[Collateral(id=rh.rule.id, ranks=sorted(rh.first_by_rank)) for rh in coll],
        unmatched=text, stats=stats, rank_basis=basis,
    )  # fmt: skip


def decide(rule_hits: list[RuleHits], facts: LogFacts, stats: Stats) -> Diagnosis:
    # Ranks are compared and reported as global ones: one node's local ranks get its offset.
    rule_hits, facts = to_global(rule_hits, facts)
    fired = [rh for rh in rule_hits if rh.score >= rh.rule.min_score]
    last = max((h.line for rh in fired for h in rh.hits), default=0)
    if facts.finished_after(last):
        # The run went on to finish: what it printed before (a retry that worked, a fallback,
        # a loud warning) was survived, and a survived warning is not a cause.
        return Diagnosis(matches=[], initiating_rank=None, collateral=[], unmatched=None, stats=stats)
    if not fired:
        rank, basis = _with_offset(_unmatched_rank(facts), facts)
        return Diagnosis(
            matches=[], initiating_rank=rank, collateral=[],
            unmatched=facts.salient_line(rank), stats=stats, rank_basis=basis,
        )  # fmt: skip
    fired_ids = {rh.rule.id for rh in fired}
    collateral = {rh.rule.id for rh in fired if fired_ids.intersection(rh.rule.collateral_of)}
    teardown, own = _teardown_kills(fired, facts)
    collateral |= teardown
    if teardown and all(rh.rule.id in collateral for rh in fired):
        # Nothing but the launcher's kills fired: the rank's own exception is the cause.
        rank, basis = _with_offset(_unmatched_rank(facts), facts)
        return _own_error_cause(fired, rank, basis, own[2] if own else None, stats)
    specific = [rh for rh in fired if rh.rule.role == "root" and rh.rule.id not in collateral]
    if specific:
        collateral.update(rh.rule.id for rh in fired if rh.rule.role != "root")
    candidates = [rh for rh in fired if rh.rule.id not in collateral] or fired

    def rank_key(rh: RuleHits):
        first = _first(rh.hits)
        return (
            _ROLE_ORDER[rh.rule.role],
            _CONF_ORDER[confidence_of(rh.score)],
            first.ts_value if first.ts_value is not None else float("inf"),
            first.line,
            -rh.score,
        )

    # Timestamps of different formats do not compare: order by time only within one kind.
    kinds = {_first(rh.hits).ts_kind for rh in candidates}
    if len(kinds) != 1 or None in kinds:
        def rank_key(rh: RuleHits):
            return (_ROLE_ORDER[rh.rule.role], _CONF_ORDER[confidence_of(rh.score)], _first(rh.hits).line, -rh.score)

    candidates.sort(key=rank_key)
    root = candidates[0]
    init_rank, basis = _with_offset(_initiating_rank(root, facts, fired), facts)
    if root.rule.role == "wrapper":
        own = _own_error(facts, init_rank, fired)
        if own is not None:
            # A wrapper never wins over the failing rank's own error line: that line is the
            # cause (no entry knows it), the wrapper and whatever else fired are collateral.
            _, own_rank, text = own
            rank = init_rank if init_rank is not None else own_rank
            if init_rank is None and own_rank is not None:
                basis = "first_own_error"
            return _own_error_cause(fired, rank, basis, text, stats)
    root_conf = confidence_of(root.score)
    if root.rule.role != "root" and root_conf == "high":
        # Only a consequence or a wrapper fired: the class is right, the cause may be elsewhere.
        root_conf = "medium"

    matches = [_match(root, "root", root_conf, init_rank)]
    others = [rh for rh in candidates[1:] if rh.rule.id not in collateral]
    for rh in others:
        matches.append(_match(rh, "root", confidence_of(rh.score), init_rank))
    coll = sorted(
        (rh for rh in fired if rh is not root and rh.rule.id in collateral), key=lambda rh: _first(rh.hits).line
    )
    for rh in coll:
        matches.append(_match(rh, "collateral", confidence_of(rh.score), init_rank))
    return Diagnosis(
        matches=matches,
        initiating_rank=init_rank,
        collateral=[Collateral(id=rh.rule.id, ranks=sorted(rh.first_by_rank)) for rh in coll],
        unmatched=None,
        stats=stats,
        rank_basis=basis,
    )
