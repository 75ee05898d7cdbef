"""Storage-lock and NaN wordings real users pasted into issue threads (accuracy round 40).

Each excerpt is what the failing software printed, as posted (paths as in the thread); before the
matching rule change each one produced no diagnosis at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.matcher import default_matcher

ROOT = Path(__file__).resolve().parents[2]
MATCHER = default_matcher(ROOT / "rules")

CASES = [
    (
        # neuralhydrology/neuralhydrology#101: the trainer gives up after the allowed NaN steps
        "loss-nan",
        "RuntimeError: Loss was NaN for 1 times in a row. Stopped training.\n",
    ),
    (
        # huggingface/huggingface_hub#2399: Lustre without flock, hub falls back and then stalls
        "shared-fs-file-lock-unavailable",
        "Fetching 5 files:   0%|          | 0/5 [01:45<?, ?it/s]\n"
        "FileSystem does not appear to support flock. Falling back to SoftFileLock for "
        "/model_dir/.cache/huggingface/.gitignore.lock\n"
        "FileSystem does not appear to support flock. Falling back to SoftFileLock for "
        "/model_dir/.cache/huggingface/.gitignore.lock\n",
    ),
    (
        # tox-dev/filelock#289: a cluster home on a network volume with fcntl disabled
        "shared-fs-file-lock-unavailable",
        "NotImplementedError: FileSystem does not appear to support flock; user SoftFileLock instead\n",
    ),
]


@pytest.mark.parametrize(("expected", "log"), CASES, ids=[f"{e}-{i}" for i, (e, _) in enumerate(CASES)])
def test_thread_wording_names_the_cause(expected: str, log: str) -> None:
    d = MATCHER.diagnose(log)
    assert d.root is not None, log
    assert d.root.id == expected


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
