"""Use cases shared by the CLI and the Slack bot: diagnose, look up, show, answer follow-ups.

The matcher reads the raw log; masking happens here, at the egress: a diagnosis that leaves
this module carries its evidence and unmatched line as `MaskedText`, which the store and the
Slack layer require. A Masker reads the whole log as it streams past, for the names it must
learn (`/home/alice`, NCCL prefix hosts), and masks only what leaves. This module knows
neither Slack nor Redis: the Slack edge adds quotas and threads around these calls.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

from bot.ingest import NO_LIMITS, Limits, ReadStatus, read_log
from bot.masking import MaskedText, Masker
from bot.matcher import Diagnosis, Evidence, Matcher, Rule, Stats, default_matcher
from bot.matcher.lookup import Lookup, LookupHit
from bot.report import Report, build_report
from bot.spaces import ascii_spaces
from bot.unwrap import MAX_UNWRAP_BYTES, unwrap_terminal

if TYPE_CHECKING:
    # Follow-ups and thread context live with the store (redis): the command line, which
    # installs without the Slack extra, must import this module without them.
    from bot.followup.kb_search import KbIndex
    from bot.followup.thread_question import FollowUp, FollowupStore
    from bot.store.threads import ThreadContext

log = logging.getLogger("denpex")

# A line longer than this is cut for matching: the head carries the error text, and one
# newline-free gigabyte must not be held in memory.
MAX_LINE_BYTES = 1 << 20


@dataclass(frozen=True)
class Outcome:
    """A diagnosis whose log-derived text is masked (unless the CLI user asked for raw), with
    what masking removed from it (counts only, never values)."""

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
        sources: Iterable[ReadStatus] = (),
        whole: bool = False,
    ) -> Outcome:
        """Diagnose a log arriving as bytes (a file, a pipe, an upload). Raises InputError.
        `whole`: `chunks` is the whole log in memory (a paste), not a stream."""
        started = time.perf_counter()
        masker = Masker()
        scan = self.matcher.scan(whole=whole)
        raw_bytes = 0
        unwrapped = 0

        def counted(stream: Iterable[bytes]) -> Iterator[bytes]:
            # Bytes of the log as read: before long lines are cut and a final newline is added.
            nonlocal raw_bytes
            for chunk in stream:
                raw_bytes += len(chunk)
                yield chunk

        status = ReadStatus()
        for piece in _whole_lines(counted(read_log(chunks, limits, status))):
            piece = ascii_spaces(piece)  # a log copied from a web page: no-break spaces
            if unwrapped < MAX_UNWRAP_BYTES:
                # A log copied out of tmux: lines cut at its width. That is a screenful, so only
                # the log's first MAX_UNWRAP_BYTES are looked at, in whole lines (a file's first
                # piece is larger than that).
                budget = MAX_UNWRAP_BYTES - unwrapped
                head = len(piece) if len(piece) <= budget else piece.rfind(b"\n", 0, budget) + 1
                unwrapped = unwrapped + head if head else MAX_UNWRAP_BYTES
                piece = unwrap_terminal(piece[:head]) + piece[head:]
            scan.feed(piece)
            if mask:
                masker.learn(piece)
            if on_bytes:
                on_bytes(raw_bytes)
        diagnosis = scan.finish()
        if mask:
            diagnosis = mask_diagnosis(diagnosis, masker)
        elapsed = int((time.perf_counter() - started) * 1000)
        diagnosis = replace(
            diagnosis,
            stats=replace(
                diagnosis.stats,
                bytes=raw_bytes,
                elapsed_ms=elapsed,
                # `sources`: reads that fed `chunks` already inflated (each file of a message).
                truncated=status.truncated or any(s.truncated for s in sources),
            ),
        )
        return Outcome(diagnosis, build_report(diagnosis, self.rulebook), dict(masker.counts) if mask else {})

    def diagnose_text(self, text: str, *, limits: Limits = NO_LIMITS) -> Outcome:
        """Diagnose a pasted log. Raises InputError for empty text. A paste is text whatever it
        holds: its NUL characters (JSON carries `\\u0000`; a terminal shows a NUL-padded field
        as one) are dropped, where the same bytes at a file's start would mean a binary file."""
        return self.diagnose_stream([text.replace("\x00", "").encode("utf-8", "surrogatepass")], limits=limits, whole=True)

    def live(self) -> LiveDiagnosis:
        """A diagnosis of a log that is still being written (`denpex watch`)."""
        return LiveDiagnosis(self)

    def lookup(self, query: str, limit: int = 5) -> list[LookupHit]:
        """Entries for a pasted error string (matched raw, like a log)."""
        return self._lookup.search(query, limit)

    def too_general(self, query: str) -> bool:
        """Does a pasted error string name no failure in particular ("training failed")?"""
        return self._lookup.too_general(query)

    @staticmethod
    def mask_query(query: str) -> MaskedText:
        """A pasted error string as it may be echoed back (people paste secrets here too)."""
        return Masker().mask(query)

    def entry(self, rule_id: str) -> Rule | None:
        return self.rulebook.get(rule_id.strip().lower())

    @cached_property
    def _kb(self) -> KbIndex:
        from bot.followup.kb_search import KbIndex

        return KbIndex(self.rulebook)

    def follow_up(self, store: FollowupStore, team_id: str, ctx: ThreadContext, question: str,
                  topic: str | None = None) -> FollowUp | None:
        """A question (or a chosen topic) in a diagnosis thread; None if its entry is gone."""
        from bot.followup.thread_question import ask

        return ask(self.rulebook, self._kb, store, team_id, ctx, question, topic)


class LiveDiagnosis:
    """One log fed piece by piece while it is written, asked for its masked answer so far.

    `feed` takes whole lines with their Unicode spaces made ASCII: the caller cuts them, as
    `_whole_lines` does, and applies `ascii_spaces` once, as `diagnose_stream` does, where it
    may read the lines too (`denpex watch` reads the watchdog's timeout from them; a second
    pass here over torchrun's tqdm bars was ~6% of watch's matching thread). It says whether a
    rule matched anything new, so `interim` (a verdict over what the scan holds now) runs only
    when the answer can have changed. Like `diagnose_stream`, the masker learns from every
    piece, and only the masked diagnosis comes out.
    """

    def __init__(self, app: Denpex):
        self._app = app
        self._scan = app.matcher.scan()
        self._masker = Masker()
        self._hits = 0

    def feed(self, piece: bytes) -> bool:
        self._scan.feed(piece)
        self._masker.learn(piece)
        hits = sum(rh.count for rh in self._scan.by_rule.values())
        changed, self._hits = hits != self._hits, hits
        return changed

    def interim(self) -> Outcome:
        """The verdict on the lines fed so far (a window signature still open is left out)."""
        scan = self._scan
        stats = Stats(bytes=scan.bytes, lines=scan.lines, elapsed_ms=0, regex_timeouts=scan.regex_timeouts)
        return self._outcome(scan.decide(stats))

    def finish(self) -> Outcome:
        return self._outcome(self._scan.finish())

    def known_ranks(self) -> list[int]:
        """Ranks the log has shown or implied (its world size) so far."""
        return sorted(self._scan.facts.known_ranks())

    def mask(self, text: str) -> MaskedText:
        """Other log-derived text (a host, a label) masked with this log's learned names."""
        return self._masker.mask(text)

    def _outcome(self, diagnosis: Diagnosis) -> Outcome:
        masked = mask_diagnosis(diagnosis, self._masker)
        return Outcome(masked, build_report(masked, self._app.rulebook), dict(self._masker.counts))


def mask_diagnosis(diagnosis: Diagnosis, masker: Masker) -> Diagnosis:
    """The diagnosis as it may leave the process: evidence lines, their hosts and the
    unmatched line masked by the log's own masker (its learned names and numbering)."""

    def evidence(e: Evidence) -> Evidence:
        host = masker.host(e.host) if e.host else None
        return replace(e, text=masker.mask(e.text), host=host)

    matches = [replace(m, evidence=[evidence(e) for e in m.evidence]) for m in diagnosis.matches]
    unmatched = masker.mask(diagnosis.unmatched) if diagnosis.unmatched is not None else None
    return replace(diagnosis, matches=matches, unmatched=unmatched)
