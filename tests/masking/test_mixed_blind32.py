"""Leaks and over-masks an independent second-team corpus found (blind round 32).

Written from docs/MASKING.md's list of kinds, not from the code: twelve log families ML
engineers paste (SageMaker, a Kubeflow PyTorchJob, Airflow, GitHub Actions, a notebook, DVC
and MLflow, Ray, W&B's debug log, a Databricks driver, docker compose, vLLM, Slurm). What
leaked: the (login, password) tuple Python's HTTP clients take (`auth=('hfischer', '...')`:
the password stayed and the tuple's opening was eaten), a one-line message signed at its end
(`... died again — Priya Volkov`), CodeArtifact's domain owner in pip's index URL, and a
managed database's endpoint under the cloud's domain. What was over-masked: a logger's dotted
name ending in `.local`, an Azure storage container read as a URL's login, and the public
APIs of Telegram and HCP Terraform. All values are synthetic, shaped as the real ones.
"""

from __future__ import annotations

from bot.masking import mask
from tests.masking.test_credentials_blind27 import _masked  # masked, each value gone, lines kept

_PASSWORD = "Tundra8xQ#21"
_ATLASSIAN = "ATATT3xFfGF0VDfb78g1O9TIyc_RWkQFm153fYuaBohYDSRM83bmTu9pAkSqW8waFElt-8R4dUwpVwQtcDSrY70fUcL6Kh=18EAF97E"


def test_a_login_and_password_tuple_masks_both_and_keeps_the_call() -> None:
    text = (
        f"resp = requests.get(url, auth=('mkowalczyk', '{_PASSWORD}'), timeout=30)\n"
        f"jira.exceptions.JIRAError: HTTP 401 basic_auth=('kenji.solberg@hooli.ai', '{_ATLASSIAN}')\n"
        f"session.get(u, auth=requests.auth.HTTPBasicAuth('tnguyen42', '{_PASSWORD}x'))\n"
        'proxy_auth=aiohttp.BasicAuth("proxyuser7", "Quartz4rVVrq_23")\n'
    )
    out = _masked(text, _PASSWORD, _ATLASSIAN, "mkowalczyk", "kenji.solberg", "tnguyen42", "Quartz4rVVrq_23")
    assert "auth=('<USER-1>', '<SECRET:password-1>'), timeout=30)" in out, out
    assert "basic_auth=('<EMAIL-1>', '<SECRET:" in out, out
    assert "auth=requests.auth.HTTPBasicAuth('<USER-" in out, out
    assert 'aiohttp.BasicAuth("<USER-' in out and '"<SECRET:password-' in out, out


def test_a_message_signed_at_its_end_masks_the_signer() -> None:
    text = (
        "Hi Kenji, the job on gn036 died again — Oluwaseun Benali\n"
        "rerun it with --bf16 please -- Priya\n"
        "could you bump the NCCL timeout? – Henrik Brennan\n"
    )
    out = _masked(text, "Oluwaseun", "Benali", "Priya", "Henrik", "Brennan")
    assert "died again — <NAME-" in out and "please -- <NAME-" in out, out


def test_a_dash_before_a_label_is_no_signature() -> None:
    text = "Epoch 3/10 — Validation Loss\nStep 200 — Done\nbuild failed -- Will\nspikes at step 1200 — Adam\n"
    assert mask(text).text == text


def test_codeartifact_domain_owner_is_an_account() -> None:
    text = (
        "!pip install -q transformers==4.46.2 --extra-index-url "
        "https://aws:eyJ2ZXIiOjEsImlzdSI6MTcwMDAwMDAwMH0abcDEF@acme-322073662096.d.codeartifact.us-east-1.amazonaws.com/pypi/ml/simple/\n"
    )
    out = _masked(text, "322073662096")
    assert "@acme-<ACCOUNT-1>.d.codeartifact.us-east-1.amazonaws.com/pypi/ml/simple/" in out, out


def test_a_managed_database_endpoint_is_the_organisations_host() -> None:
    text = (
        "26/11/08 09:14:09 INFO JDBCRDD: jdbc:sqlserver://acme-sql-prod.database.windows.net:1433;"
        f"database=ml;user=svc_ml;password={_PASSWORD};encrypt=true\n"
        'psql: error: connection to server at "mldb.c9akciq32ab.us-east-1.rds.amazonaws.com" (10.0.4.17), port 5432 failed\n'
    )
    out = _masked(text, "acme-sql-prod", "mldb.c9akciq32ab", _PASSWORD)
    assert "jdbc:sqlserver://<HOST-1>:1433;database=ml;" in out, out


def test_public_apis_and_logger_names_and_storage_containers_stay() -> None:
    text = (
        "2026/11/06 10:22:31 INFO mlflow.projects.backend.local: === Running command 'python train.py' ===\n"
        "POST https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage\n"
        "Retrieved token for app.terraform.io\n"
        "26/11/08 INFO NativeAzureFileSystem: wasbs://raw@acmedatalake.blob.core.windows.net/shards/\n"
        "abfss://curated@acmelake.dfs.core.windows.net/tables/\n"
    )
    out = _masked(text, "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw")
    assert "INFO mlflow.projects.backend.local: === Running command" in out, out
    assert "https://api.telegram.org/bot<SECRET:telegram-token-1>/sendMessage" in out, out
    assert "for app.terraform.io" in out, out
    assert "wasbs://raw@acmedatalake" in out and "abfss://curated@acmelake" in out, out


def test_machines_in_logger_position_and_logins_in_urls_still_go() -> None:
    text = "INFO ray-head.ml.local: up\nhttps://hfischer:Sunfl0wer1994x@git.acme.io/x\n"
    out = _masked(text, "ray-head", "hfischer", "Sunfl0wer1994x")
    assert "INFO <HOST-1>: up" in out, out
