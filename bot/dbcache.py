"""Compiled Hyperscan databases and memos of our fixed inputs kept on disk, so a process starts
in a fraction of a second.

Compiling the knowledge base's ~500 line conditions takes Hyperscan about 4 s, and the masker's
fixed word lists and line gates about 0.1 s more; loading a serialized database takes a few
milliseconds. Deriving the literals every signature's regex requires
(matcher/required.required_literals) takes 0.2 s more; those are kept too. `denpex diagnose` on a
laptop and every bot replica would otherwise pay that on each start. The cache key is a hash of
everything the database depends on (expressions, ids, flags, mode, Hyperscan's version, the
machine), so an edited rule or an upgraded library simply misses; a file that fails to load
(another CPU, truncated, tampered with) is ignored and the database compiled afresh.

Beside the databases, JSON memos: the literals each regex requires, and the rule files as
parsed once a load found no problem in them (matcher/rulebook.load_rulebook), keyed by their bytes.

Only fixed inputs come here: rule files, patterns and keywords, and the masker's own word lists.
A word set learned from a log (a user or host name, a secret) is compiled in memory and never
stored.

Where: `DENPEX_CACHE_DIR`, else `$XDG_CACHE_HOME/denpex`, else `~/.cache/denpex`. The files
hold our own patterns and rule files only, nothing from any log. When the directory cannot be written, the
database is compiled in memory and nothing else changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import hyperscan

# Databases beyond this many, least recently used first (other rule sets, older versions, the
# prefilter variants of past logs' floods), are removed on write. A start loads about a dozen
# (the rules' prefilter, blanking's words, the masker's gates and word lists).
_KEEP = 32
_SUFFIX = ".hsdb"


def cache_dir() -> Path:
    explicit = os.environ.get("DENPEX_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "denpex"


def block_database(expressions: list[tuple[int, str]], flags: int) -> hyperscan.Database:
    """A block-mode database of (id, expression) pairs, every expression with `flags`:
    loaded from the cache when an identical one was compiled before, else compiled and stored."""
    path = cache_dir() / (_key(expressions, flags) + _SUFFIX)
    try:
        database = hyperscan.loadb(path.read_bytes(), hyperscan.HS_MODE_BLOCK)
        # A database built for a CPU with wider vector units loads, then refuses to scan: try it.
        database.scan(b"\n", match_event_handler=_ignore, scratch=hyperscan.Scratch(database))
    except Exception:  # absent, unreadable, or not usable here: compile instead
        pass
    else:
        _touch(path)
        return database
    database = compile_block(expressions, flags)
    _store(path, hyperscan.dumpb(database))
    return database


def compile_block(expressions: list[tuple[int, str]], flags: int) -> hyperscan.Database:
    """The same database compiled in memory and never stored: for word sets learned from a log."""
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(
        expressions=[e.encode("ascii") for _, e in expressions],
        ids=[i for i, _ in expressions],
        elements=len(expressions),
        flags=[flags] * len(expressions),
    )
    return database


def derived_literals(
    patterns: Iterable[tuple[str, bool]], derive: Callable[[str, bool], tuple[frozenset[str], ...]], version: str
) -> dict[tuple[str, bool], tuple[frozenset[str], ...]]:
    """`derive(pattern, window)` for every (pattern, window) pair, read from the cache where an
    earlier run stored it (`window`: the literals of a match's first line only).

    `version` names the derivation (a hash of its code): another version reads another file,
    so a changed derivation never reuses an old answer.
    """
    memo = f"literals-{version}"
    known: dict[tuple[str, bool], tuple[frozenset[str], ...]] = {}
    try:
        for pattern, window, sets in read_memo(memo) or []:
            known[pattern, bool(window)] = tuple(frozenset(words) for words in sets)
    except (TypeError, ValueError):  # not ours: derive everything
        known = {}
    out: dict[tuple[str, bool], tuple[frozenset[str], ...]] = {}
    fresh = False
    for key in patterns:
        if key not in known:
            known[key] = derive(*key)
            fresh = True
        out[key] = known[key]
    if fresh:
        write_memo(memo, sorted([p, w, [sorted(words) for words in sets]] for (p, w), sets in known.items()))
    return out


def read_memo(name: str) -> Any:
    """The value `write_memo(name, ...)` kept, or None when there is none (or it is unreadable)."""
    try:
        return json.loads((cache_dir() / f"{name}.json").read_text(encoding="utf-8"))
    except Exception:  # absent, unreadable or not ours
        return None


def write_memo(name: str, value: Any) -> None:
    """Keep a JSON value under `name` (fixed inputs only: rule files, never a log)."""
    _store(cache_dir() / f"{name}.json", json.dumps(value, separators=(",", ":")).encode("utf-8"))


def _ignore(*_args: object) -> None:
    return None


def _touch(path: Path) -> None:
    """Mark a database used: pruning removes the least recently used, not the oldest written."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _key(expressions: list[tuple[int, str]], flags: int) -> str:
    h = hashlib.sha256()
    for part in (_hyperscan_version(), platform.machine(), platform.system(), str(flags), "block"):
        h.update(part.encode() + b"\0")
    for i, e in expressions:
        h.update(f"{i}\t{e}\n".encode())
    return h.hexdigest()[:32]


def _hyperscan_version() -> str:
    try:
        from importlib.metadata import version

        return version("hyperscan")
    except Exception:
        return getattr(hyperscan, "__version__", "unknown")


def _store(path: Path, data: bytes) -> None:
    """Write atomically (a reader never sees half a file); give up quietly when not writable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.chmod(tmp, 0o644)  # an image warms it as root; the bot reads it as another user
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _prune(path.parent, keep=path)
    except OSError:
        pass


def _prune(directory: Path, keep: Path) -> None:
    for pattern in ("*" + _SUFFIX, "literals-*.json", "rules-*.json"):
        files = sorted(directory.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[_KEEP:]:
            if old != keep:
                old.unlink(missing_ok=True)
