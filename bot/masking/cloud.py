"""Cloud account ids: AWS account numbers (in ARNs, ECR hosts, `sts get-caller-identity`),
IAM unique ids, Azure subscription and tenant ids, GCP project numbers.

The id is masked as `<ACCOUNT-n>`; what the id is attached to stays, because it is the
diagnosis: `arn:aws:iam::<ACCOUNT-1>:role/SageMakerExecutionRole` still says which role was
denied. An IAM user's or an assumed-role session's name is a person's: it becomes `<USER-n>`.
"""

from __future__ import annotations

import re

import regex

from bot.masking.edits import Edit
from bot.masking.keys import TECHNICAL_USERS
from bot.masking.state import LogState

_GUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

# IAM unique id prefixes after the `A`: AIDA (user), AROA (role), ...
_IAM_PREFIXES = ("IDA", "ROA", "GPA", "IPA", "NPA", "NVA", "PKA")

# (name, literal the text must hold, pattern with an `id` group; optional `user` group)
_ACCOUNT_SHAPES: list[tuple[str, str, re.Pattern[str] | regex.Pattern[str]]] = [
    # arn:aws:iam::123456789012:role/Name, arn:aws:sts::123456789012:assumed-role/Role/session,
    # arn:aws:iam::123456789012:user/hannah.fischer, arn:aws-cn:s3:::bucket (no account).
    ("arn", "arn:", re.compile(
        r"arn:aws(?:-cn|-us-gov|-iso[a-z-]{0,4})?:[a-z0-9-]{1,40}:[a-z0-9-]{0,30}:(?P<id>\d{12}):"
        r"(?:(?:user|assumed-role/[\w+=,.@-]{1,128}|federated-user)/(?P<user>[\w+=,.@-]{1,128}))?"
    )),
    # "Account": "123456789012" (sts get-caller-identity; `<Account>` in its XML answer as
    # botocore's debug log prints it), AWS_ACCOUNT_ID=, account_id:,
    # "OwnerId": ... (ec2 describe-*), --account-id 123456789012.
    ("key", "", re.compile(
        r"(?i)(?:account|owner)[\w-]{0,16}[\"']?[ \t]*(?:[:=][ \t]*|[ \t>])[\"']?(?P<id>\d{12})(?![\d\w])"
    )),
    # `aws sts get-caller-identity --output text` prints the account first, before the ARN:
    # `123456789012	arn:aws:sts::123456789012:assumed-role/Role/session	AROA...:session`.
    ("arn-row", "arn:", regex.compile(r"(?<![\w.-])(?P<id>\d{12})[ \t]+arn:aws")),  # `regex` finds `arn:aws` first
    # 123456789012.dkr.ecr.us-east-1.amazonaws.com/repo:tag
    ("ecr", ".dkr.ecr.", re.compile(r"(?<![\w.-])(?P<id>\d{12})\.dkr\.ecr\.")),
    # CodeArtifact names a domain by its owner's account: pip's index URL
    # `https://aws:<token>@acme-123456789012.d.codeartifact.us-east-1.amazonaws.com/pypi/ml/simple/`.
    ("codeartifact", ".codeartifact.", re.compile(r"(?<=-)(?P<id>\d{12})\.d\.codeartifact\.")),
    # SageMaker's default bucket: s3://sagemaker-us-east-1-123456789012/
    ("sagemaker", "sagemaker-", re.compile(r"sagemaker-[a-z]{2}(?:-gov)?-[a-z]{4,9}-\d-(?P<id>\d{12})(?![\d\w])")),
    # IAM unique ids: "UserId": "AIDA...", "AROA...:session" (role id and session name).
    ("iam-id", "", re.compile(
        r"(?P<id>A(?<![A-Za-z0-9]A)(?:" + "|".join(_IAM_PREFIXES) + r")[A-Z0-9]{12,20})(?![A-Za-z0-9])"
        r"(?::(?P<user>[\w+=,.@-]{2,64}))?"
    )),
    # A GCP project's number (the name `acme-ml-prod` is kept, like a Slurm account; the
    # number is Google's account id for it): Vertex AI and other resource names
    # `projects/123456789012/locations/us-central1/customJobs/...`, the console's `?project=`,
    # `gcloud projects describe`'s `projectNumber: '123456789012'`.
    ("gcp-resource", "projects/", re.compile(
        r"(?<![\w-])projects/(?P<id>\d{6,14})/(?=locations/|global/|zones/|regions/|secrets/|topics/|subscriptions/|serviceAccounts/|instances/|buckets/)"
    )),
    # ... the number a quoted resource name ends with: an ErrorInfo's `"consumer":
    # "projects/123456789012"` (`value: "projects/..."` in its text form).
    # (Or a resource name's end: `//cloudresourcemanager.googleapis.com/projects/123456789012`.)
    ("gcp-consumer", "projects/", re.compile(r"(?<![\w-])projects/(?P<id>\d{6,14}(?=[\"'])|\d{10,14}(?=[ \t\r\n,;)\]}]|\Z))")),
    # ... and Google's prose about it: `Vertex AI API has not been used in project
    # 123456789012 before or it is disabled`, `Permission denied on resource project 1234...`.
    ("gcp-prose", "roject ", re.compile(r"(?<![\w-])[Pp]roject (?P<id>\d{10,14})(?![\w-]|\.\d)")),
    ("gcp-console", "project=", re.compile(r"[?&]project=(?P<id>\d{6,14})(?![\w.-])")),
    ("gcp-number", "projectNumber", re.compile(r"projectNumber[\"']?[ \t]*[:=][ \t]*[\"']?(?P<id>\d{6,14})(?!\w)")),
    # Azure: /subscriptions/<guid>/resourceGroups/..., "subscriptionId": "<guid>", "tenantId".
    ("azure-path", "/subscriptions/", re.compile(r"/subscriptions/(?P<id>" + _GUID + r")(?![\w-])", re.I)),
    # Azure ML Studio's run links name the tenant in their query:
    # `https://ml.azure.com/runs/<run>?wsid=/subscriptions/<guid>/resourcegroups/...&tid=<guid>`.
    ("azure-tid", "tid=", re.compile(r"[?&]tid=(?P<id>" + _GUID + r")(?![\w-])", re.I)),
    # Entra ID's endpoints name the tenant in their path: `https://login.microsoftonline.com/<guid>/oauth2/v2.0/token`.
    ("azure-login", "microsoftonline.", re.compile(r"login\.microsoftonline\.(?:com|us)/(?P<id>" + _GUID + r")(?![\w-])", re.I)),
    # `az account show`: the subscription is the object's bare "id" beside its "tenantId".
    ("az-account", '"tenantId"', re.compile(r'"id": "(?P<id>' + _GUID + r')"')),
    # ... and the az CLI's flags: `az login --service-principal ... --tenant <guid>`,
    # `az account set --subscription <guid>`, `"tenant": "<guid>"` in a credential file.
    # The identity's own ids beside them (`AZURE_CLIENT_ID=`, Terraform's `ARM_CLIENT_ID` and
    # `client_id = "<guid>"`, `az ad sp create-for-rbac`'s `"appId"`, a managed identity's
    # `"principalId"`): a GUID under a client, app, principal or object id is Entra ID's name
    # for an application or a person in the tenant.
    ("azure-key", "", re.compile(
        r"(?i)(?:(?:subscription|tenant)(?:[_ -]?id)?[\"']?[ \t]*[:=][ \t]*|(?:client|app(?:lication)?|principal|object)[_ -]?id[\"']?[ \t]*[:=][ \t]*"
        r"|--(?:subscription|tenant)[ \t]+)[\"']?(?P<id>" + _GUID + r")(?![\w-])"
    )),
    # Entra ID's refusals name both: `AADSTS700016: Application with identifier '<guid>' was
    # not found in the directory '<guid>'`.
    ("aadsts", "AADSTS", re.compile(r"(?:identifier|directory|tenant) '(?P<id>" + _GUID + r")'")),
    # Azure Resource Manager's refusal names the caller's object id (and the scope's
    # subscription): `(AuthorizationFailed) The client 'x@acme.io' with object id '<guid>' does
    # not have authorization to perform action ...`.
    ("arm-object-id", "object id '", re.compile(r"object id '(?P<id>" + _GUID + r")'")),
    # `az account list -o table`: `Name  CloudName  SubscriptionId  TenantId  State  IsDefault`,
    # each row's ids after its cloud's name (AzureCloud, AzureUSGovernment, AzureChinaCloud).
    ("az-table", "Azure", re.compile(r"(?<![\w-])Azure\w{0,16}[ \t]+(?P<id>" + _GUID + r")(?![\w-])")),
    ("az-table-tenant", "Azure", re.compile(r"(?<![\w-])Azure\w{0,16}[ \t]+" + _GUID + r"[ \t]+(?P<id>" + _GUID + r")(?![\w-])")),
    # A GCP organisation's or folder's number (`parent: organizations/123456789012`, a policy's
    # resource name): the account the projects sit in.
    # (One shape a word, led by it: `re` then skips to the word; a shared `s/` let every path in.)
    *((f"gcp-{parent}", f"{parent}/", re.compile(parent + r"/(?<![\w-]" + parent + r"/)(?P<id>\d{6,20})(?![\w-])"))
      for parent in ("organizations", "folders")),
    # Twilio's Account SID (`AC` and 32 hex) under its key alone, no auth token near it
    # (`TWILIO_ACCOUNT_SID=AC...`, `account_sid: AC...`, the API's `"sid": "AC..."`), and in
    # the API's paths as TwilioRestException prints them (`/2010-04-01/Accounts/AC.../Messages.json`).
    ("twilio-sid", "", re.compile(r"(?i:sid)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<id>AC[0-9a-f]{32})(?![0-9A-Za-z])")),
    ("twilio-path", "/Accounts/AC", re.compile(r"/Accounts/(?P<id>AC[0-9a-f]{32})(?![0-9A-Za-z])")),
    # An S3 owner's canonical user id (`<Owner><ID>...</ID>` in s3cmd's and botocore's
    # `b'<ListAllMyBucketsResult ...'`, a bucket ACL's `<Grantee><ID>`): the AWS account's.
    ("s3-canonical", "<ID>", re.compile(r"<ID>(?P<id>[0-9a-f]{64})</ID>")),
]  # fmt: skip
# Case variants of the words the key shapes need (`in` runs in C; lowering the text would not).
_KEY_SHAPES = {
    "key": ("ccount", "CCOUNT", "wner", "WNER"),
    "twilio-sid": ("sid", "SID", "Sid"),
    "azure-key": ("ubscription", "UBSCRIPTION", "enant", "ENANT", "lient", "LIENT", "ppId", "pp_id", "PP_ID", "pplication",
                  "PPLICATION", "rincipal", "RINCIPAL", "bject", "BJECT"),
}
# Every match lies on one line holding one of these, case aside (the gate, gate.py): each
# shape's literal, the words of the key shapes, the IAM prefixes, and az-account's `"id": "`.
# (Azure's id keys whole, `client_id`, `appId`: `client` alone is on every line of a c10d
# retry flood, `The client socket has failed to connect`.)
_AZURE_ID_KEYS = tuple(f"{who}{sep}id" for who in ("client", "app", "application", "principal", "object") for sep in ("", "_", " ", "-"))
# Twilio's SID key as it ends before its value (`sid` alone is inside `residual`, `inside`).
_TWILIO_SID_KEYS = ("sid=", "sid:", 'sid"', "sid'", "sid =", "sid :")
ACCOUNT_LINE_WORDS: tuple[str, ...] = (
    *(literal for _, literal, _ in _ACCOUNT_SHAPES if literal),
    *_KEY_SHAPES["key"],
    "subscription",
    "tenant",
    *_AZURE_ID_KEYS,
    *(f"A{p}" for p in _IAM_PREFIXES),
    '"id": "',
    *_TWILIO_SID_KEYS,
)
# The lines that teach an account id to the learning pass (masker.py), so that a bare
# recurrence of it is masked in every piece: each shape's literal.
# Azure's ids are found by their keys and flags (no literal of their shape's own): those words
# teach too, so `az account set --subscription <guid>` masks the id printed bare lines before.
ACCOUNT_TEACHING_WORDS: tuple[str, ...] = tuple(dict.fromkeys((
    *(literal.lower() for _, literal, _ in _ACCOUNT_SHAPES if literal),
    "subscription", "tenant", "client_id", "clientid", "appid", "app_id", "principalid", "principal_id", "objectid",
    "object_id", "azurecloud", *_TWILIO_SID_KEYS,
)))  # fmt: skip
# The shapes whose value is a GUID, and a GUID's middle (`re` finds its leading `-` fast).
_GUID_SHAPES = frozenset(name for name, _, rx in _ACCOUNT_SHAPES if _GUID in rx.pattern)
_GUID_MIDDLE = re.compile(r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-")
# Session names that identify a process or a machine, not a person.
_TECHNICAL_SESSION = re.compile(r"(?:botocore-session-\d+|i-[0-9a-f]{8,17}|\d+|aws-go-sdk-\d+|[0-9a-f-]{32,36})\Z")


def find_accounts(text: str, edits: list[Edit], state: LogState | None = None) -> None:
    """Mask cloud account ids (and IAM user or session names in ARNs).

    An IAM user's name (`:user/hfischer`) is an account name: learned, so the same person in
    a namespace, a path or a pod name is masked too. Session names are not learned.
    """
    # (Asked once, first: a GUID's shapes are half the table, and each `in` below reads the text.)
    guids = _GUID_MIDDLE.search(text) is not None
    for name, literal, rx in _ACCOUNT_SHAPES:
        if name in _GUID_SHAPES and not guids:
            continue
        if literal and literal not in text:
            continue
        if name in _KEY_SHAPES and not any(w in text for w in _KEY_SHAPES[name]):
            continue
        if name == "iam-id" and "A" not in text:
            continue
        for m in rx.finditer(text):
            edits.append((m.start("id"), m.end("id"), "account", m.group("id")))
            user = m.groupdict().get("user")
            if user and user.lower() not in TECHNICAL_USERS and not _TECHNICAL_SESSION.match(user) and "@" not in user:
                edits.append((m.start("user"), m.end("user"), "user", user))
                if state is not None and name == "arn" and text.startswith("user/", m.start("user") - 5):
                    state.learn_user(user)


# `aws sts get-caller-identity --query Account --output text` prints the bare number on the
# next line (ECR login scripts run it before `docker login`): only the command says what it is.
# The same for a GCP project's number asked of the metadata server (`curl -H "Metadata-Flavor:
# Google" http://metadata.google.internal/computeMetadata/v1/project/numeric-project-id`).
_QUERIED_ACCOUNT = re.compile(
    r"(?:--query[ =][\"']?Account[\"']?|/project/numeric-project-id)[^\n]{0,200}\r?\n[ \t]*(?P<id>\d{12})[ \t]*\r?$", re.M
)
# `gcloud projects describe` names the organisation (or folder) a project sits in by its
# number, the type on the line below: `parent:` / `  id: '123456789012'` / `  type: organization`.
_PARENT_ACCOUNT = re.compile(r"^[ \t]*id: '?(?P<id>\d{6,20})'?[ \t]*\r?\n[ \t]*type: (?:organization|folder)\b", re.M)
_PARENT_WORDS = ("type: organization", "type: folder")
ACCOUNT_QUERY_WORDS = ("--query account", "--query=account", "--query 'account", '--query "account', "numeric-project-id", *_PARENT_WORDS)


def find_queried_accounts(text: str, present: set[str], edits: list[Edit]) -> None:
    """Mask the account number `--query Account --output text` printed under the command, and
    the organisation's number above its `type:`."""
    if any(w in present for w in ACCOUNT_QUERY_WORDS[:5]):
        for m in _QUERIED_ACCOUNT.finditer(text):
            edits.append((m.start("id"), m.end("id"), "account", m.group("id")))
    if any(w in present for w in _PARENT_WORDS):
        for m in _PARENT_ACCOUNT.finditer(text):
            edits.append((m.start("id"), m.end("id"), "account", m.group("id")))
