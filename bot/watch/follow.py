"""Follow the log files a job is writing (`denpex watch FILE...`), like `tail -F`.

Each file is read from its start, then polled: new bytes are handed on as they appear. A file
renamed away and replaced (logrotate, a restarted job) is read to its end, then the new file
from its start; a file cut shorter (truncated in place, `> train.log`) is read again from its
start. Names that do not exist yet are waited for, and folders and globs are looked at again
as the job creates its per-rank logs. A file whose name carries a rank (`rank_3.log`,
`slurm-1234_3.out`, torchelastic's `attempt_0/3/`) gets `[rank3]:` before its lines, as the
CLI's `diagnose` reads such folders.
"""

from __future__ import annotations

import glob
import os
import signal
import threading
import time
from dataclasses import dataclass

from bot.ingest import COMPRESSED_SUFFIXES, is_log_name, rank_from_path
from bot.watch.child import StderrGate
from bot.watch.session import WatchSession

POLL_S = 0.1
RESCAN_S = 1.0
READ_BYTES = 1 << 20


@dataclass
class _Followed:
    path: str
    handle: object | None = None  # an open binary file
    inode: int | None = None
    offset: int = 0


def expand(targets: list[str]) -> list[str]:
    """The files the targets name now: files (existing or not yet), folders' log files, globs."""
    out: list[str] = []
    for target in targets:
        if os.path.isdir(target):
            for folder, dirs, files in os.walk(target):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                out += [os.path.join(folder, f) for f in sorted(files) if is_log_name(f)]
        elif glob.has_magic(target):
            out += sorted(p for p in glob.glob(target, recursive=True) if os.path.isfile(p))
        else:
            out.append(target)
    seen: set[str] = set()
    return [p for p in out if not (p in seen or seen.add(p))]


class Follower:
    """Poll the targets' files and feed what they gain to `session`."""

    def __init__(self, targets: list[str], session: WatchSession, gate: StderrGate):
        self.targets = targets
        self.session = session
        self.gate = gate
        self.files: dict[str, _Followed] = {}
        self._rescanned = 0.0
        self.last_growth = time.monotonic()

    def poll(self) -> int:
        """One round: new files found, every file read to its end; the bytes read."""
        now = time.monotonic()
        if now - self._rescanned >= RESCAN_S:
            self._rescanned = now
            for path in expand(self.targets):
                if path not in self.files:
                    if path.lower().endswith(COMPRESSED_SUFFIXES):
                        self.gate.say(f"denpex watch: {path}: a compressed file cannot be followed; skipped")
                        self.files[path] = _Followed(path, inode=-1)
                        continue
                    self.files[path] = _Followed(path)
                    self.session.add_source(path, rank_from_path(path))
                    if not os.path.exists(path):
                        self.gate.say(f"denpex watch: {path} does not exist yet; waiting for it")
        got = sum(self._read(f) for f in self.files.values() if f.inode != -1)
        if got:
            self.last_growth = now
        return got

    def _read(self, f: _Followed) -> int:
        try:
            st = os.stat(f.path)
        except FileNotFoundError:
            st = None
        got = 0
        if f.handle is not None and (st is None or st.st_ino != f.inode):
            got += self._drain(f)  # rotated or removed: what the old file still had, then let it go
            f.handle.close()  # type: ignore[attr-defined]
            f.handle, f.inode, f.offset = None, None, 0
        if st is None:
            return got
        if f.handle is None:
            try:
                f.handle = open(f.path, "rb")  # noqa: SIM115 - held across polls
            except OSError:
                return got
            f.inode, f.offset = os.fstat(f.handle.fileno()).st_ino, 0
            # What the file holds already was written by its last change at the latest: an
            # alert on it counts the watchdog's time from then, not from now.
            return got + self._drain(f, max(0.0, time.time() - st.st_mtime))
        if st.st_size < f.offset:
            f.handle.seek(0)  # type: ignore[attr-defined]
            f.offset = 0
        return got + self._drain(f)

    def _drain(self, f: _Followed, age_s: float = 0.0) -> int:
        got = 0
        while True:
            data = f.handle.read(READ_BYTES)  # type: ignore[attr-defined]
            if not data:
                return got
            f.offset += len(data)
            got += len(data)
            self.session.take(f.path, data, age_s)

    def close(self) -> None:
        for f in self.files.values():
            if f.handle is not None:
                f.handle.close()  # type: ignore[attr-defined]


def follow_files(targets: list[str], session: WatchSession, gate: StderrGate, *, idle_exit_s: float | None = None,
                 stop: threading.Event | None = None) -> None:
    """Follow until Ctrl-C or SIGTERM, `stop`, or `idle_exit_s` without any file growing."""
    stop = stop or threading.Event()
    follower = Follower(targets, session, gate)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.is_set():
            if not follower.poll():
                if idle_exit_s is not None and time.monotonic() - follower.last_growth >= idle_exit_s:
                    return
                stop.wait(POLL_S)
        follower.poll()  # what was written just before the stop
    finally:
        follower.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
