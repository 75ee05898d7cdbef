"""Logins and names inside what a person names after themself: cloud projects, experiments, runs.

People name their sandboxes after themselves: a GCP project `hfischer-sandbox` or
`hannah-fischer-ml-dev` (gcloud's `project = ...`, `--project`, `projects/<id>/`), an MLflow
experiment `hfischer-llama-sweep` (`Experiment with name '...'`, `MLFLOW_EXPERIMENT_NAME=`), a
W&B or MLflow run `hannah-llama-sweep-17` (`wandb: Syncing run ...`, `View run ... at`), a
Kaggle data set or notebook under its owner (`kaggle.com/code/<user>/...`, `kaggle datasets
download -d <user>/...`). Nothing else in the log may say whose it is.

Only the personal words are masked (as `<USER-n>`, and learned, so a bucket `gs://<id>-ckpt`
or a later mention goes too); the rest of the name stays, since it says what the thing is
(`<USER-1>-llama-sweep-17`). A word is personal when it reads as a login on its own: the first
word as owners.person_login reads it (a given name, an initial and a family name), any word
when it is a given name or a login built on a family name (owners.family_login). A model,
a tool or a team word is never one (`llama-sft`, `ml-platform-prod`: kept whole).
"""

from __future__ import annotations

import re

from bot.masking.buckets import GIVEN_NAMES
from bot.masking.edits import Edit
from bot.masking.keys import team_like, username_ok
from bot.masking.owners import family_login, login_like, names_a_tool, person_login
from bot.masking.state import LogState
from bot.masking.surnames import FAMILY_NAMES

# A name a person gave a thing: letters, digits and the separators tools allow.
_NAME = r"(?P<name>[A-Za-z][\w.-]{1,120}[A-Za-z0-9])"
_RESOURCE_RX = re.compile(
    # GCP project ids: gcloud config list's `project = <id>`, `--project <id>`, resource paths,
    # `gcloud config set project <id>`, the console's `?project=<id>`, the SDK's and client libraries' environment variables, a key file's `"project_id"`.
    r"(?:^[ \t]*project[ \t]*=[ \t]*|--project[= ]|(?<![\w-])projects/(?=[^/\s]{6,30}/)|config set project |[?&]project="
    # Container images under the project: `gcr.io/<id>/trainer`, `us-docker.pkg.dev/<id>/repo/...`.
    r"|(?<![\w-])gcr\.io/|\.pkg\.dev/"
    r"|(?:GOOGLE_CLOUD_PROJECT|CLOUDSDK_CORE_PROJECT|GCLOUD_PROJECT|GCP_PROJECT|GCP_PROJECT_ID)=[\"']?"
    r"|[\"']?(?:project_id|projectId)[\"']?[ \t]*[:=][ \t]*[\"']?"
    # MLflow experiments: the fluent API's `Experiment with name '...'`, the server's
    # `RESOURCE_ALREADY_EXISTS: Experiment '...' already exists`, set_experiment, the env var.
    r"|Experiment with name '(?:/[^'\n/]{1,200})*/?|Experiment '(?:/[^'\n/]{1,200})*/?"
    r"|MLFLOW_EXPERIMENT_NAME=[\"']?(?:/[^\s'\"/]{1,200})*/?|set_experiment\([\"'](?:/[^'\"\n/]{1,200})*/?"
    # Runs: wandb's `Syncing run <name>`, `View run <name> at` and `Synced <name>: <url>`, MLflow's `View run <name> at:`,
    # the env vars and flags that name one.
    r"|[Ss]yncing run |View run |wandb: Synced (?=[\w.-]{1,120}: )|(?:WANDB_NAME|WANDB_RUN_NAME|MLFLOW_RUN_NAME)=[\"']?|--run[_-]name[= ][\"']?"
    r"|\brun_name[\"']?[ \t]*[:=][ \t]*[\"']?"
    # A tracker's project under its entity: `wandb.ai/<entity>/<project>/runs/<id>`, Comet's and Neptune's alike.
    r"|(?:wandb\.ai|comet\.com|app\.neptune\.ai)/(?!site\b|authorize\b)[A-Za-z0-9<][\w.<>-]{0,63}/)"
    + _NAME,
    re.M,
)
# The names a script gives W&B in its call (`wandb.init(project="hfischer-llama", name="hannah-sweep-3")`).
_WANDB_INIT_RX = re.compile(r"wandb\.init\((?P<args>[^)\n]{0,400})")
_WANDB_INIT_NAME_RX = re.compile(r"\b(?:name|project)[ \t]*=[ \t]*[\"']" + _NAME + r"[\"']")
# Kaggle: a data set's or a notebook's owner in its URL and in the CLI's `<owner>/<slug>`.
_KAGGLE_RX = re.compile(
    r"(?:kaggle\.com/(?:code|datasets|notebooks|kernels)/|kaggle[ \t]+(?:datasets|kernels)[ \t]+[a-z]+[ \t]+(?:-[dkp][ \t]+)?)"
    r"(?P<user>[A-Za-z0-9][\w-]{1,48})/(?=[\w.-])"
)
# Owners on Kaggle that are organisations, not people.
_KAGGLE_ORGS = frozenset(("kaggle", "google", "nvidia", "microsoft", "meta", "openai", "deepmind", "tensorflow", "keras",
                          "huggingface", "competitions", "code", "datasets", "models"))  # fmt: skip
# SkyPilot names a cluster launched without `-c` after its user: `sky-` and four hex digits of
# a UUID, then the login lowercased with its dots and underscores dropped (`sky-9f3c-hfischer`,
# `sky-1c08-hannahfischer`; on Kubernetes its pods add `-<hash>-head`). Masked up to the next hyphen.
_SKY_CLUSTER_RX = re.compile(r"(?<![\w.-])sky-[0-9a-f]{4}-(?P<user>[a-z][a-z0-9]{1,31})(?![\w.])")
RESOURCE_WORDS = ("project", "gcr.io/", ".pkg.dev/", "experiment", "syncing run ", "view run ", "wandb: synced ", "wandb_name", "wandb_run_name", "mlflow_run_name",
                  "run_name", "run-name", "kaggle", "wandb.ai/", "comet.com/", "neptune.ai/", "wandb.init(", "sky-")  # fmt: skip
# Words a run or a project is named with besides its owner's name (`priya-baseline-sweep`): a
# family name follows a given name only when it is none of these (nor a model's or a tool's).
_RUN_WORDS = frozenset(
    ("baseline", "sweep", "sweeps", "ablation", "final", "retry", "resume", "rerun", "repro", "large", "small", "base",
     "tiny", "medium", "full", "half", "fast", "slow", "long", "short", "quick", "warmup", "cosine", "linear",
     "constant", "seed", "epoch", "epochs", "step", "steps", "run", "runs", "trial", "trials", "finetune", "pretrain",
     "instruct", "chat", "tuned", "scratch", "playground", "mini", "micro", "nano", "big", "best", "last",
     "latest", "init", "attempt", "compare", "check", "sanity", "smoke", "probe", "noise", "clean", "mixed", "multi",
     "single", "node", "nodes", "gpus", "shard", "shards", "packed", "merge", "merged", "distill", "reward",
     "policy", "critic", "value", "vision", "text", "audio", "speech", "image", "video", "code", "math", "reasoning",
     "wiki", "wikitext", "openwebtext", "pile", "alpaca", "orca", "slimorca", "ultrachat", "dolly", "squad", "glue",
     "mmlu", "imagenet", "cifar", "mnist", "coco", "laion", "redpajama", "fineweb", "tulu", "sharegpt", "oasst",
     "default", "project", "projects", "team", "group", "shared", "public", "private", "personal", "home"))  # fmt: skip


# W&B names an unnamed run itself, an adjective, a noun and its number (`stellar-wolf-12`).
_GENERATED_RUN = re.compile(r"[a-z]+-[a-z]+-\d{1,6}\Z")


def _surname_like(word: str) -> bool:
    """A word that may be a family name the list does not know (`iwasaki`): letters, and no
    model's, tool's or run's word."""
    return word.isalpha() and len(word) >= 4 and word not in _RUN_WORDS and not names_a_tool(word) and not team_like(word)


# A word of a name: letters and up to three digits (`llama2` is one word, `gpt-4o` two).
_WORD = re.compile(r"[A-Za-z]+[0-9]{0,3}")


# What a person calls their own space (`joaquimh7-sandbox-982`), as Kubernetes namespaces say it too.
_WORKSPACE_AFTER = re.compile(r"-(?:sandbox|scratch|playground|personal|home|workspace)(?![a-z])")
# A login a cluster numbers (`ferrante53`, `mirelan2`): five letters or more, then one to three digits.
_NUMBERED_LOGIN = re.compile(r"[a-z]{5,20}[0-9]{1,3}\Z")


def _numbered_before_workspace(word: str, name: str, end: int) -> bool:
    """A numbered login leading a name and followed by a personal space's word, whatever the
    lists know of it (`ferrante53-sandbox-100`); a model's or a tool's (`llama3-sandbox`) is none."""
    return (
        _NUMBERED_LOGIN.match(word) is not None
        and _WORKSPACE_AFTER.match(name, end) is not None
        and not names_a_tool(word.rstrip("0123456789"))
        and not team_like(word.rstrip("0123456789"))
        and word.rstrip("0123456789") not in _RUN_WORDS
        and login_like(word)
    )


# A run named by its owner and its settings alone (`farai-lr5e-4`, `tenzin-bs64-seed3`): what
# leads the settings is whose run it is, unless it is a model's, a method's or a run's word.
_SETTINGS_AFTER = re.compile(r"-(?:lr|bs|gbs|mbs|seed|wd|ep|warmup|ga|accum|tp|pp|dp)\d|-\d(?:\.\d+)?e-\d")
# Stems of models' names a run is named for (`resnet-lr1e-3`, `distilbert-bs32`, `tinyllama-lr2e-5`).
# Methods and settings a run is named for besides _RUN_WORDS (`ablate-lr5e-4`, `frozen-bs32`).
_SETTING_WORDS = frozenset(
    ("ablate", "frozen", "freeze", "unfrozen", "prune", "pruned", "quant", "quantized", "distil", "dropout", "nodrop",
     "noaug", "aug", "warm", "cold", "adamw", "adam", "sgd", "lion", "muon", "adafactor", "onecycle", "const", "decay",
     "ctx", "longctx", "ddp", "zero", "dense", "sparse", "greedy", "beam", "lowlr", "highlr", "try", "exp", "test",
     "new", "old", "fix", "fixed", "redo", "again", "debug", "tune", "tuning", "grid", "search", "hpo", "optuna")
)  # fmt: skip
_MODEL_STEM = re.compile(
    r"net|bert|llama|gpt|former|vit|mamba|clip|diffusion|yolo|whisper|wav2vec|mistral|qwen|gemma|phi|t5|bart|mae|dino"
    r"|electra|swin|detr|flan|zephyr|vicuna|alpaca|orca|hyena|mixer|glm|baichuan|intern|coder|codegen|lstm|ddpm|dqn"
)


def _owner_before_settings(word: str, name: str, end: int) -> bool:
    """The first word of a run named by its owner and its settings (`farai-lr5e-4`), whatever
    the lists know of it; a model's, a method's or a run's word (`resnet-lr1e-3`,
    `baseline-lr5e-4`, `lora-lr2e-4`) is none."""
    return (
        word.isalpha()
        and 3 <= len(word) <= 12
        and _SETTINGS_AFTER.match(name, end) is not None
        and _surname_like(word)
        and _MODEL_STEM.search(word) is None
        and word not in _SETTING_WORDS
        and any(c in "aeiouy" for c in word)
    )


def _personal_words(name: str) -> list[tuple[int, int]]:
    """The spans of `name` that are a person's: the first word when it reads as a login, a
    given and a family name together, and any word that is a given name or a family login."""
    spans: list[tuple[int, int]] = []
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(name)]
    # Words separated by `-`, `_` or `.` only: `llama2` is one word, `gpt-4o` two.
    for i, (start, end, word) in enumerate(words):
        if start and name[start - 1] not in "-_.":
            continue
        if end < len(name) and name[end] not in "-_.":
            continue
        if names_a_tool(word):
            continue
        if i + 1 < len(words) and words[i + 1][0] == end + 1:
            after = words[i + 1][2]
            if (
                (word in GIVEN_NAMES and (after in FAMILY_NAMES or _surname_like(after)))
                # A `given.family` login leading the name (`bastian.whitlock-bert-ablation`):
                # a project or a model is not named so.
                or (i == 0 and name[end] == "." and _surname_like(word) and _surname_like(after))
                or (word in FAMILY_NAMES and after in GIVEN_NAMES)
                or (after in FAMILY_NAMES and _surname_like(word) and not _GENERATED_RUN.match(name))
            ):
                # `hannah-fischer-sandbox`, `tanaka-yuki-exp`: both names, one login; a given
                # name the list knows before a family name it does not (`priya-iwasaki-sft`),
                # and the other way round (`aoife-lindqvist-dpo`).
                spans.append((start, words[i + 1][1]))
                continue
        if spans and spans[-1][1] > start:
            continue
        if (
            (i == 0 and (person_login(word) or _numbered_before_workspace(word, name, end) or _owner_before_settings(word, name, end)))
            or word in GIVEN_NAMES
            or family_login(word)
        ):
            spans.append((start, end))
    return spans


def find_resource_owners(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the personal words of projects', experiments' and runs' names."""
    named = [(m.group("name"), m.start("name")) for m in _RESOURCE_RX.finditer(text)]
    if "wandb.init(" in text:
        for call in _WANDB_INIT_RX.finditer(text):
            base = call.start("args")
            named += [(m.group("name"), base + m.start("name")) for m in _WANDB_INIT_NAME_RX.finditer(call.group("args"))]
    for name, base in named:
        for start, end in _personal_words(name):
            login = name[start:end]
            edits.append((base + start, base + end, "user", login))
            if "-" in login:
                state.learn_user(login.replace("-", "."))  # and so its DNS form and given name
            state.learn_user(login)
    if "sky-" in text:
        for m in _SKY_CLUSTER_RX.finditer(text):
            user = m.group("user")
            if username_ok(user):
                edits.append((m.start("user"), m.end("user"), "user", user))
                state.learn_user(user)
    if "kaggle" in text:
        for m in _KAGGLE_RX.finditer(text):
            user = m.group("user")
            if user.lower() not in _KAGGLE_ORGS and login_like(user.lower()):
                edits.append((m.start("user"), m.end("user"), "user", user))
                state.learn_user(user)


# A person's own machine is named for them: macOS names a Mac `Hannahs-MacBook-Pro` (`.local`
# on the network), people call theirs `hannah-workstation`, `hfischer-desktop`. Wherever the
# log prints one (a Jupyter URL, a ping, prose), the owner's word and the kind of machine say
# whose it is; `gpu-box`, `build-pc`, `dgx-workstation` are no one's.
_PERSONAL_HOST_RX = re.compile(
    r"(?<![\w.-])(?P<host>(?P<owner>[A-Za-z]{3,20}?)(?:'?s)?-(?:desktop|laptop|workstation|macbook(?:-pro|-air)?|mbp|mba"
    r"|imac|mac-?mini|thinkpad|pc|ws)(?:-\d{1,3})?(?:\.(?:local|lan|home))?)(?![\w-])",
    re.I,
)
# Windows names a new PC itself, `DESKTOP-` or `LAPTOP-` and seven or eight random letters and
# digits (`DESKTOP-7QK2L9M`, `LAPTOP-R4N8D2KQ`); nobody else's machine is named so, and the log
# prints it in a c10d error, `systeminfo`, an `.mshome.net` name or DNS's lower case alike (there
# with a digit: `laptop-mode` is a tool).
_WINDOWS_HOST_RX = re.compile(
    r"(?<![\w.-])(?P<host>(?:DESKTOP-[A-Z0-9]{7}|LAPTOP-[A-Z0-9]{8}|(?:desktop|laptop)-(?=[a-z]{0,7}[0-9])[a-z0-9]{7,8})"
    r"(?:\.(?:mshome\.net|local|lan|home))?)(?![\w-])"
)
PERSONAL_HOST_WORDS = ("-desktop", "-laptop", "-workstation", "-macbook", "-mbp", "-mba", "-imac", "-mac", "-thinkpad",
                       "-pc", "-ws", "desktop-", "laptop-")  # fmt: skip


def find_personal_hosts(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the host names of people's own machines, Windows' default names too."""
    for m in _PERSONAL_HOST_RX.finditer(text):
        owner = m.group("owner").lower()
        if owner in GIVEN_NAMES or (person_login(owner) and not names_a_tool(owner)):
            edits.append((m.start("host"), m.end("host"), "host", m.group("host")))
            state.learn_host(m.group("host"))
    for m in _WINDOWS_HOST_RX.finditer(text):
        edits.append((m.start("host"), m.end("host"), "host", m.group("host")))
        state.learn_host(m.group("host"))
