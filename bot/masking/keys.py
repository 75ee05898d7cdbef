"""What a key name says about its value, and what a value must look like to be masked.

Password-like names (`password`, `*_SECRET`, `api_key`, `HF_TOKEN`) mask whatever the value
looks like; generic names (`key`, `token`, `auth`) only mask values shaped like a credential,
so `pad_token_id`, `eos_token`, `key_states` and `max_new_tokens=128` survive.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from bot.masking.placeholders import has_placeholder
from bot.masking.vendor import char_classes, entropy


class Role(enum.Enum):
    SECRET = "secret"  # mask any value
    GENERIC = "generic"  # mask values shaped like a credential
    USER = "user"  # a user name
    HOST = "host"  # a host name or list of them
    AUTHZ = "authz"  # an Authorization header: keep the scheme, mask the credentials


@dataclass(frozen=True)
class KeyInfo:
    role: Role
    kind: str


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")


def split_words(key: str) -> list[str]:
    """`X-Amz-Credential` -> [x, amz, credential]; `SecretAccessKey` -> [secret, access, key]."""
    return [w for w in _NON_ALNUM.split(_CAMEL.sub("_", key).lower()) if w]


_PASSWORD_ENDS = ("password", "passwd", "passphrase", "pwd")
_PASSWORD_WORDS = frozenset(("pass", "pw", "passcode", "pword", "passwrd"))
# Redis's password directives (redis.conf, `redis-server --requirepass`, `CONFIG GET`): one word
# each, that no rule above reads as a password.
REDIS_PASSWORD_KEYS = frozenset(("requirepass", "masterauth"))
# Java's keytool and jarsigner name a keystore's and a key's password in one word each
# (`keytool -importkeystore -deststorepass x -srcstorepass y`, `-keypass`).
_KEYSTORE_PASSWORD_KEYS = frozenset(("storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass", "destkeypass"))
# Last words of a key that names something about a password, not the password itself.
_PASSWORD_ABOUT = frozenset(
    (
        "file", "path", "dir", "env", "var", "cmd", "command", "source", "from", "store",
        "helper", "manager", "policy", "length", "len", "min", "max", "minimum", "maximum",
        "hint", "prompt", "prompted", "rule", "rules", "strength", "complexity", "history",
        "required", "require", "enabled", "enable", "disabled", "disable", "set", "auth",
        "authentication", "login", "reset", "expiry", "expires", "expire", "expiration", "age",
        "changed", "change", "less", "type", "mode", "method", "format", "encoding",
        "encryption", "scheme", "algorithm", "timeout", "retries", "attempts", "count",
        "lockout", "stdin", "field", "flag", "option", "valid", "invalid", "ok", "error", "url",
        "uri", "link", "page", "endpoint", "at", "date", "time",
    )
)
# (`employee` is an HR record's login: a payroll export's `employee=hfischer`.)
# (`uid` is ODBC's login, `Uid=hfischer`; `id`'s `uid=1000(hfischer)` is a number, kept.)
# (`ruser` is PAM's requesting user: `authentication failure; logname=hfischer ... ruser=hfischer`.)
_USER_LAST = frozenset(("user", "username", "login", "logname", "uname", "employee", "uid", "ruser"))
_USER_EXACT = frozenset(
    (
        # GIT_AUTHOR_NAME and friends hold a person's name: bot/masking/names.py masks them.
        # WANDB_ENTITY is often a team (`acme-ml`): a personal entity is the user name,
        # masked wherever it recurs once a home path or login banner teaches it.
        "user_name", "pbs_o_logname", "hf_username",
        # LSF's job owner; Jenkins' build-user plugin (BUILD_USER is the display name).
        "lsb_jobuser", "build_user_id",
        # MLflow's run info (`mlflow runs describe`, `run.info`): the login that started the run.
        "user_id",
    )
)
# Keys that name who owns or started something: a JSON log's `"owner"`, a tracker's
# `created_by`, a job's `submitted_by`. Their value is a person's account (or name, left to
# bot/masking/names.py), and is learned: the same login names a namespace or a container.
OWNER_KEYS = frozenset(
    ("owner", "job_owner", "run_owner", "owned_by", "created_by", "submitted_by", "requested_by", "triggered_by",
     "launched_by", "started_by", "assignee", "submitter", "requester",
     # Airflow's task log: `Exporting env vars: AIRFLOW_CTX_DAG_OWNER='hfischer' ...`.
     "dag_owner", "airflow_ctx_dag_owner")
)  # fmt: skip
# Words of a team's or an organisation's W&B entity (`acme-ml`, `vision-lab`), never a person's.
_TEAM_WORDS = frozenset(
    ("ml", "ai", "team", "teams", "lab", "labs", "research", "org", "group", "inc", "corp", "nlp", "cv", "llm",
     "vision", "platform", "infra", "core", "eng", "dev", "prod", "staging", "public", "shared", "project", "projects")
)  # fmt: skip
_TEAM_PARTS = re.compile(r"[-_.]")


def team_like(entity: str) -> bool:
    """An entity named for a team (`acme-ml`); a personal entity is the user's name."""
    return any(part in _TEAM_WORDS for part in _TEAM_PARTS.split(entity.lower()))


_HOST_LAST = frozenset(("host", "hostname", "nodename", "nodelist", "addr"))
# CI runners and Windows machines name themselves in the environment: GitHub Actions'
# RUNNER_NAME, Buildkite's BUILDKITE_AGENT_NAME, GitLab's CI_RUNNER_DESCRIPTION (the runner's name unless someone wrote prose
# there, hence judged strictly in pairs.py), Windows' COMPUTERNAME.
_HOST_EXACT = frozenset(
    ("rdzv_endpoint", "master_endpoint", "head_node", "head_node_ip", "runner_name", "ci_runner_description", "computername",
     "computer_name",  # Azure IMDS' and ARM's `"osProfile": {"computerName": ...}`
     "buildkite_agent_name",
     # Slurm's `scontrol show node` (NodeName=, NodeHostName=), a pod spec's `nodeName:`.
     "node_name", "node_host_name", "host_name",
     # A structured log's `"node": "gn334"` (judged strictly in pairs.py: a numbered name only).
     "node")
)

# Prefix words that make `*_token` a credential rather than a tokenizer setting.
_TOKEN_CRED = frozenset(
    (
        "hf", "hub", "huggingface", "hugging", "face", "auth", "access", "refresh", "id", "bearer",
        "api", "github", "gh", "gitlab", "slack", "bot", "app", "wandb", "ngc", "session",
        "security", "oauth", "csrf", "xsrf", "personal", "pat", "sas", "registry", "docker", "npm",
        "pypi", "twine", "vault", "discord", "telegram", "client", "service", "jwt", "sa", "k8s",
        "kube", "kubernetes", "cluster", "bootstrap", "secret", "private", "deploy", "ci", "job",
        "runner", "notion", "openai", "anthropic", "replicate", "comet", "neptune", "clearml",
        "mlflow", "databricks", "codecov", "sentry", "cloudflare", "heroku", "netlify", "vercel",
        "circle", "travis", "buildkite", "dropbox", "jira", "atlassian", "stripe", "twilio",
        "sendgrid", "mailgun", "snyk", "sonar", "artifactory", "jfrog", "nexus", "gcp", "gcs",
        "aws", "azure", "google", "graph", "account", "admin", "master", "root", "write", "read",
        "upload", "push", "publish", "identity",
    )
)
# Prefix words naming a model's special tokens or token counts: never credentials.
_TOKEN_MODEL = frozenset(
    (
        "pad", "eos", "bos", "unk", "sep", "cls", "mask", "special", "additional", "start", "end",
        "stop", "im", "decoder", "max", "min", "num", "total", "new", "prompt", "input", "output",
        "generated", "first", "last", "next", "vocab", "count", "per", "added", "image", "video",
        "audio", "eot", "eom", "think", "tool", "fim", "boi", "eoi", "sot", "eop", "default",
        "chat", "system", "assistant", "begin", "placeholder", "media", "vision", "box", "ref",
        "quad", "object", "point", "cont", "lang", "task", "sentinel", "noise", "unknown", "oov",
        "type",
    )
)
_KEY_CRED = frozenset(
    (
        "api", "secret", "private", "access", "account", "master", "encryption", "signing",
        "license", "subscription", "auth", "session", "client", "storage", "sas", "shared", "app",
        "hmac", "service", "admin", "deploy", "certificate", "ngc", "wandb", "openai", "anthropic",
        "hf", "google", "gemini", "azure", "cohere", "mistral", "groq", "together", "pinecone",
        "comet", "neptune", "mapbox", "stripe", "sendgrid", "twilio", "datadog", "dd", "sentry",
        "replicate", "serpapi", "serper", "tavily", "voyage", "jina", "elevenlabs", "fireworks",
        "perplexity", "xai", "deepseek", "huggingface", "aws", "gcp", "kaggle", "clearml",
        "mlflow", "langchain", "langsmith", "helicone", "runpod", "modal", "x",
    )
)
# Prefix words under which `*_key` holds something public or structural.
_KEY_PUBLIC = frozenset(
    (
        "public", "pub", "gpg", "pgp", "sort", "cache", "primary", "foreign", "partition", "dict",
        "lookup", "group", "map", "index", "label", "metric", "monitor", "input", "output",
        "target", "text", "data", "dataset", "column", "field", "image", "audio", "video",
        "config", "json", "yaml", "model", "state", "kv", "query", "value", "row", "name", "file",
        "path", "dir", "hash", "prompt", "response", "answer", "question", "context", "feature",
        "batch", "sample", "random", "rng", "seed", "prng", "attention", "attn", "hot", "press",
        "lm", "reward", "logging", "log", "ssh", "host", "known", "id", "unique", "order",
    )
)
_CONCAT_TOKEN = ("access", "auth", "refresh", "api", "hf", "bearer", "identity", "registry", "session", "oauth", "bot", "app", "github", "secret", "id")
_CONCAT_KEY = ("api", "access", "secret", "private", "account", "master", "auth", "app", "client", "license", "subscription", "encryption", "signing", "session", "storage", "shared", "hmac")
# `PWD=/tmp` and `OLDPWD=` are the shell's working directories, not passwords.
# (`Pwd=` in an ODBC or ADO.NET connection string is the password: pairs.py keeps a path.)
# A last word that names how the value is encoded, not what it is.
_ENCODING_WORDS = frozenset(("b64", "base64", "encoded", "enc"))
# Keys that hold a credential only as a URL query's parameters, found by these anchors alone:
# an OAuth redirect's authorization code and its CSRF state (`?state=...&code=4/0A...`). Their
# values pass the shape gate, so `?code=200` or `&state=RUNNING` stay.
# Only there: a `STATE` or `CODE` variable elsewhere is no credential (pairs.py asks this map
# itself, on a query anchor's key, not `classify_key`).
QUERY_KEY_WORDS = ("?code=", "&code=", "?state=", "&state=")
QUERY_KEY_KINDS = {"code": "oauth-code", "state": "oauth-state"}
_NONE_EXACT = frozenset(("gpg_key", "public_key", "ssh_public_key", "keys", "oldpwd"))


def _token_kind(words: set[str]) -> str:
    if words & {"hf", "hub", "huggingface", "hugging"}:
        return "hf-token"
    if words & {"github", "gh"}:
        return "github-token"
    if "slack" in words:
        return "slack-token"
    if "wandb" in words:
        return "wandb-key"
    if "ngc" in words:
        return "ngc-key"
    if (words & {"session", "security"} and words & {"aws", "amz", "x"}) or words == {"session"}:
        return "aws-session-token"
    return "token"


def _key_kind(words: set[str]) -> str:
    if "secret" in words and words & {"access", "aws"}:
        return "aws-secret-key"
    if words & {"account", "storage"}:
        return "azure-storage-key"
    if "private" in words:
        return "private-key"
    for vendor, kind in (("wandb", "wandb-key"), ("ngc", "ngc-key"), ("openai", "openai-key"),
                         ("anthropic", "anthropic-key"), ("google", "google-api-key"),
                         ("gemini", "google-api-key")):
        if vendor in words:
            return kind
    return "api-key" if "api" in words or "apikey" in words else "key"


# Every kind classify_key can name (the detectors table declares them for the pairs pass).
KEY_KINDS = (
    "password", "secret", "aws-secret-key", "client-secret", "azure-client-secret", "credential",
    "aws-credential", "gcs-credential", "signature", "aws-signature", "gcs-signature", "sas-signature",
    "aws-access-key", "private-key-id", "private-key", "hf-token", "github-token", "slack-token",
    "wandb-key", "ngc-key", "aws-session-token", "token", "azure-storage-key", "openai-key",
    "anthropic-key", "google-api-key", "api-key", "key", "auth", "user", "host", "oauth-code", "oauth-state",
)  # fmt: skip


def classify_key(key: str) -> KeyInfo | None:
    """How a value under `key` is treated, or None when the key says nothing sensitive."""
    words = split_words(key)
    if not words:
        return None
    norm = "_".join(words)
    if norm in _NONE_EXACT:
        return None
    env = _ENV_NAME.match(key) is not None and len(words) > 1
    if len(words) > 1 and words[-1] in _ENCODING_WORDS:
        # `HF_HUB_CREDS_B64`, `SA_KEY_BASE64`, `HF_TOKEN_ENCODED`: the same secret, encoded once
        # more; the key's meaning is in the words before the encoding's name.
        words = words[:-1]
    last, prev = words[-1], set(words[:-1])

    if last in _USER_LAST or norm in _USER_EXACT or norm in OWNER_KEYS:
        return KeyInfo(Role.USER, "user")
    if last in _HOST_LAST or norm in _HOST_EXACT:
        return KeyInfo(Role.HOST, "host")
    if last == "authorization":
        return KeyInfo(Role.AUTHZ, "token")
    if last.endswith(_PASSWORD_ENDS) or last in _PASSWORD_WORDS or norm in REDIS_PASSWORD_KEYS or norm in _KEYSTORE_PASSWORD_KEYS:
        return KeyInfo(Role.SECRET, "password")
    if len(words) > 1 and words[-2].endswith(_PASSWORD_ENDS) and last not in _PASSWORD_ABOUT:
        # `password_mysql`, `PASSWORD_PROD`, `db_password_2`: the password, named for what it
        # opens; `password_file`, `password_min_length` say something about one instead.
        return KeyInfo(Role.SECRET, "password")
    if last.endswith("pass") and key.isupper():
        return KeyInfo(Role.SECRET, "password")  # SSHPASS, DBPASS (but `bypass`, `compass`)
    if last.endswith("secret") or last == "secrets":
        if "client" in prev or last == "clientsecret":
            return KeyInfo(Role.SECRET, "azure-client-secret" if "azure" in prev else "client-secret")
        return KeyInfo(Role.SECRET, "aws-secret-key" if "aws" in prev else "secret")
    if last in ("credential", "credentials", "creds", "cred"):
        kind = "aws-credential" if "amz" in prev else "gcs-credential" if "goog" in prev else "credential"
        return KeyInfo(Role.SECRET, kind)
    if last in ("signature", "sig"):
        if "amz" in prev:
            return KeyInfo(Role.SECRET, "aws-signature")
        if "goog" in prev:
            return KeyInfo(Role.SECRET, "gcs-signature")
        return KeyInfo(Role.SECRET, "sas-signature" if last == "sig" else "signature")
    if last == "id" and len(words) >= 3 and words[-2] == "key":
        if words[-3] == "access":
            return KeyInfo(Role.SECRET, "aws-access-key")
        if words[-3] == "private":
            return KeyInfo(Role.SECRET, "private-key-id")
        return None

    if last == "data" and len(words) > 1 and words[-2] == "key":
        # kubeconfig's `client-key-data:` is the client's private key, base64-encoded (its
        # `client-certificate-data` and `certificate-authority-data` are public).
        return KeyInfo(Role.SECRET, "private-key")

    if last.endswith("token"):
        stem = last[: -len("token")]
        if stem and stem not in _CONCAT_TOKEN:
            return None
        if stem:
            prev = prev | {stem}
        if prev & _TOKEN_MODEL:
            return None
        kind = _token_kind(prev)
        if not prev or env or prev & _TOKEN_CRED:
            return KeyInfo(Role.SECRET, kind)
        return KeyInfo(Role.GENERIC, kind)

    if last.endswith("key"):
        stem = last[: -len("key")]
        if stem and stem not in _CONCAT_KEY:
            return None
        if stem:
            prev = prev | {stem}
        if prev & _KEY_PUBLIC:
            return None
        kind = _key_kind(prev)
        if prev & _KEY_CRED or (env and prev):
            return KeyInfo(Role.SECRET, kind)
        return KeyInfo(Role.GENERIC, kind)

    if last == "auth":
        if prev & {"basic", "http", "proxy", "redis", "api", "bearer", "docker", "registry", "digest"} or env:
            return KeyInfo(Role.SECRET, "password")
        return KeyInfo(Role.GENERIC, "auth") if not prev else None
    return None


# --- values -----------------------------------------------------------------------------

_EXEMPT_WORDS = frozenset(
    (
        "none", "null", "nil", "true", "false", "yes", "no", "undefined", "n/a", "na", "redacted",
        "masked", "hidden", "required", "optional", "incorrect", "invalid", "missing", "empty",
        "expired", "unset", "not", "is", "was", "set", "provided", "found", "ok", "from", "for",
        "and", "or", "with", "the", "to", "of", "in", "on", "changed", "updated", "saved",
        "accepted", "rejected", "denied", "failed", "error", "file", "stdin", "prompt", "env",
        "environment", "default", "auto", "off", "via", "instead", "flag", "option", "argument",
        "parameter", "when", "if", "only", "will", "must", "should", "can", "cannot", "may", "be",
        "are", "as", "at", "by", "an", "a", "it", "this", "that", "here", "there",
        # PAM's management group after the service in a module's log prefix: passwd's
        # `pam_unix(passwd:chauthtok): password changed for hfischer` (the password's type, not
        # one), systemd's `pam_unix(systemd-user:session): session opened for user ...`.
        "chauthtok", "session",
    )
)
_FILLER = frozenset("*xX.-_#?•")
# Source code shown in tracebacks: `token = os.environ[`, `password=get_password()`,
# `api_key=args.api_key`, `api_key=os.environ.get("MISTRAL_API_KEY` (a bare value runs on
# past a quote inside it). Narrow on purpose: `Hello.World1` is a password, not code.
_CODE = re.compile(
    r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:\((?:.*[)(]|[\"'][\w.-]*)?|\[)\Z"
    r"|(?:os|self|args|cfg|config|conf|settings|opts|options|params|kwargs|env|hparams|flags|FLAGS"
    r"|training_args|secrets|st|request|req|ctx|context|payload|headers|creds|credentials|auth|cls"
    r"|app)\.[A-Za-z_][\w.]*(?:[\[(].*)?\Z"
)


_REDACTED_REPRS = ("SecretStr('*", 'SecretStr("*', "SecretBytes(b'*", 'SecretBytes(b"*')


def exempt_value(value: str) -> bool:
    """Values that are never a credential: empty, null-ish, variables, fillers, placeholders."""
    if not value or value.lower() in _EXEMPT_WORDS or has_placeholder(value):
        return True
    first, last = value[0], value[-1]
    if (first == "<" and last == ">") or (first == "[" and last == "]"):
        return True  # <HUB_TOKEN>, <your-token>, [PAD], [your_api_key]
    if first == "(" and last == ")" and value[1:-1].lower() in _EXEMPT_WORDS:
        return True  # slack_sdk's `'Authorization': '(redacted)'`
    if first == "(" and value[1:].lower().startswith("sensitive"):
        return True  # Terraform's plan: `+ password = (sensitive value)`
    if value.startswith(_REDACTED_REPRS):
        return True  # pydantic's repr of a secret field: `SecretStr('**********')`
    if value.startswith(("<set to the key ", "&lt;set to the key ")):
        return True  # kubectl describe: `KEY:  <set to the key 'k' in secret 's'>  Optional: false`
    if value.startswith("&lt;") and value.endswith("&gt;"):
        return True  # the same, HTML-escaped by Slack
    if first == "$" and len(value) > 1 and (value[1] in "{(_" or value[1].isalpha()):
        return True
    if (first == "%" and last == "%") or value.startswith("{{"):
        return True
    return set(value) <= _FILLER


_PATH = re.compile(r"(?:/|~/|\./|\.\./)[\w.@+-]+(?:/[\w.@+-]*)+\Z")
_FILE_NAME = re.compile(r"[\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7}\Z")
_LOWER_PATH = re.compile(r"[a-z0-9_./~@+-]+\Z")


def looks_like_path(value: str) -> bool:
    """`GOOGLE_APPLICATION_CREDENTIALS=/home/alice/sa.json`: a file name, not its content.

    Base64 secrets contain `/` too (an AWS secret key may start with one), so a path must
    also read like one: a file extension at the end, or all-lowercase segments.
    """
    if _PATH.match(value) is None:
        return False
    return _FILE_NAME.match(value.rsplit("/", 1)[-1]) is not None or _LOWER_PATH.match(value) is not None


def looks_like_code(value: str) -> bool:
    """`os.environ[`, `get_token()`, `args.hf_token`: a traceback's source line, not a value."""
    return _CODE.match(value) is not None and not value[:1].isdigit()


# Digits after a dot only with the dot, so a long digit run that is not a number fails fast.
_NUMBER = re.compile(r"[-+]?(?:\d[\d_,]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)(?:\.\d+)*[a-zA-Z%]{0,3}\Z")
_FILE = re.compile(
    r"\.(?:json|jsonl|py|txt|bin|safetensors|model|yaml|yml|pt|pth|ckpt|log|csv|tsv|parquet|arrow|"
    r"tar|gz|zip|npy|npz|pkl|h5|onnx|md|sh|cfg|ini|toml|pem|crt|key|cert|tiktoken|vocab)\Z"
)
_WORDY = re.compile(
    r"(?:[a-z]+(?:[_\-.][a-z]+)*|[A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]+(?:_[A-Z]+)*|[A-Za-z_]\w*(?:\.\w+)+)\Z"
)


_SEGMENT_SPLIT = re.compile(r"[_\-.:/@]+")
_PLAIN_SEGMENT = re.compile(r"(?:[a-z]{1,12}|[A-Z][a-z]{1,11}|[A-Z]{1,6}|[0-9]{1,8})\Z")


# SSH key algorithm names: `debug1: Server host key: ssh-ed25519 SHA256:...` names the
# algorithm under a generic `key:`, and the fingerprint after it is public.
_KEY_ALGORITHM = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp(?:256|384|521)|rsa-sha2-(?:256|512)"
    r"|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)(?:-cert-v01@openssh\.com)?\Z"
)


def looks_like_secret(value: str) -> bool:
    """Shape gate for values under generic key names: long, mixed, random-looking."""
    n = len(value)
    if n < 8 or n > 8192 or exempt_value(value) or looks_like_code(value) or _KEY_ALGORITHM.match(value):
        return False
    if _NUMBER.match(value) or _FILE.search(value) or _WORDY.match(value):
        return False
    if "://" in value or value.startswith(("/", "./", "../", "~")):
        return False
    if all(_PLAIN_SEGMENT.match(s) for s in _SEGMENT_SPLIT.split(value) if s):
        return False  # `store_based_barrier_key:1`, `run-2024-05-01`: words and small numbers
    if char_classes(value) < 2:
        return n >= 20 and entropy(value) >= 3.0
    return entropy(value) >= (2.5 if n < 16 else 3.0)


# Accounts that identify a role or a protocol, not a person.
TECHNICAL_USERS = frozenset(
    (
        "root", "admin", "administrator", "ubuntu", "ec2-user", "user", "nobody", "postgres",
        "git", "oauth2", "x-access-token", "__token__", "$oauthtoken", "_json_key", "aws",
        "default", "anonymous", "guest", "runner", "jovyan", "token", "x-token-auth",
        "oauth2accesstoken", "_token", "json_key", "x-oauth-basic", "centos", "debian", "opc",
        "azureuser", "vscode", "coder", "node",
        # Azure Pipelines' hosted agents run as `vsts` (azcopy's `/home/vsts/.azcopy`); a
        # container's service user named for its job (`user: trainer` in a pod's YAML).
        "vsts", "trainer",
        # A database's role for a pipeline's loads (MySQL's `Access denied for user 'etl'@'...'`).
        "etl",
        # The Ray project's images run as `ray` (`/home/ray/ray_results/...` in every Tune
        # trial's path); learned as a login, it took `ray.exceptions` and `ray start` with it.
        "ray",
    )
)
_USER_SHAPE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}\Z")


def username_ok(value: str) -> bool:
    """A value that is a person's account name worth masking."""
    return (
        _USER_SHAPE.match(value) is not None
        and value.lower() not in TECHNICAL_USERS
        and value.lower() not in _EXEMPT_WORDS
        and not exempt_value(value)
    )
