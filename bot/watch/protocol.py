"""The watch protocol: what `denpex watch` sends to the bot's ingest endpoint, and how the bot
reads it back. One JSON object per request, every log-derived field already masked on the node.

Both sides import this module, so the shape is written once: `Alert.to_json` on the node,
`parse_alert` (strict: unknown versions, missing or oversized fields are refused with a reason)
in the bot.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

PROTOCOL = "denpex-watch/1"
INGEST_PATH = "/denpex/alerts"
# An alert is a handful of masked lines; anything much larger is not one.
MAX_BODY_BYTES = 64 * 1024
MAX_EVIDENCE = 5
MAX_TEXT_CHARS = 500
MAX_RANKS = 4096
KINDS = ("alert", "final")
# Job ids are labels (a Slurm job id, a run name): they become part of Redis keys.
JOB_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_RULE_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")
_NONCE = re.compile(r"[0-9a-f]{32}")


class ProtocolError(ValueError):
    """The body is not a watch-protocol alert; the message says what is wrong."""


@dataclass(frozen=True)
class EvidenceLine:
    line: int
    rank: int | None
    text: str  # masked on the node


@dataclass(frozen=True)
class Countdown:
    """The other ranks are blocked in a collective; their watchdog fires after `timeout_ms`."""

    timeout_ms: int
    timeout_known: bool  # read from the log, or the default assumed
    waiting_ranks: list[int]
    op: str | None  # ALLREDUCE, _ALLGATHER_BASE ... when the log has named it
    fires_in_s: int


@dataclass(frozen=True)
class JobExit:
    code: int | None  # the exit status, or None when a signal ended the job
    signal: str | None


@dataclass(frozen=True)
class Alert:
    """One alert of one job. `root` is an entry id, or None for a failure no entry knows."""

    job: str
    kind: str  # alert: a root cause was found while the job runs; final: the job ended
    root: str | None
    confidence: str | None
    initiating_rank: int | None
    host: str | None  # masked
    ranks: list[int]
    evidence: list[EvidenceLine]
    collateral: list[tuple[str, list[int]]] = field(default_factory=list)
    unmatched: str | None = None  # masked
    countdown: Countdown | None = None
    exit: JobExit | None = None

    @property
    def key(self) -> str:
        """What makes an alert one per job: its root cause (a final alert has its own key)."""
        return f"{self.kind}:{self.root or 'unmatched'}"

    def to_json(self, nonce: str, sent_at: float) -> bytes:
        body = {"protocol": PROTOCOL, "nonce": nonce, "sent_at": round(sent_at, 3), **asdict(self)}
        body["collateral"] = [{"id": cid, "ranks": ranks} for cid, ranks in self.collateral]
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True)
class Envelope:
    alert: Alert
    nonce: str
    sent_at: float


def _need(doc: dict[str, Any], name: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
    value = doc.get(name)
    if value is None and optional:
        return None
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise ProtocolError(f"field {name!r} is missing or not a {getattr(kind, '__name__', 'value')}")
    return value


def _text(doc: dict[str, Any], name: str, optional: bool = True) -> str | None:
    value = _need(doc, name, str, optional)
    if value is not None and len(value) > MAX_TEXT_CHARS:
        raise ProtocolError(f"field {name!r} is longer than {MAX_TEXT_CHARS} characters")
    return value


def _ranks(value: Any, name: str) -> list[int]:
    if not isinstance(value, list) or len(value) > MAX_RANKS or not all(
        isinstance(r, int) and not isinstance(r, bool) and 0 <= r < 1_000_000 for r in value
    ):
        raise ProtocolError(f"field {name!r} must be a list of at most {MAX_RANKS} ranks")
    return value


def _rank(doc: dict[str, Any], name: str) -> int | None:
    value = _need(doc, name, int, optional=True)
    if value is not None and not 0 <= value < 1_000_000:
        raise ProtocolError(f"field {name!r} is not a rank")
    return value


def parse_alert(raw: bytes) -> Envelope:
    """The alert a request body carries; ProtocolError (with the reason) for anything else."""
    if len(raw) > MAX_BODY_BYTES:
        raise ProtocolError(f"body of {len(raw):,} bytes; an alert is at most {MAX_BODY_BYTES:,}")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProtocolError("body is not JSON") from None
    if not isinstance(doc, dict):
        raise ProtocolError("body is not a JSON object")
    if doc.get("protocol") != PROTOCOL:
        raise ProtocolError(f"protocol must be {PROTOCOL!r} (got {str(doc.get('protocol'))[:40]!r}): update denpex on the node")
    nonce = _need(doc, "nonce", str)
    if not _NONCE.fullmatch(nonce):
        raise ProtocolError("nonce must be 32 lower-case hex digits")
    sent_at = _need(doc, "sent_at", (int, float))
    if not math.isfinite(sent_at):
        raise ProtocolError("sent_at is not a time")
    job = _need(doc, "job", str)
    if not JOB_ID.fullmatch(job):
        raise ProtocolError("job must be 1-64 letters, digits or . _ : -")
    kind = _need(doc, "kind", str)
    if kind not in KINDS:
        raise ProtocolError(f"kind must be one of {', '.join(KINDS)}")
    root = _need(doc, "root", str, optional=True)
    if root is not None and not _RULE_ID.fullmatch(root):
        raise ProtocolError("root is not an entry id")
    confidence = _need(doc, "confidence", str, optional=True)
    if confidence not in (None, "high", "medium", "low"):
        raise ProtocolError("confidence must be high, medium or low")
    evidence_in = _need(doc, "evidence", list)
    if len(evidence_in) > MAX_EVIDENCE:
        raise ProtocolError(f"at most {MAX_EVIDENCE} evidence lines")
    evidence = []
    for e in evidence_in:
        if not isinstance(e, dict):
            raise ProtocolError("evidence lines must be objects")
        line = _need(e, "line", int)
        evidence.append(EvidenceLine(line, _rank(e, "rank"), _text(e, "text", optional=False) or ""))
    collateral = []
    for c in _need(doc, "collateral", list)[:20]:
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not _RULE_ID.fullmatch(c["id"]):
            raise ProtocolError("collateral items must be {id, ranks}")
        collateral.append((c["id"], _ranks(c.get("ranks"), "collateral ranks")))
    countdown = None
    cd = _need(doc, "countdown", dict, optional=True)
    if cd is not None:
        op = _need(cd, "op", str, optional=True)
        countdown = Countdown(
            timeout_ms=_need(cd, "timeout_ms", int), timeout_known=bool(cd.get("timeout_known")),
            waiting_ranks=_ranks(cd.get("waiting_ranks"), "waiting_ranks"),
            op=op[:40] if op else None, fires_in_s=_need(cd, "fires_in_s", int),
        )  # fmt: skip
    job_exit = None
    ex = _need(doc, "exit", dict, optional=True)
    if ex is not None:
        sig = _need(ex, "signal", str, optional=True)
        job_exit = JobExit(_need(ex, "code", int, optional=True), sig[:20] if sig else None)
    alert = Alert(
        job=job, kind=kind, root=root, confidence=confidence, initiating_rank=_rank(doc, "initiating_rank"),
        host=_text(doc, "host"), ranks=_ranks(doc.get("ranks", []), "ranks"), evidence=evidence,
        collateral=collateral, unmatched=_text(doc, "unmatched"), countdown=countdown, exit=job_exit,
    )  # fmt: skip
    return Envelope(alert, nonce, float(sent_at))
