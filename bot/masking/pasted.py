"""Rows of tool output pasted into a thread without the header the table code keys on.

A chat or an issue quotes two rows of `ps aux`, the reasons `sinfo -R` lists, or the lines of
`~/.ssh/known_hosts`; each row's own shape says which cell is a user or a machine.
"""

from __future__ import annotations

import re

from bot.masking.edits import Edit
from bot.masking.guards import declare, holds
from bot.masking.hosts import host_value_ok
from bot.masking.keys import TECHNICAL_USERS
from bot.masking.lines import LinePattern
from bot.masking.state import LogState

# The literals this module tests a whole piece for, found by one scan (guards.py).
declare("TIMESTAMP")

# `ps aux`: USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND. The run from %CPU to STAT
# is what only ps prints: two one-decimal percentages, two sizes, a terminal, a state code.
_PS_ROW = LinePattern(
    r"[ \t]*(?P<user>[A-Za-z_][\w.+-]{0,31})[ \t]+\d{1,10}[ \t]+\d{1,4}\.\d[ \t]+\d{1,3}\.\d[ \t]+\d{1,14}[ \t]+\d{1,14}"
    r"[ \t]+(?:\?|pts/\d{1,4}|tty\w{0,8}|console)[ \t]+[RSDZTIWXtLNsl<+]{1,8}[ \t]",
    behind_prefix=False,
)
# The gate of find_ps_rows (bot/masking/gate.py): %MEM, VSZ, RSS and the terminal.
PS_ROW_TRIGGER = r"\.[0-9?][ \t]+[0-9?]+[ \t]+[0-9?]+[ \t]+(?:\?|pts/|tty|console)"

# known_hosts: `host[,host...] keytype base64`, a host possibly `[host]:port`; a hashed entry
# (`|1|salt|hash`) names nothing. `@cert-authority`/`@revoked` markers lead some lines.
_KNOWN_HOSTS_ROW = LinePattern(
    r"[ \t]*(?:@[\w-]{1,20}[ \t]+)?(?P<hosts>[^\s|#@][^\s]{0,1000})[ \t]+"
    r"(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)[ \t]+AAAA",
    behind_prefix=False,
)
KNOWN_HOSTS_TRIGGER = r"(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp[0-9?]{3}|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)[ \t]+AAAA"
# Daemon accounts ps lists beside the people's (ps cuts a long name to `systemd+`).
_DAEMONS = frozenset(("daemon", "syslog", "slurm", "munge", "www-data", "polkitd", "chrony", "avahi", "colord", "rtkit", "_apt", "mysql", "redis"))
_PATTERN_HOST = re.compile(r"\[?([^\],:\s]+)\]?(?::\d{1,5})?")

# `sinfo -R` ("%20E %9u %19H %N"; `--long` adds the state): a free-text reason, then the user
# who set it, the time, and the nodes. The reason holds blanks, so the row is read from its end.
_REASON_HEADER = re.compile(r"^[ \t]*REASON[ \t]+USER[ \t]+TIMESTAMP[ \t]+(?:STATE[ \t]+)?NODELIST[ \t]*\r?$", re.M)
_REASON_ROW = re.compile(
    r"[ \t]*\S.{0,200}?[ \t](?P<user>[A-Za-z_][\w.+-]{0,31})[ \t]+(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|Unknown)"
    r"(?:[ \t]+[a-z]{1,12}[*~#!%$@^-]?)?[ \t]+(?P<nodes>[^\s]{1,1000})[ \t]*\r?\Z"
)


def find_ps_rows(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask and learn the USER of `ps aux` rows, with or without their header."""
    for m in _PS_ROW.finditer(text):
        user = m.group("user")
        if user.lower() not in TECHNICAL_USERS and user.lower() not in _DAEMONS and not user.endswith("+"):
            edits.append((m.start("user"), m.end("user"), "user", user))
            state.learn_user(user)


def find_known_hosts(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the host names (and learn them) that lead `known_hosts` lines; addresses are the IP rows'."""
    for m in _KNOWN_HOSTS_ROW.finditer(text):
        base = m.start("hosts")
        for part in re.finditer(r"[^,]+", m.group("hosts")):
            host = _PATTERN_HOST.fullmatch(part.group())
            if host is None or "*" in host.group(1) or "?" in host.group(1) or not host_value_ok(host.group(1)):
                continue
            if host.group(1).replace(".", "").isdigit() or host.group(1).startswith("<"):
                continue
            start = base + part.start() + host.start(1)
            edits.append((start, start + len(host.group(1)), "host", host.group(1)))
            state.learn_host(host.group(1))


def find_reason_rows(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the USER and NODELIST of the rows under a `sinfo -R` header, and learn them."""
    if not holds(text, "TIMESTAMP"):
        return
    for header in _REASON_HEADER.finditer(text):
        pos = header.end() + 1
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end == -1 else end
            m = _REASON_ROW.match(text[pos:end])
            if m is None:
                break
            user, nodes = m.group("user"), m.group("nodes")
            if user.lower() not in TECHNICAL_USERS:
                edits.append((pos + m.start("user"), pos + m.end("user"), "user", user))
                state.learn_user(user)
            for item in re.finditer(r"[^,\[]+(?:\[[^\]]*\][^,]*)?", nodes):
                if host_value_ok(item.group()):
                    edits.append((pos + m.start("nodes") + item.start(), pos + m.start("nodes") + item.end(), "host", item.group()))
                    if "[" not in item.group():
                        state.learn_host(item.group())
            pos = end + 1


# A hyphenated name (`kraken-ml`), or a numbered one (`r045`, `nid001234`, `kraken-ml7`).
_NUMBERED_NAME = r"(?P<host>[a-z][a-z0-9]{1,30}(?:-[a-z0-9]{1,30}){1,3}|(?P<head>[a-z]{1,10})\d{2,6})"
# The words a thread says a job died, hung or ran on a machine with (`job on gn036`).
# A sweep or a run is a job too (`the sweep on gn310 died again`).
_JOB_ON = r"(?:job|jobs|sweep|sweeps|run|runs|died|crashed|hung|hangs|failed|fails|stuck)[ \t]+(?:again[ \t]+)?on[ \t]+"
# A machine a sentence moves a job to or logs into, named without a number or a domain:
# `I moved the job to kraken-ml for now`, `ssh'd into thor-dev`, `rebooted hydra-gpu`.
_PROSE_HOST = re.compile(
    r"(?<![\w-])(?:ssh(?:'d|ed)?|logged|log|moved|move|moving|migrated|rescheduled|resubmitted|requeued|rebooted|drained|running|ran"
    r"|restarted|relaunched)"
    r"[ \t]+(?:(?:the|my|our|it|them|job|jobs|run|runs|training|back|over|in)[ \t]+){0,3}(?:to|on|onto|into|in)[ \t]+"
    + _NUMBERED_NAME + r"(?![\w/-]|\.\w)"
)
# A numbered machine a job is said to have died, hung or run on (`the llama-ft job on gn036
# died`, `crashed again on dgx07`): named once in a thread, with nothing else to say so.
_JOB_ON_HOST = re.compile(
    r"(?<![\w-])" + _JOB_ON + _NUMBERED_NAME + r"(?![\w/-]|\.\w)"
)
# A numbered machine a sentence says is in trouble (`kraken-ml7 is down again`, `gpu-a100-03
# keeps dropping out`), and one a mail's subject names (`Subject: Re: NCCL timeouts on
# kraken-ml7`): a hyphenated name with a digit, or letters and a number.
_STATE_HOST = re.compile(
    r"(?<![\w./<>-])" + _NUMBERED_NAME + r"[ \t]+(?:is|was|keeps|kept|went|has[ \t]+been|seems|looks|got|is[ \t]+still)"
    r"[ \t]+(?:\w+[ \t]+)?(?:down|offline|unreachable|dropping|flapping|rebooting|hung|stuck|draining|drained|dead"
    r"|unresponsive|failing|throwing|broken|sick|flaky|crashing|out|acting)\b"
)
# A model's size (`mistral-7b`, `qwen2-72b-instruct`) or a GPU product's form (`h100-sxm5`,
# `a100-80gb`) as a word after the first.
_MODEL_SIZE = re.compile(r"-(?:\d{1,4}(?:\.\d)?[bmk]|\d{1,3}x\d{1,3}b|sxm\d?|pcie|nvl|\d{2,3}gb)(?:-|\Z)")
_SUBJECT_LINE = re.compile(r"(?<![\w-])Subject:[^\n]*")  # (behind a launcher's `[rank3]:` too)
_SUBJECT_HOST = re.compile(r"(?<![\w./<>@:-])" + _NUMBERED_NAME + r"(?![\w/@-]|\.\w|:\d)")
# First words of a hyphenated name that is a model, a library or a version, not a machine
# (`Subject: llama-3 eval on kraken-ml7`: only the second is a machine).
_MODEL_HEADS = frozenset(
    ("llama", "gpt", "qwen", "qwen2", "mistral", "mixtral", "gemma", "gemma2", "phi", "bert", "t5", "mt5", "falcon", "claude",
     "opt", "bloom", "pythia", "deepseek", "olmo", "yi", "vit", "clip", "whisper", "sd", "sdxl", "resnet", "yolo", "mpt",
     "flan", "roberta", "deberta", "xlm", "cuda", "cudnn", "nccl", "torch", "python", "py", "ubuntu", "rocm", "gcc", "cu",
     "sm", "llava", "codellama", "starcoder", "internlm", "glm", "chatglm", "baichuan", "stablelm", "vicuna", "alpaca",
     "step", "epoch", "rank", "run", "exp", "job", "v", "rc", "release", "issue", "pr", "ticket", "inc", "jira", "ops",
     "week", "day", "sprint", "part", "phase", "iter", "batch", "round", "wave", "task", "build", "stage", "zero", "fp",
     # Data sets a run is said to be on (`the sweep on cifar100`, `a run on wiki103`).
     "cifar", "mnist", "wiki", "wikitext", "imagenet", "coco", "voc", "ade", "kinetics", "squad", "glue", "xsum",
     # and the settings it is said to be on (`the run on seed-42`, `the sweep on lr-3e4`).
     "seed", "lr", "fold", "shard", "split", "config", "cfg", "ckpt", "checkpoint")
)  # fmt: skip
PROSE_HOST_TRIGGER = (
    r"(?:ssh|logged|log|mov|migrated|rescheduled|resubmitted|requeued|rebooted|drained|running|ran|restarted|relaunched)"
    r"[a-z']*[ \t]+(?:[a-z]+[ \t]+){0,3}(?:to|on|onto|into|in)[ \t]+[a-z][a-z0-9]*[-0-9]"
    r"|[0-9][ \t]+(?:is|was|keeps|kept|went|has|seems|looks|got)[ \t]|Subject:"
    + "|" + _JOB_ON + r"[a-z][a-z0-9]*[-0-9]"
)
# `gpu` names a machine with three digits, a leading zero or a number past 15 (`gpu017`,
# `gpu07`, `gpu49`); `gpu0` to `gpu15` are a node's devices (as hosts.py reads them).
_NUMBERED_GPU_NODE = re.compile(r"gpu(?:\d{3,6}|0\d|1[6-9]|[2-9]\d)\Z")
# First words of a hyphenated term that is a mode or a setting, not a machine (`moved to bf16-mixed`).
_NOT_MACHINE_HEADS = frozenset(
    ("multi", "single", "bf16", "fp16", "fp8", "fp32", "mixed", "half", "full", "data", "model", "pipeline", "tensor",
     "non", "pre", "post", "auto", "self", "out", "up", "cpu", "cuda", "torch", "zero", "stage", "per", "sub", "new",
     "old", "main", "release", "feature", "fix", "hot", "cold", "warm", "long", "short", "high", "low")
)  # fmt: skip
# Letters before a number that name a precision, a device, a version or a count, not a machine
# (`ran in fp16`, `running on cuda01`, `moved to py311`, `restarted on step 40` has a blank).
_NOT_NUMBERED_HEADS = frozenset(
    ("fp", "bf", "int", "uint", "float", "cuda", "cu", "sm", "py", "python", "v", "rank", "step", "epoch", "iter",
     "layer", "port", "dev", "device", "tp", "pp", "dp", "ep", "cp", "zero", "stage", "top", "k", "x", "n", "h",
     "a", "t", "p", "e", "gpu", "cpu", "mlx", "ib", "eth", "en", "em", "hsn", "sd", "nvme", "rtx", "gtx")
)  # fmt: skip


def find_prose_hosts(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the machine a sentence moves a job to, logs into or says is in
    trouble, and a numbered machine a mail's subject names."""
    for m in _PROSE_HOST.finditer(text):
        _take_host(m, False, edits, state)
    if " on " in text:
        for m in _JOB_ON_HOST.finditer(text):
            _take_host(m, True, edits, state)  # (numbered: `failed on step-1200` is no machine)
    if " is" in text or " was" in text or " ke" in text or " went" in text or " has" in text or " seems" in text or " looks" in text or " got" in text:
        for m in _STATE_HOST.finditer(text):
            _take_host(m, True, edits, state)
    if "Subject:" in text:
        for line in _SUBJECT_LINE.finditer(text):
            for m in _SUBJECT_HOST.finditer(text, line.start(), line.end()):
                _take_host(m, True, edits, state)


def _take_host(m: re.Match[str], numbered: bool, edits: list[Edit], state: LogState) -> None:
    """Mask and learn `m`'s host unless it is a mode, a precision or a device; `numbered`:
    only a name with a digit in it, and not a model's or a version's."""
    host = m.group("host")
    head = m.group("head")
    if head is not None and (head in _NOT_NUMBERED_HEADS and not _NUMBERED_GPU_NODE.match(host)):
        return
    first = host.split("-", 1)[0]
    if first in _NOT_MACHINE_HEADS or not host_value_ok(host):
        return
    if numbered and (first.rstrip("0123456789") in _MODEL_HEADS or not any(c.isdigit() for c in host) or _MODEL_SIZE.search(host)):
        return
    edits.append((m.start("host"), m.end("host"), "host", host))
    state.learn_host(host)
