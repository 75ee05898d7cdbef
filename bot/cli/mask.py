"""`denpex mask FILE|-`: print a log with secrets and personal data masked.

Streams: the log is read in chunks (plain or compressed, checked by bot.ingest like every
other input), re-cut on line boundaries, masked by one Masker (so placeholders stay consistent
across chunks) and written out; the file is never held whole. The log is read twice: first for
the names and secret values the Masker learns (`alice` from `/home/alice` on the last line is
masked on the first one too), then to mask. Standard input is read ahead, in memory, up to
STDIN_LEARN_BYTES for the same purpose; past that the rest streams with what was learned so far.
`--stats` prints `kind: n` lines to stderr at the end, never the values.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Iterable, Iterator

from bot.cli import UsageError
from bot.ingest import InputError, file_chunks, read_log

# Masker works on whole lines. A line longer than this (no newline in 16 MiB) is cut at its
# last blank so memory stays bounded; every byte is still masked and printed.
MAX_LINE_BYTES = 16 << 20
# How much of standard input is held to learn names from before the first line is written.
STDIN_LEARN_BYTES = 64 << 20


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mask",
        help="print a log with secrets and personal data masked (file, .gz/.bz2/.xz/.zst, or - for stdin)",
        description="Mask secrets and personal data in a log and print it to stdout.",
    )
    parser.add_argument("file", metavar="FILE|-", help="log file (plain or compressed, UTF-8 or UTF-16), or - for stdin")
    parser.add_argument("--stats", action="store_true", help="print counts per masked kind to stderr")
    parser.set_defaults(handler=run)


def _stdin_chunks() -> Iterator[bytes]:
    while chunk := sys.stdin.buffer.read(1 << 20):
        yield chunk


def _read_ahead(chunks: Iterator[bytes], limit: int) -> tuple[list[bytes], Iterator[bytes]]:
    """Up to `limit` bytes of `chunks` in memory, and the iterator for the rest."""
    held: list[bytes] = []
    size = 0
    for chunk in chunks:
        held.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return held, chunks


def _input_chunks(path: str) -> Iterator[bytes]:
    if path == "-":
        return _stdin_chunks()
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory: name a log file")
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror})") from None
    return file_chunks(path)


def _line_chunks(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Re-cut a byte stream so every piece ends on a line boundary (the last may not)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        cut = pending.rfind(b"\n") + 1
        if cut == 0 and len(pending) > MAX_LINE_BYTES:
            cut = max(pending.rfind(b" "), pending.rfind(b"\t")) + 1 or len(pending)
        if cut:
            yield pending[:cut]
            pending = pending[cut:]
    if pending:
        yield pending


def run(args: argparse.Namespace) -> int:
    name = "stdin" if args.file == "-" else args.file
    from bot.masking import Masker  # here, so `denpex --help` and other commands do not load it

    masker = Masker()
    out = sys.stdout.buffer
    try:
        if args.file == "-":
            held, rest = _read_ahead(_line_chunks(read_log(_stdin_chunks())), STDIN_LEARN_BYTES)
            for piece in held:
                masker.learn(piece)
            pieces: Iterable[bytes] = itertools.chain(held, rest)
        else:
            for piece in _line_chunks(read_log(_input_chunks(args.file))):
                masker.learn(piece)
            pieces = _line_chunks(read_log(_input_chunks(args.file)))
        for piece in pieces:
            # Pieces end on b"\n", which never occurs inside a UTF-8 sequence, so decoding
            # piece by piece never splits a character.
            out.write(masker.mask(piece.decode("utf-8", errors="replace")).encode("utf-8"))
    except InputError as exc:
        raise UsageError(f"{name}: {exc}") from None
    out.flush()
    if args.stats:
        for kind, n in sorted(masker.counts.items()):
            print(f"{kind}: {n}", file=sys.stderr)
    return 0
