"""Large training logs of the shapes real jobs write, one family at a time, for the benchmarks.

Every family buries the same single failure: at `failure_at` (70%) of the way in, one rank runs
out of CUDA memory (a full traceback ending in `torch.OutOfMemoryError: CUDA out of memory.
Tried to allocate ...`). The chatter goes on; near the end the other ranks' NCCL watchdogs time
out (collateral) and the launcher reports the failure (torchrun's `ChildFailedError` summary,
srun's task exits, DeepSpeed's `sigkill_handler`). The expected diagnosis is root `cuda-oom`.

What differs is the shape of everything around it, the way the launcher and the libraries print:

    torchrun      torchrun `--tee 3`: every line `[rankN]:`, NCCL INFO init chatter of a
                  1,000-rank job (the shape the first benchmark measured)
    nccl-native   Slurm/mpirun without a launcher prefix: NCCL's own `host:pid:tid [dev] NCCL INFO`
    srun-label    `srun -l`: every line `N: ` (task id, right-aligned), Megatron-LM output
    pdsh          DeepSpeed's multi-node launcher: every line `worker-3: `, DeepSpeed's
                  `[2025-..] [INFO] [logging.py:..:log_dist] [Rank 0] step=..` and timers
    k8s-json      a pod's container log as Docker's json-file driver keeps it on the node:
                  `{"log":"...\\n","stream":"stderr","time":"..."}`, `<>&` escaped as Go does,
                  lines longer than 16 KiB split into partial entries
    c10d-retry    a store client that never stops retrying: `[W.. socket.cpp:697] [c10d] The
                  client socket has failed to connect to [localhost]:29500 (errno: 99 - ...)`
                  as most of the log
    py-warnings   Python warnings printed on every step by every rank (`file.py:123: UserWarning:
                  ...` and the source line under it)
    tqdm          progress bars as tqdm writes them into a file: each epoch's updates joined by
                  `\\r` on one line of megabytes; the traceback starts on the bar's line
    iterations    rank-0 training output: HF Trainer dicts, Lightning epoch lines, Megatron
                  iteration lines and timer blocks
    env-dump      a launcher script that prints `env`, the Megatron arguments, the DeepSpeed
                  config and `pip list` on every node first (half the log), with secrets,
                  user names and host names in them; training after
    s3-debug      a data pipeline's DEBUG logging: botocore's response headers (a new base64
                  `x-amz-id-2`, request id and ETag on every line), HF datasets' cache lines
    vllm-serve    an RL job beside a vLLM OpenAI server: each request's `Received request
                  chatcmpl-<hex>` and `Added request` lines, uvicorn access lines, metrics

Every family starts with a short launch header that plants secrets (tokens, keys), a user name
(`alice`, in `USER=`, `/home/alice/`) and host names, and the failure's traceback and the
launcher's summary carry the user's paths and host names, so masking at the egress has work.

Logs are written in about 1 MB batches to a binary file; memory stays bounded whatever the size
(the longest line, a tqdm epoch of a 1 GB log, is a few MB). Numbers, timestamps, pids and hosts
vary as they do in real logs; a seed makes a log reproducible.

    python bench/loggen.py FAMILY SIZE_MB PATH     # one log, prints what it wrote
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import io
import json
import random
import sys
from collections.abc import Iterable
from typing import BinaryIO, ClassVar

EXPECTED_ROOT = "cuda-oom"
FAILED_RANK = 613  # the torchrun family's failed rank (1,000 ranks)
GPUS_PER_NODE = 8
DEFAULT_FAILURE_AT = 0.7

Line = tuple[int | None, str]  # (rank that printed it, or None for the launcher; its text)


# --- clock, job, writer -----------------------------------------------------------------------


class Clock:
    """Wall time of the job as it runs: advances by jittered steps, formats as the libraries do."""

    def __init__(self, rng: random.Random, start: _dt.datetime | None = None):
        self.rng = rng
        self.t = (start or _dt.datetime(2025, 11, 30, 1, 7, 13, tzinfo=_dt.UTC)).timestamp()
        self._sec = -1
        self._parts: tuple[str, str, str] = ("", "", "")

    def tick(self, seconds: float) -> None:
        self.t += seconds * (0.5 + self.rng.random())

    def _split(self) -> tuple[int, tuple[str, str, str]]:
        sec = int(self.t)
        if sec != self._sec:
            d = _dt.datetime.fromtimestamp(sec, _dt.UTC)
            self._sec = sec
            self._parts = (d.strftime("%m%d %H:%M:%S"), d.strftime("%Y-%m-%d %H:%M:%S"), d.strftime("%Y-%m-%dT%H:%M:%S"))
        return int((self.t - sec) * 1e9), self._parts

    def glog(self, nanos: bool = False) -> str:
        """`1130 04:22:55.118204` (glog, PyTorch's C++ logs; nine digits from PyTorch 2.4)."""
        ns, (g, _, _) = self._split()
        ns += self.rng.randrange(1000)
        return f"{g}.{ns:09d}" if nanos else f"{g}.{ns // 1000:06d}"

    def py(self) -> str:
        """`2025-11-30 04:22:55,118` (Python logging: DeepSpeed, Lightning)."""
        ns, (_, p, _) = self._split()
        return f"{p},{ns // 1_000_000:03d}"

    def iso(self) -> str:
        """`2025-11-30T04:22:55.118204321Z` (Docker's json-file driver: each entry a little later)."""
        self.t += self.rng.random() * 2e-6
        ns, (_, _, i) = self._split()
        return f"{i}.{ns:09d}Z"

    def day(self) -> str:
        return self._split()[1][1]


class Job:
    """Who runs: world size, nodes and their host names and addresses, each rank's pid."""

    def __init__(self, rng: random.Random, ranks: int, host: str = "gpu-node-{:03d}", domain: str = "cluster.acme.internal"):
        self.ranks = ranks
        self.nodes = max(1, -(-ranks // GPUS_PER_NODE))
        self.hosts = [host.format(n) for n in range(self.nodes)]
        self.domain = domain
        self.ips = [f"10.{16 + n // 250}.{n % 250}.{rng.randrange(10, 250)}" for n in range(self.nodes)]
        base = [rng.randrange(3_000, 3_900_000) for _ in range(self.nodes)]
        self.pids = [base[r // GPUS_PER_NODE] + r % GPUS_PER_NODE + rng.randrange(0, 3) * (r % GPUS_PER_NODE > 0) for r in range(ranks)]
        self.tids = [p + rng.randrange(150, 2400) for p in self.pids]
        self.bus = ("18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000")

    def host(self, r: int) -> str:
        return self.hosts[r // GPUS_PER_NODE]

    def fqdn(self, r: int) -> str:
        return f"{self.host(r)}.{self.domain}"

    def ip(self, r: int) -> str:
        return self.ips[r // GPUS_PER_NODE]

    def nccl(self, r: int, level: str = "INFO", main_thread: bool = False) -> str:
        """NCCL's own prefix: `host:pid:tid [cudaDev] NCCL INFO `."""
        pid = self.pids[r]
        return f"{self.host(r)}:{pid}:{pid if main_thread else self.tids[r]} [{r % GPUS_PER_NODE}] NCCL {level} "


class Writer:
    """Lines to a binary file in ~1 MB batches: memory stays bounded whatever the log's size."""

    def __init__(self, out: BinaryIO):
        self.out = out
        self.bytes = 0
        self.lines = 0
        self.longest = 0
        self._buf: list[str] = []
        self._pending = 0

    def write(self, lines: Iterable[str]) -> None:
        for s in lines:
            self._buf.append(s)
            n = len(s) + 1
            self._pending += n
            if n > self.longest:
                self.longest = n
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
        """Bytes written so far, counting what is buffered (as characters: close enough)."""
        return self.bytes + self._pending


def interleave(rng: random.Random, streams: list[list[Line]], burst: int = 1) -> list[Line]:
    """Several processes' lines as one stream: each keeps its order, the processes mix (a line
    at a time, or in runs of up to `burst` lines, as buffered output arrives)."""
    if burst == 1:
        out: list[Line] = []
        width = max((len(s) for s in streams), default=0)
        order = list(range(len(streams)))
        for i in range(width):
            rng.shuffle(order)
            out.extend(streams[k][i] for k in order if i < len(streams[k]))
        return out
    pos = [0] * len(streams)
    live = [k for k, s in enumerate(streams) if s]
    out = []
    while live:
        k = rng.choice(live)
        n = rng.randrange(1, burst + 1)
        out.extend(streams[k][pos[k] : pos[k] + n])
        pos[k] += n
        if pos[k] >= len(streams[k]):
            live.remove(k)
    return out


# --- what the libraries print ---------------------------------------------------------------


def nccl_init(rng: random.Random, job: Job, members: list[int], first: set[int], net: str = "IB") -> list[Line]:
    """What every member prints while one communicator initialises (NCCL 2.21, 8 GPUs a node)."""
    comm_base = rng.getrandbits(36) << 8
    cid = f"{rng.getrandbits(64):016x}"
    n = len(members)
    channels = rng.choice((8, 16, 24, 32)) if n > 8 else rng.choice((2, 4, 8))
    streams = []
    for idx, r in enumerate(members):
        nxt, prv = members[(idx + 1) % n], members[idx - 1]
        local = r % GPUS_PER_NODE
        p = job.nccl(r)
        comm = f"0x{comm_base + rng.getrandbits(20) * 16:x}"
        out: list[Line] = []
        if r not in first:
            first.add(r)
            boot = job.nccl(r, main_thread=True)
            out += [
                (r, f"{boot}Bootstrap : Using ib0:{job.ip(r)}<0>" if net == "IB" else f"{boot}Bootstrap : Using eth0:{job.ip(r)}<0>"),
                (r, f"{boot}cudaDriverVersion 12040"),
                (r, f"{boot}NCCL_SOCKET_IFNAME set by environment to {'ib0' if net == 'IB' else 'eth0'}"),
                (r, f"{boot}NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."),
            ]
            if net == "IB":
                out += [
                    (r, f"{p}NCCL_IB_HCA set to mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"),
                    (r, f"{p}NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB "
                        f"[5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB ib0:{job.ip(r)}<0>"),
                ]
            else:
                out.append((r, f"{p}NET/Socket : Using [0]eth0:{job.ip(r)}<0>"))
            out += [(r, f"{p}Using non-device net plugin version 0"), (r, f"{p}Using network {'IB' if net == 'IB' else 'Socket'}")]
        out += [
            (r, f"{p}ncclCommInitRank comm {comm} rank {idx} nranks {n} cudaDev {local} nvmlDev {local} busId {job.bus[local]} commId 0x{cid} - Init START"),
            (r, f"{p}Setting affinity for GPU {local} to {'ffffffff,ffff0000,00000000' if local >= 4 else 'ffff,ffffffff'}"),
            (r, f"{p}NVLS multicast support is not available on dev {local}"),
            (r, f"{p}comm {comm} rank {idx} nRanks {n} nNodes {max(1, -(-n // GPUS_PER_NODE))} localRanks {min(n, GPUS_PER_NODE)} localRank {local} MNNVL 0"),
            (r, f"{p}Trees [0] {nxt}/-1/-1->{idx}->{prv} [1] {nxt}/-1/-1->{idx}->{prv} [2] -1/-1/-1->{idx}->{nxt} [3] -1/-1/-1->{idx}->{nxt}"),
            (r, f"{p}P2P Chunksize set to {rng.choice((131072, 524288))}"),
        ]  # fmt: skip
        via = f"NET/{net}/{local}/GDRDMA" if net == "IB" else f"NET/Socket/{local % 2}"
        for ch in range(channels):
            if local == GPUS_PER_NODE - 1 and n > GPUS_PER_NODE:
                out.append((r, f"{p}Channel {ch:02d}/0 : {idx}[{local}] -> {(idx + 1) % n}[{(local + 1) % 8}] [send] via {via}"))
            else:
                out.append((r, f"{p}Channel {ch:02d}/0 : {idx}[{local}] -> {(idx + 1) % n}[{(local + 1) % 8}] via P2P/IPC/read"))
        out.append((r, f"{p}Connected all rings"))
        for ch in range(channels):
            if local == 0 and n > GPUS_PER_NODE:
                out.append((r, f"{p}Channel {ch:02d}/0 : {(idx - 1) % n}[7] -> {idx}[{local}] [receive] via {via}"))
            else:
                out.append((r, f"{p}Channel {ch:02d}/0 : {idx}[{local}] -> {(idx - 1) % n}[{(local - 1) % 8}] via P2P/IPC/read"))
        out += [
            (r, f"{p}Connected all trees"),
            (r, f"{p}threadThresholds 8/8/64 | {8 * n}/8/64 | 512 | 512"),
            (r, f"{p}{channels} coll channels, {channels} collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer"),
            (r, f"{p}TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object file: No such file or directory : when loading libnccl-tuner.so"),
            (r, f"{p}TUNER/Plugin: Using internal tuner plugin."),
            (r, f"{p}ncclCommInitRank comm {comm} rank {idx} nranks {n} cudaDev {local} nvmlDev {local} busId {job.bus[local]} commId 0x{cid} - Init COMPLETE"),
            (r, f"{p}Init timings: rank {idx} nranks {n} total {rng.uniform(0.3, 2.5):.2f} (kernels {rng.uniform(0.05, 0.6):.2f}, "
                f"bootstrap {rng.uniform(0.01, 1):.2f}, allgathers 0.0{rng.randrange(10)}, topo {rng.uniform(0.1, 0.4):.2f}, graphs 0.0{rng.randrange(10)}, "
                f"connections {rng.uniform(0.01, 0.3):.2f}, rest 0.0{rng.randrange(10)})"),
        ]  # fmt: skip
        streams.append(out)
    return interleave(rng, streams)


def process_groups(rng: random.Random, job: Job, first: set[int], net: str = "IB", cap: int = 256) -> list[Line]:
    """One process group coming up: data-, tensor- or pipeline-parallel, or a slice of the world."""
    group = min(job.ranks, cap, rng.choice((8, 8, 16, 64, 128, 256, 512)))
    stride = rng.choice((1, 1, GPUS_PER_NODE)) if job.ranks >= group * GPUS_PER_NODE else 1
    start = rng.randrange(0, max(1, job.ranks - (group - 1) * stride))
    members = list(range(start, job.ranks, stride))[:group] or [0]
    return nccl_init(rng, job, members, first, net)


class Training:
    """The run's progress: step, loss, learning rate; each library's way of printing a step."""

    def __init__(self, rng: random.Random, clock: Clock, total: int = 250_000, gbs: int = 1024):
        self.rng, self.clock = rng, clock
        self.step = rng.randrange(100, 2000)
        self.total, self.gbs = total, gbs
        self.loss = 0.0

    def advance(self) -> None:
        self.step += 1
        self.clock.tick(1.4)
        self.loss = 1.7 + 1.6 * 0.9997 ** self.step + self.rng.uniform(-0.04, 0.04)

    @property
    def lr(self) -> float:
        return 3e-4 * min(1.0, self.step / 2000) * (1 - 0.9 * self.step / self.total)

    def hf(self) -> str:
        r = self.rng
        return f"{{'loss': {self.loss:.4f}, 'grad_norm': {r.uniform(0.2, 1.6)!r}, 'learning_rate': {self.lr!r}, 'epoch': {self.step / 5000:.2f}}}"

    def megatron(self, stamp: bool = True) -> str:
        r = self.rng
        pre = f" [{self.clock.day()}]" if stamp else ""
        return (
            f"{pre} iteration {self.step:8d}/{self.total:8d} | consumed samples: {self.step * self.gbs:12d} | "
            f"elapsed time per iteration (ms): {r.uniform(1380, 1620):.1f} | throughput per GPU (TFLOP/s/GPU): "
            f"{r.uniform(380, 420):.1f} | learning rate: {self.lr:.6E} | global batch size: {self.gbs:5d} | "
            f"lm loss: {self.loss:.6E} | loss scale: 1.0 | grad norm: {r.uniform(0.2, 1.5):.3f} | "
            f"number of skipped iterations:   0 | number of nan iterations:   0 |"
        )

    def megatron_timers(self) -> list[str]:
        r = self.rng
        out = ["(min, max) time across ranks (ms):"]
        for name, base in (("forward-backward", 1380), ("forward-compute", 420), ("backward-compute", 890),
                           ("batch-generator", 2), ("layernorm-grads-all-reduce", 0.02), ("embedding-grads-all-reduce", 0.05),
                           ("all-grads-sync", 31), ("params-all-gather", 28), ("optimizer-copy-to-main-grad", 4),
                           ("optimizer-clip-main-grad", 6), ("optimizer-count-zeros", 0.01), ("optimizer-inner-step", 11),
                           ("optimizer-copy-main-to-model-params", 3), ("optimizer", 27)):  # fmt: skip
            lo = base * r.uniform(0.97, 1.0)
            out.append(f"    {name} {'.' * (47 - len(name))}: ({lo:.2f}, {lo * r.uniform(1.0, 1.03):.2f})")
        return out

    def deepspeed(self, rank: int = 0) -> list[str]:
        r, c = self.rng, self.clock
        lr = f"{self.lr:.6e}"
        return [
            f"[{c.py()}] [INFO] [logging.py:128:log_dist] [Rank {rank}] step={self.step}, skipped=0, lr=[{lr}, {lr}], "
            f"mom=[(0.9, 0.95), (0.9, 0.95)]",
            f"[{c.py()}] [INFO] [timer.py:264:stop] epoch=0/micro_step={self.step * 4}/global_step={self.step}, "
            f"RunningAvgSamplesPerSec={r.uniform(40, 50):.13f}, CurrSamplesPerSec={r.uniform(38, 52):.13f}, "
            f"MemAllocated={r.uniform(20, 24):.2f}GB, MaxMemAllocated={r.uniform(58, 61):.2f}GB",
        ]

    def lightning(self, epoch: int, n: int, total: int) -> str:
        return f"Epoch {epoch}: {tqdm_bar(n, total, 1.0 / self.rng.uniform(1.3, 1.6), extra=f'v_num=7, train_loss={self.loss:.3f}')}"


_BAR_PARTS = " ▏▎▍▌▋▊▉"


def _tqdm_time(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h:d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def tqdm_bar(n: int, total: int, rate: float, extra: str = "") -> str:
    """One update as tqdm draws it: `45%|████▌     | 450/1000 [05:12<06:21,  1.44it/s]`."""
    frac = n / total
    fill = frac * 10
    full = int(fill)
    bar = "█" * full + (_BAR_PARTS[int((fill - full) * 8)] if full < 10 else "")
    speed = f"{rate:5.2f}it/s" if rate >= 1 else f"{1 / rate:5.2f}s/it"
    tail = f", {extra}" if extra else ""
    return f"{frac * 100:3.0f}%|{bar:<10}| {n}/{total} [{_tqdm_time(n / rate)}<{_tqdm_time((total - n) / rate)}, {speed}{tail}]"


_SITE = (
    "/usr/local/lib/python3.11/site-packages",
    "/opt/conda/lib/python3.10/site-packages",
    "/usr/local/lib/python3.10/dist-packages",
    "/home/alice/.venv/lib/python3.11/site-packages",
)

# (file under site-packages, line, category, message, the source line Python prints under it)
_WARNINGS = (
    ("torch/utils/checkpoint.py", 464, "UserWarning", "torch.utils.checkpoint: the use_reentrant parameter should be passed "
     "explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, "
     "but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details "
     "on the differences between the two variants.", "return fn(*args, **kwargs)"),
    ("torch/nn/modules/conv.py", 456, "UserWarning", "Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: "
     "cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at "
     "../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)", "return F.conv2d(input, weight, bias, self.stride,"),
    ("transformers/models/llama/modeling_llama.py", 660, "UserWarning", "We detected that you are passing `past_key_values` as "
     "a tuple and this is deprecated and will be removed in v4.43. Please use an appropriate `Cache` class "
     "(https://huggingface.co/docs/transformers/v4.41.3/en/internal/generation_utils#transformers.Cache)", "warnings.warn("),
    ("torch/_dynamo/eval_frame.py", 600, "FutureWarning", "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
     "`torch.amp.autocast('cuda', args...)` instead.", "return fn(*args, **kwargs)"),
    ("torch/optim/lr_scheduler.py", 224, "UserWarning", "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
     "PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  "
     "Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at "
     "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", "warnings.warn("),
    ("torch/autograd/graph.py", 825, "UserWarning", "c10d::allreduce_: an autograd kernel was not registered to the Autograd key(s) "
     "but we are trying to backprop through it. This may lead to silently incorrect behavior. This behavior is deprecated and "
     "will be removed in a future version of PyTorch. If your operator is differentiable, please ensure you have registered an "
     "autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If your "
     "operator is not differentiable, or to squash this warning and use the previous behavior, please register "
     "torch::CppFunction::makeFallthrough() to DispatchKey::Autograd. (Triggered internally at "
     "../torch/csrc/autograd/autograd_not_implemented_fallback.cpp:63.)",
     "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ("datasets/table.py", 1421, "FutureWarning", "promote has been superseded by promote_options='default'.", "table = cls._concat_blocks(blocks, axis=0)"),
    ("torch/distributed/fsdp/_state_dict_utils.py", 773, "UserWarning", "When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict "
     "will be returned.", "warnings.warn("),
    ("accelerate/accelerator.py", 1384, "UserWarning", "Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; "
     "this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.", "warnings.warn("),
    ("torch/nn/modules/loss.py", 608, "UserWarning", "Using a target size (torch.Size([{b}, 1])) that is different to the input "
     "size (torch.Size([{b}])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same "
     "size.", "return F.mse_loss(input, target, reduction=self.reduction)"),
    ("torch/autograd/graph.py", 825, "UserWarning", "Grad strides do not match bucket view strides. This may indicate grad was not "
     "created according to the gradient layout contract, or that the param's strides changed since DDP was constructed.  This "
     "is not an error, but may impair performance.\ngrad.sizes() = [{h}, {f}], strides() = [1, {h}]\nbucket_view.sizes() = "
     "[{h}, {f}], strides() = [{f}, 1] (Triggered internally at ../torch/csrc/distributed/c10d/reducer.cpp:327.)",
     "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ("transformers/tokenization_utils_base.py", 4117, "UserWarning", "Token indices sequence length is longer than the specified "
     "maximum sequence length for this model ({n} > 4096). Running this sequence through the model will result in indexing "
     "errors", "warnings.warn("),
    ("torch/functional.py", 534, "UserWarning", "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
     "argument. (Triggered internally at ../aten/src/ATen/native/TensorShape.cpp:3609.)",
     "return _VF.meshgrid(tensors, **kwargs)  # type: ignore[attr-defined]"),
)  # fmt: skip


def warning(rng: random.Random, which: int | None = None, site: str | None = None) -> list[str]:
    """A Python warning as `warnings.showwarning` prints it: the location and message, then the source line."""
    path, lineno, cat, msg, src = _WARNINGS[rng.randrange(len(_WARNINGS)) if which is None else which]
    if "{" in msg:  # the warnings whose text carries the step's numbers (batch, shapes, lengths)
        msg = msg.format(b=rng.choice((3, 7, 12, 19, 25, 31)), h=rng.choice((1024, 2048, 4096, 5120)),
                         f=rng.choice((2816, 5632, 11008, 13824)), n=rng.randrange(4097, 32768))  # fmt: skip
    first, *rest = msg.split("\n")
    return [f"{site or rng.choice(_SITE)}/{path}:{lineno}: {cat}: {first}", *rest, f"  {src}"]


def glog_warning(rng: random.Random, clock: Clock, job: Job, r: int) -> str:
    """A warning PyTorch's C++ side prints (glog format) once in a while."""
    return rng.choice((
        f"[W{clock.glog()} {job.tids[r]} ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank {r}]  using GPU {r % 8} to perform "
        f"barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to "
        f"GPU mapping is incorrect.",
        f"[I{clock.glog()} {job.pids[r]} torch/distributed/distributed_c10d.py:3920] Rank {r}: Completed store-based barrier "
        f"for key:store_based_barrier_key:{rng.randrange(1, 9)} with {job.ranks} nodes.",
        f"[W{clock.glog()} {job.tids[r]} CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform "
        f"(function operator())",
    ))  # fmt: skip


def c10d_retry(rng: random.Random, clock: Clock, host: str = "localhost", port: int = 29500) -> str:
    """One connect attempt of a TCPStore client (PyTorch 2.4+ glog prefix, nanoseconds)."""
    target = host if rng.random() < 0.8 else "::ffff:127.0.0.1"
    return (f"[W{clock.glog(nanos=True)} socket.cpp:697] [c10d] The client socket has failed to connect to "
            f"[{target}]:{port} (errno: 99 - Cannot assign requested address).")  # fmt: skip


def launch_header(rng: random.Random, job: Job, user: str = "alice", launcher: str = "torchrun") -> list[str]:
    """What the job script prints before training: exports with secrets, the user's prompt and paths."""

    def rand(n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    hf = "hf_" + rand(34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    master = job.fqdn(0)
    digest = hashlib.sha1(hf.encode()).hexdigest()
    return [
        f"+ export HF_TOKEN={hf}",
        f"+ export WANDB_API_KEY={rand(40, '0123456789abcdef')}",
        f"+ export AWS_ACCESS_KEY_ID=AKIA{rand(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}",
        f"+ export AWS_SECRET_ACCESS_KEY={rand(40)}",
        f"+ export MASTER_ADDR={master} MASTER_PORT=29500 NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0",
        f"USER={user}",
        f"HOME=/home/{user}",
        f"wandb: Currently logged in as: {user} (acme-ml). Use `wandb login --relogin` to force relogin",
        f"{user}@{job.hosts[0]}:~/llm$ {launcher} --nnodes {job.nodes} --nproc_per_node {min(job.ranks, GPUS_PER_NODE)} "
        f"--rdzv_endpoint={master}:29400 /home/{user}/llm/train.py --hf_token {hf}",
        f"git clone https://{user}:ghp_{rand(36)}@github.com/acme/llm.git /home/{user}/llm",
        f"redis://:{rand(16)}@{job.ips[min(1, job.nodes - 1)]}:6379/0",
        # Issue 16's kinds, as the script's diagnostics print them: the checkout's author
        # (`git log -1 --format='%H %an <%ae>'`), the interface's MAC (`ip link`), the role.
        # Derived from the token, not drawn from `rng`: the rest of the log stays as it was.
        "+ git log -1 --format='%H %an <%ae>'",
        f"{digest} Alice Smith <alice.smith@acme.io>",
        f"    link/ether 0c:42:a1:{digest[:2]}:{digest[2:4]}:2c brd ff:ff:ff:ff:ff:ff",
        f'    "Arn": "arn:aws:iam::{int(digest, 16) % 10**12:012d}:role/SageMakerExecutionRole"',
    ]


def oom_traceback(rng: random.Random, job: Job, r: int, user: str = "alice") -> list[str]:
    """The failure: PyTorch 2.4's allocator OOM, with a traceback through the user's script."""
    ask = rng.uniform(4.0, 12.0)
    reserved = rng.uniform(0.1, 0.9) * min(ask, 2.9)  # less than asked: not the fragmentation entry
    total = 79.15
    free = rng.uniform(0.5, 3.5)
    in_use = total - free
    alloc = in_use - reserved - rng.uniform(0.5, 1.5)
    script = f"/home/{user}/llm/train.py"
    return [
        "Traceback (most recent call last):",
        f'  File "{script}", line 412, in <module>',
        "    main()",
        f'  File "{script}", line 398, in main',
        "    loss = train_step(model, batch, optimizer)",
        f'  File "{script}", line 231, in train_step',
        "    loss.backward()",
        '  File "/usr/local/lib/python3.11/site-packages/torch/_tensor.py", line 581, in backward',
        "    torch.autograd.backward(",
        '  File "/usr/local/lib/python3.11/site-packages/torch/autograd/graph.py", line 825, in _engine_run_backward',
        "    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {ask:.2f} GiB. GPU {r % GPUS_PER_NODE} has a total "
        f"capacity of {total:.2f} GiB of which {free:.2f} GiB is free. Including non-PyTorch memory, this process has "
        f"{in_use:.2f} GiB memory in use. Of the allocated memory {alloc:.2f} GiB is allocated by PyTorch, and "
        f"{reserved * 1024:.2f} MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
        f"setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
        f"Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    ]


def watchdog(rng: random.Random, clock: Clock, job: Job, r: int, seq: int) -> list[str]:
    """A surviving rank's NCCL watchdog giving up on the collective the failed rank never joined."""
    t = job.tids[r]
    return [
        f"[E{clock.glog()} {t} ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={rng.choice((26214400, 52428800, 8388608))}, "
        f"NumelOut=26214400, Timeout(ms)=600000) ran for {600000 + rng.randrange(1, 90)} milliseconds before timing out.",
        f"[E{clock.glog()} {t} ProcessGroupNCCL.cpp:1785] [PG 0 (default_pg) Rank {r}] Exception (either an error or timeout) "
        f"detected by watchdog at work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.",
        f"[E{clock.glog()} {t} ProcessGroupNCCL.cpp:630] [Rank {r}] To avoid data inconsistency, we are taking the entire "
        f"process down.",
    ]


def collateral(rng: random.Random, clock: Clock, job: Job, failed: int, count: int) -> list[Line]:
    """The other ranks' watchdog timeouts, and a neighbour noticing the failed rank's socket close."""
    clock.tick(600)
    others = [r for r in range(job.ranks) if r != failed]
    rng.shuffle(others)
    seq = rng.randrange(20_000, 90_000)
    streams = [[(r, s) for s in watchdog(rng, clock, job, r, seq)] for r in sorted(others[:count])]
    lines = interleave(rng, streams)
    nb = failed + 1 if failed + 1 < job.ranks else failed - 1
    lines.insert(min(len(lines), 3), (nb, f"{job.nccl(nb, 'WARN')}misc/socket.cc:50 NCCL WARN socketProgress: Connection "
                                          f"closed by remote peer {job.fqdn(failed)}<{rng.randrange(32768, 60999)}>"))  # fmt: skip
    return lines


def torchrun_summary(rng: random.Random, clock: Clock, job: Job, failed: int, script: str = "train.py") -> list[str]:
    """torchelastic's report when a worker exits: the traceback of the agent, then the first failure."""
    d = _dt.datetime.fromtimestamp(clock.t, _dt.UTC)
    return [
        f"E{clock.glog()} {job.pids[failed] - 40} torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        f"local_rank: {failed % GPUS_PER_NODE} (pid: {job.pids[failed]}) of binary: /usr/bin/python3",
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
        "    return f(*args, **kwargs)",
        '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/run.py", line 919, in main',
        "    run(args)",
        '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        f"{script} FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        f"  time      : {d:%Y-%m-%d_%H:%M:%S}",
        f"  host      : {job.fqdn(failed)}",
        f"  rank      : {failed} (local_rank: {failed % GPUS_PER_NODE})",
        f"  exitcode  : 1 (pid: {job.pids[failed]})",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "============================================================",
    ]


# --- families -----------------------------------------------------------------------------------


class Family:
    """One shape of log. A family says who runs (`job`), how the launcher wraps each line (`wrap`),
    what the job prints while it trains (`chatter`: one block of lines a call), and what it prints
    when the failure happens and after; `generate` puts the pieces in order at the requested size."""

    name = ""
    summary = ""
    ranks = 64
    failed = 37
    host = "gpu-node-{:03d}"
    launcher = "torchrun"
    script = "train.py"

    def __init__(self, rng: random.Random, size: int):
        self.rng, self.size = rng, size
        self.clock = Clock(rng)
        self.job = Job(rng, self.ranks, self.host)
        self.train = Training(rng, self.clock)
        self.inited: set[int] = set()
        self.written = 0  # bytes of log so far, kept up to date by generate()

    # How the launcher or the log pipeline writes one line of a rank (None: the launcher itself).
    def wrap(self, rank: int | None, text: str) -> str:
        return text

    def groups(self, net: str = "IB", cap: int = 256) -> list[Line]:
        """A process group's init chatter; small logs get small groups, so one block cannot fill them."""
        return process_groups(self.rng, self.job, self.inited, net, min(cap, max(8, self.size // 150_000)))

    def wrap_all(self, lines: Iterable[Line]) -> list[str]:
        w = self.wrap
        return [w(r, s) for r, s in lines]

    def header(self) -> list[Line]:
        return [(None, s) for s in launch_header(self.rng, self.job, launcher=self.launcher)]

    def chatter(self) -> list[Line]:
        raise NotImplementedError

    def failure(self) -> list[Line]:
        return [(self.failed, s) for s in oom_traceback(self.rng, self.job, self.failed)]

    def collateral_count(self) -> int:
        return max(4, min(self.job.ranks - 1, self.size // 3000))

    def tail(self) -> list[Line]:
        lines = collateral(self.rng, self.clock, self.job, self.failed, self.collateral_count())
        return lines + [(None, s) for s in torchrun_summary(self.rng, self.clock, self.job, self.failed, self.script)]


class Torchrun(Family):
    name = "torchrun"
    summary = "torchrun --tee 3: every line `[rankN]:`; NCCL INFO init chatter of 1,000 ranks, loss dicts, tqdm, glog warnings"
    ranks = 1000
    failed = FAILED_RANK
    script = "megatron_train.py"

    def wrap(self, rank: int | None, text: str) -> str:
        return text if rank is None else f"[rank{rank}]:{text}"

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        kind = rng.random()
        if kind < 0.62:
            return self.groups()
        if kind < 0.90:
            lines: list[Line] = []
            last = self.job.ranks - 1
            for _ in range(rng.randrange(20, 60)):
                t.advance()
                lines.append((0, t.hf()))
                lines.append((last, t.megatron(stamp=False)))
                if rng.random() < 0.3:
                    updates = rng.choice((1, 1, 1, 40))
                    bars = [tqdm_bar(min(500, (t.step + k) % 500 + 1), 500, 0.66) for k in range(updates)]
                    lines.append((0, "\r".join(bars)))
            return lines
        return [(r, glog_warning(rng, self.clock, self.job, r)) for r in rng.sample(range(self.job.ranks), 32)]


class NcclNative(Family):
    name = "nccl-native"
    summary = "Slurm/mpirun, no launcher prefix: NCCL's own `host:pid:tid [dev] NCCL INFO` lines of 256 ranks, rank 0's output bare"
    ranks = 256
    failed = 149
    host = "dgx-h100-{:03d}"
    launcher = "srun python"

    def header(self) -> list[Line]:
        return [*super().header(), (0, "NCCL version 2.21.5+cuda12.4")]

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        kind = rng.random()
        if kind < 0.7:
            return self.groups(net=rng.choice(("IB", "IB", "Socket")))
        if kind < 0.93:
            lines: list[Line] = []
            for _ in range(rng.randrange(10, 40)):
                t.advance()
                lines.append((0, t.hf()))
            return lines
        # NCCL's proxy and transport chatter while running (INFO, no failure).
        out: list[Line] = []
        for r in rng.sample(range(self.job.ranks), 24):
            p = self.job.nccl(r)
            out.append((r, rng.choice((
                f"{p}NET/IB: Dev {r % 8} Port 1 qpn {rng.randrange(100, 9999)} mtu 5 LID {rng.randrange(1, 2000)} fifoRkey=0x{rng.getrandbits(20):x} fifoLkey=0x{rng.getrandbits(20):x}",
                f"{p}Comm config Blocking set to 1",
                f"{p}[Service thread] Connection closed by localRank {rng.randrange(8)}",
                f"{p}comm 0x{rng.getrandbits(44):x} rank {r} nranks {self.job.ranks} cudaDev {r % 8} busId {self.job.bus[r % 8]} - Destroy COMPLETE",
            ))))  # fmt: skip
        return out

    def tail(self) -> list[Line]:
        lines = collateral(self.rng, self.clock, self.job, self.failed, self.collateral_count())
        node = self.job.host(self.failed)
        return [
            *lines,
            (None, f"srun: error: {node}: task {self.failed}: Exited with exit code 1"),
            (None, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."),
            (None, f"slurmstepd: error: *** STEP 4821337.0 ON {self.job.hosts[0]} CANCELLED AT {self.clock.day().replace(' ', 'T')} ***"),
            (None, f"srun: error: {self.job.hosts[1]}: tasks 8-15: Terminated"),
        ]


class SrunLabel(Family):
    name = "srun-label"
    summary = "Slurm `srun -l`: every line `N: ` (task id, right-aligned); Megatron-LM iteration lines, timers, NCCL native lines"
    ranks = 512
    failed = 301
    host = "nid{:06d}"
    launcher = "srun -l python"
    script = "pretrain_gpt.py"

    def __init__(self, rng: random.Random, size: int):
        super().__init__(rng, size)
        self.job.hosts = [f"nid{5000 + 4 * n:06d}" for n in range(self.job.nodes)]
        self.width = len(str(self.ranks - 1))

    def wrap(self, rank: int | None, text: str) -> str:
        return text if rank is None else f"{rank:>{self.width}}: {text}"

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        kind = rng.random()
        last = self.job.ranks - 1
        if kind < 0.35:
            return self.groups(cap=512)
        if kind < 0.93:
            lines: list[Line] = []
            for _ in range(rng.randrange(10, 50)):
                t.advance()
                lines.append((last, t.megatron()))
                if t.step % 10 == 0:
                    lines += [(last, s) for s in t.megatron_timers()]
            return lines
        return [(r, s) for r in rng.sample(range(self.job.ranks), 16) for s in (
            f"[{self.clock.py()}] WARNING: could not find the metadata file /lustre/scratch/alice/ckpt/latest_checkpointed_iteration.txt",
            glog_warning(rng, self.clock, self.job, r),
        )]  # fmt: skip

    def tail(self) -> list[Line]:
        lines = collateral(self.rng, self.clock, self.job, self.failed, self.collateral_count())
        h = self.job.hosts
        fn = self.failed // GPUS_PER_NODE
        return [
            *lines,
            (None, f"srun: error: {h[fn]}: task {self.failed}: Exited with exit code 1"),
            (None, "srun: launch/slurm: _step_signal: Terminating StepId=4821337.0"),
            (None, f"slurmstepd: error: *** STEP 4821337.0 ON {h[0]} CANCELLED AT {self.clock.day().replace(' ', 'T')} ***"),
            (None, f"srun: error: {h[1]}: tasks 8-15: Terminated"),
            (None, f"srun: error: {h[fn]}: tasks {fn * 8}-{self.failed - 1},{self.failed + 1}-{fn * 8 + 7}: Terminated"),
        ]


class Pdsh(Family):
    name = "pdsh"
    summary = "DeepSpeed's pdsh launcher: every line `worker-N: `; DeepSpeed log_dist step and timer lines, HF dicts, bars, NCCL"
    ranks = 128
    failed = 29
    host = "worker-{:d}"
    launcher = "deepspeed --hostfile /home/alice/hostfile"

    def wrap(self, rank: int | None, text: str) -> str:
        return text if rank is None else f"{self.job.host(rank)}: {text}"

    def header(self) -> list[Line]:
        c, h = self.clock, self.job.hosts
        out = [
            *super().header(),
            (None, f"[{c.py()}] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: {','.join(h)}"),
            (None, f"[{c.py()}] [INFO] [runner.py:555:main] cmd = pdsh -S -f 1024 -w {','.join(h)} export NCCL_DEBUG=INFO; "
                   f"export PYTHONPATH=/home/alice/llm;  cd /home/alice/llm; /usr/bin/python3 -u -m deepspeed.launcher.launch "
                   f"--world_info=eyJ3b3JrZXItMCI6IFswLCAxLCAyLCAzLCA0LCA1LCA2LCA3XX0= --node_rank=%n --master_addr={h[0]} "
                   f"--master_port=29500 train.py --deepspeed ds_config.json"),
        ]  # fmt: skip
        for node in range(self.job.nodes):
            r = node * GPUS_PER_NODE
            out += [
                (r, f"[{c.py()}] [INFO] [launch.py:146:main] WORLD INFO DICT: {{'worker-0': [0, 1, 2, 3, 4, 5, 6, 7], ...}}"),
                (r, f"[{c.py()}] [INFO] [launch.py:152:main] nnodes={self.job.nodes}, num_local_procs=8, node_rank={node}"),
                (r, f"[{c.py()}] [INFO] [launch.py:164:main] dist_world_size={self.job.ranks}"),
                (r, f"[{c.py()}] [INFO] [launch.py:166:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7"),
            ]
        return out

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        kind = rng.random()
        if kind < 0.3:
            return self.groups(cap=128)
        if kind < 0.92:
            lines: list[Line] = []
            for _ in range(rng.randrange(10, 40)):
                t.advance()
                lines += [(0, s) for s in t.deepspeed()]
                if t.step % 5 == 0:
                    lines.append((0, t.hf()))
                if rng.random() < 0.5:
                    lines.append((0, tqdm_bar(t.step % 10000 + 1, 10000, 0.33)))
            return lines
        c = self.clock
        return [(r, f"[{c.py()}] [WARNING] [stage3.py:2069:step] {rng.randrange(1, 9)} pytorch allocator cache flushes since last "
                    f"step. this happens when there is high memory pressure and is detrimental to performance. if this is "
                    f"happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make "
                    f"the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to "
                    f"ensure that all ranks flush their caches at the same time")
                for r in rng.sample(range(0, self.job.ranks, GPUS_PER_NODE), 4)]  # fmt: skip

    def tail(self) -> list[Line]:
        rng, c, j = self.rng, self.clock, self.job
        lines = collateral(rng, c, j, self.failed, self.collateral_count())
        f = self.failed
        lines += [
            (f, f"[{c.py()}] [INFO] [launch.py:319:sigkill_handler] Killing subprocess {j.pids[f - f % 8 + k]}") for k in range(8)
        ]
        lines += [
            (f, f"[{c.py()}] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', "
                f"'--local_rank={f % 8}', '--deepspeed', 'ds_config.json'] exits with return code = 1"),
            (None, f"pdsh@{j.hosts[0]}: {j.host(f)}: ssh exited with exit code 1"),
        ]  # fmt: skip
        return lines


class K8sJson(Family):
    name = "k8s-json"
    summary = "Kubernetes node's container log (Docker json-file): one JSON object a line, `<>&` as \\u003c.., 16 KiB partials"
    ranks = 64  # the job; this pod is one of its nodes, ranks 16-23
    failed = 19
    host = "llama-pretrain-worker-{:d}"

    def __init__(self, rng: random.Random, size: int):
        super().__init__(rng, size)
        self.job.domain = "llama-pretrain.ml-team.svc.cluster.local"
        self.pod = range(16, 24)

    def entry(self, text: str, end: str = "\n") -> str:
        """One json-file entry; Go's encoder escapes <, > and & as \\u003c, \\u003e, \\u0026."""
        enc = json.dumps(text + end, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return f'{{"log":{enc},"stream":"stderr","time":"{self.clock.iso()}"}}'

    def wrap(self, rank: int | None, text: str) -> str:
        return self.entry(text)

    def wrap_all(self, lines: Iterable[Line]) -> list[str]:
        out = []
        for _r, s in lines:
            # Docker splits a line longer than 16 KiB into partial entries; only the last ends in \n.
            for k in range(0, max(len(s), 1), 16384):
                out.append(self.entry(s[k : k + 16384], "\n" if k + 16384 >= len(s) else ""))
        return out

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        kind = rng.random()
        if kind < 0.4:
            # This pod's ranks' share of a communicator: the other pods' lines are in their own logs.
            return [x for x in self.groups(net="Socket", cap=64) if x[0] in self.pod]
        if kind < 0.95:
            lines: list[Line] = []
            for _ in range(rng.randrange(10, 40)):
                t.advance()
                if 16 in self.pod and t.step % 2 == 0:
                    lines.append((16, t.hf()))
                if rng.random() < 0.2:
                    lines.append((16, "\r".join(tqdm_bar(t.step % 4000 + k, 4000, 0.7) for k in range(rng.choice((1, 1, 30, 400))))))
            return lines
        return [(r, s) for r in rng.sample(self.pod, 4) for s in warning(rng)]

    def tail(self) -> list[Line]:
        rng, c, j = self.rng, self.clock, self.job
        c.tick(600)
        seq = rng.randrange(20_000, 90_000)
        lines = interleave(rng, [[(r, s) for s in watchdog(rng, c, j, r, seq)] for r in self.pod if r != self.failed])
        return lines + [(None, s) for s in torchrun_summary(rng, c, j, self.failed, self.script)]


class C10dRetry(Family):
    name = "c10d-retry"
    summary = "a TCPStore client retrying forever: `[W.. socket.cpp:697] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 ..)` as ~90% of lines"
    ranks = 64
    failed = 42

    def wrap(self, rank: int | None, text: str) -> str:
        return text if rank is None else f"[rank{rank}]:{text}"

    def chatter(self) -> list[Line]:
        rng, c, t = self.rng, self.clock, self.train
        lines: list[Line] = []
        # A flood from a few ranks (the ones whose store address resolved to the loopback), a few
        # attempts a millisecond, and now and then what the healthy ranks print.
        flooding = rng.sample(range(self.job.ranks), rng.randrange(1, 6))
        for _ in range(rng.randrange(50, 400)):
            c.tick(0.0004)
            lines.append((rng.choice(flooding), c10d_retry(rng, c)))
        if rng.random() < 0.5:
            t.advance()
            lines.append((0, t.hf()))
        if rng.random() < 0.05:
            lines += self.groups(cap=16)
        return lines


class PyWarnings(Family):
    name = "py-warnings"
    summary = "Python warnings on every step from 8 ranks (`[rank3]:site-packages/x.py:123: UserWarning: ..`, the source line)"
    ranks = 8
    failed = 5

    def wrap(self, rank: int | None, text: str) -> str:
        return text if rank is None else f"[rank{rank}]:{text}"

    def __init__(self, rng: random.Random, size: int):
        super().__init__(rng, size)
        varying = [i for i, w in enumerate(_WARNINGS) if "{" in w[3]]
        self.hot = [rng.choice(varying), *rng.sample([i for i in range(len(_WARNINGS)) if i not in varying], 2)]

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        t.advance()
        # Each rank hits the same few warnings on every step (a filter of "always", or warnings
        # from code that builds a new module each step), in its own interpreter's site-packages;
        # now and then another one.
        hot = self.hot + ([rng.randrange(len(_WARNINGS))] if rng.random() < 0.1 else [])
        streams = []
        for r in range(self.job.ranks):
            mine: list[Line] = []
            for w in hot:
                if rng.random() < 0.7:
                    mine += [(r, s) for s in warning(rng, w, _SITE[r % 2])]
            streams.append(mine)
        streams[0].append((0, t.hf()))
        if rng.random() < 0.3:
            streams[0].append((0, tqdm_bar(t.step % 5000 + 1, 5000, 1.9)))
        return interleave(rng, streams)


class Tqdm(Family):
    name = "tqdm"
    summary = "Lightning progress bars as tqdm writes them to a file: each epoch's updates `\\r`-joined on one line of MBs"
    ranks = 8
    failed = 3

    def __init__(self, rng: random.Random, size: int):
        super().__init__(rng, size)
        self.steps = max(200, min(20_000, size // 5000))  # updates per epoch: one line
        self.epoch = 0
        self.bar_open: list[str] = []

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        self.epoch += 1
        bars = []
        for n in range(1, self.steps + 1):
            t.advance()
            bars.append(t.lightning(self.epoch, n, self.steps))
        val = [f"Validation DataLoader 0: {tqdm_bar(k, 200, 14.2)}" for k in range(1, 201, rng.choice((1, 4)))]
        return [
            (0, "\r" + "\r".join(bars)),
            (0, "\r" + "\r".join(val) + "\r"),
            (0, f"Epoch {self.epoch}, global step {self.epoch * self.steps}: 'val_loss' reached {t.loss:.5f} (best {t.loss:.5f}), "
                f"saving model to '/home/alice/llm/lightning_logs/version_7/checkpoints/epoch={self.epoch}-step={self.epoch * self.steps}.ckpt' as top 3"),
        ]  # fmt: skip

    def failure(self) -> list[Line]:
        # Mid-epoch: the bar is cut short and the traceback starts on its line (no newline before it).
        rng, t = self.rng, self.train
        n = rng.randrange(self.steps // 4, self.steps)
        bars = []
        for k in range(1, n + 1):
            t.advance()
            bars.append(t.lightning(self.epoch + 1, k, self.steps))
        block = oom_traceback(rng, self.job, self.failed)
        return [(self.failed, "\r" + "\r".join(bars) + block[0])] + [(self.failed, s) for s in block[1:]]


class Iterations(Family):
    name = "iterations"
    summary = "rank-0 training output only: HF Trainer dicts, Lightning epoch lines, Megatron iteration lines and timers"
    ranks = 1024
    failed = 517
    script = "pretrain_gpt.py"

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        lines: list[Line] = []
        style = rng.random()
        for _ in range(rng.randrange(20, 80)):
            t.advance()
            if style < 0.5:
                lines.append((self.job.ranks - 1, t.megatron()))
                if t.step % 20 == 0:
                    lines += [(self.job.ranks - 1, s) for s in t.megatron_timers()]
            elif style < 0.85:
                lines.append((0, t.hf()))
                if t.step % 50 == 0:
                    lines.append((0, f"{{'eval_loss': {t.loss + 0.05:.4f}, 'eval_runtime': {rng.uniform(20, 40):.4f}, "
                                     f"'eval_samples_per_second': {rng.uniform(80, 120):.3f}, 'eval_steps_per_second': "
                                     f"{rng.uniform(2, 4):.3f}, 'epoch': {t.step / 5000:.2f}}}"))  # fmt: skip
            else:
                lines.append((0, f"Epoch {t.step // 1000}: {tqdm_bar(t.step % 1000 + 1, 1000, 2.1, f'v_num=3, train_loss_step={t.loss:.3f}')}"))
        return lines


class EnvDump(Family):
    name = "env-dump"
    summary = "every node prints `env`, the Megatron arguments, the DeepSpeed config and `pip list` first (half the log), secrets planted"
    failed = 77
    script = "pretrain_gpt.py"

    def __init__(self, rng: random.Random, size: int):
        # Enough ranks that their dumps fill half the log (about 4.7 KB a rank), at most 16,384.
        self.ranks = max(128, min(16384, size // 2 // 4700 // GPUS_PER_NODE * GPUS_PER_NODE))
        super().__init__(rng, size)
        self.dump_until = size // 2
        self.node = 0

        def rand(n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") -> str:
            return "".join(rng.choice(alphabet) for _ in range(n))

        self.secrets = {
            "hf": "hf_" + rand(34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
            "wandb": rand(40, "0123456789abcdef"),
            "akid": "AKIA" + rand(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
            "aws": rand(40, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+"),
            "slack": f"https://hooks.slack.com/services/T{rand(8).upper()}/B{rand(8).upper()}/{rand(24)}",
            "db": f"postgresql://mlflow:{rand(20)}@mlflow-db.acme.internal:5432/mlflow",
        }

    def env(self, r: int) -> list[Line]:
        """`env` as one task prints it (srun runs it in every task)."""
        rng, j = self.rng, self.job
        node = r // GPUS_PER_NODE
        h = j.hosts[node]
        env = {
            "SLURM_JOB_ID": "4821337", "SLURM_JOB_NAME": "llama3-70b-pretrain", "SLURM_NODEID": str(node),
            "SLURM_PROCID": str(r), "SLURM_LOCALID": str(r % GPUS_PER_NODE), "SLURMD_NODENAME": h,
            "SLURM_SUBMIT_HOST": "login-02.cluster.acme.internal", "SLURM_JOB_NODELIST": f"gpu-node-[000-{j.nodes - 1:03d}]",
            "SLURM_NNODES": str(j.nodes), "SLURM_TASK_PID": str(j.pids[r]), "SLURM_CPUS_ON_NODE": "96",
            "HOSTNAME": h, "USER": "alice", "LOGNAME": "alice", "HOME": "/home/alice", "PWD": "/home/alice/llm",
            "MAIL": "/var/spool/mail/alice", "SSH_CONNECTION": f"10.1.0.{rng.randrange(2, 250)} {rng.randrange(40000, 65000)} {j.ip(r)} 22",
            "PATH": "/home/alice/.venv/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin",
            "LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/usr/local/nccl/lib:/opt/amazon/efa/lib", "CUDA_HOME": "/usr/local/cuda",
            "MASTER_ADDR": j.fqdn(0), "MASTER_PORT": "29500", "WORLD_SIZE": str(j.ranks), "RANK": str(r),
            "LOCAL_RANK": str(r % GPUS_PER_NODE), "NODE_RANK": str(node), "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
            "NCCL_DEBUG": "WARN", "NCCL_SOCKET_IFNAME": "ib0", "NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7",
            "NCCL_IB_GID_INDEX": "3", "HF_HOME": "/lustre/scratch/alice/hf", "HF_TOKEN": self.secrets["hf"],
            "WANDB_API_KEY": self.secrets["wandb"], "WANDB_ENTITY": "acme-ml", "WANDB_PROJECT": "llama3-70b",
            "AWS_ACCESS_KEY_ID": self.secrets["akid"], "AWS_SECRET_ACCESS_KEY": self.secrets["aws"],
            "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "OMP_NUM_THREADS": "8", "TOKENIZERS_PARALLELISM": "false",
            "SLACK_WEBHOOK_URL": self.secrets["slack"], "DATABASE_URL": self.secrets["db"],
        }  # fmt: skip
        return [(r, f"{k}={v}") for k, v in env.items()]

    def dump(self, node: int) -> list[Line]:
        """What one node prints first: its 8 tasks' `env` mixed line by line, then (once a node)
        the Megatron arguments, the DeepSpeed config and `pip list`."""
        r = node * GPUS_PER_NODE
        out = interleave(self.rng, [self.env(k) for k in range(r, r + GPUS_PER_NODE)], burst=6)
        out.append((r, "------------------------ arguments ------------------------"))
        for name, val in _MEGATRON_ARGS:
            out.append((r, f"  {name} {'.' * max(3, 42 - len(name))} {val}"))
        out.append((r, f"  rank {'.' * 38} {r}"))
        out.append((r, "-------------------- end of arguments ---------------------"))
        c = self.clock
        for key, val in _DS_CONFIG:
            out.append((r, f"[{c.py()}] [INFO] [config.py:1003:print]   {key} {'.' * max(1, 28 - len(key))} {val}"))
        out.append((r, "Package                  Version"))
        out.append((r, "------------------------ ------------"))
        out += [(r, f"{p:<24} {v}") for p, v in _PIP_LIST]
        return out

    def chatter(self) -> list[Line]:
        if self.node < self.job.nodes and self.written < self.dump_until:
            self.node += 1
            return self.dump(self.node - 1)
        t = self.train
        lines: list[Line] = []
        for _ in range(self.rng.randrange(20, 60)):
            t.advance()
            lines.append((self.job.ranks - 1, t.megatron()))
            if t.step % 20 == 0:
                lines += [(self.job.ranks - 1, s) for s in t.megatron_timers()]
        return lines


_MEGATRON_ARGS = tuple(
    (k, v) for k, v in (
        ("accumulate_allreduce_grads_in_fp32", "True"), ("adam_beta1", "0.9"), ("adam_beta2", "0.95"), ("adam_eps", "1e-08"),
        ("add_bias_linear", "False"), ("apply_query_key_layer_scaling", "False"), ("attention_dropout", "0.0"),
        ("bf16", "True"), ("clip_grad", "1.0"), ("context_parallel_size", "1"), ("data_path", "['/lustre/datasets/redpajama/text_document']"),
        ("distributed_backend", "nccl"), ("distributed_timeout_minutes", "10"), ("eval_interval", "1000"), ("eval_iters", "10"),
        ("ffn_hidden_size", "28672"), ("global_batch_size", "1024"), ("group_query_attention", "True"), ("hidden_dropout", "0.0"),
        ("hidden_size", "8192"), ("init_method_std", "0.02"), ("log_interval", "1"), ("lr", "0.00015"), ("lr_decay_style", "cosine"),
        ("lr_warmup_iters", "2000"), ("max_position_embeddings", "8192"), ("micro_batch_size", "1"), ("min_lr", "1.5e-05"),
        ("normalization", "RMSNorm"), ("num_attention_heads", "64"), ("num_layers", "80"), ("num_query_groups", "8"),
        ("overlap_grad_reduce", "True"), ("overlap_param_gather", "True"), ("pipeline_model_parallel_size", "8"),
        ("position_embedding_type", "rope"), ("recompute_granularity", "selective"), ("save", "/lustre/scratch/alice/ckpt/llama3-70b"),
        ("save_interval", "500"), ("seq_length", "8192"), ("sequence_parallel", "True"), ("swiglu", "True"),
        ("tensor_model_parallel_size", "8"), ("tokenizer_model", "/home/alice/llm/tokenizer.model"), ("tokenizer_type", "Llama3Tokenizer"),
        ("train_iters", "250000"), ("use_distributed_optimizer", "True"), ("use_flash_attn", "True"), ("weight_decay", "0.1"),
        ("world_size", "1024"),
    )
)  # fmt: skip

_DS_CONFIG = (
    ("activation_checkpointing_config", '{"partition_activations": false, "contiguous_memory_optimization": false, "cpu_checkpointing": false, "number_checkpoints": null, "synchronize_checkpoint_boundary": false, "profile": false}'),
    ("aio_config", "{'block_size': 1048576, 'queue_depth': 8, 'thread_count': 1, 'single_submit': False, 'overlap_events': True}"),
    ("bfloat16_enabled", "True"), ("checkpoint_parallel_write_pipeline", "False"), ("communication_data_type", "None"),
    ("flops_profiler_config", '{"enabled": false, "recompute_fwd_factor": 0.0, "profile_step": 1, "module_depth": -1, "top_modules": 1, "detailed": true, "output_file": null}'),
    ("gradient_accumulation_steps", "16"), ("gradient_clipping", "1.0"), ("optimizer_name", "adamw"),
    ("optimizer_params", "{'lr': 0.00015, 'betas': [0.9, 0.95], 'eps': 1e-08, 'weight_decay': 0.1}"),
    ("train_batch_size", "1024"), ("train_micro_batch_size_per_gpu", "1"), ("wall_clock_breakdown", "False"),
    ("zero_config", "stage=3 contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500000000 overlap_comm=True offload_param=None offload_optimizer=None sub_group_size=1000000000 stage3_prefetch_bucket_size=50000000 stage3_param_persistence_threshold=100000 stage3_max_live_parameters=1000000000 stage3_gather_16bit_weights_on_model_save=True"),
    ("zero_enabled", "True"), ("zero_optimization_stage", "3"),
)  # fmt: skip

_PIP_LIST = (
    ("accelerate", "0.34.2"), ("apex", "0.1"), ("datasets", "3.0.1"), ("deepspeed", "0.15.1"), ("einops", "0.8.0"),
    ("flash-attn", "2.6.3"), ("huggingface-hub", "0.25.1"), ("megatron-core", "0.8.0"), ("ninja", "1.11.1.1"),
    ("numpy", "1.26.4"), ("nvidia-cublas-cu12", "12.4.5.8"), ("nvidia-cudnn-cu12", "9.1.0.70"), ("nvidia-nccl-cu12", "2.21.5"),
    ("safetensors", "0.4.5"), ("sentencepiece", "0.2.0"), ("tokenizers", "0.20.0"), ("torch", "2.4.1+cu124"),
    ("transformer-engine", "1.10.0+08a85d3"), ("transformers", "4.45.1"), ("triton", "3.0.0"), ("wandb", "0.18.1"),
)  # fmt: skip


class MpirunTag(Family):
    name = "mpirun-tag"
    summary = "Horovod/Open MPI `mpirun --tag-output`: every line `[1,N]<stdout>:` or `<stderr>:`; NCCL native lines, Keras/HF steps"
    ranks = 64
    failed = 27
    launcher = "horovodrun -np 64 python"

    def wrap(self, rank: int | None, text: str) -> str:
        if rank is None:
            return text
        # Open MPI tags by stream: NCCL and the training loop print on stdout, Python's
        # warnings and tracebacks on stderr.
        err = text.startswith(("Traceback", "  ", "torch.", "RuntimeError", "[W", "[E")) or "Warning" in text
        return f"[1,{rank}]<{'stderr' if err else 'stdout'}>:{text}"

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        kind = rng.random()
        if kind < 0.35:
            return self.groups(cap=64)
        if kind < 0.93:
            lines: list[Line] = []
            for _ in range(rng.randrange(10, 40)):
                t.advance()
                lines.append((0, f"Epoch {t.step // 1000 + 1}: step {t.step % 1000}/1000 - loss: {t.loss:.4f} - lr: {t.lr:.3e} - {rng.randrange(180, 260)}ms/step"))
                if rng.random() < 0.2:
                    lines.append((rng.randrange(self.job.ranks), f"[{self.clock.py()}] Horovod: allreduce fusion buffer {rng.choice((64, 128))} MB, cycle time {rng.choice((1, 2, 5))} ms"))
            return lines
        return [(r, s) for r in rng.sample(range(self.job.ranks), 4) for s in warning(rng)]


class RayTrain(Family):
    name = "ray-train"
    summary = "Ray Train: worker lines behind a colour-coded `(RayTrainWorker pid=N, ip=A)` prefix, `[repeated Nx across cluster]`, Tune status tables"
    ranks = 32
    failed = 13
    launcher = "python"

    def wrap(self, rank: int | None, text: str) -> str:
        if rank is None:
            return text
        # Ray colours each worker's prefix (cyan) when it forwards the line to the driver.
        return f"\x1b[36m(RayTrainWorker pid={self.job.pids[rank]}, ip={self.job.ip(rank)})\x1b[0m {text}"

    def __init__(self, rng: random.Random, size: int):
        super().__init__(rng, size)
        # One pid a worker (the shared Job may give two local ranks of a node the same one).
        self.job.pids = [p + 3 * (r % GPUS_PER_NODE) for r, p in enumerate(self.job.pids)]

    def header(self) -> list[Line]:
        # Ray Train (2.9+) says which worker pid holds which rank once, as the worker group starts.
        j, trainer = self.job, f"(TorchTrainer pid={self.job.pids[0] - 61})"
        return [
            *super().header(),
            (None, f"\x1b[36m{trainer}\x1b[0m Started distributed worker processes: "),
            *((None, f"\x1b[36m{trainer}\x1b[0m - (ip={j.ip(r)}, pid={j.pids[r]}) world_rank={r}, local_rank={r % GPUS_PER_NODE}, "
                     f"node_rank={r // GPUS_PER_NODE}") for r in range(j.ranks)),
        ]  # fmt: skip

    def status(self) -> list[Line]:
        """Tune's trial status table, as the driver redraws it every few seconds."""
        rng, t = self.rng, self.train
        return [(None, s) for s in (
            "== Status ==",
            f"Current time: {self.clock.day()} (running for {t.step // 3600:02d}:{t.step // 60 % 60:02d}:{t.step % 60:02d})",
            "Using FIFO scheduling algorithm.",
            f"Logical resource usage: {self.job.ranks + 1}.0/{self.job.ranks * 12} CPUs, {self.job.ranks}.0/{self.job.ranks} GPUs",
            "╭──────────────────────────────────────────────╮",
            "│ Trial name               status       iter   │",
            "├──────────────────────────────────────────────┤",
            f"│ TorchTrainer_{rng.getrandbits(20):05x}   RUNNING     {t.step:>6} │",
            "╰──────────────────────────────────────────────╯",
        )]  # fmt: skip

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        kind = rng.random()
        if kind < 0.3:
            return self.groups(net="Socket", cap=32)
        if kind < 0.85:
            lines: list[Line] = []
            for _ in range(rng.randrange(10, 40)):
                t.advance()
                lines.append((0, t.hf()))
                if rng.random() < 0.3:
                    n = rng.randrange(2, self.job.ranks)
                    lines.append((rng.randrange(self.job.ranks), f"{t.hf()} [repeated {n}x across cluster]"))
            return lines
        if kind < 0.95:
            return self.status()
        return [(r, s) for r in rng.sample(range(self.job.ranks), 4) for s in warning(rng)]


class LoguruAnsi(Family):
    name = "loguru-ansi"
    summary = "a training script logging through loguru with colour on: every line `time | LEVEL | module:function:line - message` in ANSI codes"
    ranks = 8
    failed = 6

    _COLOUR: ClassVar[dict[str, str]] = {"INFO": "\x1b[1m", "WARNING": "\x1b[33m\x1b[1m", "DEBUG": "\x1b[34m\x1b[1m", "SUCCESS": "\x1b[32m\x1b[1m"}

    def log(self, level: str, where: str, text: str) -> str:
        mod, fn, line = where.split(":")
        c = self._COLOUR[level]
        return (f"\x1b[32m{self.clock.py()}\x1b[0m | {c}{level:<8}\x1b[0m | \x1b[36m{mod}\x1b[0m:\x1b[36m{fn}\x1b[0m:"
                f"\x1b[36m{line}\x1b[0m - {c}{text}\x1b[0m")  # fmt: skip

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        lines: list[Line] = []
        for _ in range(rng.randrange(10, 40)):
            t.advance()
            r = rng.randrange(self.job.ranks)
            lines.append((r, self.log("INFO", "trainer:train_step:211", f"rank {r} step {t.step} loss {t.loss:.4f} lr {t.lr:.3e} grad_norm {rng.uniform(0.2, 3):.3f}")))
            if rng.random() < 0.1:
                lines.append((r, self.log("DEBUG", "data.loader:__iter__:88", f"shard {rng.randrange(4096):05d} opened, {rng.randrange(10_000, 99_999)} samples")))
            if rng.random() < 0.03:
                lines.append((r, self.log("WARNING", "trainer:clip:305", f"grad norm {rng.uniform(5, 50):.2f} clipped to 1.0")))
            if t.step % 500 == 0:
                lines.append((0, self.log("SUCCESS", "trainer:save:402", f"checkpoint saved to /lustre/scratch/alice/ckpt/step_{t.step}")))
        return lines


def _rand(rng: random.Random, n: int, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


_HEX = "0123456789abcdef"


class S3Debug(Family):
    name = "s3-debug"
    summary = "a data pipeline's DEBUG logging: botocore's response headers with a new base64 `x-amz-id-2`, request id and ETag on every line, HF datasets' cache lines"
    ranks = 16
    failed = 11

    # The format of botocore's own stream logger (`boto3.set_stream_logger`, the CLI's `--debug`).
    def log(self, thread: str, name: str, text: str) -> str:
        return f"{self.clock.py()} - {thread} - {name} - DEBUG - {text}"

    def get(self) -> list[str]:
        """One ranged GET of a shard as urllib3 and botocore log it."""
        rng, c = self.rng, self.clock
        thread = f"ThreadPoolExecutor-0_{rng.randrange(8)}"
        shard = rng.randrange(20_000)
        size = 67_108_864
        start = rng.randrange(0, 8) * size
        d = _dt.datetime.fromtimestamp(c.t, _dt.UTC)
        headers = {
            "x-amz-id-2": base64.b64encode(rng.randbytes(56)).decode(),
            "x-amz-request-id": _rand(rng, 16, "0123456789ABCDEF"),
            "Date": f"{d:%a, %d %b %Y %H:%M:%S} GMT",
            "Last-Modified": "Tue, 04 Nov 2025 17:22:41 GMT",
            "ETag": f'"{_rand(rng, 32, _HEX)}"',
            "x-amz-server-side-encryption": "AES256",
            "Accept-Ranges": "bytes",
            "Content-Range": f"bytes {start}-{start + size - 1}/{8 * size}",
            "Content-Type": "application/octet-stream",
            "Server": "AmazonS3",
            "Content-Length": str(size),
        }
        return [
            self.log(thread, "urllib3.connectionpool", f'https://acme-datasets.s3.us-east-1.amazonaws.com:443 "GET '
                     f'/redpajama/train/shard.{shard:05d}.mds HTTP/1.1" 206 {size}'),
            self.log(thread, "botocore.parsers", f"Response headers: {headers!r}"),
            self.log(thread, "botocore.parsers", "Response body:"),
            f"<botocore.response.StreamingBody object at 0x7f{rng.getrandbits(40):010x}>",
        ]  # fmt: skip

    def cached(self) -> str:
        """HF datasets' `map` finding its result in the cache (a fingerprint per call)."""
        rng = self.rng
        return (f"Loading cached processed dataset at /home/alice/.cache/huggingface/datasets/json/default-{_rand(rng, 16, _HEX)}/"
                f"0.0.0/{_rand(rng, 64, _HEX)}/cache-{_rand(rng, 16, _HEX)}.arrow")  # fmt: skip

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        lines: list[Line] = []
        for _ in range(rng.randrange(10, 40)):
            r = rng.randrange(self.job.ranks)
            lines += [(r, s) for s in self.get()]
            if rng.random() < 0.1:
                lines.append((r, self.cached()))
            if rng.random() < 0.05:
                t.advance()
                lines.append((0, t.hf()))
        return lines


class VllmServe(Family):
    name = "vllm-serve"
    summary = "an RL job beside a vLLM OpenAI server: `Received request chatcmpl-<hex>: prompt: ..`, `Added request ..`, uvicorn access lines, engine metrics"
    ranks = 8
    failed = 5

    _PROMPTS = (
        "Solve the following math problem step by step. The last line of your response should be of the form Answer: $ANSWER",
        "Write a Python function that returns the n-th Fibonacci number.",
        "Summarize the following article in three sentences.",
        "Translate the following sentence into French.",
    )

    def __init__(self, rng: random.Random, size: int):
        super().__init__(rng, size)
        self.server = rng.randrange(3_000, 3_900_000)

    def log(self, where: str, text: str) -> str:
        # vLLM 0.10+ (the V1 engine) prefixes each API server process's lines.
        return f"(APIServer pid={self.server}) INFO {self.clock.py()[5:19]} [{where}] {text}"

    def request(self) -> list[str]:
        rng = self.rng
        rid = f"chatcmpl-{_rand(rng, 32, _HEX)}"
        prompt = rng.choice(self._PROMPTS).replace("\n", "\\n")
        return [
            self.log("logger.py:49", f"Received request {rid}: prompt: '<|im_start|>user\\n{prompt}<|im_end|>\\n<|im_start|>assistant\\n', "
                     f"params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, "
                     f"temperature=1.0, top_p=1.0, top_k=0, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], "
                     f"include_stop_str_in_output=False, ignore_eos=False, max_tokens={rng.choice((1024, 2048, 4096))}, "
                     f"min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, "
                     f"spaces_between_special_tokens=True, truncate_prompt_tokens=None), lora_request: None."),
            self.log("async_llm.py:382", f"Added request {rid}-{_rand(rng, 8, _HEX)}."),
            f"(APIServer pid={self.server}) INFO:     {self.job.ip(0)}:{rng.randrange(32768, 60999)} - "
            f'"POST /v1/chat/completions HTTP/1.1" 200 OK',
        ]  # fmt: skip

    def metrics(self) -> str:
        r = self.rng
        return self.log("loggers.py:257", f"Engine 000: Avg prompt throughput: {r.uniform(100, 9000):.1f} tokens/s, Avg generation "
                        f"throughput: {r.uniform(500, 4000):.1f} tokens/s, Running: {r.randrange(0, 256)} reqs, Waiting: "
                        f"{r.randrange(0, 64)} reqs, GPU KV cache usage: {r.uniform(0, 99):.1f}%, Prefix cache hit rate: "
                        f"{r.uniform(0, 90):.1f}%")  # fmt: skip

    def chatter(self) -> list[Line]:
        rng, t = self.rng, self.train
        lines: list[Line] = []
        for _ in range(rng.randrange(10, 40)):
            lines += [(None, s) for s in self.request()]
            if rng.random() < 0.05:
                lines.append((None, self.metrics()))
        if rng.random() < 0.3:
            t.advance()
            lines.append((0, t.hf()))
        return lines


FAMILIES: dict[str, type[Family]] = {
    f.name: f
    for f in (Torchrun, NcclNative, SrunLabel, Pdsh, K8sJson, C10dRetry, PyWarnings, Tqdm, Iterations, EnvDump,
              MpirunTag, RayTrain, LoguruAnsi, S3Debug, VllmServe)
}


# --- putting a log together --------------------------------------------------------------------


def generate(out: BinaryIO, size: int, family: str = "torchrun", *, seed: int = 0, failure_at: float = DEFAULT_FAILURE_AT,
             ranks: int | None = None) -> dict:  # fmt: skip
    """Write about `size` bytes of one family's log to `out`; returns what was written and what to expect."""
    rng = random.Random(f"{family}/{seed}")
    cls = FAMILIES[family]
    if ranks is not None:  # a smaller job (a paste): the failed rank stays inside it
        cls = type(cls.__name__, (cls,), {"ranks": max(ranks, 16), "failed": min(cls.failed, max(ranks, 16) * 3 // 5)})
    fam = cls(rng, size)
    w = Writer(out)
    w.write(fam.wrap_all(fam.header()))
    # The tail's size, measured on a scratch copy of the family (the real one is drawn at the end).
    scratch = cls(random.Random(seed), size)
    tail_bytes = sum(len(s) + 1 for s in scratch.wrap_all(scratch.tail()))
    failure_done = False
    failure_byte = None
    stop = max(size - tail_bytes, int(size * 0.85))
    while w.size < stop:
        if not failure_done and w.size >= size * failure_at:
            failure_byte = w.size
            w.write(fam.wrap_all(fam.failure()))
            failure_done = True
            continue
        fam.written = w.size
        fam.clock.tick(0.3)
        w.write(fam.wrap_all(fam.chatter()))
    if not failure_done:
        failure_byte = w.size
        w.write(fam.wrap_all(fam.failure()))
    w.write(fam.wrap_all(fam.tail()))
    w.flush()
    return {
        "family": family,
        "bytes": w.bytes,
        "lines": w.lines,
        "longest_line": w.longest,
        "ranks": fam.job.ranks,
        "failure_at_byte": failure_byte,
        "expected_root": EXPECTED_ROOT,
        "expected_rank": fam.failed,
    }


def generate_file(path: str, size: int, family: str = "torchrun", **kw) -> dict:
    with open(path, "wb") as fh:
        return generate(fh, size, family, **kw)


def paste(lines: int = 5000, seed: int = 1, family: str = "torchrun") -> str:
    """The last `lines` lines of a small job's log of one family, the failure and its collateral in them."""
    buf = io.BytesIO()
    generate(buf, lines * 150, family, ranks=64, seed=seed, failure_at=0.55)
    all_lines = buf.getvalue().decode("utf-8").split("\n")[:-1]
    return "\n".join(all_lines[-lines:]) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] not in FAMILIES:
        print(f"usage: loggen.py FAMILY SIZE_MB PATH (families: {', '.join(FAMILIES)})", file=sys.stderr)
        return 2
    meta = generate_file(args[2], int(float(args[1]) * 1_000_000), args[0])
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())

