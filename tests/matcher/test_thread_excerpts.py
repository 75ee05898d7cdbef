"""Excerpts real users pasted into issue threads, one file each in tests/data/threads, named
for the entry that must be the root cause: empty checkpoints, host RAM, version skew, bare NCCL
refusals, aborts that left only a signal, Ray jobs waiting for resources no node holds, file
systems without locks, a trainer giving up on NaN losses.

Before the rule change that added each one, it produced no diagnosis, or only a wrapper; the
launch, scheduler and data-loading classes also keep pastes that were already read right, so
that what users really paste for them stays read. The tests after the parametrised one hold
what must not be read from near wordings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.matcher import default_matcher

ROOT = Path(__file__).resolve().parents[2]
MATCHER = default_matcher(ROOT / "rules")

# One excerpt per file, exactly as pasted in the thread (paths shortened); the file name is
# "<expected rule id>--<owner>-<repo>-<issue number>.log".
THREADS = sorted((ROOT / "tests" / "data" / "threads").glob("*.log"))


@pytest.mark.parametrize("path", THREADS, ids=[p.stem for p in THREADS])
def test_pasted_excerpt_names_the_thread_cause(path: Path) -> None:
    expected = path.name.split("--", 1)[0]
    found = MATCHER.diagnose(path.read_text(encoding="utf-8")).root
    assert found is not None, f"{path.name}: no diagnosis"
    assert found.id == expected, f"{path.name}: {found.id}"


# Multi-rank excerpts and the rank that began the failure (None: every rank shown is a victim
# of one that left no line here), as the thread settles it.
INITIATORS = [
    ("gpu-ecc-error--pytorch-pytorch-113128.log", 12),  # `[default0]:[rank12]:`: the global rank
    ("nccl-shm-too-small--NVIDIA-DeepLearningExamples-1386.log", 2),  # rank 3's traceback follows
    ("nccl-efa-peer-unreachable--NVIDIA-nccl-1928.log", 3),
    ("nccl-watchdog-timeout--aioz-ai-GCD-6.log", 0),  # ranks 1-3 time out, rank 0 never arrived
    ("nccl-watchdog-timeout--snap-research-discoscene-5.log", None),  # the agent's rank 7 timed out too
    ("worker-aborted-sigabrt--horovod-horovod-1350.log", 1),  # Open MPI names the rank
    ("worker-aborted-sigabrt--NVIDIA-nccl-1504.log", 3),
    ("nccl-uniqueid-store-timeout--hiyouga-LlamaFactory-2470.log", None),  # rank 14 waited on rank 0
    ("nccl-watchdog-timeout--sgl-project-sglang-1693.log", None),  # `[PG 3 Rank 5]`: a subgroup's rank 5
    # A watchdog that died on a CUDA fault names the faulting rank; `[PG ... Rank 1]` is its subgroup rank.
    ("cuda-unspecified-launch-failure--NVIDIA-NeMo-Megatron-Bridge-836.log", 29),
    ("cuda-unspecified-launch-failure--hiyouga-LlamaFactory-8871.log", 19),  # behind a pdsh host prefix
    ("cuda-illegal-memory-access--vllm-project-vllm-6042.log", 3),
    ("elastic-rendezvous-timeout--deepspeedai-Megatron-DeepSpeed-338.log", None),  # 7 and 5 waited for 4 absent
    ("elastic-child-failed--huggingface-accelerate-1519.log", 4),  # the second node's first failure is earlier
    ("host-oom-sigkill--lmzpai-roboMamba-10.log", 5),  # the agent's `failed (exitcode: -9) local_rank: 5`
    ("dataloader-worker-killed--alibaba-Pai-Megatron-Patch-583.log", 0),
    ("cuda-oom-fragmentation--modelscope-ms-swift-6301.log", 11),  # the agent's SIGTERMs follow rank 11's OOM
    ("elastic-child-failed--Vision-CAIR-MiniGPT-4-237.log", 0),  # rank 1 failed too; the Root Cause block names rank 0
]


@pytest.mark.parametrize(("name", "rank"), INITIATORS, ids=[n for n, _ in INITIATORS])
def test_pasted_excerpt_names_the_rank_that_began_it(name: str, rank: int | None) -> None:
    d = MATCHER.diagnose((ROOT / "tests" / "data" / "threads" / name).read_text(encoding="utf-8"))
    assert d.initiating_rank == rank, (d.initiating_rank, d.rank_basis)


@pytest.mark.parametrize(
    ("name", "rank"),
    [
        ("nccl-uniqueid-store-timeout--hiyouga-LlamaFactory-2470.log", [14]),
        ("nccl-uniqueid-store-timeout--haotian-liu-LLaVA-930.log", [1, 6]),
    ],
)
def test_the_ncclUniqueId_refusal_is_the_printing_ranks_not_the_rank_it_names(name: str, rank: list[int]) -> None:
    """`[14] is setting up NCCL communicator ... possible application crash on rank 0`: rank 14 wrote it."""
    d = MATCHER.diagnose((ROOT / "tests" / "data" / "threads" / name).read_text(encoding="utf-8"))
    assert d.root is not None and d.root.ranks == rank


def test_named_misuse_outranks_the_bare_invalid_usage() -> None:
    """With the 'Last error' line present, the duplicate GPU is the cause and invalid usage its symptom."""
    d = MATCHER.diagnose(
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, "
        "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n"
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "Last error:\n"
        "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000\n"
    )
    assert d.root is not None and d.root.id == "nccl-duplicate-gpu"
    assert "nccl-invalid-usage" in [c.id for c in d.collateral]


def test_watchdog_abort_is_the_timeout_not_the_signal() -> None:
    """The NCCL watchdog ends the rank with SIGABRT: the timeout it caught is the diagnosis."""
    d = MATCHER.diagnose(
        "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=58211, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800085 "
        "milliseconds before timing out.\n"
        "failed (exitcode: -6) local_rank: 3 (pid: 107) of binary: /usr/bin/python3\n"
    )
    assert d.root is not None and d.root.id != "worker-aborted-sigabrt", [m.id for m in d.matches]


NOT_THEIRS = [
    pytest.param(
        "checkpoint-truncated",
        '  File "C:\\Python310\\lib\\multiprocessing\\spawn.py", line 126, in _main\n'
        "    self = reduction.pickle.load(from_parent)\n"
        "EOFError: Ran out of input\n",
        id="spawn-eoferror-without-torch-load",
    ),
    pytest.param(
        "torch-windows-dll-load-failed",
        "    from .cv2 import *\nImportError: DLL load failed: The specified module could not be found.\n",
        id="opencv-dll-without-torch-c",
    ),
    pytest.param(
        # clinplayer/Point2Skeleton#5: torch falls back to distutils and the build goes on
        "ninja-missing",
        "UserWarning: Attempted to use ninja as the BuildExtension backend but we could not find ninja.. "
        "Falling back to using the slow distutils backend.\n"
        "  warnings.warn(msg.format('we could not find ninja.'))\n"
        "copying build/lib.linux-x86_64-3.6/_ext.cpython-36m-x86_64-linux-gnu.so ->\n",
        id="ninja-fallback-warning",
    ),
    pytest.param(
        # SIAnalytics/siatune#49: printed on import by a CPU-only process, CUDA_HOME is set
        "cuda-home-missing",
        "(bundle_reservation_check_func pid=114618) No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n",
        id="no-cuda-runtime-note",
    ),
    pytest.param(
        # ninja-build/ninja#2595: ninja reports the nvcc failure; ninja itself was found
        "ninja-missing",
        (ROOT / "tests" / "data" / "threads" / "extension-build-failure--ninja-build-ninja-2595.log").read_text(
            encoding="utf-8"
        ),
        id="ninja-build-stopped",
    ),
]


@pytest.mark.parametrize(("absent", "log"), NOT_THEIRS)
def test_supportive_line_alone_stays_below_the_floor(absent: str, log: str) -> None:
    """A line every such failure prints (spawn's EOFError, the bare DLL message) must not fire alone."""
    assert absent not in {m.id for m in MATCHER.diagnose(log).matches}


RCCL_INIT_ONLY = [
    pytest.param(
        # ROCm/vllm#390: a vLLM TP=2 host; the paste stops after RCCL's init lines
        'vllm-host:402:402 [0] /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/'
        'out/ubuntu-22.04/22.04/build/rccl/hipify/src/init.cc:179 NCCL WARN Missing "iommu=pt" from kernel command line '
        "which can lead to system instablity or hang!\n"
        "vllm-host:402:402 [0] NCCL INFO RCCL version : 2.22.3-HEAD:271856d\n"
        "vllm-host:461:461 [1] NCCL INFO Bootstrap : Using enp203s0:192.168.10.20<0>\n"
        "vllm-host:461:461 [1] NCCL INFO NET/Plugin: Could not find: librccl-net.so. Using internal network plugin.\n",
        id="ROCm-vllm-390",
    ),
    pytest.param(
        # kyuz0/amd-strix-halo-vllm-toolboxes#80: a Ray worker of vLLM, with the Ray prefixes
        "(EngineCore pid=6685) (RayWorkerProc pid=4775, ip=192.168.10.2) [2026-08-13 19:37:01] toolbox:4775:4775 [0] "
        "/__w/rockrel/rockrel/build/comm-libs/rccl/build/hipify/src/init.cc:303 NCCL WARN Missing \"iommu=pt\" from "
        "kernel command line which can lead to system instablity or hang!\n"
        "(EngineCore pid=6685) (RayWorkerProc pid=4775, ip=192.168.10.2) toolbox:4775:4775 [0] NCCL INFO RCCL version : "
        "2.30.4-HEAD:2b22ab0\n",
        id="kyuz0-amd-strix-halo-vllm-toolboxes-80",
    ),
]


@pytest.mark.parametrize("log", RCCL_INIT_ONLY)
def test_rccls_iommu_warning_alone_names_no_hang(log: str) -> None:
    """RCCL warns about iommu=pt at every init on such a host, healthy runs too: no diagnosis from it."""
    assert MATCHER.diagnose(log).matches == []


def test_rccls_iommu_warning_does_not_outrank_the_ipc_refusal_that_ended_the_run() -> None:
    """ROCm/rccl#2188: the warning at init, then hipIpcGetMemHandle refused on the joining process."""
    log = (ROOT / "tests" / "data" / "threads" / "nccl-cuda-invalid-argument--ROCm-rccl-2188.log").read_text(encoding="utf-8")
    assert [m.id for m in MATCHER.diagnose(log).matches] == ["nccl-cuda-invalid-argument"]


def test_a_bare_no_grad_fn_error_is_not_called_checkpointing() -> None:
    """Without a checkpointing line the loss lost its graph some other way (frozen weights, no_grad, detach)."""
    d = MATCHER.diagnose("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n")
    assert [m.id for m in d.matches] == ["backward-no-grad-fn"]


def test_checkpointing_in_the_run_arguments_names_the_checkpointing_pitfall() -> None:
    """A TrainingArguments dump with gradient_checkpointing=True is enough to read the same error as checkpointing."""
    d = MATCHER.diagnose(
        "TrainingArguments(bf16=True, gradient_accumulation_steps=8, gradient_checkpointing=True, "
        "gradient_checkpointing_kwargs=None, learning_rate=0.0002)\n"
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"
    )
    assert d.root is not None and d.root.id == "grad-checkpointing-no-grad", [m.id for m in d.matches]
    assert "backward-no-grad-fn" in [c.id for c in d.collateral]


def test_a_dead_ray_worker_is_not_read_as_a_scheduling_wait() -> None:
    log = (ROOT / "tests" / "data" / "threads" / "ray-actor-died--ray-project-ray-47759.log").read_text(encoding="utf-8")
    assert "ray-resources-unschedulable" not in [m.id for m in MATCHER.diagnose(log).matches]


def test_one_skipped_nan_step_within_the_allowance_is_not_divergence() -> None:
    """neuralhydrology's warning for a NaN step it is allowed to skip, followed by finite losses."""
    d = MATCHER.diagnose(
        "2022-11-24 10:02:11,511: Loss is Nan; ignoring step. (#1/5)\n"
        "# Epoch 17: 100%|██████████| 250/250 [00:22<00:00, 11.02it/s, Loss: 0.0312]\n"
    )
    assert "loss-nan" not in [m.id for m in d.matches]


def test_tokenizers_fork_warning_alone_is_not_a_failure() -> None:
    """The warning every forked DataLoader prints (alex-hh/profam#39) names no failure by itself."""
    d = MATCHER.diagnose(
        "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. "
        "Disabling parallelism to avoid deadlocks...\n"
        "To disable this warning, you can either:\n"
        "    - Avoid using tokenizers before the fork if possible\n"
        "    - Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)\n"
    )
    assert d.matches == []


def test_the_ray_autoscaler_tip_alone_names_nothing() -> None:
    d = MATCHER.diagnose(
        "(autoscaler +10s) Tip: use `ray status` to view detailed cluster status. "
        "To disable these messages, set RAY_SCHEDULER_EVENTS=0.\n"
    )
    assert d.root is None, [m.id for m in d.matches]


def test_the_scalers_bf16_refusal_is_not_also_a_dtype_mismatch() -> None:
    """trl#4901: one line names the unscale kernel and 'BFloat16'; only the scaler entry reads it."""
    d = MATCHER.diagnose(
        '    optimizer_state["found_inf_per_device"] = self._unscale_grads_(\n'
        "NotImplementedError: \"_amp_foreach_non_finite_check_and_unscale_cuda\" not implemented for 'BFloat16'\n"
    )
    assert [m.id for m in d.matches] == ["grad-scaler-bf16-gradients"]


def test_a_high_single_bit_error_rate_does_not_outrank_the_oom_that_killed_the_job() -> None:
    """Xid 92 (corrected errors at a high rate) is a lead: the OOM beside it is the cause."""
    d = MATCHER.diagnose(
        "[Sat Oct 12 07:58:40 2024] NVRM: Xid (PCI:0000:3b:00): 92, pid=48211, name=python, High single-bit ECC error rate\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB "
        "of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.88 GiB memory in use. Of the "
        "allocated memory 75.02 GiB is allocated by PyTorch, and 137.00 MiB is reserved by PyTorch but unallocated.\n"
    )
    assert d.root is not None and d.root.id == "cuda-oom", [m.id for m in d.matches]
    assert "gpu-ecc-error" in [m.id for m in d.matches]


def test_a_stranded_cache_under_ten_gigabytes_and_half_the_request_stays_a_plain_oom() -> None:
    """9.35 GiB stranded for a 22.78 GiB request (with 12.73 GiB free) is a GPU too small, not fragmentation."""
    d = MATCHER.diagnose(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.78 GiB. GPU 0 has a total capacity of 31.47 GiB "
        "of which 12.73 GiB is free. Including non-PyTorch memory, this process has 18.73 GiB memory in use. Of the "
        "allocated memory 9.08 GiB is allocated by PyTorch, and 9.35 GiB is reserved by PyTorch but unallocated.\n"
    )
    assert d.root is not None and d.root.id == "cuda-oom", [m.id for m in d.matches]


@pytest.mark.parametrize(
    ("name", "ranks"),
    [
        ("nccl-watchdog-timeout--sgl-project-sglang-1693.log", []),  # only `[PG 3 Rank 5]`: no global rank
        ("nccl-watchdog-timeout--hiyouga-LlamaFactory-8261.log", [0, 2, 4]),  # `[rankN]:` prefixes win
    ],
)
def test_a_subgroups_rank_is_not_read_as_a_global_rank(name: str, ranks: list[int]) -> None:
    """ProcessGroupNCCL prints the rank within its group; only the default group's is global."""
    d = MATCHER.diagnose((ROOT / "tests" / "data" / "threads" / name).read_text(encoding="utf-8"))
    assert d.root is not None and d.root.ranks == ranks


@pytest.mark.parametrize(
    ("name", "collateral"),
    [
        # the refused connect is what a wrong interface does; lo listed first is why
        ("nccl-docker-interface--horovod-horovod-584.log", "nccl-socket-ifname"),
        # the peer closed its socket after its own connect was aborted
        ("nccl-socket-ifname--NVIDIA-nccl-tests-166.log", "nccl-remote-peer-closed"),
        # the agent's store timeout at its exit barrier: the store had worked, NCCL's connect had not
        ("nccl-socket-ifname--NVIDIA-nccl-1105.log", "c10d-store-connect-timeout"),
        # the error-12 completions follow the port errors of the same node
        ("network-link-down--Lightning-AI-lit-llama-380.log", "nccl-ib-retry-exceeded"),
        # not a network one: SGLang SIGKILLs its own process tree after the proxy's 502, so the
        # shell's Killed is the teardown, not the OOM killer
        ("sglang-warmup-proxy--sgl-project-sglang-2468.log", "host-oom-sigkill"),
    ],
)
def test_the_consequence_in_a_pasted_network_failure_is_collateral(name: str, collateral: str) -> None:
    """A network symptom printed after the cause is listed as its collateral, never as the root."""
    d = MATCHER.diagnose((ROOT / "tests" / "data" / "threads" / name).read_text(encoding="utf-8"))
    assert d.root is not None and d.root.id == name.split("--", 1)[0]
    assert collateral in [c.id for c in d.collateral]


def test_rccl_iommu_warning_yields_to_a_real_error() -> None:
    """RCCL's iommu=pt warning is printed on every init of such a host: an OOM later is the cause."""
    d = MATCHER.diagnose(
        'node [0] /app/rccl/build/release/hipify/src/init.cc:213 NCCL WARN Missing "iommu=pt" from kernel '
        "command line which can lead to system instablity or hang!\n"
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "191.98 GiB of which 1.06 GiB is free.\n"
    )
    assert d.root is not None and d.root.id.startswith("cuda-oom")


def test_tensorflows_bfc_retry_warning_is_not_an_oom() -> None:
    """'The caller indicates that this is not a failure': the allocator retried with less; training went on."""
    d = MATCHER.diagnose(
        "2020-04-29 16:25:36.594950: W tensorflow/core/common_runtime/bfc_allocator.cc:243] Allocator (GPU_0_bfc) "
        "ran out of memory trying to allocate 1.25GiB with freed_by_count=0. The caller indicates that this is "
        "not a failure, but may mean that there could be performance gains if more memory were available.\n"
        "Epoch 1/10\n"
    )
    assert d.root is None or d.root.id != "cuda-oom"
