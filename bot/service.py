"""Use cases shared by the CLI and the Slack bot: diagnose, look up, show, answer follow-ups.

Masking happens here, first, before the matcher or anything else sees the text. This module
knows neither Slack nor Redis: the Slack edge adds quotas and threads around these calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property

from bot.followup import Answer, answer
from bot.ingest import NO_LIMITS, Limits, read_log
from bot.masking import Masker
from bot.matcher import Diagnosis, Matcher, Rule, default_matcher
from bot.matcher.lookup import Lookup, LookupHit
from bot.report import Report, build_report

# A line longer than this is cut for matching: the head carries the error text, and one
# newline-free gigabyte must not be held in memory.
MAX_LINE_BYTES = 1 << 20


@dataclass(frozen=True)
class Outcome:
    """A diagnosis of a masked log, with what masking removed (counts only, never values)."""

    diagnosis: Diagnosis
    report: Report
    masked: dict[str, int] = field(default_factory=dict)


def _whole_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Re-cut a byte stream on line boundaries, bounding any one line to MAX_LINE_BYTES."""
    carry = b""
    skipping = False  # inside an overlong line: drop bytes until its newline
    for chunk in chunks:
        if skipping:
            nl = chunk.find(b"\n")
            if nl < 0:
                continue
            chunk, skipping = chunk[nl:], False
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        carry = data[cut:]
        if len(carry) > MAX_LINE_BYTES:
            carry, skipping = carry[:MAX_LINE_BYTES], True
        if cut:
            yield data[:cut]
    if carry:
        yield carry + b"\n"


class Denpex:
    """The application: one matcher and its lookup index, shared by every request."""

    def __init__(self, matcher: Matcher | None = None):
        self.matcher = matcher or default_matcher()
        self.rulebook = self.matcher.rulebook

    @cached_property
    def _lookup(self) -> Lookup:
        return Lookup(self.matcher)

    def diagnose_stream(
        self,
        chunks: Iterable[bytes],
        *,
        limits: Limits = NO_LIMITS,
        mask: bool = True,
        on_bytes: Callable[[int], None] | None = None,
    ) -> Outcome:
        """Diagnose a log arriving as bytes (a file, a pipe, an upload). Raises InputError."""
        started = time.perf_counter()
        masker = Masker()
        scan = self.matcher.scan()
        raw_bytes = 0
        for piece in _whole_lines(read_log(chunks, limits)):
            raw_bytes += len(piece)
            if mask:
                piece = masker.mask(piece.decode("utf-8", "replace")).encode("utf-8", "surrogatepass")
            scan.feed(piece)
            if on_bytes:
                on_bytes(raw_bytes)
        diagnosis = scan.finish()
        elapsed = int((time.perf_counter() - started) * 1000)
        diagnosis = replace(diagnosis, stats=replace(diagnosis.stats, bytes=raw_bytes, elapsed_ms=elapsed))
        return Outcome(diagnosis, build_report(diagnosis, self.rulebook), dict(masker.counts) if mask else {})

    def diagnose_text(self, text: str, *, limits: Limits = NO_LIMITS) -> Outcome:
        """Diagnose a pasted log. Raises InputError for empty or binary text."""
        return self.diagnose_stream([text.encode("utf-8", "surrogatepass")], limits=limits)

    def lookup(self, query: str, limit: int = 5) -> list[LookupHit]:
        """Entries for a pasted error string (masked first: people paste secrets here too)."""
        masked = Masker().mask(query)
        return self._lookup.search(masked, limit)

    def entry(self, rule_id: str) -> Rule | None:
        return self.rulebook.get(rule_id.strip().lower())

    def follow_up(self, question: str, rule_id: str) -> Answer | None:
        rule = self.entry(rule_id)
        if rule is None:
            return None
        titles = {rid: r.title for rid in rule.related if (r := self.rulebook.get(rid))}
        return answer(question, rule, titles)


class QuotaExceeded(Exception):
    """The workspace has no diagnoses left today; `status` says when it resets."""

    def __init__(self, status: object):
        super().__init__("daily quota exhausted")
        self.status = status


def deliver_charged(store: object, team_id: str, post: Callable[[], object]) -> object:
    """Charge one diagnosis to the workspace and post it; refund when posting fails.

    The charge is atomic in the store (check-and-consume), so concurrent deliveries never
    overspend; a diagnosis that was not delivered costs nothing.
    """
    result = store.quotas.consume(team_id)  # type: ignore[attr-defined]
    if not result.allowed:
        raise QuotaExceeded(result.status)
    try:
        return post()
    except BaseException:
        # Refund the day that was charged, even if midnight passed while posting.
        store.quotas.refund(team_id, result.day)  # type: ignore[attr-defined]
        raise
