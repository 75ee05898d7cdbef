"""Per-log state shared by the passes: placeholders, learned names, open multi-line blocks."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

import regex

from bot.literals import Words
from bot.masking.keys import TECHNICAL_USERS, KeyInfo, classify_key
from bot.masking.placeholders import PlaceholderTable

# Names we never learn as a user or host to mask everywhere: common words, default accounts,
# and every word that occurs inside our own placeholders (so a second pass cannot split one).
_STOP_NAMES = frozenset(
    (
        "root", "admin", "administrator", "user", "users", "guest", "nobody", "daemon", "ubuntu",
        "debian", "centos", "fedora", "ec2-user", "runner", "jovyan", "coder", "vscode", "node",
        "app", "worker", "docker", "www-data", "postgres", "mysql", "redis", "git", "localhost",
        "local", "host", "hostname", "master", "main", "head", "login", "compute", "gpu", "cpu",
        "server", "client", "default", "none", "null", "true", "false", "unknown", "test", "train",
        "eval", "data", "model", "models", "home", "scratch", "tmp", "temp", "shared", "public",
        "work", "project", "projects", "secret", "token", "key", "password", "ip", "ipv6", "email",
        "kind", "name", "service", "trainer", "training", "model", "dataset", "datasets",
        "checkpoint", "checkpoints", "ml", "ai", "llm", "cuda", "torch", "pytorch", "python",
        "nvidia", "nccl", "job", "jobs", "run", "runs", "experiment", "experiments", "ops", "dev",
        "prod", "staging",
        # A root directory's name, which a particle of a name can spell (`bin` of `Huda bin Laden`).
        "bin", "sbin", "usr", "lib", "lib64", "etc", "opt", "var", "proc", "sys", "srv", "mnt", "boot",
    )
)

_DNS_UNSAFE = re.compile(r"[._]+")
# A login of two names joined by a dot or an underscore (`mateo.galloway`, `radhika_villanueva`),
# and what a tool that drops those leaves of it (`mateogalloway`).
_JOINABLE = re.compile(r"[a-z]{3,20}[._][a-z]{3,30}")
_JOINED_SEP = re.compile(r"[._]")
# A login spelled `given.family` or `given_family` (not `svc_train`: the family part must be
# letters too, and the given name not a common word, `_WORDLIKE_GIVEN`).
_GIVEN_IN_LOGIN = re.compile(r"([a-z]{3,20})[._][a-z]{2,30}\Z")
# Given names that are also words a log or a thread uses (`Will this work`, `grant access`).
_WORDLIKE_GIVEN = frozenset(
    ("will", "mark", "may", "june", "april", "august", "grant", "rose", "max", "bill", "chase", "hunter", "page", "lane",
     "dean", "art", "ray", "gene", "pat", "sky", "summer", "autumn", "joy", "hope", "faith", "amber", "ruby", "jade",
     "crystal", "don", "bob", "rob", "sue", "ben", "jack", "frank", "earl", "guy", "norm", "sam", "dash", "kit",
     "storm", "river", "reed", "drew", "wade", "cliff", "glen", "penny", "victor", "miles", "ivy", "iris", "dawn",
     "sandy", "rusty", "buck", "carol", "patience", "fortune", "pearl", "sunny",
     "svc", "sys", "app", "api", "bot", "ci", "cd", "gpu", "cpu", "web", "dev", "ops", "test", "user", "team", "data",
     "admin", "build", "deploy", "service", "train", "model", "batch", "job",
     # names that are also what a training log prints: optimizers, model families, GPU
     # architectures, adapters, initialisers (`optimizer: Adam`, `google/gemma-2b`, `Grace Hopper`)
     "adam", "ada", "bert", "albert", "roberta", "bart", "ernie", "electra", "marian", "florence", "gemma",
     "grace", "pascal", "lora", "dora", "xavier", "kaiming", "lance", "rich", "sage", "nova", "luna", "stella",
     "flora")
)  # fmt: skip


def wordlike_login(login: str) -> bool:
    """A login that is also an English word (`grant`, `frank`, `will`): a person's where a
    tool prints it as a login, the word in a sentence (bot/masking/learned.py)."""
    return login in _WORDLIKE_GIVEN


# Accounts that services and CI run as (`/home/jenkins/workspace`, `USER=slurm`): learned as
# logins, but their capitalised name is the tool's (`Started by Jenkins`), no person's.
_SERVICE_ACCOUNTS = frozenset(
    ("jenkins", "gitlab", "github", "slurm", "munge", "hadoop", "hdfs", "yarn", "hive", "spark", "kafka", "zookeeper",
     "tomcat", "nginx", "apache", "elastic", "vagrant", "ansible", "deploy", "deployer", "builder", "buildkite",
     "circleci", "travis", "gitpod", "codespace", "conda", "anaconda", "ollama", "triton", "kubernetes", "docker",
     "mambauser", "mamba", "jupyter", "sagemaker", "azureml", "databricks", "colab", "kaggle", "gradle", "maven")
)  # fmt: skip
# Accounts a site numbers that name a role, not a person (`student12`, `demo3`, `kube38`).
_NUMBERED_ACCOUNTS = frozenset(
    ("student", "intern", "demo", "class", "course", "kube", "tutorial", "workshop", "account", "member", "research",
     "group", "proj", "team", "guest", "trial", "lab", "hpc", "tenant", "ci", "build", "agent", "bench", "temp")
)  # fmt: skip
_ESCAPED = re.compile(r"[^a-z0-9]")
# A letter of a name written in Chinese, Japanese (kana) or Korean (Hangul) characters; such a
# name is two to five of them (`李雷`, `田中美咲`). Shared with bot/masking/names.py.
CJK_LETTER = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3]"
_CJK_NAME = re.compile(CJK_LETTER + r"{2,5}")
# One word of a person's name, letters only (`Fischer`, `Müller`), no initials; a hyphen or
# apostrophe may join two (`Anne-Marie`, `Seo-yeon`, `D'Arcy`).
_NAME_PART = re.compile(r"(?=.{2,30}\Z)[^\W\d_]{1,30}(?:[-'’][^\W\d_]{1,30})?\Z")
# Letters that NFKD does not take apart: the ASCII a login or a bucket name spells them with.
_FOLD = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i", "þ": "th", "ð": "d"})


def ascii_folded(word: str) -> str:
    """`łukasz` as a login or a bucket spells it: `lukasz` (accents dropped, ł as l)."""
    decomposed = unicodedata.normalize("NFKD", word.lower().translate(_FOLD))
    return "".join(c for c in decomposed if not unicodedata.combining(c))
# Letters are Unicode letters: `hannah.garcía` is a name as much as `hannah.garcia`.
_NAME_SHAPE = re.compile(r"[^\W_][\w.-]{1,62}\Z")


def learnable(name: str) -> bool:
    """Whether `name` is specific enough to mask wherever it appears in the log."""
    return (
        len(name) >= 3
        and _NAME_SHAPE.match(name) is not None
        and name.lower() not in _STOP_NAMES
        and not name.isdigit()
    )


@dataclass
class LogState:
    """Everything a Masker remembers between chunks of one log."""

    table: PlaceholderTable = field(default_factory=PlaceholderTable)
    # Learned names, insertion-ordered; values are unused (dict as an ordered set).
    users: dict[str, None] = field(default_factory=dict)
    hosts: dict[str, None] = field(default_factory=dict)
    names: dict[str, None] = field(default_factory=dict)  # people's full names
    # Directories masked as a user's under /scratch/ or /lustre/, not learned (a project can
    # sit there too): the same directory under /data/ is that user's as well.
    path_users: dict[str, None] = field(default_factory=dict)
    # Registrable domains of people's e-mail addresses (`initech.de`): the organisation's own,
    # so a host under one (`gitlab.initech.de`) is an organisation host whatever its suffix.
    org_domains: dict[str, None] = field(default_factory=dict)
    org_rx: regex.Pattern[str] | None = None
    org_size: int = 0
    # W&B team entities seen in a login banner: not a person, kept in wandb.ai URLs.
    teams: dict[str, None] = field(default_factory=dict)
    # Secret values (and cloud account ids, placeholders.py) found while learning (value ->
    # kind): masked wherever they recur, even on a line that lacks the key that made them
    # recognisable (`value:` under `- name: X_PASSWORD`).
    secrets: dict[str, str] = field(default_factory=dict)
    # A PEM block was still open at the end of the previous chunk.
    pem_open: bool = False
    # An escaped key's string (a one-line JSON cut at a terminal's width) went on past the
    # end of the previous chunk.
    pem_escaped_open: bool = False
    # Lines of the open PEM block seen so far (caps runaway blocks with no END).
    pem_lines: int = 0
    # Indent of a Kubernetes Secret `data:` block still open at the end of the previous chunk.
    data_indent: int | None = None
    # A host/user table (kubectl, squeue, ps) whose rows ran to the end of the previous chunk:
    # (cell pattern, hosts.TableLayout).
    open_table: tuple[re.Pattern[str], tuple[dict[int, str], dict[int, re.Pattern[str]], int]] | None = None
    # Key name -> how its value is treated. Per log, not a process-wide cache: a "key" cut
    # out around an anchor word can be a piece of a secret (`...Xk9TOKENq...`).
    key_infos: dict[str, KeyInfo | None] = field(default_factory=dict)
    # The learned names and secrets as word sets (bot/masking/learned.py), rebuilt only when
    # one is added.
    learned_words: Words | None = None
    learned_size: int = 0
    # Indices in learned_words of the numbered hosts matched by their digit shape (learned.py:
    # their siblings go too), and every learned name's UTF-8 (a learned name is no sibling).
    learned_shaped: frozenset[int] = frozenset()
    learned_bytes: frozenset[bytes] = frozenset()
    # The learned logins that are English words (`grant`): matched only joined to a path or a name.
    learned_wordlike: frozenset[bytes] = frozenset()
    # A learned login's other spellings (`ALICE`, `Alice` for `alice`) -> the login, so a banner
    # that shouts it takes the login's own placeholder.
    learned_cases: dict[str, str] = field(default_factory=dict)
    # Logins read from a home directory (`/home/jli/`): a person's account for sure, so its
    # upper-case spelling (`JLI` in a banner) is hers whatever its shape.
    home_users: dict[str, None] = field(default_factory=dict)
    secrets_words: Words | None = None
    secrets_size: int = 0
    # The passes run to learn names (Masker.learn), their text thrown away.
    learning: bool = False

    def key_info(self, key: str) -> KeyInfo | None:
        """classify_key, remembered for this log (keys repeat on every line of a log)."""
        try:
            return self.key_infos[key]
        except KeyError:
            info = classify_key(key)
            if len(self.key_infos) < 4096:
                self.key_infos[key] = info
            return info

    def case_variants(self) -> dict[str, str]:
        """The upper-case and capitalised spellings of the lower-case logins learned (`ALICE`,
        `Alice`, `AMARA.OYELARAN` in a prolog's banner), each mapped to its login; not a
        login that is a word, a tool's or a service's (`Will`, `Jenkins`, `UBUNTU`), nor one
        already learned as something else (`Hannah`, a name). Only a login that reads as a
        person's (a name's shape, a number, a dot), or a home directory's login of an initial
        and a family name (`jli`, `ybenali`): a word learned as one (`error` of a
        `TODO(error)`) would take `ERROR` off every line."""
        from bot.masking.owners import (  # (owners.py imports this module)
            initial_and_name,
            person_login,
        )

        cases: dict[str, str] = {}

        for user in self.home_users:
            upper = user.upper()
            if initial_and_name(user) and not wordlike_login(user) and upper not in self.names:
                cases.setdefault(upper, user)
        for user in self.users:
            if len(user) < 4 or not user.islower() or wordlike_login(user) or not self._given_like(user.rstrip("0123456789")):
                continue
            if not (person_login(user) or "." in user or "_" in user or (user[-1].isdigit() and user[0].isalpha())):
                continue
            for variant in (user.upper(), user[0].upper() + user[1:]):
                if variant != user and variant not in self.users and variant not in self.names:
                    cases.setdefault(variant, user)
        return cases

    def learn_user(self, name: str) -> None:
        if learnable(name):
            self.users.setdefault(name, None)
            # `lucia.fernandez` is Lucia to her colleagues: her given name goes too, and her
            # whole name as a chat or a roster writes it (`Lucia Fernandez`), with the other
            # logins a cluster makes of it (`lfernandez`, `luciafernandez`).
            given = _GIVEN_IN_LOGIN.match(name)
            if given is not None:
                self._learn_given(given.group(1))
                first, _, last = name.replace("_", ".").partition(".")
                if first.isalpha() and last.isalpha() and first.lower() not in _WORDLIKE_GIVEN:
                    full = f"{first.capitalize()} {last.capitalize()}"
                    if full not in self.names:
                        self.learn_name(full)
            elif name.isalpha() and name.islower() and 4 <= len(name) <= 12 and self._given_like(name):
                # `dragan` is the given name a cluster made a login of: `Dragan will rerun`.
                self._learn_given(name)
            # `kagiso63`: a cluster numbered the name it was given (`kagiso-lr5e-4`, `Kagiso
            # will rerun`); not a short stem, which could be a word's (`dev1`, `ops2`).
            stem = name.rstrip("0123456789")
            if (
                stem != name
                and len(stem) >= 4
                and stem.isalpha()
                and len(name) - len(stem) <= 3
                and stem not in _NUMBERED_ACCOUNTS
                and self._given_like(stem)
            ):
                self._learn_given(stem)
            # `hannah.fischer` is `hannah-fischer` in a Kubernetes namespace or pod name (DNS
            # labels allow neither dots nor underscores nor capitals): learn that form too.
            # `mateo.galloway` runs together where a tool drops what a name may not hold:
            # SkyPilot's cluster names (`sky-ff6c-mateogalloway`), a Hub account's repositories.
            joined = _JOINED_SEP.sub("", name.lower())
            if joined != name.lower() and _JOINABLE.fullmatch(name.lower()) and learnable(joined):
                self.users.setdefault(joined, None)
            dns = _DNS_UNSAFE.sub("-", name.lower())
            if dns != name.lower() and learnable(dns):
                self.users.setdefault(dns, None)
                # JupyterHub's KubeSpawner escapes the name instead: `jupyter-hannah-2efischer`.
                escaped = _ESCAPED.sub(lambda m: f"-{ord(m.group()):02x}", name.lower())
                if learnable(escaped):
                    self.users.setdefault(escaped, None)

    def learn_name(self, name: str) -> None:
        """A person's name (`Hannah Fischer`): masked wherever it recurs in the log.

        A given and a family name also spell the account names a cluster gives that person
        (`hannah.fischer`, `hfischer`), which show in namespaces and pod names with no other
        hint of whose they are (`user-hannah-fischer`, `hfischer-sft-0`): learned as users.
        """
        # (A name in Chinese or Japanese characters is two or three of them: `李雷`, `王芳`.)
        if (4 <= len(name) <= 128 or _CJK_NAME.fullmatch(name)) and name.lower() not in _STOP_NAMES and any(c.isalpha() for c in name):
            self.names.setdefault(name, None)
            family, comma, given = name.partition(", ")
            # (A family name of several words too: `Bin Laden, Huda`, `van der Berg, Bram`.)
            if comma and all(_NAME_PART.match(w) for w in family.split()) and _NAME_PART.match(given):
                # A directory's `Fischer, Hannah` (Teams, Outlook) is `Hannah Fischer` in prose
                # and in her logins.
                self.learn_name(f"{given} {family}")
                return
            parts = name.lower().split()
            if len(parts) == 2 and all(_NAME_PART.match(p) for p in parts):
                first, last = parts
                # Clusters hand out logins of these shapes: `hannah.fischer`, `hannah_fischer`,
                # `hfischer`, and, longer so that they spell no word, `fischerh`, `hannahfischer`.
                logins = [f"{first}.{last}", f"{first}_{last}", f"{first[0]}{last}"]
                logins += [login for login in (f"{last}{first[0]}", f"{first}{last}") if len(login) >= 6]
                for user in logins:
                    self.learn_user(user)
                    if not user.isascii():  # `Łukasz Wójcik` logs in as `lwojcik`
                        self.learn_user(ascii_folded(user))
                self._learn_given(name.split()[0])
            elif len(parts) == 1:
                self._learn_given(name)
            elif len(parts) > 2:
                # `Astrid van der Berg`, `Aarav dos Santos Lima`: the first word is the given name.
                self._learn_given(name.split()[0])
                words = name.split()
                if len(words) == 4 and all(w[:1].isupper() for w in words):
                    # Spanish and Portuguese names give two given names before two family
                    # names (`Juan Carlos Pérez Gómez`), which a thread writes together.
                    self.names.setdefault(" ".join(words[:2]), None)

    @staticmethod
    def _given_like(login: str) -> bool:
        """A one-word login that may be a given name: not a tool's or a service's account
        (`jenkins`, `airflow`, `slurm`), whose capitalised name is the tool's."""
        from bot.masking.owners import names_a_tool  # (owners.py imports this module)

        return (
            not names_a_tool(login)
            and login not in TECHNICAL_USERS
            and login not in _SERVICE_ACCOUNTS
            and any(c in "aeiouy" for c in login)
        )

    def _learn_given(self, given: str) -> None:
        """A given name alone (`ping Dana`, `Thanks Lukas!`) and its lowercase in the names
        people give their things (`s3://acme-ml-lucia/ckpt`), unless it is also a common word."""
        if _NAME_PART.match(given) and given.lower() not in _WORDLIKE_GIVEN and learnable(given.lower()):
            self.names.setdefault(given[0].upper() + given[1:].lower(), None)
            if not given[1:].islower() and given[0].isupper():
                self.names.setdefault(given, None)  # `Anne-Marie` as written, beside `Anne-marie`
            self.users.setdefault(given.lower(), None)
            folded = ascii_folded(given)
            if folded != given.lower() and folded.isascii() and learnable(folded):
                self.users.setdefault(folded, None)  # `Łukasz` in `s3://lukasz-llm-ckpts`

    def learn_host(self, name: str) -> None:
        # Known already (a prefix host is learned again on every line it leads): nothing to check.
        if name not in self.hosts and learnable(name):
            self.hosts.setdefault(name, None)
