"""Run the job as a child: its stdout and stderr passed through byte for byte, as they come,
its exit status and the signals sent to us forwarded.

One thread, the pump, waits on both of the child's pipes (poll), reads what a pipe holds with
`os.read` (at once, whatever it is) and writes it to ours before anything else looks at it;
only then is the piece handed on to be matched. A job that writes line by line (an unbuffered
print, glog, NCCL) would wake the pump for every line or two: output that follows the last
within GATHER_S (2 ms) is let gather that long first, and while each gathering finds output
waiting the next is twice as long, up to GATHER_MAX_S (10 ms), so at 10 MB/s a wake-up reads
a thousand lines; a line after a quiet moment is read at once, and a job that fills a whole
read between two wake-ups is read without a pause. The pump does nothing else in
Python: read, write, hand over (`WatchSession.take` appends to a list; lines are cut later, a
batch at a time). One thread rather than one per pipe: a wake-up serves whatever is ready on
both, and two pumps no longer hand the interpreter to each other around every write (a third
less CPU at 10 MB/s of lines). The price: while a write to our stdout blocks (a reader that stopped
reading), the child's stderr waits too, in its pipe. The pipes are enlarged to 1 MB where the
system allows, so a job writing 10 MB/s is not held up while the pump waits a moment for the
interpreter. Our own lines (alerts) go to stderr only between two lines of the child's stderr,
so its bytes stay as they were and no line of it is split.

When the child exits, what its pipes still hold is passed on in full, however long our reader
takes; a grandchild that keeps them open is passed on for DRAIN_IDLE_S after they run empty.

The child runs in a process group of its own, so a Ctrl-C in the terminal reaches it once (we
forward it) rather than twice. If our stdout goes away (`| head`), the child's output is still
read and dropped: the job must not die of a broken pipe because its watcher's reader left.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
READ_BYTES = 1 << 16  # larger reads cost a fresh mmap each (glibc): 20 us instead of 2 for a line
PIPE_BYTES = 1 << 20
# A job writing without pause has its lines gathered before they are read: a wake-up per 2 ms
# instead of one per line or two, which cost the pump 4-5% of a core at 10 MB/s of lines. While
# each gathering finds output already waiting (the job streams), the next one is twice as long,
# up to GATHER_MAX_S: at 10 MB/s of lines ~100 wake-ups a second instead of ~450, the pump 1.25%
# -> 0.93% of a core (perf samples, nccl-native); most of the rest is the bytes' own copying out
# of the pipe, which longer gathering barely cuts (50 ms: 0.63%, for five times the wait). Once
# the pump has to wait for output (a quieter moment), it is GATHER_S again, and a line written
# after a quiet moment passes at once. A line of a streaming job waits at most GATHER_MAX_S: far
# below what a person at a terminal or a log collector notices.
GATHER_S = 0.002
GATHER_MAX_S = 0.010
# After the job exits and its pipes have run empty, how long a grandchild that holds them open
# is still passed on.
DRAIN_IDLE_S = 2.0


class StderrGate:
    """Our lines on stderr, only where the child's stderr is at the start of a line."""

    def __init__(self, fd: int = 2):
        self._fd = fd
        self._lock = threading.Lock()
        self._at_line_start = True
        self._pending: list[bytes] = []

    def child_wrote(self, data: bytes) -> None:
        """Pass the child's bytes through, then any of our lines that were waiting."""
        with self._lock:
            _write_all(self._fd, data)
            self._at_line_start = data.endswith(b"\n")
            if self._at_line_start and self._pending:
                self._flush()

    def say(self, text: str) -> None:
        with self._lock:
            self._pending.append(text.encode("utf-8", "replace") if text.endswith("\n") else (text + "\n").encode())
            if self._at_line_start:
                self._flush()

    def close(self) -> None:
        """The child is done: what is still waiting goes out, on a line of its own."""
        with self._lock:
            if self._pending and not self._at_line_start:
                _write_all(self._fd, b"\n")
                self._at_line_start = True
            self._flush()

    def _flush(self) -> None:
        for line in self._pending:
            _write_all(self._fd, line)
        self._pending.clear()


def _write_all(fd: int, data: bytes | memoryview) -> None:
    while data:
        try:
            n = os.write(fd, data)
        except BrokenPipeError:
            return  # the reader is gone; the job goes on
        except InterruptedError:
            continue
        if n == len(data):
            return  # the usual case: the whole piece at once, nothing copied
        data = memoryview(data)[n:]


class _Waiting:
    """Since when the pump has been waiting for the job's output (None: it is reading or
    writing, perhaps blocked on a reader of ours that paused)."""

    since: float | None = None


def _pump(streams: list[tuple[int, Callable[[bytes], None], Callable[[bytes], None]]], waiting: _Waiting) -> None:
    """Pass each (fd, write, take) stream through until its EOF: one thread for both of the
    child's pipes, so one wake-up serves whatever is ready on either and the two never pass the
    interpreter to each other between a read and its write."""
    poller = select.poll()
    handlers: dict[int, list[Callable[[bytes], None]]] = {}
    for fd, write, take in streams:
        poller.register(fd, select.POLLIN)
        handlers[fd] = [write, take]
    read, poll = os.read, poller.poll
    full = False  # the last wake-up filled a read: the job writes faster than gathering serves
    gather = GATHER_S
    while handlers:
        try:
            # Output that follows a wake-up within `gather` gathers until then, so one wake-up
            # reads a job's next hundreds of lines, not one; a line after a quieter moment finds
            # the pump waiting in poll and is read at once. Sleeping first, rather than after
            # poll saw the next line, costs a lone line nothing and a wake-up one poll less. Not
            # after a full read: a pause per READ_BYTES would hold a faster job back (its pipe fills).
            if not full:
                time.sleep(gather)
            ready = poll(0)
            if ready:
                # Output came while we gathered: the job streams; gather longer next time.
                if not full:
                    gather = min(gather * 2, GATHER_MAX_S)
            else:
                gather = GATHER_S  # a quiet moment: the next line is read at once, then 2 ms
                waiting.since = time.monotonic()
                ready = poll()
                waiting.since = None
        except InterruptedError:
            continue
        full = False
        for fd, _event in ready:
            handler = handlers.get(fd)
            if handler is None:
                continue
            try:
                data = read(fd, READ_BYTES)
            except InterruptedError:
                continue
            except OSError:
                data = b""
            full = full or len(data) == READ_BYTES
            if not data:
                poller.unregister(fd)
                del handlers[fd]
                os.close(fd)
                continue
            handler[0](data)
            try:
                handler[1](data)
            except Exception:  # the matcher must never stop the passthrough
                handler[1] = _drop


def _drop(_data: bytes) -> None:
    pass


def _enlarge(fd: int) -> None:
    """Room for PIPE_BYTES in the pipe (64 KB by default: 6 ms of a job writing 10 MB/s), or
    as much as the system allows an unprivileged process (/proc/sys/fs/pipe-max-size)."""
    for size in (PIPE_BYTES, _pipe_max()):
        with contextlib.suppress(OSError, AttributeError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
            return


def _pipe_max() -> int:
    try:
        with open("/proc/sys/fs/pipe-max-size") as f:
            return min(PIPE_BYTES, int(f.read()))
    except (OSError, ValueError):
        return 1 << 16


def run_child(argv: list[str], gate: StderrGate, take: Callable[[str, bytes], None],
              env: dict[str, str] | None = None, forwarded: list[int] | None = None) -> int:
    """Run `argv`; return its wait status as `subprocess` gives it (negative: killed by that
    signal); the signals passed on to it are appended to `forwarded`. Raises
    FileNotFoundError / PermissionError when it cannot be started."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    for fd in (out_r, err_r):
        _enlarge(fd)
    try:
        proc = subprocess.Popen(argv, stdout=out_w, stderr=err_w, env=env, process_group=0)
    except BaseException:
        os.close(out_r)
        os.close(err_r)
        raise
    finally:
        os.close(out_w)  # the child holds its own copies: EOF comes when it (and its children) exit
        os.close(err_w)

    def forward(signum: int, _frame: object) -> None:
        if forwarded is not None:
            forwarded.append(signum)
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signum)

    previous = {}
    for sig in FORWARDED:
        with contextlib.suppress(OSError, ValueError):
            previous[sig] = signal.signal(sig, forward)
    streams = [(out_r, functools.partial(_write_all, 1), functools.partial(take, "stdout")),
               (err_r, gate.child_wrote, functools.partial(take, "stderr"))]
    waiting = _Waiting()
    pump = threading.Thread(target=_pump, args=(streams, waiting), name="denpex-pump", daemon=True)
    pump.start()
    try:
        status = proc.wait()
    finally:
        # The child is gone: a Ctrl-C from here on is for us (a drain to a paused reader).
        for sig, handler in previous.items():
            with contextlib.suppress(OSError, ValueError):
                signal.signal(sig, handler)
    _drain(pump, waiting)
    return status


def _drain(pump: threading.Thread, waiting: _Waiting) -> None:
    """Wait for what the job wrote to go out in full, however long our reader takes to read it
    (a pager someone paused). Once the pipes have run empty, a grandchild that holds them open
    is passed on for DRAIN_IDLE_S more, not waited for."""
    deadline = None
    while pump.is_alive():
        pump.join(0.05)
        since = waiting.since
        if deadline is None and since is not None and time.monotonic() - since > 0.05:
            deadline = time.monotonic() + DRAIN_IDLE_S
        if deadline is not None and time.monotonic() > deadline:
            return


def exit_like(status: int) -> int:
    """End this process the way the child ended: its exit code, or its signal (re-raised on
    ourselves, so a parent sees a death by SIGTERM, not an exit code); 128+N if that fails."""
    if status >= 0:
        return status
    sig = -status
    with contextlib.suppress(OSError, ValueError):
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    return 128 + sig
