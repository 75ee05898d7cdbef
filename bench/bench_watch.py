"""`denpex watch`: alert latency, CPU overhead at 10 MB/s, byte-for-byte passthrough, signals.

    python bench/bench_watch.py [--runs 7] [--seconds 5] [--rate-mb 10] [--results FILE]

1. Latency: the real bot (HTTP mode) against the Slack stand-in and a private redis-server,
   a job that writes a healthy torchrun log (bench/loggen.py) and then its rank's OOM; the time
   from just before the failure is written to the stand-in recording chat.postMessage. Median.
2. CPU: the same healthy log replayed at `--rate-mb` MB/s for `--seconds`, run alone and under
   `denpex watch` (stdout to /dev/null both times); watch's CPU is the difference of the two
   runs' child CPU times, given as a share of one core over the run's wall time.
3. Passthrough: the SHA-256 of what the job wrote, alone and through watch.
4. Signals: SIGINT and SIGTERM sent to watch reach the job (it reports them).

Not a test: numbers for bench/RESULTS_WATCH.md. Target (issue 20): median < 2 s, < 2% CPU.
"""

from __future__ import annotations

import argparse
import hashlib
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
rate, seconds = float(sys.argv[2]) * 1e6, float(sys.argv[3])
chunk = 64 * 1024
start, sent, total = time.monotonic(), 0, int(rate * seconds)
while sent < total:
    piece = data[sent % len(data):][:min(chunk, total - sent)]
    os.write(1, piece)
    sent += len(piece)
    ahead = sent / rate - (time.monotonic() - start)
    if ahead > 0:
        time.sleep(ahead)
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


def timed_run(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(CPU seconds of the process tree, wall seconds, SHA-256 of its stdout)."""
    before, started = child_cpu(), time.monotonic()
    with tempfile.TemporaryFile() as out:
        subprocess.run(argv, stdout=out, stderr=subprocess.DEVNULL, env=env, check=False)
        wall = time.monotonic() - started
        out.seek(0)
        digest = hashlib.sha256()
        while block := out.read(1 << 20):
            digest.update(block)
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


def bench_cpu(tmp: Path, healthy: Path, rate_mb: float, seconds: float, env: dict[str, str]) -> dict:
    job = [sys.executable, "-c", REPLAY, str(healthy), str(rate_mb), str(seconds)]
    alone_cpu, alone_wall, alone_sha = timed_run(job, env)
    watch_cpu, watch_wall, watch_sha = timed_run([sys.executable, "-m", "bot", "watch", "--quiet", "--", *job], env)
    # The watcher's start (imports, the rule database) is paid once per job, not per MB: measured apart.
    start_cpu, _, _ = timed_run([sys.executable, "-m", "bot", "watch", "--quiet", "--", sys.executable, "-c", "pass"], env)
    overhead = watch_cpu - alone_cpu
    steady = max(0.0, overhead - start_cpu)
    return {"alone_cpu": alone_cpu, "alone_wall": alone_wall, "watch_cpu": watch_cpu, "watch_wall": watch_wall,
            "start_cpu": start_cpu, "overhead_pct": 100 * overhead / watch_wall, "steady_pct": 100 * steady / watch_wall,
            "same_bytes": alone_sha == watch_sha, "mb": rate_mb * seconds}  # fmt: skip


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


def passthrough_delay(argv: list[str], env: dict[str, str]) -> float:
    """Median time from a line's write by the job to its arrival on our side of the pipe."""
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdout is not None
    delays = [time.time() - float(line) for line in iter(p.stdout.readline, b"") if line.strip()]
    p.wait()
    return statistics.median(delays)


def where_cpu_goes(healthy: Path) -> tuple[float, float]:
    """MB/s of CPU for the scan and for the masker's learning, in 1 MB pieces as watch feeds them."""
    from bot.masking import Masker
    from bot.service import Denpex

    data = healthy.read_bytes()
    pieces, at = [], 0
    while at < len(data):
        cut = data.rfind(b"\n", at, at + (1 << 20)) + 1 or len(data)
        pieces.append(data[at:cut])
        at = cut
    scan, masker = Denpex().matcher.scan(), Masker()
    started = time.process_time()
    for piece in pieces:
        scan.feed(piece)
    scanned = time.process_time() - started
    started = time.process_time()
    for piece in pieces:
        masker.learn(piece)
    learned = time.process_time() - started
    return len(data) / 1e6 / scanned, len(data) / 1e6 / learned


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rate-mb", type=float, default=10.0)
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS_WATCH.md")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="denpex-bench-watch-") as name:
        tmp = Path(name)
        healthy, failure = healthy_and_failure(tmp, 24_000_000)
        cpu = bench_cpu(tmp, healthy, args.rate_mb, args.seconds, env)
        latencies = bench_latency(tmp, healthy, failure, args.runs, env)
        signals = bench_signals(env)
        scan_mb_s, learn_mb_s = where_cpu_goes(healthy)
        job = [sys.executable, "-c", STAMPED]
        delay_alone = passthrough_delay(job, env)
        delay_watch = passthrough_delay([sys.executable, "-m", "bot", "watch", "--quiet", "--", *job], env)
    median = statistics.median(latencies)
    text = f"""# `denpex watch` benchmark

Machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.
`python bench/bench_watch.py --runs {args.runs} --seconds {args.seconds:g} --rate-mb {args.rate_mb:g}`

| what | result | target |
|---|---|---|
| root-cause line written → alert posted (median of {len(latencies)}) | **{median:.3f} s** (min {min(latencies):.3f}, max {max(latencies):.3f}) | < 2 s |
| watch's CPU on a job writing {args.rate_mb:g} MB/s for {args.seconds:g} s ({cpu['mb']:.0f} MB, one core = 100%) | **{cpu['overhead_pct']:.1f}%** of a core in all; {cpu['steady_pct']:.1f}% past its start-up ({cpu['start_cpu']:.2f} s CPU once per job) | < 2% |
| the job's CPU alone / under watch (process tree) | {cpu['alone_cpu']:.2f} s / {cpu['watch_cpu']:.2f} s over {cpu['watch_wall']:.1f} s | |
| a line's way from the job to the reader (median of 200), alone / through watch | {delay_alone * 1000:.2f} ms / {delay_watch * 1000:.2f} ms | no added latency |
| stdout byte for byte (SHA-256 alone vs through watch) | {'identical' if cpu['same_bytes'] else 'DIFFERENT'} | identical |
| SIGINT / SIGTERM reach the job | {', '.join(f"{k}: {'yes' if v else 'NO'}" for k, v in signals.items())} | yes |

Where watch's CPU goes (one core, this log in 1 MB pieces): the matcher's scan reads
{scan_mb_s:.0f} MB/s, the masker's learning (`Masker.learn`, which must read every line so
that a name learned anywhere is masked in the evidence) {learn_mb_s:.0f} MB/s; at {args.rate_mb:g} MB/s
that is {100 * args.rate_mb / scan_mb_s:.1f}% + {100 * args.rate_mb / learn_mb_s:.1f}% of a core. The 2% target
needs both near 1 GB/s; the learning is the larger share and lives in bot/masking.
"""
    args.results.write_text(text)
    print(text)
    return 0 if cpu["same_bytes"] and all(signals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
