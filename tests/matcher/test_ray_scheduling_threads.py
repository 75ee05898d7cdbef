"""Ray jobs that wait for resources, or lose their nodes, as users pasted them into issue threads.

Before ray-resources-unschedulable and the autoscaler's node notice in sigterm-preemption, none
of these excerpts produced a diagnosis: the job hung or died with no error naming a cause.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.matcher import default_matcher

ROOT = Path(__file__).resolve().parents[2]
MATCHER = default_matcher(ROOT / "rules")

# rllm-org/rllm#35: an 8-GPU STRICT_PACK group on a node where Ray saw one GPU
RLLM_STRICT_PACK = """\
(autoscaler +34s) Error: No available node types can fulfill resource request defaultdict(<class 'float'>, {'CPU': 8.0, 'GPU': 8.0}). Add suitable node types to this cluster to resolve this issue.

Resources
---------------------------------------------------------------
Usage:
 0.0/112.0 CPU
 0.0/1.0 GPU

Demands:
 {'GPU': 1.0, 'CPU': 1.0} * 8 (STRICT_PACK): 1+ pending placement groups
"""

# gpustack/gpustack#5509: vLLM's Ray executor waiting for two one-GPU bundles
VLLM_PLACEMENT_WAIT = (
    "(EngineCore pid=84) INFO 06-07 18:13:55 [ray_utils.py:464] Waiting for creating a placement group of "
    "specs for 150 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` and `ray list nodes` to "
    "see if you have enough resources, and make sure the IP addresses used by ray cluster are the same as "
    "VLLM_HOST_IP environment variable specified in each node if you are running on a multi-node.\n"
)

# NovaSky-AI/SkyRL#1688: pods terminated by Kubernetes first, the placement group failure after
SKYRL_POD_TERMINATION = """\
(autoscaler +44m27s) Instance k-1a5e56fa0001 (node IP: 10.1.140.199) will be terminated soon (reason: kubernetes-pod-termination).
(autoscaler +44m27s) [autoscaler] Cluster resized to {184 CPU, 8 GPU}.
(autoscaler +44m27s) Instance k-6e0b1ffb0000 (node IP: 10.1.39.138) will be terminated soon (reason: kubernetes-pod-termination).
Traceback (most recent call last):
  File ".../skyrl/train/utils/utils.py", line 801, in get_ray_pg_ready_with_timeout
    raise RuntimeError(
RuntimeError: Failed to create placement group with 1 bundles (requiring 2.0 GPUs, 1.0 CPUs total) in 180
"""

# ray-project/ray#47759: a Ray Train worker that started and died is not a placement problem
RAY_TRAIN_WORKER_DIED = """\
ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.
\tclass_name: RayTrainWorker
\tactor_id: f2520e7442c3968c34db544c01000000
\tpid: 43514
The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.
"""


@pytest.mark.parametrize(
    ("expected", "log"),
    [
        ("ray-resources-unschedulable", RLLM_STRICT_PACK),
        ("ray-resources-unschedulable", VLLM_PLACEMENT_WAIT),
        ("sigterm-preemption", SKYRL_POD_TERMINATION),
        ("ray-actor-died", RAY_TRAIN_WORKER_DIED),
    ],
    ids=["rllm-strict-pack", "vllm-placement-wait", "skyrl-pod-termination", "ray-train-worker-died"],
)
def test_ray_thread_names_the_first_cause(expected: str, log: str) -> None:
    d = MATCHER.diagnose(log)
    assert d.root is not None and d.root.id == expected, [m.id for m in d.matches]


def test_a_dead_worker_is_not_read_as_a_scheduling_wait() -> None:
    d = MATCHER.diagnose(RAY_TRAIN_WORKER_DIED)
    assert "ray-resources-unschedulable" not in [m.id for m in d.matches]


def test_the_autoscaler_tip_alone_names_nothing() -> None:
    d = MATCHER.diagnose(
        "(autoscaler +10s) Tip: use `ray status` to view detailed cluster status. "
        "To disable these messages, set RAY_SCHEDULER_EVENTS=0.\n"
    )
    assert d.root is None, [m.id for m in d.matches]
