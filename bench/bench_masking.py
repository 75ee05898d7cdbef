"""Benchmark masking: throughput on a realistic training log, and linear time on hostile input.

    python bench/bench_masking.py              # ~100 MB log + adversarial inputs (< 2 min)
    python bench/bench_masking.py --size 20    # a 20 MB log
    python bench/bench_masking.py --skip-adversarial

The log imitates a multi-node torchrun job at NCCL_DEBUG=INFO: per-rank NCCL chatter full
of host names, IPs and GIDs, training progress, an env dump and pip list with secrets and
version decoys, warnings, and the final NCCL failure with its traceback. Adversarial inputs
are each timed at two sizes: time that doubles with size is linear; quadratic would quadruple.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.masking import Masker, mask


def _rand(rng: random.Random, n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _header(rng: random.Random, hosts: list[str], ips: list[str]) -> list[str]:
    hf = "hf_" + _rand(rng, 34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return [
        "+ export HF_TOKEN=" + hf,
        "+ export WANDB_API_KEY=" + _rand(rng, 40, "0123456789abcdef"),
        "+ export AWS_ACCESS_KEY_ID=AKIA" + _rand(rng, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
        "+ export AWS_SECRET_ACCESS_KEY=" + _rand(rng, 40),
        f"+ export MASTER_ADDR={hosts[0]} MASTER_PORT=29500 NCCL_SOCKET_IFNAME=eth0 NCCL_IB_GID_INDEX=3",
        "+ export NCCL_DEBUG=INFO TOKENIZERS_PARALLELISM=false HF_HUB_ENABLE_HF_TRANSFER=1",
        "USER=alice",
        "HOME=/home/alice",
        "wandb: Currently logged in as: alice (acme-ml). Use `wandb login --relogin` to force relogin",
        f"alice@{hosts[0]}:~/llm$ torchrun --nnodes {len(hosts)} --nproc_per_node 8 --rdzv_endpoint={hosts[0]}:29400 train.py --hf_token {hf}",
        "git clone https://alice:ghp_" + _rand(rng, 36) + "@github.com/acme/llm.git",
        "[pip3] nvidia-cudnn-cu12==8.9.2.26",
        "nvidia-cublas-cu12        12.1.3.1",
        "torch                     2.1.2+cu121",
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5e2a1b3c-1111-2222-3333-444455556666)",
        "|   0  NVIDIA H100 80GB HBM3          On  | 00000000:1B:00.0 Off |                    0 |",
        f"redis://:{_rand(rng, 16)}@{ips[1]}:6379/0",
    ]


def _nccl_line(rng: random.Random, hosts: list[str], ips: list[str], step: int) -> str:
    node = rng.randrange(len(hosts))
    rank = node * 8 + rng.randrange(8)
    host, ip = hosts[node], ips[node]
    pid = 10000 + rank
    prefix = f"{host}:{pid}:{pid + rng.randrange(300)} [{rank % 8}] NCCL INFO"
    kind = rng.randrange(8)
    if kind == 0:
        return f"{prefix} Bootstrap : Using eth0:{ip}<0>"
    if kind == 1:
        return f"{prefix} NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:{ip}<0>"
    if kind == 2:
        peer = ips[(node + 1) % len(ips)]
        return f"{prefix} Channel {step % 32:02d}/0 : {rank}[{rank % 8}] -> {(rank + 8) % 64}[{rank % 8}] [send] via NET/IB/0/GDRDMA"[:200] + f" peer {peer}"
    if kind == 3:
        return f"{prefix} comm 0x7f{rng.randrange(16**8):08x} rank {rank} nRanks {len(hosts) * 8} nNodes {len(hosts)} localRanks 8 localRank {rank % 8} MNNVL 0"
    if kind == 4:
        return f"{prefix} Connected all rings"
    if kind == 5:
        return f"{prefix} NET/IB: Dev 0 Port 1 qpn {rng.randrange(9999)} mtu 5 GID 3 (0/{ip}) localGid ::ffff:{ip}"
    if kind == 6:
        return f"{prefix} Trees [0] {(rank + 1) % 64}/-1/-1->{rank}->{(rank - 1) % 64} [1] -1/-1/-1->{rank}->-1"
    return f"{prefix} ncclCommInitRank comm 0x{rng.randrange(16**12):012x} rank {rank} nranks {len(hosts) * 8} cudaDev {rank % 8} busId {rng.choice(['1b', '29', '9d', 'bb'])}000 commId 0x{rng.randrange(16**16):016x} - Init COMPLETE"


def _train_line(rng: random.Random, step: int) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return f"{{'loss': {rng.uniform(1, 3):.4f}, 'grad_norm': {rng.uniform(0, 2):.3f}, 'learning_rate': 1.9e-05, 'epoch': {step / 1000:.2f}}}"
    if kind == 1:
        return f"[2024-05-01 12:{step // 60 % 60:02d}:{step % 60:02d},{rng.randrange(1000):03d}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, lr=[1.9e-05], mom=[(0.9, 0.95)]"
    if kind == 2:
        return f" {step % 100:3d}%|████▌     | {step}/10000 [12:34<56:07,  2.41it/s]"
    if kind == 3:
        return f"[rank{rng.randrange(64)}]: step {step} tokens_per_sec={rng.randrange(10**6)} mfu=0.{rng.randrange(100):02d} max_new_tokens=128 pad_token_id=0"
    if kind == 4:
        return f"wandb: {step} loss {rng.uniform(1, 3):.3f} /home/alice/llm/wandb/run-20240501_120000-{_rand(rng, 8, '0123456789abcdefghijklmnopqrstuvwxyz')}"
    return "/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:460: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly."


def _footer(hosts: list[str], ips: list[str]) -> list[str]:
    return [
        f"{hosts[3]}:10024:10101 [0] NCCL WARN NET/IB : Got completion from peer {ips[2]}<54321> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:{ips[3]} remoteGids::ffff:{ips[2]} hca mlx5_0",
        "Traceback (most recent call last):",
        '  File "/home/alice/llm/train.py", line 212, in <module>',
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error, NCCL version 2.18.1",
        f"[c10d] The client socket has failed to connect to [{hosts[1]}]:29500 (errno: 99 - Cannot assign requested address).",
        "torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 10024) of binary: /usr/bin/python",
        f"  host      : {hosts[3]}.cluster.acme.internal",
        "  exitcode  : -6 (pid: 10024)",
        "  traceback : Signal 6 (SIGABRT) received by PID 10024",
    ]


def build_log(size_mb: float, seed: int = 7) -> str:
    """A realistic training log of about `size_mb` MB."""
    rng = random.Random(seed)
    hosts = [f"gpu-node-{i:02d}" for i in range(8)]
    ips = [f"10.{rng.randrange(256)}.{rng.randrange(256)}.{i + 10}" for i in range(8)]
    lines = _header(rng, hosts, ips)
    # Build a block of varied lines once and repeat it: generation must not dominate the run.
    block: list[str] = []
    for step in range(20000):
        block.append(_nccl_line(rng, hosts, ips, step) if rng.random() < 0.45 else _train_line(rng, step))
    block_text = "\n".join(block) + "\n"
    target = int(size_mb * 1_000_000)
    body = block_text * max(1, target // len(block_text))
    return "\n".join(lines) + "\n" + body + "\n".join(_footer(hosts, ips)) + "\n"


def _time(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _times(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, cpu) seconds: on a shared machine the CPU figure is the one that compares."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_throughput(size_mb: float) -> None:
    text = build_log(size_mb)
    mb = len(text.encode()) / 1e6
    print(f"realistic log: {mb:.1f} MB, {text.count(chr(10)):,} lines")
    result: list[object] = []
    wall, cpu = _times(lambda: result.append(mask(text)))
    counts = result[0].counts  # type: ignore[attr-defined]
    print(f"  mask(text)          {wall:6.2f} s wall {mb / wall:6.1f} MB/s | {cpu:6.2f} s cpu {mb / cpu:6.1f} MB/s")
    print(f"  masked: {dict(sorted(counts.items()))}")

    def streamed() -> None:
        masker = Masker()
        step = 1 << 20
        pos = 0
        while pos < len(text):
            end = text.find("\n", min(pos + step, len(text) - 1)) + 1 or len(text)
            masker.mask(text[pos:end])
            pos = end

    wall, cpu = _times(streamed)
    print(f"  Masker, 1 MB chunks {wall:6.2f} s wall {mb / wall:6.1f} MB/s | {cpu:6.2f} s cpu {mb / cpu:6.1f} MB/s")


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
    parser.add_argument("--size", type=float, default=100, help="realistic log size in MB (default 100)")
    parser.add_argument("--adversarial-size", type=float, default=1, help="adversarial input size in MB (default 1)")
    parser.add_argument("--skip-adversarial", action="store_true")
    args = parser.parse_args()
    bench_throughput(args.size)
    if not args.skip_adversarial:
        bench_adversarial(args.adversarial_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
