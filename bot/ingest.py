"""Reading a log from a file, a pipe or an upload: streamed, capped, gzip-aware, never whole.

Everything that takes bytes from outside comes through here, so bad input gets one clear,
specific message wherever it arrives: empty, binary, an archive we do not read, too large,
a gzip bomb.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

CHUNK = 1 << 20
_SNIFF = 8192
_MAGIC = {
    b"PK\x03\x04": "a zip archive",
    b"BZh": "a bzip2 file",
    b"\xfd7zXZ\x00": "an xz file",
    b"(\xb5/\xfd": "a zstd file",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"%PDF": "a PDF document",
    b"\x7fELF": "an executable",
}


class InputError(Exception):
    """The input cannot be diagnosed; the message says why and what to do instead."""


@dataclass(frozen=True)
class Limits:
    """Caps on what is read: raw bytes (the upload) and inflated bytes (inside a .gz)."""

    max_bytes: int | None = None
    max_inflated: int | None = None


NO_LIMITS = Limits()


@dataclass
class ReadStatus:
    """What reading found out about the input besides its bytes; filled in as it streams.

    `truncated`: a gzip stream stopped before its end marker (an upload cut off, a copy of a
    log still being written), so the log ends early and the failure may be in the lost tail.
    """

    truncated: bool = False


def _mb(n: int) -> str:
    return f"{n / 1_000_000:.0f} MB" if n >= 1_000_000 else f"{n:,} bytes"


def _capped(chunks: Iterable[bytes], cap: int | None, what: str) -> Iterator[bytes]:
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if cap is not None and total > cap:
            raise InputError(f"{what} is larger than the {_mb(cap)} limit: send the part around the failure")
        yield chunk


def _gunzip(chunks: Iterator[bytes], cap: int | None, status: ReadStatus | None = None) -> Iterator[bytes]:
    """Inflate incrementally; never produce more than `cap` bytes whatever the ratio.

    A stream that ends inside a member (no end marker) yields what it holds and is reported
    in `status.truncated`: diagnosing what is there beats refusing it.
    """
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    total = 0
    for chunk in chunks:
        data = chunk
        while data:
            try:
                out = inflater.decompress(data, CHUNK)
            except zlib.error as exc:
                raise InputError(f"the gzip data is corrupt ({exc})") from None
            total += len(out)
            if cap is not None and total > cap:
                raise InputError(f"the log inflates past the {_mb(cap)} limit (a gzip bomb, or too big): send the part around the failure")
            if out:
                yield out
            data = inflater.unconsumed_tail
            if inflater.eof:
                # Concatenated gzip members (`cat a.gz b.gz`) are valid gzip: start the next one.
                rest = inflater.unused_data
                if not rest:
                    break  # keep the finished inflater: its `eof` says this member was whole
                inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
                data = rest
    tail = inflater.flush()
    if not inflater.eof and status is not None:
        status.truncated = True
    if tail:
        total += len(tail)
        if cap is not None and total > cap:
            raise InputError(f"the log inflates past the {_mb(cap)} limit: send the part around the failure")
        yield tail


def _check_text(head: bytes) -> None:
    if b"\x00" in head[:_SNIFF]:
        raise InputError("this looks like a binary file, not a text log (it contains NUL bytes)")


def read_log(chunks: Iterable[bytes], limits: Limits = NO_LIMITS, status: ReadStatus | None = None) -> Iterator[bytes]:
    """Yield the log's text bytes chunk by chunk, checking kind and size as it streams.

    Raises InputError before the first chunk for empty, binary and unsupported input, and
    mid-stream when a cap is passed (callers then discard what they built). `status`, when
    given, learns whether the input ended early (a truncated .gz) once the stream is drained.
    """
    raw = _capped(iter(chunks), limits.max_bytes, "the file")
    first = b""
    for chunk in raw:
        first += chunk
        if len(first) >= 16:
            break
    for magic, kind in _MAGIC.items():
        if first.startswith(magic):
            raise InputError(f"this is {kind}, not a text log: send the .log/.txt file (or a .gz of it)")

    def replay() -> Iterator[bytes]:
        yield first
        yield from raw

    stream: Iterator[bytes] = replay()
    if first[:2] == b"\x1f\x8b":
        stream = _gunzip(stream, limits.max_inflated, status)
    head = b""
    buffered: list[bytes] = []
    for chunk in stream:
        if not head.strip() and not chunk.strip():
            # Leading blank space: keep counting lines, hold nothing.
            buffered = [b"\n" * (b"".join(buffered).count(b"\n") + chunk.count(b"\n"))]
            continue
        buffered.append(chunk)
        # Sniff from the first non-blank byte: blank space may fill a whole chunk's head.
        head += (chunk if head else chunk.lstrip())[: _SNIFF - len(head)]
        if len(head) >= _SNIFF:
            break
    if not head.strip():
        raise InputError("the log is empty: nothing to diagnose")
    _check_text(head)
    yield from buffered
    yield from stream


def file_chunks(path: str, chunk_size: int = CHUNK) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(chunk_size)
            if not chunk:
                return
            yield chunk
