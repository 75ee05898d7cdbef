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


def test_vllm_override_warning_alone_is_not_a_failure() -> None:
    d = MATCHER.diagnose(
        "WARNING 05-14 09:05:40 [config.py:3195] User-specified max_model_len (131072) is greater than the "
        "derived max_model_len (max_position_embeddings=32768 or model_max_length=None in model's config.json). "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution.\n"
    )
    assert "vllm-max-model-len-exceeds-config" not in [m.id for m in d.matches]
