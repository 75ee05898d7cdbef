"""`denpex diagnose FILE|-`: the same diagnosis the Slack bot posts, in a terminal."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import replace

from bot.cli import UsageError
from bot.ingest import InputError, ReadStatus, file_chunks, read_log
from bot.render import markdown, text

PROGRESS_FROM_BYTES = 4_000_000


def _stdin_chunks() -> Iterator[bytes]:
    while chunk := sys.stdin.buffer.read(1 << 20):
        yield chunk


def open_input(path: str) -> tuple[Iterator[bytes], int | None]:
    """Chunks of the named file (or stdin for `-`) and its size when known."""
    if path == "-":
        return _stdin_chunks(), None
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory: name a log file")
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    try:
        size = os.path.getsize(path)
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror})") from None
    return file_chunks(path), size


class _Progress:
    """A percentage on stderr for big inputs, so a gigabyte does not look like a hang."""

    def __init__(self, total: int | None):
        self.total = total
        self.shown = -1
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int) -> None:
        if not self.total or self.total < PROGRESS_FROM_BYTES:
            return
        pct = min(100, done * 100 // self.total)
        step = 1 if self.tty else 10
        if pct // step != self.shown:
            self.shown = pct // step
            end = "\r" if self.tty and pct < 100 else "\n"
            print(f"denpex: read {done / 1e6:,.0f} of {self.total / 1e6:,.0f} MB ({pct}%)", end=end, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from bot.service import Denpex

    chunks, size = open_input(args.file)
    app = Denpex()
    status = ReadStatus()
    try:
        # Read here (inflating a .gz) to learn whether the input ended early; the service's own
        # read then sees plain text. Once the service takes a ReadStatus, pass it there instead.
        outcome = app.diagnose_stream(read_log(chunks, status=status), mask=not args.no_mask, on_bytes=_Progress(size))
    except InputError as exc:
        raise UsageError(f"{args.file}: {exc}") from None
    if status.truncated and not outcome.diagnosis.stats.truncated:
        diagnosis = replace(outcome.diagnosis, stats=replace(outcome.diagnosis.stats, truncated=True))
        outcome = replace(outcome, diagnosis=diagnosis, report=replace(outcome.report, diagnosis=diagnosis))
    if args.format == "json":
        print(json.dumps(outcome.diagnosis.to_dict(), indent=2))
    elif args.format == "markdown":
        sys.stdout.write(markdown.render_report(outcome.report))
    else:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        sys.stdout.write(text.render_report(outcome.report, color=color))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diagnose", help="diagnose a training log (file, .gz, or - for stdin)")
    p.add_argument("file", metavar="FILE", help="log file, gzip file, or - for stdin")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument(
        "--no-mask",
        action="store_true",
        help="skip masking of secrets and personal data (evidence lines then show them as they are)",
    )
    p.set_defaults(handler=run)
