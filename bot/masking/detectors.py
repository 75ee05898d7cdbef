"""The declared table of detectors: one row per detector, read by the one masker.

A row says what it finds (the kinds its edits carry, hence the placeholders it emits), the
literal anchor words it starts from, the stage it runs in and the function that finds. The
masker (masker.py) runs the stages in order, each row of a stage over the same text, then
applies the stage's edits at once; the anchor automaton (anchors.py) is built from the
rows' anchor words, so a new row's words cannot be left out of the gate. A row with
`line_anchors` or a `line_trigger` runs only on the lines that hold one of the words or match
the trigger (gate.py says what it promises; tests/masking/test_gate.py checks the promise row
by row); a row without runs on every line. The tests read this
table: every kind a row declares must have examples as real tools print them
(tests/masking/test_detectors.py), so a new kind cannot skip the per-kind tests.

Stages, and why in this order:
  blocks     multi-line blocks (PEM, Kubernetes Secret `data:`) on the whole piece, first
  secrets    credentials; later patterns cannot match inside their placeholders
  people     e-mails and account names (learned for the rest of the log)
  names      people's names, after e-mails: `Hannah Fischer <<EMAIL-1>>` is found from it
  addresses  MACs, IPv6, IPv4
  hosts      host names, after addresses: a name running into an address is judged on the
             same text on every pass
  leftovers  NCCL prefix hosts behind wrappers no line-start pattern saw
Learned names and secrets (learned.py) are masked last, wherever they recur.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.masking.addressed import ADDRESSED_TRIGGER, find_addressed_names
from bot.masking.addresses import (
    CSV_SERIAL_WORDS,
    IPV4_TRIGGER,
    IPV6_TRIGGER,
    MAC_TRIGGER,
    MAC_WORDS,
    NVME_WORDS,
    SERIAL_WORDS,
    find_csv_serials,
    find_ipv4,
    find_ipv6,
    find_macs,
    find_nvme_serials,
    find_serials,
)
from bot.masking.blocks import find_pem_blocks, find_secret_data
from bot.masking.buckets import BUCKET_WORDS, find_bucket_given_names
from bot.masking.cloud import (
    ACCOUNT_LINE_WORDS,
    ACCOUNT_QUERY_WORDS,
    find_accounts,
    find_queried_accounts,
)
from bot.masking.commands import COMMAND_WORDS, PGPASS_WORDS, find_command_credentials, find_pgpass
from bot.masking.edits import Edit
from bot.masking.encoded import find_encoded_credentials
from bot.masking.hosts import (
    ETC_HOSTS_TRIGGER,
    FQDN_TRIGGER,
    HOST_WORDS,
    HOSTLIST_TRIGGER,
    LINE_HOSTS_TRIGGER,
    WORLD_INFO_WORDS,
    find_etc_hosts,
    find_fqdns,
    find_host_positions,
    find_hostlists,
    find_line_hosts,
    find_nccl_leftovers,
    find_node_names,
    find_org_hosts,
    find_ruled_tables,
    find_tables,
    find_world_info,
    learn_nccl_hosts,
)
from bot.masking.identity_numbers import IDENTITY_TRIGGER, IDENTITY_WORDS, find_identity_numbers
from bot.masking.keys import KEY_KINDS
from bot.masking.names import (
    ACTED_BY_TRIGGER,
    CONTACT_TRIGGER,
    CONTACT_WORDS,
    GREETING_TRIGGER,
    KEYED_NAME_TRIGGER,
    NAME_WORDS,
    ROLE_WORDS,
    TITLED_NAME_TRIGGER,
    TRACKER_ACTOR_TRIGGER,
    find_annotated_names,
    find_contact_names,
    find_git_format_names,
    find_greeted_names,
    find_keyed_names,
    find_names,
    find_role_names,
)
from bot.masking.owners import OWNER_LINE_WORDS, find_owner_logins
from bot.masking.pairs import KEY_WORDS, find_pairs
from bot.masking.pasted import (
    KNOWN_HOSTS_TRIGGER,
    PROSE_HOST_TRIGGER,
    PS_ROW_TRIGGER,
    find_known_hosts,
    find_prose_hosts,
    find_ps_rows,
    find_reason_rows,
)
from bot.masking.people import (
    LS_OWNER_TRIGGER,
    NANP_PHONE_TRIGGER,
    NATIONAL_PHONE_TRIGGER,
    PEOPLE_WORDS,
    PHONE_WORDS,
    VALUE_PHONE_TRIGGER,
    find_emails,
    find_file_owners,
    find_home_users,
    find_mentions,
    find_named_users,
    find_nanp_phones,
    find_national_phones,
    find_phones,
    find_user_at_host,
    find_value_phones,
)
from bot.masking.phrased import PHRASED_TRIGGER, find_phrased_people
from bot.masking.pods import POD_LINE_WORDS, POD_ROW_TRIGGER, find_pod_owners
from bot.masking.postal import POSTAL_TRIGGER, find_postal_addresses
from bot.masking.prose import (
    CODE_WORDS,
    PROSE_SECRET_TRIGGER,
    find_labelled_codes,
    find_prose_secrets,
)
from bot.masking.resources import (
    PERSONAL_HOST_WORDS,
    RESOURCE_WORDS,
    find_personal_hosts,
    find_resource_owners,
)
from bot.masking.state import LogState
from bot.masking.urls import (
    URL_CREDENTIALS_TRIGGER,
    URL_HOSTS_TRIGGER,
    find_url_credentials,
    find_url_hosts,
)
from bot.masking.vendor import (
    CONTEXT_WORDS,
    PREFIX_TOKEN_KINDS,
    VENDOR_KINDS,
    VENDOR_TRIGGER,
    find_contextual_keys,
    find_vendor_tokens,
)
from bot.masking.web import WEB_KINDS, WEB_WORDS, find_web_credentials

# (word, start, end) in the lowered text, as anchors.find_anchors reports them.
Hit = tuple[str, int, int]

STAGES = ("blocks", "secrets", "people", "names", "addresses", "hosts", "leftovers")


@dataclass
class Scan:
    """One stage's view of a piece: its text, the anchor words found, the edits collected."""

    text: str
    hits: list[Hit]  # anchor hits by position (valid in the secrets stage, on its text)
    present: set[str]  # anchor words present in the piece (any stage)
    edits: list[Edit]
    state: LogState


@dataclass(frozen=True)
class Detector:
    name: str
    stage: str  # one of STAGES
    find: Callable[[Scan], None]
    kinds: tuple[str, ...]  # the kinds of the values it masks (placeholder types)
    anchors: tuple[str, ...] = ()  # literal words it starts from, lowercase; () = its own literal scan
    # Runs only on the lines holding one of these words or matching `line_trigger`, a
    # Hyperscan pattern (gate.py states what a row promises by them); neither = the whole text.
    line_anchors: tuple[str, ...] = ()
    line_trigger: str = ""

    @property
    def gated(self) -> bool:
        return bool(self.line_anchors or self.line_trigger)


def _owners(scan: Scan) -> None:
    find_owner_logins(scan.text, scan.edits, scan.state)
    find_role_names(scan.text, scan.edits, scan.state)


def _labelled_numbers(scan: Scan) -> None:
    find_serials(scan.text, scan.edits)
    find_phones(scan.text, scan.edits)


_ACCOUNT_KINDS = ("account", "user")
_PAIR_KINDS = (*KEY_KINDS, "user", "host", "docker-auth", "basic-auth", "token", "wandb-key", *VENDOR_KINDS)

DETECTORS: tuple[Detector, ...] = (
    Detector("pem-blocks", "blocks", lambda s: find_pem_blocks(s.text, s.edits, s.state), ("private-key",)),
    Detector("kubernetes-secret-data", "blocks", lambda s: find_secret_data(s.text, s.edits, s.state), ("k8s-secret",)),
    Detector("vendor-tokens", "secrets", lambda s: find_vendor_tokens(s.text, s.edits), (*VENDOR_KINDS, "account"), line_trigger=VENDOR_TRIGGER),
    Detector("contextual-keys", "secrets", lambda s: find_contextual_keys(s.text, s.hits, s.edits), ("kube-token", "wandb-key", "aws-secret-key", "cohere-key", "databricks-token", "gitlab-token", *PREFIX_TOKEN_KINDS), CONTEXT_WORDS),
    Detector("url-credentials", "secrets", lambda s: find_url_credentials(s.text, s.edits, s.state), ("user", "password", "token", *VENDOR_KINDS), line_trigger=URL_CREDENTIALS_TRIGGER),
    Detector("key-value-pairs", "secrets", lambda s: find_pairs(s.text, s.hits, s.edits, s.state), _PAIR_KINDS, KEY_WORDS),
    Detector("command-credentials", "secrets", lambda s: find_command_credentials(s.text, s.hits, s.edits, s.state), ("password", "secret", "user", "wandb-key", *VENDOR_KINDS), COMMAND_WORDS),
    Detector("pgpass-rows", "secrets", lambda s: find_pgpass(s.text, s.present, s.edits, s.state), ("password", "user"), PGPASS_WORDS),
    Detector("web-credentials", "secrets", lambda s: find_web_credentials(s.text, s.present, s.edits), WEB_KINDS, WEB_WORDS),
    Detector("prose-secrets", "secrets", lambda s: find_prose_secrets(s.text, s.edits, s.state), ("password", "token"), line_trigger=PROSE_SECRET_TRIGGER),
    Detector("labelled-codes", "secrets", lambda s: find_labelled_codes(s.text, s.edits), ("access-code",), line_anchors=CODE_WORDS),
    Detector("cloud-accounts", "secrets", lambda s: find_accounts(s.text, s.edits, s.state), _ACCOUNT_KINDS, line_anchors=ACCOUNT_LINE_WORDS),
    Detector("queried-accounts", "secrets", lambda s: find_queried_accounts(s.text, s.present, s.edits), ("account",), ACCOUNT_QUERY_WORDS),
    # Last of its stage: a base64 run no row claimed, decoding to text that holds a credential.
    Detector("encoded-credentials", "secrets", lambda s: find_encoded_credentials(s.text, s.edits), ("encoded-credentials",)),
    Detector("emails", "people", lambda s: find_emails(s.text, s.edits, s.state), ("email", "user", "host")),  # scp-like targets are a user and a host
    Detector("user-at-host", "people", lambda s: find_user_at_host(s.text, s.edits, s.state), ("user", "host")),
    Detector("home-users", "people", lambda s: find_home_users(s.text, s.present, s.edits, s.state), ("user",), PEOPLE_WORDS),
    Detector("named-users", "people", lambda s: find_named_users(s.text, s.present, s.edits, s.state), ("user", "name"), PEOPLE_WORDS),
    Detector("file-owners", "people", lambda s: find_file_owners(s.text, s.edits, s.state), ("user",), line_trigger=LS_OWNER_TRIGGER),
    Detector("ps-rows", "people", lambda s: find_ps_rows(s.text, s.edits, s.state), ("user",), line_trigger=PS_ROW_TRIGGER),
    Detector("identity-numbers", "people", lambda s: find_identity_numbers(s.text, s.edits), ("ssn", "card", "iban", "nino"), line_anchors=IDENTITY_WORDS, line_trigger=IDENTITY_TRIGGER),
    Detector("mentions", "people", lambda s: find_mentions(s.text, s.edits, s.state), ("user",)),
    Detector("bucket-given-names", "people", lambda s: find_bucket_given_names(s.text, s.edits, s.state), ("user",), line_anchors=BUCKET_WORDS),
    # Logins in what people name after themselves: cloud projects, experiments, runs, Kaggle items.
    Detector("resource-owners", "people", lambda s: find_resource_owners(s.text, s.edits, s.state), ("user",), line_anchors=RESOURCE_WORDS),
    # Whose a thing is: logins in branches, namespaces, pods and containers; names under role
    # keys and after `triggered by` (one row, so one line-gate pass for both).
    Detector("owners", "people", lambda s: _owners(s), ("user", "name"), line_anchors=(*OWNER_LINE_WORDS, *ROLE_WORDS), line_trigger=f"{ACTED_BY_TRIGGER}|{TITLED_NAME_TRIGGER}|{TRACKER_ACTOR_TRIGGER}"),
    # Logins in pods' names and kubectl's NAMESPACE column (`alice-train-7f9c8d-x2k4q`).
    Detector("pod-owners", "people", lambda s: find_pod_owners(s.text, s.edits, s.state), ("user",), line_anchors=POD_LINE_WORDS, line_trigger=POD_ROW_TRIGGER),
    Detector("greeted-names", "names", lambda s: find_greeted_names(s.text, s.edits, s.state), ("name", "user"), line_trigger=GREETING_TRIGGER),
    # Chat speakers, the people a note says to ask or escalate to, TODO owners (`TODO(hfischer)`).
    Detector("addressed-names", "names", lambda s: find_addressed_names(s.text, s.edits, s.state), ("name", "user"), line_trigger=ADDRESSED_TRIGGER),
    Detector("annotated-names", "names", lambda s: find_annotated_names(s.text, s.edits, s.state), ("name",)),  # loguru's `└ '...'`
    # Names and logins a phrase says are a person's, no list needed (`@author ...`, `Ping from ...:`,
    # `joao51 opened this issue`, LDIF's `sn:`).
    Detector("phrased-people", "names", lambda s: find_phrased_people(s.text, s.edits, s.state), ("name", "user"), line_trigger=PHRASED_TRIGGER),
    Detector("keyed-names", "names", lambda s: find_keyed_names(s.text, s.edits, s.state), ("name",), line_trigger=KEYED_NAME_TRIGGER),
    Detector("postal-addresses", "names", lambda s: find_postal_addresses(s.text, s.edits), ("address",), line_trigger=POSTAL_TRIGGER),
    Detector("git-format-names", "names", lambda s: find_git_format_names(s.text, s.present, s.edits, s.state), ("name",), ("--format", "--pretty")),
    Detector("people-names", "names", lambda s: find_names(s.text, s.present, s.edits, s.state), ("name", "user", "phone"), NAME_WORDS),  # GECOS phones
    Detector("macs", "addresses", lambda s: find_macs(s.text, s.edits), ("mac",), MAC_WORDS, line_trigger=MAC_TRIGGER),
    # Given names beside a phone number or an e-mail word: `on-call: Dana (415-555-0134)`. In this
    # stage, not the names': its number shapes share the phone rows' gate (a names-stage gate
    # of digit patterns cost that stage twice its time).
    Detector("contact-names", "addresses", lambda s: find_contact_names(s.text, s.edits, s.state), ("name",), line_anchors=CONTACT_WORDS, line_trigger=CONTACT_TRIGGER),
    # A label, then a number: board serials and phone numbers share one line gate (one pass).
    Detector("labelled-numbers", "addresses", lambda s: _labelled_numbers(s), ("serial", "phone"), line_anchors=(*SERIAL_WORDS, *PHONE_WORDS)),
    # nvidia-smi's CSV query output: the serial is a cell under its header's `serial`, on its own line.
    Detector("csv-serials", "addresses", lambda s: find_csv_serials(s.text, s.present, s.edits), ("serial",), CSV_SERIAL_WORDS),
    # nvme-cli's `nvme list`: the drive's serial is the cell under its header's `SN`.
    Detector("nvme-serials", "addresses", lambda s: find_nvme_serials(s.text, s.present, s.edits), ("serial",), NVME_WORDS),
    # International-format phone numbers standing as values (alert configs), no label needed.
    Detector("value-phones", "addresses", lambda s: find_value_phones(s.text, s.edits), ("phone",), line_trigger=VALUE_PHONE_TRIGGER),
    # North American numbers, no label needed: their 3-3-4 grouping says what they are.
    Detector("nanp-phones", "addresses", lambda s: find_nanp_phones(s.text, s.edits), ("phone",), line_trigger=NANP_PHONE_TRIGGER),
    # Mobile numbers as the UK, Germany, France and India write them at home: no `+`, no label.
    Detector("national-phones", "addresses", lambda s: find_national_phones(s.text, s.edits), ("phone",), line_trigger=NATIONAL_PHONE_TRIGGER),
    Detector("ipv6", "addresses", lambda s: find_ipv6(s.text, s.edits), ("ipv6", "ip"), line_trigger=IPV6_TRIGGER),
    Detector("ipv4", "addresses", lambda s: find_ipv4(s.text, s.edits), ("ip",), line_trigger=IPV4_TRIGGER),
    # Learns the hosts of line-leading NCCL prefixes; the learned-names pass masks them.
    Detector("nccl-prefix-hosts", "hosts", lambda s: learn_nccl_hosts(s.text, s.state), ()),
    Detector("fqdns", "hosts", lambda s: find_fqdns(s.text, s.edits), ("host",), line_trigger=FQDN_TRIGGER),
    Detector("org-domain-hosts", "hosts", lambda s: find_org_hosts(s.text, s.edits, s.state), ("host",)),
    # People's own machines by their names (`Hannahs-MacBook-Pro`, `hfischer-desktop`), anywhere.
    Detector("personal-hosts", "hosts", lambda s: find_personal_hosts(s.text, s.edits, s.state), ("host",), line_anchors=PERSONAL_HOST_WORDS),
    Detector("host-positions", "hosts", lambda s: find_host_positions(s.text, s.present, s.edits, s.state), ("host",), HOST_WORDS),
    Detector("line-hosts", "hosts", lambda s: find_line_hosts(s.text, s.edits, s.state), ("host",), line_trigger=LINE_HOSTS_TRIGGER),
    Detector("hostlists", "hosts", lambda s: find_hostlists(s.text, s.edits, s.state), ("host",), line_trigger=HOSTLIST_TRIGGER),
    # Ungated: it finds its shapes' heads itself, in one literal scan, and an NCCL log names a
    # node on every line, where a gate of node words cost a callback a line for nothing.
    Detector("node-names", "hosts", lambda s: find_node_names(s.text, s.edits, s.state), ("host",)),
    Detector("etc-hosts", "hosts", lambda s: find_etc_hosts(s.text, s.edits, s.state), ("host",), line_trigger=ETC_HOSTS_TRIGGER),
    Detector("known-hosts", "hosts", lambda s: find_known_hosts(s.text, s.edits, s.state), ("host",), line_trigger=KNOWN_HOSTS_TRIGGER),
    Detector("prose-hosts", "hosts", lambda s: find_prose_hosts(s.text, s.edits, s.state), ("host",), line_trigger=PROSE_HOST_TRIGGER),
    Detector("sinfo-reasons", "hosts", lambda s: find_reason_rows(s.text, s.edits, s.state), ("host", "user")),
    Detector("url-hosts", "hosts", lambda s: find_url_hosts(s.text, s.edits, s.state), ("host", "user"), line_trigger=URL_HOSTS_TRIGGER),  # a git host's repository owner
    Detector("tables", "hosts", lambda s: find_tables(s.text, s.edits, s.state), ("host", "user", "name")),
    Detector("ruled-tables", "hosts", lambda s: find_ruled_tables(s.text, s.edits, s.state), ("host", "user", "name")),
    Detector("world-info", "hosts", lambda s: find_world_info(s.text, s.edits, s.state), ("host", "ip"), line_anchors=WORLD_INFO_WORDS),
    Detector("nccl-leftovers", "leftovers", lambda s: find_nccl_leftovers(s.text, s.edits, s.state), ("host",)),
)  # fmt: skip

BY_STAGE: tuple[tuple[str, tuple[Detector, ...]], ...] = tuple(
    (stage, tuple(d for d in DETECTORS if d.stage == stage)) for stage in STAGES
)
ANCHOR_WORDS: tuple[str, ...] = tuple(dict.fromkeys(w.lower() for d in DETECTORS for w in d.anchors))
DECLARED_KINDS: frozenset[str] = frozenset(k for d in DETECTORS for k in d.kinds)
