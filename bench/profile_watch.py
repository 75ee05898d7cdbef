"""Where `denpex watch`'s matching thread spends its CPU, pass by pass, per log family.

    python bench/profile_watch.py [--families a,b] [--mb 50] [--repeat 3]

`bench_watch.py` measures watch as a whole under a job writing 10 MB/s; this feeds a family's
healthy log (the same one) straight to what the matching thread runs, in the slices the session
cuts (`bot/watch/session.py`): `ascii_spaces` and the timeout facts, the matcher's scan and
`Masker.learn`, and reads each pass's CPU (`time.process_time`, one thread) on the log's second
half, past its warm-up (the matcher's sample, the floods it settles): what each further MB of a
long job costs. ms per MB; at 10 MB/s, 1 ms a MB is 1% of a core. The least of `--repeat` runs.
The passes inside the scan and the learning are timed by wrappers, not changes to the code:

    scan: blank (settled floods emptied, `Blanker.blank`), candidates (the prefilter's
          Hyperscan pass and its lines, `Prefilter.candidate_lines`), lines (candidate lines
          matched one by one, `Scan._line`), the rest (flood look-ups, line numbers, world sizes)
    learn: nccl (NCCL prefix hosts, `learn_nccl_hosts_bytes`), teaching (the teaching lines'
          passes, `_mask_all`), the rest (one line of each digit shape, the anchor automatons,
          the snippets' shapes)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import loggen  # noqa: E402
from bench_watch import healthy_log  # noqa: E402

from bot.masking import masker  # noqa: E402
from bot.matcher import blanking, engine, prefilter  # noqa: E402
from bot.service import Denpex  # noqa: E402
from bot.spaces import ascii_spaces  # noqa: E402
from bot.watch.alerting import TimeoutFacts  # noqa: E402
from bot.watch.session import FEED_SLICE_BYTES, _slices  # noqa: E402

PARTS = ("blank", "candidates", "lines", "nccl", "teaching")


def timed(owner: object, name: str, acc: dict[str, float], key: str) -> None:
    """Wrap `owner.name` so that its CPU adds up in `acc[key]` (outermost calls only)."""
    real: Callable = getattr(owner, name)
    depth = [0]

    def wrapper(*a: object, **k: object) -> object:
        depth[0] += 1
        t = time.process_time()
        try:
            return real(*a, **k)
        finally:
            depth[0] -= 1
            if not depth[0]:
                acc[key] += time.process_time() - t

    setattr(owner, name, wrapper)


def profile(log: Path, acc: dict[str, float]) -> dict[str, float]:
    """ms per MB of each pass over the second half of `log`."""
    data = ascii_spaces(log.read_bytes())
    pieces = list(_slices(data, FEED_SLICE_BYTES))
    half = len(pieces) // 2
    live, facts = Denpex().live(), TimeoutFacts()
    scan, learner = live._scan, live._masker
    for piece in pieces[:half]:
        facts.read(piece)
        scan.feed(piece)
        learner.learn(piece)
    for key in acc:
        acc[key] = 0.0
    out = dict.fromkeys(("session", "scan", "learn"), 0.0)
    for piece in pieces[half:]:
        t0 = time.process_time()
        ascii_spaces(piece)
        facts.read(piece)
        t1 = time.process_time()
        scan.feed(piece)
        t2 = time.process_time()
        learner.learn(piece)
        t3 = time.process_time()
        out["session"] += t1 - t0
        out["scan"] += t2 - t1
        out["learn"] += t3 - t2
    mb = sum(map(len, pieces[half:])) / 1e6
    out.update(acc)
    out["scan rest"] = out["scan"] - acc["blank"] - acc["candidates"] - acc["lines"]
    out["learn rest"] = out["learn"] - acc["nccl"] - acc["teaching"]
    return {key: value * 1000 / mb for key, value in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", default=",".join(loggen.FAMILIES))
    ap.add_argument("--mb", type=int, default=50, help="the log's size (MB): bench_watch's 10 MB/s for 5 s")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    acc = dict.fromkeys(PARTS, 0.0)
    timed(blanking.Blanker, "blank", acc, "blank")
    timed(prefilter.Prefilter, "candidate_lines", acc, "candidates")
    timed(engine.Scan, "_line", acc, "lines")
    timed(masker, "learn_nccl_hosts_bytes", acc, "nccl")
    timed(masker, "_mask_all", acc, "teaching")
    columns = ("session", "scan", "blank", "candidates", "lines", "scan rest", "learn", "nccl", "teaching", "learn rest")
    print("| family | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.families.split(","):
            log = healthy_log(Path(tmp), family, args.mb * 1_000_000)
            runs = [profile(log, acc) for _ in range(args.repeat)]
            best = min(runs, key=lambda r: r["scan"] + r["learn"])
            print(f"| {family} | " + " | ".join(f"{best[c]:.2f}" for c in columns) + " |", flush=True)
            log.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
