"""Account names that a person's things carry: git branch prefixes, Kubernetes namespaces,
JupyterHub's server pods, container names.

Teams name what belongs to a person after them: a branch `hfischer/fix-oom` (git's own
convention for personal branches), a namespace `user-hfischer` (Kubeflow profiles, JupyterHub
on Kubernetes), a container `hfischer_train` in `docker ps`. Often nothing else in the log says
whose they are, so the login is learned from them and masked wherever it recurs (its pods,
`docker logs hfischer_train`). Only the owner part is taken, and only when it reads as a
login: a branch type (`feature/`), a model (`llama3/`) or a team (`ml-platform`) is kept.
"""

from __future__ import annotations

import re

from bot.masking.buckets import GIVEN_NAMES
from bot.masking.edits import Edit
from bot.masking.keys import TECHNICAL_USERS, team_like
from bot.masking.publishers import SHORT_FAMILIES
from bot.masking.state import LogState
from bot.masking.surnames import FAMILY_NAMES

# Words that prefix a branch, name a namespace or a container, or a model, a tool or a
# service: none is a person's login.
_NOT_LOGINS = frozenset(
    (
        # Branch types and git's own names.
        "feature", "feat", "features", "fix", "fixes", "bugfix", "bug", "hotfix", "release", "releases", "chore",
        "docs", "doc", "refactor", "test", "tests", "testing", "ci", "cd", "build", "perf", "exp", "experiment",
        "experiments", "wip", "dev", "develop", "development", "main", "master", "trunk", "dependabot", "renovate",
        "users", "user", "origin", "upstream", "tags", "heads", "pull", "pr", "gh-pages", "backup", "tmp", "temp",
        "sandbox", "staging", "stage", "prod", "production", "revert", "deps", "update", "updates", "style",
        "security", "cherry-pick", "copilot", "claude", "codex", "snyk", "changeset", "hf", "remotes", "refs",
        "cursor", "devin", "gh", "readonly", "queue", "auto", "automated", "sync", "mirror", "backport", "patch",
        "patches", "issue", "issues", "task", "tasks", "story", "epic", "spike", "poc", "demo", "draft", "old", "new",
        "archive", "legacy", "next", "canary", "beta", "alpha", "rc", "nightly", "stable", "lts",
        # Models, frameworks and methods a branch or a container is named for.
        "wandb", "mlflow", "ray", "llama", "mistral", "mixtral", "gpt", "bert", "roberta", "vit", "clip", "qwen",
        "gemma", "phi", "falcon", "deepseek", "olmo", "pythia", "opt", "bloom", "whisper", "sdxl", "flux", "moe",
        "rlhf", "dpo", "ppo", "grpo", "sft", "lora", "qlora", "fsdp", "deepspeed", "megatron", "nccl", "cuda", "rocm",
        "triton", "vllm", "tgi", "sglang", "jax", "torch", "pytorch", "tensorflow", "onnx", "trt", "tensorrt",
        "eval", "evals", "bench", "benchmark", "data", "dataset", "datasets", "ops", "mlops", "model", "models",
        "train", "training", "trainer", "inference", "serve", "serving", "api", "ui", "web", "frontend", "backend",
        "config", "configs", "k8s", "helm", "terraform", "scripts", "tools", "utils", "notebook", "notebooks",
        "jupyter", "jupyterhub", "tensorboard", "vscode", "code",
        # Services and system namespaces.
        "redis", "postgres", "mysql", "mongo", "nginx", "kafka", "minio", "cache", "db", "default", "kube", "system",
        "monitoring", "logging", "cert", "manager", "operator", "gpu", "cpu", "kubeflow", "argo", "istio", "knative",
        "nvidia", "amd", "intel", "common", "lib", "app", "apps", "service", "services", "worker", "workers", "node",
        "nodes", "cluster", "spark", "dask", "airflow", "prefect", "dagster", "ingress", "grafana", "prometheus",
        "loki", "tempo", "jaeger", "elastic", "opensearch", "vault", "consul", "velero", "local", "debug", "base",
    )
)  # fmt: skip
_PARTS = re.compile(r"[-_.]")
_LOGIN = re.compile(r"[a-z][a-z0-9._-]{1,38}[a-z0-9]\Z")


def login_like(value: str) -> bool:
    """Whether `value` reads as a person's login: no part of it names a type, tool or team."""
    if _LOGIN.match(value) is None or value in TECHNICAL_USERS or team_like(value):
        return False
    parts = [p.rstrip("0123456789") for p in _PARTS.split(value)]
    return all(p and p not in _NOT_LOGINS and len(p) >= 2 for p in parts) and len(value.rstrip("0123456789")) >= 3


# git: `remotes/origin/hfischer/fix-oom`, `refs/heads/hfischer/fix-oom`, `Switched to a new
# branch 'hfischer/fix-oom'`, `On branch ...`, `checkout -b ...`, a decoration's `HEAD -> ...`,
# push's `* [new branch]      x -> x`, CI's branch variables (GitHub's GITHUB_HEAD_REF, GitLab's
# CI_COMMIT_REF_NAME / CI_COMMIT_BRANCH, Jenkins' BRANCH_NAME / GIT_BRANCH=origin/...).
_BRANCH = re.compile(
    r"(?:remotes/[\w.-]{1,64}/|refs/heads/|refs/remotes/[\w.-]{1,64}/|[Bb]ranch '|On branch |checkout -b |switch -c "
    r"|HEAD -> |\[new branch\][ \t]{1,32}|(?:GITHUB_HEAD_REF|CI_COMMIT_REF_NAME|CI_COMMIT_BRANCH|BRANCH_NAME|GIT_BRANCH)"
    r"[\"']?[ \t]*[=:][ \t]*[\"']?(?:origin/)?)"
    r"(?:users?/)?(?P<user>[a-z][a-z0-9._-]{1,38}[a-z0-9])/(?=[\w.-])"
)
# Kubernetes namespaces: `kubectl ... -n user-hfischer`, describe's `Namespace:  user-hfischer`,
# helm status's `NAMESPACE: ravi-sharma`,
# a manifest's `namespace: ...`, an API path's `namespaces/user-hfischer/`, RBAC's
# `in the namespace "user-hfischer"`, a service account's user name
# (`system:serviceaccount:user-hfischer:default`).
_NAMESPACE = re.compile(
    r"(?:(?:kubectl|helm|oc|argo|stern|kubens)\b[^\n]{0,200}?[ \t](?:-n|--namespace)[ =]|kubens[ \t]+|(?:[Nn]amespace|NAMESPACE):[ \t]+"
    r"|\"namespace\":[ \t]*\"|namespaces?/|namespace \"|system:serviceaccounts?:)(?P<ns>[a-z0-9][a-z0-9-]{1,62})(?![\w.-])"
)
# A personal namespace: a login after a profile-like prefix (Kubeflow's profiles are often
# `kubeflow-<login>`; not its shared `kubeflow-anonymous`) or before a workspace-like suffix,
# or a login with a number (`kowalski39`) alone.
_PERSONAL_NS = re.compile(
    r"(?:(?:user|u|ns|home|profile|personal|sandbox|kubeflow-user|kubeflow)-(?!anonymous\Z)(?P<a>[a-z][a-z0-9-]{1,50}[a-z0-9])"
    r"|(?P<b>[a-z][a-z0-9-]{1,50}[a-z0-9])-(?:ns|home|sandbox|workspace|ws|personal)|(?P<c>[a-z]{3,20}\d{2}))\Z"
)
# A namespace for a stage of work (`alice-dev`, `jdoe-prod`, `dev-hfischer`), or one with no
# affix at all (`hannah-fischer`): personal when the rest reads as a person's login alone
# (person_login); `ml-prod`, `search-dev`, `kube-system` are a team's or the system's.
_STAGED_NS = re.compile(
    r"(?:(?:dev|test|exp)-(?P<a>[a-z][a-z0-9-]{1,50}[a-z0-9])"
    r"|(?P<b>[a-z][a-z0-9-]{1,50}[a-z0-9])-(?:dev|prod|test|stage|staging|exp|scratch|playground|lab|work|jobs)\d{0,2}"
    r"|(?P<c>[a-z][a-z-]{1,50}[a-z]))\Z"
)
# A login with nothing around it to say it is personal must read as a person's on its own: a
# given name (`alice`), a given name and a family name as DNS spells `hannah.fischer`
# (`hannah-fischer`), a given name and an initial (`alicew`) or a number (`leila93`), or an
# initial and a family name (`hfischer`, `jdoe`). The last is told from a tool's name by its
# first two letters, which begin no English word (`hf`, `jd`, `tp`; not `kn`, `st`, `pr`), and a vowel after them;
# the heads of tools' names that start that way are left out (`nginx`, `mlflow`, `tmux`).
_ONSETS = frozenset(
    ("bl", "br", "ch", "cl", "cr", "dr", "dw", "fl", "fr", "gh", "gl", "gn", "gr", "kl", "kn", "kr", "ph", "pl", "pr",
     "ps", "qu", "rh", "sc", "sh", "sk", "sl", "sm", "sn", "sp", "sq", "st", "sv", "sw", "th", "tr", "ts", "tw", "vl",
     "wh", "wr", "zh")
)  # fmt: skip
_TOOL_HEADS = ("kv", "lm", "mp", "xg", "pg", "kf", "tf", "nv", "ng", "gp", "db", "dc", "ck", "mm", "ml", "nf", "cn",
               "gc", "hp", "fs", "vp", "rd", "nc", "dn", "tk", "dv", "bq", "sg", "ds", "tm", "ht", "wg", "ld", "gz",
               "bz", "dm", "ls", "vm", "mk", "tc", "cg", "rs", "mx", "nb", "pd", "np", "qd")  # fmt: skip
# ML words of the same shape that name workloads (`mnist-train-...`, `qlora-ft-worker-0`): a
# pod or namespace named after them is no one's, and learning them would mask the word everywhere.
_TOOL_LOGINS = frozenset(("kserve", "kfserving", "mpijob", "xgboost", "jupyterlab", "kubeflow", "pgvector", "pgbouncer",
                          "mnist", "xlnet", "mbart", "qlora", "mteb", "llava", "xtuner", "nnunet", "cmake", "gguf",
                          "json", "jsonl", "dtype", "dtensor", "srun", "sbatch", "pcie", "vram", "xformers", "ptxas",
                          "rmsnorm", "rmsprop", "sdpa"))  # fmt: skip
_VOWELS = frozenset("aeiouy")
_INITIAL_SURNAME = re.compile(r"[b-df-hj-np-tv-xz][b-df-hj-np-tv-xz][a-z]{2,13}\Z")
# (A family name may hold a hyphen of its own: `youssef-el-amin`, `ana-garcia-lopez`.)
_GIVEN_FAMILY = re.compile(r"(?P<given>[a-z]{3,20})[-._](?P<family>[a-z]{2,30}(?:-[a-z]{2,30})?)\Z")


def names_a_tool(value: str) -> bool:
    """Whether `value` (lowercase) is a tool's, a service's or a model's name (`mlflow`, `airflow`,
    `redis`): the account a service runs as is named for it."""
    return value in _NOT_LOGINS or value in _TOOL_LOGINS


# An initial and a family name, as a home directory names its owner (`jli`, `ybenali`): the
# first two letters begin no English word (a `y` before a consonant is an initial too).
_INITIAL_AND_NAME = re.compile(r"[b-df-hj-np-tv-z][b-df-hj-np-tv-z][a-z]{2,13}\Z")


def initial_and_name(login: str) -> bool:
    """A login read from a home directory that is an initial and a family name: one of the
    short family names (`jli`, `xwu`), or a longer name after an initial whose two letters
    begin no English word and no tool's name (`ybenali`; not `cloud`, `tpu`, `mlflow`)."""
    if not login.isalpha() or not login.islower() or names_a_tool(login):
        return False
    if 3 <= len(login) <= 6 and login[1:] in SHORT_FAMILIES:
        return True
    return (
        _INITIAL_AND_NAME.match(login) is not None
        and login[:2] not in _ONSETS
        and not login.startswith(_TOOL_HEADS)
        and any(c in "aeiou" for c in login[2:])
    )


def person_login(value: str) -> bool:
    """Whether `value` reads as a person's login with nothing else to say so (see above)."""
    if value in GIVEN_NAMES:
        return True
    if names_a_tool(value) or team_like(value):
        return False
    if family_login(value):
        # On a family name the list knows, whatever the given name (`irene_ueda`), with a number
        # (`eriksen12`), or after an initial whose shape the rule below cannot read (`framirez`:
        # `fr` begins English words; `labernathy`, `zeriksen`: a vowel second).
        return True
    pair = _GIVEN_FAMILY.match(value)
    if pair is not None:
        family = pair.group("family")
        return pair.group("given") in GIVEN_NAMES and family not in _NOT_LOGINS and not team_like(family)
    stem = value.rstrip("0123456789")
    if len(value) - len(stem) in (1, 2, 3) and stem in GIVEN_NAMES:
        return True  # a given name and a number, as clusters hand logins out (`leila93`)
    if value[:-1] in GIVEN_NAMES:
        return value.isalpha()  # (one letter: `mariadb` is no Maria's)
    if len(value) - len(stem) in (1, 2) and stem[:-1] in GIVEN_NAMES and stem.isalpha():
        return True  # a given name, the family name's initial and a number (`yasmino2`, `mateoh8`)
    if _given_and_family_head(value):
        return True  # a given name and the first letters of a family name (`priyaram`, `yusufdem`)
    return (
        _INITIAL_SURNAME.match(value) is not None
        and value[:2] not in _ONSETS
        and not value.startswith(_TOOL_HEADS)
        and any(c in _VOWELS for c in value[2:])
    )


# Two letters that end an organisation's name or an English word after a family name
# (`allenai`, `millerco`), not a given name's first two.
_NOT_INITIALS = frozenset(("ai", "ml", "io", "hq", "co", "ly", "er", "es", "ed", "al", "ia", "ic", "an", "ng"))


def family_login(value: str) -> bool:
    """Whether `value` (lowercase) is a login built on a family name the list knows: an initial
    and the name (`ueriksen`), the name and a number (`carvalho36`), or given and family names
    joined (`irene_ueda`). Stricter than person_login, whose shape rule also takes data sets'
    names (`xsum`, `xnli`): the judge for a directory that may be either."""
    stem = value.rstrip("0123456789")
    if len(value) - len(stem) in (1, 2, 3) and (stem in FAMILY_NAMES or stem[1:] in FAMILY_NAMES or stem[:-1] in FAMILY_NAMES):
        return True  # `carvalho36`, after an initial `skuznetsova14`, before one `petrovicm8`
    if value[-1] != "s" and value[:-1] in FAMILY_NAMES and value.isalpha():
        return True  # the family name and an initial (`okonkwoc`, `dvorakm`); not a plural (`bakers`)
    if len(value) >= 7 and value[:-2] in FAMILY_NAMES and value.isalpha() and value[-2:] not in _NOT_INITIALS:
        return True  # the family name and the given name's first two letters (`schulzha`; not `allenai`)
    if value.isalpha() and any(len(value) - cut >= 5 and value[cut:] in FAMILY_NAMES for cut in (2, 3)):
        return True  # two or three letters of the given names, then the family name (`mhfischer`, `jofischer`)
    pair = _GIVEN_FAMILY.match(value)
    return value[1:] in FAMILY_NAMES or (pair is not None and pair.group("family") in FAMILY_NAMES) or _joined_names(value)


def given_login(value: str) -> bool:
    """Whether `value` (lowercase) is a login built on a given name the list knows: the name
    alone (`dmitri`), with a number (`leila93`) or with an initial (`oisino`). Stricter than
    person_login, whose shape rule also takes data sets' names (`xsum`, `xnli`)."""
    stem = value.rstrip("0123456789")
    if len(value) - len(stem) in (0, 1, 2, 3) and stem in GIVEN_NAMES:
        return True
    return value.isalpha() and value[:-1] in GIVEN_NAMES


# The first three and four letters of the family names the list knows: a login cut from a full
# name keeps the family name's head (`priyaram` for Priya Ramanathan).
_FAMILY_HEADS = frozenset(name[:k] for name in FAMILY_NAMES for k in (3, 4))


def _given_and_family_head(value: str) -> bool:
    """A given name the list knows, then the head of a family name it knows (`yusufdem`)."""
    return value.isalpha() and any(
        value[:cut] in GIVEN_NAMES and 3 <= len(value) - cut <= 4 and value[cut:] in _FAMILY_HEADS
        for cut in range(3, len(value) - 2)
    )


def _joined_names(value: str) -> bool:
    """A given name and a family name run together, both known (`tomaszferreira`, as W&B and
    GitHub suggest a login from a full name)."""
    return value.isalpha() and any(
        value[:cut] in GIVEN_NAMES and value[cut:] in FAMILY_NAMES for cut in range(3, len(value) - 3)
    )


# `docker ps` rows: the container name is the last column, after CREATED's `... ago` and STATUS.
_CONTAINER_ROW = re.compile(
    r"^[0-9a-f]{12}[ \t]{2,}[^\n]{1,2000}? ago[ \t]{2,}[^\n]{0,2000}?[ \t]{2,}(?P<names>[\w.-]{1,128})[ \t]*\r?$", re.M
)
# What a person's container is for: `hfischer_train`, `dev-hfischer`, `hfischer-jupyter`.
_CONTAINER_ROLE = re.compile(
    r"(?:(?P<a>[a-z][a-z0-9._-]{1,38}[a-z0-9])[_-](?:train|training|dev|devel|jupyter|notebook|nb|debug|test|eval"
    r"|sandbox|ws|workspace|work|exp|shell|vscode|code|lab|tb|tensorboard|bench|finetune|sft|serve|infer|inference)\d{0,3}"
    r"|(?:train|dev|jupyter|notebook|debug|sandbox|ws|workspace)[_-](?P<b>[a-z][a-z0-9._-]{1,38}[a-z0-9]))\Z"
)
# JupyterHub on Kubernetes names each user's server pod `jupyter-<escaped login>`
# (KubeSpawner; a named server after `--`): `jupyter-hfischer`, `jupyter-hannah-2efischer`.
_JUPYTER_POD = re.compile(r"(?<![\w-])jupyter-(?P<user>[a-z][a-z0-9-]{1,62}?[a-z0-9])(?:--[a-z0-9-]{1,63})?(?![\w-])")
_JUPYTER_WORDS = frozenset(("lab", "notebook", "server", "hub", "client", "console", "kernel", "book", "singleuser", "proxy",
                            "nbconvert", "nbextension", "serverextension", "labextension", "core", "events", "lsp", "ydoc"))  # fmt: skip
OWNER_LINE_WORDS = (
    "remotes/", "refs/heads/", "branch '", "on branch ", "checkout -b ", "switch -c ", "head -> ", "[new branch]",
    "head_ref", "ref_name", "commit_branch", "branch_name", "git_branch", "namespace", "kubectl", "helm", " ago ",
    "jupyter-", "system:serviceaccount",
)  # fmt: skip


def _learned_given_family(value: str, state: LogState) -> bool:
    """`sadia-tserendorj` when `sadia` is a login or a given name the log has taught: the word
    after it is her family name (a stage of work after it, `sadia-dev`, is read before)."""
    given, _, family = value.partition("-")
    return (
        given in state.users
        and family.isalpha()
        and len(family) >= 3
        and family not in _NOT_LOGINS
        and not names_a_tool(family)
        and not team_like(family)
    )


def take_namespace(namespace: str, start: int, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the login in a personal Kubernetes namespace that starts at `start`; a
    team's or the system's namespace is kept."""
    match = _PERSONAL_NS.match(namespace)
    judge = login_like
    if match is None:
        match, judge = _STAGED_NS.match(namespace), person_login
        if match is None:
            return
    group = next(g for g in ("a", "b", "c") if match.group(g) is not None)
    user = match.group(group)
    if not judge(user) and not (group == "c" and _learned_given_family(user, state)):
        return
    pair = _GIVEN_FAMILY.match(user)
    if pair is not None and "-" in user:
        # `hannah-fischer` is the DNS form of `hannah.fischer`: learning that spelling learns
        # her given name too (`Hannah` in the thread, `hannah` in a pod's name).
        state.learn_user(f"{pair.group('given')}.{pair.group('family')}")
    edits.append((start + match.start(group), start + match.end(group), "user", user))
    state.learn_user(user)


def find_owner_logins(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the login in personal branches, namespaces and container names, and learn it."""

    def take(start: int, user: str) -> None:
        if login_like(user):
            edits.append((start, start + len(user), "user", user))
            state.learn_user(user)

    for m in _BRANCH.finditer(text):
        take(m.start("user"), m.group("user"))
    for m in _NAMESPACE.finditer(text):
        take_namespace(m.group("ns"), m.start("ns"), edits, state)
    for m in _JUPYTER_POD.finditer(text):
        if m.group("user").split("-", 1)[0] not in _JUPYTER_WORDS:
            take(m.start("user"), m.group("user"))
    if " ago " in text:
        for m in _CONTAINER_ROW.finditer(text):
            role = _CONTAINER_ROLE.match(m.group("names"))
            if role is not None:
                group = "a" if role.group("a") is not None else "b"
                take(m.start("names") + role.start(group), role.group(group))
