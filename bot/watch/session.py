"""One watched job: its output matched as it arrives, alerts decided and sent.

The passthrough threads (or the file follower) hand raw pieces to `take`, which only appends
them to a list (a job writing line by line hands over thousands a second). Matching runs on a
thread of its own, so a slow moment of the matcher never holds the child's output back; it
wakes when output comes, lets it gather for FEED_EVERY_S (or until FEED_BYTES wait) and feeds
it in one piece per source: the matcher, the masker and the line cutting pay their per-call
costs a few times a second, not once per pipe read, and no piece wakes the thread but the
first of a batch. An error line is matched within about FEED_EVERY_S of being written.

Each source (stdout, stderr, a rank's log file) keeps its own partial line, so two streams
writing at once never splice their lines; whole lines of a file whose name carries a rank get
`[rankN]:` in front, as torchrun --tee writes and the CLI's folders do.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bot.service import MAX_LINE_BYTES, Denpex, LiveDiagnosis, Outcome
from bot.spaces import ascii_spaces
from bot.watch.alerting import AlertPolicy, TimeoutFacts, alert_text, countdown, to_alert
from bot.watch.protocol import Alert, JobExit

log = logging.getLogger("denpex.watch")

# Past this much output waiting to be matched, pieces are passed through unmatched (counted):
# memory stays bounded if a job outruns the matcher.
MAX_BACKLOG_BYTES = 256 << 20
# How long to let the other stream catch up before an alert is decided.
SETTLE_S = 0.05
# Output is matched this long after its first piece arrives, or as soon as this much waits.
FEED_EVERY_S = 0.25
FEED_BYTES = 4 << 20
# A batch is fed in slices of about this many bytes (whole lines): some of the matcher's and the
# masker's work is one C call over what they are given (an `re` substitution emptying a settled
# flood, about 2 ms a MB; a regex search), which holds the interpreter, and the pump waits for
# it; at a MB that wait stays under the interpreter's 5 ms switch interval, which bounds it for
# any Python code of this thread anyway. Smaller slices cost the matcher and the masker their
# per-piece work four times as often (c10d-retry at 10 MB/s: 198 blanking passes in 256 KB
# slices, 53 in 1 MB ones), and the matcher's flood blanking retires a shape after two pieces
# that empty little of it: a replay of c10d-retry's log cut into 256 KB slices per stream had it
# retired early (988 lines emptied of 50 MB, the scan at 33 MB/s; 229,603 and 79 MB/s in 1 MB).
FEED_SLICE_BYTES = 1 << 20
# A source's pieces are cut into lines this much under FEED_SLICE_BYTES at a time, so that a
# group with the partial line carried before it is one slice, not copied again into two.
GROUP_ROOM_BYTES = 64 << 10

Piece = tuple[str, bytes, float]  # (source, data, how long ago it was written)


@dataclass
class _Source:
    prefix: bytes = b""
    carry: bytes = b""
    skipping: bool = False  # inside an overlong line: dropped up to its newline
    gap: bool = False  # pieces were dropped before the next one (set under the session's lock)

    def lines(self, parts: list[bytes]) -> bytes:
        """The whole lines `parts` (the source's next pieces, in order) complete, each bounded to
        MAX_LINE_BYTES, prefixed. One copy of the bytes: the carried partial line and the pieces
        up to the last newline joined; the partial line after it (within the last pieces) kept."""
        if self.gap:
            self.gap, self.carry, self.skipping = False, b"", True
        if self.skipping:
            for i, part in enumerate(parts):
                nl = part.find(b"\n")
                if nl >= 0:
                    parts = [part[nl:], *parts[i + 1 :]]
                    self.skipping = False
                    break
            else:
                return b""
        last = len(parts) - 1
        while last >= 0 and (cut := parts[last].rfind(b"\n") + 1) == 0:
            last -= 1
        if last < 0:  # no newline yet: all of it is the line's start
            head, self.carry = b"", b"".join([self.carry, *parts])
        else:
            piece = parts[last]
            whole = [*parts[:last], piece if cut == len(piece) else piece[:cut]]
            head = b"".join([self.carry, *whole]) if self.carry or len(whole) > 1 else whole[0]
            self.carry = b"".join([piece[cut:], *parts[last + 1 :]])
        if len(self.carry) > MAX_LINE_BYTES:
            self.carry, self.skipping = b"", True
        return self._prefixed(head)

    def rest(self) -> bytes:
        tail, self.carry = self.carry, b""
        return self._prefixed(tail + b"\n") if tail else b""

    def _prefixed(self, block: bytes) -> bytes:
        if not self.prefix or not block:
            return block
        return self.prefix + block[:-1].replace(b"\n", b"\n" + self.prefix) + b"\n"


@dataclass
class WatchSession:
    """Feed with `take(source, data)`; `end(status)` once the job is over."""

    app: Denpex
    job: str
    say: Callable[[str], None]
    send: Callable[[Alert], None] | None = None
    clock: Callable[[], float] = time.monotonic
    live: LiveDiagnosis = field(init=False)
    policy: AlertPolicy = field(default_factory=AlertPolicy)
    sent: list[Alert] = field(default_factory=list)
    unmatched_bytes: int = 0

    def __post_init__(self) -> None:
        self.live = self.app.live()
        self._facts = TimeoutFacts()
        self._sources: dict[str, _Source] = {}
        # What the pumps handed over and the matching thread has not taken yet, under `_ready`'s
        # lock: the pieces, their bytes, when the first of them arrived (time.monotonic).
        self._ready = threading.Condition(threading.Lock())
        self._pending: list[Piece] = []
        self._pending_bytes = 0
        self._first_at = 0.0
        self._ending = False
        self._broken = False
        self._seen_at: float | None = None  # when the lines that matched were written
        self._thread = threading.Thread(target=self._run, name="denpex-match", daemon=True)
        self._thread.start()

    def add_source(self, name: str, rank: int | None) -> None:
        """Name a source before its data comes (a rank's log file)."""
        with self._ready:
            self._sources[name] = _Source(b"[rank%d]:" % rank if rank is not None else b"")

    def take(self, source: str, data: bytes, age_s: float = 0.0) -> None:
        """Hand a piece over; `age_s`: how long ago it was written (a log file's backlog).
        Called for every read of the job's pipes: it only appends, and wakes the matching
        thread when the first piece comes or FEED_BYTES wait."""
        with self._ready:
            size = self._pending_bytes + len(data)
            if size > MAX_BACKLOG_BYTES:
                if not self.unmatched_bytes:
                    self.say("denpex watch: the job writes faster than its output can be matched; "
                             "some passes through unmatched (the job is not slowed)")
                self.unmatched_bytes += len(data)
                src = self._sources.setdefault(source, _Source())
                src.gap = True  # the source's next piece starts inside a line: skip to its end
                return
            if not self._pending:
                self._first_at = time.monotonic()
                self._ready.notify()
            elif size >= FEED_BYTES > self._pending_bytes:
                self._ready.notify()
            self._pending.append((source, data, age_s))
            self._pending_bytes = size

    def end(self, status: int | None, stopped: bool = False) -> Outcome | None:
        """The job is over (`status` as subprocess gives it, None when unknown: files): match
        what is left, and send the final alert when the job failed or an alert went out.
        `stopped`: someone stopped it (a Ctrl-C, a scheduler's SIGTERM passed on): that alone
        is not a failure to tell the channel about."""
        with self._ready:
            self._ending = True
            self._ready.notify()
        self._thread.join()
        if self._broken:
            return None
        for src in self._sources.values():
            rest = src.rest()
            if rest:
                self._feed(rest)
        outcome = self.live.finish()
        if status is None:
            return outcome
        if self.unmatched_bytes:
            self.say(f"denpex watch: {self.unmatched_bytes / 1e6:,.0f} MB of output came faster than it could be "
                     "matched and passed through unmatched")
        failed = status != 0 and (outcome.report.matched or not stopped)
        if self.policy.final_wanted(failed):
            job_exit = JobExit(None, _signal_name(-status)) if status < 0 else JobExit(status, None)
            self._emit(to_alert(self.job, "final", outcome, job_exit=job_exit), outcome)
        return outcome

    def _next(self, wait: bool = True) -> tuple[list[Piece], float] | None:
        """The pieces waiting and when the first came: once FEED_EVERY_S has passed since then,
        FEED_BYTES wait or the job is over (`wait`: for them to come at all). None: over."""
        with self._ready:
            if wait:
                while not self._pending and not self._ending:
                    self._ready.wait()
                while not self._ending and self._pending_bytes < FEED_BYTES:
                    left = self._first_at + FEED_EVERY_S - time.monotonic()
                    if left <= 0:
                        break
                    self._ready.wait(left)
            if not self._pending and self._ending:
                return None
            batch, first = self._pending, self._first_at
            if self._pending_bytes <= FEED_BYTES:
                self._pending, self._pending_bytes = [], 0
                return batch, first
            # The matcher fell behind: take FEED_BYTES' worth (memory stays the backlog cap and
            # one batch, not two copies of the backlog); the rest, as old, goes next without waiting.
            size = n = 0
            while size < FEED_BYTES:
                size += len(batch[n][1])
                n += 1
            self._pending, self._pending_bytes = batch[n:], self._pending_bytes - size
            return batch[:n], first

    def _run(self) -> None:
        while (got := self._next()) is not None:
            if self._broken:
                continue
            try:
                if self._process_batch(*got):
                    # Something new matched. The other stream may hold lines written just
                    # before (stdout's `TIMEOUT(ms)` line beside stderr's OOM): two pipes keep
                    # no order between them, so take what the pumps have before deciding.
                    time.sleep(SETTLE_S)
                    more = self._next(wait=False)
                    if more is not None:
                        for source, parts in self._joined(more[0]).items():
                            self._process(source, parts)
                    self._consider()
            except Exception:
                # A bug here must not touch the job: stop matching, keep passing output through.
                log.exception("matching stopped")
                self.say("denpex watch: internal error, matching stopped (the job is not affected)")
                self._broken = True

    @staticmethod
    def _joined(batch: list[Piece]) -> dict[str, list[bytes]]:
        """The batch's pieces per source, in order (joined once, with the source's carry)."""
        parts: dict[str, list[bytes]] = {}
        for source, data, _age in batch:
            parts.setdefault(source, []).append(data)
        return parts

    def _process_batch(self, batch: list[Piece], first_at: float) -> bool:
        """The pieces of one batch, joined per source: the matcher and the masker are called a
        few times a second, on whole lines, whatever the size of the job's writes."""
        changed = False
        for source, parts in self._joined(batch).items():
            changed = self._process(source, parts) or changed
        if changed:
            # Their time: when the first piece came (the lines that matched came then or later),
            # less the age of the oldest piece (a file's backlog).
            self._seen_at = self.clock() - (time.monotonic() - first_at) - max(age for _, _, age in batch)
        return changed

    def _process(self, source: str, parts: list[bytes]) -> bool:
        """A source's pieces, cut into whole lines and matched a group of about FEED_SLICE_BYTES
        at a time: one copy of the bytes (the group's join), where joining the whole batch and
        then slicing it copied them three times (~0.5 ms a MB of a core's time)."""
        with self._ready:
            src = self._sources.get(source)
            if src is None:
                src = self._sources[source] = _Source()
        changed = False
        for group in _groups(parts, FEED_SLICE_BYTES - GROUP_ROOM_BYTES):
            lines = src.lines(group)
            if lines:
                changed = self._feed(lines) or changed
        return changed

    def _feed(self, lines: bytes) -> bool:
        """Match whole lines, FEED_SLICE_BYTES at a time; True when a rule matched something new."""
        changed = False
        lines = ascii_spaces(lines)  # once, for the matcher, the masker and the timeout facts alike
        for piece in _slices(lines, FEED_SLICE_BYTES):
            self._facts.read(piece)
            changed = self.live.feed(piece) or changed
        return changed

    def _consider(self) -> None:
        outcome = self.live.interim()
        if self.policy.wants(outcome):
            waited = max(0.0, self.clock() - (self._seen_at or self.clock()))
            cd = countdown(outcome, self.live.known_ranks(), self._facts, waited)
            self._emit(to_alert(self.job, "alert", outcome, cd), outcome)
        self._seen_at = None

    def _emit(self, alert: Alert, outcome: Outcome) -> None:
        rule = outcome.report.root
        self.say(alert_text(alert, rule.title if rule else None, rule.fix.summary if rule else None))
        self.sent.append(alert)
        if self.send is not None:
            self.send(alert)


def _groups(parts: list[bytes], size: int) -> Iterator[list[bytes]]:
    """`parts` in runs, in order, of at most `size` bytes (a larger part is a run of its own)."""
    run: list[bytes] = []
    total = 0
    for part in parts:
        if run and total + len(part) > size:
            yield run
            run, total = [], 0
        run.append(part)
        total += len(part)
    if run:
        yield run


def _slices(data: bytes, size: int) -> Iterator[bytes]:
    """`data` (whole lines) in pieces of about `size` bytes, each cut after a newline (a longer
    line is one piece)."""
    if len(data) <= size:
        yield data
        return
    at, end = 0, len(data)
    while at < end:
        cut = data.rfind(b"\n", at, at + size) + 1
        if cut <= at:
            cut = data.find(b"\n", at + size) + 1 or end
        yield data[at:cut]
        at = cut


def _signal_name(signum: int) -> str:
    import signal

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
