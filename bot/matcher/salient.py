"""The most salient error line of a log that no rule matched.

What a person scrolls for: the last line of the first traceback (the exception), else the
first line that says error or fatal. The same probes also learn what the log tells about
ranks: the torchelastic "first observed failure", collective sequence numbers; the matcher feeds
them the world size the log states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import regex

# Built-in probe keywords (lower-case). Owners are "probe:<name>".
PROBE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "traceback": ("traceback (most recent call last)",),
    "exception": ("error", "exception", "fatal", "failed", "failure", "fault", "killed",
                  "abort", "critical", "systemexit", "interrupt"),
    "elastic": ("first observed failure", "local_rank:", "exitcode", "--local_rank="),
    "seq": ("seqnum=", "last completed nccl work"),
    # torch.multiprocessing.spawn names the process whose traceback follows, unprefixed.
    "spawn": ("terminated with",),
    # HF example scripts log `Process rank: K, device: cuda:K` once per process.
    "banner": ("process rank:",),
    # NCCL's init line ties a `host:pid` prefix to a rank, once per communicator:
    # `host:12:34 [3] NCCL INFO [ncclCommInitRank ]comm 0x.. rank 3 nranks 8 cudaDev 3 ... - Init COMPLETE`.
    "nccl_init": ("init complete",),
    # The run finished: whatever it printed before was survived (a retry, a fallback, a warning).
    "done": ("worker group successfully finished", "local worker group finished", "training completed. do not",
             "`trainer.fit` stopped:", "'train_runtime':"),
}  # fmt: skip

_EXC_LINE = regex.compile(
    r"^(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Interrupt|Failure|Fault)|SystemExit)\b(?::|$)"
)
_ERROR_LINE = regex.compile(
    r"\b(?:FATAL|Fatal|fatal|ERROR|Error|error|CRITICAL|Segmentation fault|Aborted|Killed|failed|Failed)\b"
)
# Also slurmstepd's `_is_a_lwp: open() /proc/N/status failed`: a race with a process that just
# exited, printed on healthy jobs (SchedMD calls it harmless), never the reason a run died.
_NOT_ERROR = regex.compile(
    r"(?i)warn(?:ing)?s?\b|\bINFO\b|\b0 errors?\b|error_?rate|errors?=0\b|\bno errors?\b|\b_is_a_lwp: open\(\)"
)
_ELASTIC_RANK = regex.compile(r"^\s*rank\s*:\s*(\d{1,6})\b")
# The world size is read wherever these stand, not line by line: a big NCCL INFO log prints
# `nRanks` on line after line, and the matcher hands over each occurrence's offset.
WORLD_KEYWORDS = ("world_size", "world size", "nranks")
# Matched at an occurrence of a keyword, on raw bytes; never across a line end.
WORLD_SIZE_AT = re.compile(
    rb"(?i:world[_ ]size)[^\S\n]*[=:]?[^\S\n]*(\d{1,6})\b|\bnranks[^\S\n]+(\d{1,6})\b|\bnRanks[^\S\n]+(\d{1,6})\b"
)
_SEQ = regex.compile(r"SeqNum=(\d+)|last completed NCCL work:\s*(\d+)")
# torchelastic's agent line, one per failed local worker (torch >= 1.9):
# `failed (exitcode: -9) local_rank: 3 (pid: 812917) of binary: /usr/bin/python`
_AGENT_FAILED = regex.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d{1,6}) \(pid: \d+\)")
# The `exitcode  : -9 (pid: 3309)` row of the first-observed-failure block.
_ELASTIC_EXITCODE = regex.compile(r"^\s*exitcode\s*:\s*(-?\d+)\b")
# torch.distributed.launch (< 1.9) names the worker by its argv: `'--local_rank=3'`.
_LAUNCH_ARGV_RANK = regex.compile(r"CalledProcessError: Command .*'--local_rank=(\d{1,6})'")
# torch.multiprocessing.spawn: `-- Process 3 terminated with the following error:` (a traceback follows),
# `process 3 terminated with signal SIGKILL`, `process 0 terminated with exit code 1`.
_SPAWN_BLOCK = regex.compile(r"-- Process (\d{1,6}) terminated with the following error")
_SPAWN_EXIT = regex.compile(r"\bprocess (\d{1,6}) terminated with (?:signal (SIG[A-Z]+)|exit code (-?\d+))")
# What the launchers and trainers print when a run ends well (torchelastic's agent, HF Trainer,
# Lightning); `Local worker group finished (SUCCEEDED)` before torch 2.0, `(WorkerState.SUCCEEDED)` after.
_DONE = regex.compile(
    r"worker group successfully finished|Local worker group finished \((?:WorkerState\.)?SUCCEEDED\)"
    r"|Training completed\. Do not forget to share your model|`Trainer\.fit` stopped: `max_(?:epochs|steps|time)"
    r"|\{'train_runtime': \d"
)
_BANNER_RANK = regex.compile(r"\bProcess rank: (\d{1,6})\b")
_NCCL_INIT = regex.compile(
    r"(?P<host>[^\s:\[\]]+):(?P<pid>\d+):\d+ \[\d+\] NCCL INFO (?:ncclCommInitRank(?:Config)? )?comm 0x[0-9a-fA-F]+ "
    r"rank (?P<rank>\d{1,6}) n[Rr]anks (?P<n>\d{1,6})\b"
)
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
    # The last line saying the run finished well, and the last error-like line: errors all
    # before a finish were survived.
    done_line: int | None = None
    last_error_line: int | None = None
    _awaiting_exc: dict[int | None, int] = field(default_factory=dict)  # rank -> traceback line
    _elastic_after: int | None = None
    _spawn_rank: int | None = None  # inside a `-- Process N terminated` block

    def observe(self, line_no: int, message: str, rank: int | None, probes: frozenset[str] | set[str]) -> None:
        """Feed one candidate line: `message` has launcher prefixes stripped, `rank` is the
        line's rank as `parse_line` finds it."""
        if "spawn" in probes:
            self._observe_spawn(message)
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
            elif self.first_error is None and error_line:
                self.first_error = (line_no, rank, message.strip())
        if "elastic" in probes:
            self._observe_elastic(line_no, message)
        if "seq" in probes and rank is not None:
            m = _SEQ.search(message)
            if m:
                seq = int(m[1] or m[2])
                self.seq_by_rank[rank] = min(seq, self.seq_by_rank.get(rank, seq))
        if "banner" in probes:
            m = _BANNER_RANK.search(message)
            if m:
                self.banner_ranks.add(int(m[1]))
        if "nccl_init" in probes:
            self.observe_nccl_init(message)

    def observe_nccl_init(self, line: str) -> None:
        """An `Init COMPLETE` line: which rank the process `host:pid` holds (the engine hands
        these over without parsing prefixes: NCCL's own prefix is all that is read)."""
        m = _NCCL_INIT.search(line, 0, 600)
        if m:
            proc, width = (m["host"], int(m["pid"])), int(m["n"])
            if width > self.nccl_rank_by_proc.get(proc, (0, 0))[0]:
                self.nccl_rank_by_proc[proc] = (width, int(m["rank"]))

    def _observe_elastic(self, line_no: int, message: str) -> None:
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


def _is_traceback_head(message: str) -> bool:
    """`Traceback (most recent call last):`, also inside rich's box `╭── Traceback (most recent call last) ──╮`."""
    head = message.lstrip()
    if head.startswith("Traceback (most recent call last)"):
        return True
    return head[:1] in ("╭", "┌") and "Traceback (most recent call last)" in head
