"""One watched job: its output matched as it arrives, alerts decided and sent.

The passthrough threads (or the file follower) hand raw pieces to `take`, which only queues
them: matching runs on a thread of its own, so a slow moment of the matcher never holds the
child's output back. Each source (stdout, stderr, a rank's log file) keeps its own partial
line, so two streams writing at once never splice their lines; whole lines of a file whose name
carries a rank get `[rankN]:` in front, as torchrun --tee writes and the CLI's folders do.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.service import MAX_LINE_BYTES, Denpex, LiveDiagnosis, Outcome
from bot.watch.alerting import AlertPolicy, TimeoutFacts, alert_text, countdown, to_alert
from bot.watch.protocol import Alert, JobExit

log = logging.getLogger("denpex.watch")

# Past this much output waiting to be matched, pieces are passed through unmatched (counted):
# memory stays bounded if a job outruns the matcher.
MAX_BACKLOG_BYTES = 256 << 20
# How long to let the other stream catch up before an alert is decided.
SETTLE_S = 0.05
BATCH_BYTES = 1 << 20
BATCH_WAIT_S = 0.1
BATCH_FROM_BYTES = 32 * 1024


@dataclass
class _Source:
    prefix: bytes = b""
    carry: bytes = b""
    skipping: bool = False  # inside an overlong line: dropped up to its newline
    gap: bool = False  # pieces were dropped before the next one (set under the session's lock)

    def lines(self, data: bytes) -> bytes:
        """The whole lines `data` completes, each bounded to MAX_LINE_BYTES, prefixed."""
        if self.gap:
            self.gap, self.carry, self.skipping = False, b"", True
        if self.skipping:
            nl = data.find(b"\n")
            if nl < 0:
                return b""
            data, self.skipping = data[nl:], False
        data = self.carry + data
        cut = data.rfind(b"\n") + 1
        self.carry = data[cut:]
        if len(self.carry) > MAX_LINE_BYTES:
            self.carry, self.skipping = b"", True
        return self._prefixed(data[:cut])

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
        self._queue: queue.SimpleQueue[tuple[str, bytes, float] | None] = queue.SimpleQueue()
        self._backlog = 0
        self._lock = threading.Lock()
        self._broken = False
        self._seen_at: float | None = None  # when the lines that matched were written
        self._thread = threading.Thread(target=self._run, name="denpex-match", daemon=True)
        self._thread.start()

    def add_source(self, name: str, rank: int | None) -> None:
        """Name a source before its data comes (a rank's log file)."""
        with self._lock:
            self._sources[name] = _Source(b"[rank%d]:" % rank if rank is not None else b"")

    def take(self, source: str, data: bytes, age_s: float = 0.0) -> None:
        """Queue a piece; `age_s`: how long ago it was written (a log file's backlog)."""
        with self._lock:
            if self._backlog + len(data) > MAX_BACKLOG_BYTES:
                if not self.unmatched_bytes:
                    self.say("denpex watch: the job writes faster than its output can be matched; "
                             "some passes through unmatched (the job is not slowed)")
                self.unmatched_bytes += len(data)
                src = self._sources.setdefault(source, _Source())
                src.gap = True  # the source's next piece starts inside a line: skip to its end
                return
            self._backlog += len(data)
        self._queue.put((source, data, age_s))

    def end(self, status: int | None, stopped: bool = False) -> Outcome | None:
        """The job is over (`status` as subprocess gives it, None when unknown: files): match
        what is left, and send the final alert when the job failed or an alert went out.
        `stopped`: someone stopped it (a Ctrl-C, a scheduler's SIGTERM passed on): that alone
        is not a failure to tell the channel about."""
        self._queue.put(None)
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

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._broken:
                continue
            try:
                if self._process_batch(item):
                    # Something new matched. The other stream may hold lines written just
                    # before (stdout's `TIMEOUT(ms)` line beside stderr's OOM): two pipes keep
                    # no order between them, so take what the pumps have before deciding.
                    time.sleep(SETTLE_S)
                    while not self._queue.empty():
                        more = self._queue.get()
                        if more is None:
                            self._queue.put(None)
                            break
                        self._process(more[0], more[1])
                    self._consider()
            except Exception:
                # A bug here must not touch the job: stop matching, keep passing output through.
                log.exception("matching stopped")
                self.say("denpex watch: internal error, matching stopped (the job is not affected)")
                self._broken = True

    def _process_batch(self, item: tuple[str, bytes, float]) -> bool:
        """`item` and what else comes within BATCH_WAIT_S, up to BATCH_BYTES, joined per
        source: the matcher and the masker cost less per byte on larger pieces (about a quarter
        less at 1 MB than at the pipe's 64 KB), for a tenth of a second of latency."""
        joined: dict[str, list[bytes]] = {item[0]: [item[1]]}
        size, age = len(item[1]), item[2]
        arrived = self.clock()
        # Only a job writing fast fills the pipe's 64 KB: then waiting a little pays; a few lines
        # (an error at last) are matched at once.
        deadline = time.monotonic() + (BATCH_WAIT_S if size >= BATCH_FROM_BYTES else 0.0)
        while size < BATCH_BYTES:
            try:
                more = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if more is None:
                self._queue.put(None)
                break
            joined.setdefault(more[0], []).append(more[1])
            size += len(more[1])
            age = max(age, more[2])
        changed = False
        for source, parts in joined.items():
            changed = self._process(source, b"".join(parts)) or changed
        if changed:
            self._seen_at = arrived - age
        return changed

    def _process(self, source: str, data: bytes) -> bool:
        with self._lock:
            self._backlog -= len(data)
            src = self._sources.get(source)
            if src is None:
                src = self._sources[source] = _Source()
        lines = src.lines(data)
        return self._feed(lines) if lines else False

    def _feed(self, lines: bytes) -> bool:
        """Match whole lines; True when a rule matched something new."""
        self._facts.read(lines)
        return self.live.feed(lines)

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


def _signal_name(signum: int) -> str:
    import signal

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
