"""The prefixes launchers put in front of every line a process prints, in one place.

The matcher reads the rank and host out of them (`bot/matcher/lines.py`). The masker lets a
line-anchored detector (a YAML `password:` line, a hostfile row, `/etc/hosts`, `uname -a`)
start behind them (`bot/masking/lines.py`): a config a rank prints under torchrun reads
`[rank0]:  password: ...`, under `srun -l` ` 3:   password: ...`.
"""

from __future__ import annotations

import re

# PyTorch >= 2.2 `[rank3]:` and torchrun --tee `[default3]:` (role name + local rank).
TORCH_RANK = r"\[(?:rank|default|[a-z_]{1,20}?)(?P<rank>\d{1,6})\]:"
# MPI --tag-output `[1,3]<stderr>:` (job id, rank).
MPI_RANK = r"\[\d+,(?P<rank>\d{1,6})\]<std(?:out|err)>:"
# srun --label `3: `.
SRUN_LABEL = r"(?P<rank>\d{1,5}): "
# In the order a reader tries them at one position.
RANK_PREFIXES = (TORCH_RANK, MPI_RANK, SRUN_LABEL)
# pdsh and DeepSpeed's multi-node launcher: `worker-3: ` before what that host's process printed.
PDSH_HOST = r"(?P<host>[A-Za-z0-9][\w.-]{0,62}): "
# Ray, before each actor's output: `(RayTrainWorker pid=2893, ip=10.0.0.1) `. On a terminal Ray
# colours it (`\x1b[36m(...)\x1b[0m `); pasted from a notebook or a web console the escape byte is
# often lost and `[36m(...)[0m ` stays. The pid names a rank once Ray Train's worker list has.
RAY_ACTOR = (
    r"(?:\x1b?\[\d{1,3}(?:;\d{1,3}){0,4}m)?"
    r"\((?P<actor>[A-Za-z_][\w.:]{0,80}) pid=(?P<pid>\d{1,9})(?:, ip=[^)\s]{1,64})?\)(?:\x1b?\[0?m)? "
)

# `kubectl logs --timestamps`, `docker logs -t` and log exports (CloudWatch, Loki) put an RFC 3339
# time before every line a container printed: `2024-05-11T10:46:24.123456789Z ps aux` rows,
# GECOS lines and tables then start behind it.
CONTAINER_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)? "


def _unnamed(fragment: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", fragment)


# The label pdsh, `srun -l` or Ray puts first on a line, for a pattern that reads what follows
# it (NCCL's prefix, bot/masking/hosts.py) and can afford no more: no groups. (Trying the whole
# stack below at every line start costs a log of non-NCCL lines ~3 ms a MB more.) Ray's, or
# every NCCL line of a Ray log was a "leftover" the masker looked for colon by colon.
LAUNCHER_LABEL = "(?:" + _unnamed(PDSH_HOST) + "|[ \\t]*" + _unnamed(SRUN_LABEL) + "|" + _unnamed(RAY_ACTOR) + ")"

# Any stack of them (`worker-1: [rank9]:`, `[default0]:[rank12]:`, right-aligned ` 3: `, a Ray
# actor's `(RayTrainWorker pid=9, ip=..) `), for a pattern that only needs to get past them: no
# groups.
LINE_PREFIX = (
    "(?:" + CONTAINER_TIME + ")?"
    + "(?:" + _unnamed(PDSH_HOST) + "|" + _unnamed(RAY_ACTOR) + ")?"
    + "(?:[ \\t]*(?:" + "|".join(_unnamed(p) for p in RANK_PREFIXES) + ")){0,3}"
)
