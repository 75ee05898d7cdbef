"""Serving-stack and accelerator wordings from public issue threads that named no cause before.

Each excerpt is what the failing software printed in the thread (paths shortened), the thread
confirming the cause; before the rule change each produced no diagnosis.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.matcher import default_matcher

ROOT = Path(__file__).resolve().parents[2]
MATCHER = default_matcher(ROOT / "rules")

CASES = [
    (
        # NVIDIA/TensorRT-LLM#5872: trtllm-serve at TP8, one MPI rank cannot create its KV cache
        "trtllm-executor-insufficient-memory",
        "[07/08/2025-19:47:15] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1: "
        "Executor creation failed due to insufficient GPU memory.\n"
        "\n"
        "The following component could not be created: KV cache\n"
        "Total GPU memory (GiB): 140.06\n"
        "Free GPU memory before component creation attempt (GiB): 108.86\n",
    ),
    (
        # google-deepmind/gemma#85: JAX sampling on a TPU VM, PJRT's device-buffer wording
        "cuda-oom",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
        "Attempting to allocate 15.65G. That was not possible. There are 11.08G free.; (0x0x0_HBM0)\n",
    ),
    (
        # NVIDIA/TensorRT-LLM#260: the C++ runtime under Triton checking cudaMallocAsync
        "cuda-oom",
        "E1103 02:59:01.152656 81041 backend_model.cc:553] ERROR: Failed to create instance: unexpected error "
        "when creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, "
        "mCudaStream->get()): out of memory (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)\n",
    ),
    (
        # Ucas-HaoranWei/Vary-toy#39: pip shows only setup.py's warning before the cut-off traceback
        "cuda-home-missing",
        "  Preparing metadata (setup.py) ... error\n"
        "  error: subprocess-exited-with-error\n"
        "      /tmp/pip-install-dkk1c7h9/flash-attn_1917/setup.py:95: UserWarning: flash_attn was requested, "
        "but nvcc was not found.  Are you sure your environment has nvcc available?  If you're installing "
        "within a container from https://hub.docker.com/r/pytorch/pytorch, only images whose names contain "
        "'devel' will provide nvcc.\n"
        "        warnings.warn(\n",
    ),
]


@pytest.mark.parametrize(("expected", "log"), CASES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(CASES)])
def test_thread_wording_names_the_cause(expected: str, log: str) -> None:
    d = MATCHER.diagnose(log)
    assert d.root is not None and d.root.id == expected, [m.id for m in d.matches]


def test_torch_oom_under_the_trtllm_executor_message_is_its_collateral() -> None:
    """The executor re-raises the allocator's OOM: the component it names is the cause to fix."""
    d = MATCHER.diagnose(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 1 has a total capacity "
        "of 139.81 GiB of which 1.02 GiB is free.\n"
        "RuntimeError: Executor creation failed due to insufficient GPU memory.\n"
        "\n"
        "The following component could not be created: KV cache\n"
    )
    assert d.root is not None and d.root.id == "trtllm-executor-insufficient-memory"
    assert "cuda-oom" in [c.id for c in d.collateral]


def test_trtllm_executor_nccl_failure_is_not_a_memory_diagnosis() -> None:
    """The same monitor reports NCCL failures in its own words; those are not memory."""
    d = MATCHER.diagnose(
        "[TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: Executor creation failed with NCCL "
        "error: Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/common/opUtils.cpp:297 'unhandled cuda "
        "error (run with NCCL_DEBUG=INFO for details)'\n"
    )
    assert "trtllm-executor-insufficient-memory" not in [m.id for m in d.matches]
