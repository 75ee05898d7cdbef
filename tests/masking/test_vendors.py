"""Developer services' prefixed keys are credentials by their shape alone: pasted bare into a
chat thread (no key name beside them), they are masked and named for their vendor."""

from __future__ import annotations

import pytest

from bot.masking import mask
from tests.masking.test_detectors import KIND_EXAMPLES

# The kinds found by their prefix alone (bot/masking/vendor.py).
PREFIXED = (
    "notion-token", "supabase-token", "shopify-token", "digitalocean-token", "linear-key", "grafana-token",
    "pinecone-key", "sentry-token", "fireworks-key", "postman-key", "newrelic-key", "heroku-key", "perplexity-key",
    "xai-key", "tavily-key", "pulumi-token", "age-key", "sendgrid-key", "terraform-token", "atlassian-token",
    "docker-token", "fly-token", "doppler-token",
)  # fmt: skip


@pytest.mark.parametrize("kind", PREFIXED)
def test_prefixed_key_pasted_bare_is_masked_with_its_kind(kind: str) -> None:
    value = KIND_EXAMPLES[kind][1]
    text = f"[10:44:01] <ops-bot> the token {value} stopped working yesterday\n> ok here you go: {value}\n"
    masked = mask(text).text
    assert value not in masked
    assert masked.count(f"<SECRET:{kind}-1>") == 2, masked


@pytest.mark.parametrize(
    "line",
    [
        "sk-learn-style-words and sk-or-v1 without a key; fw_version_string_for_board fw_update",
        "secret_key_base is unset; pul-request-template.md; dp.st.prd is a config name",
        "dckr_pat_ is Docker's prefix; fo1_short; dp.st.prd.config and dp.pt. alone",
        "md5 d41d8cd98f00b204e9800998ecf8427e-us is a checksum; NRAK-short; xai-grok-beta",
    ],
)
def test_prefix_lookalikes_are_kept(line: str) -> None:
    assert mask(line).text == line


def test_openrouter_and_langfuse_keys_are_no_kebab_words() -> None:
    """`sk-` then dashed parts is an sklearn-like word unless a part is long and random."""
    openrouter = "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"
    langfuse = "sk-lf-4bc1599e-2053-401a-8e8b-cd18356cb064"
    masked = mask(f"OpenRouter said 401 for {openrouter}; langfuse secret {langfuse}").text
    assert openrouter not in masked and langfuse not in masked
    assert masked.count("<SECRET:openai-key-") == 2, masked
