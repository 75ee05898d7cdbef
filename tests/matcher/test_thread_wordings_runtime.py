"""Runtime failures real users pasted into issue threads: empty checkpoints, host RAM, version
skew, bare NCCL refusals, aborts that left only a signal.

Every excerpt is a few lines as printed by the failing software (paths shortened); before the
matching rule change each one produced no diagnosis, or only the launcher's wrapper.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.matcher import default_matcher

ROOT = Path(__file__).resolve().parents[2]
MATCHER = default_matcher(ROOT / "rules")

CASES = [
    (
        # genforce/genforce#10: torch.load of an empty .pth on Windows (legacy reader)
        "checkpoint-truncated",
        "    checkpoint = torch.load(checkpoint_path, map_location='cpu')\n"
        "  File \"C:\\envs\\genforce\\lib\\site-packages\\torch\\serialization.py\", line 764, in _legacy_load\n"
        "    magic_number = pickle_module.load(f, **pickle_load_args)\n"
        "EOFError: Ran out of input\n",
    ),
    (
        # MIC-DKFZ/nnUNet#2213: preprocessing refused host RAM
        "host-memory-allocation-failed",
        "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 1.61 GiB for an array with shape "
        "(753, 536, 536) and data type float64\n",
    ),
    (
        # huggingface/peft#892: peft under accelerate 0.20.3
        "import-name-version-skew",
        "    from accelerate.utils import is_npu_available, is_xpu_available\n"
        "ImportError: cannot import name 'is_npu_available' from 'accelerate.utils' "
        "(/usr/local/lib/python3.9/dist-packages/accelerate/utils/__init__.py)\n",
    ),
    (
        # facebookresearch/swav#61: NCCL 2.7.8 says only "invalid usage"
        "nccl-invalid-usage",
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, invalid usage, NCCL version 2.7.8\n"
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library (such as too many async ops, "
        "too many collectives at once, mixing streams in a group, etc).\n",
    ),
    (
        # open-compass/VLMEvalKit#1131: the summary is all that was kept
        "worker-aborted-sigabrt",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "[1]:\n"
        "  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : -6 (pid: 32051)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 6 (SIGABRT) received by PID 32051\n",
    ),
    (
        # pytorch/pytorch#9344: torch 0.4 on Windows 10
        "torch-windows-dll-load-failed",
        "  File \"C:\\Python36_64\\lib\\site-packages\\torch\\__init__.py\", line 78, in <module>\n"
        "    from torch._C import *\n"
        "ImportError: DLL load failed: The specified module could not be found.\n",
    ),
    (
        # jfzhang95/pytorch-deeplab-xception#220: the dataset holds a module, the spawned worker reads nothing
        "dataloader-pickle-local-object",
        "    ForkingPickler(file, protocol).dump(obj)\n"
        "TypeError: can't pickle module objects\n"
        "    self = reduction.pickle.load(from_parent)\n"
        "EOFError: Ran out of input\n",
    ),
]


@pytest.mark.parametrize(("expected", "log"), CASES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(CASES)])
def test_thread_wording_names_the_cause(expected: str, log: str) -> None:
    d = MATCHER.diagnose(log)
    assert d.root is not None and d.root.id == expected, [m.id for m in d.matches]


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


def test_empty_legacy_checkpoint_does_not_claim_other_spawn_failures() -> None:
    """Windows spawn's own EOFError (no torch.load frame) stays below the firing floor."""
    d = MATCHER.diagnose(
        "  File \"C:\\Python310\\lib\\multiprocessing\\spawn.py\", line 126, in _main\n"
        "    self = reduction.pickle.load(from_parent)\n"
        "EOFError: Ran out of input\n"
    )
    assert "checkpoint-truncated" not in [m.id for m in d.matches]


def test_opencv_dll_failure_is_not_torch() -> None:
    d = MATCHER.diagnose(
        "    from .cv2 import *\nImportError: DLL load failed: The specified module could not be found.\n"
    )
    assert "torch-windows-dll-load-failed" not in [m.id for m in d.matches]
