"""Realistic large training logs for the benchmark: many ranks interleaved, NCCL INFO chatter,
tqdm bars, loss lines, a failure buried deep and collateral on the other ranks.

The shape follows what a 1,000-rank job with `NCCL_DEBUG=INFO` under torchrun (`--tee`, so every
line carries `[rankN]:`) writes: each process group's init makes every member print its bootstrap,
topology, channel and tree lines; rank 0 prints loss dicts and tqdm bars (some as `\\r`-joined
updates on one long line, as tqdm writes them to a file); PyTorch prints glog-style warnings.
At `failure_at` of the way in, one rank runs out of CUDA memory (a full traceback); the chatter
goes on; near the end every other rank's NCCL watchdog times out, a neighbour's socket closes,
and torchelastic reports `ChildFailedError` naming the first failure.

The expected diagnosis: root `cuda-oom` on `FAILED_RANK`, watchdog timeouts as collateral.
"""

from __future__ import annotations

import random
from typing import BinaryIO

FAILED_RANK = 613
EXPECTED_ROOT = "cuda-oom"
GPUS_PER_NODE = 8
EPOCH_STEPS = 500


class _Rank:
    __slots__ = ("bus", "host", "ip", "local", "nccl", "pid", "prefix", "rank", "tid")

    def __init__(self, rank: int):
        node, local = divmod(rank, GPUS_PER_NODE)
        self.rank = rank
        self.local = local
        self.host = f"gpu-node-{node:03d}"
        self.pid = 20_000 + 37 * rank % 9000 + local
        self.tid = self.pid + 211
        self.ip = f"10.{16 + node // 250}.{node % 250}.{10 + local}"
        self.bus = ("18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000")[local]
        self.prefix = f"[rank{rank}]:"
        self.nccl = f"[rank{rank}]:{self.host}:{self.pid}:{self.tid} [{local}] NCCL INFO "


def _init_lines(r: _Rank, comm: str, cid: str, members: list[int], first: bool) -> list[str]:
    """What one member prints while one communicator initialises (NCCL 2.21, IB, 8 GPUs a node)."""
    n = len(members)
    idx = members.index(r.rank)
    nxt, prv = members[(idx + 1) % n], members[idx - 1]
    p = r.nccl
    boot = f"[rank{r.rank}]:{r.host}:{r.pid}:{r.pid} [{r.local}] NCCL INFO "
    out = []
    if first:
        out += [
            f"{boot}Bootstrap : Using ib0:{r.ip}<0>",
            f"{boot}cudaDriverVersion 12040",
            f"{boot}NCCL_SOCKET_IFNAME set by environment to ib0",
            f"{boot}NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.",
            f"{p}NCCL_IB_HCA set to mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7",
            f"{p}NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB "
            f"[4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB ib0:{r.ip}<0>",
            f"{p}Using non-device net plugin version 0",
            f"{p}Using network IB",
        ]
    out += [
        f"{p}ncclCommInitRank comm 0x{comm} rank {idx} nranks {n} cudaDev {r.local} nvmlDev {r.local} "
        f"busId {r.bus} commId 0x{cid} - Init START",
        f"{p}Setting affinity for GPU {r.local} to ffffffff,ffff0000,00000000",
        f"{p}NVLS multicast support is not available on dev {r.local}",
        f"{p}comm 0x{comm} rank {idx} nRanks {n} nNodes {max(1, n // GPUS_PER_NODE)} localRanks "
        f"{min(n, GPUS_PER_NODE)} localRank {r.local} MNNVL 0",
        f"{p}Trees [0] {nxt}/-1/-1->{r.rank}->{prv} [1] {nxt}/-1/-1->{r.rank}->{prv} "
        f"[2] {nxt}/-1/-1->{r.rank}->{prv} [3] {nxt}/-1/-1->{r.rank}->{prv}",
        f"{p}P2P Chunksize set to 131072",
    ]
    # Ring connections, then tree connections, on each of 24 channels.
    for ch in range(24):
        if r.local == GPUS_PER_NODE - 1:
            out.append(f"{p}Channel {ch:02d}/0 : {r.rank}[{r.local}] -> {nxt}[{nxt % 8}] [send] via NET/IB/{ch % 8}/GDRDMA")
        else:
            out.append(f"{p}Channel {ch:02d}/0 : {r.rank}[{r.local}] -> {nxt}[{nxt % 8}] via P2P/IPC/read")
    out.append(f"{p}Connected all rings")
    for ch in range(24):
        if r.local == 0:
            out.append(f"{p}Channel {ch:02d}/0 : {prv}[{prv % 8}] -> {r.rank}[{r.local}] [receive] via NET/IB/{ch % 8}/GDRDMA")
        else:
            out.append(f"{p}Channel {ch:02d}/0 : {r.rank}[{r.local}] -> {prv}[{prv % 8}] via P2P/IPC/read")
    out += [
        f"{p}Connected all trees",
        f"{p}threadThresholds 8/8/64 | {8 * n}/8/64 | 512 | 512",
        f"{p}24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
        f"{p}TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object file: "
        f"No such file or directory : when loading libnccl-tuner.so",
        f"{p}TUNER/Plugin: Using internal tuner plugin.",
        f"{p}ncclCommInitRank comm 0x{comm} rank {idx} nranks {n} cudaDev {r.local} nvmlDev {r.local} "
        f"busId {r.bus} commId 0x{cid} - Init COMPLETE",
        f"{p}Init timings: rank {idx} nranks {n} total 0.84 (kernels 0.11, bootstrap 0.39, allgathers 0.02, "
        f"topo 0.17, graphs 0.01, connections 0.12, rest 0.02)",
    ]
    return out


_WARNINGS = (
    "{p}[W{md} {hms}.{us:06d} {pid} ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank {rank}]  using GPU "
    "{local} to perform barrier as devices used by this process are currently unknown. This can potentially "
    "cause a hang if this rank to GPU mapping is incorrect.",
    "{p}/usr/local/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py:632: UserWarning: "
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
    "{p}/usr/local/lib/python3.11/site-packages/transformers/trainer.py:3114: FutureWarning: "
    "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
    "{p}[I{md} {hms}.{us:06d} {pid} torch/distributed/distributed_c10d.py:3920] Rank {rank}: Completed store-based "
    "barrier for key:store_based_barrier_key:2 with 1000 nodes.",
)


class _Writer:
    def __init__(self, out: BinaryIO):
        self.out = out
        self.bytes = 0
        self.lines = 0
        self._buf: list[str] = []
        self._pending = 0

    def lines_(self, lines: list[str]) -> None:
        self._buf.extend(lines)
        for s in lines:
            self._pending += len(s) + 1
        if self._pending > 1 << 20:
            self.flush()

    def flush(self) -> None:
        if self._buf:
            data = ("\n".join(self._buf) + "\n").encode("utf-8")
            self.out.write(data)
            self.bytes += len(data)
            self.lines += len(self._buf)
            self._buf, self._pending = [], 0

    @property
    def size(self) -> int:
        return self.bytes + self._pending


def _interleave(rng: random.Random, per_rank: list[list[str]]) -> list[str]:
    """Lines of several processes as one stream: each keeps its order, the ranks mix."""
    out: list[str] = []
    width = max(len(x) for x in per_rank)
    order = list(range(len(per_rank)))
    for i in range(width):
        rng.shuffle(order)
        out.extend(per_rank[k][i] for k in order if i < len(per_rank[k]))
    return out


def _oom_block(r: _Rank) -> list[str]:
    p = r.prefix
    return [
        f"{p}Traceback (most recent call last):",
        f'{p}  File "/workspace/megatron_train.py", line 412, in <module>',
        f"{p}    main()",
        f'{p}  File "/workspace/megatron_train.py", line 398, in main',
        f"{p}    loss = train_step(model, batch)",
        f'{p}  File "/usr/local/lib/python3.11/site-packages/torch/_tensor.py", line 581, in backward',
        f"{p}    torch.autograd.backward(",
        f'{p}  File "/usr/local/lib/python3.11/site-packages/torch/autograd/graph.py", line 825, in _engine_run_backward',
        f"{p}    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
        f"{p}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.81 GiB. GPU {r.local} has a total "
        f"capacity of 79.15 GiB of which 3.12 GiB is free. Process {r.pid} has 76.02 GiB memory in use. Of the "
        f"allocated memory 71.40 GiB is allocated by PyTorch, and 3.95 GiB is reserved by PyTorch but "
        f"unallocated. If reserved but unallocated memory is large try setting "
        f"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
        f"Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    ]


def _collateral(rng: random.Random, ranks: list[_Rank], failed: _Rank, count: int) -> list[str]:
    others = [r for r in ranks if r.rank != failed.rank]
    rng.shuffle(others)
    others = sorted(others[:count], key=lambda r: r.rank)
    per = []
    for r in others:
        p = r.prefix
        seq = 48211
        per.append([
            f"{p}[E1130 04:{22 + r.rank % 3}:55.{118204 + r.rank:06d} {r.tid} ProcessGroupNCCL.cpp:607] [Rank {r.rank}] "
            f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
            f"NumelIn=26214400, NumelOut=26214400, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.",
            f"{p}[E1130 04:22:55.{201334 + r.rank:06d} {r.tid} ProcessGroupNCCL.cpp:1537] [PG 0 Rank {r.rank}] "
            f"Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.",
            f"{p}[E1130 04:22:55.{201371 + r.rank:06d} {r.tid} ProcessGroupNCCL.cpp:621] [Rank {r.rank}] To avoid "
            f"data inconsistency, we are taking the entire process down.",
        ])
    lines = _interleave(rng, per) if per else []
    nb = ranks[failed.rank + 1] if failed.rank + 1 < len(ranks) else ranks[failed.rank - 1]
    lines.insert(
        min(len(lines), 3),
        f"{nb.prefix}{nb.host}:{nb.pid}:{nb.tid + 3} [{nb.local}] misc/socket.cc:50 NCCL WARN socketProgress: "
        f"Connection closed by remote peer {failed.host}.ib<45122>",
    )
    return lines


def _wrapper(failed: _Rank) -> list[str]:
    return [
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/run.py", line 892, in main',
        "    run(args)",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "megatron_train.py FAILED",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2025-11-30_04:12:41",
        f"  host      : {failed.host}",
        f"  rank      : {failed.rank} (local_rank: {failed.local})",
        f"  exitcode  : 1 (pid: {failed.pid})",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "============================================================",
    ]


def _tqdm(step: int, total: int, updates: int) -> str:
    parts = []
    for k in range(updates):
        s = min(total, step + k)
        pct = s * 100 // total
        fill = "█" * (pct // 10)
        parts.append(f"{pct:3d}%|{fill:<10}| {s}/{total} [{s // 60:02d}:{s % 60:02d}<{(total - s) // 60:02d}:00,  1.52s/it]")
    return "\r".join(parts)


def generate(out: BinaryIO, size: int, *, ranks: int = 1000, seed: int = 0, failure_at: float = 0.8) -> dict:
    """Write about `size` bytes of log to `out`; returns what was written and what to expect."""
    rng = random.Random(seed)
    ranks = max(ranks, 16)
    all_ranks = [_Rank(i) for i in range(ranks)]
    failed = all_ranks[FAILED_RANK if ranks > FAILED_RANK + 1 else ranks * 3 // 5]
    w = _Writer(out)
    inited: set[int] = set()
    step, total_steps = 1, 100_000
    comm_no = 0
    failed_done = False
    collateral_count = max(8, min(ranks - 1, size // 3000))
    tail_reserve = 400 * collateral_count + 4000
    stop_chatter = max(size - tail_reserve, int(size * 0.9))
    while w.size < stop_chatter:
        if not failed_done and w.size >= size * failure_at:
            # The first failure, mixed into the other ranks' ongoing chatter.
            block = _oom_block(failed)
            noise = [f"{r.prefix}{{'loss': {rng.uniform(1, 3):.4f}}}" for r in all_ranks[:1]]
            w.lines_(noise + block)
            failed_done = True
            continue
        kind = rng.random()
        if kind < 0.62:
            # A process group comes up: data-, tensor- or pipeline-parallel group, or the world.
            comm_no += 1
            group = min(ranks, max(8, size // 40_000), rng.choice((8, 8, 16, 64, 128, 256)))
            start = rng.randrange(0, ranks - group + 1)
            stride = rng.choice((1, 1, 8))
            members = [m for m in range(start, ranks, stride)][:group] or [0]
            comm = f"{rng.getrandbits(44):x}"
            cid = f"{rng.getrandbits(64):016x}"
            per = []
            for m in members:
                per.append(_init_lines(all_ranks[m], comm, cid, members, m not in inited))
                inited.add(m)
            w.lines_(_interleave(rng, per))
        elif kind < 0.90:
            # Training: loss dicts, Megatron iteration lines, tqdm bars.
            lines = []
            for _ in range(rng.randrange(20, 60)):
                step += 1
                loss = 2.5 * 0.9999**step + rng.uniform(0, 0.05)
                lines.append(
                    f"[rank0]:{{'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.2, 1.5):.4f}, "
                    f"'learning_rate': {3e-4 * (1 - step / total_steps):.3e}, 'epoch': {step / 5000:.2f}}}"
                )
                lines.append(
                    f"[rank{ranks - 1}]: iteration {step:8d}/{total_steps:8d} | consumed samples: {step * 1024:12d} | "
                    f"elapsed time per iteration (ms): {rng.uniform(1400, 1600):.1f} | learning rate: "
                    f"{3e-4:.6E} | global batch size:  1024 | lm loss: {loss:.6E} | loss scale: 1.0 | "
                    f"grad norm: {rng.uniform(0.2, 1.5):.3f} | number of skipped iterations:   0 | "
                    f"number of nan iterations:   0 |"
                )
                if rng.random() < 0.3:
                    # The epoch's bar: it fills (█, as tqdm draws it into a UTF-8 file) and restarts.
                    lines.append("[rank0]:" + _tqdm(step % EPOCH_STEPS, EPOCH_STEPS, rng.choice((1, 1, 1, 40))))
            w.lines_(lines)
        else:
            # Warnings every rank prints once in a while.
            lines = []
            for r in rng.sample(all_ranks, min(len(all_ranks), 32)):
                tmpl = rng.choice(_WARNINGS)
                lines.append(tmpl.format(
                    p=r.prefix, md="1130", hms=f"0{rng.randrange(4)}:{rng.randrange(60):02d}:{rng.randrange(60):02d}",
                    us=rng.randrange(1_000_000), pid=r.pid, rank=r.rank, local=r.local,
                ))  # fmt: skip
            w.lines_(lines)
    if not failed_done:
        w.lines_(_oom_block(failed))
    w.lines_(_collateral(rng, all_ranks, failed, collateral_count))
    w.lines_(_wrapper(failed))
    w.flush()
    return {
        "bytes": w.bytes,
        "lines": w.lines,
        "ranks": ranks,
        "expected_root": EXPECTED_ROOT,
        "expected_rank": failed.rank,
    }


def generate_file(path: str, size: int, **kw) -> dict:
    with open(path, "wb") as fh:
        return generate(fh, size, **kw)


def paste(lines: int = 5000, seed: int = 1) -> str:
    """A paste of about `lines` lines (a 64-rank job's tail), with the failure in it."""
    import io

    buf = io.BytesIO()
    generate(buf, lines * 150, ranks=64, seed=seed, failure_at=0.6)
    text = buf.getvalue().decode("utf-8")
    all_lines = text.splitlines()
    return "\n".join(all_lines[-lines:]) + "\n"
