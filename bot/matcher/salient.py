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
    "elastic": ("first observed failure", "local_rank:"),
    "seq": ("seqnum=", "last completed nccl work"),
}  # fmt: skip

_EXC_LINE = regex.compile(
    r"^(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Interrupt|Failure|Fault)|SystemExit)\b(?::|$)"
)
_ERROR_LINE = regex.compile(
    r"\b(?:FATAL|Fatal|fatal|ERROR|Error|error|CRITICAL|Segmentation fault|Aborted|Killed|failed|Failed)\b"
)
_NOT_ERROR = regex.compile(r"(?i)warn(?:ing)?s?\b|\bINFO\b|\b0 errors?\b|error_?rate|errors?=0\b|\bno errors?\b")
_ELASTIC_RANK = regex.compile(r"^\s*rank\s*:\s*(\d{1,6})\b")
# The world size is read wherever these stand, not line by line: a big NCCL INFO log prints
# `nRanks` on line after line, and the matcher hands over each occurrence's offset.
WORLD_KEYWORDS = ("world_size", "world size", "nranks")
# Matched at an occurrence of a keyword, on raw bytes; never across a line end.
WORLD_SIZE_AT = re.compile(
    rb"(?i:world[_ ]size)[^\S\n]*[=:]?[^\S\n]*(\d{1,6})\b|\bnranks[^\S\n]+(\d{1,6})\b|\bnRanks[^\S\n]+(\d{1,6})\b"
)
_SEQ = regex.compile(r"SeqNum=(\d+)|last completed NCCL work:\s*(\d+)")


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
    _awaiting_exc: dict[int | None, int] = field(default_factory=dict)  # rank -> traceback line
    _elastic_after: int | None = None

    def observe(self, line_no: int, message: str, rank: int | None, probes: frozenset[str] | set[str]) -> None:
        """Feed one candidate line: `message` has launcher prefixes stripped, `rank` is the
        line's rank as `parse_line` finds it."""
        if rank is not None:
            self.ranks_seen.add(rank)
        if "traceback" in probes and message.lstrip().startswith("Traceback (most recent call last)"):
            self._awaiting_exc.setdefault(rank, line_no)
            return
        if "exception" in probes:
            if rank in self._awaiting_exc and _EXC_LINE.match(message):
                self._awaiting_exc.pop(rank)
                text = message.strip()
                self.traceback_by_rank.setdefault(rank, (line_no, text))
                if self.first_traceback is None:
                    self.first_traceback = (line_no, rank, text)
            elif self.first_error is None and _ERROR_LINE.search(message) and not _NOT_ERROR.search(message):
                self.first_error = (line_no, rank, message.strip())
        if "elastic" in probes:
            if "first observed failure" in message:
                self._elastic_after = line_no
            elif self._elastic_after is not None and line_no - self._elastic_after <= 10:
                m = _ELASTIC_RANK.match(message)
                if m:
                    self.elastic_rank = int(m[1])
                    self._elastic_after = None
        if "seq" in probes and rank is not None:
            m = _SEQ.search(message)
            if m:
                seq = int(m[1] or m[2])
                self.seq_by_rank[rank] = min(seq, self.seq_by_rank.get(rank, seq))

    def observe_world_size(self, size: int) -> None:
        """A world size the log states (`nRanks 8`, `world_size=16`): the largest counts."""
        if 0 < size <= 1_000_000 and size > (self.world_size or 0):
            self.world_size = size

    def salient_line(self, prefer_rank: int | None = None) -> str | None:
        """The line a person would quote: a traceback's exception, else the first error line."""
        if prefer_rank is not None and prefer_rank in self.traceback_by_rank:
            return self.traceback_by_rank[prefer_rank][1]
        if self.first_traceback:
            return self.first_traceback[2]
        if self.first_error:
            return self.first_error[2]
        return None

    def known_ranks(self) -> set[int]:
        ranks = set(self.ranks_seen)
        if self.world_size and self.world_size <= 100_000:
            ranks.update(range(self.world_size))
        return ranks
