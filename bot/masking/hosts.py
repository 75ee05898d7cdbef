"""Host names: public services to keep, organisation hosts to mask, host-shaped values."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import Counter
from collections.abc import Iterator
from itertools import chain

import regex

from bot.launchers import LAUNCHER_LABEL, LINE_PREFIX
from bot.literals import DIGITS_AS_ZERO, LiteralSet, Words, last_text_memo, one_byte
from bot.masking.edits import Edit
from bot.masking.guards import declare, holds
from bot.masking.lines import NEXT_LINE, REACH, LinePattern, past_prefix
from bot.masking.state import LogState

# The literals this module tests a whole piece for, found by one scan (guards.py).
declare("IdentityFile", "HostName", "JobID", "---", "RawShares", "Proper Name", "Username", "Def Acct", "Cluster")

# Public services: naming them tells the reader which service failed and leaks nothing.
PUBLIC_HOSTS = frozenset(
    (
        "huggingface.co", "hf.co", "xethub.hf.co", "wandb.ai", "wandb.com", "nvcr.io", "nvidia.com",
        "ngc.nvidia.com", "github.com", "githubusercontent.com", "github.io", "ghcr.io", "gitlab.com",
        "bitbucket.org", "pypi.org", "pythonhosted.org", "python.org", "pytorch.org", "amazonaws.com",
        "amazonaws.com.cn", "aws.amazon.com", "cloudfront.net", "googleapis.com", "google.com",
        "gcr.io", "pkg.dev", "googleusercontent.com", "core.windows.net", "windows.net", "azure.com",
        "azurecr.io", "microsoft.com", "microsoftonline.com", "docker.io", "docker.com", "quay.io", "anaconda.org",
        "anaconda.com", "conda-forge.org", "condaforge.org", "ubuntu.com", "debian.org",
        "readthedocs.io", "readthedocs.org", "stackoverflow.com", "openai.com", "anthropic.com",
        "slack.com", "deepspeed.ai", "lightning.ai", "ray.io", "anyscale.com", "tensorflow.org",
        "kaggle.com", "arxiv.org", "nccl.nvidia.com", "mellanox.com", "intel.com", "amd.com",
        "npmjs.org", "npmjs.com", "rust-lang.org", "golang.org", "kernel.org", "archive.org",
        "wikipedia.org", "example.org", "cloudflare.com", "fastly.net", "akamaihd.net", "jfrog.io",
        "sentry.io", "modal.com", "replicate.com", "cohere.ai", "mistral.ai", "groq.com",
        "together.ai", "comet.com", "comet.ml", "neptune.ai", "clear.ml", "mlflow.org",
        # LLM inference APIs a training or eval run calls (Together's is api.together.xyz,
        # Cohere's api.cohere.com).
        "together.xyz", "cohere.com", "openrouter.ai", "fireworks.ai", "perplexity.ai", "deepseek.com",
        # Public package and model mirrors pip, conda and the Hub are pointed at.
        "fbaipublicfiles.com", "hf-mirror.com", "modelscope.cn", "tsinghua.edu.cn", "ustc.edu.cn",
        "sjtu.edu.cn", "aliyun.com", "download.nvidia.com", "nvidia.cn", "linkedin.com",
        # Public container registries (Kubernetes' own, ECR Public).
        "k8s.io", "ecr.aws",
        # Notification and infrastructure services a job reports to (a bot's token is in the
        # path, masked on its own): Telegram's and Discord's APIs, HCP Terraform.
        "telegram.org", "discord.com", "discordapp.com", "terraform.io",
        # On-call and monitoring services an alert goes to (the key in a URL's path is masked on
        # its own): PagerDuty, Opsgenie, Healthchecks.io's ping host, Datadog.
        "pagerduty.com", "opsgenie.com", "hc-ping.com", "healthchecks.io", "datadoghq.com", "datadoghq.eu",
        # The domain of GCP's default compute service account, `<number>-compute@developer.
        # gserviceaccount.com`: its number is masked, the domain is Google's. (Not the whole
        # `gserviceaccount.com`: `trainer@<project>.iam.gserviceaccount.com` is masked whole.)
        "developer.gserviceaccount.com",
    )
)
# Azure storage URLs put the container where a login would stand (`abfss://<container>@<account>
# .dfs.core.windows.net/`): a container's name, no one's login.
STORAGE_CONTAINER_SCHEMES = ("wasb", "wasbs", "abfs", "abfss")
# Public-cloud host names that spell out the instance's address: mask despite the suffix.
_ADDRESS_HOST = re.compile(r"(?:ec2|ip)-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}\b")
# A managed database's or cache's endpoint under the cloud's domain is named by its customer
# (`acme-sql-prod.database.windows.net`, `ml-db.c9akciq32.us-east-1.rds.amazonaws.com`): the
# organisation's server, masked despite the suffix.
_CUSTOMER_ENDPOINTS = (
    ".database.windows.net", ".database.azure.com", ".redis.cache.windows.net", ".rds.amazonaws.com",
    ".cache.amazonaws.com",
)
# (GCP's metadata server, like `169.254.169.254`, is the same name on every VM.)
# (So are the search domains a resolv.conf lists on every pod or instance: the cluster's
# `svc.cluster.local`, EC2's `ec2.internal` and `us-west-2.compute.internal`: no machine's name.)
_KEEP_HOSTS = frozenset(
    ("localhost", "localhost.localdomain", "ip6-localhost", "host.docker.internal", "metadata.google.internal",
     "svc.cluster.local", "cluster.local", "ec2.internal")
)  # fmt: skip
_EC2_REGION_DOMAIN = re.compile(r"[a-z]{2}(?:-gov)?-[a-z]{4,9}-\d\.compute\.internal")


def is_public_host(host: str) -> bool:
    """True for hosts of public services (and their subdomains), which stay readable."""
    host = host.lower().rstrip(".")
    if host in _KEEP_HOSTS or (host.endswith(".compute.internal") and _EC2_REGION_DOMAIN.fullmatch(host)):
        return True
    if _ADDRESS_HOST.match(host) or host.endswith(_CUSTOMER_ENDPOINTS):
        return False
    if host in PUBLIC_HOSTS:
        return True
    dot = host.find(".")
    while dot != -1:
        if host[dot + 1 :] in PUBLIC_HOSTS:
            return True
        dot = host.find(".", dot + 1)
    return False


# Top-level labels of private networks. Two labels suffice for the unambiguous ones
# (`node07.internal`); `threading.local()` or `ray.cluster` are Python, so the others need a
# host-like first label (digit or dash: `gpu07.local`) or three labels.
_PRIVATE_TLDS = "internal|localdomain|lan|corp|intranet|local|intra|private|priv|cluster|svc|hpc"
_PRIVATE_SURE = frozenset(("internal", "localdomain", "lan", "corp", "intranet"))
# Public top-level labels; names under them need three labels, since `tf.io` or `self.ai`
# are Python attribute chains, not hosts. File extensions (py, sh, pt, md, so) and language
# codes (`newstest2014.en-de.de`, `train.tok.fr`) are left out on purpose.
_PUBLIC_TLDS = "com|net|org|edu|gov|mil|io|ai|dev|app|co|us|uk|eu|info|biz|tech|xyz|me"
# Country labels universities and labs sit under (`login2.hpc.uni-heidelberg.de`,
# `gpu07.cluster.ethz.ch`). They double as language codes of parallel corpora
# (`newstest2014.en-de.de`, `train.tok.de`) and `pt`, `pl`, `in`, `it` as file extensions or
# words, so those are left out and a name under one needs three labels and a host's look.
_COUNTRY_TLDS = "de|ch|fr|nl|se|fi|dk|cz|jp|kr|cn|tw|sg|au|ca|il|ru|br|nz|ie|hk|at"
# ... and labels that begin words of a traceback too (`.normalize`, `.estimator`): the line gate
# below wants a non-word character after them.
_COUNTRY_TLDS_WORDLIKE = "no|es|hu|gr|sk|si|ee|lt|lv|ro|hr|za|mx|cl"
_TLDS = frozenset(
    (*_PRIVATE_TLDS.split("|"), *_PUBLIC_TLDS.split("|"), *_COUNTRY_TLDS.split("|"), *_COUNTRY_TLDS_WORDLIKE.split("|"))
)
_TLD_RX = re.compile(
    r"\.(?:(?P<private>" + _PRIVATE_TLDS + r")|(?P<public>" + _PUBLIC_TLDS + r")|(?P<country>" + _COUNTRY_TLDS + "|"
    + _COUNTRY_TLDS_WORDLIKE + r"))"
    r"(?![^\W_]|-|\.[A-Za-z0-9])"
)
# A name glued by `_` to what follows (`gpu-node-17.acme.internal_rank3.log`, a file a rank
# writes) is a machine's when its first label is one's, with a digit or a dash: an attribute
# path runs into `_` as well (`args.local_rank`, `self.internal_state`).
_GLUED_MACHINE_LABEL = re.compile(r"[A-Za-z0-9-]*[0-9-]")
# Second-level labels of academic and company zones: `ac.uk`-like, `edu.au`, `co.jp`.
_ZONE_LABELS = frozenset(("ac", "edu", "co", "com", "org", "net", "gov", "or", "ne", "go", "res", "uni"))
# A language pair or a tokenised-corpus stage between the dots: a data file, not a host.
_CORPUS_LABEL = re.compile(r"[a-z]{2}(?:[-_][a-z]{2})?|tok|bpe|spm|sp|clean|norm|lc|tc|true|raw|src|tgt|train|valid|dev|test|dedup")


def _country_host(head: str) -> bool:
    """Whether `head` (the labels before a country label, with the dot) reads as a host."""
    labels = head.rstrip(".").split(".")
    if len(labels) < 2:
        return False
    # A data file names its language pair or stage last (`wmt14.en.de`, `train.tok.clean.de`); a
    # department's two letters sit between a machine and its organisation's name
    # (`ray-head.cs.brightmoor.de`, `gpu01.ml.uni-kassel.de`), which no corpus label is.
    org = labels[-1]
    inner_pair_ok = len(labels) >= 3 and len(org) >= 4 and not _CORPUS_LABEL.fullmatch(org)
    if any(
        _CORPUS_LABEL.fullmatch(label) and label not in _ZONE_LABELS and not (inner_pair_ok and len(label) == 2)
        for label in labels[1:]
    ):
        return False
    if len(labels) >= 3 or labels[-1] in _ZONE_LABELS:
        return True
    return any(c.isdigit() or c == "-" for c in labels[0]) or "-" in labels[-1]
# The line gate of find_fqdns (bot/masking/gate.py): a dot and a top-level label, `_TLD_RX`
# without its look-ahead (a log's `.config` and `.mean` are few lines).
FQDN_TRIGGER = (
    r"\.(?:" + _PRIVATE_TLDS + "|" + _PUBLIC_TLDS + "|" + _COUNTRY_TLDS + ")"
    r"|\.(?:" + _COUNTRY_TLDS_WORDLIKE + ")[^A-Za-z0-9_-]"
)
_LABEL_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."
# A DNS prefix of a Kubernetes label or annotation key: `prefix/name=value`, `"prefix/name": `.
_LABEL_KEY_AFTER = re.compile(r"/[A-Za-z0-9][\w.-]{0,62}(?:=|\"?:[ \t])")
_HOST_RX = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,16}\Z")


# Kubernetes Services' cluster DNS names, `<service>.<namespace>.svc[.cluster.local]` (each
# of its last three labels is a private top-level label's anchor): resources, named by whoever
# wrote the chart. (A namespace named for a person is masked as that person's learned login.)
SERVICE_DNS = (".svc", ".svc.cluster", ".svc.cluster.local")


# A log level and the blank before a logger's name (`%(levelname)s %(name)s: %(message)s`).
_LOGGER_BEFORE = re.compile(r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)[ \t]+\Z")
# A logger's name is a module's dotted path: letters alone between the dots (no machine's digit or dash).
_MODULE_PATH = re.compile(r"[a-z]+(?:\.[a-z]+)+")


def find_fqdns(text: str, edits: list[Edit]) -> None:
    """Mask fully qualified names on private or organisation domains.

    Anchored on the top-level label (found by a literal scan), then extended leftwards over
    at most 253 host characters, so every anchor costs a bounded amount of work.
    """
    for m in _TLD_RX.finditer(text):
        dot = m.start()
        lo = max(dot - 253, 0)
        # str.rstrip runs in C: the leftward extension costs no Python loop per character.
        i = lo + len(text[lo:dot].rstrip(_LABEL_CHARS))
        glued = i > 0 and text[i - 1] == "_"
        head = text[i : dot + 1]
        head = head[head.rfind("..") + 2 :] if ".." in head else head
        head = head.lstrip(".-")
        start = dot + 1 - len(head)
        if not head or not _HOST_RX.match(head):
            continue
        labels = head.count(".") + 1
        if m.group("country") is not None:
            if not _country_host(head):
                continue
        elif labels < 3:
            private = m.group("private")
            if private is None:
                continue
            if private not in _PRIVATE_SURE and not any(c.isdigit() or c == "-" for c in head):
                continue
        name = text[start : m.end()]
        if name[0].isdigit() and name.replace(".", "").replace("-", "").isdigit():
            continue
        # Glued by `_` on either side (`host_gpu-7.acme.internal_3`, a job or file name), the
        # name is a machine's when its first label is one's: `my_model.internal` and
        # `args.local_rank` are identifiers.
        if (glued or text.startswith("_", m.end())) and not _GLUED_MACHINE_LABEL.match(name, 0, name.find(".")):
            continue
        if is_public_host(name):
            continue
        if name.endswith(SERVICE_DNS):
            continue  # `redis-master.ml.svc.cluster.local`: a Kubernetes Service in its namespace, no machine
        if text.startswith(":", m.end()) and _LOGGER_BEFORE.search(text, max(0, start - 12), start) and _MODULE_PATH.fullmatch(name):
            continue  # `INFO mlflow.projects.backend.local: === Running command`: a logger's name after its level
        # (`//` or `@` on the name's own line: the line gate gives a row its lines alone.)
        if _LABEL_KEY_AFTER.match(text, m.end()) and not text.startswith(("//", "@"), max(text.rfind("\n", 0, start) + 1, start - 2)):
            continue  # `training.kubeflow.org/replica-index=0`: a Kubernetes label key's prefix
        edits.append((start, m.end(), "host", name))


# Mail providers anyone has an address at: their domain is no organisation's.
_MAIL_PROVIDERS = frozenset(
    ("gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com", "msn.com", "yahoo.com", "icloud.com",
     "me.com", "proton.me", "protonmail.com", "gmx.de", "gmx.net", "web.de", "qq.com", "163.com", "126.com",
     "yandex.ru", "mail.ru", "aol.com", "fastmail.com", "zoho.com")
)  # fmt: skip
# Second-level labels under which a country's registrable domains sit (`acme.co.uk`).
_SECOND_LEVEL = frozenset(("co", "ac", "com", "org", "net", "gov", "edu", "or", "ne", "go"))


def learn_org_domain(domain: str, state: LogState) -> None:
    """Learn the registrable domain of a person's address (`hannah@mx.initech.de`: `initech.de`)."""
    labels = domain.lower().rstrip(".").split(".")
    keep = 3 if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL else 2
    org = ".".join(labels[-keep:])
    if len(labels) >= keep and org not in _MAIL_PROVIDERS and not is_public_host(org) and labels[-1] not in _PRIVATE_SURE:
        state.org_domains.setdefault(org, None)


def find_org_hosts(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask hosts under an organisation's domain the log's e-mail addresses showed, whatever
    its suffix: `mx1.initech.de`, `gitlab.initech.de` (country-code suffixes are otherwise
    left alone: `newstest2014.en-de.de` is a file)."""
    if not state.org_domains:
        return
    present = [d for d in state.org_domains if d in text]
    if not present:
        return
    if state.org_rx is None or state.org_size != len(state.org_domains):
        # Not in the regex module's pattern cache: it spells out the log's domains.
        state.org_rx = regex.compile(
            r"(?<![\w.%-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}(?:"
            + "|".join(re.escape(d) for d in state.org_domains)
            + r")(?![\w-]|\.[A-Za-z0-9])",
            cache_pattern=False,
        )
        state.org_size = len(state.org_domains)
    for m in state.org_rx.finditer(text):
        edits.append((m.start(), m.end(), "host", m.group()))


_HOST_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63}){0,16}\Z")
_NODELIST = re.compile(r"[A-Za-z][\w-]{0,62}\[[\d,\-]{1,200}\][\w.-]{0,63}\Z")
IPV4ISH = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}\Z")


_HEX_NUMBER = re.compile(r"0x[0-9a-fA-F]{1,16}")


def host_value_ok(value: str) -> bool:
    """A value in a host position that names an organisation's machine."""
    if not value or value.lower() in _KEEP_HOSTS or IPV4ISH.match(value):
        return False
    if value[0] in "$%{<[" or value.isdigit() or ":" in value or value.endswith(SERVICE_DNS):
        return False
    if value.startswith("0x") and _HEX_NUMBER.fullmatch(value):
        return False  # /proc/net/arp's `HW type` and `Flags` cells after the address: `0x1  0x2`
    if _NODELIST.match(value):
        return True
    if not _HOST_VALUE.match(value) or not any(c.isalpha() for c in value):
        return False
    return not is_public_host(value) and value.lower() not in ("none", "null", "true", "false", "auto")


# Positions where a bare word is a host: c10d's `[host]:port`, NCCL's `peer host<port>`,
# ssh's `connect to host X port`, curl's `resolve host: X`, c10d's `connect to (X, port)`.
# One pattern per literal lead, each run only when its literal occurs.
_H = r"(?P<h>[A-Za-z][A-Za-z0-9.-]{0,252})"
_IMAGE_HOST = r"(?P<h>[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63}){1,8})(?::\d{1,5})?/[a-z0-9]"
_IMAGE_LEADS = (
    ('image "', r'[Ii]mage "'), ("image:", r"[Ii]mage:[ \t]+[\"']?"),
    *((f"docker {verb} ", rf"docker {verb} [^\n]{{0,400}}?(?<=[ \t])") for verb in ("pull", "push", "run", "tag", "create")),
)
_IMAGE_LITERALS = frozenset(literal for literal, _ in _IMAGE_LEADS)
# Names no position holds as a host: a launcher's rank label, `localhost`.
_NOT_POSITION_HOSTS = ("rank", "default", "local")
class _OnLinesHolding:
    """`rx.finditer(text)` for a pattern whose every match lies within one line that holds
    `lead` (any case): tried on those lines only. `re` tries a `(?m)^` alternative at every
    position of the text (iblinkinfo's `CA: ` header: 10-20 ms a MB on every NCCL log whose
    `NCCL_IB_HCA set to mlx5_0,...` made ` mlx5_` present), and finds the lead itself in C."""

    __slots__ = ("_lead", "_rx")

    def __init__(self, lead: str, rx: re.Pattern[str]) -> None:
        self._lead = re.compile(re.escape(lead), re.IGNORECASE)
        self._rx = rx

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        end = -1
        for hit in self._lead.finditer(text):
            if hit.start() < end:
                continue  # a line already read
            # (`^` matches at a start just after a newline: the line is read as in the text.)
            start = text.rfind("\n", 0, hit.start()) + 1
            end = text.find("\n", hit.end())
            if end < 0:
                end = len(text)
            yield from self._rx.finditer(text, start, end)


_POSITIONS: list[tuple[str, re.Pattern[str] | LinePattern | _OnLinesHolding]] = [
    # A port, not torchrun's `[default0]:2023-10-02 ...` line prefix. (Those names are passed
    # over in the pattern too: c10d's `[localhost]:29500` is on every line of a retry flood.)
    ("]:", re.compile(r"\[(?!" + "|".join(_NOT_POSITION_HOSTS) + ")" + _H + r"\]:\d{1,5}(?![\d:.-])")),
    ("peer ", re.compile(r"peer " + _H + r"<\d")),
    ("to host ", re.compile(r"to host " + _H + r" port")),
    ("resolve host: ", re.compile(r"resolve host: " + _H)),
    ("connect to (", re.compile(r"connect to \(" + _H + r", ?\d")),
    # c10d: `The client socket will attempt to connect to an IPv6 address of (host, 23456).`
    ("address of (", re.compile(r"address of \(" + _H + r", ?\d")),
    # ... `The IPv6 network addresses of (hpc-login-2, 29500) cannot be retrieved`.
    ("addresses of (", re.compile(r"addresses of \(" + _H + r", ?\d")),
    # libpq: `Is the server running on host "pgdb-prod-01" (10.4.2.9) and accepting`, and
    # since PostgreSQL 14 `connection to server at "pgdb-prod-01" (10.4.2.9), port 5432 failed`.
    ("running on host \"", re.compile(r"running on host \"" + _H + r"\"")),
    # (Under `connection to `: the anchor scan reports no word overlapping another.)
    ("connection to ", re.compile(r"onnection to server at \"" + _H + r"\"")),
    # ... and when the name does not resolve: `could not translate host name "pg-primary" to address`.
    ("translate host name \"", re.compile(r"translate host name \"" + _H + r"\" to address")),
    # `uname -a`: `Linux gpu-node-07 5.15.0-91-generic #101-Ubuntu SMP ...`.
    ("linux ", LinePattern(r"[ \t]*Linux " + _H + r" \d{1,2}\.\d{1,3}\.\d{1,4}[\w.+~-]{0,64} #\d")),
    # PBS's `qstat -f` names a job's owner as the account at the host it was submitted from:
    # `Job_Owner = hfischer@login07` (the account is masked as a key's value by then).
    ("job_owner = ", re.compile(r"Job_Owner = (?:<USER-\d{1,9}>|[\w.-]{1,32})@" + _H + r"(?![\w.-])")),
    # An Azure VM's resource id names the machine (a VMSS the machines it numbers, their
    # names its prefix): `.../Microsoft.Compute/virtualMachines/nd96-vm-02`,
    # `virtualMachineScaleSets/gpu-vmss/virtualMachines/3` (an instance's number is kept).
    ("/virtualmachine", re.compile(r"/virtualMachine(?:s|ScaleSets)/(?!\d{1,6}(?![\w.-]))" + _H + r"(?![\w.-])", re.I)),
    # ssh, pdsh and Slurm name the node they are talking about.
    ("resolve hostname ", re.compile(r"resolve hostname " + _H + r":")),
    ("authenticity of host '", re.compile(r"authenticity of host '" + _H)),
    # `Warning: Permanently added 'gpu-07,10.1.2.7' (ED25519) to the list of known hosts.`
    ("permanently added '", re.compile(r"ermanently added '\[?" + _H + r"[',\]]")),
    # ibhosts names each HCA's node after its GUID: `Ca : 0x0c42... ports 1 "a100-03 mlx5_0"`.
    # (A switch's is the vendor's words unless it was named: `"Quantum Mellanox Technologies"`.)
    (" ports ", re.compile(r"0x(?:<MAC-\d{1,9}>|[0-9a-f]{16}) ports \d{1,3} \"" + _H + r"(?! Mellanox| Technologies)[ \"]")),
    # ... and ibnetdiscover after the GUID's `#`: `Ca	1 "H-0c42a103..."		# "a100-03 mlx5_0"`.
    (" mlx5_", re.compile(r"# \"" + _H + r" mlx5_\w{1,16}\"")),
    # ... and iblinkinfo, each HCA's header (`CA: gpu-node-07 mlx5_0:`, `CA: n02 HCA-1:`) and the
    # far end of a link (`==>  22   1[  ] "centos-data-202 HCA-1" ( )`; `--line`'s local end
    # padded inside its quotes, `"       ib-test-7 mlx4_0"`). A node that was never named keeps
    # the vendor's words (`"MT25408 ConnectX Mellanox Technologies"`).
    *((lead, _OnLinesHolding(lead, re.compile(r"(?:^[ \t]*CA: |\"[ \t]*)" + _H + f"(?i:{lead})" + r"\w{1,16}[\":]", re.M)))
      for lead in (" mlx5_", " mlx4_", " hca-")),
    # nslookup's answer: `Non-authoritative answer:` then `Name:	login01.acme.de`; the name
    # it was asked for (`$ nslookup gw3.cs.ethz.ch`).
    ("answer:", re.compile(r"answer:\r?\nName:[ \t]+" + _H)),
    ("nslookup ", re.compile(r"nslookup (?:-[\w=-]{1,32} )*" + _H + r"(?=[ \t]*$|[ \t]+\d)", re.M)),
    # perftest's client names the server last: `ib_write_bw -d mlx5_0 -x 3 --report_gbits gn059`.
    *((tail, re.compile(r"\bib_(?:write|read|send|atomic)" + re.escape(tail) + r"[^\n]{0,400}?[ \t]" + _H + r"[ \t]*\r?$", re.M))
      for tail in ("_bw ", "_lat ")),
    # Prometheus names a scrape target `host:port` in its `instance` label (`instance="gn101:9100"`,
    # Alertmanager's `instance=gn101:9100`).
    ("instance=", re.compile(r"instance=\"?" + _H + r":\d{1,5}\b")),
    # An Azure ML compute instance mounts its code under its own name:
    # /mnt/batch/tasks/shared/LS_root/mounts/clusters/<compute>/code/Users/<user>/.
    ("/mounts/clusters/", re.compile(r"/mounts/clusters/" + _H + r"/")),
    # traceroute's header; `host`'s NXDOMAIN; curl 7; Node's resolver error.
    ("traceroute to ", re.compile(r"traceroute6? to " + _H + r" \(")),
    (" not found: ", re.compile(r"Host " + _H + r" not found: ")),
    # (By curl's error number: c10d's `failed to connect to [host]:port` fills whole logs.)
    ("(7) failed to connect to ", re.compile(r"\(7\) Failed to connect to " + _H + r" port \d")),
    ("getaddrinfo ", re.compile(r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN) " + _H)),
    # A TensorBoard event file is named for the machine that wrote it,
    # `events.out.tfevents.<time>.<hostname>.<pid>.<n>` (`.v2` after TF 2's), and the run
    # directory SummaryWriter and HF's Trainer make by default is `runs/<Mon><dd>_<HH-MM-SS>_<hostname>`.
    # (A label of digits alone ends the host: the pid. Each label is read once, no splits tried.)
    ("tfevents.", re.compile(r"tfevents\.\d{9,11}\.(?P<h>[A-Za-z][A-Za-z0-9-]{0,62}(?:\.(?=[0-9-]{0,62}[A-Za-z])[A-Za-z0-9-]{1,63}){0,8})(?![\w-])")),
    ("runs/", re.compile(r"runs/[A-Z][a-z]{2}\d\d_\d\d-\d\d-\d\d_" + _H + r"(?![\w-])")),
    # iputils' ping when the name does not resolve: `ping: hpc-storage01: Name or service not
    # known` (`Temporary failure in name resolution`), older ones `ping: unknown host hpc-storage01`.
    ("ping: ", re.compile(r"ping6?: " + _H + r": (?:Name or service|Temporary failure|No address)")),
    ("ping: unknown host ", re.compile(r"ping6?: unknown host " + _H)),
    # The NFS server a mount names, `server:/export`: `mount.nfs: access denied by server while
    # mounting nfs01:/export/home`, `mount -t nfs nfs01.acme.lan:/export /mnt/data`.
    *((lead, re.compile(re.escape(lead) + r"[^\n]{0,200}?[ \t]" + _H + r":/(?!/)")) for lead in ("mount.nfs", "mount -t nfs")),
    ("pdsh@", re.compile(r"pdsh@" + _H + r":")),
    ("srun: error: ", re.compile(r"srun: error: " + _H + r": task")),
    # scontrol show job: `AllocNode:Sid=login03:44013`, the node the job was submitted from.
    ("allocnode:sid=", re.compile(r"AllocNode:Sid=" + _H + r":\d")),
    # slurmctld: `update_node: node r055 reason set to: Xid 79`, `... state set to DRAINING`.
    ("update_node: node ", re.compile(r"update_node: node " + _H + r" (?:reason|state) set to")),
    # Open MPI's signal handler prefixes its report with the node and pid:
    # `[nid001234:52243] *** Process received signal ***` (the lines under it then go as learned).
    ("] *** process received signal", re.compile(r"\[" + _H + r":\d{1,10}\] \*\*\* Process received signal")),
    # ~/.netrc: `machine artifacts.initech.de login hfischer password ...`, or `login` on the
    # lines below (the machine is where the credentials log in, whatever its suffix).
    ("machine ", re.compile(
        r"^[ \t]*machine[ \t]+" + _H + r"(?=[ \t]+(?:login|password|account)[ \t]|[ \t]*\r?\n[ \t]*(?:login|password)[ \t])", re.M)),
    (" cancelled at ", re.compile(r" ON " + _H + r" CANCELLED AT ")),
    # kubectl describe pod: `Node:  gpu-node-07/10.8.1.27`; its events: `Successfully
    # assigned ns/pod to gpu-node-07`.
    # (The address is a placeholder by then: the addresses stage runs first.)
    ("node:", re.compile(r"Node:[ \t]+" + _H + r"/(?:\d|<IP)")),
    ("successfully assigned ", re.compile(r"uccessfully assigned [\w.-]{1,253}/[\w.-]{1,253} to " + _H)),
    # DeepSpeed hostfile rows: `worker-1 slots=8`.
    (" slots=", LinePattern(r"[ \t]*" + _H + r"[ \t]+slots=\d")),
    # CI runners: GitHub Actions `Runner name: 'gpu-runner-07'` / `Machine name: '...'`,
    # GitLab `Running with gitlab-runner 16.5.0 (853330f9)` then `  on gpu-runner-01 abcd1234`,
    # `Running on runner-xyz-project-42-concurrent-0 via gitlab-gpu-01...`, Jenkins
    # `Running on gpu-agent-07 in /var/lib/jenkins/workspace/x`.
    ("runner name: '", re.compile(r"Runner name: '" + _H + r"'")),
    # Jenkins on an agent: `Building remotely on gpu-agent-07 (linux gpu) in workspace /var/...`.
    ("building remotely on ", re.compile(r"Building remotely on " + _H + r"(?= \(| in workspace )")),
    ("machine name: '", re.compile(r"Machine name: '" + _H + r"'")),
    # Buildkite checks out under the agent's name, `%hostname-%spawn` unless set otherwise:
    # `$ cd /var/lib/buildkite-agent/builds/gpu-box-07-1/acme/trainer` (`/buildkite/builds/` in its
    # container images and Kubernetes stack).
    *((word, re.compile(re.escape(word) + _H + r"/[\w.-]{1,100}/")) for word in ("buildkite-agent/builds/", "buildkite/builds/")),
    # (Jenkins' controller runs a job itself as its built-in node: `Running on Jenkins in /var/...`.)
    ("running on ", re.compile(r"Running on (?!(?:Jenkins|master|built-in) in /)" + _H + r"(?= via | in /|\.\.\.|$)", re.M)),
    # Gated on `running on `, not ` via `: NCCL prints ` via P2P/IPC` on line after line.
    ("running on ", re.compile(r"Running on [\w.-]{1,253} via " + _H)),
    ("  on ", LinePattern(r"[ \t]{1,8}on " + _H + r" [0-9a-zA-Z_-]{8,}(?:, system ID|$)", re.M)),
    # DeepSpeed `Using IP address of 10.0.0.1 for node worker-0`; Open MPI `... with PID 4242
    # on node a100-04 exited on signal 9`; ssh `Connection to a100-04 closed.`; `PING a100-04 (`.
    ("for node ", re.compile(r"for node " + _H)),
    ("on node ", re.compile(r"on node " + _H + r"(?= exited| signaled| \(|[,.:]| has)")),
    # (nc -zv: `Connection to gpu-07 22 port [tcp/ssh] succeeded!`.)
    ("connection to ", re.compile(r"Connection to " + _H + r" (?:closed|port|\d{1,5} port)")),
    # `ssh -v`: `debug1: Connecting to login01.initech.de [10.4.0.12] port 22.`, the name the
    # user typed beside the address it resolved to (any suffix: ssh logs in to the
    # organisation's machines).
    ("connecting to ", re.compile(r"Connecting to " + _H + r" \[(?:<IP(?:V6)?-\d{1,9}>|[0-9A-Fa-f.:]{2,45})\] port \d")),
    ("ping ", re.compile(r"PING " + _H + r" \(")),
    # ssh -v after the handshake: `Authenticated to login01.initech.de ([10.4.0.12]:22) using
    # "publickey".` (also inside VS Code Remote-SSH's log, behind its `> `).
    ("authenticated to ", re.compile(r"Authenticated to " + _H + r" \(\[")),
    # VS Code Remote-SSH names the machine in its authority: `ssh-remote+gpu-box`.
    ("ssh-remote+", re.compile(r"ssh-remote\+" + _H + r"(?![\w.-])")),
    # ... after the login it connects as (`ssh-remote+<USER-1>@gpu-box`), also URL-encoded in a
    # `vscode-remote://ssh-remote%2B<USER-1>%40gpu-box/home/...` URI (by `ssh-remote`, the
    # people pass's anchor: the anchor scan reports no word overlapping another).
    ("ssh-remote+", re.compile(r"ssh-remote\+(?:<USER-\d{1,9}>|[\w.-]{1,32})@" + _H + r"(?![\w.-])")),
    ("ssh-remote", re.compile(r"ssh-remote%2[Bb](?:<USER-\d{1,9}>|[\w.-]{1,32})%40" + _H + r"(?![\w.-])")),
    # `code tunnel` names the tunnel after the machine unless told otherwise:
    # `Creating tunnel with the name: gpu-box`, `Open this link in your browser
    # https://vscode.dev/tunnel/gpu-box/home/...`, the spawned `code tunnel ... --name gpu-box`.
    ("tunnel with the name: ", re.compile(r"tunnel with the name: " + _H)),
    ("vscode.dev/tunnel/", re.compile(r"vscode\.dev/tunnel/" + _H + r"(?![\w.-])")),
    (" tunnel ", re.compile(r"[ /\\\\-]code(?:-insiders|-tunnel[\w-]*|-cli)?(?:\.exe)? tunnel [^\n]{0,200}?--name[ =]" + _H)),
    # A prompt's `ssh <host> <command>` (options without arguments before it): `$ ssh g9562 dmesg -T`.
    *((f"{p} ssh ", re.compile(re.escape(p) + r" ssh[ \t]+(?:-[46AaCfGgKkMNnqsTtVvXxYy]{1,8}[ \t]+){0,4}" + _H + r"(?=[ \t]|\r?$)", re.M))
      for p in "$#"),
    # Prose names a machine after what is done to it: `node gn-192 is down`, `ssh into
    # hpc-n0412`, `drain cn-073`, `rebooted nid-68`. There only a numbered name is taken:
    # letters, an optional dash, two to five digits.
    # (One letter takes four or five digits, `c8646`, `g5036`: `a100`, `h100` are GPUs.)
    # (Cray's `nid001234` has six.) (Rocks numbers a rack, then the node: `compute-0-12`, `cn-07-134`.)
    # (A word of either case is sought from its lowercase tail, its head checked behind it:
    # `re` skips to a literal in C, but tries a leading `[Nn]` at every `n` of the text.)
    *((word, re.compile(rx + r"[ \t]+(?P<h>[a-z]{2,10}(?:-[a-z]{1,10})?-?[a-z]?\d{2,6}|[a-z]\d{4,5}|[a-z]{2,10}-\d{1,3}-\d{1,4})(?![\w.-])"))
      for word, rx in (("node ", r"ode(?<=(?<![\w-])[Nn]ode)"), ("ssh into ", "ssh into"), ("ssh to ", "ssh to"),
                       ("drain", r"rain(?<=(?<![\w-])[Dd]rain)(?:ed|ing)?"), ("reboot", r"eboot(?<=(?<![\w-])[Rr]eboot)(?:ed|ing)?"))),
    # LSF's `bjobs -l` / `bhist -l`: `Submitted from host <login01>, CWD <$HOME>;`, `Started 1
    # Task(s) on Host(s) <gpu-0042>, Allocated 8 Slot(s) on Host(s) <8*gpu-0042>`, before LSF 9
    # `Started on <gpu-0042>, Execution Home </home/hfischer>`.
    ("submitted from host <", re.compile(r"Submitted from host <" + _H + r"[ >]")),
    ("host(s) <", re.compile(r"Host\(s\) <(?:\d{1,5}\*)?" + _H + r">")),
    ("started on <", re.compile(r"[Ss]tarted on <(?:\d{1,5}\*)?" + _H + r">")),
    # kubectl describe node: `kubernetes.io/hostname=a100-05`.
    ("io/hostname=", re.compile(r"io/hostname=" + _H)),
    # urllib3's debug log: `Starting new HTTPS connection (1): inference.initech.de:443`.
    ("connection (", re.compile(r"Starting new HTTPS? connection \(\d{1,6}\): " + _H + r"(?=:\d|[ \t]*$)", re.M)),
    # The registry `docker login` (podman, nerdctl, buildah, helm registry, oras) logs in to, its
    # last argument; and the first server under `"auths": {` of ~/.docker/config.json.
    # (Gated on `login`, the word command-credentials starts from: anchor words do not overlap.)
    # (`regex` seeks the `login` literal first: a log can hold `login` a long way from any docker.)
    ("login", regex.compile(r"login(?<=(?:docker|podman|nerdctl|buildah|registry|oras) login)[ \t][^\n]{0,400}?[ \t]"
                            r"(?P<h>[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63})+)(?::\d{1,5})?/?[ \t]*\r?$", regex.M)),
    ('"auths": {', re.compile(r'"auths": \{[ \t]*\r?\n?[ \t]*"(?:https?://)?' + _H + r'(?::\d{1,5})?/?[\w./-]{0,64}": \{')),
    # A container image's registry (docker's rule: a first component with a dot or a port):
    # kubelet's `Pulling image "registry.acme.de/ml/trainer:v3"`, a spec's or kubectl
    # describe's `image:`/`Image:`, a docker command's image argument.
    # (The registry's suffix must be a domain's or a port follow: `Image: model.safetensors/x`.)
    *((literal, re.compile(rx + _IMAGE_HOST)) for literal, rx in _IMAGE_LEADS),
    # `$ hostname` (or `uname -n`) and its output alone on the next line.
    # (Led by the prompt character: a word ` hostname` would hide the `host` under an indented
    # `  Hostname: x` from the key/value pass, the anchor scan reporting no overlapping words.)
    *((f"{p} hostname", LinePattern(r"[^\n]{0,64}[$#%>] hostname(?: -[fsAIi])?[ \t]*" + NEXT_LINE + _H + r"[ \t]*\r?$", re.M))
      for p in "$#%>"),
    # A prompt that shows the host without the user, PS1 `[\h \W]\$`: `[gn101 ~]$ ibstat`,
    # `(base) [h100-r5n11 work]# nvidia-smi`. A numbered name only: `[root ~]#` is `[\u \W]`.
    *((f"]{p} ", LinePattern(r"(?:\([\w.-]{1,64}\) )?\[(?=[A-Za-z.-]{0,64}[0-9])" + _H + r" [^\]\n@]{1,128}\]" + re.escape(p) + " "))
      for p in "$#"),
    ("uname -n", LinePattern(r"[^\n]{0,64}[$#%>] uname -n[ \t]*" + NEXT_LINE + _H + r"[ \t]*\r?$", re.M)),
    ("cat /etc/hostname", LinePattern(r"[^\n]{0,64}[$#%>] cat /etc/hostname[ \t]*" + NEXT_LINE + _H + r"[ \t]*\r?$", re.M)),
    # hostnamectl: `   Static hostname: gpu-node-07`, `Transient hostname: ...`.
    *((f"{w} hostname: ", re.compile(r"(?:Static|Transient|Pretty) hostname: " + _H)) for w in ("static", "transient", "pretty")),
]
# Positions that hold a list of hosts: pdsh `-w worker-0,worker-1`, mpirun `-H a100-03:8,a100-04:8`,
# DeepSpeed's `WORLD INFO DICT: {'worker-0': [0, 1], ...}`. (literal, pattern with an `l` group)
_LIST_POSITIONS: list[tuple[str, re.Pattern[str]]] = [
    # (`-w` may be the first argument: `pdsh -w gpu017 nvidia-smi`.)
    ("pdsh ", re.compile(r"pdsh (?:[^\n]{0,200}? )?-w (?P<l>[\w.,\[\]-]{1,4096})")),
    ("mpirun", re.compile(r"(?:mpirun|mpiexec)[^\n]{0,200}? (?:-H|--host|-host)[ =](?P<l>[\w.,:-]{1,4096})")),
    # Horovod's launcher takes its hosts the same way: `horovodrun -np 8 -H server1:4,server2:4`.
    ("horovodrun", re.compile(r"horovodrun[^\n]{0,200}? (?:-H|--hosts)[ =](?P<l>[\w.,:-]{1,4096})")),
    # salloc/srun: `Nodes a100-03,a100-04 are ready for job`. The word alone: NCCL's
    # `nRanks 16 nNodes 2` is no list (Masker.learn's anchors skip it the same way). (The
    # look-behind after the word: led by it, `re` skips to it.)
    ("nodes ", re.compile(r"Nodes (?<![A-Za-z]Nodes )(?P<l>[\w.,\[\]-]{1,4096}) are ")),
    # slurmctld: `error: Nodes gpu017,gpu018 not responding` (and `..., setting DOWN`).
    ("nodes ", re.compile(r"Nodes (?<![A-Za-z]Nodes )(?P<l>[\w.,\[\]-]{1,4096}) not responding")),
    ("world info dict", re.compile(r"WORLD INFO DICT: (?P<l>\{[^\n}]{1,4096}\})")),
    # PBS `qstat -f`: `exec_host = gpu001/0*64+gpu002/0*64`, `exec_vnode = (gpu001:ncpus=64)+(...)`.
    ("exec_host = ", re.compile(r"exec_host = (?P<l>[\w.+/*-]{1,4096})")),
    ("exec_vnode = ", re.compile(r"exec_vnode = (?P<l>[\w.+:=()*-]{1,4096})")),
    # SageMaker's training environment: `SM_HOSTS=["algo-1","algo-2"]`, and `"hosts": [...]` in
    # its resource config and `SM_TRAINING_ENV`.
    ("sm_hosts=", re.compile(r"SM_HOSTS=(?P<l>\[[^\]\n]{1,4096}\])")),
    ("\"hosts\": [", re.compile(r"\"hosts\": (?P<l>\[[^\]\n]{1,4096}\])")),
]
_LIST_ITEM = re.compile(
    r"'([A-Za-z0-9][\w.-]{0,252})': \[|\"([A-Za-z0-9][\w.-]{0,252})\"|([A-Za-z0-9][\w.-]{0,252})"
    r"(?::\d{1,4}|/\d{1,5}(?:\*\d{1,5})?|:ncpus=[^)]{0,200})?(?:[,+)]|$)"
)
# Line prefixes that name the host: syslog and journald (`May  6 10:42:01 a100-03 kernel:`,
# RFC 5424 timestamps), pdsh's `worker-1: ` in front of a timestamped or tagged line.
_LINE_POSITIONS: list[LinePattern] = [
    LinePattern(
        r"[ \t]*(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?) "
        + _H + r" [\w./()-]{1,64}(?:\[\d{1,10}\])?: ",
        gate=r"\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)? [A-Za-z]",
    ),
    LinePattern(r"(?P<h>[A-Za-z][A-Za-z0-9.-]{0,252}): (?=\[(?:\d{4}-|rank|INFO|WARNING|ERROR|DEBUG))", behind_prefix=False),
]
# The keys of lists of machines (_find_listed_hosts, below).
_LIST_WORDS = ("hosts:", 'hosts":', "hostnames:", "nodes:", 'nodes":', "workers:", 'workers":', "machines:")
HOST_WORDS = (*(literal.lower() for literal, _ in (*_POSITIONS, *_LIST_POSITIONS)), "world_info=", "show hostname", *_LIST_WORDS)


# ~/.ssh/config: `Host gpu-box` above its `HostName`, `User` and `IdentityFile` lines (the
# alias is the machine's name to its user; `Host *` and patterns are no host).
_SSH_CONFIG_HOST = LinePattern(r"[ \t]*Host[ \t]+" + _H + r"[ \t]*\r?$", re.M)


# A config's list of machines, in YAML's block or flow form (`hosts:` then `  - gn060` lines;
# `nodes: [gn060, gn061]`): Accelerate, Ansible inventories, Ray and MPI wrappers write them.
# Found from the key (an anchor word each, so a log without one pays nothing), then the list.
_HOST_LIST_AT = re.compile(
    r"[\"']?[ \t]*:[ \t]*(?:\r?\n(?P<block>(?:[ \t]*-[ \t]+[^\n]{1,256}(?:\n|\Z)){1,1024})|\[(?P<flow>[^\]\n]{1,4096})\])"
)
_LISTED_HOST = re.compile(r"(?:^[ \t]*-[ \t]+|(?<=\[)|,[ \t]*)[\"']?(?P<h>[A-Za-z][A-Za-z0-9.-]{0,252})(?::\d{1,5})?[\"']?[ \t]*(?=$|,|\]|#)", re.M)


def _find_listed_hosts(text: str, present: set[str], edits: list[Edit], state: LogState) -> None:
    for key in dict.fromkeys(w.rstrip(':"') for w in _LIST_WORDS if w in present):
        pos = text.find(key)
        while pos != -1:
            end = pos + len(key)
            m = _HOST_LIST_AT.match(text, end)
            pos = text.find(key, end)
            if m is None:
                continue
            part = "block" if m.group("block") is not None else "flow"
            base = m.start(part)
            body = m.group(part)
            if part == "flow":
                base, body = base - 1, "[" + body
            for item in _LISTED_HOST.finditer(body):
                value = item.group("h").rstrip(".")
                if host_value_ok(value) and any(c.isdigit() or c in "-." for c in value):
                    edits.append((base + item.start("h"), base + item.start("h") + len(value), "host", value))
                    state.learn_host(value)


# `scontrol show hostnames <list>` expands a Slurm hostlist one name a line (job scripts run it
# to build a hostfile or pick the master): the lines under it up to one that is not a name.
_EXPANDED_HOSTNAMES = re.compile(r"show hostnames?\b[^\n]{0,400}\n(?P<l>(?:[ \t]*[A-Za-z][\w.-]{0,252}[ \t]*\r?\n){1,4096})")
_NAME_LINE = re.compile(r"[ \t]*(?P<h>[A-Za-z][\w.-]{0,252})[ \t]*\r?\n")


def _find_expanded_hostnames(text: str, edits: list[Edit], state: LogState) -> None:
    for m in _EXPANDED_HOSTNAMES.finditer(text):
        for line in _NAME_LINE.finditer(text, m.start("l"), m.end("l")):
            value = line.group("h").rstrip(".")
            if host_value_ok(value) and any(c.isdigit() for c in value):
                edits.append((line.start("h"), line.start("h") + len(value), "host", value))
                state.learn_host(value)


def find_host_positions(text: str, present: set[str], edits: list[Edit], state: LogState) -> None:
    """Mask bare host names in positions where only a host can stand, and learn them."""
    if "show hostname" in present:
        _find_expanded_hostnames(text, edits, state)
    _find_listed_hosts(text, present, edits, state)
    if holds(text, "IdentityFile") or holds(text, "HostName"):
        for m in _SSH_CONFIG_HOST.finditer(text):
            value = m.group("h").rstrip(".")
            if host_value_ok(value):
                edits.append((m.start("h"), m.start("h") + len(value), "host", value))
                state.learn_host(value)
    for literal, rx in _POSITIONS:
        if literal.lower() not in present:
            continue
        for m in rx.finditer(text):
            value = m.group("h").rstrip(".")
            if not host_value_ok(value) or value.startswith(_NOT_POSITION_HOSTS):
                continue
            if literal in _IMAGE_LITERALS and value.rsplit(".", 1)[-1].lower() not in _TLDS and text[m.end("h")] != ":":
                continue
            start = m.start("h")
            edits.append((start, start + len(value), "host", value))
            state.learn_host(value)
    for literal, rx in _LIST_POSITIONS:
        if literal in present:
            for m in rx.finditer(text):
                base = m.start("l")
                for item in _LIST_ITEM.finditer(m.group("l")):
                    group = next(g for g in (1, 2, 3) if item.group(g) is not None)
                    value = item.group(group)
                    if host_value_ok(value) and any(c.isdigit() or c in "-." for c in value):
                        edits.append((base + item.start(group), base + item.end(group), "host", value))
                        state.learn_host(value)


# The line gate of find_line_hosts (bot/masking/gate.py): a syslog or RFC 5424 clock, its
# fraction and zone, the host, the tag (`[^ \t\n:]` holds `[\w./()-]` and `[pid]`) and `: `;
# or pdsh's host at the line's start and the `: [` after it. `?`: a non-ASCII character as the
# gate reads it (`\d` and `\w` take some). c10d's `01:07:13.230777811 socket.cpp:697]` is neither.
LINE_HOSTS_TRIGGER = (
    r"[0-9?]{2}:[0-9?]{2}:[0-9?]{2}[0-9?.Z:+-]* [A-Za-z][A-Za-z0-9.-]* [^ \t\n:]+: "
    r"|^[A-Za-z][A-Za-z0-9.-]*: \[(?:[0-9?]{4}-|rank|INFO|WARNING|ERROR|DEBUG)"
)
# pdsh's label before whatever a node printed (`pdsh -w gn[101-104] ibstat`: `gn101: \tPort GUID:
# ...`), a numbered name that stands first on two lines or more of the text: a dash before its
# number (`sc-194`, `gpu-node-017`) or three digits or more (`gn101`, `node0123`), so a config
# printed twice keeps its `beta1: `, `fp16: `, `p99: `. Not a counter or a device a tool
# numbers the same way (`step100: `, `eth0: `, `sda1: `), nor ssh -v's `debug1: `.
# Read while the masker learns (Masker.learn), on one line of each digit shape, so a pdsh log's
# million labels cost nothing; the learned-names pass masks them (and their numbered siblings)
# on every line. (Led by the newline, so `re` seeks it in C. A label is all of the line's
# leading run of its characters, `: ` after it: the lookahead takes the run at once and turns
# a line that is no label away before the branches back off through it, which cost the NCCL
# families' `host:pid:tid [dev]` lines several passes each.)
_PDSH_LABEL_BYTES = re.compile(rb"\n(?=[A-Za-z0-9.-]++: )([A-Za-z][A-Za-z0-9.]{0,62}-[A-Za-z0-9.-]{0,62}[0-9][A-Za-z0-9.-]{0,62}|[A-Za-z]{1,12}[0-9]{3,6}): ")
# `argo logs` prefixes each line with its pod's name: the workflow's name, the five characters
# Kubernetes' generateName appends (its alphabet has no vowels, 0, 1 or 3), the template's
# name since Argo 3.2, and the node's FNV hash in decimal (`llm-sft-x7k2p-1234567: `).
_ARGO_POD = re.compile(r"[a-z0-9][a-z0-9.-]{0,200}-[bcdfghjklmnpqrstvwxz2456789]{5}(?:-[a-z][a-z0-9-]{0,62})?-[0-9]{5,10}")
_NOT_PDSH_HOST = re.compile(
    r"(?i)(?:step|epoch|iter|iteration|phase|stage|test|layer|block|batch|round|trial|run|job|task|rank|default|local|debug"
    r"|sha|md|crc|utf|fp|bf|tf|int|uint|float|top|p|gpt|llama|bert|resnet|vit|qwen|mistral|checkpoint|ckpt|model"
    r"|gpu|cuda|cpu|device|dev|card|nvidia|nvme\d*n?|sd[a-z]|hd[a-z]|vd[a-z]|md|dm-?|loop|tty|pts|core|eth|ib|en[ops]\w*|ens|eno"
    r"|bond|docker|veth|virbr|br|wlan|wlp\w*|lo|tun|tap|mlx\d|hfi|irq|cell|line|row|part|item|case|example|sample|q|a|v|version)"
    r"[_-]?[0-9][A-Za-z0-9.-]*"
)


def find_line_hosts(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the host a syslog, journald or pdsh line prefix names, and learn it."""
    for rx in _LINE_POSITIONS:
        for m in rx.finditer(text):
            value = m.group("h").rstrip(".")
            if host_value_ok(value) and any(c.isdigit() or c in "-." for c in value) and not value.startswith(("rank", "default")):
                if "." in value and value.rsplit(".", 1)[1].lower() not in _TLDS:
                    continue  # `deepspeed.runtime.zero.stage3: [INFO]`: a logger's name
                edits.append((m.start("h"), m.start("h") + len(value), "host", value))
                state.learn_host(value)


# DeepSpeed's runner hands each node the world as base64 of JSON (`--world_info=eyJ3b3Jr...`,
# `{"worker-0": [0, 1], "worker-1": [0, 1]}`): the hosts hide inside the encoding.
# The line gate of find_world_info: the argument and its base64 stand on one line.
WORLD_INFO_WORDS = ("world_info=",)
_WORLD_INFO_RX = re.compile(r"world_info=(?P<q>[\"']?)(?P<b>[A-Za-z0-9+/_-]{4,65536}={0,2})(?P=q)")


def find_world_info(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the hosts inside `--world_info=`: decoded, masked and encoded again, so the
    argument stays valid base64 of the same JSON with `<HOST-n>` keys; localhost stays."""
    if "world_info=" not in text:
        return
    for m in _WORLD_INFO_RX.finditer(text):
        encoded = m.group("b")
        urlsafe = "-" in encoded or "_" in encoded
        try:
            raw = base64.b64decode(encoded + "=" * (-len(encoded) % 4), altchars=b"-_" if urlsafe else None, validate=True)
            world = json.loads(raw)
        except (binascii.Error, ValueError):
            continue  # not DeepSpeed's encoding: nothing to read hosts from
        if not isinstance(world, dict):
            continue
        masked: dict[str, object] = {}
        changed = False
        for host, slots in world.items():
            if isinstance(host, str) and IPV4ISH.match(host) and not host.startswith(("127.", "0.")):
                host = state.table.put("ip", host)  # `pdsh -w 192.168.100.101`: nodes by address
                changed = True
            elif isinstance(host, str) and host_value_ok(host):
                state.learn_host(host)
                host = state.table.put("host", host)
                changed = True
            masked[host] = slots
        if changed:
            again = json.dumps(masked).encode()
            value = (base64.urlsafe_b64encode(again) if urlsafe or encoded.endswith("=") else base64.b64encode(again)).decode()
            edits.append((m.start("b"), m.end("b"), "", value))


# NCCL's line prefix `host:pid:tid [dev] NCCL ...` (WARN lines put a source location before
# NCCL: `[0] transport/net_ib.cc:1696 NCCL WARN`); the matcher parses it, so only the host
# part may change. Anchored at line start, behind a launcher's label (pdsh's `worker-3: `,
# srun's ` 3: `, a Ray actor's `(RayTrainWorker pid=9, ip=..) `, bot/launchers.py) and an
# optional `[rank8]:`/`[default0]:` label, for speed; other prefixes are found by the leftover
# pass below, which reads every colon of the text and so costs far more on a log of wrapped
# NCCL lines.
_NCCL_TAIL = r":\d{1,10}:\d{1,10} \[\d{1,4}\] (?:[\w./-]{1,128}:\d{1,6} )?NCCL"
_NCCL_BODY = "(?:" + LAUNCHER_LABEL + r")?(?:\[[\w,.-]{1,32}\](?:<\w{1,8}>)?: ?)?([^\s:\[\]<>|]{1,253})" + _NCCL_TAIL
_NCCL_PREFIX = re.compile(_NCCL_BODY)  # at the start of the text
# After a newline: a literal first character lets `re` skip to candidate positions in C,
# twice as fast as `(?m)^`, which is tried at every position.
_NCCL_LINE = re.compile(r"\n" + _NCCL_BODY)
_NCCL_LEFTOVER = re.compile(r":(?<!>:)(?=" + _NCCL_TAIL[1:] + ")")
# Matched backwards (regex's reverse mode) from the colon: the host token before it.
_PREFIX_HOST_BACK = regex.compile(r"(?r)[^\s\[\]<>|:]{1,253}")
# ` NCCL` closing a prefix follows `]` (`[3] NCCL`) or a source line (`net_ib.cc:1696 NCCL`).
NCCL_AFTER_DIGIT = regex.compile(r" NCCL(?<=[\w./-]:\d{1,6} NCCL)")


@last_text_memo
def _line_prefix_hosts(text: str) -> Counter[str]:
    """Host token of every line-leading NCCL prefix in `text`, with its number of lines.

    (Kept for the last text: the leftover pass reads the very text the prefix-host row read
    whenever the hosts stage masked nothing, as on most pieces of an NCCL log, where either
    scan reads every line.)"""
    found = Counter(_NCCL_LINE.findall(text))
    first = _NCCL_PREFIX.match(text)
    if first is not None:
        found[first.group(1)] += 1
    return found


def carry_prefix_hosts(before: str, edits: list[Edit], after: str) -> None:
    """`after` is `before` with `edits` applied: when the prefix count of `before` is at hand
    and no edit touched a line that names NCCL, it is the count of `after` as well.

    A prefix lies on one line, which names NCCL, and a placeholder names none (nor can one
    make the text beside it do so, standing between `<` and `>`): the lines the edits leave
    alone keep their prefixes, and one that did not name NCCL does not after. An edit that
    puts text of its own (a re-encoded value, a cut) is not judged: the count is made anew.
    So the leftover pass, which reads the hosts stage's output, need not count a piece again
    when that stage masked only other lines (pdsh's `worker-0: [...]` lines: 5 ms a MB).
    """
    found = _line_prefix_hosts.held(before)
    if found is None:
        return
    for start, end, kind, _ in edits:
        if not kind:
            return
        # (Bounded, as lines.py's lookups are: an edit on a line longer than that is taken
        # as touching a line that names NCCL.)
        lo = before.rfind("\n", max(0, start - REACH), start)
        hi = before.find("\n", end, end + REACH)
        if (lo < 0 and start > REACH) or (hi < 0 and end + REACH < len(before)) or "NCCL" in before[lo + 1 : hi if hi >= 0 else len(before)]:
            return
    _line_prefix_hosts.keep(after, found)


def _all_prefixes_learned(text: str, state: LogState) -> bool:
    """True when every NCCL prefix in `text` is line-leading with a learned host (not a user).

    The learned-name pass masks all of those, so the leftover scan would find nothing. Each
    prefix ends in its own `] NCCL` or `file.cc:123 NCCL`, so counting those (in C) bounds
    the number of prefixes; when the line-leading prefixes with learned hosts reach that
    bound, there is no other.
    """
    bound = text.count("] NCCL") + len(NCCL_AFTER_DIGIT.findall(text))
    if bound == 0:
        return True
    found = _line_prefix_hosts(text)
    hosts, users = state.hosts, state.users
    return sum(n for host, n in found.items() if host in hosts and host not in users) >= bound


def learn_nccl_hosts(text: str, state: LogState) -> None:
    """Learn every host named in an NCCL line prefix at the start of a line."""
    if " NCCL" in text:
        _learn_prefix_hosts(list(_line_prefix_hosts(text)), None, state)


# The same prefix on raw bytes, for learning from a log that is never decoded whole.
_NCCL_LINE_BYTES = re.compile(rb"\n" + _NCCL_BODY.encode())
_NCCL_PREFIX_BYTES = re.compile(_NCCL_BODY.encode())


def learn_nccl_hosts_bytes(data: bytes, state: LogState) -> None:
    """learn_nccl_hosts on a piece of the raw log, read as UTF-8 bytes."""
    if b" NCCL" in data:
        found = [raw.decode("utf-8", "replace") for raw in set(_NCCL_LINE_BYTES.findall(data))]
        first = _NCCL_PREFIX_BYTES.match(data)
        _learn_prefix_hosts(found, first.group(1).decode("utf-8", "replace") if first else None, state)


def learn_pdsh_labels_bytes(data: bytes, state: LogState) -> None:
    """Learn the hosts of pdsh's labels (_PDSH_LABEL_BYTES) in a piece of the raw log: a label
    that leads two lines or more, counted with its numbered siblings (the piece holds one line
    of each digit shape: `gn101: ok` and `gn102: ok` are one)."""
    labels = _PDSH_LABEL_BYTES.findall(data)
    first = _PDSH_LABEL_BYTES.match(b"\n" + data[:130])  # the piece's first line has no newline before it
    if first is not None:
        labels.append(first.group(1))
    if not labels:
        return
    shapes = Counter(label.translate(DIGITS_AS_ZERO) for label in labels)
    for raw in set(labels):
        value = raw.decode("ascii")
        if value in state.hosts or shapes[raw.translate(DIGITS_AS_ZERO)] < 2:
            continue
        if _NOT_PDSH_HOST.fullmatch(value) or _ARGO_POD.fullmatch(value) or not host_value_ok(value):
            continue
        if "." in value and value.rsplit(".", 1)[1].lower() not in _TLDS:
            continue  # `trainer.v2: `: a logger's name
        state.learn_host(value)


def _learn_prefix_hosts(found: list[str], first: str | None, state: LogState) -> None:
    """Learn the hosts of the line-leading NCCL prefixes found (`first`: the text's own start)."""
    hosts = set(found)
    if first is not None:
        hosts.add(first)
    for host in hosts:
        if not IPV4ISH.match(host) and not host.startswith("<"):
            state.learn_host(host)


def find_nccl_leftovers(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask NCCL prefix hosts the other passes left (prefix after a wrapper), and learn them."""
    if " NCCL" not in text or _all_prefixes_learned(text, state):
        return
    is_host: dict[str, bool] = {}  # a wrapped prefix repeats its few hosts on every line
    for m in _NCCL_LEFTOVER.finditer(text):
        end = m.start()
        back = _PREFIX_HOST_BACK.match(text, max(0, end - 253), end)
        if back is None:
            continue
        i = back.start()
        host = text[i:end]
        ok = is_host.get(host)
        if ok is None:
            ok = is_host[host] = not IPV4ISH.match(host) and host.lower() not in _KEEP_HOSTS
        if ok:
            edits.append((i, end, "host", host))
            state.learn_host(host)


# --- host names by shape, in lists and tables -----------------------------------------------

# Cloud node names carry no domain but only a machine can be called that. (name, the literals
# every match starts with, pattern)
_NUMBERED_UNIT = r"(?:pod|rack|node|host|box|srv|vm|worker)\d{2,5}"
_STORAGE_HEADS = ("beegfs-", "lustre-", "nfs-", "gpfs-", "ceph-", "weka-", "vast-", "zfs-", "isilon-", "netapp-", "ddn-", "panfs-", "minio-")
# ... and the role after it (not a package's part: `nfs-ganesha-4`, `ceph-fuse-17`).
_STORAGE_ROLES = (
    r"(?:stor(?:age)?|oss|ost|mds|mdt|mgs|meta(?:data)?|mgmt|mon|osd|home|proj(?:ects?)?|scratch|data|nsd|io|ces|be|fe"
    r"|[cd]node|srv|server|node|nas|gw|head|fs|vol|filer|san|ems|work|archive|backup)"
)
_ACCEL_HEADS = ("gpu", "cpu", "a100", "h100", "h200", "b200", "v100", "a10g", "l40s", "trn", "sxm", "compute")
_NODE_SHAPES: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    # AKS: aks-nodepool1-12345678-vmss000000; the scale set itself (a ProviderID's
    # `virtualMachineScaleSets/aks-nodepool1-12345678-vmss/virtualMachines/3`, the node's name
    # with its instance number in base 36) and `az vmss list-instances`' `..._3`: the same machine.
    ("aks", ("aks-",), re.compile(r"aks-(?<![\w.-]aks-)[a-z0-9]{1,12}-\d{8}-vmss(?:[0-9a-z]{6}|_\d{1,5})?(?![\w-])")),
    # EC2 instance ids (`i-0ba923aa411226ffb`): the cloud's name for the machine, as its
    # `ip-10-...` host name is (spot notices, Karpenter's `aws:///us-west-2a/i-...`, IMDS).
    ("ec2-instance", ("i-0",), re.compile(r"i-(?<![\w.-]i-)0[0-9a-f]{16}(?![\w-])")),
    # Storage servers named for the file system and their role: beegfs-stor03, lustre-oss12,
    # nfs-home01, gpfs-nsd02, ceph-osd07 (a `df`/`mount` row, beegfs-check-servers). Lower
    # case only: Lustre's targets, `scratch-OST000c`, are no machines.
    ("storage", _STORAGE_HEADS, re.compile(
        r"(?<![\w.-])(?:" + "|".join(h[:-1] for h in _STORAGE_HEADS) + r")-" + _STORAGE_ROLES + r"-?\d{1,3}[a-z]?(?![\w-]|\.\d)"
    )),
    # GKE: gke-cluster-pool-1a2b3c4d-xyz1
    ("gke", ("gke-",), re.compile(r"gke-(?<![\w.-]gke-)[a-z0-9-]{1,40}-[0-9a-f]{8}-[a-z0-9]{4}(?![\w-])")),
    # EC2 private DNS names without their domain: ip-10-0-1-23, ec2-10-0-1-23.
    *(("ec2", (head,), re.compile(head + rf"(?<![\w.-]{head})\d{{1,3}}-\d{{1,3}}-\d{{1,3}}-\d{{1,3}}(?![\w-])")) for head in ("ip-", "ec2-")),
    # Cluster nodes named for what they are: gpu-node-17, node-017, node17, compute-node-3,
    # dgx-a100-03, hgx-12 (a mail subject, free text).
    # Found from the word (a literal scan), then checked whole from the start of its token.
    # (`_` may follow, `dgx042_rank3.log`, and a number after a core dump's name,
    # `core.node-017.48213`; `_glued_node` judges both. Not a version: `node-18.17.0`.)
    ("cluster", ("node", "dgx", "hgx"), re.compile(r"(?:node|dgx|hgx)-?(?:[a-z][a-z0-9]{0,8}-)?\d{1,5}(?![^\W_]|-|\.\d+[A-Za-z.])")),
    # GPU-model and accelerator prefixes need the dash and two digits (`a100-044`, `trn-191`,
    # `gpu-018`): `gpu0` and `a100-80gb` are a device and a product. Rocks clusters number
    # rack and slot: `compute-0-12`, `gpu-1-7`.
    ("accel", _ACCEL_HEADS, re.compile(
        # `gpu-node-017` is the cluster shape's, found there once.
        # A numbered pod or rack after the model (`a100-pod104`, `h100-rack07`); and a dashless
        # `gpu` with three digits, a leading zero or past 15 (`gpu121`, `gpu07`, `gpu49`), where
        # `gpu0` and `gpu12` would be a device index (a node holds at most 16).
        r"(?:gpu|cpu|a100|h100|h200|b200|v100|a10g|l40s|trn[12]?|sxm|compute)"
        r"(?:-(?!node|dgx|hgx)(?:(?:[a-z][a-z0-9]{0,8}-)?\d{2,5}|\d{1,3}-\d{1,4}|" + _NUMBERED_UNIT + r")"
        r"|(?<=gpu)(?:\d{3,5}|0\d|1[6-9]|[2-9]\d))(?![^\W_]|-|\.\d+[A-Za-z.])"
    )),
]  # fmt: skip
_CLUSTER_WHOLE = re.compile(
    r"(?:[a-z][a-z0-9]{0,15}-){0,3}(?:(?:node|dgx|hgx)-?(?:[a-z][a-z0-9]{0,8}-)?\d{1,5}"
    r"|(?:gpu|a100|h100|h200|b200|v100|a10g|l40s|trn[12]?|sxm|compute)-(?:(?:[a-z][a-z0-9]{0,8}-)?\d{2,5}|" + _NUMBERED_UNIT + r")"
    r"|gpu(?:\d{3,5}|0\d|1[6-9]|[2-9]\d)"
    r"|(?:gpu|cpu|compute)-\d{1,3}-\d{1,4})\Z"
)
_TOKEN_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"
# A core dump named by `core_pattern`'s `core.%h.%p` holds the machine's name after `core.`.
# (`gpu121`: three digits are more than a node's devices; `gpu07_` may be a program's word.)
_NUMBERED_GPU_NODE = re.compile(r"gpu\d{3,5}")
_CORE_DUMP_BEFORE = re.compile(r"(?<![\w.-])core\.\Z")


def _glued_node(text: str, start: int, host: str) -> bool:
    """A node's name run into a file's or a run's other parts by `_` (`rank3_dgx042.log`,
    `nccl_debug_gpu-node-17_rank3.txt`) or written after `core.`: a machine when its shape is
    a sure one, with a dash or a DGX/HGX head; `tree_node3` and `gpu07_` are a program's words."""
    before = text[start - 1] if start else ""
    if before.isalnum():
        return False  # run into a word (`...AAgpu-node-17`): no `_` glues it, it is part of that word
    if before == "." or before == "-":
        return before == "." and _CORE_DUMP_BEFORE.search(text, max(0, start - 6), start) is not None and not text.startswith("_", start + len(host))
    return "-" in host or host.startswith(("dgx", "hgx")) or _NUMBERED_GPU_NODE.fullmatch(host) is not None
_CLUSTER_WORDS = ("node", "dgx", "hgx")
_CLUSTER_HEADS = ("dgx-", "hgx-", "node-")
# Where the shapes' matches can start, found in one scan: a pattern tried only there costs a
# third less than `re`'s own search, which tries every `n`, `d`, `g`, `a`, ... of an NCCL line.
_NODE_HEADS = list(dict.fromkeys(head for _, heads, _ in _NODE_SHAPES for head in heads))
_NODE_HEAD_WORDS = Words(_NODE_HEADS, caseless=False, fixed=True)
_NOT_BEFORE_HOST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")

# Slurm hostlists: gpu-node-[017-018], node[01-04,07]. Found from the bracket. pdsh and
# python-hostlist also take a range per level, `rack[1-2]-node[01-08]`: one list, masked whole.
_HOSTLIST_RANGE = r"\d{1,6}(?:-\d{1,6})?(?:,\d{1,6}(?:-\d{1,6})?){0,255}"
_HOSTLIST_RX = re.compile(
    rf"\[(?<=[A-Za-z0-9-]\[){_HOSTLIST_RANGE}\](?:[A-Za-z0-9-]{{1,32}}\[{_HOSTLIST_RANGE}\]){{0,3}}(?:[A-Za-z0-9-]{{1,32}})?(?![\w\[])"
)
_HOSTLIST_BRACKET = re.compile(r"\[([^\]]*)\]")
# A list a table's column cut short: sacct and squeue end a cell too wide for its column with
# `+` (`nid[005896-005+`, `frontier[01582+`), the bracket never closed.
_CUT_HOSTLIST_RX = re.compile(r"\[(?<=[A-Za-z0-9-]\[)\d{1,6}(?:[-,]\d{0,6}){0,255}\+(?=[ \t]|\r?$)", re.M)
_HOSTLIST_HEAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"
_HOSTLIST_SKIP = ("rank", "default", "local", "cuda", "dev", "device", "step", "epoch", "x", "y")
_MAX_EXPANDED = 256
# The line gate of find_hostlists (bot/masking/gate.py): what a list it masks holds, a `-`
# before its `[`, in its range (`[01-04]`, `[1,3]`) or in its tail (`node[1]-ib`); `?` is a
# non-ASCII digit as the gate reads it (`\d` takes those); or a `+` where a column cut it
# (`frontier[01582+`). NCCL's `0[0] -> 1[1]` holds none.
HOSTLIST_TRIGGER = r"-\[[0-9?]|[A-Za-z0-9-]\[[0-9?]{1,6}(?:[-,+]|\][A-Za-z0-9]{0,31}-)"

# /etc/hosts: an address (already a placeholder, or a loopback one kept) then names.
_ETC_HOSTS_RX = LinePattern(
    r"[ \t]*(?:<IPV?6?-\d{1,9}>|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|fe00::0|ff0\d::\d)(?=[ \t])",
    gate=r"(?:<IPV?6?-\d{1,9}>|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|fe00::0|ff0\d::\d)[ \t]",
)
# The line gate of find_etc_hosts (bot/masking/gate.py): the address's head; a placeholder
# whole, with the blank after it (`?`: a non-ASCII digit as the gate reads it), since Ray puts
# one in every line's prefix (`ip=<IP-1>) `), which is no row's address.
ETC_HOSTS_TRIGGER = r"<IPV?6?-[0-9?]{1,9}>[ \t]|127\.|::1|fe00::0|ff0"
_ROW_TOKEN = re.compile(r"[ \t]+([^\s#]{1,253})")
_ETC_KEEP = frozenset(
    ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "ip6-localnet",
     "ip6-mcastprefix", "ip6-allnodes", "ip6-allrouters", "ip6-allhosts", "broadcasthost",
     "localhost4", "localhost6", "localhost4.localdomain4", "localhost6.localdomain6")
)  # fmt: skip

# Tables whose columns name hosts or users, found by their header: (header pattern, columns
# separator, {column: kind}). kubectl aligns columns 3+ blanks apart and a cell may hold one
# blank (`2 (3m ago)`); Slurm and ps separate cells by blanks and have none in the columns we read.
_TWO_BLANKS = re.compile(r"\S+(?: \S+)*")
_BLANKS = re.compile(r"\S+")
_PIPED = re.compile(r"[^|\s](?:[^|\n]*[^|\s])?")
# (a literal in every header the pattern matches, the header, its cells, the columns wanted)
_TABLES: list[tuple[str, LinePattern, re.Pattern[str], dict[str, str]]] = [
    # kubectl get pods -o wide (NODE), kubectl get nodes (NAME).
    ("READY", LinePattern(r"[ \t]*(?:NAMESPACE[ \t]{2,})?NAME[ \t]{2,}READY[ \t]{2,}STATUS[ \t]{2,}[^\n]*\bNODE\b[^\n]*$", re.M, gate=r"READY[ \t]{2,}STATUS"), _TWO_BLANKS, {"NODE": "host"}),
    ("ROLES", LinePattern(r"[ \t]*NAME[ \t]{2,}STATUS[ \t]{2,}ROLES[ \t]{2,}[^\n]*$", re.M, gate=r"STATUS[ \t]{2,}ROLES"), _TWO_BLANKS, {"NAME": "host"}),
    # kubectl top nodes: `NAME   CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%`.
    ("CPU(cores)", LinePattern(r"[ \t]*NAME[ \t]{2,}CPU\(cores\)[ \t]{2,}CPU%[^\n]*$", re.M, gate=r"NAME[ \t]{2,}CPU\(cores\)[ \t]{2,}CPU%"), _TWO_BLANKS, {"NAME": "host"}),
    # LSF: bhosts, lsload: `HOST_NAME          STATUS       JL/U    MAX ...`, `HOST_NAME  status  r15s ...`.
    ("HOST_NAME", LinePattern(r"[ \t]*HOST_NAME[ \t]+(?:STATUS|status)[ \t][^\n]*$", re.M, gate=r"HOST_NAME[ \t]+(?:STATUS|status)"), _BLANKS, {"HOST_NAME": "host"}),
    # squeue: JOBID PARTITION NAME USER ST TIME NODES NODELIST(REASON)
    ("JOBID", LinePattern(r"[ \t]*JOBID[ \t]+PARTITION[ \t]+[^\n]*\bUSER\b[^\n]*$", re.M, gate=r"JOBID[ \t]+PARTITION"), _BLANKS, {"USER": "user", "NODELIST(REASON)": "host", "NODELIST": "host"}),
    # sinfo: PARTITION AVAIL TIMELIMIT NODES STATE NODELIST; sinfo -N: NODELIST NODES PARTITION STATE
    ("AVAIL", LinePattern(r"[ \t]*PARTITION[ \t]+AVAIL[ \t]+[^\n]*\bNODELIST\b[^\n]*$", re.M, gate=r"PARTITION[ \t]+AVAIL"), _BLANKS, {"NODELIST": "host"}),
    ("NODELIST", LinePattern(r"[ \t]*NODELIST[ \t]+NODES[ \t]+[^\n]*$", re.M, gate=r"NODELIST[ \t]+NODES"), _BLANKS, {"NODELIST": "host"}),
    # gcloud compute instances list: `NAME  ZONE  MACHINE_TYPE  PREEMPTIBLE  INTERNAL_IP  EXTERNAL_IP  STATUS`
    # (an instance's name is its host name; PREEMPTIBLE and EXTERNAL_IP may be blank).
    ("MACHINE_TYPE", LinePattern(r"[ \t]*NAME[ \t]+ZONE[ \t]+MACHINE_TYPE[ \t][^\n]*$", re.M, gate=r"NAME[ \t]+ZONE[ \t]+MACHINE_TYPE"), _BLANKS, {"NAME": "host"}),
    # top: `    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND`
    ("PID", LinePattern(r"[ \t]*PID[ \t]+USER[ \t]+PR[ \t]+NI[ \t][^\n]*$", re.M, gate=r"PID[ \t]+USER[ \t]+PR[ \t]+NI"), _BLANKS, {"USER": "user"}),
    # ps aux / ps -ef: USER PID ... / UID PID PPID ...
    ("PID", LinePattern(r"[ \t]*(?:USER[ \t]+PID[ \t]+%CPU|UID[ \t]+PID[ \t]+PPID)[^\n]*$", re.M, gate=r"PID[ \t]+(?:%CPU|PPID)"), _BLANKS, {"USER": "user", "UID": "user"}),
    # loginctl list-sessions: `SESSION  UID USER     SEAT  TTY`, a blank cell where a session has no seat
    # (the user column comes before any blank one).
    ("SESSION", LinePattern(r"[ \t]*SESSION[ \t]+UID[ \t]+USER[ \t][^\n]*$", re.M, gate=r"SESSION[ \t]+UID[ \t]+USER"), _BLANKS, {"USER": "user"}),
    # lsof: `COMMAND     PID     USER   FD   TYPE DEVICE SIZE/OFF  NODE NAME` (a device's rows leave
    # SIZE/OFF blank, so the columns after FD are not read by place).
    ("FD", LinePattern(r"[ \t]*COMMAND[ \t]+PID[ \t]+USER[ \t]+FD[ \t][^\n]*$", re.M, gate=r"PID[ \t]+USER[ \t]+FD"), _BLANKS, {"USER": "user"}),
    # ps -eo pid,user,... and htop: `    PID USER         ELAPSED CMD` (top's own header has its row above).
    ("PID", LinePattern(r"[ \t]*PID[ \t]+USER[ \t]+(?!PR[ \t])[^\n]*$", re.M, gate=r"PID[ \t]+USER[ \t]+(?!PR[ \t])"), _BLANKS, {"USER": "user"}),
    # Airflow's CLI tables (`airflow users list`, `airflow dags list`): cells between ` | `, a
    # rule of `=` and `+` under the header.
    ("=+=", LinePattern(r"[ \t]*(?:id[ \t]*\|[ \t]*username|dag_id[ \t]*\|)[^\n]*" + NEXT_LINE + r"=+(?:\+=+)+[ \t]*\r?$", re.M, gate=r"=\+="), _PIPED, {"username": "user", "owners": "user", "first_name": "name", "last_name": "name"}),
    # LSF's bjobs: `JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME`
    # (a pending job's EXEC_HOST is blank, so only the columns before it are read by place).
    ("STAT", LinePattern(r"[ \t]*JOBID[ \t]+USER[ \t]+STAT[ \t]+QUEUE[ \t]+FROM_HOST[ \t][^\n]*$", re.M, gate=r"USER[ \t]+STAT[ \t]+QUEUE"), _BLANKS, {"USER": "user", "FROM_HOST": "host"}),
    # HTCondor's condor_q: `OWNER  BATCH_NAME  SUBMITTED  DONE  RUN  IDLE  TOTAL JOB_IDS`, and
    # with -nobatch: ` ID  OWNER  SUBMITTED  RUN_TIME ST PRI SIZE CMD`.
    ("BATCH_NAME", LinePattern(r"[ \t]*OWNER[ \t]+BATCH_NAME[ \t][^\n]*$", re.M, gate=r"OWNER[ \t]+BATCH_NAME"), _BLANKS, {"OWNER": "user"}),
    ("RUN_TIME", LinePattern(r"[ \t]*ID[ \t]+OWNER[ \t]+SUBMITTED[ \t]+RUN_TIME[ \t][^\n]*$", re.M, gate=r"OWNER[ \t]+SUBMITTED[ \t]+RUN_TIME"), _BLANKS, {"OWNER": "user"}),
    # ... and with -hold: ` ID      OWNER          HELD_SINCE  HOLD_REASON`.
    ("HELD_SINCE", LinePattern(r"[ \t]*ID[ \t]+OWNER[ \t]+HELD_SINCE[ \t][^\n]*$", re.M, gate=r"OWNER[ \t]+HELD_SINCE"), _BLANKS, {"OWNER": "user"}),
    # LSF's bhist: `JOBID   USER    JOB_NAME  PEND    PSUSP   RUN     USUSP   SSUSP   UNKWN   TOTAL`.
    ("JOB_NAME", LinePattern(r"[ \t]*JOBID[ \t]+USER[ \t]+JOB_NAME[ \t]+PEND[ \t][^\n]*$", re.M, gate=r"USER[ \t]+JOB_NAME[ \t]+PEND"), _BLANKS, {"USER": "user"}),
    # Grid Engine's qstat: `job-ID  prior   name  user  state submit/start at  queue  slots ja-task-ID`
    # over a rule of dashes (read with the header; a pending job has no queue).
    ("job-ID", LinePattern(r"[ \t]*job-ID[ \t]+prior[ \t]+name[ \t]+user[ \t][^\n]*" + NEXT_LINE + r"-{20,}[ \t]*$", re.M, gate=r"job-ID[ \t]+prior[ \t]+name[ \t]+user"), _BLANKS, {"user": "user"}),
]  # fmt: skip
# One scan for the headers' literals: a header pattern whose literal is absent is not tried
# (each pattern's own gate would sweep the text once per table; most logs print none).
_TABLE_LITERALS = LiteralSet(literal for literal, _, _, _ in _TABLES)
_HEADER_CELL = re.compile(r"[A-Z%()_ -]+\Z")
_HOSTS_CELL = re.compile(r"[^,\[]+(?:\[[^\]]*\][^,]*)?")

def _expand_hostlist(head: str, body: str, tail: str) -> list[str]:
    """The names `head[body]tail` stands for; `tail` may hold a range of its own (`n[01-08]`)."""
    names: list[str] = []
    inner = _HOSTLIST_BRACKET.search(tail)
    for part in body.split(","):
        lo, _, hi = part.partition("-")
        hi = hi or lo
        width = len(lo) if lo.startswith("0") else 0
        for n in range(int(lo), min(int(hi), int(lo) + _MAX_EXPANDED) + 1):
            if inner is None:
                names.append(f"{head}{n:0{width}d}{tail}")
            else:
                prefix = f"{head}{n:0{width}d}{tail[: inner.start()]}"
                names.extend(_expand_hostlist(prefix, inner.group(1), tail[inner.end() :])[: _MAX_EXPANDED - len(names)])
            if len(names) >= _MAX_EXPANDED:
                return names
    return names


def find_hostlists(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask Slurm hostlists (`gpu-node-[017-018]`) whole, and learn every node they name."""
    if "[" not in text:
        return
    for m in _CUT_HOSTLIST_RX.finditer(text):
        lo = max(0, m.start() - 63)
        start = lo + len(text[lo : m.start()].rstrip(_HOSTLIST_HEAD))
        head = text[start : m.start()]
        if head[:1].isalpha() and not (start and text[start - 1] in "._<>") and head.lower().rstrip("-_") not in _HOSTLIST_SKIP:
            # (The `+` stays: it says the column cut the list.)
            edits.append((start, m.end() - 1, "host", text[start : m.end() - 1]))
    for m in _HOSTLIST_RX.finditer(text):
        if text[m.start() - 1] != "-" and "-" not in m.group() and "," not in m.group():
            continue  # `layers[3]`, NCCL's `0[0] -> 1[1]`: an index, not a node list
        lo = max(0, m.start() - 63)
        start = lo + len(text[lo : m.start()].rstrip(_HOSTLIST_HEAD))
        head = text[start : m.start()]
        body = text[m.start() + 1 : text.index("]", m.start())]
        if not head or not head[0].isalpha() or (start and text[start - 1] in "._<>"):
            continue
        if head.lower().rstrip("-_") in _HOSTLIST_SKIP:
            continue
        if not (head.endswith("-") or "-" in body or "," in body):
            continue  # `layers[3]`: an index, not a node list
        edits.append((start, m.end(), "host", text[start : m.end()]))
        for name in _expand_hostlist(head, body, text[text.index("]", m.start()) + 1 : m.end()]):
            state.learn_host(name)


def find_node_names(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask host names recognisable by their shape alone (cloud nodes, cluster nodes)."""
    starts = dict(zip(_NODE_HEADS, _NODE_HEAD_WORDS.starts(one_byte(text)), strict=True))
    if any(starts.values()):
        starts = _outside_quiet_prefix_hosts(text, starts, state)
        if any(starts.values()):
            _shapes_at_heads(text, starts, edits, state)


def _shapes_at_heads(text: str, starts: dict[str, list[int]], edits: list[Edit], state: LogState) -> None:
    """The node shapes tried where their heads start (`starts`: head -> positions)."""
    known = state.hosts  # masked by the learned-names pass anyway (NCCL prefixes: every line)
    for name, heads, rx in _NODE_SHAPES:
        for m in _matches_from(rx, text, sorted(chain.from_iterable(starts[head] for head in heads))):
            start, end = m.span()
            if (not start or (text[start - 1] not in _TOKEN_CHARS and text[start - 1] != "<")) and m.group() in known:
                continue  # a learned host standing whole (every NCCL prefix): masked anyway
            if name == "accel" and (m.group() in known or text.endswith(_CLUSTER_HEADS, max(0, start - 5), start)):
                continue  # learned (masked anyway), or inside `dgx-h100-027`: the cluster shape's
            if name in ("cluster", "accel"):
                lo = max(0, start - 64)
                run = text[lo:start]
                start -= len(run) - len(run.rstrip(_TOKEN_CHARS))
            host = text[start:end]
            if host in known and not (start and text[start - 1] == "<"):
                # Masked by the learned-names pass, which leaves a name after `<` alone (it
                # may be inside a placeholder): `node01<node01` is masked here, whole, at once.
                # (Asked first: every NCCL line's prefix host is one, and is decided here.)
                continue
            if name in ("cluster", "accel") and (
                (start and text[start - 1] in _NOT_BEFORE_HOST and not _glued_node(text, start, host))
                or not _CLUSTER_WHOLE.match(host)
                or (text.startswith("_", end) and not _glued_node(text, start, host))
                or (text[end : end + 1] == "." and text[end + 1 : end + 2].isdigit() and _CORE_DUMP_BEFORE.search(text, max(0, start - 6), start) is None)
            ):
                continue
            if text.endswith("GPU ", max(0, start - 4), start):
                continue  # ROCm's `Memory access fault by GPU node-2`: the agent's node in the topology
            edits.append((start, m.end(), "host", host))
            state.learn_host(host)


# What may stand just before a line-leading NCCL prefix's host: a line's start (a newline),
# a launcher label's blank or colon (`worker-3: `, `[rank5]:`).
_PREFIX_HOST_BEFORE = frozenset("\n :")


def _outside_quiet_prefix_hosts(text: str, starts: dict[str, list[int]], state: LogState) -> dict[str, list[int]]:
    """`starts` (head -> positions) less the heads that lie in a quiet host: one of the text's
    line-leading NCCL prefix hosts in which the shapes find nothing when tried on it alone,
    standing where a prefix's host stands (after the text's start, a newline, a blank or a
    colon, and before a colon).

    An NCCL log names a host on every line (`dgx-h100-017:1234:1299 [3] NCCL ...`), each one
    learned (the learned-names pass masks them), and trying the shapes at its two heads
    (`dgx`, `h100`) cost 15 ms a MB. What the shapes decide at a head reads only the token
    around it and a character or two on either side, none of them a newline, blank or colon,
    so the shapes tried on the host alone before a colon decide what they would at each of
    its places: once per distinct host, not per line. Heads elsewhere (rank 0's own lines
    naming `gpu-node-017` or `num_nodes`) are still tried, each where it stands: a match is
    made of token characters, so none runs into or out of a quiet host, and a head left out
    moves no other head's match. (Hosts learned later only make the shapes skip more.)
    """
    # The prefix row's count of this text, when it read the very text given here (a piece of
    # an NCCL log, where this pays); not made anew for a row's few lines, nor pushed out.
    prefixes = _line_prefix_hosts.held(text)
    if prefixes is None:
        return starts
    # head -> (its offset in a quiet host, the host's length with its colon) -> those hosts
    quiet: dict[str, dict[tuple[int, int], set[str]]] = {}
    for host in prefixes:
        alone = host + ":"
        # (Encoded as one_byte would, without taking the stage text's place in its memo.)
        at = dict(zip(_NODE_HEADS, _NODE_HEAD_WORDS.starts(alone.encode("ascii", "replace")), strict=True))
        if not any(at.values()):
            continue
        # A copy of what is known: a host that does yield an edit alone must not be learned
        # by this check (the pass over the text learns it there).
        found: list[Edit] = []
        _shapes_at_heads(alone, at, found, LogState(hosts=dict(state.hosts)))
        if found:
            continue
        for head, offsets in at.items():
            for offset in offsets:
                quiet.setdefault(head, {}).setdefault((offset, len(alone)), set()).add(alone)
    if not quiet:
        return starts
    kept = dict(starts)
    before = _PREFIX_HOST_BEFORE
    for head, places in quiet.items():
        for (offset, size), alones in places.items():
            kept[head] = [
                at for at in kept[head]
                if at < offset or text[at - offset : at - offset + size] not in alones
                or (at > offset and text[at - offset - 1] not in before)
            ]  # fmt: skip
    return kept


def _matches_from(rx: re.Pattern[str], text: str, starts: list[int]) -> Iterator[re.Match[str]]:
    """`rx.finditer(text)` for a pattern whose every match starts at one of `starts` (sorted):
    the leftmost match from each place on, tried only where one can start."""
    end = 0
    for start in starts:
        if start >= end and (m := rx.match(text, start)) is not None:
            end = m.end()
            yield m


def find_etc_hosts(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the names in `/etc/hosts` rows (after their address); keep localhost's aliases.

    Names run while they look like hosts: one with a digit, dash or dot (`gpu-node-05`,
    `trainbox05.cluster.local`), or a bare word that ends the row (`192.168.1.10 fileserver`);
    `10.0.0.5 is unreachable` is prose.
    """
    for m in _ETC_HOSTS_RX.finditer(text):
        pos = m.end()
        for _ in range(8):
            token = _ROW_TOKEN.match(text, pos)
            if token is None:
                break
            host = token.group(1)
            pos = token.end()
            ends_row = pos >= len(text) or text[pos] in "\r\n" or text.startswith((" #", "\t#"), pos)
            if not host_value_ok(host) or (not any(c.isdigit() or c in "-." for c in host) and not ends_row):
                break
            if host.lower() in _ETC_KEEP:
                continue
            edits.append((token.start(1), token.end(1), "host", host))
            if "." not in host:
                state.learn_host(host)


def find_tables(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the host, user and name columns of tables with a header (kubectl, squeue, sinfo, ps,
    lsof, bjobs, bhist, condor_q, qstat, Airflow's CLI, and the dash-ruled sacct family), and
    learn each value but one a column cut short (`hannah.f+`).

    A table that runs to the end of the text stays open in `state`: its rows go on at the
    start of the next piece (`denpex mask` cuts a long `kubectl get pods -o wide` in two).
    """
    if state.open_table is not None:
        cells, layout = state.open_table
        state.open_table = None
        _table_rows(text, 0, cells, layout, edits, state)
    found = _TABLE_LITERALS.present(text)
    if not found:
        return
    for literal, header_rx, cells, wanted in _TABLES:
        if literal not in found:
            continue
        for header in header_rx.finditer(text):
            names = [c.group() for c in cells.finditer(text, LinePattern.body_start(header), header.end())]
            columns = {i: wanted[name] for i, name in enumerate(names) if name in wanted}
            checks = {i: _CELL_CHECKS[name] for i, name in enumerate(names) if name in _CELL_CHECKS}
            if names and names[0] == "HOST_NAME" and len(names) > 1:
                checks[1] = _LSF_STATUS  # a line that is no host's row ends the table
            if names and names[0] == "NAME" and "READY" not in names and "ZONE" not in names and "STATUS" in names:
                checks[names.index("STATUS")] = _NODE_STATUS  # kubectl get nodes
            width = len(names)
            if names[:2] == ["NAME", "ZONE"]:
                width = 4  # NAME ZONE MACHINE_TYPE and a fourth: blank cells shorten the row
            if names[:3] == ["JOBID", "USER", "STAT"]:
                checks[2] = _LSF_JOB_STAT  # bjobs: a line that is no job's row ends the table
            if names[:3] == ["ID", "OWNER", "HELD_SINCE"]:
                width = 4  # condor_q -hold: the reason is prose
            if "OWNER" in names:
                checks[names.index("OWNER")] = _LOGIN_CELL  # condor_q's `Total for query: ...` ends it
            if names[0] == "job-ID":
                width = 5  # qstat: up to the state; a pending job has no queue
            if names[:4] == ["COMMAND", "PID", "USER", "FD"]:
                width = 4  # lsof: up to FD
            if names[-1].startswith("="):
                width = len(names) - 1  # Airflow's rule, read with the header, is no column
            if names[0] == "SESSION" and "USER" in names:
                width = names.index("USER") + 2  # loginctl leaves SEAT and TTY blank where there is none
            if columns:
                _table_rows(text, header.end() + 1, cells, (columns, checks, width), edits, state)


# sacct (and sacctmgr, sshare, sreport) rule their header with dashes, one run per column, and
# leave a cell blank where a row has no value (`.batch` rows have no User, an account's own row
# in sshare none either): the runs give the columns.
# The LogState method that learns a masked cell's value, by the cell's kind.
_LEARNERS = {"user": "learn_user", "host": "learn_host", "name": "learn_name"}
_RULER_LINE = r"[ \t]*-{3,}(?: -{1,64}){1,64}[ \t]*\r?$"
_RULER = NEXT_LINE + _RULER_LINE
_NEXT_RULER = re.compile(LINE_PREFIX + _RULER_LINE, re.M)
# (a literal of the header, the header and its ruler, the shape of a row's first cell)
_RULED_HEADERS: tuple[tuple[str, LinePattern, re.Pattern[str]], ...] = (
    ("JobID", LinePattern(r"[ \t]*JobID[ \t][^\n]*" + _RULER, re.M, gate=r"JobID[ \t]"), re.compile(r" *\d{1,12}(?:[._+][\w.+-]{0,24})? *\Z")),
    # sshare: `Account  User  RawShares  NormShares  RawUsage  EffectvUsage  FairShare`, an
    # account's rows indented under it (`root`, ` mlteam`, `  mlteam   hfischer`).
    ("RawShares", LinePattern(r"[ \t]*Account[ \t]+User[ \t]+RawShares[ \t][^\n]*" + _RULER, re.M, gate=r"User[ \t]+RawShares"), re.compile(r" *[\w.-]{1,64} *\Z")),
    # sreport's user reports: `Cluster  Account  Login  Proper Name  Used  Energy` (and
    # `Cluster  Login  Proper Name  Account ...`), the GECOS name beside the login.
    ("Proper Name", LinePattern(r"[ \t]*Cluster[ \t][^\n]*Login[ \t]+Proper Name[ \t][^\n]*" + _RULER, re.M, gate=r"Login[ \t]+Proper Name"), re.compile(r" *[\w.-]{1,64} *\Z")),
    # sacctmgr: `show user` (`User  Def Acct  Admin`, a user's row), `show assoc` (`Cluster  Account
    # User  Partition  Share ...`, an account's own row leaves User blank).
    ("Def Acct", LinePattern(r"[ \t]*User[ \t]+Def Acct[ \t][^\n]*" + _RULER, re.M, gate=r"User[ \t]+Def Acct"), re.compile(r" *[\w.-]{1,64} *\Z")),
    ("Cluster", LinePattern(r"[ \t]*Cluster[ \t]+Account[ \t]+User[ \t][^\n]*" + _RULER, re.M, gate=r"Account[ \t]+User[ \t]"), re.compile(r" *[\w.-]{1,64} *\Z")),
    # PBS/Torque's `qstat -a` / `qstat -u`: `Job ID  Username Queue  Jobname  SessID NDS TSK Memory Time  S Time`
    # (a login longer than the column is cut without a mark).
    ("Username", LinePattern(r"[ \t]*Job ID[ \t]+Username[ \t][^\n]*" + _RULER, re.M, gate=r"Job ID[ \t]+Username"), re.compile(r" *\d{1,12}(?:\[\d{0,9}\])?(?:\.[\w.-]{1,64})? *\Z")),
)
_RULED_COLUMNS = {"User": "user", "Username": "user", "Login": "user", "Proper Name": "name", "NodeList": "host", "BatchHost": "host"}
_DASH_RUN = re.compile(r"-+")


def find_ruled_tables(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the user, name and host columns of sacct, sshare and sreport tables, cut by their dash ruler."""
    if not holds(text, "---"):
        return
    for literal, header_rx, first_cell in _RULED_HEADERS:
        if holds(text, literal):
            for m in header_rx.finditer(text):
                _ruled_table(text, m, first_cell, edits, state)


def _ruled_table(text: str, m: re.Match[str], first_cell: re.Pattern[str], edits: list[Edit], state: LogState) -> None:
    """Mask the wanted columns of the rows under one ruled header (`m`: the header and its ruler)."""
    block = text[LinePattern.body_start(m) : m.end()]
    header, ruler = block.split("\n", 1)
    # Rows (and the ruler) may stand behind a launcher's prefixes: columns count from there.
    ruler = ruler[past_prefix(ruler, 0, len(ruler)) :]
    spans = [(r.start(), r.end()) for r in _DASH_RUN.finditer(ruler)]
    columns = [(i, _RULED_COLUMNS[name]) for i, (lo, hi) in enumerate(spans) if (name := header[lo:hi].strip()) in _RULED_COLUMNS]
    if not columns:
        return
    pos = m.end() + 1
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        pos = past_prefix(text, pos, end)
        row = text[pos:end]
        cells = spans if _ruled_row(row, spans, first_cell) else _spaced_cells(row, len(spans), first_cell)
        if cells is None or _NEXT_RULER.match(text, end + 1):
            break  # the table ended: the line is not laid out by this ruler, or heads the next table
        for i, kind in columns:
            lo, hi = cells[i]
            cell = row[lo:hi]
            value = cell.strip()
            if not value or (" " in value and kind != "name") or value.lower() in _TECHNICAL_ACCOUNTS or (kind == "host" and not host_value_ok(value.rstrip("+"))):
                continue
            start = pos + lo + cell.index(value)
            edits.append((start, start + len(value), kind, value))
            if not value.endswith("+"):  # sacct and sreport cut a long value to `hannah.f+`
                getattr(state, _LEARNERS[kind])(value)
        pos = end + 1


_CELL = re.compile(r"\S+")


def _spaced_cells(row: str, count: int, first_cell: re.Pattern[str]) -> list[tuple[int, int]] | None:
    """A row re-spaced on its way to the log (pasted through a chat, re-aligned by hand): its
    cells by whitespace, when there are exactly as many as the ruler has columns and the
    first has the table's first cell's shape (sacct's: a job id). A row with a blank cell (a
    step without a User) is not read this way."""
    cells = [(c.start(), c.end()) for c in _CELL.finditer(row)]
    if len(cells) != count or not first_cell.match(row[cells[0][0] : cells[0][1]]):
        return None
    return cells


def _ruled_row(row: str, spans: list[tuple[int, int]], first_cell: re.Pattern[str]) -> bool:
    """A row of the ruled table: its first cell's shape (sacct's: a job id), and every cell within its column."""
    if not first_cell.match(row[spans[0][0] : spans[0][1]]):
        return False
    # The last column may run past its ruler: nothing stands after it to be misread.
    last = len(spans) - 1
    return all(row[lo - 1 : lo] in ("", " ") and (i == last or row[hi : hi + 1] in ("", " ", "\r")) for i, (lo, hi) in enumerate(spans))


# Columns whose every cell has a known shape: a line of prose or another tool's output after
# the table fails them, and ends the table before its words are taken for hosts or users.
_CELL_CHECKS = {
    "READY": re.compile(r"\d{1,4}/\d{1,4}\Z"),
    "PID": re.compile(r"\d{1,10}\Z"),
    "PPID": re.compile(r"\d{1,10}\Z"),
    "JOBID": re.compile(r"\d[\w\[\]%,-]{0,40}\Z"),
    "NODES": re.compile(r"\d{1,7}\Z"),
    "AVAIL": re.compile(r"(?:up|down|drain|inact)\*?\Z"),
    "ZONE": re.compile(r"[a-z]{2,12}-[a-z]{2,12}\d{1,2}-[a-z]\Z"),  # gcloud's `us-central1-a`
    "job-ID": re.compile(r"\d{1,10}\Z"),
    "ID": re.compile(r"\d{1,12}\.\d{1,6}\Z"),  # condor_q's cluster.proc: `4821301.0`
    "prior": re.compile(r"\d\.\d{5}\Z"),  # Grid Engine's priority: `0.50500`
}
# bjobs' STAT column, and a login as condor_q's OWNER column prints it.
_LSF_JOB_STAT = re.compile(r"(?:PEND|RUN|DONE|EXIT|PSUSP|USUSP|SSUSP|WAIT|ZOMBI|UNKWN|PROV)\Z")
_LOGIN_CELL = re.compile(r"[a-z_][a-z0-9_.-]{0,31}\Z")
_LSF_STATUS = re.compile(r"-?(?:ok|unavail|unreach|busy|lockW|lockU|closed(?:_\w{1,12})?)\Z")
_NODE_STATUS = re.compile(r"(?:Ready|NotReady|Unknown)(?:,SchedulingDisabled)?\Z")
# ({column index: kind}, {column index: cell shape}, number of header cells)
TableLayout = tuple[dict[int, str], dict[int, re.Pattern[str]], int]


def _table_rows(text: str, pos: int, cells: re.Pattern[str], layout: TableLayout, edits: list[Edit], state: LogState) -> None:
    columns, checks, width = layout
    while True:
        if pos >= len(text):
            state.open_table = (cells, layout)
            return
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        row = list(cells.finditer(text, past_prefix(text, pos, end), end))
        if len(row) < width or all(_HEADER_CELL.match(c.group()) for c in row):
            return  # a short line (blank, a prompt, prose) or the next table's header ends it
        if any(not rx.match(row[i].group()) for i, rx in checks.items() if i < len(row)):
            return  # not a row of this table
        for index, kind in columns.items():
            if index >= len(row):
                continue
            cell = row[index]
            if kind == "name":
                edits.append((cell.start(), cell.end(), "name", cell.group()))
                continue
            if kind == "user":
                user = cell.group()
                if user.lower() not in _TECHNICAL_ACCOUNTS and not user.isdigit() and user[0].isalpha():
                    edits.append((cell.start(), cell.end(), "user", user))
                    state.learn_user(user)
                continue
            for item in _HOSTS_CELL.finditer(cell.group()):
                host = item.group()
                if host_value_ok(host) and host not in ("<none>", "<unknown>") and "(" not in host:
                    edits.append((cell.start() + item.start(), cell.start() + item.end(), "host", host))
                    if "[" not in host:
                        state.learn_host(host)
        pos = end + 1


# Accounts of the system and its services in ps/squeue USER columns.
_TECHNICAL_ACCOUNTS = frozenset(
    ("root", "daemon", "nobody", "systemd+", "systemd-network", "message+", "syslog", "polkitd", "chrony",
     "www-data", "postgres", "redis", "mysql", "slurm", "munge", "_apt", "avahi", "colord", "rtkit", "user", "ubuntu", "airflow")
)  # fmt: skip
