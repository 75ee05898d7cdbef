"""Per-line facts a distributed log carries: which rank wrote it, on which host, and when.

Only lines that matter (prefilter candidates) are parsed, so these functions favour
clarity over raw speed; each is a handful of anchored regexes.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass

import regex

# Prefixes launchers put in front of every line, tried in order at the start of the line.
# A host prefix (pdsh / DeepSpeed's launcher: `worker-3: `) may precede any of them.
_HOST_PREFIX = regex.compile(
    r"(?P<host>[A-Za-z0-9][\w.-]{0,62}): (?=\[(?:rank|default)\d|\[\d+,\d+\]<|\d{1,5}: |\d{4}-\d\d-\d\d)"
)
_RANK_PREFIXES = (
    # PyTorch >= 2.2 `[rank3]:` and torchrun --tee `[default3]:` (role name + local rank).
    regex.compile(r"\[(?:rank|default|[a-z_]{1,20}?)(?P<rank>\d{1,6})\]:"),
    # MPI --tag-output `[1,3]<stderr>:` (job id, rank).
    regex.compile(r"\[\d+,(?P<rank>\d{1,6})\]<std(?:out|err)>:"),
    # srun --label `3: `.
    regex.compile(r"(?P<rank>\d{1,5}): "),
)
# The same prefixes behind something else a collector put first: a timestamp, a host or IP
# (`10.0.0.5: [rank3]:`), Ray's `(RayWorkerWrapper pid=1019, ip=...)`, journald's `python[123]:`.
_EMBEDDED_PREFIX = regex.compile(
    r"(?:^|[\s:\]\)])(?:\[(?:rank|default)(?P<rank>\d{1,6})\]:|\[\d+,(?P<rank>\d{1,6})\]<std(?:out|err)>:)"
)
# NCCL's own prefix: `host:pid:tid [device] NCCL ...`; the bracket is a local device, not a rank.
_NCCL_PREFIX = regex.compile(r"(?P<host>[^\s:\[\]]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>\d+)\] NCCL ")
# Where NCCL printed a line from, whatever follows the `[dev]` (`NCCL WARN`, `misc/ibvwrap.cc:280 NCCL WARN`).
_NCCL_ORIGIN = regex.compile(r"(?<![^\s\]:>])(?=[^\s:\[\]]*[^\d\s:\[\]])(?P<host>[^\s:\[\]]+):(?P<pid>\d+):\d+ \[\d+\] ")
# Ranks named inside the message text.
_RANK_IN_TEXT = regex.compile(
    r"\[(?:PG \S+ )?Rank (?P<rank>\d{1,6})\]"
    r"|\bRank (?P<rank>\d{1,6})\b"
    r"|\b(?:global_)?rank[ =:]\s?(?P<rank>\d{1,6})\b"
)

_MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}
_ISO = regex.compile(
    r"(?P<y>\d{4})-(?P<mo>\d\d)-(?P<d>\d\d)[T ](?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)(?:[.,](?P<f>\d{1,9}))?"
)
_GLOG = regex.compile(
    r"(?:^|[\[\s:])[IWEF](?P<mo>\d\d)(?P<d>\d\d) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)(?:\.(?P<f>\d{1,9}))?"
)
_SYSLOG = regex.compile(
    r"(?:^|\s)(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}(?P<d>\d{1,2}) "
    r"(?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)"
)
_DMESG = regex.compile(r"^\[\s*(?P<up>\d{1,9}\.\d{1,9})\]")


@dataclass(frozen=True)
class Timestamp:
    """A point in time as the log wrote it. Only stamps of the same `kind` are comparable."""

    kind: str  # iso | glog | syslog | uptime
    value: float
    text: str


@dataclass(frozen=True)
class LineFacts:
    rank: int | None
    host: str | None
    device: int | None
    timestamp: Timestamp | None


def _frac(f: str | None) -> float:
    return float("0." + f) if f else 0.0


def parse_timestamp(line: str) -> Timestamp | None:
    """The first timestamp in the line, in any of the formats training logs use."""
    head = line[:200]
    m = _ISO.search(head)
    if m:
        try:
            secs = calendar.timegm(
                (int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]))
            )
            return Timestamp("iso", secs + _frac(m["f"]), m.group(0))
        except (ValueError, OverflowError):
            pass
    m = _GLOG.search(head)
    if m and 1 <= int(m["mo"]) <= 12:
        secs = calendar.timegm((2000, int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"])))
        return Timestamp("glog", secs + _frac(m["f"]), m.group(0).strip("[ :"))
    m = _SYSLOG.search(head)
    if m:
        secs = calendar.timegm((2000, _MONTHS[m["mon"]], int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"])))
        return Timestamp("syslog", float(secs), m.group(0).strip())
    m = _DMESG.match(head)
    if m:
        return Timestamp("uptime", float(m["up"]), m.group(0))
    return None


def parse_line(line: str) -> LineFacts:
    """Rank, host, local device and timestamp of one log line, where the line carries them."""
    pos, host = 0, None
    m = _HOST_PREFIX.match(line)
    if m:
        host, pos = m["host"], m.end()
    rank = None
    # Launchers stack prefixes (`[default0]:[rank12]:` from torchrun --tee over PyTorch's own):
    # read them all; PyTorch's `[rankN]` is the global rank and wins over a local one.
    for _ in range(3):
        for pattern in _RANK_PREFIXES:
            m = pattern.match(line, pos)
            if m:
                if rank is None or line.startswith("[rank", m.start()):
                    rank = int(m["rank"])
                pos = m.end()
                break
        else:
            break
    if rank is None:
        m = _EMBEDDED_PREFIX.search(line, pos, pos + 300)
        if m:
            rank, pos = int(m["rank"]), m.end()
    device = None
    m = _NCCL_PREFIX.match(line, pos)
    if m is None and "] NCCL " in line[:300]:
        # Every NCCL prefix holds that literal; searching without it is slow on long lines.
        m = _NCCL_PREFIX.search(line[:300], pos)
    if m:
        host, device = m["host"], int(m["dev"])
    if rank is None:
        m = _RANK_IN_TEXT.search(line, pos)
        if m:
            rank = int(m["rank"])
    return LineFacts(rank=rank, host=host, device=device, timestamp=parse_timestamp(line))


def nccl_origin(line: str) -> tuple[str, int] | None:
    """`(host, pid)` of a line NCCL printed (`host:pid:tid [dev] ...`), behind any launcher prefix."""
    m = _NCCL_ORIGIN.search(line, 0, 300)
    return (m["host"], int(m["pid"])) if m else None


def strip_prefixes(line: str) -> str:
    """The message with launcher prefixes (host, rank) removed: what the program printed."""
    pos = 0
    m = _HOST_PREFIX.match(line)
    if m:
        pos = m.end()
    for _ in range(3):
        for pattern in _RANK_PREFIXES:
            m = pattern.match(line, pos)
            if m:
                pos = m.end()
                break
        else:
            break
    if pos == 0:
        m = _EMBEDDED_PREFIX.search(line, 0, 300)
        if m:
            pos = m.end()
    if pos and line[pos - 1] == ":" and line[pos : pos + 1] == " ":
        # `[rank3]: RuntimeError` (PyTorch 2.x): the space after the prefix is not the message's.
        pos += 1
    return line[pos:]
