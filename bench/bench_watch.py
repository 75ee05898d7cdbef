"""`denpex watch`: alert latency, CPU overhead at 10 MB/s per log family, byte-for-byte passthrough, signals.

    python bench/bench_watch.py [--runs 7] [--seconds 5] [--rate-mb 10] [--families a,b] [--writes lines]
                                [--repeat 1] [--before TREE] [--results FILE] [--no-write]

1. Latency: the real bot (HTTP mode) against the Slack stand-in and a private redis-server,
   a job that writes a healthy torchrun log (bench/loggen.py) and then its rank's OOM; the time
   from just before the failure is written to the stand-in recording chat.postMessage. Median.
2. CPU, for every loggen family: a job replays the family's healthy log at `--rate-mb` MB/s for
   `--seconds` (`--writes lines`: one write per line, as unbuffered prints, glog and NCCL do, the
   default and the harder case for a passthrough; `blocks`: 64 KB writes), under `denpex watch`
   run through a wrapper (MEASURED) that reads watch's own CPU from the inside: every thread of
   it, not the job's, from the job's start to watch's exit, and each part's thread CPU
   (passthrough pumps, matcher scan, Masker.learn, the matching thread's own work). Given as a
   share of one core over the job's run; the slowest family is the headline. Cross-check: the
   process tree's CPU under watch less the job's alone and watch's start-up. `--before TREE`
   measures another checkout the same way, family by family in the same run (the machine is
   shared: compare within one run). `--repeat N` keeps each tree's least CPU of N runs.
3. Passthrough: the SHA-256 of what the job wrote on stdout and stderr, alone and through watch.
4. Signals: SIGINT and SIGTERM sent to watch reach the job (it reports them).

Not a test: numbers for bench/RESULTS_WATCH.md. Target (issue 20): median < 2 s, < 2% CPU.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import loggen  # noqa: E402

REPLAY = """
import os, sys, time
data = open(sys.argv[1], 'rb').read()
rate, seconds, how = float(sys.argv[2]) * 1e6, float(sys.argv[3]), sys.argv[4]
total = int(rate * seconds)
data = (data * (total // len(data) + 1))[:total]
# How a job writes: 'lines', one write per line, as an unbuffered Python print, glog or NCCL's
# fprintf+fflush do (a pipe's reader wakes for each); 'blocks', 64 KB writes cutting lines
# anywhere, as a block-buffered job does. Every fourth write goes to stderr (warnings and
# tracebacks go there): both streams are passed through and hashed.
if how == 'lines':
    pieces = data.splitlines(keepends=True)
else:
    view = memoryview(data)
    pieces = [view[at:at + 65536] for at in range(0, total, 65536)]
start, sent = time.monotonic(), 0
write = os.write
for n, piece in enumerate(pieces):
    write(2 if n % 4 == 3 else 1, piece)
    sent += len(piece)
    if n % 256 == 0 or how == 'blocks':  # a 64 KB block is 6 ms at 10 MB/s: pace each
        ahead = sent / rate - (time.monotonic() - start)
        if ahead > 0:
            time.sleep(ahead)
"""

# `python -m bot watch ...` with its CPU accounted from the inside: RUSAGE_SELF (every thread of
# watch, not the job) when the job starts and at exit, and the CPU of each thread's work read with
# time.thread_time around the functions that do it: the passthrough pumps, the matching thread,
# and within it the matcher's scan and the masker's learning. Wrappers, not changes: the watch
# code measured is the tree's own (`--before` runs another tree through the same wrapper).
MEASURED = """
import atexit, json, resource, runpy, sys, threading, time
out, argv = sys.argv[1], sys.argv[2:]
def cpu(who=resource.RUSAGE_SELF):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime
acc, lock, marks = {'pumps': 0.0, 'match_thread': 0.0, 'scan': 0.0, 'learn': 0.0}, threading.Lock(), {}
def timed(key, fn):
    def wrapper(*a, **k):
        t = time.thread_time()
        try:
            return fn(*a, **k)
        finally:
            with lock:
                acc[key] += time.thread_time() - t
    return wrapper
import bot.watch.child as child, bot.watch.session as session
from bot.matcher.engine import Scan
from bot.masking import Masker
child._pump = timed('pumps', child._pump)
session.WatchSession._run = timed('match_thread', session.WatchSession._run)
Scan.feed = timed('scan', Scan.feed)
Masker.learn = timed('learn', Masker.learn)
real_run_child = child.run_child
# Snapshots while the job runs (every thread's CPU, the scan's and the learning's so far): the
# job's second half, past the log's own warm-up (the matcher's sample, its floods' regexes),
# is what each further second of a long job costs.
snaps, running = [], threading.Event()
def snapshots():
    while running.is_set():
        with lock:
            snaps.append((time.monotonic(), cpu(), acc['scan'], acc['learn']))
        time.sleep(0.25)
def run_child(*a, **k):
    marks['start_cpu'], t = cpu(), time.monotonic()
    marks['start_at'] = t
    running.set()
    threading.Thread(target=snapshots, daemon=True).start()
    try:
        return real_run_child(*a, **k)
    finally:
        running.clear()
        marks['wall'] = time.monotonic() - t
        with lock:
            snaps.append((time.monotonic(), cpu(), acc['scan'], acc['learn']))
child.run_child = run_child
atexit.register(lambda: open(out, 'w').write(json.dumps({**acc, **marks, 'snaps': snaps, 'cpu': cpu(), 'job_cpu': cpu(resource.RUSAGE_CHILDREN)})))
sys.argv = ['bot', *argv]
runpy.run_module('bot', run_name='__main__')
"""

DYING = """
import os, sys, time
healthy, failure, stamp = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), sys.argv[3]
os.write(1, healthy)
time.sleep(0.5)
t = time.time()
os.write(2, failure)
open(stamp, 'w').write(repr(t))
time.sleep(float(sys.argv[4]))
sys.exit(1)
"""

STAMPED = """
import os, time
for _ in range(200):
    os.write(1, repr(time.time()).encode() + b"\\n")
    time.sleep(0.005)
"""

# STAMPED while the job writes a log at 10 MB/s line by line on stderr: the passthrough's delay
# when the matching thread is busy (both want the interpreter).
STAMPED_BUSY = """
import os, sys, time
lines = open(sys.argv[1], 'rb').read().splitlines(keepends=True)
rate, seconds = float(sys.argv[2]) * 1e6, float(sys.argv[3])
start = time.monotonic()
sent, stamp_at, n = 0, start, 0
while True:
    line = lines[n % len(lines)]
    os.write(2, line)
    sent, n = sent + len(line), n + 1
    now = time.monotonic()
    if now >= stamp_at:
        os.write(1, repr(time.time()).encode() + b"\\n")
        stamp_at = now + 0.01
    if now - start > seconds:
        break
    if n % 64 == 0 and sent / rate > now - start:
        time.sleep(sent / rate - (now - start))
"""

SIGNALLED = """
import signal, sys, time
def on(sig, _f):
    print('got', signal.Signals(sig).name, flush=True)
    sys.exit(0)
signal.signal(signal.SIGINT, on)
signal.signal(signal.SIGTERM, on)
print('ready', flush=True)
time.sleep(30)
"""


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """(CPU seconds of the process tree, wall seconds, SHA-256 of its stdout then its stderr)."""
    before, started = child_cpu(), time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        subprocess.run(argv, stdout=out, stderr=err, env=env, cwd=cwd, check=False)
        wall = time.monotonic() - started
        digest = hashlib.sha256()
        for f in (out, err):
            f.seek(0)
            while block := f.read(1 << 20):
                digest.update(block)
            digest.update(b"\0--\0")
    return child_cpu() - before, wall, digest.hexdigest()


def healthy_and_failure(tmp: Path, size: int) -> tuple[Path, Path]:
    log = tmp / "torchrun.log"
    meta = loggen.generate_file(str(log), size, "torchrun", failure_at=1.0)
    data = log.read_bytes()
    healthy, failure = tmp / "healthy.log", tmp / "failure.log"
    start = meta["failure_at_byte"]
    # The failing rank's traceback up to its OOM line: what it prints when it dies; the other
    # ranks' timeouts in the tail come minutes later in a real job.
    end = data.index(b"\n", data.index(b"OutOfMemoryError", start)) + 1
    healthy.write_bytes(data[:start])
    failure.write_bytes(data[start:end])
    return healthy, failure


def healthy_log(tmp: Path, family: str, size: int) -> Path:
    """`size` bytes of a family's log before its failure (the replay does not repeat itself)."""
    log = tmp / f"{family}.log"
    meta = loggen.generate_file(str(log), int(size * 1.1) + 1_000_000, family, failure_at=1.0)
    with open(log, "r+b") as f:
        f.truncate(meta["failure_at_byte"])
    return log


def measured_watch(code: Path, job: list[str], env: dict[str, str], tmp: Path) -> tuple[dict, float, str]:
    """One `denpex watch --quiet -- JOB` of the tree at `code`, accounted from the inside (MEASURED)."""
    stats = tmp / "watch-cpu.json"
    stats.unlink(missing_ok=True)
    tree_cpu, _, sha = timed_run([sys.executable, "-c", MEASURED, str(stats), "watch", "--quiet", "--", *job],
                                 {**env, "PYTHONPATH": str(code)}, tmp)
    return json.loads(stats.read_text()), tree_cpu, sha


def bench_cpu(tmp: Path, log: Path, rate_mb: float, seconds: float, env: dict[str, str], code: Path,
              writes: str = "lines") -> dict:
    """Watch's CPU while a job replays `log` at `rate_mb` MB/s: past its start-up (CPU before the
    job starts: imports, the rule database), as a share of one core over the job's run, and where
    it goes. Cross-check: the process tree's CPU under watch less the job's alone and the start-up."""
    job = [sys.executable, "-c", REPLAY, str(log), str(rate_mb), str(seconds), writes]
    alone_cpu, _, alone_sha = timed_run(job, env, tmp)
    w, tree_cpu, watch_sha = measured_watch(code, job, env, tmp)
    wall = w["wall"]
    steady = w["cpu"] - w["start_cpu"]
    pct = 100 / wall
    # The job's second half: from the snapshot nearest its middle to the one as it ended.
    snaps = w["snaps"]
    mid = min(snaps, key=lambda x: abs(x[0] - (w["start_at"] + wall / 2)))
    last = snaps[-1]
    half = 100 / max(last[0] - mid[0], 1e-9)
    return {"mb": rate_mb * seconds, "wall": wall, "start_cpu": w["start_cpu"], "steady_pct": steady * pct,
            "half_pct": (last[1] - mid[1]) * half, "half_scan_learn_pct": (last[2] - mid[2] + last[3] - mid[3]) * half,
            "pumps_pct": w["pumps"] * pct, "scan_pct": w["scan"] * pct, "learn_pct": w["learn"] * pct,
            "session_pct": max(0.0, w["match_thread"] - w["scan"] - w["learn"]) * pct,
            "other_pct": max(0.0, w["cpu"] - w["start_cpu"] - w["pumps"] - w["match_thread"]) * pct,
            "tree_pct": (tree_cpu - alone_cpu - w["start_cpu"]) * pct, "alone_cpu": alone_cpu, "job_cpu": w["job_cpu"],
            "scan_mb_s": rate_mb * seconds / w["scan"] if w["scan"] else 0.0,
            "learn_mb_s": rate_mb * seconds / w["learn"] if w["learn"] else 0.0,
            "same_bytes": alone_sha == watch_sha}  # fmt: skip


def bench_latency(tmp: Path, healthy: Path, failure: Path, runs: int, env: dict[str, str]) -> list[float]:
    import redis

    from bot.store import Store, StoreConfig
    from tests.slack.conftest import slack_redis_url, start_bot, stop_bot
    from tests.slack.fake_slack import TEAM_ID, FakeSlack

    fake = FakeSlack().start()
    url = slack_redis_url()
    redis.Redis.from_url(url).flushdb()
    bot = start_bot(fake, url)
    try:
        with Store(StoreConfig(url=url)) as store:
            store.plans.grant(TEAM_ID, "scale", datetime.now(UTC) + timedelta(days=1))
            token = store.alerts.connect(TEAM_ID, "C0BENCH", "UBENCH")
        small = tmp / "healthy-head.log"
        small.write_bytes(healthy.read_bytes()[-2_000_000:].split(b"\n", 1)[1])
        out = []
        for i in range(runs):
            fake.reset()
            stamp = tmp / f"stamp-{i}"
            job_env = {**env, "DENPEX_ALERT_URL": bot.url, "DENPEX_ALERT_TOKEN": token, "DENPEX_JOB_ID": f"bench-{i}-{time.time_ns()}"}
            p = subprocess.Popen([sys.executable, "-m", "bot", "watch", "--quiet", "--", sys.executable, "-c", DYING,
                                  str(small), str(failure), str(stamp), "3"], env=job_env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            posted = fake.wait_for("chat.postMessage", timeout=30)[0]
            written = float(stamp.read_text())
            out.append(posted.at - written)
            p.wait(timeout=60)
        return out
    finally:
        stop_bot(bot)
        fake.stop()


def passthrough_delay(argv: list[str], env: dict[str, str], skip: int = 0) -> list[float]:
    """Each time from a line's write by the job to its arrival on our side of the pipe."""
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdout is not None
    delays = [time.time() - float(line) for line in iter(p.stdout.readline, b"") if line.strip()]
    p.wait()
    return delays[skip:]


def ms(delays: list[float]) -> str:
    # A loaded machine can let fewer than two stamps through; quantiles needs two.
    if len(delays) < 2:
        return f"only {len(delays)} line(s) arrived: no figure"
    q = statistics.quantiles(delays, n=100, method="inclusive")  # never past the largest
    return f"{statistics.median(delays) * 1000:.2f} / {q[98] * 1000:.1f} / {max(delays) * 1000:.1f} ms"


def bench_signals(env: dict[str, str]) -> dict[str, bool]:
    got = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        p = subprocess.Popen([sys.executable, "-m", "bot", "watch", "--quiet", "--", sys.executable, "-c", SIGNALLED],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert p.stdout is not None
        p.stdout.readline()
        p.send_signal(sig)
        out, _ = p.communicate(timeout=30)
        got[sig.name] = f"got {sig.name}".encode() in out and p.returncode == 0
    return got


def _own(c: dict) -> float:
    """Watch's own share: the passthrough and everything that is neither the scan nor the learning."""
    return c["pumps_pct"] + c["session_pct"] + c["other_pct"]


def pct(x: float) -> str:
    return f"{x:.1f}%"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rate-mb", type=float, default=10.0)
    ap.add_argument("--families", default=",".join(loggen.FAMILIES), help="comma-separated loggen families")
    ap.add_argument("--writes", choices=("lines", "blocks"), default="lines", help="how the job writes (see above)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per family and tree; the least CPU is kept")
    ap.add_argument("--before", type=Path, help="another tree (a checkout before a change), measured in the same run")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS_WATCH.md")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    families = [f for f in args.families.split(",") if f]
    cpu: dict[str, dict] = {}
    before: dict[str, dict] = {}
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="denpex-bench-watch-") as name:
        tmp = Path(name)
        for family in families:
            log = healthy_log(tmp, family, int(args.rate_mb * args.seconds * 1e6))
            for _ in range(args.repeat):  # the trees in turn, so the machine's moods fall on both
                for tree, into in ((ROOT, cpu), (args.before, before)):
                    if tree is None:
                        continue
                    got = bench_cpu(tmp, log, args.rate_mb, args.seconds, env, tree.resolve(), args.writes)
                    if family not in into or got["steady_pct"] < into[family]["steady_pct"]:
                        into[family] = {**got, "same_bytes": got["same_bytes"] and into.get(family, got)["same_bytes"]}
            log.unlink()
            c = cpu[family]
            print(f"{family}: {pct(c['steady_pct'])} of a core past start-up "
                  f"(passthrough {pct(c['pumps_pct'])}, scan {pct(c['scan_pct'])}, learn {pct(c['learn_pct'])}, "
                  f"session {pct(c['session_pct'])}, other {pct(c['other_pct'])}; tree cross-check {pct(c['tree_pct'])}; "
                  f"second half {pct(c['half_pct'])}, of it scan and learning {pct(c['half_scan_learn_pct'])})"
                  + (f"; before: {pct(before[family]['steady_pct'])}, second half {pct(before[family]['half_pct'])}"
                     if args.before else ""), flush=True)
        healthy, failure = healthy_and_failure(tmp, 24_000_000)
        latencies = bench_latency(tmp, healthy, failure, args.runs, env)
        signals = bench_signals(env)
        job = [sys.executable, "-c", STAMPED]
        delay_alone = passthrough_delay(job, env)
        delay_watch = passthrough_delay([sys.executable, "-m", "bot", "watch", "--quiet", "--", *job], env)
        busy = [sys.executable, "-c", STAMPED_BUSY, str(healthy), str(args.rate_mb), "6"]
        # The first 100 stamps (a second) pass while watch's start-up still holds the interpreter.
        busy_alone = passthrough_delay(busy, env, skip=100)
        busy_watch = passthrough_delay([sys.executable, "-m", "bot", "watch", "--quiet", "--", *busy], env, skip=100)
    load_end = os.getloadavg()
    median = statistics.median(latencies)
    slowest = max(cpu, key=lambda f: cpu[f]["steady_pct"])
    s = cpu[slowest]
    same = all(c["same_bytes"] for c in cpu.values())
    own = s["pumps_pct"] + s["session_pct"] + s["other_pct"]
    summary = (f"Of the slowest family's {pct(s['steady_pct'])}, the matcher's scan and `Masker.learn` are "
               f"{pct(s['scan_pct'] + s['learn_pct'])}; watch's own part (passthrough and the rest) {pct(own)}. "
               f"Over all families watch's own part is {pct(min(_own(c) for c in cpu.values()))} to "
               f"{pct(max(_own(c) for c in cpu.values()))}, the scan and the learning "
               f"{pct(min(c['scan_pct'] + c['learn_pct'] for c in cpu.values()))} to "
               f"{pct(max(c['scan_pct'] + c['learn_pct'] for c in cpu.values()))}.")
    if before:
        b_slowest = max(before, key=lambda f: before[f]["steady_pct"])
        b = before[b_slowest]
        summary += (f" Before (the other tree, same run): slowest family {b_slowest} at {pct(b['steady_pct'])} "
                    f"(scan and learning {pct(b['scan_pct'] + b['learn_pct'])}, own part {pct(_own(b))}); own part "
                    f"{pct(min(_own(c) for c in before.values()))} to {pct(max(_own(c) for c in before.values()))} "
                    "over all families.")
    start_cpu = statistics.median(c["start_cpu"] for c in cpu.values())
    rows = "\n".join(
        f"| {f} | **{pct(c['steady_pct'])}** | {pct(c['pumps_pct'])} | {pct(c['scan_pct'])} | {pct(c['learn_pct'])} "
        f"| {pct(c['session_pct'] + c['other_pct'])} | {pct(c['tree_pct'])} | {c['scan_mb_s']:.0f} / {c['learn_mb_s']:.0f} "
        f"| {'yes' if c['same_bytes'] else 'NO'} | {pct(c['half_pct'])} ({pct(c['half_scan_learn_pct'])}) |"
        + (f" {pct(before[f]['steady_pct'])} ({pct(before[f]['pumps_pct'])} / {pct(before[f]['scan_pct'])} / "
           f"{pct(before[f]['learn_pct'])} / {pct(before[f]['session_pct'] + before[f]['other_pct'])}); second half "
           f"{pct(before[f]['half_pct'])} ({pct(before[f]['half_scan_learn_pct'])}) |" if args.before else "")
        for f, c in cpu.items()
    )
    before_head = " before (passthrough / scan / learn / the rest); second half |" if args.before else ""
    before_rule = "---|" if args.before else ""
    command = f"python bench/bench_watch.py --runs {args.runs} --seconds {args.seconds:g} --rate-mb {args.rate_mb:g}"
    if args.families != ",".join(loggen.FAMILIES):
        command += f" --families {args.families}"
    if args.writes != "lines":
        command += f" --writes {args.writes}"
    if args.repeat != 1:
        command += f" --repeat {args.repeat}"
    if args.before:
        command += " --before TREE"
    text = f"""# `denpex watch` benchmark

Machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())};
load average at the start / end {load_start[0]:.2f} / {load_end[0]:.2f} (the machine is shared: compare within one run).
`{command}`

| what | result | target |
|---|---|---|
| root-cause line written → alert posted (median of {len(latencies)}, torchrun) | **{median:.3f} s** (min {min(latencies):.3f}, max {max(latencies):.3f}) | < 2 s |
| watch's CPU past its start-up on a job writing {args.rate_mb:g} MB/s, slowest family ({slowest}) | **{pct(s['steady_pct'])}** of a core: passthrough {pct(s['pumps_pct'])}, matcher {pct(s['scan_pct'])}, learning {pct(s['learn_pct'])}, the rest {pct(s['session_pct'] + s['other_pct'])} | < 2% |
| watch's start-up (CPU before the job starts, once per job; median over the runs) | {start_cpu:.2f} s | |
| a line's way from the job to the reader, median / p99 / max of 200 lines 5 ms apart: alone; through watch | {ms(delay_alone)}; {ms(delay_watch)} | no added latency |
| the same while the job writes {args.rate_mb:g} MB/s of torchrun lines on stderr (a line each 10 ms, past the first second): alone; through watch | {ms(busy_alone)}; {ms(busy_watch)} | no added latency |
| stdout and stderr byte for byte (SHA-256 alone vs through watch, every family) | {'identical' if same else 'DIFFERENT'} | identical |
| SIGINT / SIGTERM reach the job | {', '.join(f"{k}: {'yes' if v else 'NO'}" for k, v in signals.items())} | yes |

## Watch's CPU per family ({args.rate_mb:g} MB/s for {args.seconds:g} s, one core = 100%)

The job replays {args.rate_mb * args.seconds:.0f} MB of the family's healthy log (bench/loggen.py), {'one write per line' if args.writes == 'lines' else 'in 64 KB writes'},
a quarter of the writes to stderr. Watch runs under a wrapper that reads its own CPU (every
thread, not the job's) when the job starts and at exit, and each thread's CPU
(`time.thread_time`) around the passthrough pumps, the matching thread and, inside it, the
matcher's scan and `Masker.learn`: the columns are shares of one core over the job's run.
The rest: the matching thread's own work (batching, line cutting, verdicts) and the main thread.
Cross-check: the process tree's CPU under watch, less the job's CPU alone and watch's start-up
(two runs, so noisier). Scan / learn MB/s: the family's bytes over each one's CPU in watch.
Second half: watch's CPU (every thread) from the middle of the job's run to its end, read from
snapshots every 0.25 s, and of it the scan and the learning: past the log's warm-up (the
matcher's first sample of the log, the regexes of the floods it empties), what each further
second of a long job costs.

{summary}

| family | watch, past start-up | passthrough | matcher scan | `Masker.learn` | the rest | tree cross-check | scan / learn MB/s | bytes identical | second half (scan and learning) |{before_head}
|---|---|---|---|---|---|---|---|---|---|{before_rule}
{rows}
"""
    if not args.no_write:
        args.results.write_text(text)
    print(text)
    return 0 if same and all(signals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
