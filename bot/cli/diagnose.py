"""`denpex diagnose FILE...|-`: the same diagnosis the Slack bot posts, in a terminal.

Several files (or a folder, or a glob) are one run: a job that wrote one log per rank. They are
read one after the other through `bot.ingest.Run`, which puts `[rankN]:` before the lines of a
file whose name carries a rank (`rank_3.log`, `slurm-1234_3.out`, torchelastic's `attempt_0/3/`),
the prefix torchrun --tee writes and the matcher already reads. That keeps the matcher and the
service as they are (one byte stream, one Scan, one Masker) instead of teaching them about files;
the line numbers are turned back into (file, line) here, for the report and the JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from bot.cli import UsageError
from bot.cli.term import COLOR_CHOICES, use_color, width
from bot.ingest import InputError, LogFile, Run, collect_logs, file_chunks
from bot.render import markdown, text

PROGRESS_FROM_BYTES = 4_000_000


def _stdin_chunks() -> Iterator[bytes]:
    while chunk := sys.stdin.buffer.read(1 << 20):
        yield chunk


def _open(file: LogFile) -> Iterator[bytes]:
    if file.path is None:
        return _stdin_chunks()
    try:
        with open(file.path, "rb"):
            pass
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})") from None
    return file_chunks(file.path)


class Progress:
    """How much has been read, on stderr, so a gigabyte does not look like a hang: a bar that
    redraws itself on a terminal, a line every 10% (every 100 MB of a pipe) otherwise. Nothing
    for small inputs, nothing with --quiet."""

    BAR = 28

    def __init__(self, total: int | None, quiet: bool = False, stream=None):
        self.total = total
        self.done = 0
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.shown = -1
        self.drawn = False
        self.last = 0.0

    def __call__(self, n: int) -> None:
        self.done += n
        if self.quiet or self.done < PROGRESS_FROM_BYTES:
            return
        mb = self.done / 1e6
        if self.total:
            pct = min(100, self.done * 100 // self.total)
            if self.tty:
                now = time.monotonic()
                if now - self.last < 0.1 and pct < 100:
                    return
                self.last = now
                fill = self.BAR * pct // 100
                bar = "#" * fill + "-" * (self.BAR - fill)
                self._draw(f"denpex: reading [{bar}] {pct:3d}%  {mb:,.0f} of {self.total / 1e6:,.0f} MB")
            elif pct // 10 != self.shown:
                self.shown = pct // 10
                print(f"denpex: read {mb:,.0f} of {self.total / 1e6:,.0f} MB ({pct}%)", file=self.stream, flush=True)
        elif self.tty:
            now = time.monotonic()
            if now - self.last >= 0.1:
                self.last = now
                self._draw(f"denpex: read {mb:,.0f} MB")
        elif int(mb // 100) != self.shown:
            self.shown = int(mb // 100)
            print(f"denpex: read {mb:,.0f} MB", file=self.stream, flush=True)

    def _draw(self, line: str) -> None:
        self.drawn = True
        self.stream.write("\r" + line + "\033[K")
        self.stream.flush()

    def close(self) -> None:
        """Take the bar off the terminal before the report is printed."""
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False


def _json(outcome, run: Run, multi: bool, name_of) -> dict:
    d = outcome.diagnosis.to_dict()
    for m in d["matches"]:
        for e in m["evidence"]:
            file, line = run.locate(e["line"])
            e["text"] = run.clean(e["line"], e["text"])
            if multi:
                e["file"] = name_of(file)
            e["line"] = line
    if d["unmatched"]:
        d["unmatched"] = _clean_unmatched(run, d["unmatched"])
    if multi:
        d["files"] = [{"file": name_of(s.file), "rank": s.file.rank} for s in run.spans]
        d["skipped"] = [name_of(s) for s in run.skipped]
    return d


def _clean_unmatched(run: Run, line: str) -> str:
    for s in run.spans:
        prefix = s.prefix.decode()
        if prefix and line.startswith(prefix):
            return line[len(prefix):]
    return line


@contextmanager
def _collector_for_a_scan() -> Iterator[None]:
    """The cyclic collector tuned for one long scan, as it was after it.

    The start's objects (rules, compiled patterns, databases) live as long as the process:
    frozen, the collector's passes during the scan no longer walk them. The scan allocates an
    object or two per candidate line (hits, line shapes) and nearly none in a cycle, so the
    youngest generation is collected every 10,000 of them rather than 700 (env-dump at
    100 MB: the collector's CPU 0.13 -> 0.05 s)."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(10_000, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def run(args: argparse.Namespace) -> int:
    from bot.service import Denpex

    try:
        files = collect_logs(args.file)
    except InputError as exc:
        raise UsageError(str(exc)) from None
    multi = len(files) > 1
    if multi and any(f.path is None for f in files):
        raise UsageError("- (stdin) cannot be read together with files: give either")
    sizes = [f.size for f in files]
    progress = Progress(None if None in sizes else sum(s or 0 for s in sizes), quiet=args.quiet)
    log = Run(files, _open, on_raw=progress)
    app = Denpex()
    try:
        with _collector_for_a_scan():
            outcome = app.diagnose_stream(log.chunks(), mask=not args.no_mask)
    except InputError as exc:
        progress.close()
        where = files[0].name if not multi else "the run"
        if not multi and files[0].path is None:
            where = "stdin"
        raise UsageError(f"{where}: {exc}") from None
    progress.close()

    from bot.masking import Masker

    names = Masker()  # one for all the names, so two hosts stay two placeholders

    def name_of(file: LogFile | str) -> str:
        # File names are shown masked too (a home folder, a host in a path): the output is
        # meant to be pasted into tickets and threads.
        name = file if isinstance(file, str) else file.name
        return name if args.no_mask else str(names.mask(name))

    stats = replace(outcome.diagnosis.stats, bytes=log.text_bytes, truncated=bool(log.truncated) or outcome.diagnosis.stats.truncated)
    diagnosis = replace(outcome.diagnosis, stats=stats)
    if diagnosis.unmatched and args.format != "json":
        # For the terminal: the line as its file has it (the JSON cleans its own copy).
        diagnosis = replace(diagnosis, unmatched=_clean_unmatched(log, diagnosis.unmatched))
    outcome = replace(outcome, diagnosis=diagnosis, report=replace(outcome.report, diagnosis=diagnosis))
    if not args.quiet:
        for skipped in log.skipped:
            print(f"denpex: skipped {name_of(skipped)}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(_json(outcome, log, multi, name_of), indent=2))
        return 0

    def locate(e) -> tuple[str, str]:
        file, line = log.locate(e.line)
        where = f"{name_of(file)}:{line}" if multi else f"line {line}"
        return where, log.clean(e.line, e.text)

    truncated = [name_of(s.file) for s in log.spans if s.status.truncated]
    extra = {"locate": locate, "truncated_files": truncated if multi else None,
             "files": len(log.spans) if multi else None}
    if args.format == "markdown":
        sys.stdout.write(markdown.render_report(outcome.report, **extra))
    else:
        color = use_color(args.color, sys.stdout)
        sys.stdout.write(text.render_report(outcome.report, color=color, width=width(sys.stdout), **extra))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diagnose",
        help="diagnose a training log: file(s), folder, glob, .gz/.bz2/.xz/.zst, or - for stdin",
        description="Diagnose a failed training run from its log: the root cause, the fix, how to "
        "confirm it, and the rank that started it. Several files, a folder or a glob are read as one "
        "run (one log per rank): the rank comes from the file name (rank_3.log, slurm-1234_3.out, "
        "node-2/rank-17.txt, torchelastic's attempt_0/3/stderr.log and error.json) when the lines "
        "carry none.",
        epilog="exit codes: 0 done (matched or not), 2 bad input or usage (one line on stderr)",
    )
    p.add_argument(
        "file", metavar="FILE", nargs="+",
        help="log file(s), a folder of per-rank logs, a glob (quoted), or - for stdin; "
        "plain, gzip, bzip2, xz or zstd; UTF-8 or UTF-16",
    )
    p.add_argument(
        "--format", choices=("text", "json", "markdown"), default="text",
        help="text for a terminal (default), json for scripts (the contract of DESIGN.md), markdown for tickets",
    )
    p.add_argument(
        "--no-mask",
        action="store_true",
        help="skip masking of secrets and personal data (evidence lines then show them as they are)",
    )
    p.add_argument(
        "--color", choices=COLOR_CHOICES, default="auto",
        help="colour in the text report: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always, never",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress and no notes on stderr; errors only")
    p.set_defaults(handler=run)
