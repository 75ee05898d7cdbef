"""Reading a log from a file, a pipe or an upload: streamed, capped, never whole.

Everything that takes bytes from outside comes through here, so bad input gets one clear,
specific message wherever it arrives: empty, binary, an archive we do not read, too large,
a decompression bomb. gzip, bzip2 and xz are read with Python's own modules, zstd with the
optional `zstandard` package (`denpex[zstd]`); UTF-16 logs (Windows, PowerShell's `>`) are
recognised by their byte-order mark or their NUL pattern and read as text, not refused as
binary. The rest of the system sees UTF-8 bytes.

Several files of one run (a folder of per-rank logs, a glob, torchelastic's per-attempt tree)
are found and named by `collect_logs`; `rank_from_path` reads the rank a file name carries.
"""

from __future__ import annotations

import bz2
import codecs
import glob
import json
import lzma
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot.spaces import separators_as_newlines

CHUNK = 1 << 20
_SNIFF = 8192
# Compressed formats we read, by magic number.
_COMPRESSED = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
    b"(\xb5/\xfd": "zstd",
}
# The file suffix of each, for messages.
SUFFIX = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}
_MAGIC = {
    b"PK\x03\x04": "a zip archive",
    b"7z\xbc\xaf\x27\x1c": "a 7z archive",
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
    """Caps on what is read: raw bytes (the upload) and inflated bytes (inside a compressed file)."""

    max_bytes: int | None = None
    max_inflated: int | None = None


NO_LIMITS = Limits()


@dataclass
class ReadStatus:
    """What reading found out about the input besides its bytes; filled in as it streams.

    `truncated`: a compressed stream stopped before its end marker (an upload cut off, a copy
    of a log still being written), so the log ends early and the failure may be in the lost tail.
    `compression`: gzip, bzip2, xz or zstd, None for plain text. `encoding`: what the bytes were
    decoded from (utf-8, utf-16-le, utf-16-be); what is yielded is always UTF-8.
    """

    truncated: bool = False
    compression: str | None = None
    encoding: str = "utf-8"


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


class _Zstd:
    """zstandard's decompressobj with the interface of bz2/lzma's decompressors."""

    def __init__(self) -> None:
        try:
            import zstandard
        except ImportError:
            raise InputError(
                "this is a zstd file and the zstandard package is not installed: "
                "pip install 'denpex[zstd]', or decompress it first (zstd -d FILE)"
            ) from None
        self._error = zstandard.ZstdError
        self._obj = zstandard.ZstdDecompressor().decompressobj()

    @property
    def eof(self) -> bool:
        return self._obj.eof

    @property
    def unused_data(self) -> bytes:
        return self._obj.unused_data

    def decompress(self, data: bytes) -> bytes:
        try:
            return self._obj.decompress(data)
        except self._error as exc:
            raise ValueError(str(exc)) from None


def _decompressor(kind: str) -> object:
    if kind == "bzip2":
        return bz2.BZ2Decompressor()
    if kind == "xz":
        return lzma.LZMADecompressor()
    return _Zstd()


def _inflate(chunks: Iterator[bytes], kind: str, cap: int | None, status: ReadStatus | None = None) -> Iterator[bytes]:
    """bzip2, xz or zstd, incrementally, several streams one after the other (`cat a.xz b.xz`),
    never more than `cap` bytes out; a stream without its end is yielded and reported truncated.

    Input goes in slices that shrink when one inflates to megabytes, so a bomb's output is
    checked against the cap every few megabytes instead of after gigabytes."""
    unpack = _decompressor(kind)
    bounded = kind != "zstd"  # bz2 and lzma take a max_length; zstandard's object does not
    total = 0
    step = 1 << 16
    started = False

    def out_of(data: bytes) -> bytes:
        try:
            if bounded:
                return unpack.decompress(data, CHUNK)  # type: ignore[attr-defined]
            return unpack.decompress(data)  # type: ignore[attr-defined]
        except (OSError, ValueError, EOFError) as exc:
            raise InputError(f"the {kind} data is corrupt ({exc})") from None

    for chunk in chunks:
        pending = chunk
        while pending:
            if unpack.eof:  # type: ignore[attr-defined]
                if not pending.strip(b"\x00"):
                    break  # zero padding after the last stream
                unpack = _decompressor(kind)  # the next stream of a concatenation
            piece, pending = pending[:step], pending[step:]
            out = out_of(piece)
            started = True
            while True:
                total += len(out)
                if cap is not None and total > cap:
                    raise InputError(f"the log inflates past the {_mb(cap)} limit (a compression bomb, or too big): send the part around the failure")
                if out:
                    yield out
                if len(out) > 4 * CHUNK:
                    step = max(16, step // 4)
                # bz2/lzma hold back what max_length did not let out: drain it before more input.
                if bounded and not unpack.eof and not unpack.needs_input:  # type: ignore[attr-defined]
                    out = out_of(b"")
                    continue
                break
            if unpack.eof and unpack.unused_data:  # type: ignore[attr-defined]
                pending = unpack.unused_data + pending  # type: ignore[attr-defined]
    if started and not unpack.eof and status is not None:  # type: ignore[attr-defined]
        status.truncated = True


def _utf16(head: bytes) -> str | None:
    """`utf-16` (with a byte-order mark) or `utf-16-le`/`-be` (without one, from where the NUL
    bytes of ASCII text fall), or None for anything else."""
    sample = head[:4096]
    if head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) and head[:4] != codecs.BOM_UTF32_LE:
        # A log is mostly ASCII, which UTF-16 writes with a NUL byte per character: a BOM
        # without them is two bytes of junk in front of UTF-8 text, not an encoding.
        if sample.count(0) >= 0.1 * len(sample):
            return "utf-16"
        return None
    if len(sample) < 8:
        return None
    even, odd = sample[0::2], sample[1::2]
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if nul_odd > 0.4 and nul_even < 0.05:
        return "utf-16-le"
    if nul_even > 0.4 and nul_odd < 0.05:
        return "utf-16-be"
    return None


def _transcode(chunks: Iterator[bytes], encoding: str) -> Iterator[bytes]:
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    for chunk in chunks:
        text = decoder.decode(chunk)
        if text:
            yield text.encode("utf-8", "surrogatepass")
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail.encode("utf-8", "surrogatepass")


def _is_tar(head: bytes) -> bool:
    """A tar archive (POSIX or GNU): `ustar` at byte 257 of its first 512-byte header, which
    is NUL-padded (a text log with those letters there has no NUL bytes)."""
    return head[257:262] == b"ustar" and b"\x00" in head[:512]


# A log its node crashed while writing (on a network or journaling file system) holds its
# text, then the blocks the file had grown by but never received, read back as NUL bytes: long
# runs after a first line of text. A binary file has NUL bytes scattered, or before any line.
_NUL_RUN = re.compile(rb"\x00{64,}")


def _check_text(head: bytes) -> None:
    sniff = head[:_SNIFF]
    first = sniff.find(b"\x00")
    if first < 0:
        return
    if b"\n" in sniff[:first] and b"\x00" not in _NUL_RUN.sub(b"", sniff):
        return
    raise InputError("this looks like a binary file, not a text log (it contains NUL bytes)")


def _without_nul(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """A text log's NUL bytes (blocks a crash left unwritten) are no text: dropped, no line moves."""
    for chunk in chunks:
        yield chunk.replace(b"\x00", b"") if b"\x00" in chunk else chunk


def read_log(chunks: Iterable[bytes], limits: Limits = NO_LIMITS, status: ReadStatus | None = None,
             *, inner: bool = False) -> Iterator[bytes]:
    """Yield the log's text as UTF-8 bytes chunk by chunk, checking kind and size as it streams.

    Raises InputError before the first chunk for empty, binary and unsupported input, and
    mid-stream when a cap is passed (callers then discard what they built). `status`, when
    given, learns the compression and encoding, and whether the input ended early (a truncated
    compressed file) once the stream is drained. `inner`: this is what a compressed file held.
    """
    status = status if status is not None else ReadStatus()
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
    kind = next((k for magic, k in _COMPRESSED.items() if first.startswith(magic)), None)
    status.compression = kind
    if kind == "gzip":
        stream = _gunzip(stream, limits.max_inflated, status)
    elif kind is not None:
        stream = _inflate(stream, kind, limits.max_inflated, status)
    # The encoding, from the first bytes of the text.
    lead: list[bytes] = []
    size = 0
    for chunk in stream:
        lead.append(chunk)
        size += len(chunk)
        if size >= 4096:
            break
    start = b"".join(lead)

    def rejoined(rest: Iterator[bytes]) -> Iterator[bytes]:
        if start:
            yield start
        yield from rest

    stream = rejoined(stream)
    if kind is not None and any(start.startswith(magic) for magic in _COMPRESSED):
        # Compressed twice (a log shipper compressing every file, `.gz` ones too): the inner
        # file is read as if it had been sent, within the same inflated cap. Once only: a
        # file compressed in itself (a gzip quine) would otherwise never end.
        if inner:
            raise InputError("this is compressed three times over: send the log itself (or a .gz of it)")
        yield from read_log(stream, Limits(limits.max_inflated, limits.max_inflated), status, inner=True)
        return
    if _is_tar(start):
        # Its NUL padding would otherwise be refused as "a binary file", which it is not quite.
        packed = f" ({SUFFIX[kind]} of one)" if kind else ""
        raise InputError(f"this is a tar archive{packed}, not a text log: send the .log/.txt file itself (or a .gz of it)")
    encoding = _utf16(start)
    if encoding:
        status.encoding = "utf-16-be" if start[:2] == codecs.BOM_UTF16_BE or encoding == "utf-16-be" else "utf-16-le"
        stream = _transcode(stream, encoding)
    elif start.startswith(codecs.BOM_UTF8):
        stream = _transcode(stream, "utf-8-sig")
    # Line breaks a rich-text editor wrote as U+2028/U+2029, before anything counts lines.
    stream = separators_as_newlines(stream)
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
        if status.truncated:
            raise InputError(f"the {kind} file is cut off before its first line of text: nothing to diagnose")
        raise InputError("the log is empty: nothing to diagnose")
    _check_text(head)
    yield from _without_nul(buffered)
    yield from _without_nul(stream)


def file_chunks(path: str, chunk_size: int = CHUNK) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(chunk_size)
            if not chunk:
                return
            yield chunk


# --- Several files of one run -----------------------------------------------------------------

# What a folder's log files are called (after a compression suffix is taken off).
LOG_SUFFIXES = (".log", ".txt", ".out", ".err")
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
MAX_FILES = 10_000
# The rank a file name carries: `rank_3.log`, `rank-17.txt`, `train_rank03.out`, srun's
# `--output=slurm-%j_%t.out` (job id, task id = rank).
_RANK_IN_NAME = (
    re.compile(r"(?:^|[^a-z0-9])rank[_.-]?(\d{1,6})(?!\d)", re.IGNORECASE),
    re.compile(r"^slurm-\d+_(\d{1,6})\.(?:out|err|log)$", re.IGNORECASE),
)
# torchelastic's per-attempt tree: `<log_dir>/<run_id>/attempt_0/3/{stdout,stderr}.log, error.json`;
# the numbered folder is the local rank (the global rank on a single node).
_ELASTIC_ATTEMPT = re.compile(r"^attempt_\d+$")
ELASTIC_ERROR = "error.json"


def _bare_name(name: str) -> str:
    for suffix in COMPRESSED_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def rank_from_path(path: str | Path) -> int | None:
    """The rank a log's file name or folder names, or None."""
    p = Path(path)
    name = _bare_name(p.name)
    for pattern in _RANK_IN_NAME:
        m = pattern.search(name)
        if m:
            return int(m.group(1))
    parent = p.parent
    if parent.name.isdigit() and _ELASTIC_ATTEMPT.match(parent.parent.name):
        return int(parent.name)
    for folder in (parent, parent.parent):
        m = _RANK_IN_NAME[0].search(folder.name)
        if m:
            return int(m.group(1))
    return None


def is_log_name(name: str) -> bool:
    """Whether a file found in a folder is read as a log: `.log .txt .out .err` (also compressed),
    torchelastic's `error.json`, and names without a suffix (`stdout`, `output`)."""
    if name.startswith("."):
        return False
    bare = _bare_name(name)
    low = bare.lower()
    return low.endswith(LOG_SUFFIXES) or low == ELASTIC_ERROR or "." not in bare


def _natural(path: str) -> list[object]:
    """`rank_2` before `rank_10`."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path)]


@dataclass(frozen=True)
class LogFile:
    """One file of a run: where it is, how to call it, and the rank its name carries."""

    path: str | None  # None: stdin
    name: str
    rank: int | None
    size: int | None


def collect_logs(args: list[str]) -> list[LogFile]:
    """The files named on a command line: files, folders (walked, log files only) and globs,
    in natural order, each once. Raises InputError for a name that is none of these."""
    paths: list[str] = []
    roots: list[str] = []
    for arg in args:
        if arg == "-":
            paths.append("-")
        elif os.path.isdir(arg):
            found = []
            for folder, dirs, files in os.walk(arg):
                dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
                found += [os.path.join(folder, f) for f in files if is_log_name(f)]
            if not found:
                raise InputError(f"{arg}: no log files in this folder (.log .txt .out .err, also compressed)")
            paths += sorted(found, key=_natural)
            roots.append(arg)
        elif os.path.exists(arg):
            paths.append(arg)
        elif glob.has_magic(arg):
            matched = sorted((p for p in glob.glob(arg, recursive=True) if os.path.isfile(p)), key=_natural)
            if not matched:
                raise InputError(f"{arg}: no file matches")
            paths += matched
        else:
            raise InputError(f"{arg}: no such file")
    seen: set[str] = set()
    unique = [p for p in paths if p == "-" or not (os.path.realpath(p) in seen or seen.add(os.path.realpath(p)))]
    if len(unique) > MAX_FILES:
        raise InputError(f"{len(unique):,} files: more than {MAX_FILES:,} in one run; name the ranks' logs only")
    files = [p for p in unique if p != "-"]
    # Names relative to the folder given, else to the files' common folder: `node-2/rank-17.txt`.
    base = ""
    if len(args) == 1 and len(roots) == 1:
        base = os.path.abspath(roots[0])
    elif len(files) > 1:
        base = os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in files])
    out = []
    for p in unique:
        if p == "-":
            out.append(LogFile(None, "<stdin>", None, None))
            continue
        name = os.path.relpath(os.path.abspath(p), base) if base else p
        try:
            size = os.path.getsize(p)
        except OSError:
            size = None
        out.append(LogFile(p, name, rank_from_path(p), size))
    return out


def elastic_error_text(data: bytes) -> bytes:
    """torchelastic's `error.json` as the lines it holds: the message, then the traceback
    (`py_callstack`), instead of one JSON line with escaped newlines. Unchanged if not that."""
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return data
    message = doc.get("message") if isinstance(doc, dict) else None
    parts: list[str] = []
    if isinstance(message, dict):
        if isinstance(message.get("message"), str):
            parts.append(message["message"])
        extra = message.get("extraInfo")
        if isinstance(extra, dict) and isinstance(extra.get("py_callstack"), str):
            parts.append(extra["py_callstack"])
    elif isinstance(message, str):
        parts.append(message)
    if not parts:
        return data
    return ("\n".join(p.rstrip("\n") for p in parts) + "\n").encode("utf-8", "surrogatepass")


@dataclass
class _Span:
    file: LogFile
    first_line: int  # line number in the run of the file's first line (1-based)
    prefix: bytes  # what was put before each of its lines (b"" for none)
    status: ReadStatus


@dataclass
class Run:
    """Several log files read as one log, file after file, each line of a file whose name carries
    a rank prefixed with `[rankN]:` as torchrun --tee would have written it, so the matcher's own
    line parsing gives it that rank (a rank the line carries itself still wins).

    `chunks()` is the run's text for the diagnosis; `locate(line)` turns a line number of it back
    into (file, line in that file), `clean(text)` takes the added prefix off an evidence line.
    A file that is empty, binary or not a log is skipped (listed in `skipped`) when the run has
    several; alone, it is an InputError as before.
    """

    files: list[LogFile]
    opener: Callable[[LogFile], Iterable[bytes]]
    limits: Limits = NO_LIMITS
    on_raw: Callable[[int], None] | None = None
    spans: list[_Span] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    text_bytes: int = 0

    def _raw(self, file: LogFile) -> Iterator[bytes]:
        for chunk in self.opener(file):
            if self.on_raw:
                self.on_raw(len(chunk))
            yield chunk

    def chunks(self) -> Iterator[bytes]:
        line = 1
        alone = len(self.files) == 1
        for file in self.files:
            # Line numbers are read only where a later file starts: the last file's (a single
            # log's) lines are not counted here, the scan counts them (a pass over every byte).
            counting = file is not self.files[-1]
            status = ReadStatus()
            raw: Iterable[bytes] = self._raw(file)
            if file.path and os.path.basename(file.path).lower() == ELASTIC_ERROR:
                raw = [elastic_error_text(b"".join(_capped(raw, 64 << 20, file.name)))]
            stream = read_log(raw, self.limits, status)
            try:
                head = next(stream, b"")
            except InputError as exc:
                if alone:
                    raise
                self.skipped.append(f"{file.name}: {exc}")
                continue
            prefix = b"[rank%d]:" % file.rank if file.rank is not None else b""
            self.spans.append(_Span(file, line, prefix, status))
            at_start = True
            last = b"\n"
            for chunk in _chain(head, stream):
                if not chunk:
                    continue
                self.text_bytes += len(chunk)
                if counting:
                    line += chunk.count(b"\n")
                last = chunk[-1:]
                if prefix:
                    body, nl = (chunk[:-1], b"\n") if last == b"\n" else (chunk, b"")
                    chunk = (prefix if at_start else b"") + body.replace(b"\n", b"\n" + prefix) + nl
                at_start = last == b"\n"
                yield chunk
            if last != b"\n":
                line += 1
                yield b"\n"  # the next file starts on a line of its own
        if not self.spans:
            raise InputError("no log to diagnose: " + "; ".join(self.skipped[:3]))

    @property
    def truncated(self) -> list[str]:
        """The files that ended early (a compressed file cut off before its end)."""
        return [s.file.name for s in self.spans if s.status.truncated]

    def locate(self, line: int) -> tuple[LogFile, int]:
        span = self.spans[0]
        for s in self.spans:
            if s.first_line > line:
                break
            span = s
        return span.file, line - span.first_line + 1

    def clean(self, line: int, text: str) -> str:
        span = self.spans[0]
        for s in self.spans:
            if s.first_line > line:
                break
            span = s
        prefix = span.prefix.decode()
        return text[len(prefix):] if prefix and text.startswith(prefix) else text


def _chain(head: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield head
    yield from rest
