"""Credentials recognisable by their own shape: vendor prefixes, JWTs, encoded key blocks.

Every branch starts with a literal character (`_`, `-`, `J`, `.`, `Q`, `=`, or an uppercase
prefix letter) and checks the rest of the prefix with a fixed-width look-behind, so `re` can
skip through text with a C-level first-character scan instead of trying every position.
Quantifiers are bounded, so no input makes a branch backtrack more than a few hundred steps.
"""

from __future__ import annotations

import base64
import binascii
import math
import re

from bot.masking.edits import Edit
from bot.masking.lines import line_end, line_start

# Right edge of a token. A placeholder (`<IPV6-1>`, `<SECRET:...>`) counts as a word
# character: it stands where a word was, so masking a neighbour must not make a token appear
# on the next pass that the first pass saw running into that word.
# A literal `<` before one (`hf_x<AKIA...` -> `hf_x<<SECRET:...>`) still reads the same way.
_B = r"(?![A-Za-z0-9]|<{1,8}[A-Z])"
_BW = r"(?![\w-]|<{1,8}[A-Z])"

# (group name, kind, characters of the token before the group, leading literal, rest).
# The leading literal stays outside the named group: `re` only uses its fast first-character
# scan when every branch of the alternation starts with a plain literal.
_BRANCHES: list[tuple[str, str, int, str, str]] = [
    # Hugging Face: hf_ + 34 letters; org tokens api_org_ + 34.
    ("hf", "hf-token", 3, "_", r"(?<=hf_)(?<![\w-]hf_)[A-Za-z0-9]{30,40}" + _B),
    ("hforg", "hf-token", 8, "_", r"(?<=api_org_)(?<![\w-]api_org_)[A-Za-z0-9]{30,40}" + _B),
    # GitHub classic (ghp_/gho_/ghu_/ghs_/ghr_ + 36) and fine-grained (github_pat_11 + 22 _ 59).
    ("gh", "github-token", 4, "_", r"(?<=gh[pousr]_)(?<![\w-]gh[pousr]_)[A-Za-z0-9]{30,255}" + _B),
    ("ghpat", "github-token", 11, "_", r"(?<=github_pat_)(?<![\w-]github_pat_)[A-Za-z0-9_]{40,255}" + _B),
    ("npm", "npm-token", 4, "_", r"(?<=npm_)(?<![\w-]npm_)[A-Za-z0-9]{36}" + _B),
    ("r8", "replicate-token", 3, "_", r"(?<=r8_)(?<![\w-]r8_)[A-Za-z0-9]{36,40}" + _B),
    ("gsk", "groq-key", 4, "_", r"(?<=gsk_)(?<![\w-]gsk_)[A-Za-z0-9]{48,56}" + _B),
    # LangSmith personal and service keys: lsv2_pt_/lsv2_sk_ + 32 hex + _ + 10 hex.
    ("lsv2", "langsmith-key", 8, "_", r"(?<=lsv2_(?:pt|sk)_)(?<![\w-]lsv2_(?:pt|sk)_)[0-9a-f]{32}_[0-9a-f]{10}" + _B),
    ("wandbv1", "wandb-key", 9, "_", r"(?<=wandb_v1_)(?<![\w-]wandb_v1_)[A-Za-z0-9_]{30,200}" + _B),
    # Prefixed keys of developer services, in their documented shapes: Notion (ntn_ + 46),
    # Supabase (sbp_ + 40 hex), Shopify (shpat_/shpss_/shpca_/shppa_ + 32 hex), DigitalOcean
    # (dop_v1_/doo_v1_/dor_v1_ + 64 hex), Linear (lin_api_ + 40), Grafana service accounts
    # (glsa_ + 32 _ 8 hex) and Cloud (glc_ + base64 JSON), Pinecone (pcsk_ + 6 _ + key),
    # Sentry org tokens (sntrys_ + base64 JSON _ secret). (Mailchimp's -us12 would need a scan
    # of its own: under a key name it is masked as any value there. Docker Hub's, Fly.io's and
    # Doppler's prefixes are anchor words: find_contextual_keys.)
    ("notion", "notion-token", 4, "_", r"(?<=ntn_)(?<![\w-]ntn_)[A-Za-z0-9]{40,50}" + _B),
    ("supabase", "supabase-token", 4, "_", r"(?<=sbp_)(?<![\w-]sbp_)[0-9a-f]{40}" + _B),
    ("shopify", "shopify-token", 6, "_", r"(?<=shp(?:at|ss|ca|pa)_)(?<![\w-]shp(?:at|ss|ca|pa)_)[0-9a-fA-F]{32}" + _B),
    ("dov1", "digitalocean-token", 7, "_", r"(?<=do[opr]_v1_)(?<![\w-]do[opr]_v1_)[0-9a-f]{64}" + _B),
    ("linear", "linear-key", 8, "_", r"(?<=lin_api_)(?<![\w-]lin_api_)[A-Za-z0-9]{40}" + _B),
    ("glsa", "grafana-token", 5, "_", r"(?<=glsa_)(?<![\w-]glsa_)[A-Za-z0-9]{32}_[0-9a-f]{8}" + _B),
    ("glc", "grafana-token", 4, "_", r"(?<=glc_)(?<![\w-]glc_)eyJ[A-Za-z0-9+/]{30,600}={0,2}" + _B),
    ("pcsk", "pinecone-key", 12, "_", r"(?<=pcsk_[A-Za-z0-9]{6}_)(?<![\w-]pcsk_[A-Za-z0-9]{6}_)[A-Za-z0-9]{40,100}" + _B),
    ("sntrys", "sentry-token", 7, "_", r"(?<=sntrys_)(?<![\w-]sntrys_)eyJ[A-Za-z0-9+/]{20,600}={0,2}_[A-Za-z0-9+/]{20,100}={0,2}" + _B),
    # Notion's older integration secrets (secret_ + 43) and Fireworks AI keys (fw_ + 24).
    ("notionold", "notion-token", 7, "_", r"(?<=secret_)(?<![\w-]secret_)[A-Za-z0-9]{43}" + _B),
    ("fw", "fireworks-key", 3, "_", r"(?<=fw_)(?<![\w-]fw_)[A-Za-z0-9]{24}" + _B),
    # ngrok authtokens (`ngrok config add-authtoken 2...`, pyngrok's `set_auth_token`): `2` and
    # 26 alphanumerics, `_`, 20-22 more.
    ("ngrok", "ngrok-token", 28, "_", r"(?<=2[A-Za-z0-9]{26}_)(?<![\w-]2[A-Za-z0-9]{26}_)[A-Za-z0-9]{20,22}" + _B),
    # Prefect Cloud API keys, a user's (pnu_) or a service account's (pnb_): 36 alphanumerics
    # (`prefect cloud login -k pnu_...`, PREFECT_API_KEY).
    ("prefect", "prefect-key", 4, "_", r"(?<=pn[ub]_)(?<![\w-]pn[ub]_)[A-Za-z0-9]{36}" + _B),
    # Modal token pairs (`modal token set --token-id ak-... --token-secret as-...`, and
    # ~/.modal.toml): ak-/as- + 22 alphanumerics.
    ("modal", "modal-token", 3, "-", r"(?<=a[ks]-)(?<![\w-]a[ks]-)[A-Za-z0-9]{22}" + _B),
    # Stripe secret and restricted keys, live and test mode (`pk_` publishable keys are public),
    # and a webhook endpoint's signing secret (`stripe listen` prints `whsec_` + 32 or more).
    ("stripe", "stripe-key", 8, "_", r"(?<=[sr]k_(?:live|test)_)(?<![\w-][sr]k_(?:live|test)_)[A-Za-z0-9]{20,250}" + _B),
    ("whsec", "stripe-key", 6, "_", r"(?<=whsec_)(?<![\w-]whsec_)[A-Za-z0-9+/]{32,88}={0,2}" + _B),
    # Buildkite API access tokens (`bk configure --token`, BUILDKITE_API_TOKEN): bkua_ + 40 hex.
    ("bkua", "buildkite-token", 5, "_", r"(?<=bkua_)(?<![\w-]bkua_)[0-9a-f]{40}" + _B),
    # Anthropic before OpenAI: both start with sk-.
    ("ant", "anthropic-key", 3, "-", r"(?<=sk-)(?<![\w-]sk-)ant-[a-z]{2,10}\d{2}-[A-Za-z0-9_-]{20,250}" + _BW),
    ("oai", "openai-key", 3, "-", r"(?<=sk-)(?<![\w-]sk-)[A-Za-z0-9_-]{20,250}" + _BW),
    ("nvapi", "ngc-key", 6, "-", r"(?<=nvapi-)(?<![\w-]nvapi-)[A-Za-z0-9_-]{30,120}" + _BW),
    # Postman (PMAK- 24 hex - 34 hex), New Relic user keys (NRAK- + 27), Heroku (HRKU-),
    # Perplexity (pplx-), xAI (xai-), Tavily (tvly-, tvly-dev-), Pulumi (pul- + 40 hex),
    # age secret keys (AGE-SECRET-KEY-1 + 58, Bech32 upper case).
    ("pmak", "postman-key", 5, "-", r"(?<=PMAK-)(?<![\w-]PMAK-)[0-9a-f]{24}-[0-9a-f]{34}" + _B),
    ("nrak", "newrelic-key", 5, "-", r"(?<=NRAK-)(?<![\w-]NRAK-)[A-Z0-9]{27}" + _B),
    ("hrku", "heroku-key", 5, "-", r"(?<=HRKU-)(?<![\w-]HRKU-)[A-Za-z0-9_-]{30,80}" + _BW),
    ("pplx", "perplexity-key", 5, "-", r"(?<=pplx-)(?<![\w-]pplx-)[A-Za-z0-9]{40,60}" + _B),
    ("xai", "xai-key", 4, "-", r"(?<=xai-)(?<![\w-]xai-)[A-Za-z0-9]{60,100}" + _B),
    ("tvly", "tavily-key", 5, "-", r"(?<=tvly-)(?<![\w-]tvly-)(?:dev-)?[A-Za-z0-9]{30,40}" + _B),
    ("pul", "pulumi-token", 4, "-", r"(?<=pul-)(?<![\w-]pul-)[0-9a-f]{40}" + _B),
    ("agekey", "age-key", 15, "-", r"(?<=AGE-SECRET-KEY-)(?<![\w-]AGE-SECRET-KEY-)1[0-9A-Z]{58}" + _B),
    # (`xoxc-` is a browser session's client token, sent with its `d` cookie.)
    ("xox", "slack-token", 5, "-", r"(?<=xox[abposrec]-)(?<![\w-]xox[abposrec]-)[A-Za-z0-9-]{10,250}" + _B),
    # A Slack browser session's `d` cookie (xoxd- + base64, sent with an xoxc- token by
    # slackdump and slack-export tools): URL-encoded as the cookie carries it (`%2B`, `%2F`,
    # `%3D`) or decoded (`+/=`).
    ("xoxd", "slack-token", 5, "-", r"(?<=xoxd-)(?<![\w-]xoxd-)(?:[A-Za-z0-9+/_-]|%[0-9A-Fa-f]{2}){20,600}={0,2}(?![A-Za-z0-9+/=%]|<{1,8}[A-Z])"),
    ("xapp", "slack-token", 5, "-", r"(?<=xapp-)(?<![\w-]xapp-)\d-[A-Za-z0-9-]{10,250}" + _B),
    # GitLab personal, pipeline-trigger and CI job tokens (glpat-, glptt-, glcbt-), runner
    # and deploy tokens (glrt-, gldt-).
    ("glpat", "gitlab-token", 6, "-", r"(?<=gl(?:pat|ptt|cbt)-)(?<![\w-]gl(?:pat|ptt|cbt)-)[A-Za-z0-9_-]{20,80}" + _BW),
    ("glrt", "gitlab-token", 5, "-", r"(?<=gl[rd]t-)(?<![\w-]gl[rd]t-)[A-Za-z0-9_-]{20,80}" + _BW),
    ("gocspx", "google-client-secret", 7, "-", r"(?<=GOCSPX-)(?<![\w-]GOCSPX-)[A-Za-z0-9_-]{20,40}" + _BW),
    ("wlocal", "wandb-key", 6, "-", r"(?<=local-)(?<![\w-]local-)[0-9a-f]{40}" + _B),
    ("pypi", "pypi-token", 5, "-", r"(?<=pypi-)(?<![\w-]pypi-)AgE[A-Za-z0-9_-]{50,400}" + _BW),
    # JWT: base64url JSON header and payload both start with eyJ ('{"').
    # A docker config.json base64-encoded whole, as `kubectl get secret -o jsonpath=
    # '{.data.\.dockerconfigjson}'` prints it: base64 of `{"auths":` always begins eyJhdXRocyI6.
    ("dockercfg", "docker-auth", 3, "J", r"(?<=eyJ)(?<![\w-]eyJ)hdXRocyI6[A-Za-z0-9+/]{20,20000}={0,2}(?![A-Za-z0-9+/=])"),
    # Amazon ECR's registry password (`aws ecr get-login-password` prints it alone on a line):
    # base64 of `{"payload":"...`, which always begins eyJwYXlsb2FkIjoi.
    ("ecr", "docker-auth", 3, "J", r"(?<=eyJ)(?<![\w-]eyJ)wYXlsb2FkIjoi[A-Za-z0-9+/]{100,20000}={0,2}(?![A-Za-z0-9+/=])"),
    ("jwt", "jwt", 3, "J", r"(?<=eyJ)(?<![\w-]eyJ)[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,16384}\.[A-Za-z0-9_-]{0,4096}" + _BW),
    # Google OAuth refresh tokens (`gcloud`'s credentials db, google-auth's authorized_user
    # JSON, oauth2l): `1//0` + about a hundred base64url characters.
    ("grefresh", "google-oauth-token", 3, "/", r"(?<=1//)(?<![\w-]1//)0[A-Za-z0-9_-]{40,512}" + _BW),
    # Google OAuth access tokens; a service account's (metadata server, `gcloud auth
    # print-access-token` as one) carry `c.` first: `ya29.c.c0AY...`.
    ("ya29", "google-oauth-token", 5, ".", r"(?<=ya29\.)(?<![\w-]ya29\.)(?:c\.)?[0-9A-Za-z_-]{20,2048}" + _BW),
    # Terraform Cloud API tokens (14 characters, `.atlasv1.`, 60-70 more).
    # SendGrid: SG. + 22 . + 43.
    ("sendgrid", "sendgrid-key", 3, ".", r"(?<=SG\.)(?<![\w-]SG\.)[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _BW),
    ("tfc", "terraform-token", 15, ".", r"(?<=[A-Za-z0-9]{14}\.)(?<![\w-][A-Za-z0-9]{14}\.)(?<![A-Za-z0-9]{15}\.)atlasv1\.[A-Za-z0-9_-]{60,70}" + _BW),
    # HashiCorp Vault service, batch and recovery tokens (`vault login` prints them in its
    # Key/Value table: `token                hvs.CAES...`).
    ("vault", "vault-token", 4, ".", r"(?<=hv[sbr]\.)(?<![\w-]hv[sbr]\.)[A-Za-z0-9_-]{24,1024}" + _BW),
    # Azure AD client secrets carry `<digit>Q~` at offset 3.
    ("azad", "azure-client-secret", 5, "Q", r"(?<=[A-Za-z0-9_~.]{3}\dQ)~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"),
    # Azure storage account keys: 86 base64 characters and `==` (88 in all).
    ("azkey", "azure-storage-key", 87, "=", r"(?<=[A-Za-z0-9+/]{86}=)=(?![A-Za-z0-9+/=])"),
    # Slack incoming webhooks: only the path after /services/ is secret.
    ("slackhook", "slack-webhook", 0, ".", r"(?<=hooks\.)slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{10,200}"),
    # The same webhook path without its host: urllib3's debug line puts the host and the
    # request apart (`https://hooks.slack.com:443 "POST /services/T.../B.../... HTTP/1.1"`).
    ("slackpath", "slack-webhook", 0, "/", r"(?<=/)services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{20,40}" + _B),
    # Microsoft Teams incoming webhooks: https://<tenant>.webhook.office.com/webhookb2/
    # <groupId>@<tenantId>/IncomingWebhook/<connectorId>/<webhookId>[/V2<signature>] (also the
    # older outlook.office.com/webhook/...). Everything after `webhookb2/` is the credential.
    ("teamshook", "teams-webhook", 0, "/", r"(?<=/)webhook(?:b2)?/[0-9a-fA-F-]{36}@[0-9a-fA-F-]{36}/IncomingWebhook/[0-9a-fA-F]{32}/[0-9a-fA-F-]{36}(?:/[A-Za-z0-9_-]{10,200})?" + _BW),
    # AWS access key ids (AKIA long-term, ASIA temporary, ABIA/ACCA service) + 16.
    ("aws", "aws-access-key", 1, "A", r"(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}" + _B),
    ("gapi", "google-api-key", 1, "A", r"Iza[0-9A-Za-z_-]{35}" + _BW),
    # Twilio's auth token (32 hex) passed positionally after the Account SID (AC + 32 hex),
    # as Twilio's older quickstart wrote it and tracebacks quote it: `client = Client("AC...",
    # "..."))`. The token is masked as a secret, the SID as the account it names (_take), as
    # a cloud account's id is.
    ("twilio", "twilio-token", 1, "A", r"C[0-9a-f]{32}[\"'],[ \t]?[\"'][0-9a-f]{32}(?=[\"'])"),
    # JFrog Artifactory API keys (`X-JFrog-Art-Api: AKCp...`, a pip index's password): AKCp + 69.
    ("akcp", "artifactory-key", 1, "A", r"KCp[A-Za-z0-9]{69}" + _B),
    # Atlassian API tokens (ATATT3 + about 186 characters, a checksum at the end).
    ("atatt", "atlassian-token", 1, "A", r"TATT3[A-Za-z0-9_=-]{100,300}" + _BW),
    # STS session tokens are base64 of a protobuf that begins the same way every time.
    ("awssess", "aws-session-token", 1, "F", r"woGZXIvYXdz[A-Za-z0-9+/=%]{40,4000}"),
    ("awssess2", "aws-session-token", 1, "I", r"QoJb3JpZ2lu[A-Za-z0-9+/=%]{40,4000}"),
    # A PEM block that was base64-encoded once more (Kubernetes Secret data, env vars).
    ("pemb64", "private-key", 1, "L", r"S0tLS1CRUdJTi[A-Za-z0-9+/=]{20,20000}"),
]

# Tokens whose prefix is an anchor word (found from the anchor scan's hits, no scan of their
# own): Docker Hub personal access tokens (dckr_pat_ + 27 base64url), Fly.io tokens (fo1_ + 43
# base64url), Doppler personal, service, service-account and CLI tokens (dp.pt. / dp.st.<config>.
# / dp.sa. / dp.ct. + 40-44; `dp.st.prd` alone is a config name).
_PREFIX_TOKENS: dict[str, tuple[str, re.Pattern[str]]] = {
    "dckr_pat_": ("docker-token", re.compile(r"dckr_pat_[A-Za-z0-9_-]{27,40}(?![\w-])")),
    "fo1_": ("fly-token", re.compile(r"fo1_[A-Za-z0-9_-]{43}(?![\w-])")),
    **{f"dp.{t}.": ("doppler-token", re.compile(r"dp\.(?:pt|st|sa|ct)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9])"))
       for t in ("pt", "st", "sa", "ct")},
}
PREFIX_TOKEN_KINDS = ("docker-token", "fly-token", "doppler-token")
PREFIX_TOKEN_HEADS = tuple(_PREFIX_TOKENS)

_KIND = {name: kind for name, kind, _, _, _ in _BRANCHES}
# The kinds a vendor shape names (kind_of_value names the prefixed ones too, under a key).
VENDOR_KINDS = (*dict.fromkeys(kind for _, kind, _, _, _ in _BRANCHES), *PREFIX_TOKEN_KINDS)
_OFFSET = {name: offset for name, _, offset, _, _ in _BRANCHES}

# A cheap look-ahead per leading literal rejects the common case (`tokens_per_sec`, `->`,
# `2.345`) before any branch is tried.
_LEAD_FILTER = {"/": "(?=services/T|webhook|0[A-Za-z0-9_-]{40})", "_": r"(?=[A-Za-z0-9]{20})", "-": r"(?=[A-Za-z0-9_-]{10}|(?<=xoxd-))", ".": r"(?=[\w-]{5}|c\.[\w-]{5})", "Q": "(?=~)"}


_NOT_AFTER_WORD = re.compile(r"\(\?<!\[\\w-\]([^()]*(?:\([^()]*\)[^()]*)*)\)")
# A percent-escape before a token (`%22sk-proj-...` in a URL-encoded JSON `state=`, `%20hf_...`
# after an encoded `Bearer`) ends in a hex digit, which the look-behind reads as the token
# running on from a word; after `%XX` the token stands alone.
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}\Z|\\[nrt]\Z")


def _after_escape(rest: str) -> str:
    """A branch's `not after a word` look-behind, also passed after a percent-escape and after
    a JSON string's escaped line break or tab (`"stdout": "$ gcloud auth print-access-token\\nya29...`,
    a command's output captured into one JSON record: its `n` is no word the token runs on from).

    The word is of letters, digits and dashes: an underscore may stand before the prefix, as
    file and run names glue their parts with it (`RUN_NAME=train_hf_...`, `cache_sk-proj-...`),
    and a token run into such a name is still the token."""
    return _NOT_AFTER_WORD.sub(
        lambda m: f"(?:(?<![A-Za-z0-9-]{m.group(1)})|(?<=%[0-9A-Fa-f]{{2}}{m.group(1)})|(?<=\\\\[nrt]{m.group(1)}))", rest, count=1
    )


def _compile_by_lead() -> list[re.Pattern[str]]:
    # One pattern per leading literal: a lone literal prefix lets `re` scan with memchr,
    # which is several times faster than one alternation over ten first characters.
    leads: dict[str, list[str]] = {}
    for name, _, _, lead, rest in _BRANCHES:
        leads.setdefault(lead, []).append(f"(?P<{name}>{_after_escape(rest)})")
    return [
        re.compile(re.escape(lead) + _LEAD_FILTER.get(lead, "") + "(?:" + "|".join(rests) + ")")
        for lead, rests in leads.items()
    ]


VENDOR_PATTERNS = _compile_by_lead()

# What the line of every token holds, for the line gate (bot/masking/gate.py): a branch's
# fixed look-behind, which holds the token's prefix, or where it has none or a loose one
# (`tfc`'s fourteen characters before `.atlasv1.`), the head written here. ASCII characters
# its pattern requires only (`\d` takes non-ASCII digits, which the gate reads as `?`).
_HEADS = {
    "tfc": r"[A-Za-z0-9]{14}\.atlasv1\.",
    "azad": r"[0-9?]Q~",
    "azkey": r"[A-Za-z0-9+/]{86}==",
    "slackhook": r"hooks\.slack\.com/",
    "slackpath": r"/services/T",
    "teamshook": r"/webhook",
    "aws": r"A(?:KIA|SIA|BIA|CCA)",
    "twilio": r"AC[0-9a-f]{32}[\"'],",
    "gapi": r"AIza",
    "atatt": r"ATATT3",
    "akcp": r"AKCp",
    "awssess": r"FwoGZXIvYXdz",
    "awssess2": r"IQoJb3JpZ2lu",
    "pemb64": r"LS0tLS1CRUdJTi",
}


def _head(name: str, rest: str) -> str:
    if name in _HEADS:
        return _HEADS[name]
    if not (rest.startswith("(?<=") and ")(?<!" in rest):
        raise ValueError(f"vendor branch {name}: no fixed look-behind, so its line-gate head must be written in _HEADS")
    return rest[4 : rest.index(")(?<!")]


VENDOR_TRIGGER = "|".join(dict.fromkeys(_head(name, rest) for name, _, _, _, rest in _BRANCHES))
# Tokens whose left edge is not pinned by a look-behind inside the pattern.
# Prefixes of the vendor shapes kind_of_value reads from the scan (the rest are _FULL_SHAPES).
_PREFIXES = (
    "ntn_", "sbp_", "shp", "do", "pnu_", "pnb_", "lin_api_", "glsa_", "glc_", "pcsk_", "sntrys_", "secret_", "fw_", "PMAK-",
    "NRAK-", "HRKU-", "pplx-", "xai-", "tvly-", "pul-", "AGE-SECRET-KEY-", "SG.", "ATATT3", "xapp-", "lsv2_",
    "wandb_", "hvs.", "hvb.", "hvr.",
)  # fmt: skip
_KEY_NAMED = frozenset(("azure-client-secret", "azure-storage-key"))
_EDGE_CHECKED = frozenset(("aws", "gapi", "awssess", "awssess2", "pemb64", "azad", "azkey", "atatt", "twilio", "akcp"))

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_KEBAB_WORDS = re.compile(r"[a-z]+(?:[-_][a-z0-9]+)*\Z")
_PARTS = re.compile(r"[-_]")


def char_classes(value: str) -> int:
    """How many of lowercase, uppercase, digit, other a value mixes."""
    lower = upper = digit = other = 0
    for ch in value:
        if "a" <= ch <= "z":
            lower = 1
        elif "A" <= ch <= "Z":
            upper = 1
        elif "0" <= ch <= "9":
            digit = 1
        else:
            other = 1
    return lower + upper + digit + other


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _pem_in_base64(value: str) -> bool:
    head = value[:64]
    head = head[: len(head) // 4 * 4]
    try:
        decoded = base64.b64decode(head, validate=True)
    except (binascii.Error, ValueError):
        return False
    return b"PRIVATE" in decoded


def _float_tensor(token: str) -> bool:
    """Whether 64 decoded bytes read as float32 or bfloat16 values of a tensor (each zero or
    within 2**-40..2**40, sign free). Of 64 random bytes (a storage key) about 1e-8 do."""
    try:
        raw = base64.b64decode(token, validate=True)
    except ValueError:
        return False
    if len(raw) != 64:
        return False

    def plausible(exponent: int) -> bool:
        return exponent == 0 or 127 - 40 <= exponent <= 127 + 40

    # The biased exponent of a little-endian float32 is bits 7..14 of its high half; bfloat16
    # is that high half alone, two bytes per value.
    halves = [raw[i] | raw[i + 1] << 8 for i in range(0, 64, 2)]
    exponents = [(h >> 7) & 0xFF for h in halves]
    return all(plausible(e) for e in exponents[1::2]) or all(plausible(e) for e in exponents)


def _plausible(name: str, token: str, body: str) -> bool:
    """Per-vendor checks that keep identifiers and words from passing as keys."""
    if name in ("hf", "hforg"):
        return char_classes(body) >= 2 and not body.islower()
    if name in ("gh", "npm", "r8", "gsk", "stripe", "ghpat", "wandbv1", "whsec"):
        return char_classes(body) >= 2
    if name == "oai":
        # `sk-learn-style` words are no key; a long random part is, dashes or not (OpenRouter's
        # `sk-or-v1-<64 hex>`, Langfuse's `sk-lf-<uuid>`).
        kebab = _KEBAB_WORDS.match(body) is not None and not any(
            len(part) >= 12 and any(c.isdigit() for c in part) for part in _PARTS.split(body)
        )
        return char_classes(body) >= 2 and not kebab and entropy(body) > 3.0
    if name == "modal":
        # 22 random characters mix all three classes nearly always; `as-ExpectedByTrainer`
        # words do not, nor do they reach four bits per character.
        return char_classes(body) >= 3 or (char_classes(body) == 2 and entropy(body) > 4.0)
    if name in ("hrku", "atatt", "tfc", "notionold", "fw", "akcp"):
        return char_classes(token) >= 3 and entropy(token) > 3.5
    if name == "xox":
        return any(ch.isdigit() for ch in body)
    if name == "xoxd":
        return char_classes(body) >= 2 and entropy(body) > 3.5
    if name == "ngrok":
        return char_classes(token) >= 4 and entropy(token) > 4.0
    if name == "azkey":
        # 64 random bytes: 5+ bits per character. Base64 of float tensors (also 88 characters
        # ending `==`) repeats `AAAA` runs and stays far below; a tensor of values near one
        # another can reach it, and then decodes to sixteen plausible float32s (or 32 bf16s).
        return entropy(token) > 4.5 and not _float_tensor(token)
    if name in ("azad", "ya29", "nvapi", "glpat", "glrt", "gocspx", "vault"):
        return entropy(token) > 3.0
    if name == "pemb64":
        return _pem_in_base64(token)
    return True


def find_vendor_tokens(text: str, edits: list[Edit]) -> None:
    """Append an edit for every vendor-shaped credential in `text`."""
    for rx in VENDOR_PATTERNS:
        for m in rx.finditer(text):
            _take(text, m, edits)


def _take(text: str, m: re.Match[str], edits: list[Edit]) -> None:
    name = m.lastgroup
    if name is None:  # pragma: no cover - every branch is named
        return
    if name == "slackhook":
        # hooks.slack.com/services/T.../B.../secret: keep the host and /services/.
        path_start = text.index("/", m.start(name)) + 1
        path_start = text.index("/", path_start) + 1
        edits.append((path_start, m.end(), "slack-webhook", text[path_start : m.end()]))
        return
    if name == "teamshook":
        path_start = text.index("/", m.start(name)) + 1
        edits.append((path_start, m.end(), "teams-webhook", text[path_start : m.end()]))
        return
    if name == "slackpath":
        path_start = m.start(name) + len("services/")
        edits.append((path_start, m.end(), "slack-webhook", text[path_start : m.end()]))
        return
    start = m.start(name) - _OFFSET[name]
    if name in _EDGE_CHECKED and start > 0 and text[start - 1] in _ALNUM and not _PERCENT_ESCAPE.search(text, max(0, start - 3), start):
        return
    if name == "twilio":
        if char_classes(text[m.end() - 32 : m.end()]) >= 2:
            edits.append((start, start + 34, "account", text[start : start + 34]))
            edits.append((m.end() - 32, m.end(), "twilio-token", text[m.end() - 32 : m.end()]))
        return
    if name == "azkey" and text.endswith("sha512-", max(0, start - 7), start):
        return  # Subresource Integrity (`"integrity": "sha512-..."` in npm's lock files and logs): 64 bytes too
    token = text[start : m.end()]
    if _plausible(name, token, token[_OFFSET[name] :]):
        edits.append((start, m.end(), _KIND[name], token))




# Shapes checked against a whole value found under a key, to name its kind precisely.
_FULL_SHAPES: list[tuple[str, re.Pattern[str]]] = [
    ("hf-token", re.compile(r"(?:hf|api_org)_[A-Za-z0-9]{30,40}\Z")),
    ("github-token", re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{40,255})\Z")),
    ("anthropic-key", re.compile(r"sk-ant-[\w-]{20,300}\Z")),
    ("openai-key", re.compile(r"sk-[\w-]{20,300}\Z")),
    ("slack-token", re.compile(r"(?:xox[abposrec]|xapp)-[\w-]{10,250}\Z|xoxd-[\w%+/-]{20,600}={0,2}\Z")),
    ("aws-access-key", re.compile(r"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}\Z")),
    ("google-api-key", re.compile(r"AIza[\w-]{35}\Z")),
    ("ngc-key", re.compile(r"nvapi-[\w-]{30,120}\Z")),
    ("wandb-key", re.compile(r"(?:local-[0-9a-f]{40}|wandb_v1_[\w]{30,200})\Z")),
    ("jwt", re.compile(r"eyJ[\w-]{5,}\.eyJ[\w-]{5,}\.[\w-]*\Z")),
    ("pypi-token", re.compile(r"pypi-AgE[\w-]{50,400}\Z")),
    ("gitlab-token", re.compile(r"gl(?:pat|ptt|cbt|rt|dt)-[\w-]{20,80}\Z")),
    ("vault-token", re.compile(r"hv[sbr]\.[\w-]{24,1024}\Z")),
    ("google-oauth-token", re.compile(r"ya29\.(?:c\.)?[\w-]{20,}\Z")),
    ("private-key", re.compile(r"(?:-----BEGIN|LS0tLS1CRUdJTi)")),
    ("npm-token", re.compile(r"npm_[A-Za-z0-9]{36}\Z")),
    ("replicate-token", re.compile(r"r8_[A-Za-z0-9]{36,40}\Z")),
    ("groq-key", re.compile(r"gsk_[A-Za-z0-9]{48,56}\Z")),
    ("stripe-key", re.compile(r"(?:[sr]k_(?:live|test)_[A-Za-z0-9]{20,250}|whsec_[A-Za-z0-9+/]{32,88}={0,2})\Z")),
    ("buildkite-token", re.compile(r"bkua_[0-9a-f]{40}\Z")),
    ("google-client-secret", re.compile(r"GOCSPX-[\w-]{20,40}\Z")),
    *((kind, re.compile(rx.pattern + r"\Z")) for kind, rx in _PREFIX_TOKENS.values()),
]


def kind_of_value(value: str) -> str | None:
    """The vendor kind a whole value has, if its shape names one."""
    if len(value) < 20:
        return None
    for kind, rx in _FULL_SHAPES:
        if rx.match(value):
            return kind
    # Any other vendor prefix the scan knows, when its match spans the whole value (`sbp_...`
    # under `--token` is a Supabase token, named so). Most values have none: one C-level
    # prefix test before the scan.
    if not value.startswith(_PREFIXES) and ".atlasv1." not in value:
        return None
    found: list[Edit] = []
    find_vendor_tokens(value, found)
    for start, end, kind, _ in found:
        # Azure's `Q~` secrets and 88-character storage keys are shapes, not prefixes: under
        # a key, the key names them (`client_secret`).
        if start == 0 and end == len(value) and kind not in _KEY_NAMED:
            return kind
    return None


# --- credentials recognised by shape plus context -----------------------------------------

# kubeadm bootstrap tokens: [a-z0-9]{6}.[a-z0-9]{16}, anchored on the dot. (The six before it
# are looked for first: most dots fail there, where the longer look-behind costs more.)
_BOOTSTRAP_RX = re.compile(r"\.(?<=[a-z0-9]{6}\.)(?<![\w.][a-z0-9]{6}\.)[a-z0-9]{16}(?![\w.])")
# `<` and `>` count as word characters at the edges: a placeholder stands where a word was,
# so masking a neighbour must not turn a non-match into a match on the next pass.
_HEX40_RX = re.compile(r"(?<![0-9A-Za-z>])[0-9a-f]{40}(?![0-9A-Za-z<])")
# An AWS secret key stands alone: blanks, quotes or `=`/`:` around it.
_B64_40_RX = re.compile(r"(?<![^\s\"'=:,;])[A-Za-z0-9+/]{40}(?![^\s\"',;])")
# An access key id itself (the `akia`/`asia` word can sit inside prose: `Slovakia`).
_KEY_ID_RX = re.compile(r"A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])", re.IGNORECASE)
# A 40-character secret alone on its line: what IAM's console shows under the key id, and
# what people paste as the pair (`AKIA...` on one line, the secret below it), maybe quoted,
# indented, or behind a mail quote or list mark. Nothing else on the line: a label would have
# made it a pair.
_LONE_B64_40_RX = re.compile(r"^[ \t>*#-]*[\"'`]?(?P<v>[A-Za-z0-9+/]{40})[\"'`]?[ \t,;]*$", re.MULTILINE)
# How many lines on each side of an access key id its secret is looked for alone on a line.
_KEY_PAIR_LINES = 3
_KEY_PAIR_REACH = 2048  # characters on each side: a pasted pair's lines are short
# A 40-hex next to these words is a git or Hub revision, not a W&B key. Up to four marks
# between: JSON quotes its key and its value (`"revision": "<sha>"`).
_REVISION_HINT = re.compile(r"(?i)(?:commit|sha|revision|rev|tree|blob|snapshots?|ref|head)\W{0,4}\Z")


# `akia`/`asia`: a line that carries an access key id carries its secret too (`aws sts
# get-session-token --output text`: `CREDENTIALS  ASIA...  <expiry>  <secret>  <token>`).
# `cohere`: Cohere's keys have no prefix, and its client takes one positionally
# (`co = cohere.Client("...")`, as Cohere's own quickstart writes it).
# `dapi`: Databricks personal access tokens are `dapi` + 32 hex (`-2` and such appended by
# newer workspaces), found from the word itself rather than by a scan of their own.
CONTEXT_WORDS = ("wandb", "aws", "akia", "asia", "cohere", "dapi", "gr1348941", *_PREFIX_TOKENS)
_CONTEXT_OF = {"w": "wandb", "a": "aws", "c": "cohere"}
_DATABRICKS_RX = re.compile(r"dapi[0-9A-Za-z]{32}(?:-\d{1,2})?(?![A-Za-z0-9])")
# GitLab's legacy runner registration tokens (`--registration-token GR1348941...`), also
# shortened in `Registering runner... succeeded  runner=GR1348941RLoRqn-L`.
_GITLAB_REGISTRATION_RX = re.compile(r"GR1348941[A-Za-z0-9_-]{5,40}(?![A-Za-z0-9_-])")
# A quoted 40-character key on a Cohere line.
_QUOTED_KEY_RX = re.compile(r"""(?<=["'])[A-Za-z0-9]{30,64}(?=["'])""")


def find_contextual_keys(text: str, hits: list[tuple[str, int, int]], edits: list[Edit]) -> None:
    """Bootstrap tokens anywhere; 40-hex on W&B lines; 40-char AWS secrets on AWS lines;
    quoted keys on Cohere lines; Databricks and GitLab runner registration tokens."""
    if "." in text:
        for m in _BOOTSTRAP_RX.finditer(text):
            tail = m.group()[1:]
            if any(c.isdigit() for c in tail) and any(c.isalpha() for c in tail):
                edits.append((m.start() - 6, m.end(), "kube-token", text[m.start() - 6 : m.end()]))
    scanned = {"wandb": 0, "aws": 0, "cohere": 0}  # per context: text before this was already scanned
    lone_done = 0  # the lines around key ids read so far for a secret alone on its line
    for word, pos, _ in hits:
        if word[0] not in "wacdgf" or not word.startswith(CONTEXT_WORDS):
            continue
        prefixed = _PREFIX_TOKENS.get(word)
        if prefixed is not None:
            kind, rx = prefixed
            m = rx.match(text, pos)
            if m is not None and (pos == 0 or text[pos - 1] not in _ALNUM) and char_classes(m.group()) >= 3:
                edits.append((pos, m.end(), kind, m.group()))
            continue
        if word in ("dapi", "gr1348941"):
            rx, kind = (_DATABRICKS_RX, "databricks-token") if word == "dapi" else (_GITLAB_REGISTRATION_RX, "gitlab-token")
            m = rx.match(text, pos)
            if m is not None and (pos == 0 or text[pos - 1] not in _ALNUM):
                edits.append((pos, m.end(), kind, m.group()))
            continue
        if text.startswith("<SECRET:", pos - 8):
            continue  # `<SECRET:aws-access-key-1>` is our own word, not AWS context
        context = _CONTEXT_OF[word[0]]
        start = max(line_start(text, pos), scanned[context])
        end = line_end(text, pos)
        if start >= end:
            continue
        scanned[context] = end
        if context == "wandb":
            for m in _HEX40_RX.finditer(text, start, end):
                if not _REVISION_HINT.search(text, max(start, m.start() - 24), m.start()):
                    edits.append((m.start(), m.end(), "wandb-key", m.group()))
        elif context == "cohere":
            for m in _QUOTED_KEY_RX.finditer(text, start, end):
                value = m.group()
                if char_classes(value) >= 3 and entropy(value) > 4.0:
                    edits.append((m.start(), m.end(), "cohere-key", value))
        else:
            for m in _B64_40_RX.finditer(text, start, end):
                value = m.group()
                if char_classes(value) >= 3 and entropy(value) > 4.0:
                    edits.append((m.start(), m.end(), "aws-secret-key", value))
            if word in ("akia", "asia") and _KEY_ID_RX.match(text, pos):
                lone_done = _lone_secrets_near(text, pos, lone_done, edits)


def _lone_secrets_near(text: str, pos: int, done: int, edits: list[Edit]) -> int:
    """A secret key alone on a line near its access key id: a pasted pair with no labels.

    Reads the lines around `pos` from `done` on (what an earlier key id's look already read)
    and no farther than _KEY_PAIR_REACH, so key ids on one long line cost one pass; returns
    where it stopped.
    """
    floor = max(done, pos - _KEY_PAIR_REACH)
    lo, hi = pos, pos
    for _ in range(_KEY_PAIR_LINES + 1):
        lo = text.rfind("\n", floor, lo - 1) + 1 if lo > floor else floor
        if lo <= floor:
            lo = floor
            break
    ceiling = min(len(text), pos + _KEY_PAIR_REACH)
    for _ in range(_KEY_PAIR_LINES + 1):
        nl = text.find("\n", hi + 1, ceiling)
        if nl < 0:
            hi = ceiling
            break
        hi = nl
    for m in _LONE_B64_40_RX.finditer(text, lo, hi):
        value = m.group("v")
        if char_classes(value) >= 3 and entropy(value) > 4.0:
            edits.append((m.start("v"), m.end("v"), "aws-secret-key", value))
    return max(done, hi)
