"""Speed, memory and correctness of `denpex` on every log family, beside ripgrep in the same run.

    python bench/bench_families.py                        # every family at 100 MB
    python bench/bench_families.py --sizes 100,1000       # and at 1 GB (one log on disk at a time)
    python bench/bench_families.py --results bench/RESULTS.md
    python bench/bench_families.py --code /tmp/old-checkout --label "before"   # another tree

For each size and each family of `bench/loggen.py` it writes the log under `--tmp`, then runs,
each in a fresh process of its own, timed by GNU time (`/usr/bin/time`, else wait4):

- `diagnose`: `denpex diagnose FILE --format json` (masking on, the default);
- `no-mask`:  `denpex diagnose FILE --format json --no-mask`;
- `mask`:     `denpex mask FILE > /dev/null`;
- `rg`:       `rg -c -F -f LITERALS FILE` and `rg -c -F -i -f LITERALS FILE`, LITERALS being every
              `keywords` list in the rules (when ripgrep is installed; the report says when not).

`denpex` is run as `python -m bot` with the tree under test (`--code`, default this checkout) on
PYTHONPATH and as the working directory. Throughput is MB (10^6 bytes) of log per CPU second
(user + system: the work of one core, whatever else the shared machine runs), with the start-up
cost subtracted: the least CPU time of the same command on a one-line log, measured in the same
run after a warm-up run (which fills the compiled-rules cache). Peak RSS is the command's own.
The headline is the minimum over families (the slowest family), and its ratio to rg on that log.

Each diagnosis is checked: the root cause must be the failure the generator buried (`cuda-oom`),
masked and unmasked runs must agree; a wrong or differing answer is flagged in the output and
the report, and the exit status is 1. Then the 5,000-line paste of every family: diagnosed and
rendered in one warm process (`Denpex().diagnose_text` + the text renderer, as the bot does),
median of `--paste-runs`. Compare figures as ratios within one run: the machine is shared.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import loggen  # noqa: E402
from timing import MB, best_of, end_children_on_signals, fmt_rss, machine, mbps, run_timed  # noqa: E402

MODES = ("diagnose", "no-mask", "mask", "rg")

# Targets of issue 15 (CPU time, one core, slowest family at 100 MB).
TARGET_DIAGNOSE_MBPS = 300
TARGET_RG_RATIO = 3
TARGET_MASK_MBPS = 50
TARGET_PASTE_MS = 50
TARGET_RSS_MB = 200


# --- the tree under test ---------------------------------------------------------------------


class Tree:
    """The denpex code being measured: `python -m bot` run with it first on the path."""

    def __init__(self, code: Path):
        self.code = code
        self.env = dict(os.environ, PYTHONPATH=str(code), NO_COLOR="1")
        self.env.pop("PYTHONSTARTUP", None)
        # A cache of compiled databases of its own: two trees sharing one (it keeps 32) evict
        # each other's, and a timed run would pay a compile the user's second run does not.
        cache = Path(tempfile.gettempdir()) / "denpex-bench-cache" / hashlib.sha256(str(code.resolve()).encode()).hexdigest()[:12]
        self.env.setdefault("DENPEX_CACHE_DIR", str(cache))

    def cmd(self, mode: str, path: str) -> tuple[list[str], bool]:
        """The command line of a mode, and whether its stdout is kept (diagnoses) or dropped."""
        py = [sys.executable, "-m", "bot"]
        if mode == "diagnose":
            return [*py, "diagnose", path, "--format", "json"], True
        if mode == "no-mask":
            return [*py, "diagnose", path, "--format", "json", "--no-mask"], True
        if mode == "mask":
            return [*py, "mask", path], False
        raise ValueError(mode)

    def run(self, mode: str, path: str, timeout: float | None) -> dict:
        cmd, keep = self.cmd(mode, path)
        return run_timed(cmd, cwd=self.code, env=self.env, capture=keep, timeout=timeout)

    def describe(self) -> str:
        try:
            head = subprocess.run(["git", "-C", str(self.code), "log", "-1", "--format=%h %s"], capture_output=True,
                                  text=True, check=True).stdout.strip()  # fmt: skip
            dirty = subprocess.run(["git", "-C", str(self.code), "status", "--porcelain", "--", "bot", "rules"],
                                   capture_output=True, text=True).stdout.strip()  # fmt: skip
            return f"`{self.code}` at {head}" + (" (with uncommitted changes in bot/ or rules/)" if dirty else "")
        except (OSError, subprocess.CalledProcessError):
            return f"`{self.code}` (not a git checkout)"


def rule_literals(rules_dir: Path) -> list[str]:
    """Every `keywords` list in the rules (rule-level and per signature): the literals a line
    must hold for the matcher to look at it further, which rg gets as a -F pattern list."""
    import yaml

    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "keywords" and isinstance(v, list):
                    found.update(x for x in v if isinstance(x, str) and x)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for f in sorted(rules_dir.rglob("*.yaml")):
        with contextlib.suppress(yaml.YAMLError, OSError):
            walk(yaml.safe_load(f.read_text()))
    return sorted(found)


def root_of(out: str) -> dict:
    """What a `--format json` diagnosis says: root id, its ranks, the initiating rank, all ids."""
    try:
        d = json.loads(out)
    except ValueError:
        return {"error": "no JSON on stdout"}
    matches = d.get("matches") or []
    root = next((m for m in matches if m.get("role") == "root"), matches[0] if matches else None)
    return {
        "root": root and root.get("id"),
        "root_ranks": (root or {}).get("ranks"),
        "initiating_rank": d.get("initiating_rank"),
        "answer": [(m.get("id"), m.get("role"), tuple(m.get("ranks") or ())) for m in matches],
    }


# --- the paste, in a warm process of the tree under test -------------------------------------


def paste_child(family: str, runs: int) -> dict:
    from bot.render import text as render_text
    from bot.service import Denpex

    app = Denpex()
    text = loggen.paste(5000, family=family)
    wall, cpu = [], []
    root = None
    for i in range(runs + 1):
        t, c = time.perf_counter(), time.process_time()
        outcome = app.diagnose_text(text)
        render_text.render_report(outcome.report)
        if i:  # the first run warms caches
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        root = outcome.diagnosis.root.id if outcome.diagnosis.root else None
    return {"lines": text.count("\n"), "bytes": len(text.encode()), "root": root,
            "median_ms": statistics.median(wall) * 1000, "median_cpu_ms": statistics.median(cpu) * 1000}  # fmt: skip


def check_child(paths: list[str]) -> dict:
    """`denpex diagnose FILE --format json`, masked and unmasked, for every file, through the
    CLI's own entry point in this one process (the rules load once): answers, not timings."""
    import io

    from bot.cli import main as denpex

    out: dict = {}
    for path in paths:
        for mode, extra in (("diagnose", []), ("no-mask", ["--no-mask"])):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                rc = denpex(["diagnose", path, "--format", "json", *extra])
            out.setdefault(path, {})[mode] = {"rc": rc, **root_of(buf.getvalue())}
    return out


def check_families(args, tree: Tree, size: float, tmpdir: Path) -> list[dict]:
    """--check: every family's log diagnosed by one process of the tree under test (see check_child)."""
    rows = []
    for fam in args.families:
        path = tmpdir / f"{fam}-{size:g}MB.log"
        rows.append({"family": fam, "path": str(path), "meta": loggen.generate_file(str(path), int(size * MB), fam), "res": {}})
    cmd = [sys.executable, str(Path(__file__).resolve()), "--check-child", *(r["path"] for r in rows)]
    r = run_timed(cmd, cwd=tree.code, env=tree.env, timeout=args.timeout)
    for row in rows:
        Path(row["path"]).unlink(missing_ok=True)
    if r["rc"] != 0:
        raise SystemExit(f"the check process failed: {r['stderr'][-1500:]}")
    got = json.loads(r["stdout"].strip().splitlines()[-1])
    for row in rows:
        for mode, res in got[row["path"]].items():
            res.update(cpu_s=None, net_cpu_s=None, maxrss_kb=None, wall_s=None)
            row["res"][mode] = res
            ok = res.get("root") == row["meta"]["expected_root"]
            print(f"   {row['family']:12s} {mode:9s} root {res.get('root')}, initiating rank {res.get('initiating_rank')} "
                  f"(buried on {row['meta']['expected_rank']})" + ("" if ok else "  WRONG"), flush=True)  # fmt: skip
        d, n = row["res"]["diagnose"], row["res"]["no-mask"]
        row["differs"] = d.get("answer") != n.get("answer")
    return rows


def run_paste(tree: Tree, family: str, runs: int) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--paste-child", family, "--paste-runs", str(runs)]
    r = run_timed(cmd, cwd=tree.code, env=tree.env, timeout=600)
    if r["rc"] != 0:
        return {"error": (r["stderr"].strip().splitlines() or ["failed"])[-1]}
    try:
        return json.loads(r["stdout"].strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": "no result"}


# --- the parent -------------------------------------------------------------------------------


# Less work than this past start-up is within the start-up figure's own noise on a shared
# machine: such a run is shown as faster than the log's size over this, not as a figure.
NOISE_S = 0.1


def net_cpu(cpu_s: float, startup_s: float) -> dict:
    net = cpu_s - startup_s
    return {"net_cpu_s": max(net, NOISE_S), "below_noise": net < NOISE_S}


def fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


RG_FLAGS = {"rg -F": ["-F"], "rg -F -i": ["-F", "-i"]}


def rg_cmd(rg: str, name: str, kw: Path, path: Path | str) -> list[str]:
    return [rg, "-j1", "-c", *RG_FLAGS[name], "-f", str(kw), str(path)]


def measure_startup(tree: Tree, modes: list[str], tmpdir: Path, runs: int, timeout: float, rg: str | None, kw: Path) -> dict[str, float]:
    """Least CPU seconds of each command on a one-line log (after one warm-up run, which also
    fills denpex's compiled-rules cache): what a run costs before it reads any log."""
    tiny = tmpdir / "one-line.log"
    tiny.write_text("starting training\n")
    out: dict[str, float] = {}
    if runs <= 0:
        return out
    commands = {m: (lambda m=m: tree.run(m, str(tiny), timeout)) for m in modes if m != "rg"}
    if "rg" in modes and rg:
        commands.update({n: (lambda n=n: run_timed(rg_cmd(rg, n, kw, tiny), timeout=timeout)) for n in RG_FLAGS})
    for name, make in commands.items():
        make()
        cpus = [r["cpu_s"] for r in (make() for _ in range(runs)) if r.get("cpu_s") is not None]
        out[name] = min(cpus) if cpus else 0.0
    return out


def bench_family(args, tree: Tree, family: str, size_mb: float, tmpdir: Path, startup: dict, rg: str | None, kw: Path,
                 say: Callable[[str], None] = print) -> dict:  # fmt: skip
    path = tmpdir / f"{family}-{size_mb:g}MB.log"
    gen = run_timed([sys.executable, str(HERE / "loggen.py"), family, f"{size_mb:g}", str(path)], timeout=args.timeout)
    if gen["rc"] != 0:
        say(f"   {family}: generator failed: {gen['stderr'][-500:]}")
        return {"family": family, "error": "generator failed"}
    meta = json.loads(gen["stdout"].strip().splitlines()[-1])
    row = {"family": family, "meta": meta, "gen": gen, "res": {}}
    say(f"-- {family}: {meta['bytes'] / MB:,.1f} MB, {meta['lines']:,} lines (longest {meta['longest_line']:,} B), "
          f"generated in {gen['wall_s']:.1f} s, peak RSS {fmt_rss(gen['maxrss_kb'])}")  # fmt: skip
    try:
        for mode in args.modes:
            if mode == "rg":
                if not rg:
                    continue
                for name in RG_FLAGS:
                    r = best_of(lambda n=name: run_timed(rg_cmd(rg, n, kw, path), timeout=args.timeout), args.repeat)
                    if r.get("cpu_s") is not None:
                        r.update(net_cpu(r["cpu_s"], startup.get(name, 0.0)))
                    row["res"][name] = r
                    say(f"   {name:9s} {fmt(mbps(meta['bytes'], r.get('net_cpu_s'))):>8s} MB/s CPU  peak RSS {fmt_rss(r.get('maxrss_kb'))}")
                continue
            r = best_of(lambda m=mode: tree.run(m, str(path), args.timeout), args.repeat)
            if r.get("cpu_s") is not None:
                r.update(net_cpu(r["cpu_s"], startup.get(mode, 0.0)))
            if r.get("timeout"):
                say(f"   {mode:9s} did not finish in {args.timeout:.0f} s: < {meta['bytes'] / MB / args.timeout:.2g} MB/s")
            elif r["rc"] != 0:
                say(f"   {mode:9s} FAILED (exit {r['rc']}): {r['stderr'].strip()[-400:]}")
            else:
                if mode in ("diagnose", "no-mask"):
                    r.update(root_of(r["stdout"]))
                r["stdout"] = ""
                verdict = "  (within start-up noise: a lower bound)" if r.get("below_noise") else ""
                if "root" in r:
                    ok = r["root"] == meta["expected_root"]
                    verdict += f"  root {r['root']}" + ("" if ok else f"  WRONG (expected {meta['expected_root']})")
                say(f"   {mode:9s} {fmt(mbps(meta['bytes'], r['net_cpu_s'])):>8s} MB/s CPU  ({r['cpu_s']:.2f} s CPU, "
                      f"{r['wall_s']:.1f} s wall)  peak RSS {fmt_rss(r['maxrss_kb'])}{verdict}")  # fmt: skip
            row["res"][mode] = r
    finally:
        if not args.keep:
            path.unlink(missing_ok=True)
    d, n = row["res"].get("diagnose", {}), row["res"].get("no-mask", {})
    if "answer" in d and "answer" in n and d["answer"] != n["answer"]:
        row["differs"] = True
        say(f"   masked and unmasked diagnoses DIFFER: {d['answer'][:3]} vs {n['answer'][:3]}")
    return row


def run_families(args, tree: Tree, size: float, tmpdir: Path, startup: dict, rg: str | None, kw: Path) -> list[dict]:
    """Every family in turn; with --jobs N, N at a time (to check answers fast: timings then
    share the cores, so they are not figures to report), each family's lines printed together."""
    def one(fam: str) -> dict:
        if args.jobs <= 1:
            return bench_family(args, tree, fam, size, tmpdir, startup, rg, kw, say=lambda s: print(s, flush=True))
        out: list[str] = []
        row = bench_family(args, tree, fam, size, tmpdir, startup, rg, kw, say=out.append)
        print("\n".join(out), flush=True)
        return row

    if args.jobs <= 1:
        return [one(f) for f in args.families]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(args.jobs) as pool:
        return list(pool.map(one, args.families))


def rank_notes(rows: list) -> list[str]:
    """Diagnoses whose initiating rank is not the rank the failure was buried on (every family's
    log names it somewhere: a prefix, a label, the launcher's summary). Reported, not fatal."""
    out = []
    for size, fam_rows in rows:
        for row in fam_rows:
            for mode in ("diagnose", "no-mask"):
                r = (row.get("res") or {}).get(mode) or {}
                if "root" in r and r.get("initiating_rank") != row["meta"]["expected_rank"]:
                    got = "none found" if r.get("initiating_rank") is None else f"rank {r['initiating_rank']}"
                    out.append(f"{row['family']} at {size:g} MB ({mode}): initiating {got}; the failure was buried on rank {row['meta']['expected_rank']}")
    return out


def problems_of(rows: list[dict]) -> list[str]:
    out = []
    for size, fam_rows in rows:
        for row in fam_rows:
            where = f"{row['family']} at {size:g} MB"
            if row.get("error"):
                out.append(f"{where}: {row['error']}")
                continue
            for mode, r in row["res"].items():
                if r.get("timeout"):
                    out.append(f"{where}: {mode} did not finish in {r['timeout']:.0f} s")
                elif r.get("rc") not in ((0, 1) if mode.startswith("rg") else (0,)):
                    out.append(f"{where}: {mode} failed (exit {r.get('rc')}): {r.get('stderr', '').strip()[-200:]}")
                elif "root" in r and r["root"] != row["meta"]["expected_root"]:
                    out.append(f"{where}: {mode} diagnosed root `{r['root']}`, WRONG: the buried failure is `{row['meta']['expected_root']}`")
            if row.get("differs"):
                out.append(f"{where}: the masked and unmasked diagnoses DIFFER")
    return out


def report(args, info: dict, tree: Tree, startup: dict, rows: list, pastes: dict, nlit: int, rg: str | None) -> list[str]:
    lines: list[str] = []
    say = lines.append
    say("# Log-family benchmark")
    say("")
    say(f"Run: `python bench/bench_families.py --sizes {args.sizes}{' --repeat ' + str(args.repeat) if args.repeat != 1 else ''}` "
        f"on {time.strftime('%Y-%m-%d %H:%M %Z')}, measuring {tree.describe()}.")  # fmt: skip
    if args.label:
        say("")
        say(f"**{args.label}**")
    say("")
    say("## Machine")
    say("")
    for k, v in info.items():
        say(f"- {k}: {v}")
    say(f"- load average at the start / end: {args.load_start} / {os.getloadavg()[0]:.2f} (the machine is shared: compare within this run)")
    say("")
    say("## How")
    say("")
    say("Each figure is MB (10^6 bytes) of log per CPU second (user + system) of one fresh process, start-up excluded:")
    say("the least CPU time of the same command on a one-line log, after a warm-up run, is subtracted "
        f"({', '.join(f'{m} {s:.2f} s' for m, s in startup.items()) or 'none'}). `denpex` runs as `python -m bot`.")  # fmt: skip
    say(f"A run within {NOISE_S} s of its start-up is shown as `> X` (the log's size over {NOISE_S} s), not as a figure.")
    say(f"rg runs `rg -j1 -c -F -f LITERALS FILE` (and with `-i`) on the rules' {nlit} keywords." if rg else
        "ripgrep is not installed: its columns are n/a (`apt-get install ripgrep`).")  # fmt: skip
    if args.check:
        say("**--check: answers only (one process diagnosed every log through the CLI's entry point); no timings.**")
    if args.jobs > 1:
        say(f"**{args.jobs} families ran at once (--jobs): the timings shared the cores and are not comparable.**")
    if args.repeat > 1:
        say(f"Each command ran {args.repeat} times; the least CPU time and the largest peak RSS are shown.")
    say("")
    say("| family | what it is |")
    say("|---|---|")
    for name in args.families:
        say(f"| {name} | {loggen.FAMILIES[name].summary} |")
    say("")
    for size, fam_rows in rows:
        say(f"## {size:g} MB per family")
        say("")
        say("| family | MB | lines | longest line | diagnose MB/s | --no-mask MB/s | mask MB/s | rg -F MB/s | rg -F -i MB/s "
            "| rg -F / diagnose | peak RSS diagnose / no-mask / mask | root (expected cuda-oom) |")  # fmt: skip
        say("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for row in fam_rows:
            if row.get("error"):
                say(f"| {row['family']} | {row['error']} |")
                continue
            m, res = row["meta"], row["res"]

            def rate(mode: str, res: dict = res, m: dict = m) -> float | None:
                r = res.get(mode)
                return None if not r or r.get("rc") not in (0, 1) else mbps(m["bytes"], r.get("net_cpu_s"))

            def cell(mode: str, res: dict = res, m: dict = m) -> str:
                r = res.get(mode)
                if r and r.get("timeout"):
                    return f"< {m['bytes'] / MB / r['timeout']:.2g} (stopped at {r['timeout']:.0f} s)"
                return ("> " if r and r.get("below_noise") else "") + fmt(rate(mode))

            d, rgf = rate("diagnose"), rate("rg -F")
            ratio = f"{rgf / d:,.1f}x" if d and rgf else "n/a"
            rss = " / ".join(fmt_rss((res.get(k) or {}).get("maxrss_kb")) for k in ("diagnose", "no-mask", "mask"))
            roots = []
            for k in ("diagnose", "no-mask"):
                r = res.get(k) or {}
                if "root" in r:
                    roots.append(f"{r['root']}" + ("" if r["root"] == m["expected_root"] else " **WRONG**"))
            same = " (masked and unmasked **DIFFER**)" if row.get("differs") else ""
            say(f"| {row['family']} | {m['bytes'] / MB:,.1f} | {m['lines']:,} | {m['longest_line']:,} B | {cell('diagnose')} | "
                f"{cell('no-mask')} | {cell('mask')} | {cell('rg -F')} | {cell('rg -F -i')} | {ratio} | {rss} | "
                f"{' / '.join(roots) or 'n/a'}{same} |")  # fmt: skip
        say("")
        say("Slowest family per mode (the headline: a tool is as fast as the log that hurts it most):")
        say("")
        for mode in ("diagnose", "no-mask", "mask", "rg -F", "rg -F -i"):
            got = []
            for row in fam_rows:
                r = (row.get("res") or {}).get(mode)
                if not r:
                    continue
                if r.get("timeout"):
                    got.append((row["meta"]["bytes"] / MB / r["timeout"], row["family"], "< "))
                elif r.get("rc") in (0, 1) and r.get("net_cpu_s"):
                    got.append((mbps(row["meta"]["bytes"], r["net_cpu_s"]), row["family"], "> " if r.get("below_noise") else ""))
            if got:
                low, fam, stopped = min(got)
                best = max(got)
                line = f"- {mode}: **{stopped}{fmt(low)} MB/s** on `{fam}` (fastest family: {best[2]}{fmt(best[0])} MB/s on `{best[1]}`)"
                if mode == "diagnose":
                    rg_same = next((mbps(row["meta"]["bytes"], row["res"]["rg -F"]["net_cpu_s"]) for row in fam_rows
                                    if row["family"] == fam and row["res"].get("rg -F", {}).get("net_cpu_s")), None)  # fmt: skip
                    if rg_same:
                        line += f"; rg -F reads that family at {fmt(rg_same)} MB/s, {rg_same / low:,.1f}x"
                say(line)
        say("")
        peak = max(((r.get("maxrss_kb") or 0, row["family"], k) for row in fam_rows for k, r in (row.get("res") or {}).items()
                    if not k.startswith("rg")), default=None)  # fmt: skip
        if peak and peak[0]:
            say(f"Peak RSS over our modes: {fmt_rss(peak[0])} ({peak[2]} on `{peak[1]}`). Generator: at most "
                f"{fmt_rss(max((row['gen'].get('maxrss_kb') or 0) for row in fam_rows if 'gen' in row))}, "
                f"{fmt(sum(row['meta']['bytes'] for row in fam_rows if 'meta' in row) / MB / max(sum(row['gen']['wall_s'] for row in fam_rows if 'gen' in row), 1e-3))} MB/s.")  # fmt: skip
            say("")
    if pastes:
        say("## 5,000-line paste, diagnosed and rendered")
        say("")
        say("The last 5,000 lines of a 64-rank job's log of each family (the failure and its collateral in them),")
        say(f"`Denpex().diagnose_text` + the text renderer in one warm process, median of {args.paste_runs} runs.")
        say("")
        say("| family | KB | median ms (wall) | median ms (CPU) | root |")
        say("|---|---|---|---|---|")
        for fam, p in pastes.items():
            if "error" in p:
                say(f"| {fam} | n/a | n/a | n/a | failed: {p['error']} |")
            else:
                wrong = "" if p["root"] == loggen.EXPECTED_ROOT else " **WRONG**"
                say(f"| {fam} | {p['bytes'] / 1000:,.0f} | {p['median_ms']:.1f} | {p['median_cpu_ms']:.1f} | {p['root']}{wrong} |")
        ok = [p for p in pastes.values() if "error" not in p]
        if ok:
            worst = max(ok, key=lambda p: p["median_cpu_ms"])
            say("")
            say(f"Slowest paste: {worst['median_cpu_ms']:.1f} ms CPU median ({next(f for f, p in pastes.items() if p is worst)}).")
        say("")
    say("## Issue 15's targets against this run")
    say("")
    hundred = next((fr for s, fr in rows if 50 <= s <= 200), None)
    big = next((fr for s, fr in rows if s >= 900), None)

    def slowest(fam_rows: list, mode: str) -> float | None:
        vals = []
        for row in fam_rows:
            r = (row.get("res") or {}).get(mode)
            if r and r.get("timeout"):
                vals.append(row["meta"]["bytes"] / MB / r["timeout"])
            elif r and r.get("rc") == 0 and r.get("net_cpu_s"):
                vals.append(mbps(row["meta"]["bytes"], r["net_cpu_s"]))
        return min(vals) if vals and len(vals) == len(fam_rows) else None

    def mark(ok: bool | None) -> str:
        return {True: "met", False: "not met", None: "not measured"}[ok]

    if hundred:
        d = slowest(hundred, "diagnose")
        ratios = [mbps(row["meta"]["bytes"], row["res"]["rg -F"]["net_cpu_s"]) / mbps(row["meta"]["bytes"], row["res"]["diagnose"]["net_cpu_s"])
                  for row in hundred if row.get("res", {}).get("rg -F", {}).get("net_cpu_s") and row["res"].get("diagnose", {}).get("net_cpu_s")
                  and row["res"]["diagnose"].get("rc") == 0]  # fmt: skip
        say(f"- `denpex diagnose` >= {TARGET_DIAGNOSE_MBPS} MB/s on the slowest family at 100 MB: {fmt(d)} MB/s: "
            f"{mark(None if d is None else d >= TARGET_DIAGNOSE_MBPS)}")  # fmt: skip
        say(f"- within {TARGET_RG_RATIO}x of `rg -F -f` on every family: worst {max(ratios):,.1f}x: {mark(max(ratios) <= TARGET_RG_RATIO)}"
            if ratios and len(ratios) == len(hundred) else f"- within {TARGET_RG_RATIO}x of rg: not measured")  # fmt: skip
        mk = slowest(hundred, "mask")
        say(f"- `denpex mask` >= {TARGET_MASK_MBPS} MB/s on the slowest family: {fmt(mk)} MB/s: {mark(None if mk is None else mk >= TARGET_MASK_MBPS)}")
    else:
        say("- throughput targets: not measured (they are set at 100 MB)")
    if big:
        peak = max(((r.get("maxrss_kb") or 0) for row in big for k, r in (row.get("res") or {}).items() if not k.startswith("rg")), default=0)
        say(f"- peak RSS < {TARGET_RSS_MB} MB on every 1 GB log: {fmt_rss(peak)}: {mark(peak < TARGET_RSS_MB * 1024 if peak else None)}")
    else:
        say(f"- peak RSS < {TARGET_RSS_MB} MB on every 1 GB log: not measured (`--sizes 100,1000`)")
    ok = [p for p in pastes.values() if "error" not in p]
    if ok:
        worst = max(p["median_cpu_ms"] for p in ok)
        say(f"- 5,000-line paste < {TARGET_PASTE_MS} ms median: slowest family {worst:.1f} ms: {mark(worst < TARGET_PASTE_MS)}")
    say("")
    probs = problems_of(rows) + [f"paste of {f}: root `{p['root']}`, WRONG" for f, p in pastes.items() if "error" not in p and p["root"] != loggen.EXPECTED_ROOT]
    say("## Answers")
    say("")
    if probs:
        for p in probs:
            say(f"- **{p}**")
    else:
        say("Every diagnosis named the buried failure (`cuda-oom`), masked and unmasked alike.")
    notes = rank_notes(rows)
    if notes:
        say("")
        say("Initiating rank not the failed one:")
        say("")
        for n in notes:
            say(f"- {n}")
    say("")
    for size, fam_rows in rows:
        for row in fam_rows:
            for mode in ("diagnose", "no-mask"):
                r = (row.get("res") or {}).get(mode) or {}
                if "root" in r:
                    say(f"- {size:g} MB {row['family']} ({mode}): root {r['root']} on ranks {r['root_ranks']}, initiating rank "
                        f"{r['initiating_rank']} (the failed rank is {row['meta']['expected_rank']}); "
                        f"then {', '.join(f'{i} ({role})' for i, role, _ in r['answer'][1:4]) or 'nothing'}")  # fmt: skip
    say("")
    return lines


def write_results(path: Path, lines: list[str]) -> None:
    """Write the report, keeping a section another script owns (load.py's, between its markers)."""
    text = "\n".join(lines) + "\n"
    if path.exists():
        old = path.read_text()
        begin, end = "<!-- load.py:begin -->", "<!-- load.py:end -->"
        if begin in old and end in old:
            text += "\n" + old[old.index(begin) : old.index(end) + len(end)] + "\n"
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100", help="log sizes in MB, comma-separated (default 100; 100,1000 adds 1 GB)")
    ap.add_argument("--families", default=",".join(loggen.FAMILIES), help="comma-separated (default: all)")
    ap.add_argument("--modes", default=",".join(MODES), help=f"comma-separated of {', '.join(MODES)} (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each command; the least CPU time is reported")
    ap.add_argument("--startup-runs", type=int, default=3, help="runs on a one-line log for the start-up cost (0: none)")
    ap.add_argument("--paste-runs", type=int, default=21, help="runs of the 5,000-line paste per family (0: skip)")
    ap.add_argument("--jobs", type=int, default=1, help="families measured at once (>1 only to check answers quickly)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds before one command is stopped")
    ap.add_argument("--code", default=str(ROOT), help="the denpex tree to measure (default: this checkout)")
    ap.add_argument("--label", default="", help="a line for the report (what tree this is, before/after what)")
    ap.add_argument("--tmp", default=tempfile.gettempdir(), help="where logs are written (deleted after each family)")
    ap.add_argument("--keep", action="store_true", help="keep the generated logs")
    ap.add_argument("--no-rg", action="store_true", help="skip ripgrep even when installed")
    ap.add_argument("--results", help="write the Markdown report here (e.g. bench/RESULTS.md)")
    ap.add_argument("--check", action="store_true",
                    help="answers only: one process diagnoses every family's log, masked and unmasked (fast; no timing)")
    ap.add_argument("--paste-child", help=argparse.SUPPRESS)
    ap.add_argument("--check-child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.paste_child:
        print(json.dumps(paste_child(args.paste_child, args.paste_runs)))
        return 0
    if args.check_child:
        print(json.dumps(check_child(args.check_child)))
        return 0

    end_children_on_signals()
    args.families = [f.strip() for f in args.families.split(",") if f.strip()]
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [f for f in args.families if f not in loggen.FAMILIES] + [m for m in args.modes if m not in MODES]
    if bad:
        ap.error(f"unknown family or mode: {', '.join(bad)}")
    sizes = [float(s) for s in args.sizes.split(",") if s.strip()]
    args.load_start = f"{os.getloadavg()[0]:.2f}"
    tree = Tree(Path(args.code).resolve())
    rg = None if args.no_rg else shutil.which("rg")
    if "rg" in args.modes and not rg:
        print("ripgrep: " + ("skipped (--no-rg)" if args.no_rg else "not installed (apt-get install ripgrep): its columns are n/a"), flush=True)
    info = machine(rg)
    tmpdir = Path(tempfile.mkdtemp(prefix="denpex-bench-", dir=args.tmp))
    rows: list = []
    pastes: dict = {}
    try:
        literals = rule_literals(tree.code / "rules")
        kw = tmpdir / "literals.txt"
        kw.write_text("\n".join(literals) + "\n")
        print(f"measuring {tree.describe()}; {len(literals)} rule literals; {info.get('Model name', '?')}, {info.get('CPU(s)', '?')} CPUs", flush=True)
        startup = {} if args.check else measure_startup(tree, args.modes, tmpdir, args.startup_runs, args.timeout, rg, kw)
        print("start-up CPU seconds (subtracted): " + ", ".join(f"{m} {s:.2f}" for m, s in startup.items()), flush=True)
        for size in sizes:
            print(f"\n== {size:g} MB", flush=True)
            rows.append((size, check_families(args, tree, size, tmpdir) if args.check else run_families(args, tree, size, tmpdir, startup, rg, kw)))
        if args.paste_runs > 0:
            print("\n== 5,000-line paste", flush=True)
            for fam in args.families:
                pastes[fam] = p = run_paste(tree, fam, args.paste_runs)
                print(f"   {fam:12s} " + (f"failed: {p['error']}" if "error" in p else
                      f"{p['bytes'] / 1000:,.0f} KB  {p['median_ms']:.1f} ms wall  {p['median_cpu_ms']:.1f} ms CPU  root {p['root']}"), flush=True)  # fmt: skip
    finally:
        if not args.keep:
            shutil.rmtree(tmpdir, ignore_errors=True)
    lines = report(args, info, tree, startup, rows, pastes, len(literals), rg)
    print()
    print("\n".join(lines))
    if args.results:
        write_results(Path(args.results), lines)
        print(f"wrote {args.results}")
    probs = problems_of(rows) + [f"paste {f}" for f, p in pastes.items() if "error" in p or p["root"] != loggen.EXPECTED_ROOT]
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
