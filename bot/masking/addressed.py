"""People a note or a chat names with nothing else around them: the speaker of a pasted chat
line, the person a note says to ask or escalate to, the owner of a `TODO(...)`.

    [10:42] Aoife Mbeki: @chidi.okonkwo the run on the H100 pool died again
    # NOTE: ask Minh before restarting the job
    Escalate to Joaquín Muñoz or Ananya Iyer if loss goes NaN again
    // TODO(oluwaseun): remove after the NCCL upgrade

A chat line's speaker and an asked person are masked as `<NAME-n>` when the name reads as a
person's: its given name (accents dropped) is one the list knows, or its family name is
(`bot/masking/buckets.py`, `bot/masking/surnames.py`); `[10:42] Training Loss: 0.51` and
`ask Support before ...` name nobody. A `TODO(...)` owner is a login by the convention that
writes it (Google's style guides) when it reads as one, masked as `<USER-n>`; all are learned for the rest of the log.
"""

from __future__ import annotations

import re

from bot.masking.buckets import GIVEN_NAMES
from bot.masking.edits import Edit
from bot.masking.keys import TECHNICAL_USERS
from bot.masking.names import FULL_NAME, NOT_A_PERSON, take_name, written_as_name
from bot.masking.owners import names_a_tool, person_login
from bot.masking.state import LogState, ascii_folded
from bot.masking.surnames import FAMILY_NAMES

# One to four words of a name, as names.py reads them (`Siobhán Ní Bhriain`, `Ciarán O'Sullivan`).
_ARTICLE = re.compile(r"\A(?:al|el|ul|ad|ash|as|at|az|an|ar)-")
# One word is enough here (`ask Minh`, `[10:44] Wei: ...`): the lists decide.
_NAME = FULL_NAME.replace("(?P<name>", "(?:", 1).replace(")){1,3}", ")){0,3}", 1)
# A chat client's copy: the clock in brackets (a date before it in some exports), the speaker, a
# colon and the message: `[10:42] Aoife Mbeki: ...`, `[2024-03-12 10:42] Wei: ...`.
_SPEAKER = re.compile(
    r"\[(?:\d{4}-\d\d-\d\d[ T])?\d{1,2}:\d\d(?::\d\d)?\][ \t]+(?P<name>" + _NAME + r"):[ \t]+(?P<said>\S[^\n]*)"
)
# What a person says in a chat: three words or more, the first of letters or a mention
# (`still OOM on node 3`, `@khue can you restart`), not a value a program prints under a
# label (`Training Loss: 0.51`, `Eval Accuracy: nan`).
_SAID = re.compile(r"(?:[^\W\d_][\w'’-]*,?|@\S+)(?:[ \t]+[^\s]+){2}")
# Capitalised words a program writes before a colon in a bracketed line (`[10:42] Eval Loss:`):
# metrics and the parts of a run, which no person is named.
_LOG_LABEL_WORDS = frozenset(
    ("loss", "losses", "accuracy", "acc", "eval", "evaluation", "validation", "val", "test", "train", "learning", "rate",
     "epoch", "step", "steps", "memory", "usage", "gpu", "cpu", "disk", "throughput", "tokens", "batch", "speed", "time",
     "elapsed", "progress", "model", "dataset", "config", "optimizer", "scheduler", "grad", "gradient", "norm", "total",
     "mean", "average", "best", "current", "global", "local", "rank", "worker", "process", "server", "request",
     "response", "result", "results", "output", "input", "message", "note", "warning", "debug", "trace", "exception",
     "reward", "score", "metric", "metrics", "perplexity", "sample", "samples", "prompt", "answer", "question",
     "user", "assistant", "system", "human", "agent", "tool", "observation", "thought", "action", "final",
     "git", "commit", "branch", "version", "host", "port", "path", "file", "directory", "dir", "state", "mode",
     "level", "cache", "seed", "device", "driver", "kernel", "image", "container", "pod", "namespace",
     "deployment", "region", "zone", "bucket", "split", "shard", "tokenizer", "vocab", "precision", "dtype",
     "backend", "strategy", "plugin", "callback", "logger", "resume", "restart", "retry", "timeout", "peak",
     "max", "min", "last", "next", "first", "new", "old", "free", "used", "queue", "task", "stage", "phase",
     "warn", "err", "fatal", "panic", "notice", "cuda", "nccl", "gloo", "mpi")
)  # fmt: skip
# Endings of English words, not of the names a chat shows (`Training`, `Validation`, `Fitness`).
_WORD_ENDS = ("ing", "tion", "sion", "ment", "ness", "ity", "ics")


def _said_by_person(name: str, said: str) -> bool:
    """A chat line whose speaker is no list's name reads as a person's by its shape: a given
    and a family name, capitalised words neither a program's label nor English-shaped, then
    words of prose. (`[10:42] Khue Lac: still OOM on node 3`; not `[10:42] Eval Loss: nan`.)"""
    words = name.split()
    if not 2 <= len(words) <= 4 or _SAID.match(said) is None:
        return False
    for word in words:
        lowered = word.lower()
        if lowered in NOT_A_PERSON or lowered in _LOG_LABEL_WORDS or (len(word) > 5 and lowered.endswith(_WORD_ENDS)):
            return False
    return True
# The verbs a note names whom to turn to with: `ask Minh`, `escalate to Emeka Obi or Fatima Haddad`,
# `also looping in Sione Taufa from infra`.
_ASK = (
    r"(?:[Aa]sk|[Ee]scalate to|[Nn]otify|[Rr]each out to|[Cc]heck with|[Tt]alk to|[Cc]ontact|[Pp]age|[Ll]oop(?:ing|ed)? in|[Tt]ell)"
)
_ASKED = re.compile(
    r"(?<![\w@])" + _ASK + r"[ \t]+(?P<name>" + _NAME + r")(?:[ \t](?:or|and|&)[ \t](?P<also>" + _NAME + r"))?(?![\w'’-])"
)
# A mail's or a ticket's copy list names people one after another: `cc: Radomir Wojciechowski,
# Svetlana Ibragimova`, as a meeting's notes do (`Attendees: Ngozi Eze, Tobias Fairweather`). Each item is a name of its own (the first is no more a person than the
# rest); an address in angle brackets after one is left to the e-mail row.
_CC_LABELS = r"(?:cc|CC|Cc|[Bb]cc|BCC|Attendees|Participants|Recipients)"
_CC_HEAD = re.compile(r"(?<![\w-])" + _CC_LABELS + r"[ \t]*:[ \t]*(?=[A-Z])")
_CC_ITEM = re.compile(r"(?P<name>" + _NAME + r")(?:[ \t]*<{1,2}[^<>\s]{1,80}>{1,2})?[ \t]*(?:[,;]|[ \t](?:and|&)[ \t]|$)[ \t]*", re.M)
# Whom a thread quotes: `Sigrun said the IB link flapped`, `as Bayarmaa mentioned, ...`. A
# capitalised word before a verb of speech is a person's name but for a pronoun or a thing
# (`It said`, `That said,`, `Nobody said`, `The docs said`: lowercase, no capital).
_SPEECH = r"(?:said|says|mentioned|suggested|reported|confirmed|noticed|wrote|replied|pointed out)"
_SAID_BY = re.compile(r"(?<![\w@/.<-])(?P<name>" + _NAME + r")[ \t]+" + _SPEECH + r"(?![\w-])")
# An article or a possessive before a capitalised word makes it a role or a thing (`the Prof`).
_ARTICLE_BEFORE = re.compile(r"(?<![\w-])(?i:the|a|an|our|my|your|their|his|her|this|that)[ \t]+\Z")
_NOT_SPEAKERS = frozenset(
    ("he", "she", "they", "it", "we", "i", "you", "who", "which", "what", "nobody", "somebody", "someone", "anyone",
     "everyone", "everybody", "one", "docs", "doc", "readme", "manual", "log", "logs", "message", "error", "output",
     "google", "nvidia", "microsoft", "meta", "openai", "anthropic", "amazon", "aws", "azure", "gcp", "slack",
     "github", "gitlab", "pytorch", "torch", "someone's", "vendor", "support", "also", "as", "just", "then",
     # Programs and services a thread quotes as saying things (`Docker said permission denied`).
     "docker", "podman", "kubectl", "kubernetes", "kubelet", "k8s", "helm", "pip", "conda", "mamba", "uv", "poetry",
     "python", "linux", "ubuntu", "debian", "centos", "rhel", "windows", "macos", "systemd", "dmesg", "journalctl",
     "kernel", "bash", "ssh", "git", "nccl", "cuda", "nvcc", "gcc", "clang", "bazel", "cmake", "ninja", "numpy",
     "transformers", "accelerate", "deepspeed", "torchrun", "hydra", "horovod", "nemo", "apex", "lightning", "keras",
     "tensorflow", "jax", "xla", "sentry", "datadog", "pagerduty", "opsgenie", "grafana", "prometheus", "alertmanager",
     "slurm", "slurmctld", "slurmd", "munge", "lustre", "weka", "karpenter", "volcano", "kueue", "ray", "coreweave",
     "lambda", "runpod", "modal", "colab", "kaggle", "sagemaker", "vertex", "gemini", "chatgpt", "gpt", "bard",
     "claude", "copilot", "cursor", "stackoverflow", "reddit", "discord", "jira", "confluence", "ci", "jenkins",
     "trainer", "wandb", "mlflow", "tensorboard", "the", "this", "that", "and", "but", "so")
)  # fmt: skip
# `TODO(hfischer):`, `FIXME(hfischer)`: the login of the one who left it.
_TODO = re.compile(r"\b(?:TODO|FIXME|XXX|HACK|NOTE)\((?P<user>[a-z][a-z0-9._-]{1,31})\)")
# What a TODO names when it names no one: a topic, a stage, a component (`TODO(perf)`).
_TODO_TOPICS = frozenset(
    ("perf", "performance", "cleanup", "refactor", "security", "later", "docs", "doc", "tests", "test", "testing",
     "upstream", "someday", "bug", "bugfix", "fix", "hack", "compat", "compatibility", "deprecation", "deprecated",
     "optim", "optimize", "optimization", "speed", "memory", "mem", "cuda", "nccl", "gpu", "tpu", "cpu", "xla",
     "dist", "distributed", "ddp", "fsdp", "zero", "windows", "linux", "mac", "macos", "python", "typing", "types",
     "lint", "style", "format", "api", "ux", "ui", "migration", "release", "future", "next", "followup", "scale",
     "infra", "oss", "internal", "sdk", "rocm", "amp", "quant", "quantization", "eval", "data", "config", "logging",
     "cache", "io", "todo", "urgent", "important", "temp", "tmp", "wip", "remove", "maybe", "unknown",
     "me", "you", "us", "team", "anyone", "someone", "all", "here", "mps", "hpu", "npu", "tf", "jax", "torch")
)  # fmt: skip
# The line gate (bot/masking/gate.py): each shape's literal head, ASCII as the gate reads it.
ADDRESSED_TRIGGER = (
    r"\[(?:[0-9]{4}-[0-9]{2}-[0-9]{2}[ T])?[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?\][ \t]+[A-Z?]"
    r"|" + _ASK + r"[ \t]+[A-Z?]"
    r"|(?:TODO|FIXME|XXX|HACK|NOTE)\([a-z]"
    r"|[A-Z?][a-z?'-]{1,40} " + _SPEECH
    + r"|(?:^|[^a-zA-Z0-9_-])" + _CC_LABELS + r"[ \t]*:[ \t]*[A-Z?]"
)


def _person(name: str) -> bool:
    """A name of a person the lists know: its given name, or its family name, and no word of a
    thing, a system or an event (`Training Loss`, `Platform Team`)."""
    words = name.split()
    lowered = [w.lower() for w in words]
    if any(w in NOT_A_PERSON for w in lowered):
        return False
    folded = [ascii_folded(w).replace("'", "").replace("’", "") for w in words]
    if folded[0] in GIVEN_NAMES:
        return True
    # An Arabic family name's article is written joined by a hyphen: `Al-Rashid`, `El-Amin`.
    family = _ARTICLE.sub("", folded[-1])
    return len(words) > 1 and family in FAMILY_NAMES


def named_by_shape(name: str) -> bool:
    """A name no list knows that still reads as one: capitalised words, none a thing's, a
    program's label, a pronoun or English-shaped (`Bayarmaa`, `Sione Taufa`; not `Training`)."""
    for word in name.split():
        lowered = word.lower()
        if (
            lowered in NOT_A_PERSON
            or lowered in _LOG_LABEL_WORDS
            or lowered in _NOT_SPEAKERS
            or lowered in TECHNICAL_USERS
            or names_a_tool(lowered)
            or (len(word) > 5 and lowered.endswith(_WORD_ENDS))
            or not written_as_name(word)
        ):
            return False
    return True


# A login a cluster hands out as a name and a number (`oguz42`, `hyunwoo83`), not a tool's version
# or a tracker's item (`cuda12`, `python311`, `issue123`, `phase2`).
_NUMBERED_LOGIN = re.compile(r"(?P<stem>[a-z]{3,20})[0-9]{1,4}\Z")
_NUMBERED_THINGS = frozenset(("issue", "bug", "ticket", "jira", "phase", "step", "epoch", "stage", "milestone", "sprint",
                              "release", "float", "bfloat", "uint", "int", "python", "ubuntu", "debian", "centos", "rhel",
                              "ver", "version", "part", "task", "item", "pr", "mr", "run", "exp", "test", "case"))  # fmt: skip


def _numbered_login(user: str) -> bool:
    m = _NUMBERED_LOGIN.match(user)
    return m is not None and m.group("stem") not in _NUMBERED_THINGS and not names_a_tool(m.group("stem"))


def find_addressed_names(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) chat speakers, the people a note says to ask, and TODO owners."""
    for m in _SPEAKER.finditer(text):
        if _person(m.group("name")) or _said_by_person(m.group("name"), m.group("said")):
            take_name(text, m.start("name"), m.group("name"), edits, state)
    for m in _ASKED.finditer(text):
        for group in ("name", "also"):
            name = m.group(group)
            # (Two words or more read as a name by their shape too: `loop in Sione Taufa`.)
            if name and (_person(name) or (" " in name and named_by_shape(name))):
                take_name(text, m.start(group), name, edits, state)
    for head in _CC_HEAD.finditer(text):
        pos = head.end()
        while pos < len(text) and (item := _CC_ITEM.match(text, pos)) is not None and item.end() > pos:
            name = item.group("name")
            if _person(name) or (" " in name and named_by_shape(name)):
                take_name(text, item.start("name"), name, edits, state)
            pos = item.end()  # (the line's end stops it: no name starts with a newline)
    for m in _SAID_BY.finditer(text):
        # (A capitalised word opening the sentence is no part of the name: `Then Hannah said`.)
        words = m.group("name").split()
        while len(words) > 1 and words[0].lower() in _NOT_SPEAKERS:
            words.pop(0)
        name = " ".join(words)
        if _ARTICLE_BEFORE.search(text, max(0, m.start() - 8), m.end("name") - len(name)) is not None:
            continue  # `the Prof said`, `our PI mentioned`: a role, not a name
        if _person(name) or named_by_shape(name):
            take_name(text, m.end("name") - len(name), name, edits, state)
    for m in _TODO.finditer(text):
        user = m.group("user")
        # A topic or a ticket is written there too (`TODO(perf)`, `TODO(b/123)`): a login only.
        if user in TECHNICAL_USERS or user in NOT_A_PERSON:
            continue
        if person_login(user) or user in state.users or _numbered_login(user) or user in FAMILY_NAMES:
            edits.append((m.start("user"), m.end("user"), "user", user))
            state.learn_user(user)
        elif user.isalpha() and user not in _TODO_TOPICS and not names_a_tool(user):
            # An owner no list knows (`TODO(nakashima)`) is still the convention's login, masked
            # here; not learned, since a topic the list below lacks would go everywhere with it.
            edits.append((m.start("user"), m.end("user"), "user", user))
