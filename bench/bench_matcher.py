"""Speed and memory of mask + diagnose on large realistic logs, against a naive matcher and rg.

    python bench/bench_matcher.py                      # 1 MB and 100 MB, a few minutes
    python bench/bench_matcher.py --sizes 1,100,1000   # adds the 1 GB log (written to --tmp)

For each size it generates a log (bench/loggen.py: 1,000 ranks interleaved, NCCL INFO chatter,
tqdm, loss lines, a CUDA OOM buried deep, watchdog timeouts on the other ranks), then measures,
each in a fresh process so that peak RSS is that run's own:

- `match`: the matcher alone (`Scan.feed` over the file's chunks);
- `diagnose`: the streamed path without masking (`Denpex.diagnose_stream(mask=False)`);
- `mask+diagnose`: the whole path the CLI and the bot run (`denpex diagnose`);
- `mask`: `Masker.mask` alone over the same whole-line pieces;
- `naive`: every rule's regex on every line (no prefilter), for at most --budget seconds;
- `rg`: ripgrep over the rules' literals (`rg -F -i -f`, `rg -F -f`) and regexes, when installed.

Then the rules scaling (the real rules, then 1,000 rules: the real ones plus generated ones),
the 5,000-line paste (masked, matched, rendered: median of --paste-runs), and the literals that
hit most often. Results go to stdout and, with --results, to a Markdown file with the machine's
details. Throughput is MB (10^6 bytes) of log per second, by wall clock and by CPU time; the
machine may be shared, so compare within one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import regex

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import loggen  # noqa: E402
from timing import MB, best_of, end_children_on_signals, fmt_rss, mbps, peak_rss_kb, run_timed  # noqa: E402
from timing import machine as timing_machine  # noqa: E402

from bot.ingest import file_chunks  # noqa: E402
from bot.matcher import Matcher  # noqa: E402
from bot.matcher.rulebook import (  # noqa: E402
    Rulebook,
    RuleError,
    Signature,
    default_rules_dir,
    load_rulebook,
    rule_files,
)

MODES = ("match", "diagnose", "mask+diagnose", "mask", "naive")


# --- rules -----------------------------------------------------------------------------------


def load_rules(rules_dir: Path | None = None) -> tuple[Rulebook, list[str]]:
    """The knowledge base as it stands: files that do not load yet (being written) are left out
    and named, references to entries not written yet are tolerated."""
    files = rule_files(rules_dir or default_rules_dir())
    skipped: list[str] = []
    while True:
        try:
            return load_rulebook(files=files, warnings=[]), skipped
        except RuleError as exc:
            bad = {p.split(": ", 1)[0] for p in exc.problems}
            kept = [f for f in files if str(f) not in bad]
            if len(kept) == len(files):
                raise
            skipped += sorted(str(f) for f in files if str(f) in bad)
            files = kept


_VOCAB = tuple(
    ["allocator", "barrier", "bucket", "cache", "channel", "checkpoint", "collective", "compiler", "context", "cublas", "cursor", "dataloader", "device", "dispatcher", "driver", "embedding", "engine", "executor", "fabric", "gradient", "graph", "handle", "kernel", "launcher", "ledger", "mailbox", "manifest", "mesh", "module", "optimizer", "partition", "pipeline", "planner", "pool", "proxy", "queue", "reducer", "registry", "replica", "scheduler", "segment", "shard", "socket", "spill", "stream", "tensor", "tokenizer", "topology", "transport", "tuner", "watchdog", "worker"]
)
_FAILS = ("failed", "refused", "overflowed", "corrupted", "stalled", "rejected", "exhausted", "diverged")


def synthetic_rulebook(real: Rulebook, total: int, seed: int = 7) -> Rulebook:
    """`real` plus generated rules up to `total`: each with three keywords and three signatures
    in the style of the real ones (a quoted message with variable parts), a few sharing real
    keywords. Their text is absent from the logs, as most of a big knowledge base is."""
    rng = random.Random(seed)
    template = real.rules[0]
    real_keywords = sorted({k for r in real for k in r.keywords})
    rules = list(real.rules)
    n = 0
    while len(rules) < total:
        n += 1
        a, b, c = rng.sample(_VOCAB, 3)
        fail = rng.choice(_FAILS)
        code = f"{n:04d}"
        keywords = [f"{a} {b} {fail}", f"{c}_{a}_err{code}", f"e{code}: {b}"]
        if rng.random() < 0.05 and real_keywords:
            keywords.append(rng.choice(real_keywords))
        patterns = [
            rf"{a.capitalize()} {b} {fail}(?: after \d+ retries)?: \S+ \(code {code}\)",
            rf"\b{c}_{a}_err{code}\b.*status=\d+",
            rf"E{code}: {b} [\w./-]+ {fail}",
        ]
        sigs = tuple(
            Signature(name=f"sig{i}", pattern=p, weight=0.6 + 0.1 * i)
            for i, p in enumerate(patterns)
        )
        rules.append(
            dataclasses.replace(
                template, id=f"synthetic-{code}", keywords=tuple(keywords), signatures=sigs,
                related=(), collateral_of=(), examples=(), near_misses=(),
            )
        )  # fmt: skip
    return Rulebook(tuple(rules))


def literals_of(book: Rulebook) -> list[str]:
    return sorted({k for r in book for k in (*r.keywords, *(k for s in r.signatures for k in s.keywords)) if k})


# --- one measurement, in a child process -------------------------------------------------------


def _lines(chunks):
    """Whole-line pieces, as the service cuts them before masking: a line split between two
    chunks is joined to the rest of it."""
    carry = b""
    for chunk in chunks:
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            carry += chunk
            continue
        yield carry + chunk[:cut]
        carry = chunk[cut:]
    if carry:
        yield carry


def measure(mode: str, path: str, *, rules: int = 0, budget: float = 0.0) -> dict:
    """Run one mode over one file; the result is printed as JSON by the child."""
    book, _ = load_rules()
    if rules:
        book = synthetic_rulebook(book, rules)
    out: dict = {"mode": mode, "rules": len(book)}
    deadline = time.perf_counter() + budget if budget else None
    done = 0

    def limited(chunks):
        nonlocal done
        for chunk in chunks:
            done += len(chunk)
            yield chunk
            if deadline is not None and time.perf_counter() > deadline:
                out["partial"] = True
                return

    wall, cpu = time.perf_counter(), time.process_time()
    if mode in ("match", "naive"):
        matcher = Matcher(book, prefilter=mode == "match")
        wall, cpu = time.perf_counter(), time.process_time()
        scan = matcher.scan()
        for chunk in limited(file_chunks(path)):
            scan.feed(chunk)
        d = scan.finish()
        out["left_out"] = scan.left_out()
    elif mode in ("diagnose", "mask+diagnose"):
        from bot.service import Denpex

        app = Denpex(Matcher(book))
        wall, cpu = time.perf_counter(), time.process_time()
        d = app.diagnose_stream(limited(file_chunks(path)), mask=mode == "mask+diagnose").diagnosis
    elif mode == "mask":
        from bot.masking import Masker

        masker = Masker()
        wall, cpu = time.perf_counter(), time.process_time()  # the import compiles the detectors: not timed
        for piece in _lines(limited(file_chunks(path))):
            masker.mask(piece.decode("utf-8", "replace"))
        d = None
    else:
        raise SystemExit(f"unknown mode {mode}")
    out["wall_s"] = time.perf_counter() - wall
    out["cpu_s"] = time.process_time() - cpu
    out["bytes"] = done
    if d is not None:
        out["root"] = d.root.id if d.root else None
        out["initiating_rank"] = d.initiating_rank
        out["lines"] = d.stats.lines
        out["regex_timeouts"] = d.stats.regex_timeouts
        dd = d.to_dict()
        dd.pop("stats")
        out["diagnosis"] = dd
    return out


def run_child(args: list[str], timeout: float | None = None) -> tuple[dict | None, int, str]:
    """Run a measuring child; (its JSON result or None, its own peak RSS in KB, stderr tail)."""
    proc = subprocess.run(args, capture_output=True, cwd=ROOT, timeout=timeout)
    data = None
    if proc.returncode == 0 and proc.stdout.strip():
        try:
            data = json.loads(proc.stdout.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            data = None
    rss = int(data.pop("_maxrss_kb", 0)) if data else 0
    return data, rss, proc.stderr.decode(errors="replace")[-800:]


def best_child(cmd: list[str], repeat: int) -> tuple[dict | None, int, str]:
    """Run a measuring child `repeat` times (`timing.best_of`: the least CPU time, as the child
    measured it past its start-up, and the largest peak RSS); (result or None, RSS, error)."""
    errors: list[str] = []

    def once() -> dict:
        data, rss, err = run_child(cmd)
        if data is None:
            errors.append(err)
            return {"rc": None}
        return {**data, "rc": 0, "maxrss_kb": rss}

    best = best_of(once, repeat)
    if best.get("rc") is None:
        return None, 0, errors[-1] if errors else ""
    return best, best.pop("maxrss_kb") or 0, ""


def child_cmd(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *args]


# --- ripgrep -------------------------------------------------------------------------------------


_NAMED_GROUP = regex.compile(r"\(\?P?<(?=[A-Za-z_])\w+>")
_NAMED_REF = regex.compile(r"\(\?P=|\\k<|\\g<")


def rg_binary() -> str | None:
    return shutil.which("rg")


_RG_LIMITS = ["--regex-size-limit", "1G", "--dfa-size-limit", "1G"]


def rg_patterns(book: Rulebook, rg: str) -> tuple[list[str], int]:
    """The rules' regexes that ripgrep's own engine compiles (no look-around or
    backreferences there); and how many it does not. Named groups become plain groups, as
    names repeat across rules."""
    every = [
        _NAMED_GROUP.sub("(", sig.pattern)
        for rule in book
        for sig in rule.signatures
        if not _NAMED_REF.search(sig.pattern)
    ]
    total = sum(len(rule.signatures) for rule in book)
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as fh:
        fh.write("\n".join(every) + "\n")
        fh.flush()
        r = subprocess.run([rg, *_RG_LIMITS, "-q", "-f", fh.name, "/dev/null"], capture_output=True)
        if r.returncode in (0, 1):
            return every, total - len(every)
    ok = [p for p in every if subprocess.run([rg, "-q", "-e", p, "/dev/null"], capture_output=True).returncode in (0, 1)]
    return ok, total - len(ok)


def run_rg(rg: str, args: list[str], path: str, timeout: float) -> dict | None:
    r = run_timed([rg, "-j1", "--no-mmap", "-c", *args, path], timeout=timeout)
    if r.get("timeout"):
        print(f"   rg {' '.join(args[-2:])}: did not finish in {timeout:.0f} s", flush=True)
        return r
    if r["rc"] not in (0, 1):
        print(f"   rg {' '.join(args)}: failed (exit {r['rc']})", flush=True)
        return None
    r["lines"] = int(r["stdout"].strip() or 0)
    return r


# --- the parent --------------------------------------------------------------------------------


def machine() -> dict:
    """`timing.machine` and the versions of the libraries the matcher and masker run on."""
    from importlib.metadata import PackageNotFoundError, version

    info = timing_machine(rg_binary())
    for pkg in ("regex", "hyperscan", "pyyaml"):
        try:
            info[pkg] = version(pkg)
        except PackageNotFoundError:
            info[pkg] = "missing"
    return info


def masker_available() -> bool:
    try:
        from bot.masking import Masker  # noqa: F401
    except Exception:
        return False
    return True


def fmt_rate(r: dict | None, key: str = "wall_s") -> str:
    if not r or r.get(key) is None:
        return "n/a"
    if r[key] <= 0:
        return "fast"  # below the clock's resolution
    rate = mbps(r["bytes"], r[key])
    s = f"{rate:.0f}" if rate >= 10 else f"{rate:.2g}"
    if r.get("partial"):
        s += f" (first {r['bytes'] / MB:.2g} MB)"
    return s


def hot_conditions(path: str, book: Rulebook, top: int = 10) -> tuple[list[tuple[str, int]], Counter, int]:
    """Which prefilter conditions lines met most, how many lines each rule ran regexes on, and
    how many world-size keywords were read."""
    m = Matcher(book)
    counts: Counter = Counter()
    regex_lines: Counter = Counter()
    world = 0
    for chunk in file_chunks(path, 4 << 20):
        cut = chunk.rfind(b"\n") + 1
        lines, direct = m.prefilter.candidate_lines(chunk, cut or None)
        for _start, _stop, conds in lines:
            counts.update(conds)
            for rule, _sigs, _any in m.plan(conds).rules:
                regex_lines[rule.id] += 1
        world += len(direct)
    rows = [(m.condition_label(i), n) for i, n in counts.most_common(top)]
    return rows, regex_lines, world


def paste_bench(runs: int) -> dict:
    """The 5,000-line paste: masked, matched, rendered (as the bot does), median of `runs`."""
    from bot.render import text as render_text
    from bot.report import build_report
    from bot.service import Denpex

    book, _ = load_rules()
    app = Denpex(Matcher(book))
    paste = loggen.paste(5000)
    out: dict = {"lines": paste.count("\n"), "bytes": len(paste.encode())}
    timings: dict[str, list[float]] = {"full": [], "full_cpu": [], "match": []}
    root = None
    for i in range(runs + 1):
        t, c = time.perf_counter(), time.process_time()
        if masker_available():
            outcome = app.diagnose_text(paste)
            render_text.render_report(outcome.report)
            root = outcome.diagnosis.root.id if outcome.diagnosis.root else None
        else:
            d = app.matcher.diagnose(paste)
            render_text.render_report(build_report(d, app.rulebook))
            root = d.root.id if d.root else None
        full, full_cpu = time.perf_counter() - t, time.process_time() - c
        t = time.perf_counter()
        app.matcher.diagnose(paste)
        match = time.perf_counter() - t
        if i:  # the first run warms caches
            timings["full"].append(full)
            timings["full_cpu"].append(full_cpu)
            timings["match"].append(match)
    out["median_ms"] = statistics.median(timings["full"]) * 1000
    out["median_cpu_ms"] = statistics.median(timings["full_cpu"]) * 1000
    out["match_median_ms"] = statistics.median(timings["match"]) * 1000
    out["masked"] = masker_available()
    out["root"] = root
    return out


def say_targets(say, rows: list[dict], scale, paste: dict | None) -> None:
    """The issue's targets against this run, by CPU time (the machine is shared: one core's
    work is what the CPU clock counts)."""

    def cpu_rate(r: dict | None) -> float | None:
        return mbps(r["bytes"], r["cpu_s"]) if r and r.get("cpu_s") else None

    def mark(ok: bool | None) -> str:
        return {True: "met", False: "NOT met", None: "not measured"}[ok]

    say("## Targets (CPU time; one core)")
    say()
    hundred = next((r for r in rows if 50 <= r["meta"]["bytes"] / MB <= 200), None)
    big = next((r for r in rows if r["meta"]["bytes"] / MB >= 900), None)
    if hundred:
        md = cpu_rate(hundred["res"]["mask+diagnose"][0])
        mo = cpu_rate(hundred["res"]["match"][0])
        rg = cpu_rate(hundred["rg"].get("rg -F -f keywords"))
        rgi = cpu_rate(hundred["rg"].get("rg -F -i -f keywords"))
        say(f"- mask + diagnose of the 100 MB log at >= 100 MB/s: {md and f'{md:.0f}'} MB/s: {mark(md and md >= 100)}")
        say(f"- matcher alone at >= 300 MB/s: {mo and f'{mo:.0f}'} MB/s: {mark(mo and mo >= 300)}")
        if rg and mo:
            say(f"- within 6x of rg on the same literals: rg -F -f {rg:.0f} MB/s is {rg / mo:.1f}x ours "
                f"(rg -F -i -f, case-insensitive as ours: {rgi and f'{rgi / mo:.1f}'}x): {mark(rg / mo <= 6)}")  # fmt: skip
        else:
            say("- within 6x of rg: not measured (ripgrep not installed)")
    if big:
        peak = max(v[1] for v in big["res"].values() if v[0])
        say(f"- peak RSS under 200 MB for the 1 GB log: at most {fmt_rss(peak)} over all our modes: {mark(peak < 200 * 1024)}")
    else:
        say("- peak RSS for the 1 GB log: not measured (run with --sizes 1,100,1000)")
    if paste:
        say(f"- 5,000-line paste under 50 ms median: {paste['median_ms']:.1f} ms wall, {paste['median_cpu_ms']:.1f} ms CPU: "
            f"{mark(paste['median_cpu_ms'] < 50)}")  # fmt: skip
    if scale and scale[0] and scale[2]:
        real, _, many, _ = scale
        ratio = (many["cpu_s"] / many["bytes"]) / (real["cpu_s"] / real["bytes"])
        say(f"- {many['rules']} rules cost less than 2x the real rules' time: {ratio:.2f}x: {mark(ratio < 2)}")
    say("- same diagnosis with and without the prefilter and streaming: tests/matcher/test_equivalence.py "
        "(every rule's examples, the healthy logs, a generated 700-rank log, random splits, gzip)")  # fmt: skip
    say()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,100", help="log sizes in MB, comma-separated (default 1,100)")
    ap.add_argument("--tmp", default=tempfile.gettempdir(), help="where generated logs go (deleted after)")
    ap.add_argument("--keep", action="store_true", help="keep the generated logs")
    ap.add_argument("--results", help="write the Markdown report here (e.g. bench/RESULTS.md)")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds for the naive matcher per size")
    ap.add_argument("--mask-budget", type=float, default=300.0, help="seconds for masking modes per size")
    ap.add_argument("--paste-runs", type=int, default=21)
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each of our modes per size; the least CPU time is reported (noise only adds)")
    ap.add_argument("--rg-timeout", type=float, default=120.0, help="seconds for each rg run")
    ap.add_argument("--scale-rules", type=int, default=1000)
    ap.add_argument("--no-rg", action="store_true", help="skip ripgrep even when installed")
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--rules", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--paste", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.measure or args.paste:
        res = measure(args.measure, args.file, rules=args.rules, budget=args.budget) if args.measure else paste_bench(args.paste_runs)
        res["_maxrss_kb"] = peak_rss_kb() or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps(res))
        return 0

    end_children_on_signals()
    sizes = [float(s) for s in args.sizes.split(",") if s.strip()]
    book, skipped = load_rules()
    info = machine()
    rg = None if args.no_rg else rg_binary()
    has_masker = masker_available()
    report: list[str] = []

    def say(line: str = "") -> None:
        print(line, flush=True)
        report.append(line)

    matcher = Matcher(book)
    say("# Matcher benchmark")
    say()
    say(f"Run: `python bench/bench_matcher.py --sizes {args.sizes}` on {time.strftime('%Y-%m-%d %H:%M %Z')}.")
    say()
    say("## Machine")
    say()
    for k, v in info.items():
        say(f"- {k}: {v}")
    say(f"- rules: {len(book)} loaded ({len(skipped)} files skipped as not loadable yet), "
        f"{len(literals_of(book))} keywords, {len(matcher.prefilter.conditions)} line conditions in the Hyperscan database")  # fmt: skip
    for f in skipped:
        say(f"  - skipped: {Path(f).relative_to(ROOT) if Path(f).is_relative_to(ROOT) else f}")
    if not rg:
        say("- ripgrep: not installed, its columns are n/a (apt-get install ripgrep)")
    if not has_masker:
        say("- masking: bot.masking.Masker not importable, mask columns are n/a")
    say()

    tmpdir = Path(tempfile.mkdtemp(prefix="denpex-bench-", dir=args.tmp))
    kw_file = tmpdir / "keywords.txt"
    kw_file.write_text("\n".join(literals_of(book)) + "\n")
    pat_file = tmpdir / "patterns.txt"
    dropped = 0
    if rg:
        pats, dropped = rg_patterns(book, rg)
        pat_file.write_text("\n".join(pats) + "\n")

    rows = []
    scale_path = None
    hot = None
    try:
        for size in sizes:
            path = tmpdir / f"log-{size:g}MB.log"
            t = time.perf_counter()
            meta = loggen.generate_file(str(path), int(size * MB))
            gen_s = time.perf_counter() - t
            print(f"\n== {size:g} MB: generated {meta['bytes'] / MB:.1f} MB, {meta['lines']:,} lines in {gen_s:.1f}s", flush=True)
            res: dict[str, tuple[dict | None, int]] = {}
            for mode in MODES:
                if mode in ("mask", "mask+diagnose") and not has_masker:
                    res[mode] = (None, 0)
                    continue
                budget = args.budget if mode == "naive" else args.mask_budget if "mask" in mode else 0
                cmd = child_cmd("--measure", mode, "--file", str(path), "--budget", str(budget))
                data, rss, err = best_child(cmd, 1 if mode == "naive" else args.repeat)
                if data is None:
                    print(f"   {mode}: failed: {err}", flush=True)
                res[mode] = (data, rss)
                if data:
                    print(f"   {mode:14s} {fmt_rate(data):>8s} MB/s wall  {fmt_rate(data, 'cpu_s'):>8s} MB/s CPU  "
                          f"peak RSS {fmt_rss(rss)}  root={data.get('root')}", flush=True)  # fmt: skip
            rgres = {}
            if rg:
                for name, rgargs in (
                    ("rg -F -i -f keywords", ["-F", "-i", "-f", str(kw_file)]),
                    ("rg -F -f keywords", ["-F", "-f", str(kw_file)]),
                    ("rg -f patterns", [*_RG_LIMITS, "-f", str(pat_file)]),
                ):
                    r = run_rg(rg, rgargs, str(path), args.rg_timeout)
                    if r is None:
                        continue
                    r["bytes"] = meta["bytes"]
                    rgres[name] = r
                    if not r.get("timeout"):
                        print(f"   {name:22s} {fmt_rate(r):>8s} MB/s wall  {fmt_rate(r, 'cpu_s'):>8s} MB/s CPU  "
                              f"peak RSS {fmt_rss(r['maxrss_kb'])}", flush=True)  # fmt: skip
            ours = res["match"][0]
            naive = res["naive"][0]
            same = None
            if ours and naive and not naive.get("partial"):
                same = ours["diagnosis"] == naive["diagnosis"]
            rows.append({"size": size, "meta": meta, "gen_s": gen_s, "res": res, "rg": rgres, "same": same})
            if size <= 100:
                if scale_path and scale_path != path and not args.keep:
                    scale_path.unlink(missing_ok=True)
                scale_path = path
                hot = hot_conditions(str(path), book)
            elif not args.keep:
                path.unlink(missing_ok=True)

        # Rules scaling, on the largest log of at most 100 MB.
        scale = None
        if scale_path:
            real, rss_real, _ = best_child(child_cmd("--measure", "match", "--file", str(scale_path)), args.repeat)
            big, rss_big, err = best_child(
                child_cmd("--measure", "match", "--file", str(scale_path), "--rules", str(args.scale_rules)), args.repeat
            )
            scale = (real, rss_real, big, rss_big)
            if big is None:
                print(f"   scaling run failed: {err}", flush=True)
        paste, paste_rss, err = run_child(child_cmd("--paste", "--paste-runs", str(args.paste_runs)))
        if paste is None:
            print(f"   paste run failed: {err}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(tmpdir, ignore_errors=True)

    say("## Throughput and memory")
    say()
    say("MB/s by wall clock (by CPU time in brackets); peak RSS of the process. `ours` is the matcher")
    say("alone; `diagnose` adds ingest, line re-cutting and the report; `mask+diagnose` is `denpex diagnose`.")
    say(f"Each of our modes (not naive), and each rules-scaling run, ran {max(args.repeat, 1)} times, each in a fresh")
    say("process: the run with the least CPU time is shown (on a shared machine noise only adds), and the")
    say("largest peak RSS of the runs.")
    say()
    head = "| log | ours (match) | diagnose | mask+diagnose | mask alone | naive | rg -F -i -f kw | rg -F -f kw | rg regexes | peak RSS ours / diagnose / mask+diagnose / naive |"
    say(head)
    say("|" + "---|" * (head.count("|") - 1))
    for row in rows:
        res, rgres = row["res"], row["rg"]

        def cell(mode: str, res: dict = res) -> str:
            data = res[mode][0]
            if not data:
                return "n/a"
            return f"{fmt_rate(data)} ({fmt_rate(data, 'cpu_s')})"

        def rgcell(name: str, rgres: dict = rgres) -> str:
            r = rgres.get(name)
            if r and r.get("timeout"):
                return f"> {r['timeout']:.0f} s, stopped"
            return f"{fmt_rate(r)} ({fmt_rate(r, 'cpu_s')})" if r else "n/a"

        rss = " / ".join(fmt_rss(res[m][1]) for m in ("match", "diagnose", "mask+diagnose", "naive"))
        say(f"| {row['meta']['bytes'] / MB:,.4g} MB, {row['meta']['lines']:,} lines | {cell('match')} | {cell('diagnose')} | "
            f"{cell('mask+diagnose')} | {cell('mask')} | {cell('naive')} | {rgcell('rg -F -i -f keywords')} | "
            f"{rgcell('rg -F -f keywords')} | {rgcell('rg -f patterns')} | {rss} |")  # fmt: skip
    if rg:
        say()
        say("rg peak RSS: " + "; ".join(
            f"{row['meta']['bytes'] / MB:,.4g} MB log: " + ", ".join(f"{k} {fmt_rss(v['maxrss_kb'])}" for k, v in row["rg"].items())
            for row in rows))  # fmt: skip
        say(f"rg regexes: the rules' patterns that ripgrep's engine compiles ({dropped} of them it cannot: look-around, backreferences).")
    say()
    say("Diagnosis of each log (expected: root `cuda-oom`, initiating rank 613):")
    say()
    for row in rows:
        got = {m: (d[0] or {}).get("root") for m, d in row["res"].items()}
        ranks = {m: (d[0] or {}).get("initiating_rank") for m, d in row["res"].items()}
        same = {None: "naive run was partial (budget)", True: "identical", False: "DIFFERENT"}[row["same"]]
        say(f"- {row['meta']['bytes'] / MB:,.4g} MB: root {got.get('match')} rank {ranks.get('match')} (match), "
            f"{got.get('diagnose')} (diagnose), {got.get('mask+diagnose')} (mask+diagnose); "
            f"prefilter vs naive: {same}; regex timeouts: {(row['res']['match'][0] or {}).get('regex_timeouts')}")  # fmt: skip
    say()
    for row in rows:
        runs = ", ".join(f"{m} {d[0]['cpu_runs']}" for m, d in row["res"].items() if d[0] and d[0].get("cpu_runs"))
        if runs:
            say(f"- {row['meta']['bytes'] / MB:,.4g} MB: CPU seconds of every run: {runs}")
    say()
    for row in rows:
        match, masked = row["res"]["match"][0] or {}, row["res"]["mask"][0] or {}
        say(f"- {row['meta']['bytes'] / MB:,.4g} MB: literals the scan left out of its database after its "
            f"sample: {', '.join(repr(w) for w in match.get('left_out', [])) or 'none'}; "
            f"NCCL prefix split by the {masked.get('prefix_scanner', '?')} scanner")  # fmt: skip
    say()
    if scale:
        real, rss_real, big, rss_big = scale
        say("## Rules scaling")
        say()
        if real and big:
            ratio = (big["cpu_s"] / big["bytes"]) / (real["cpu_s"] / real["bytes"])
            say(f"Matcher alone on the {real['bytes'] / MB:,.4g} MB log: {real['rules']} real rules "
                f"{fmt_rate(real)} MB/s ({fmt_rate(real, 'cpu_s')} CPU), peak RSS {fmt_rss(rss_real)}; "
                f"{big['rules']} rules {fmt_rate(big)} MB/s ({fmt_rate(big, 'cpu_s')} CPU), peak RSS {fmt_rss(rss_big)}. "
                f"Cost of going to {big['rules']} rules: {ratio:.2f}x CPU time per MB "
                f"(same diagnosis: {real['diagnosis'] == big['diagnosis']}).")  # fmt: skip
        say()
    if paste:
        say("## 5,000-line paste")
        say()
        say(f"{paste['lines']:,} lines ({paste['bytes'] / 1000:.0f} KB): {'masked, ' if paste['masked'] else '(masking unavailable) '}"
            f"matched and rendered in {paste['median_ms']:.1f} ms median of {args.paste_runs} "
            f"({paste['median_cpu_ms']:.1f} ms of CPU) "
            f"(matcher alone {paste['match_median_ms']:.1f} ms); root {paste['root']}; peak RSS {fmt_rss(paste_rss)}.")  # fmt: skip
        say()
    say_targets(say, rows, scale, paste)
    if hot:
        rows_hot, regex_lines, world = hot
        say("## Lines the prefilter passed on (largest log of at most 100 MB)")
        say()
        say("A condition is a signature's keyword gate and its derived literals (or a probe's keywords);")
        say("only lines meeting one reach Python.")
        say()
        say("| signatures / probe | lines |")
        say("|---|---|")
        for label, n in rows_hot:
            say(f"| {label} | {n:,} |")
        say()
        say("Lines on which a rule's regexes ran: "
            + ", ".join(f"{rid} {n:,}" for rid, n in regex_lines.most_common(8))
            + f". World-size keywords read where they stand: {world:,}.")  # fmt: skip
        say()
    if args.results:
        Path(args.results).write_text("\n".join(report) + "\n")
        print(f"\nwrote {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
