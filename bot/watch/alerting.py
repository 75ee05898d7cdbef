"""When a watched job deserves an alert, and what the alert says.

One alert per root cause per job: the interim verdict is asked whenever a rule matched
something new, and an alert goes out the first time a given entry stands as the root cause
with enough weight to wake people (a critical or high-severity entry, at high or medium
confidence). The final alert, when the job ended with a failure, carries the whole verdict.

The time left: in a multi-rank job the ranks that did not fail block in their next collective
until the NCCL watchdog fires, `Timeout(ms)` after they started waiting (10 minutes by default
in PyTorch 2.x; the log often states it: `TIMEOUT(ms): 600000` in ProcessGroupNCCL's options,
`Timeout(ms)=600000` in a WorkNCCL line, HF's `ddp_timeout=1800`).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

from bot.literals import Words
from bot.report import ranks_text
from bot.service import Outcome
from bot.watch.protocol import Alert, Countdown, EvidenceLine, JobExit

# PyTorch's ProcessGroupNCCL default since 2.2 (default_pg_nccl_timeout); 30 minutes before.
DEFAULT_TIMEOUT_MS = 600_000
LIVE_SEVERITIES = frozenset({"critical", "high"})
LIVE_CONFIDENCES = frozenset({"high", "medium"})

_TIMEOUT_MS = re.compile(rb"(?i:timeout\(ms\))\s*[=:]\s*(\d{3,9})")
_DDP_TIMEOUT_S = re.compile(rb"\bddp_timeout=(\d{1,7})\b")
_OP_TYPE = re.compile(rb"OpType=([A-Z_]{3,40})")


@dataclass
class TimeoutFacts:
    """What the raw log says about the collective timeout, read as it streams past."""

    timeout_ms: int | None = None
    op: str | None = None

    def read(self, piece: bytes) -> None:
        # These lines are rare and the job may write 10 MB/s: one Hyperscan pass finds where
        # they may be (each substring search or regex run over a whole batch would cost about
        # as much as that pass alone), and each regex is tried only there.
        timeout = op = None
        ddp: list[int] = []
        for word, start, _end in _words().find(piece):
            if word == _TIMEOUT_WORD:
                m = _TIMEOUT_MS.match(piece, start)
                timeout = m or timeout  # the last one the log states
            elif word == _DDP_WORD:
                ddp.append(start)
            elif op is None:
                op = _OP_TYPE.match(piece, start)  # case-sensitive: the word was found caselessly
        if timeout:
            self.timeout_ms = int(timeout[1])
        if self.timeout_ms is None:
            for start in ddp:
                m = _DDP_TIMEOUT_S.match(piece, start)
                if m:
                    self.timeout_ms = int(m[1]) * 1000
                    break
        if op:
            self.op = op[1].decode()


_TIMEOUT_WORD, _DDP_WORD, _OP_WORD = range(3)


@functools.cache
def _words() -> Words:
    return Words(["timeout(ms)", "ddp_timeout=", "OpType="], fixed=True)


def countdown(outcome: Outcome, known_ranks: list[int], facts: TimeoutFacts, waited_s: float) -> Countdown | None:
    """The other ranks' wait, when the root cause is one rank's own failure in a multi-rank job."""
    d = outcome.diagnosis
    root = outcome.report.root
    if root is None or root.role != "root" or d.initiating_rank is None:
        return None
    failed = {d.initiating_rank, *(d.root.ranks if d.root else [])}
    waiting = [r for r in known_ranks if r not in failed]
    if not waiting:
        return None
    timeout = facts.timeout_ms or DEFAULT_TIMEOUT_MS
    left = max(0, math.ceil(timeout / 1000 - waited_s))
    return Countdown(timeout, facts.timeout_ms is not None, waiting, facts.op, left)


def countdown_text(c: Countdown) -> str:
    """"ranks 0-6 are waiting in ALLREDUCE; their watchdog (Timeout(ms)=600000) fires in ~9
    minutes: stop the job now"."""
    their = "its" if len(c.waiting_ranks) == 1 else "their"
    where = f"waiting in {c.op}" if c.op else f"blocked in {their} next collective"
    minutes = max(1, round(c.fires_in_s / 60))
    timeout = f"Timeout(ms)={c.timeout_ms}" if c.timeout_known else f"the default {c.timeout_ms // 60000}-minute timeout"
    who = f"rank {c.waiting_ranks[0]} is" if len(c.waiting_ranks) == 1 else f"ranks {ranks_text(c.waiting_ranks)} are"
    if c.fires_in_s <= 0:  # a backlog older than the timeout
        return f"{who} {where}; {their} watchdog ({timeout}) has fired by now: stop what is left of the job"
    return f"{who} {where}; {their} watchdog ({timeout}) fires in ~{minutes} minute{'s' if minutes != 1 else ''}: stop the job now"


def to_alert(job: str, kind: str, outcome: Outcome, cd: Countdown | None = None, job_exit: JobExit | None = None) -> Alert:
    """The wire alert of a masked outcome (every text field is MaskedText already)."""
    d = outcome.diagnosis
    root = d.root
    host = next((e.host for e in (root.evidence if root else []) if e.rank == d.initiating_rank and e.host), None)
    return Alert(
        job=job, kind=kind, root=root.id if root else None, confidence=root.confidence if root else None,
        initiating_rank=d.initiating_rank, host=host, ranks=list(root.ranks) if root else [],
        evidence=[EvidenceLine(e.line, e.rank, e.text) for e in (root.evidence if root else [])][:5],
        collateral=[(c.id, list(c.ranks)) for c in d.collateral][:20],
        unmatched=d.unmatched, countdown=cd, exit=job_exit,
    )  # fmt: skip


@dataclass
class AlertPolicy:
    """Which interim verdicts become alerts: each root cause once per job."""

    alerted: list[str] = field(default_factory=list)

    def wants(self, outcome: Outcome) -> bool:
        rule = outcome.report.root
        if rule is None or rule.id in self.alerted:
            return False
        if rule.severity not in LIVE_SEVERITIES or outcome.report.confidence not in LIVE_CONFIDENCES:
            return False
        self.alerted.append(rule.id)
        return True

    def final_wanted(self, failed: bool) -> bool:
        """A job that failed always gets its final word; one that ended well only when an
        alert went out (the alert is then corrected: the job survived)."""
        return failed or bool(self.alerted)


def alert_text(alert: Alert, title: str | None, fix: str | None) -> str:
    """The alert as lines for a terminal (stderr): what `denpex watch` prints beside sending it."""
    head = "job ended" if alert.kind == "final" else "ALERT"
    lines = []
    if alert.root:
        lines.append(f"denpex watch: {head}: {title or alert.root} ({alert.root}, {alert.confidence} confidence)")
    elif alert.unmatched:
        lines.append(f"denpex watch: {head}: no known failure matched; most telling line: {alert.unmatched.strip()}")
    else:
        lines.append(f"denpex watch: {head}: no failure found in the log")
    if alert.initiating_rank is not None:
        on = f" on {alert.host}" if alert.host else ""
        lines.append(f"denpex watch:   initiating rank {alert.initiating_rank}{on}")
    for e in alert.evidence[:3]:
        rank = f" rank {e.rank}" if e.rank is not None else ""
        lines.append(f"denpex watch:   line {e.line}{rank}: {e.text.strip()[:300]}")
    if fix:
        lines.append(f"denpex watch:   fix: {fix}")
    if alert.countdown:
        lines.append(f"denpex watch:   {countdown_text(alert.countdown)}")
    if alert.exit:
        how = f"signal {alert.exit.signal}" if alert.exit.signal else f"exit code {alert.exit.code}"
        lines.append(f"denpex watch:   the job ended with {how}")
    return "\n".join(lines) + "\n"
