"""The floor under any matcher that looks at the log's candidate lines in Python.

    python bench/bench_floor.py                    # every family at 100 MB
    python bench/bench_floor.py --sizes 30 --families c10d-retry,env-dump

Issue 15 asks `denpex diagnose` for >= 300 MB/s on the slowest family. This measures what
costs less than any matcher in Python can: for each family of `bench/loggen.py`, in one warm
process, CPU time only (time.process_time), the least of `--repeat` runs, over 1 MB pieces of
whole lines as `denpex diagnose` reads them:

- `read`: reading the pieces and cutting them at the last newline, nothing else;
- `gate`: that, and one Hyperscan pass over each piece with every `keywords` literal of the
  rules (any case), each literal reported once a piece (`HS_FLAG_SINGLEMATCH`): which rules a
  piece may concern, all in C;
- `scan`: the same pass reporting every hit, to a Python callback that does nothing;
- `lines`: that, and for each keyword hit the start of its line kept in a set: the candidate
  lines, each touched once in Python and then not looked at; a matcher does at least this
  unless it never lets a hit reach Python.

A family whose `lines` figure is under the target cannot reach the target with a matcher that
hands each candidate line to Python, however little it does with it; only work that stays in C
for whole pieces (the blanking of flood lines, `bot/matcher/blanking.py`) gets below it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import hyperscan

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import loggen  # noqa: E402
from bench_families import TARGET_DIAGNOSE_MBPS, rule_literals  # noqa: E402
from timing import MB  # noqa: E402

from bot.literals import hyperscan_literal  # noqa: E402

PIECE = 1 << 20
STAGES = ("read", "gate", "scan", "lines")


def keyword_database(words: list[str], flags: int = 0) -> hyperscan.Database:
    db = hyperscan.Database()
    db.compile(
        expressions=[hyperscan_literal(w).encode() for w in words],
        ids=list(range(len(words))),
        flags=[hyperscan.HS_FLAG_CASELESS | flags] * len(words),
    )
    return db


def pieces(path: Path):
    """The file in pieces of about 1 MB that end at a newline."""
    carry = b""
    with path.open("rb") as f:
        while chunk := f.read(PIECE):
            chunk = carry + chunk
            cut = chunk.rfind(b"\n") + 1
            carry, chunk = chunk[cut:], chunk[:cut]
            if chunk:
                yield chunk
    if carry:
        yield carry


def run_stage(stage: str, path: Path, db: hyperscan.Database, once: hyperscan.Database) -> tuple[float, int]:
    """CPU seconds of one stage over the file, and the candidate lines it found (`lines` only)."""
    found = 0
    start = time.process_time()
    for piece in pieces(path):
        if stage == "read":
            continue
        if stage == "gate":
            once.scan(piece, match_event_handler=lambda *_: None)
            continue
        if stage == "scan":
            db.scan(piece, match_event_handler=lambda *_: None)
            continue
        starts: set[int] = set()

        def keep(_id: int, _from: int, to: int, _flags: int, _ctx: object, piece: bytes = piece, starts: set = starts) -> None:
            starts.add(piece.rfind(b"\n", 0, to) + 1)

        db.scan(piece, match_event_handler=keep)
        found += len(starts)
    return time.process_time() - start, found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100", help="comma-separated MB (default 100)")
    ap.add_argument("--families", default=",".join(loggen.FAMILIES), help="comma-separated (default: all)")
    ap.add_argument("--repeat", type=int, default=3, help="least CPU time of N runs (default 3)")
    ap.add_argument("--tmp", default=None, help="where the logs are written (one at a time)")
    args = ap.parse_args(argv)

    words = rule_literals(ROOT / "rules")
    db, once = keyword_database(words), keyword_database(words, hyperscan.HS_FLAG_SINGLEMATCH)
    print(f"{len(words)} keywords; MB/s of CPU time, least of {args.repeat}; target {TARGET_DIAGNOSE_MBPS} MB/s")
    print(f"| family | MB | {' | '.join(STAGES)} | candidate lines |")
    print("|---|---|" + "---|" * (len(STAGES) + 1))
    slowest: dict[str, tuple[float, str]] = {}
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        for size in (float(s) for s in args.sizes.split(",")):
            for family in args.families.split(","):
                path = Path(tmp) / f"{family}.log"
                loggen.generate_file(str(path), int(size * MB), family)
                nbytes = path.stat().st_size
                rates, lines = [], 0
                for stage in STAGES:
                    runs = [run_stage(stage, path, db, once) for _ in range(args.repeat)]
                    cpu = min(r[0] for r in runs)
                    lines = max(lines, runs[0][1])
                    rate = nbytes / MB / cpu if cpu > 0 else float("inf")
                    rates.append(f"{rate:,.0f}")
                    if rate < slowest.get(stage, (float("inf"), ""))[0]:
                        slowest[stage] = (rate, f"{family} at {size:g} MB")
                path.unlink()
                print(f"| {family} | {nbytes / MB:.1f} | {' | '.join(rates)} | {lines:,} |", flush=True)
    print()
    for stage in STAGES:
        rate, where = slowest[stage]
        print(f"- slowest `{stage}`: {rate:,.0f} MB/s ({where})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
