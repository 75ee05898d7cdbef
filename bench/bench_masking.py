"""Benchmark masking in-process: throughput on every log family, and linear time on hostile input.

    python bench/bench_masking.py                           # 20 MB of each family + adversarial inputs
    python bench/bench_masking.py --size 5 --families k8s-json,env-dump
    python bench/bench_masking.py --skip-adversarial

The logs are bench/loggen.py's families (torchrun, NCCL native, srun -l, pdsh, Kubernetes JSON,
c10d retry flood, warning floods, tqdm bars, iteration lines, env dumps), each with planted
secrets, user names and hosts. `mask(text)` masks a whole log at once, `Masker` in 1 MB pieces
(as `denpex mask` streams). The whole-CLI figures (`denpex mask FILE`) are in bench_families.py.
Adversarial inputs are each timed at two sizes: time that doubles with size is linear;
quadratic would quadruple.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import loggen

from bot.masking import Masker, mask


def build_log(size_mb: float, family: str, seed: int = 7) -> str:
    """A log of about `size_mb` MB of one of loggen's families."""
    buf = io.BytesIO()
    loggen.generate(buf, int(size_mb * 1_000_000), family, seed=seed)
    return buf.getvalue().decode("utf-8")


def _time(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _times(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, cpu) seconds: on a shared machine the CPU figure is the one that compares."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_throughput(size_mb: float, families: list[str]) -> None:
    print(f"masking, {size_mb:g} MB of each log family (CPU time; the machine may be shared)")
    slowest = None
    for family in families:
        text = build_log(size_mb, family)
        mb = len(text.encode()) / 1e6
        result: list[object] = []
        _wall, cpu = _times(lambda t=text, out=result: out.append(mask(t)))
        counts = result[0].counts  # type: ignore[attr-defined]

        def streamed(text: str = text) -> None:
            masker = Masker()
            step = 1 << 20
            pos = 0
            while pos < len(text):
                end = text.find("\n", min(pos + step, len(text) - 1)) + 1 or len(text)
                masker.mask(text[pos:end])
                pos = end

        _wall, cpu_streamed = _times(streamed)
        print(f"  {family:12s} mask(text) {mb / cpu:7.1f} MB/s | Masker, 1 MB chunks {mb / cpu_streamed:7.1f} MB/s | "
              f"masked: {dict(sorted(counts.items()))}")  # fmt: skip
        rate = mb / max(cpu, cpu_streamed)
        if slowest is None or rate < slowest[0]:
            slowest = (rate, family)
    if slowest:
        print(f"  slowest family: {slowest[1]} at {slowest[0]:.1f} MB/s")


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "'a' * n": lambda n: "a" * n,
    "'@' * n": lambda n: "@" * n,
    "'-----BEGIN' repeated": lambda n: "-----BEGIN " * (n // 11),
    "BEGIN PRIVATE KEY, no END": lambda n: "-----BEGIN RSA PRIVATE KEY-----\n" + "QUJD\n" * (n // 5),
    "digits": lambda n: "1" * n,
    "digits and dots": lambda n: "1." * (n // 2),
    "dotted quads run together": lambda n: "10.0.0.1." * (n // 9),
    "'://' nesting": lambda n: "a://" * (n // 4),
    "'://' with userinfo-ish": lambda n: "x://a:b@" * (n // 8),
    "'=' * n": lambda n: "=" * n,
    "'token=' repeated": lambda n: "token=" * (n // 6),
    "'password: ' repeated": lambda n: "password: " * (n // 10),
    "':' * n": lambda n: ":" * n,
    "'::' hex runs": lambda n: "ab::" * (n // 4),
    "hex groups": lambda n: "abcd:" * (n // 5),
    "'.internal' labels": lambda n: "a.internal." * (n // 11),
    "long host label": lambda n: "a" * (n - 9) + ".internal",
    "'hf_' repeated": lambda n: "hf_" * (n // 3),
    "'/home/' repeated": lambda n: "/home/" * (n // 6),
    "'@a.' e-mail-ish": lambda n: "a@a." * (n // 4),
    "base64 soup": lambda n: "Ab1+" * (n // 4),
    "'eyJ' dots": lambda n: "eyJa." * (n // 5),
    "one-line PEM markers, no END": lambda n: "-----BEGIN RSA PRIVATE KEY----- " * (n // 32),
    "nested 'data:' blocks": lambda n: "".join(" " * (i % 200) + "data:\n" for i in range(n // 100)),
    "'\"data\": {' repeated": lambda n: '"data": {"a": "QUJD", ' * (n // 24),
    "prompts run together": lambda n: "alice@node01:~$ " * (n // 16),
    "'[host]:1' repeated": lambda n: "[gpu-node-1]:1" * (n // 14),
    "'Bearer ' repeated": lambda n: "Bearer " * (n // 7),
    "'-p ' after mysql": lambda n: "mysql" + " -px" * (n // 4),
    "'wandb' and hex": lambda n: ("wandb " + "a" * 40 + " ") * (n // 47),
    "'&sig=' query pairs": lambda n: "&sig=" * (n // 5),
    "wandb login + options": lambda n: ("wandb login" + " --a" * 26 + " !\n") * (n // 120),
    "YAML value, blank run": lambda n: "data:\n  key: a" + " " * n + "b\n",
    "long digit values": lambda n: ("key=" + "1" * 4000 + "!\n") * (n // 4006),
    "quotes": lambda n: '"' * n,
    "backslash-quote": lambda n: '\\"' * (n // 2),
}


def bench_adversarial(size_mb: float) -> None:
    n = int(size_mb * 1_000_000)
    print(f"adversarial inputs, one line each: time at {size_mb:g} MB and {2 * size_mb:g} MB (ratio ~2 = linear)")
    worst = 0.0
    for name, make in ADVERSARIAL.items():
        small, large = make(n), make(2 * n)
        t1 = _time(lambda s=small: mask(s))
        t2 = _time(lambda s=large: mask(s))
        worst = max(worst, t2 / max(len(large), 1) * 1e6)
        print(f"  {name:28s} {t1:6.3f} s  {t2:6.3f} s  ratio {t2 / max(t1, 1e-6):4.1f}  {len(large) / 1e6 / max(t2, 1e-9):7.1f} MB/s")
    print(f"  slowest: {worst:.2f} s per MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=float, default=20, help="MB of each family's log (default 20)")
    parser.add_argument("--families", default=",".join(loggen.FAMILIES), help="comma-separated (default: all)")
    parser.add_argument("--adversarial-size", type=float, default=1, help="adversarial input size in MB (default 1)")
    parser.add_argument("--skip-adversarial", action="store_true")
    args = parser.parse_args()
    bench_throughput(args.size, [f for f in args.families.split(",") if f])
    if not args.skip_adversarial:
        bench_adversarial(args.adversarial_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
