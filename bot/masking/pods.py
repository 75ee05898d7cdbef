"""Logins that Kubernetes shows only in the names of a person's pods and namespaces.

A cluster's users name their workloads after themselves: `alice-train-7f9c8d-x2k4q` (a
Deployment's pod), `alice-bert-ft-worker-0` (a PyTorchJob's worker), in a namespace
`alice-dev`, and often nothing else in the log says whose they are. The login is read where
kubectl prints a pod's name (a `kubectl get pods` row, `pod/<name>`, `kubectl logs <name>`,
the scheduler's `Successfully assigned <namespace>/<name>`) and the NAMESPACE column of
`kubectl get pods -A`, masked and learned, so it goes wherever else the log prints it. A pod's
first word counts only when it reads as a person's login on its own (owners.person_login):
`coredns-5d78c9869d-abcde`, `train-job-worker-0`, `kserve-controller-0` are kept.
"""

from __future__ import annotations

import re

from bot.masking.edits import Edit
from bot.masking.lines import starts_line
from bot.masking.owners import person_login, take_namespace
from bot.masking.state import LogState

# A row of `kubectl get pods` (NAME READY STATUS ...), with -A a NAMESPACE cell first: cells
# at least two blanks apart, READY as `0/1`.
_POD_ROW = re.compile(
    r"(?:(?P<ns>[a-z0-9][a-z0-9-]{1,62})[ \t]{2,})?(?P<pod>[a-z0-9][a-z0-9.-]{1,252})[ \t]{2,}[0-9]{1,3}/[0-9]{1,3}[ \t]{2,}[A-Za-z]"
)
# Where kubectl and its events name a pod: `pod/<name>`, an API path's `pods/<name>`, `pod
# "<name>"`, `kubectl logs [-n ns] <name>`, `Successfully assigned <ns>/<name> to <node>`, and
# kubelet's back-off (`Back-off restarting failed container <c> in pod <name>_<ns>(<uid>)`, its
# klog error's `restarting failed container=<c> pod=<name>_<ns>(<uid>)`: format.Pod's rendering).
_POD_REF = re.compile(
    r"(?:(?<![\w-])pods?/|(?<![\w-])[Pp]ods?[ \t]+\"|Successfully assigned (?P<ns>[a-z0-9][a-z0-9-]{1,62})/"
    r"|failed container(?:[ \t]+[\w.-]{1,63}[ \t]+in pod[ \t]+|=[\w.-]{1,63}[ \t]+pod=)"
    r"|kubectl[ \t]+(?:logs|exec|attach|port-forward)(?:[ \t]+(?:-c|-n|--namespace|--container)[ =][\w.-]{1,63}"
    r"|[ \t]+-[a-z]{1,3}|[ \t]+--[a-z-]{2,30}(?:=\S{1,63})?)*[ \t]+)"
    r"(?P<pod>[a-z0-9][a-z0-9.-]{1,252})(?:(?=_[a-z0-9-]{1,63}\()|(?![\w.-]))"
)
# The line gate (bot/masking/gate.py): a READY cell between wide gaps, or a word above.
POD_ROW_TRIGGER = r"[ \t][0-9]{1,3}/[0-9]{1,3}[ \t]{2,}[A-Za-z]"
POD_LINE_WORDS = ("pod", "successfully assigned", "kubectl")


def find_pod_owners(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the login a pod's name or a NAMESPACE cell carries."""
    for m in _POD_ROW.finditer(text):
        if starts_line(text, m.start()):  # (behind a launcher's prefix)
            _take(m, text, edits, state)
    for m in _POD_REF.finditer(text):
        _take(m, text, edits, state)


def _take(m: re.Match[str], text: str, edits: list[Edit], state: LogState) -> None:
    if m.group("ns") is not None:
        take_namespace(m.group("ns"), m.start("ns"), edits, state)
    pod = m.group("pod")
    parts = pod.split("-", 3)
    if any("-".join(parts[:n]) in state.users for n in (2, 3)):
        return  # `hannah-fischer-train-0` of a learned `hannah-fischer`: masked whole by that
    first = parts[0]
    if len(parts) > 1 and person_login(first):
        edits.append((m.start("pod"), m.start("pod") + len(first), "user", first))
        state.learn_user(first)
