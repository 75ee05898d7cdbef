"""Timing one command the way every benchmark here reports it: CPU seconds of a fresh process.

Shared by `bench_families.py` and `bench_matcher.py`, so both measure alike: GNU time's user +
system seconds and the command's own peak RSS (wait4 where GNU time is missing), each command in
a session of its own that a signal to the benchmark ends too, the least CPU time of a few runs
(on a shared machine noise only adds), and the machine described beside the figures.
"""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MB = 1_000_000
GNU_TIME = "/usr/bin/time"

# Commands running in sessions of their own: a signal that ends this process ends them too
# (otherwise a stopped benchmark leaves a child reading a 1 GB log for minutes).
_SESSIONS: set[int] = set()


def _end_sessions(signum: int, _frame: object) -> None:
    for pid in list(_SESSIONS):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    raise SystemExit(128 + signum)


def end_children_on_signals() -> None:
    """SIGTERM, SIGINT or SIGHUP to the benchmark also ends the command it is timing."""
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _end_sessions)


def run_timed(cmd: list[str], *, cwd: Path | None = None, env: dict | None = None, capture: bool = True,
              timeout: float | None = None) -> dict:  # fmt: skip
    """Run `cmd`; its CPU seconds (user + system), wall seconds, peak RSS (KB), exit code, stdout.

    GNU time reports the command's own peak (it starts small and execs nothing else). Without
    it, the CPU time is the change in this process's children's rusage, and the peak is the
    largest of any child so far, which on Linux also carries this process's own peak over the
    fork: an upper bound (this process stays small)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        full = [GNU_TIME, "-o", tf.name, "-f", "%U %S %M", *cmd] if os.path.exists(GNU_TIME) else cmd
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.Popen(full, cwd=cwd, env=env, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
        _SESSIONS.add(proc.pid)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"timeout": timeout, "rc": None, "cpu_s": None, "wall_s": None, "maxrss_kb": None, "stdout": "", "stderr": ""}
        finally:
            _SESSIONS.discard(proc.pid)
        wall = time.perf_counter() - started
        res = {"rc": proc.returncode, "wall_s": wall, "stdout": (out or b"").decode(errors="replace"),
               "stderr": err.decode(errors="replace")[-1500:]}  # fmt: skip
        if full is not cmd:
            parts = tf.read().split()
            if len(parts) >= 3:  # a last line "Command exited with non-zero status" comes first
                u, s, m = parts[-3:]
                res.update(cpu_s=float(u) + float(s), maxrss_kb=int(m))
                return res
            res.update(cpu_s=None, maxrss_kb=None)
            return res
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    res.update(cpu_s=after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, maxrss_kb=after.ru_maxrss)
    return res


def best_of(make: Callable[[], dict], repeat: int) -> dict:
    """The run with the least CPU time of `repeat` (noise on a shared machine only adds), with the
    largest peak RSS of them; the first failed run is returned as it is."""
    runs = []
    for _ in range(max(1, repeat)):
        r = make()
        if r.get("rc") not in (0, 1) or r.get("cpu_s") is None:  # rg exits 1 when nothing matched
            return r
        runs.append(r)
    best = dict(min(runs, key=lambda r: r["cpu_s"]))
    best["maxrss_kb"] = max(r["maxrss_kb"] or 0 for r in runs) or None
    best["cpu_runs"] = [round(r["cpu_s"], 3) for r in runs]
    return best


def peak_rss_kb() -> int | None:
    """This process's own peak RSS (VmHWM). `ru_maxrss` would not do: Linux carries the
    parent's peak over a fork into the child's, so every child would report the parent's."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def machine(rg: str | None) -> dict:
    """The CPU, Python, platform, ripgrep and timing method, for the report's header."""
    info = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            key, _, val = line.partition(":")
            if key.strip() in ("Model name", "CPU(s)", "Thread(s) per core", "Core(s) per socket", "Hypervisor vendor", "L3 cache"):
                info[key.strip()] = val.strip()
    except OSError:
        info["lscpu"] = "not available"
    info["python"] = platform.python_version()
    info["platform"] = platform.platform()
    info["ripgrep"] = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.splitlines()[0] if rg else "not installed"
    info["timing"] = "GNU time" if os.path.exists(GNU_TIME) else "wait4 (peak RSS an upper bound)"
    return info


def mbps(nbytes: int, seconds: float | None) -> float | None:
    """MB (10^6 bytes) per second; None when there is no time to divide by."""
    if seconds is None:
        return None
    return nbytes / MB / max(seconds, 1e-3)


def fmt_rss(kb: int | None) -> str:
    return f"{kb / 1024:.0f} MB" if kb else "n/a"
