"""Wordings real users pasted into issue threads, each thread confirming the cause.

Every excerpt here is a few lines as printed by the failing software (paths shortened); before
the matching rule change each one produced no diagnosis at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.matcher import default_matcher

ROOT = Path(__file__).resolve().parents[2]
MATCHER = default_matcher(ROOT / "rules")

CASES = [
    (
        # pytorch/pytorch#10577: legacy torch.save on a saturated disk
        "disk-full",
        "  File \"/venv/lib/python3.7/site-packages/torch/serialization.py\", line 297, in _save\n"
        "    serialized_storages[key]._write_file(f, _should_read_directly(f))\n"
        "RuntimeError: write(): fd 29 failed with Input/output error\n",
    ),
    (
        # huggingface/sentence-transformers#910: one fast tokenizer, concurrent requests
        "fast-tokenizer-already-borrowed",
        "  File \"/usr/local/lib/python3.6/site-packages/fastapi/applications.py\", line 201, in __call__\n"
        "    await super().__call__(scope, receive, send)  # pragma: no cover\n"
        "RuntimeError: Already borrowed\n",
    ),
    (
        # apple/ml-cross-entropy#5: Triton kernel in an image without gcc
        "c-compiler-missing",
        "raise RuntimeError(\"Failed to find C compiler. Please specify via CC environment variable.\")\n"
        "RuntimeError: Failed to find C compiler. Please specify via CC environment variable.\n",
    ),
    (
        # ssbuild/chatglm_finetuning#165: extension build, no g++
        "c-compiler-missing",
        "subprocess.CalledProcessError: Command '['which', 'c++']' returned non-zero exit status 1.\n",
    ),
    (
        # lllyasviel/Fooocus#237: Windows wording of the CPU allocator refusing memory
        "host-oom-sigkill",
        "RuntimeError: [enforce fail at ..\\c10\\core\\impl\\alloc_cpu.cpp:72] data. DefaultCPUAllocator: "
        "not enough memory: you tried to allocate 26214400 bytes.\n",
    ),
    (
        # zeruniverse/neural-colorization#11: the message wrapped by the terminal
        "torch-load-map-location",
        "RuntimeError: Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. "
        "Please use torch.load with map_location to map\nyour storages to an existing device.\n",
    ),
    (
        # vllm-project/vllm#3676
        "vllm-max-model-len-exceeds-config",
        "ValueError: User-specified max_model_len (131072) is greater than the derived max_model_len "
        "(None=8192 in model's config.json). This may lead to incorrect model outputs or CUDA errors.\n",
    ),
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
    (
        # tensorflow/tensorflow#41091 family: a terminal wrapped TF's cuDNN mismatch inside "library"
        "cudnn-error",
        "2020-07-02 18:49:18.254447: E tensorflow/stream_executor/cuda/cuda_dnn.cc:320] Loaded runtime CuDNN l\n"
        "ibrary: 7.3.1 but source was compiled with: 7.5.0.  CuDNN library major and minor version needs to\n",
    ),
    (
        # tensorflow/tensorflow#2437: TF 0.x wording of the same mismatch
        "cudnn-error",
        "Loaded cudnn library: 4007 but source was compiled against 4004\n",
    ),
    (
        # deepspeedai/DeepSpeed#1127: a notebook shows only the op being built and ninja's failure
        "deepspeed-op-build-failure",
        "Building extension module cpu_adam...\n"
        "CalledProcessError                        Traceback (most recent call last)\n"
        "~/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py in _run_ninja_build(build_directory, "
        "verbose, error_prefix)\n",
    ),
]


@pytest.mark.parametrize(("expected", "log"), CASES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(CASES)])
def test_thread_wording_names_the_cause(expected: str, log: str) -> None:
    d = MATCHER.diagnose(log)
    assert d.root is not None and d.root.id == expected, [m.id for m in d.matches]


def test_triton_compiler_message_inside_the_inductor_wrapper_keeps_the_wrapper_as_collateral() -> None:
    """torch.compile wraps Triton's error: the missing compiler is the cause, the wrapper its symptom."""
    d = MATCHER.diagnose(
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
        "RuntimeError: Failed to find C compiler. Please specify via CC environment variable.\n"
    )
    assert d.root is not None and d.root.id == "c-compiler-missing"
    assert "inductor-backend-failed" in [c.id for c in d.collateral]


def test_already_borrowed_outside_python_is_not_the_tokenizer_race() -> None:
    """A Rust program's own RefCell panic has the words but not the PyO3 error."""
    d = MATCHER.diagnose("thread 'main' panicked at src/cache.rs:88:26:\nalready borrowed: BorrowMutError\n")
    assert "fast-tokenizer-already-borrowed" not in [m.id for m in d.matches]


NEAR_MISSES = [
    (
        # vLLM's override warning alone: the user allowed the longer length, nothing failed
        "vllm-max-model-len-exceeds-config",
        "WARNING 05-14 09:05:40 [config.py:3195] User-specified max_model_len (131072) is greater than the "
        "derived max_model_len (max_position_embeddings=32768 or model_max_length=None in model's config.json). "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution.\n",
    ),
    (
        # TensorRT-LLM's executor monitor reporting an NCCL failure in its own words: not memory
        "trtllm-executor-insufficient-memory",
        "[TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: Executor creation failed with NCCL "
        "error: Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/common/opUtils.cpp:297 'unhandled cuda "
        "error (run with NCCL_DEBUG=INFO for details)'\n",
    ),
    (
        # a healthy DeepSpeed op build followed by an unrelated failure is not a DeepSpeed build problem
        "deepspeed-op-build-failure",
        "Building extension module cpu_adam...\n"
        "ninja: no work to do.\n"
        "Loading extension module cpu_adam...\n"
        "ValueError: Expected input batch_size (16) to match target batch_size (8).\n",
    ),
    (
        # a non-DeepSpeed JIT build failing: the generic build entry, not DeepSpeed's
        "deepspeed-op-build-failure",
        "Building extension module _sh_encoder...\n"
        "ninja: build stopped: subcommand failed.\n"
        "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.\n",
    ),
    (
        # a run that cannot import torch has no build to blame
        "extension-build-failure",
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    import torch\n"
        "ModuleNotFoundError: No module named 'torch'\n",
    ),
]


@pytest.mark.parametrize(("absent", "log"), NEAR_MISSES, ids=[a for a, _ in NEAR_MISSES])
def test_near_wording_is_not_the_entry(absent: str, log: str) -> None:
    d = MATCHER.diagnose(log)
    assert absent not in [m.id for m in d.matches]


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



# Build logs where a narrower page is the cause and the other entry that fired its collateral.
BUILD_CAUSE_AND_COLLATERAL = [
    (
        # DeepSpeed's page covers its own JIT ops, including the compiler problem inside one
        "deepspeed-op-build-failure",
        "extension-build-failure",
        "Building extension module fused_adam...\n"
        "/usr/local/cuda-11.8/include/crt/host_config.h:132:2: error: #error -- unsupported GNU version! gcc "
        "versions later than 11 are not supported!\n"
        "ninja: build stopped: subcommand failed.\n"
        "RuntimeError: Error building extension 'fused_adam'\n",
    ),
    (
        # under 'Getting requirements to build wheel' the missing torch is pip's isolation, not the env
        "extension-build-failure",
        "python-module-not-found",
        "  Getting requirements to build wheel ... error\n"
        "  × Getting requirements to build wheel did not run successfully.\n"
        '        File "<string>", line 22, in <module>\n'
        "      ModuleNotFoundError: No module named 'torch'\n",
    ),
]


@pytest.mark.parametrize(
    ("cause", "collateral", "log"), BUILD_CAUSE_AND_COLLATERAL, ids=[c for c, _, _ in BUILD_CAUSE_AND_COLLATERAL]
)
def test_build_log_names_the_narrower_cause(cause: str, collateral: str, log: str) -> None:
    d = MATCHER.diagnose(log)
    assert d.root is not None and d.root.id == cause, [m.id for m in d.matches]
    assert collateral in [c.id for c in d.collateral]
