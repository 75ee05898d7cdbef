"""A survived warning is not a cause: errors the run printed and then went on past to a clean finish."""

import pytest

from tests.matcher.rulefactory import standard_book


@pytest.fixture
def matcher(tmp_path):
    return standard_book(tmp_path)


OOM_THEN_RETRY = """[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.20 GiB is free.
[rank0]: Reducing the batch size to 16 and retrying
[rank0]:{'loss': 0.9871, 'grad_norm': 2.7, 'learning_rate': 4.8e-05, 'epoch': 0.5}
"""


@pytest.mark.parametrize(
    "finish",
    [
        "[rank0]:{'train_runtime': 3621.4, 'train_samples_per_second': 88.4, 'train_loss': 1.2214, 'epoch': 3.0}\n",
        "[rank0]:\n[rank0]:\n[rank0]:Training completed. Do not forget to share your model on huggingface.co/models =)\n",
        "INFO:pytorch_lightning.utilities.rank_zero:`Trainer.fit` stopped: `max_epochs=20` reached.\n",
        "I0611 11:02:44.120000 2301 torch/distributed/elastic/agent/server/api.py:879] [default] worker group "
        "successfully finished. Waiting 300 seconds for other agents to finish.\n",
        "INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (SUCCEEDED). Waiting 300 seconds "
        "for other agents to finish\n",
    ],
)
def test_an_error_before_a_clean_finish_gives_no_diagnosis(matcher, finish):
    d = matcher.diagnose(OOM_THEN_RETRY + finish)
    assert d.matches == [] and d.unmatched is None and d.initiating_rank is None


def test_without_the_finish_the_same_lines_are_a_failure(matcher):
    assert matcher.diagnose(OOM_THEN_RETRY).matches[0].id == "oom"


def test_a_failure_after_the_finish_is_still_one(matcher):
    """Training completed, then saving the model ran out of memory: that is the failure."""
    log = (
        "[rank0]:Training completed. Do not forget to share your model on huggingface.co/models =)\n"
        "[rank0]:Saving model checkpoint to /out/final\n"
        "[rank0]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB.\n"
    )
    assert matcher.diagnose(log).matches[0].id == "oom"


def test_an_error_line_after_the_finish_keeps_the_diagnosis(matcher):
    """A later error no rule knows means the run did not end well after all."""
    log = OOM_THEN_RETRY + (
        "[rank0]:{'train_runtime': 3621.4, 'train_samples_per_second': 88.4, 'train_loss': 1.2214, 'epoch': 3.0}\n"
        "[rank0]:Traceback (most recent call last):\n"
        "[rank0]:OSError: [Errno 122] Disk quota exceeded: '/out/final/model.safetensors'\n"
    )
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom"


def test_a_recovered_traceback_before_the_finish_is_not_quoted(matcher):
    """No rule matched, and the traceback was caught and retried: nothing to report."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.10/site-packages/urllib3/connectionpool.py", line 537, in _make_request\n'
        "TimeoutError: The read operation timed out\n"
        "Retrying in 1s [Retry 1/5].\n"
        "{'train_runtime': 812.3, 'train_samples_per_second': 12.1, 'train_loss': 1.01, 'epoch': 1.0}\n"
    )
    d = matcher.diagnose(log)
    assert d.matches == [] and d.unmatched is None
    assert matcher.diagnose(log.rsplit("{", 1)[0]).unmatched == "TimeoutError: The read operation timed out"


def test_slurmstepds_lwp_race_is_not_the_unmatched_error(matcher):
    log = (
        "slurmstepd: error: _is_a_lwp: open() /proc/41037/status failed: No such file or directory\n"
        "[rank0]:step 100 loss 1.02\n"
    )
    d = matcher.diagnose(log)
    assert d.matches == [] and d.unmatched is None
    assert matcher.diagnose(log + "slurmstepd: error: *** JOB 4242 ON gpu-7 CANCELLED AT 2024-05-01T10:00:00 ***\n").unmatched
