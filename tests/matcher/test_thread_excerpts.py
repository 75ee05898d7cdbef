"""Excerpts real users pasted into issue threads, one file each in tests/data/threads, named
for the entry that must be the root cause: empty checkpoints, host RAM, version skew, bare NCCL
refusals, aborts that left only a signal, Ray jobs waiting for resources no node holds, file
systems without locks, a trainer giving up on NaN losses.

Before the rule change that added each one, it produced no diagnosis, or only a wrapper. The
tests after the parametrised one hold what must not be read from near wordings.
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
]


@pytest.mark.parametrize(("absent", "log"), NOT_THEIRS)
def test_supportive_line_alone_stays_below_the_floor(absent: str, log: str) -> None:
    """A line every such failure prints (spawn's EOFError, the bare DLL message) must not fire alone."""
    assert absent not in {m.id for m in MATCHER.diagnose(log).matches}


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
