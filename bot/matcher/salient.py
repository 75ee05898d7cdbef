"""The most salient error line of a log that no rule matched.

What a person scrolls for: the last line of the first traceback (the exception), else the
first line that says error or fatal. The same probes also learn what the log tells about
ranks: the torchelastic "first observed failure", collective sequence numbers; the matcher feeds
them the world size the log states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import regex

from bot.launchers import RAY_ACTOR
from bot.literals import DIGITS_AS_ZERO
from bot.terminal import may_hold_codes, without_terminal_codes

# Built-in probe keywords (lower-case). Owners are "probe:<name>".
PROBE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "traceback": ("traceback (most recent call last)",),
    "exception": ("error", "exception", "fatal", "failed", "failure", "fault", "killed",
                  "abort", "critical", "systemexit", "interrupt"),
    "elastic": ("first observed failure", "local_rank:", "exitcode", "--local_rank=", "exits with return code"),
    "seq": ("seqnum=", "last completed nccl work"),
    # torch.multiprocessing.spawn names the process whose traceback follows, unprefixed.
    "spawn": ("terminated with",),
    # Open MPI's mpirun names the first process that failed, after the job ended (Horovod, MPI jobs).
    "mpi": ("the first process to do so was", "process name: [[", "noticed that process rank"),
    # HF example scripts log `Process rank: K, device: cuda:K` once per process.
    "banner": ("process rank:",),
    # NCCL's init line ties a `host:pid` prefix to a rank, once per communicator:
    # `host:12:34 [3] NCCL INFO [ncclCommInitRank ]comm 0x.. rank 3 nranks 8 cudaDev 3 ... - Init COMPLETE`.
    # A communicator that dies during init (topology, shared memory) never prints COMPLETE: its
    # `... - Init START` line (NCCL 2.19+) is the only one that names the rank.
    "nccl_init": ("init complete", "init start"),
    # Ray Train ties an actor's pid to its rank: `Setting up process group for: env:// [rank=2, world_size=4]`.
    "ray": ("setting up process group for", ") world_rank="),
    # Where one node's local ranks sit among the global ones (multi-node torchrun).
    "node": ("group_rank=", "global_ranks=", "local_ranks=", "global_world_sizes=", "node_rank", "node-rank",
             "nproc_per_node", "nproc-per-node", "local_world_size", "global_rank_mapping="),
    # The run finished: whatever it printed before was survived (a retry, a fallback, a warning).
    "done": ("worker group successfully finished", "local worker group finished", "training completed. do not",
             "`trainer.fit` stopped:", "'train_runtime':"),
}  # fmt: skip
# The probes of a line that only the `exception` probe reads (a flood of one error line).
EXCEPTION_ONLY = frozenset({"exception"})
# The probes whose lines can make the facts no longer `plain()` (a pdsh host placed from a
# `node_rank`/`global_rank_mapping` line, a spawn block opened): a flood of `exception` lines
# is settled only while they are, so a piece holding one of their keywords is read in full.
UNSETTLING_PROBES = frozenset({"node", "spawn"})

# `Exception` itself too: `raise Exception("...")` is common in training scripts.
_EXC_LINE = regex.compile(
    r"^(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Interrupt|Failure|Fault)|Exception|SystemExit)\b(?::|$)"
)
_ERROR_LINE = regex.compile(
    r"\b(?:FATAL|Fatal|fatal|ERROR|Error|error|CRITICAL|Segmentation fault|Aborted|Killed|failed|Failed)\b"
)
# Also slurmstepd's `_is_a_lwp: open() /proc/N/status failed`: a race with a process that just
# exited, printed on healthy jobs (SchedMD calls it harmless), never the reason a run died.
# `INFO` as a level, not as a value: `(run with NCCL_DEBUG=INFO for details)` ends error lines.
_NOT_ERROR = regex.compile(
    r"(?i)warn(?:ing)?s?\b|(?<!=)\bINFO\b|\b0 errors?\b|error_?rate|errors?=0\b|\bno errors?\b|\b_is_a_lwp: open\(\)"
)
_ELASTIC_RANK = regex.compile(r"^\s*rank\s*:\s*(\d{1,6})\b")
# A failure summary row names both: `rank      : 11 (local_rank: 3)` is rank 3 of a node starting at 8.
_ELASTIC_RANK_PAIR = regex.compile(r"^\s*rank\s*:\s*(\d{1,6})\s*\(local_rank:\s*(\d{1,6})\)")
# torchelastic's rendezvous result (`global_ranks=[8, 9, 10, 11]`, before torch 1.9 `assigned
# global_ranks=[8]`), its `group_rank=1` (the node's index), and the processes per node as the
# launch config (`nproc_per_node   : 8`), argv (`--nproc_per_node=8`) or WorkerSpec state them.
# Only the result block's own rows (indented, one per line): Megatron and vLLM print other
# `global_ranks=[...]` lists, of subgroups, that say nothing about where a node starts.
_RDZV_RANK_LIST = regex.compile(
    r"^\s*(?:assigned )?(global_ranks|local_ranks|global_world_sizes)=\[(\d{1,6})((?:, ?\d{1,6}){0,4095})\]"
)
_GROUP_RANK = regex.compile(r"^\s*group_rank=(\d{1,5})\b|--node[_-]rank[= ](\d{1,5})\b|\bNODE_RANK=(\d{1,5})\b")
_NPROC = regex.compile(
    r"(?:--nproc[_-]per[_-]node[= ]|\bnproc_per_node\s*[:=]\s*|\blocal_world_size=)(\d{1,4})\b"
)
# The world size is read wherever these stand, not line by line: a big NCCL INFO log prints
# `nRanks` on line after line, and the matcher hands over each occurrence's offset.
WORLD_KEYWORDS = ("world_size", "world size", "nranks")
# Matched at an occurrence of a keyword, on raw bytes; never across a line end.
WORLD_SIZE_AT = re.compile(
    rb"(?i:world[_ ]size)[^\S\n]*[=:]?[^\S\n]*(\d{1,6})\b|\bnranks[^\S\n]+(\d{1,6})\b|\bnRanks[^\S\n]+(\d{1,6})\b"
)
# DeepSpeed's launcher on each host of a pdsh run (every line behind pdsh's `host: `) states
# where each host's ranks start, and which node it is:
# `[launch.py:246:main] global_rank_mapping=defaultdict(<class 'list'>, {'worker-0': [0, 1], 'worker-1': [2, 3]})`
# `[launch.py:235:main] nnodes=2, num_local_procs=8, node_rank=1`. Hostfile names may carry `user@`.
_DS_RANK_MAPPING = regex.compile(r"\bglobal_rank_mapping=(?:defaultdict\(<class 'list'>, )?\{(.{1,100000}?)\}\)?\s*$")
_DS_MAPPING_ENTRY = regex.compile(r"'(?:[^'@]{1,64}@)?([^'@]{1,253})': \[(\d{1,7})\b")
_DS_NODE_RANK = regex.compile(r"\bnnodes=\d{1,5}, num_local_procs=(\d{1,4}), node_rank=(\d{1,5})\b")
# pdsh's own prefix: the host name as the hostfile gave it, then `: `; or the masker's
# placeholder for it (`<HOST-2>: `), so that a masked log is diagnosed the same.
_PDSH_HOST = regex.compile(r"(<[A-Z]{1,12}-\d{1,6}>|[A-Za-z0-9][\w.-]{0,252}): ")
# Searched from the first of its two literals (`_seq_number`): every line of a rank's watchdog
# timeout holds one, and a search from the line's start cost a regex's pass over each of them.
_SEQ = re.compile(r"SeqNum=(\d+)|last completed NCCL work:\s*(\d+)")
# torchelastic's agent line, one per failed local worker (torch >= 1.9):
# `failed (exitcode: -9) local_rank: 3 (pid: 812917) of binary: /usr/bin/python`
_AGENT_FAILED = regex.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d{1,6}) \(pid: \d+\)")
# The `exitcode  : -9 (pid: 3309)` row of the first-observed-failure block.
_ELASTIC_EXITCODE = regex.compile(r"^\s*exitcode\s*:\s*(-?\d+)\b")
# torch.distributed.launch (< 1.9) names the worker by its argv: `'--local_rank=3'`.
_LAUNCH_ARGV_RANK = regex.compile(r"CalledProcessError: Command .*'--local_rank=(\d{1,6})'")
# DeepSpeed's launcher names the first worker that died by its argv, then kills the others:
# `[ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=1', ...] exits with return code = -11`
_DS_LOCAL_RANK_ARG = regex.compile(r"'--local_rank=(\d{1,6})'")
_DS_RETURN_CODE = regex.compile(r"\] exits with return code = (-?\d{1,4})\s*$")
# torch.multiprocessing.spawn: `-- Process 3 terminated with the following error:` (a traceback follows),
# `process 3 terminated with signal SIGKILL`, `process 0 terminated with exit code 1`.
_SPAWN_BLOCK = regex.compile(r"-- Process (\d{1,6}) terminated with the following error")
_SPAWN_EXIT = regex.compile(r"\bprocess (\d{1,6}) terminated with (?:signal (SIG[A-Z]+)|exit code (-?\d+))")
# Open MPI's mpirun: `The first process to do so was:` then, a blank line on, `  Process name: [[50371,1],0]`
# (job id, job family, then the rank in MPI_COMM_WORLD); and `mpirun noticed that process rank 1 with
# PID 4242 on node gpu-7 exited on signal 9 (Killed).`
_MPI_PROCESS_NAME = regex.compile(r"^\s*Process name: \[\[\d+,\d+\],(\d{1,6})\]")
_MPI_NOTICED = regex.compile(r"\bnoticed that process rank (\d{1,6}) with PID\b")
# What the launchers and trainers print when a run ends well (torchelastic's agent, HF Trainer,
# Lightning); `Local worker group finished (SUCCEEDED)` before torch 2.0, `(WorkerState.SUCCEEDED)` after.
_DONE = regex.compile(
    r"worker group successfully finished|Local worker group finished \((?:WorkerState\.)?SUCCEEDED\)"
    r"|Training completed\. Do not forget to share your model|`Trainer\.fit` stopped: `max_(?:epochs|steps|time)"
    r"|\{'train_runtime': \d"
)
_BANNER_RANK = regex.compile(r"\bProcess rank: (\d{1,6})\b")
# The host starts where a character it cannot hold stands before it, and is taken whole (it
# is followed by `:`, which it cannot hold, so a shorter one never matches): a search no
# longer tries each later character of a launcher's label as a host and backs off it one
# character at a time (`[1,47]<stdout>:gpu-node-5:...`, mpirun's tag), the same matches.
_NCCL_INIT = regex.compile(
    r"(?<![^\s:\[\]])(?P<host>[^\s:\[\]]++):(?P<pid>\d+):\d+ \[\d+\] NCCL INFO (?:ncclCommInitRank(?:Config)? )?comm 0x[0-9a-fA-F]+ "
    r"rank (?P<rank>\d{1,6}) n[Rr]anks (?P<n>\d{1,6})\b"
)
# Ray prints each actor's output behind `(RayTrainWorker pid=2893, ip=10.0.0.1) `: the probes read
# the message after it, and the pid says which rank wrote it once Ray Train's line named it.
_RAY_PREFIX = regex.compile(RAY_ACTOR)
_RAY_PG_RANK = regex.compile(r"Setting up process group for: \S+ \[rank=(\d{1,6}), world_size=(\d{1,6})\]")
# The trainer lists every worker it started (Ray prints the process-group line for rank 0 only):
# `(TorchTrainer pid=71127) - (ip=10.216.70.82, pid=75299) world_rank=1, local_rank=1, node_rank=0`
_RAY_WORKER_RANK = regex.compile(r"\bpid=(\d{1,9})\) world_rank=(\d{1,6})\b")
# Exceptions that launchers raise about a child, not the child's own error: never the cause.
LAUNCHER_EXCEPTION = regex.compile(
    r"ChildFailedError|ProcessRaisedException|ProcessExitedException|CalledProcessError"
    r"|^Exception: process \d+ terminated|^(?:builtins\.)?SystemExit\b"
)


@dataclass
class LogFacts:
    """What the probes learned while the log streamed past."""

    first_traceback: tuple[int, int | None, str] | None = None  # (line, rank, exception line)
    traceback_by_rank: dict[int | None, tuple[int, str]] = field(default_factory=dict)
    first_error: tuple[int, int | None, str] | None = None
    elastic_rank: int | None = None
    world_size: int | None = None
    ranks_seen: set[int] = field(default_factory=set)
    seq_by_rank: dict[int, int] = field(default_factory=dict)
    # Ranks a launcher reports as failed, first first: torchelastic's agent lines, the old
    # launcher's `--local_rank=N` argv, torch.multiprocessing.spawn's `process N terminated`.
    launcher_ranks: list[int] = field(default_factory=list)
    # Exit codes by the rank they belong to (negative: the signal that killed it).
    exitcode_by_rank: dict[int, int] = field(default_factory=dict)
    spawn_ranks: list[int] = field(default_factory=list)
    banner_ranks: set[int] = field(default_factory=set)
    # (host, pid) -> (nranks of the communicator, rank): the widest communicator's rank is global.
    nccl_rank_by_proc: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    # Ray actor pid -> the rank Ray Train gave it.
    ray_rank_by_pid: dict[int, int] = field(default_factory=dict)
    # The last line saying the run finished well, and the last error-like line: errors all
    # before a finish were survived.
    done_line: int | None = None
    last_error_line: int | None = None
    _awaiting_exc: dict[int | None, int] = field(default_factory=dict)  # rank -> traceback line
    # Multi-node: first global rank of the node whose local ranks this log shows, each way the
    # log states it, and the processes per node.
    node_offsets: set[int] = field(default_factory=set)
    group_rank: int | None = None
    local_world_size: int | None = None
    _elastic_after: int | None = None
    _spawn_rank: int | None = None  # inside a `-- Process N terminated` block
    _mpi_after: int | None = None  # the line of mpirun's `The first process to do so was:`
    # pdsh multi-host runs (DeepSpeed's launcher): the first global rank of each host, from
    # `global_rank_mapping` (exact) or the host's `node_rank` line (node_rank x procs per node).
    host_mapping: dict[str, int] = field(default_factory=dict)
    host_node_rank: dict[str, int] = field(default_factory=dict)
    # Global ranks a host's launcher reported failed (its `--local_rank=N` plus the host's
    # offset), and each host's first traceback exception (line, text): pdsh tracebacks carry no rank.
    host_failed: dict[str, list[int]] = field(default_factory=dict)
    host_tracebacks: dict[str, tuple[int, str]] = field(default_factory=dict)
    _awaiting_host: dict[str, int] = field(default_factory=dict)
    pdsh_prefixed: bool = False  # a line carried the pdsh prefix of a placed host
    # How `noderanks.to_global` made local ranks global: "" (it did not), "launcher" (launcher
    # ranks only), "all" (the lines' ranks too). The verdict names it in its rank basis.
    node_shift: str = ""

    def observe(self, line_no: int, message: str, rank: int | None, probes: frozenset[str] | set[str]) -> None:
        """Feed one candidate line: `message` has launcher prefixes stripped, `rank` is the
        line's rank as `parse_line` finds it."""
        if may_hold_codes(message):
            # A coloured exception (`\x1b[31mFileNotFoundError`, a notebook's `[0;31mKeyError[0m:`)
            # is read as the terminal shows it.
            message = without_terminal_codes(message)
        if message[:1] == "(":
            message, rank = self._strip_ray(message, rank)
        host = None
        if "node" in probes:
            self._observe_hosts(message)
        if self.host_mapping or self.host_node_rank:
            m = _PDSH_HOST.match(message)
            if m and self.host_offset(m[1]) is not None:
                host, message = m[1], message[m.end() :]
                self.pdsh_prefixed = True
                if rank is None:
                    self._observe_host_traceback(line_no, message, host, probes)
        if "spawn" in probes:
            self._observe_spawn(message)
        if "mpi" in probes:
            self._observe_mpi(line_no, message)
        if rank is None and self._spawn_rank is not None:
            # The spawned process's traceback is printed by the parent, without a prefix.
            rank = self._spawn_rank
        if rank is not None:
            self.ranks_seen.add(rank)
        if "traceback" in probes and _is_traceback_head(message):
            self._awaiting_exc.setdefault(rank, line_no)
            return
        if "done" in probes and _DONE.search(message):
            self.done_line = line_no
        if "exception" in probes:
            exc_line, error_line = _error_kinds(message)
            if exc_line or error_line:
                self.last_error_line = line_no
            if rank in self._awaiting_exc and exc_line:
                self._awaiting_exc.pop(rank)
                text = message.strip()
                if rank == self._spawn_rank:
                    self._spawn_rank = None
                # A launcher's exception (ChildFailedError) gives way to the child's own, printed later.
                held = self.traceback_by_rank.get(rank)
                if held is None or (LAUNCHER_EXCEPTION.search(held[1]) and not LAUNCHER_EXCEPTION.search(text)):
                    self.traceback_by_rank[rank] = (line_no, text)
                if self.first_traceback is None:
                    self.first_traceback = (line_no, rank, text)
            elif self.first_error is None and (exc_line or error_line):
                # A pasted exception without its traceback (`IndexError: Target 5 is out of bounds.`)
                # is what a person quotes too; `\bError\b` alone misses the word inside `IndexError`.
                self.first_error = (line_no, rank, message.strip())
        if "elastic" in probes:
            self._observe_elastic(line_no, message, host)
        if "seq" in probes and rank is not None:
            seq = _seq_number(message)
            if seq is not None:
                self.seq_by_rank[rank] = min(seq, self.seq_by_rank.get(rank, seq))
        if "banner" in probes:
            m = _BANNER_RANK.search(message)
            if m:
                self.banner_ranks.add(int(m[1]))
        if "nccl_init" in probes:
            self.observe_nccl_init(message)
        if "node" in probes:
            self._observe_node(message)

    def plain(self) -> bool:
        """Do the facts hold nothing that makes `observe` read more of an `exception` line than
        its message and rank? (No pdsh host placed, whose prefix it would read; no spawn block
        open, whose rank an unprefixed line would take.) Once a host is placed, it stays so."""
        return not self.host_mapping and not self.host_node_rank and self._spawn_rank is None

    def _strip_ray(self, message: str, rank: int | None) -> tuple[str, int | None]:
        """The message behind a Ray actor's `(Name pid=N, ip=...) ` and the rank that pid holds."""
        m = _RAY_PREFIX.match(message)
        if m is None:
            return message, rank
        pid, message = int(m["pid"]), message[m.end() :]
        pg = _RAY_PG_RANK.search(message)
        if pg:
            self.ray_rank_by_pid[pid] = int(pg[1])
            self.observe_world_size(int(pg[2]))
        worker = _RAY_WORKER_RANK.search(message)
        if worker:
            self.ray_rank_by_pid[int(worker[1])] = int(worker[2])
        return message, rank if rank is not None else self.ray_rank_by_pid.get(pid)

    def ray_rank(self, line: str) -> int | None:
        """The rank of the Ray actor whose `(Name pid=N...)` prefix the line carries, where known."""
        m = _RAY_PREFIX.search(line, 0, 200)
        return self.ray_rank_by_pid.get(int(m["pid"])) if m else None

    def observe_nccl_init(self, line: str) -> None:
        """An `Init COMPLETE` (or `Init START`) line: which rank the process `host:pid` holds (the engine hands
        these over without parsing prefixes: NCCL's own prefix is all that is read)."""
        # Only a line holding the pattern's literals is searched (NCCL's `Init timings: rank 7
        # nranks 32` has no `comm 0x`), and from where a match can start: NCCL's prefix
        # `host:pid:tid [dev] NCCL INFO` holds one space, before `[dev]`, and its host no space
        # nor bracket, so after the last of those before `[dev]`. A launcher's prefix (Ray's
        # colour-coded actor, torchrun's `[rank3]:`) is not tried position by position, nor the
        # rest of a line that fails: 9 -> 2 µs a line (4 -> 1.6 behind `[rank3]:`).
        at = line.find("] NCCL INFO ", 0, 600)
        if at < 0 or line.find(" comm 0x", at, 600) < 0:
            return
        dev = max(line.rfind(" [", 0, at), 0)
        start = max(line.rfind(" ", 0, dev), line.rfind("]", 0, dev), line.rfind("[", 0, dev)) + 1
        m = _NCCL_INIT.search(line, start, 600)
        if m:
            host, pid, rank, n = m.group("host", "pid", "rank", "n")
            proc, width = (host, int(pid)), int(n)
            if width > self.nccl_rank_by_proc.get(proc, (0, 0))[0]:
                self.nccl_rank_by_proc[proc] = (width, int(rank))

    def _observe_node(self, message: str) -> None:
        for m in _RDZV_RANK_LIST.finditer(message):  # at most one: the pattern is anchored
            values = [int(m[2]), *(int(v) for v in regex.findall(r"\d+", m[3]))]
            if m[1] == "global_ranks":
                self.node_offsets.add(values[0])
            if m[1] in ("global_ranks", "local_ranks") and len(values) > 1:
                self.local_world_size = len(values)
            if m[1] == "global_world_sizes":
                self.observe_world_size(values[0])
        m = _GROUP_RANK.search(message)
        if m:
            self.group_rank = int(m[1] or m[2] or m[3])
        m = _NPROC.search(message)
        if m and int(m[1]) > 0:
            self.local_world_size = int(m[1])

    def _observe_hosts(self, message: str) -> None:
        """DeepSpeed's launcher lines that place a host's ranks (see _DS_RANK_MAPPING)."""
        m = _DS_RANK_MAPPING.search(message)
        if m:
            for host, first in _DS_MAPPING_ENTRY.findall(m[1]):
                self.host_mapping.setdefault(host, int(first))
            return
        m = _DS_NODE_RANK.search(message)
        if m:
            host = _PDSH_HOST.match(message)
            offset = int(m[1]) * int(m[2])
            if host is not None and host.end() <= m.start():
                self.host_node_rank.setdefault(host[1], offset)
            else:
                # One node's own log (no pdsh prefix): its offset holds for the whole log.
                self.node_offsets.add(offset)

    def host_offset(self, host: str) -> int | None:
        """The first global rank of `host` in a pdsh run, where the log states it."""
        found = self.host_mapping.get(host)
        return found if found is not None else self.host_node_rank.get(host)

    def line_host_offset(self, line: str) -> int | None:
        """The offset of the host whose pdsh prefix `line` carries, where the log placed it."""
        m = _PDSH_HOST.match(line)
        return self.host_offset(m[1]) if m else None

    def _observe_host_traceback(self, line_no: int, message: str, host: str, probes: frozenset[str] | set[str]) -> None:
        """A host's first traceback exception: its rank is told later, by the host's launcher."""
        if "traceback" in probes and _is_traceback_head(message):
            self._awaiting_host.setdefault(host, line_no)
        elif "exception" in probes and host in self._awaiting_host and _error_kinds(message)[0]:
            self._awaiting_host.pop(host)
            text = message.strip()
            held = self.host_tracebacks.get(host)
            if held is None or (LAUNCHER_EXCEPTION.search(held[1]) and not LAUNCHER_EXCEPTION.search(text)):
                self.host_tracebacks[host] = (line_no, text)

    def host_traceback_ranks(self) -> dict[int, tuple[int, str]]:
        """Each host's traceback under the global rank its launcher named first as failed."""
        return {
            self.host_failed[host][0]: entry for host, entry in self.host_tracebacks.items() if self.host_failed.get(host)
        }

    def node_offset(self) -> int | None:
        """The global rank of this node's local rank 0, where the log says it one way only:
        a log that holds several nodes' summaries has no single offset, nor one whose lines
        carry several hosts' pdsh prefixes (their offsets are per host). One host's part of a
        pdsh run without the prefixes (`dshbak`, a per-node log) has its `node_rank` line's."""
        if self.pdsh_prefixed:
            return None
        offsets = set(self.node_offsets)
        if self.group_rank is not None and self.local_world_size:
            offsets.add(self.group_rank * self.local_world_size)
        return offsets.pop() if len(offsets) == 1 else None

    def _observe_elastic(self, line_no: int, message: str, host: str | None = None) -> None:
        m = _ELASTIC_RANK_PAIR.match(message)
        if m and int(m[1]) >= int(m[2]):
            self.node_offsets.add(int(m[1]) - int(m[2]))
        if "first observed failure" in message:
            self._elastic_after = line_no
            return
        if self._elastic_after is not None and line_no - self._elastic_after <= 10:
            m = _ELASTIC_RANK.match(message)
            if m:
                self.elastic_rank = int(m[1])
                return
            m = _ELASTIC_EXITCODE.match(message)
            if m and self.elastic_rank is not None:
                self.exitcode_by_rank.setdefault(self.elastic_rank, int(m[1]))
                self._elastic_after = None
                return
        m = _AGENT_FAILED.search(message)
        if m:
            local = int(m[2])
            self._launcher_failed(local)
            self.exitcode_by_rank.setdefault(local, int(m[1]))
            return
        m = _LAUNCH_ARGV_RANK.search(message)
        if m:
            self._launcher_failed(int(m[1]))
            return
        if "sigkill_handler]" in message:
            code, arg = _DS_RETURN_CODE.search(message), _DS_LOCAL_RANK_ARG.search(message)
            if code and arg:
                rank = int(arg[1])
                if host is not None:
                    # pdsh: the launcher of this host counts from the host's first global rank.
                    rank += self.host_offset(host) or 0
                    self.host_failed.setdefault(host, []).append(rank)
                self._launcher_failed(rank)
                self.exitcode_by_rank.setdefault(rank, int(code[1]))

    def _observe_spawn(self, message: str) -> None:
        m = _SPAWN_BLOCK.search(message)
        if m:
            self._spawn_rank = int(m[1])
            self.spawn_ranks.append(self._spawn_rank)
            self._launcher_failed(self._spawn_rank)
            return
        m = _SPAWN_EXIT.search(message)
        if m:
            rank = int(m[1])
            self.spawn_ranks.append(rank)
            self._launcher_failed(rank)
            if m[2]:
                self.exitcode_by_rank.setdefault(rank, -_SIGNALS.get(m[2], 0) or 0)
            elif m[3]:
                self.exitcode_by_rank.setdefault(rank, int(m[3]))

    def _observe_mpi(self, line_no: int, message: str) -> None:
        if "first process to do so was" in message:
            self._mpi_after = line_no
            return
        m = _MPI_PROCESS_NAME.match(message)
        # Only the name right under that heading: mpirun's other help texts name processes too.
        if m and self._mpi_after is not None and line_no - self._mpi_after <= 3:
            self._mpi_after = None
            self._launcher_failed(int(m[1]))
            return
        m = _MPI_NOTICED.search(message)
        if m:
            self._launcher_failed(int(m[1]))

    def _launcher_failed(self, rank: int) -> None:
        if rank not in self.launcher_ranks:
            self.launcher_ranks.append(rank)

    def observe_world_size(self, size: int) -> None:
        """A world size the log states (`nRanks 8`, `world_size=16`): the largest counts."""
        if 0 < size <= 1_000_000 and size > (self.world_size or 0):
            self.world_size = size

    def salient_line(self, prefer_rank: int | None = None) -> str | None:
        """The line a person would quote: a traceback's exception, else the first error line."""
        if prefer_rank is not None and prefer_rank in self.traceback_by_rank:
            return self.traceback_by_rank[prefer_rank][1]
        own = self.own_errors()
        if own:
            return own[0][2]
        if self.first_traceback:
            return self.first_traceback[2]
        if self.first_error:
            return self.first_error[2]
        return None

    def without_ranks(self, ranks: set[int]) -> LogFacts:
        """These facts with `ranks` forgotten as global ranks where the verdict reads ranks (the
        ranks seen, their sequence numbers, the first error): the lines that named them numbered
        a subgroup. The tracebacks by rank are left as read: a traceback's lines carry a
        launcher's prefix or no rank, rarely WorkNCCL's bare `[Rank r]`."""
        first_error = self.first_error
        if first_error is not None and first_error[1] in ranks:
            first_error = (first_error[0], None, first_error[2])
        return replace(
            self,
            ranks_seen=self.ranks_seen - ranks,
            seq_by_rank={r: s for r, s in self.seq_by_rank.items() if r not in ranks},
            first_error=first_error,
        )

    def known_ranks(self) -> set[int]:
        ranks = set(self.ranks_seen) | self.banner_ranks
        if self.world_size and self.world_size <= 100_000:
            ranks.update(range(self.world_size))
        return ranks

    def finished_after(self, line: int) -> bool:
        """Did the run finish well after `line`, with no error line after the finish?"""
        done = self.done_line
        return done is not None and line < done and (self.last_error_line or 0) < done

    def own_errors(self) -> list[tuple[int, int | None, str]]:
        """(line, rank, exception) of each rank's first traceback, launchers' own left out, first first."""
        out = [(line, rank, text) for rank, (line, text) in self.traceback_by_rank.items()]
        return sorted(e for e in out if not LAUNCHER_EXCEPTION.search(e[2]))

    def nccl_rank(self, host: str, pid: int) -> int | None:
        """The rank NCCL's init lines gave the process `host:pid`, where they were printed."""
        found = self.nccl_rank_by_proc.get((host, pid))
        return found[1] if found else None

    def nccl_rank_of_pid(self, pid: int) -> int | None:
        """The rank NCCL's init lines gave the process `pid` on whichever host, when that is one rank.

        The kernel's Xid line names the process (`pid=245122`) but not the host; two hosts may reuse
        a pid, so a pid the init lines tie to different ranks names none."""
        ranks = {rank for (_, p), (_, rank) in self.nccl_rank_by_proc.items() if p == pid}
        return ranks.pop() if len(ranks) == 1 else None


_SIGNALS = {"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGBUS": 7,
            "SIGFPE": 8, "SIGKILL": 9, "SIGUSR1": 10, "SIGSEGV": 11, "SIGUSR2": 12, "SIGPIPE": 13,
            "SIGALRM": 14, "SIGTERM": 15}  # fmt: skip


# `_error_kinds` per message shape: the three patterns tell no digit from another except 0
# from the rest (`0 errors`), so a flood of one error line with other numbers (a retry loop
# with its timestamps) pays them once. Bounded; shared by threads (dict operations are atomic).
_NONZERO_AS_ONE = bytes.maketrans(b"23456789", b"11111111")  # on UTF-8, faster than str.translate
_KINDS: dict[bytes, tuple[bool, bool]] = {}
_KINDS_MAX = 20_000


def _error_kinds(message: str) -> tuple[bool, bool]:
    """(an exception line, an error line that is not a warning or info) for `message`."""
    key = message.encode("utf-8", "surrogatepass").translate(_NONZERO_AS_ONE)
    found = _KINDS.get(key)
    if found is None:
        if len(_KINDS) >= _KINDS_MAX:
            _KINDS.clear()
        found = (
            _EXC_LINE.match(message) is not None,
            _ERROR_LINE.search(message) is not None and _NOT_ERROR.search(message) is None,
        )
        _KINDS[key] = found
    return found


# The only parts of `_error_kinds`' patterns that tell one digit from another (`\b0 errors?\b`
# and `errors?=0\b` in _NOT_ERROR), as they read on a message with every digit as 0.
_ZERO_SENSITIVE = (b"0 error", b"error=0", b"errors=0")


def repeat_effect(message: str, probes: frozenset[str]) -> bool | None:
    """What `LogFacts.observe` does with a further line of the same rank as a line it observed,
    whose message is `message` with other digits, while the facts are `plain()`: False, nothing
    (its rank is seen, the first error is held); True, it moves `last_error_line` to that line.
    None when it may do more (a probe that reads numbers or pairs lines, an exception line that
    may close a traceback, a Ray prefix, a message on which the error patterns tell digits apart).
    """
    if not probes:
        return False
    if probes != EXCEPTION_ONLY or not message.isascii():
        return None
    if may_hold_codes(message):
        message = without_terminal_codes(message)  # as `observe` reads it
    if message[:1] == "(":
        return None
    zeroed = message.encode("ascii").translate(DIGITS_AS_ZERO).lower()
    if any(word in zeroed for word in _ZERO_SENSITIVE):
        return None
    exc_line, error_line = _error_kinds(message)
    if exc_line:
        return None
    return error_line



def _seq_number(message: str) -> int | None:
    """The NCCL work sequence number `message` states first (`SeqNum=`, `last completed NCCL work:`)."""
    at = message.find("SeqNum=")
    other = message.find("last completed NCCL work:", 0, at if at >= 0 else len(message))
    if other >= 0:
        at = other
    if at < 0:
        return None
    m = _SEQ.search(message, at)
    return int(m[1] or m[2]) if m else None


def _is_traceback_head(message: str) -> bool:
    """`Traceback (most recent call last):`, also inside rich's box `╭── Traceback (most recent call last) ──╮`."""
    head = message.lstrip()
    if head.startswith("Traceback (most recent call last)"):
        return True
    return head[:1] in ("╭", "┌") and "Traceback (most recent call last)" in head
