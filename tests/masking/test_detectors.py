"""The detectors table (bot/masking/detectors.py) is what the per-kind tests iterate over.

Every kind a row declares needs an example as the real tool prints it (tests/masking/test_masking.py's
SECRETS and PERSONAL rows, or KIND_EXAMPLES below); each example is masked with its kind's
placeholder on its own and when planted in a 2,000-line NCCL log read the way `denpex mask`
reads it (learned first, masked in 1 MB pieces). A new row, or a new kind in a row, fails
here until it has an example that passes.
"""

from __future__ import annotations

import random
import re

import pytest

from bot.masking import Masker, mask
from bot.masking.anchors import WORDS, find_anchors, present_words
from bot.masking.detectors import DECLARED_KINDS, DETECTORS, STAGES, Scan
from bot.masking.placeholders import PERSONAL_LABELS
from bot.masking.state import LogState
from tests.masking.test_masking import PERSONAL, SECRETS, _nccl_chatter

# Kinds the SECRETS and PERSONAL tables do not show: (line, value) as the tools print them.
KIND_EXAMPLES: dict[str, tuple[str, str]] = {
    "api-key": ("COMET_API_KEY=Xk29fLq8ZpT3vB7nR1mW4sY6d", "Xk29fLq8ZpT3vB7nR1mW4sY6d"),
    # A licence server's trial line (Gurobi, MATLAB and installers print `evaluation code:`).
    "access-code": ("License: evaluation code: A44DLW7HJH2G (expires 2025-12-31)", "A44DLW7HJH2G"),
    "auth": ('{"auth": "q8ZpT3vB7nR1mW4sY6dXk29fLhJ2"}', "q8ZpT3vB7nR1mW4sY6dXk29fLhJ2"),
    "azure-client-secret": ("AZURE_CLIENT_SECRET=Vtx8Q~pN3kLr2mZs9QwE5yHb7uJc1dFg4aKo6iWe", "Vtx8Q~pN3kLr2mZs9QwE5yHb7uJc1dFg4aKo6iWe"),
    # Google's OAuth redirect as a proxy's access log records it.
    "oauth-code": ("GET /oauth2/callback?state=xyz&code=4/0AfJohXn9nohK7Q51dFd4yugmOXV5v HTTP/1.1", "4/0AfJohXn9nohK7Q51dFd4yugmOXV5v"),
    "oauth-state": ("GET /hub/oauth_callback?code=x&state=vyy1un7BVWzqjgW6kmAjYzUkMZK4m1 HTTP/1.1", "vyy1un7BVWzqjgW6kmAjYzUkMZK4m1"),
    "credential": ("--credential Zq8pT3vB7nR1mW4sY6dXk29f", "Zq8pT3vB7nR1mW4sY6dXk29f"),
    # A GCS V4 signed URL.
    "gcs-credential": (
        "https://storage.googleapis.com/llm-data/ckpt.pt?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential="
        "trainer%40proj-1.iam.gserviceaccount.com%2F20240506%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20240506T104201Z",
        "trainer%40proj-1.iam.gserviceaccount.com%2F20240506%2Fauto%2Fstorage%2Fgoog4_request",
    ),
    "gitlab-token": ("git clone https://oauth2:glpat-xY7kP2mQ9rT4vW8zB3nC@gitlab.acme.io/ml/llm.git", "glpat-xY7kP2mQ9rT4vW8zB3nC"),
    "google-client-secret": ('"client_secret": "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"', "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"),
    "groq-key": ("GROQ_API_KEY=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", "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"),
    # A credentials file put through `base64 -w 0`, written back by a CI step (`set -x` echoes it).
    "encoded-credentials": (
        "+ echo W2RlZmF1bHRdCmF3c19zZWNyZXRfYWNjZXNzX2tleSA9IDNLeGUzY3V0NUpsRFd5QXQ4dFljWWZYMTBPTlRDV2ZDbVJWWDZ5VVUK | base64 -d > ~/.aws/credentials",
        "W2RlZmF1bHRdCmF3c19zZWNyZXRfYWNjZXNzX2tleSA9IDNLeGUzY3V0NUpsRFd5QXQ4dFljWWZYMTBPTlRDV2ZDbVJWWDZ5VVUK",
    ),
    "k8s-secret": ("kind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: UzNjcmV0UGFzczIwMjQh\n", "UzNjcmV0UGFzczIwMjQh"),
    "key": ("DJANGO_SECRET_KEY=q8ZpT3vB7nR1mW4sY6dXk29fLhJ2", "q8ZpT3vB7nR1mW4sY6dXk29fLhJ2"),
    # ~/.npmrc
    "npm-token": ("//registry.npmjs.org/:_authToken=npm_aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5", "npm_aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5"),
    "pypi-token": (
        "TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmcCJDNhZDk0YmZhLTIyOGMtNDJiNi1hNzQ2LTcxYjJlNzM0ZjQ2ZAACKlszLCJlYjQ",
        "pypi-AgEIcHlwaS5vcmcCJDNhZDk0YmZhLTIyOGMtNDJiNi1hNzQ2LTcxYjJlNzM0ZjQ2ZAACKlszLCJlYjQ",
    ),
    "replicate-token": ("export REPLICATE_API_TOKEN=r8_aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5b", "r8_aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5b"),
    # A CloudFront signed URL.
    "signature": (
        "https://d111111abcdef8.cloudfront.net/ckpt.pt?Expires=1700000000&Signature=Nq8ZpT3vB7nR1mW4sY6dXk29fLhJ2~q8ZpT3vB7nR1mW4sY6dX__&Key-Pair-Id=K2JCJMDEHXQW5F",
        "Nq8ZpT3vB7nR1mW4sY6dXk29fLhJ2~q8ZpT3vB7nR1mW4sY6dX__",
    ),
    # A private conda channel in an environment.yml; Discord and Telegram bots posting alerts.
    "anaconda-token": ("  - https://conda.anaconda.org/t/ab-3f2a1b9d-8c7e-4d6f-a5b4-3c2d1e0f9a8b/acme-private", "ab-3f2a1b9d-8c7e-4d6f-a5b4-3c2d1e0f9a8b"),
    "discord-webhook": (
        'requests.post("https://discord.com/api/webhooks/1234567890123456789/aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5bC7dE9fG2hJ4kL6mN8pQ0rS2tU4vW6xY8zA", json=p)',
        "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5bC7dE9fG2hJ4kL6mN8pQ0rS2tU4vW6xY8zA",
    ),
    # alertmanager's or a cron job's call to PagerDuty's Events API v1, and a Healthchecks.io ping.
    "pagerduty-key": ("POST https://events.pagerduty.com/integration/e93facc04764012d7bfb002500d5d1a6/enqueue", "e93facc04764012d7bfb002500d5d1a6"),
    "healthcheck-url": ("curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/eb095278-f28d-448d-87fb-7b75c171a6aa/fail",
                        "eb095278-f28d-448d-87fb-7b75c171a6aa"),
    "telegram-token": ('curl -s "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage"', "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"),
    "cookie": ("Cookie: session=eyJ1c2VyIjoiaGZpc2NoZXIifQ.ZmFrZXNpZ25hdHVyZQ; theme=dark", "eyJ1c2VyIjoiaGZpc2NoZXIifQ.ZmFrZXNpZ25hdHVyZQ"),
    "stripe-key": ("STRIPE_KEY=sk_live_aB3dE5fG7hJ9kL2mN4pQ6rS8", "sk_live_aB3dE5fG7hJ9kL2mN4pQ6rS8"),
    # Developer services' prefixed keys, as their CLIs, SDK calls and config files show them.
    "notion-token": ("NOTION_TOKEN = \"ntn_OhbVrpoiVgRV5IfLBcbfnoGMbJmTPSIAoCLrZ3aWZkSBvr\"", "ntn_OhbVrpoiVgRV5IfLBcbfnoGMbJmTPSIAoCLrZ3aWZkSBvr"),
    "supabase-token": ("$ supabase login --token sbp_46a32c3bb81e3c29b62179273c8eb5bb682575ec", "sbp_46a32c3bb81e3c29b62179273c8eb5bb682575ec"),
    "shopify-token": ("X-Shopify-Access-Token: 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", "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"),
    "digitalocean-token": ("$ doctl auth init -t dop_v1_d2cce8038a39d5e0853964b50af03b971722f244f58d669cbee3772a07702172", "dop_v1_d2cce8038a39d5e0853964b50af03b971722f244f58d669cbee3772a07702172"),
    "linear-key": ("linear.app/graphql 401 with lin_api_5c3veGprQFnIiU74KKEpYEZAmggQBwBAD3UdRPPg", "lin_api_5c3veGprQFnIiU74KKEpYEZAmggQBwBAD3UdRPPg"),
    "grafana-token": ("grafana-cli: using glsa_dzUvZ3gpmmICiBlrDp37eCZ32JgdPI1a_275dff6c for https://grafana.acme.io", "glsa_dzUvZ3gpmmICiBlrDp37eCZ32JgdPI1a_275dff6c"),
    "pinecone-key": ("pc = Pinecone(api_key=\"pcsk_5dkyay_q7YYDsBS9UYJQTFjmsn9dLVIdVuddLEG62Hkd9Gf2leMeR3pzh84KpLMcNfAQLK\")", "pcsk_5dkyay_q7YYDsBS9UYJQTFjmsn9dLVIdVuddLEG62Hkd9Gf2leMeR3pzh84KpLMcNfAQLK"),
    "sentry-token": ("sentry-cli --auth-token sntrys_eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ_Hu7qnQTupqziQPtDu7W7eaDNKgeInGqi7w4e4pxskC1 releases new 1.2", "sntrys_eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ_Hu7qnQTupqziQPtDu7W7eaDNKgeInGqi7w4e4pxskC1"),
    "modal-token": ("$ modal token set --token-id ak-Qm7vX2pLr9TnB4kZw8JcYd --token-secret as-H3fN8qWzL1xVt6RpK9mBcS", "ak-Qm7vX2pLr9TnB4kZw8JcYd"),
    "twilio-token": ('    client = Client("AC4c1d8e2b7f3a9065d2e8c1b7a4f30e96", "7d2b9e4f1a6c3e8b0d5f2a7c9e1b4d6f")', "7d2b9e4f1a6c3e8b0d5f2a7c9e1b4d6f"),
    # `bk configure` (Buildkite's CLI) and a pip index behind JFrog Artifactory.
    "buildkite-token": ("$ bk configure --org acme --token bkua_0f3a8e3d9b4c4a1e8f2d7c6b5a4938270f3a8e3d", "bkua_0f3a8e3d9b4c4a1e8f2d7c6b5a4938270f3a8e3d"),
    "artifactory-key": (
        'curl -H "X-JFrog-Art-Api: AKCp8kQ2mN4pQ6rS8tU0vW1xY3zA5bC7dE9fG2hJ4kL6mN8pQ0rS2tU4vW6xY8zA1bC3dE5fg" https://acme.jfrog.io/artifactory/api/pypi/ml/simple/',
        "AKCp8kQ2mN4pQ6rS8tU0vW1xY3zA5bC7dE9fG2hJ4kL6mN8pQ0rS2tU4vW6xY8zA1bC3dE5fg",
    ),
    "ngrok-token": ("!ngrok config add-authtoken 2Xq7vLm3TnR8pKw4ZcY9bJd6HsF_5gNtQ2rWx8VkLm4Pz7Cy", "2Xq7vLm3TnR8pKw4ZcY9bJd6HsF_5gNtQ2rWx8VkLm4Pz7Cy"),
    "fireworks-key": ("fireworks.client.api_key = 'fw_5jIc1xLJjBictx57Y3c5wnRp'", "fw_5jIc1xLJjBictx57Y3c5wnRp"),
    "postman-key": ("newman run c.json --env-var apikey=PMAK-3bd4755d05ad7853c1f76eb9-7706ca828bca0385813dbad3c681d06bd2", "PMAK-3bd4755d05ad7853c1f76eb9-7706ca828bca0385813dbad3c681d06bd2"),
    "newrelic-key": ("newrelic profile add --apiKey NRAK-VUHT6T0UZS9IM0YLTZ9ATSN1U32", "NRAK-VUHT6T0UZS9IM0YLTZ9ATSN1U32"),
    "heroku-key": ("heroku auth:token -> HRKU-CRnGEY59YVkQfsGQONvf08WpRtoZmj-bcpEN2XeDA4OKmTSyFzpjPSa5W3X4", "HRKU-CRnGEY59YVkQfsGQONvf08WpRtoZmj-bcpEN2XeDA4OKmTSyFzpjPSa5W3X4"),
    "perplexity-key": ("client = OpenAI(api_key='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', base_url='https://api.perplexity.ai')", "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"),
    "xai-key": ("curl https://api.x.ai/v1/chat/completions -H 'x-api-key xai-1OrXXHFOprCeTsprvu5IfijoySjTneAAvIDAdn1Ay5XL8Sb24WKyEa8wtWy2591AIVVIZM5oForBFbyv'", "xai-1OrXXHFOprCeTsprvu5IfijoySjTneAAvIDAdn1Ay5XL8Sb24WKyEa8wtWy2591AIVVIZM5oForBFbyv"),
    "tavily-key": ("TavilyClient('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')", "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"),
    "pulumi-token": ("pulumi login --token pul-aac8d82f01b7210760474f36e8b5359309cc6273", "pul-aac8d82f01b7210760474f36e8b5359309cc6273"),
    # Prefect Cloud's login, as its CLI takes the key.
    "prefect-key": ("$ prefect cloud login -k pnu_Qm7vX2pLr9TnB4kZw8JcYdH3fN8qWzL1xVt6", "pnu_Qm7vX2pLr9TnB4kZw8JcYdH3fN8qWzL1xVt6"),
    # A payout record quoted by a parsing error (the ECBS example IBAN).
    # A mail signature's or a shipping note's street and number (the city after it stays).
    "address": ("Please ship the replacement GPU to 221 Baker Street, London NW1 6XE.", "221 Baker Street"),
    # A payroll export's row, and the spaced form HMRC prints, unlabelled.
    "nino": ("KeyError: 'ni_number' missing in row 88: {'employee': 'E-4471', 'nino': 'WK 48 19 27 B'}", "WK 48 19 27 B"),
    "iban": ("ValueError: could not parse row 1832 in payouts.csv: ['DE89 3704 0044 0532 0130 00', 'EUR', '1299.00']", "DE89 3704 0044 0532 0130 00"),
    "age-key": ("# created: 2026-12-05T10:42:01Z\nAGE-SECRET-KEY-1N8ZKMHY4Q6LXMHAFMT37AM35093U0AC4PL5TLDKS433QV906L07LUP9JWE", "AGE-SECRET-KEY-1N8ZKMHY4Q6LXMHAFMT37AM35093U0AC4PL5TLDKS433QV906L07LUP9JWE"),
    "sendgrid-key": ("sg = SendGridAPIClient('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')", "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"),
    "terraform-token": ("credentials \"app.terraform.io\" { token = \"7qYYOLQZ7mBhIo.atlasv1.Pj6r0jedkYtMV0K6sChDStSz8rGIFCfMc4BVuMqbfo9R13KL8bWR0rKcWWlEHPC6rlL\" }", "7qYYOLQZ7mBhIo.atlasv1.Pj6r0jedkYtMV0K6sChDStSz8rGIFCfMc4BVuMqbfo9R13KL8bWR0rKcWWlEHPC6rlL"),
    "atlassian-token": ("curl -u bot@acme.io:ATATT3xFfGF0BO0FfEwAvuQg2kvASFsQ8z0WJcDfuquhXz3G0aQ3IDAdmHxNWFOCWdnrJi7sC4SFhbOMZpTktJaJAfo16hD8hP1jF7TsGTrA1EEpDJjym6MGV4i3erXY2Av7YGr0asUt1LLQF3jCIEwvJWIyD7u3mSpKyo2XAcuVET6ZyyQY0P https://acme.atlassian.net/rest/api/3/myself", "ATATT3xFfGF0BO0FfEwAvuQg2kvASFsQ8z0WJcDfuquhXz3G0aQ3IDAdmHxNWFOCWdnrJi7sC4SFhbOMZpTktJaJAfo16hD8hP1jF7TsGTrA1EEpDJjym6MGV4i3erXY2Av7YGr0asUt1LLQF3jCIEwvJWIyD7u3mSpKyo2XAcuVET6ZyyQY0P"),
    # Docker Hub's access token piped to `docker login`, `flyctl auth token`'s answer, and
    # `doppler configs tokens create --plain`'s service token, each bare on its line.
    "docker-token": ("$ echo dckr_pat_2b3e36beeb386dfdaacb9b46004 | docker login -u hfischer --password-stdin", "dckr_pat_2b3e36beeb386dfdaacb9b46004"),
    "fly-token": ("$ flyctl auth token\nfo1_cAqs0DYe5zmKAvJ3o5tg2tv8I0TYwN5Ayiy8tV8Ts1Q", "fo1_cAqs0DYe5zmKAvJ3o5tg2tv8I0TYwN5Ayiy8tV8Ts1Q"),
    "doppler-token": ("$ doppler configs tokens create ci --plain\ndp.st.prd.VhcTGQ8fVzRkQbRM9Lk3tsIbKf9hsgvCYBbgGKDlMqNb", "dp.st.prd.VhcTGQ8fVzRkQbRM9Lk3tsIbKf9hsgvCYBbgGKDlMqNb"),
}


def _label(kind: str) -> str:
    """The placeholder prefix a kind prints as: `IP`, `SECRET:hf-token`."""
    return PERSONAL_LABELS.get(kind, f"SECRET:{kind}")


def _examples_by_kind() -> dict[str, tuple[str, str]]:
    """One example per kind: the first row of the test tables whose placeholder is the kind's."""
    found: dict[str, tuple[str, str]] = {}
    labels = {_label(kind): kind for kind in DECLARED_KINDS}
    for line, value, label in (*SECRETS, *PERSONAL):
        kind = labels.get(label)
        if kind is not None:
            found.setdefault(kind, (line, value))
    for kind, example in KIND_EXAMPLES.items():
        found.setdefault(kind, example)
    return found


EXAMPLES = _examples_by_kind()
# Sorted: the same ids in every process (pytest-xdist).
KINDS = sorted(DECLARED_KINDS)


def _gone(value: str, masked: str) -> bool:
    return re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", masked) is None


def test_rows_are_well_formed() -> None:
    """Unique names, known stages, anchors the lowered-text automaton can hit."""
    names = [d.name for d in DETECTORS]
    assert len(names) == len(set(names))
    for detector in DETECTORS:
        assert detector.stage in STAGES, detector.name
        for word in detector.anchors:
            assert word == word.lower(), (detector.name, word)  # the automaton reads lowered text
            assert word in WORDS, (detector.name, word)


@pytest.mark.parametrize("kind", KINDS)
def test_every_declared_kind_has_an_example_that_masks_to_it(kind: str) -> None:
    """A kind with no example is a detector nobody tested: add one as the tool prints it."""
    assert kind in EXAMPLES, f"{kind}: add an example to KIND_EXAMPLES (what the real tool prints)"
    line, value = EXAMPLES[kind]
    masked = mask(line).text
    assert _gone(value, masked), masked
    assert f"<{_label(kind)}-" in masked, masked


ALL_LINES = [line for line, _, _ in (*SECRETS, *PERSONAL)] + [line for line, _ in KIND_EXAMPLES.values()]


def test_every_kind_masked_in_the_examples_is_declared() -> None:
    """Whatever the masker emits on the examples is a kind some row declares."""
    emitted: set[str] = set()
    for line in ALL_LINES:
        emitted.update(mask(line).counts)
    assert emitted <= DECLARED_KINDS, sorted(emitted - DECLARED_KINDS)


@pytest.mark.parametrize("name", [d.name for d in DETECTORS])
def test_each_row_emits_only_the_kinds_it_declares(name: str) -> None:
    """Each row run alone over every example: its edits carry only its declared kinds."""
    detector = next(d for d in DETECTORS if d.name == name)
    emitted: set[str] = set()
    for line in ALL_LINES:
        hits = find_anchors(line)
        scan = Scan(line, hits, present_words(line, hits), [], LogState())
        detector.find(scan)
        emitted.update(kind for _, _, kind, _ in scan.edits if kind)
    assert emitted <= set(detector.kinds), sorted(emitted - set(detector.kinds))


def test_every_kind_is_masked_on_the_production_path_of_a_big_log() -> None:
    """All kinds' examples planted in a 2,000-line NCCL log, learned and masked in 1 MB
    pieces as `denpex mask` does: none survives."""
    rng = random.Random(15)
    body = _nccl_chatter(rng, 2000)
    for kind in KINDS:
        body.insert(rng.randrange(len(body) + 1), EXAMPLES[kind][0])
    text = "\n".join(body) + "\n"
    masker = Masker()
    masker.learn(text.encode())
    pieces, piece = [], []
    size = 0
    for line in text.splitlines(keepends=True):
        piece.append(line)
        size += len(line)
        if size >= 1 << 20:
            pieces.append("".join(piece))
            piece, size = [], 0
    pieces.append("".join(piece))
    masked = "".join(masker.mask(p) for p in pieces)
    assert masked.count("\n") == text.count("\n")
    leaked = [kind for kind in KINDS if not _gone(EXAMPLES[kind][1], masked)]
    assert not leaked
