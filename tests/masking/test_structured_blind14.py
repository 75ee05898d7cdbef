"""Secrets and personal data in structured, multi-line shapes a fourteenth blind corpus found
leaking or over-masked (Kubernetes, Helm, docker, W&B, Terraform, pydantic, curl, configs).

- W&B's run `config.yaml` writes each key over three lines (`key:` / `desc: null` /
  `value: ...`): the value of a secret key was kept (bot/masking/pairs.py).
- `kubectl describe pod`'s `Node:  gpu-h100-07.int.corp.io/10.0.0.1`: `node:` took the
  name's head only (`gpu-h100`) and the FQDN pass the rest, `-07.int...` left between two
  placeholders (bot/masking/pairs.py).
- docker inspect's quoted env entry `"NV_CUDNN_VERSION=8.9.7.29"` was masked as an address
  (bot/masking/addresses.py).
- A Secret's `stringData:` item written as a YAML block (`tls.key: |`) had its `|` masked
  as the secret (bot/masking/blocks.py).
- Terraform's `(sensitive value)` and pydantic's `SecretStr('**********')` were masked as
  passwords, mangled (bot/masking/keys.py).
- A name under `author:` in a nested config was kept (bot/masking/names.py).
- Kubernetes Service names (`redis-master.ml.svc`, `pg.ns.svc.cluster.local`) were masked as
  machines; they are resources, and the diagnosis (`Connection refused` on which service) needs
  them (bot/masking/hosts.py, urls.py).
- A dotted URL host masked in the URL was kept bare on curl's `* Connected to` line: it was
  not learned (bot/masking/urls.py).
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from bot.masking import mask
from tests.masking.test_round12 import _mask_log as _mask  # learned whole first, then masked

_AWS_SECRET = "qR8vLm2Zt0Yx5Wb+Hn3Kc7Pj/Fd1Gs9Ae4Ui6To0"
_PASSWORD = "Quartz-58%mellow"


@pytest.mark.parametrize(
    ("key", "value", "kind"),
    [
        ("aws_secret_access_key", _AWS_SECRET, "aws-secret-key"),
        ("db_password", _PASSWORD, "password"),
        ("wandb_api_key", '"' + "9c1e4b7a2d8f3065e1b9c4a7d2f8e3b6a1c5d9e0" + '"', "wandb-key"),
    ],
)
def test_a_wandb_run_configs_described_value_is_masked(key: str, value: str, kind: str) -> None:
    text = f"wandb_version: 1\n\nlr:\n  desc: null\n  value: 0.0003\n{key}:\n  desc: null\n  value: {value}\nseed:\n  desc: null\n  value: 1234\n"
    out = _mask(text)
    assert value.strip('"') not in out, out
    assert f"<SECRET:{kind}-1>" in out, out
    assert "  value: 0.0003\n" in out and "  value: 1234\n" in out and "desc: null" in out, out
    assert _mask(out) == out


def test_a_wandb_run_configs_harmless_values_stay() -> None:
    text = "pad_token_id:\n  desc: null\n  value: 128009\nmodel_name:\n  desc: null\n  value: Qwen/Qwen2-7B\n_wandb:\n  desc: null\n  value:\n    cli_version: 0.17.5\n"
    assert _mask(text) == text


@pytest.mark.parametrize(
    "node",
    ["gpu-h100-07.int.corp.io", "worker-l40s-112.compute.initech.de", "gn0412.hpc.example-lab.org"],
)
def test_a_describe_pods_node_is_masked_whole(node: str) -> None:
    out = _mask(f"Name:         eval-5c8d9-abcde\nNode:         {node}/10.20.30.40\nStatus:       Running\n")
    assert "Node:         <HOST-1>/<IP-1>\n" in out, out
    assert "eval-5c8d9-abcde" in out, out


def test_a_node_key_still_takes_no_versions_or_counts() -> None:
    for line in ("node: 20.11.1\n", '"node": 3,\n', "node: v18\n"):
        assert mask(line).text == line


def test_a_version_in_a_quoted_env_entry_stays() -> None:
    text = '  "Env": [\n    "NV_CUDNN_VERSION=8.9.7.29",\n    "NCCL_VERSION=2.21.5.1",\n    "MY_ADDR=10.4.8.16"\n  ],\n'
    out = mask(text).text
    assert '"NV_CUDNN_VERSION=8.9.7.29"' in out and '"NCCL_VERSION=2.21.5.1"' in out, out
    assert "10.4.8.16" not in out, out


def test_a_yaml_block_under_string_data_keeps_its_indicator() -> None:
    body = "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDXq8mZ0wQ4tR2e"
    text = (
        "kind: Secret\nstringData:\n  tls.key: |-\n    -----BEGIN PRIVATE KEY-----\n"
        f"    {body}\n    -----END PRIVATE KEY-----\n  api-token: plain-{_PASSWORD}\n"
    )
    out = _mask(text)
    assert "  tls.key: |-\n" in out, out
    assert body not in out and _PASSWORD not in out, out
    assert "-----BEGIN PRIVATE KEY-----" in out, out


@pytest.mark.parametrize(
    "line",
    [
        "      + password                 = (sensitive value)\n",
        '      ~ "db_password" = (sensitive value)\n',
        "cfg = Config(api_key=SecretStr('**********'), token=SecretStr('**********'), retries=3)\n",
        "Creds(password=SecretBytes(b'**********'))\n",
    ],
)
def test_redaction_markers_are_left_as_they_are(line: str) -> None:
    assert mask(line).text == line


def test_the_real_values_beside_redaction_markers_are_masked() -> None:
    out = mask(f"+ password = (sensitive value)\n+ admin_password = \"{_PASSWORD}\"\nx = S(password='{_PASSWORD}', key=SecretStr('**********'))\n").text
    assert _PASSWORD not in out and "(sensitive value)" in out and "SecretStr('**********')" in out, out


@pytest.mark.parametrize(
    "text",
    [
        "hub:\n  push: true\n  author: Ingrid Solberg\n",
        '{"model_id": "acme/tiny-ft", "author": "Ingrid Solberg", "license": "mit"}\n',
        "author = Ingrid Solberg\n",
    ],
)
def test_a_name_under_author_is_masked(text: str) -> None:
    out = _mask(text)
    assert "Ingrid" not in out and "Solberg" not in out, out
    assert "<NAME-1>" in out, out


def test_an_organisation_under_author_stays() -> None:
    text = "author: Hugging Face\n"
    assert mask(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "redis.exceptions.ConnectionError: Error 111 connecting to cache-redis.inference.svc:6379. Connection refused.\n",
        f"DATABASE_URL=postgresql://app:{_PASSWORD}@pg-primary.mlops.svc.cluster.local:5432/app\n",
        "curl: (7) Failed to connect to minio.storage.svc.cluster.local port 9000: Connection refused\n",
    ],
)
def test_kubernetes_service_names_stay(text: str) -> None:
    out = _mask(text)
    for name in ("cache-redis.inference.svc", "pg-primary.mlops.svc.cluster.local", "minio.storage.svc.cluster.local"):
        if name in text:
            assert name in out, out
    assert _PASSWORD not in out, out


def test_a_service_in_a_namespace_named_for_a_person_loses_the_login() -> None:
    out = _mask("cd /home/kvaldez/notebooks\nhttp://jupyter.kvaldez.svc.cluster.local:8888/lab\n")
    assert "kvaldez" not in out, out


def test_a_machine_on_a_cluster_suffix_is_still_masked() -> None:
    out = mask("  host      : trn-17.cluster.local\nssh gpu01.hpc.internal\n").text
    assert "trn-17" not in out and "gpu01.hpc.internal" not in out, out


def test_a_url_host_is_masked_again_where_curl_names_it_bare() -> None:
    text = (
        "$ curl -v https://registry.ml.uni-tuebingen.de/v2/_catalog\n"
        "*   Trying 10.12.0.9:443...\n"
        "* Connected to registry.ml.uni-tuebingen.de (10.12.0.9) port 443\n"
        "> GET /v2/_catalog HTTP/2\n"
    )
    out = _mask(text)
    assert "uni-tuebingen" not in out, out
    assert "* Connected to <HOST-1> (<IP-1>) port 443\n" in out, out


def _annotated(source: str, variable: str, value: str) -> str:
    # loguru's diagnose: `└` under the variable's first character, its repr after it.
    column = source.index(variable)
    return f"{source}\n    │{' ' * (column - 5)}└ '{value}'\n    └ <function at 0x7f3a2b1c0d90>\n"


@pytest.mark.parametrize(
    ("source", "variable"),
    [
        ('    repo.index.commit(msg, author=author)', "author)"),
        ('    send_report(run_id, full_name)', "full_name"),
        ('    notify(cfg.run_owner, "done")', "run_owner"),
    ],
)
def test_a_name_loguru_shows_under_a_person_variable_is_masked(source: str, variable: str) -> None:
    out = _mask(_annotated(source, variable, "Ingrid Solberg"))
    assert "Ingrid" not in out and "Solberg" not in out, out
    assert "└ '<NAME-1>'" in out, out


def test_values_loguru_shows_under_other_variables_or_not_names_stay() -> None:
    for source, variable, value in (
        ("    load(model_name)", "model_name", "Llama Guard"),
        ("    notify(owner)", "owner", "Hugging Face"),
        ("    push(repo_id)", "repo_id", "Ingrid Solberg"),
    ):
        text = _annotated(source, variable, value)
        assert mask(text).text == text
