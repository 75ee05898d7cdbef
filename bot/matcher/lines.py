"""Per-line facts a distributed log carries: which rank wrote it, on which host, and when.

Only lines that matter (prefilter candidates) are parsed, so these functions favour
clarity over raw speed; each is a handful of anchored regexes.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from typing import NamedTuple

import regex

from bot.launchers import RANK_PREFIXES
from bot.literals import DIGITS_AS_ZERO

# Prefixes launchers put in front of every line, tried in order at the start of the line.
# A host prefix (pdsh / DeepSpeed's launcher: `worker-3: `) may precede any of them.
_HOST_PREFIX = regex.compile(
    r"(?P<host>[A-Za-z0-9][\w.-]{0,62}): (?=\[(?:rank|default)\d|\[\d+,\d+\]<|\d{1,5}: |\d{4}-\d\d-\d\d)"
)
_RANK_PREFIXES = tuple(regex.compile(p) for p in RANK_PREFIXES)
# The same prefixes behind something else a collector put first: a timestamp, a host or IP
# (`10.0.0.5: [rank3]:`), Ray's `(RayWorkerWrapper pid=1019, ip=...)`, journald's `python[123]:`.
_EMBEDDED_PREFIX = regex.compile(
    r"(?:^|[\s:\]\)])(?:\[(?:rank|default)(?P<rank>\d{1,6})\]:|\[\d+,(?P<rank>\d{1,6})\]<std(?:out|err)>:)"
)
# NCCL's own prefix: `host:pid:tid [device] NCCL ...`; the bracket is a local device, not a rank.
_NCCL_PREFIX = regex.compile(r"(?P<host>[^\s:\[\]]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>\d+)\] NCCL ")
# Where NCCL printed a line from, whatever follows the `[dev]` (`NCCL WARN`, `misc/ibvwrap.cc:280 NCCL WARN`).
_NCCL_ORIGIN = regex.compile(r"(?<![^\s\]:>])(?=[^\s:\[\]]*[^\d\s:\[\]])(?P<host>[^\s:\[\]]+):(?P<pid>\d+):\d+ \[\d+\] ")
# Ranks named inside the message text. PyTorch's ncclUniqueId refusal opens with the rank that
# prints it (`[14] is setting up NCCL communicator ... from [0] ...`) and ends naming the rank it
# waited on (`... possible application crash on rank 0`): the leftmost match, its own, wins.
# ProcessGroupNCCL's log prefix names its process group and the rank WITHIN that group:
# `[PG 3 Rank 5]` (2.3), `[PG 0 (default_pg) Rank 6]`, `[PG ID 1 PG GUID 1 Rank 0]` and
# `[PG ID 0 PG GUID 0(default_pg) Rank 3]` (2.4+). Only the default group (the first one a process
# makes, id 0, described `default_pg`) numbers ranks globally; in a tensor- or pipeline-parallel
# subgroup `Rank 0` is some other global rank, so such a line names none (`pg`, read in `_read`).
_RANK_IN_TEXT = regex.compile(
    r"\[(?P<rank>\d{1,6})\] is setting up NCCL communicator\b"
    r"|\[PG (?:ID )?(?P<pg>[^\s\]()]{1,64})(?: PG GUID [^\s\]()]{1,64})?(?: ?\((?P<desc>[^)\]]{0,64})\))? "
    r"Rank (?P<rank>\d{1,6})\]"
    r"|\[Rank (?P<rank>\d{1,6})\]"
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


# Timestamp and LineFacts are named tuples: one of each is made for every candidate line a rule
# hits (a watchdog line of each of 10,000 ranks), and a frozen dataclass costs four times as
# much to make (its __init__ sets each field through object.__setattr__).
class Timestamp(NamedTuple):
    """A point in time as the log wrote it. Only stamps of the same `kind` are comparable."""

    kind: str  # iso | glog | syslog | uptime
    value: float
    text: str


class LineFacts(NamedTuple):
    rank: int | None
    host: str | None
    device: int | None
    timestamp: Timestamp | None
    message_start: int = 0  # where the message starts, past launcher prefixes (strip_prefixes)


def _frac(f: str | None) -> float:
    return float("0." + f) if f else 0.0


Span = tuple[int, int]


@dataclass(frozen=True)
class _Layout:
    """Where a line keeps its facts: spans of rank, host and device, where its message starts,
    and the timestamp formats it matches with their fields' spans, in the order they are tried.

    Every regex here treats all digits alike (only `\\d`, counts and fixed text), so a line
    with other digits in the same places has the same layout: `LineReader` works it out once
    per line shape. What depends on the digits' values (a month of 13 is no month) is decided
    when the facts are read off the line (`_read`).
    """

    rank: Span | None
    host: Span | None
    device: Span | None
    message_start: int
    stamps: tuple[Stamp, ...]
    # The id of a ProcessGroupNCCL prefix the rank was read from, when the prefix does not say it
    # is the default group: the rank is global only where that id reads `0` (`_rank`).
    group: Span | None = None
    # The rank was read off WorkNCCL's bare `[Rank r]` (`Watchdog caught collective operation
    # timeout`): the rank within the work's process group, which the line does not name.
    bare: bool = False


# Each timestamp format, how it is found, and the fields read off a match, in this order.
_STAMPS = (
    ("iso", _ISO.search, ("y", "mo", "d", "h", "mi", "s", "f")),
    ("glog", _GLOG.search, ("mo", "d", "h", "mi", "s", "f")),
    ("syslog", _SYSLOG.search, ("mon", "d", "h", "mi", "s")),
    ("uptime", _DMESG.match, ("up",)),
)
Stamp = tuple[str, Span, tuple[Span, ...]]  # kind, the whole match, its fields


def _layout(line: str) -> _Layout:
    pos, host = 0, None
    m = _HOST_PREFIX.match(line)
    if m:
        host, pos = m.span("host"), m.end()
    rank = None
    # Launchers stack prefixes (`[default0]:[rank12]:` from torchrun --tee over PyTorch's own):
    # read them all; PyTorch's `[rankN]` is the global rank and wins over a local one.
    for _ in range(3):
        for pattern in _RANK_PREFIXES:
            m = pattern.match(line, pos)
            if m:
                if rank is None or line.startswith("[rank", m.start()):
                    rank = m.span("rank")
                pos = m.end()
                break
        else:
            break
    if rank is None:
        m = _EMBEDDED_PREFIX.search(line, pos, pos + 300)
        if m:
            rank, pos = m.span("rank"), m.end()
    device = None
    m = _NCCL_PREFIX.match(line, pos)
    if m is None and "] NCCL " in line[:300]:
        # Every NCCL prefix holds that literal; searching without it is slow on long lines.
        m = _NCCL_PREFIX.search(line[:300], pos)
    if m:
        host, device = m.span("host"), m.span("dev")
    group, bare = None, False
    if rank is None:
        m = _RANK_IN_TEXT.search(line, pos)
        if m:
            rank = m.span("rank")
            if m.group("pg") is not None and m.group("desc") != "default_pg":
                group = m.span("pg")
            bare = line.startswith("[Rank ", m.start())
    head = line[:200]
    stamps = tuple(
        (kind, found.span(), tuple(found.span(f) for f in fields))
        for kind, find, fields in _STAMPS
        if (found := find(head)) is not None
    )
    return _Layout(rank, host, device, _message_start(line), stamps, group, bare)


def _rank(layout: _Layout, line: str) -> int | None:
    """The global rank `layout` reads on `line`: none where it is a subgroup's own numbering."""
    if layout.rank is None:
        return None
    if layout.group is not None and line[layout.group[0] : layout.group[1]] != "0":
        return None
    return int(line[layout.rank[0] : layout.rank[1]])


def _read(layout: _Layout, line: str, seconds: dict[tuple[str, str], int | None] | None = None) -> LineFacts:
    """The facts of `line`, at the places `layout` says (`seconds`: see `_timestamp`)."""
    rank = _rank(layout, line)
    host = line[layout.host[0] : layout.host[1]] if layout.host else None
    device = int(line[layout.device[0] : layout.device[1]]) if layout.device else None
    return LineFacts(rank, host, device, _timestamp(layout.stamps, line, seconds), layout.message_start)


def _timestamp(
    stamps: tuple[Stamp, ...], line: str, seconds: dict[tuple[str, str], int | None] | None = None
) -> Timestamp | None:
    """The first stamp that reads as a time, tried in `_STAMPS` order as the formats are.

    `seconds`, when given, remembers each stamp's time to the second by the text that states it
    (`1202 20:32:39`): a log prints many lines in one second, and reading the numbers is most of
    the work. Only the fraction is read again."""
    for kind, (start, end), fields in stamps:
        text = line[start:end]
        if kind == "uptime":
            return Timestamp("uptime", float(line[fields[0][0] : fields[0][1]]), text)
        # Every field but the fraction (iso, glog), which is the last.
        whole = fields if kind == "syslog" else fields[:-1]
        key = (kind, line[whole[0][0] : whole[-1][1]])
        secs = seconds.get(key, _UNREAD) if seconds is not None else _UNREAD
        if secs is _UNREAD:
            secs = _seconds(kind, [line[a:b] for a, b in whole])
            if seconds is not None:
                if len(seconds) >= _SECONDS_MAX:
                    seconds.clear()
                seconds[key] = secs
        if secs is None:
            continue
        if kind == "syslog":
            return Timestamp("syslog", float(secs), text.strip())
        a, b = fields[-1]
        fraction = _frac(line[a:b] if a >= 0 else "")
        return Timestamp(kind, secs + fraction, text if kind == "iso" else text.strip("[ :"))
    return None


def _seconds(kind: str, values: list[str]) -> int | None:
    """Seconds since the epoch (glog and syslog: in 2000) for a stamp's fields, down to the
    second; None when they name no time."""
    if kind == "iso":
        y, mo, d, h, mi, sec = values
        try:
            return calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(sec)))
        except (ValueError, OverflowError):
            return None
    if kind == "glog":
        mo, d, h, mi, sec = values
        if not 1 <= int(mo) <= 12:
            return None
        return calendar.timegm((2000, int(mo), int(d), int(h), int(mi), int(sec)))
    mon, d, h, mi, sec = values
    return calendar.timegm((2000, _MONTHS[mon], int(d), int(h), int(mi), int(sec)))


_UNREAD = object()
# Stamps remembered per log, to the second (a bound on memory whatever the log).
_SECONDS_MAX = 50_000


def parse_timestamp(line: str) -> Timestamp | None:
    """The first timestamp in the line, in any of the formats training logs use."""
    return _read(_layout(line), line).timestamp


def parse_line(line: str) -> LineFacts:
    """Rank, host, local device and timestamp of one log line, where the line carries them."""
    return _read(_layout(line), line)


# Characters of line shapes kept per log (a bound on memory whatever the log).
_LAYOUTS_CHARS = 8 << 20


class LineReader:
    """parse_line for the lines of one log, with each line shape's layout worked out once:
    a flood of one line with other numbers (retries, warnings per step) pays its regexes once."""

    def __init__(self) -> None:
        self._layouts: dict[bytes, _Layout] = {}
        self._chars = 0
        self._seconds: dict[tuple[str, str], int | None] = {}
        # The last line read and its layout: the matcher asks of one line its rank (`prefix`,
        # is the hit saturated?), then its facts, then its message for the probes.
        self._last: tuple[str | None, _Layout | None] = (None, None)
        # Rank numbers by how lines named them (`group_numbered`): off WorkNCCL's bare
        # `[Rank r]`, off a subgroup's `[PG x Rank r]`, and as a global rank (a launcher's
        # prefix, the default group's `[PG 0 Rank r]`).
        self._bare: set[int] = set()
        self._subgroup: set[int] = set()
        self._global: set[int] = set()

    def facts(self, line: str) -> LineFacts:
        layout = self._layout_of(line)
        facts = _read(layout, line, self._seconds)
        self._note(layout, line, facts.rank)
        return facts

    def prefix(self, line: str) -> tuple[int | None, int]:
        """`(rank, message_start)` of `line`, as `facts` gives them, without reading the
        timestamp: all the probes need of the lines a flood of error lines brings them."""
        layout = self._layout_of(line)
        rank = _rank(layout, line)
        self._note(layout, line, rank)
        return rank, layout.message_start

    def _note(self, layout: _Layout, line: str, rank: int | None) -> None:
        if layout.group is not None and rank is None and layout.rank is not None:
            self._subgroup.add(int(line[layout.rank[0] : layout.rank[1]]))
        elif rank is not None:
            (self._bare if layout.bare else self._global).add(rank)

    def group_numbered(self) -> set[int]:
        """Ranks that a bare `[Rank r]` named which are a subgroup's numbering, not global ones.

        WorkNCCL prints its timeout as `[Rank r] Watchdog caught ...` with the rank in the work's
        process group, and its process group says which group on the next lines (`[PG ID 2 PG
        GUID 3 Rank r] Exception ... detected by watchdog`, PyTorch 2.3+). A line is read before
        the ones after it, so a rank the bare line granted is withdrawn at the end: where the log
        names `r` only in a subgroup, never as a global rank (a launcher prefix, `PG 0`)."""
        return (self._bare & self._subgroup) - self._global

    def rank_span(self, line: str) -> tuple[int, int] | None:
        """Where `prefix` reads the rank of `line` (None: it has none). The same on every line of
        its shape (digits read as 0), so a line of that shape names the same rank as `line` when
        it holds the same characters there. A rank read off a process group's prefix counts only
        in the default group, so its span reaches back over the group's id."""
        layout = self._layout_of(line)
        if layout.rank is not None and layout.group is not None:
            return layout.group[0], layout.rank[1]
        return layout.rank

    def _layout_of(self, line: str) -> _Layout:
        last, layout = self._last
        if line is last and layout is not None:
            return layout
        shape = line.encode("utf-8", "surrogatepass").translate(DIGITS_AS_ZERO)
        layout = self._layouts.get(shape)
        if layout is None:
            self._chars += len(shape)
            if self._chars > _LAYOUTS_CHARS:
                self._layouts.clear()  # endlessly new shapes: stay bounded
                self._chars = len(shape)
            layout = self._layouts[shape] = _layout(line)
        self._last = (line, layout)
        return layout


def nccl_origin(line: str) -> tuple[str, int] | None:
    """`(host, pid)` of a line NCCL printed (`host:pid:tid [dev] ...`), behind any launcher prefix."""
    m = _NCCL_ORIGIN.search(line, 0, 300)
    return (m["host"], int(m["pid"])) if m else None


def strip_prefixes(line: str) -> str:
    """The message with launcher prefixes (host, rank) removed: what the program printed."""
    return line[_message_start(line) :]


def _message_start(line: str) -> int:
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
    return pos
