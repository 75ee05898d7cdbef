"""Credentials in shapes a twelfth blind corpus of training logs found leaking or over-masked.

- An AWS secret key pasted alone on its line, near its access key id with no label on either
  (IAM's console, a chat message), kept its secret (bot/masking/vendor.py).
- `dvc remote modify NAME secret_access_key x` kept its value: a setter's key and value are
  separated by a blank (bot/masking/pairs.py).
- ODBC and ADO.NET connection strings' `Pwd=` kept the password: `pwd` was read as the shell's
  working directory only; a path under it still is (bot/masking/keys.py, pairs.py).
- A SAS token under a key (`AZURE_STORAGE_SAS_TOKEN="sv=...&sig=..."`, `--sas-token`) was
  masked whole, its `sv=` version, `se=` expiry and `sp=` permissions with it: now only `sig=`.
  A JSON object under an env name (`GOOGLE_CREDENTIALS={"type": ...}`) lost its first key to a
  placeholder; its pairs are masked one by one now.
- `'Authorization': '(redacted)'` (slack_sdk's debug log) was masked as a token.
- `NV_CUDNN_VERSION=8.9.0.131` (NGC images' environment) was masked as an IPv4 address.
- A .netrc written with tabs kept its password; loguru's `diagnose=True` values under a
  secret's variable (`└ '<value>'`) were kept (bot/masking/pairs.py).
- A learned secret spelled `SECRET` was replaced inside our own `<SECRET:...>` placeholder
  (bot/masking/learned.py).
- `aws ecr get-login-password`'s token alone on a line (bot/masking/vendor.py), a CodeArtifact
  token of a thousand characters as an index URL's password (bot/masking/urls.py), and
  GitHub Actions' `::add-mask::<value>` (bot/masking/commands.py) were kept.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from bot.masking import mask
from tests.masking.test_round12 import _mask_log as _mask  # learned whole first, then masked

_KEY_ID = "AKIAW3RZ5TQ7NB2XKLMD"
_SECRET = "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"
_SIG = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo%3D"


@pytest.mark.parametrize(
    "text",
    [
        f"new pair from the console:\n{_KEY_ID}\n{_SECRET}\nstill SignatureDoesNotMatch\n",
        f"> key id\n>    {_KEY_ID}\n> secret\n>    {_SECRET}\n",
        f"secret first:\n  '{_SECRET}'\nand the id\n  '{_KEY_ID}'\n",
        f"- {_KEY_ID}\n- {_SECRET}\n",
    ],
)
def test_a_secret_key_alone_on_a_line_near_its_key_id_is_masked(text: str) -> None:
    out = _mask(text)
    assert _SECRET not in out and _SECRET[:10] not in out, out
    assert "<SECRET:aws-secret-key-1>" in out and "<SECRET:aws-access-key-1>" in out, out
    assert _mask(out) == out


def test_a_lone_40_character_word_far_from_a_key_id_or_without_one_stays() -> None:
    # Forty base64 characters are not a secret by themselves: an id, a digest, prose about
    # Slovakia. Only an access key id nearby says what they are.
    lone = "Rk9PQkFSQkFaUVVYMTIzNDU2Nzg5MGFiY2RlZmdo"
    assert lone in _mask(f"Slovakia cluster notes\n{lone}\n")
    far = f"{_KEY_ID}\n" + "step 1 loss 2.3\n" * 6 + f"{lone}\n"
    assert lone in _mask(far)
    # A git SHA near a key id is hexadecimal: not an AWS secret.
    sha = "3f9a2b1c4d5e6f708192a3b4c5d6e7f809aabbcc"
    assert sha in _mask(f"{_KEY_ID}\n{sha}\n")


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (f"$ dvc remote modify --local ckpts secret_access_key {_SECRET}\n", "aws-secret-key"),
        ("dvc remote modify myremote password Qx7-hunter-Lp2\n", "password"),
    ],
)
def test_dvc_remote_settings_mask_their_values(line: str, kind: str) -> None:
    out = mask(line).text
    assert f"<SECRET:{kind}-1>" in out, out
    assert mask("dvc remote modify myremote url s3://ml-ckpts/dvc\n").text == "dvc remote modify myremote url s3://ml-ckpts/dvc\n"


@pytest.mark.parametrize(
    "text",
    [
        "conn_str = 'Driver={ODBC Driver 18 for SQL Server};Server=tcp:db.example.net,1433;Database=f;Uid=etl;Pwd=Mq8!vRt2zK;Encrypt=yes;'",
        'pyodbc.connect("DRIVER={ODBC Driver 17 for SQL Server};SERVER=sql01;DATABASE=ml;UID=reader;PWD=Mq8!vRt2zK")',
    ],
)
def test_a_connection_string_pwd_is_a_password(text: str) -> None:
    out = mask(text).text
    assert "Mq8!vRt2zK" not in out and "<SECRET:password-1>" in out, out
    assert "Encrypt=yes" in out or "DATABASE=ml" in out


def test_the_shells_pwd_stays_a_path() -> None:
    text = "PWD=/workspace/Proj-A\nOLDPWD=/root\ncd $PWD && PWD=$HOME make\nPWD=C:\\Users\\build\\src\n"
    assert mask(text).text == text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f'AZURE_STORAGE_SAS_TOKEN="sv=2022-11-02&ss=bf&srt=co&sp=rl&se=2027-03-01T00:00:00Z&spr=https&sig={_SIG}"\n', "sv=2022-11-02&ss=bf&srt=co&sp=rl&se=2027-03-01T00:00:00Z&spr=https&sig="),
        (f"export AZURE_STORAGE_SAS_TOKEN='?sv=2023-01-03&sp=r&sig={_SIG}'\n", "'?sv=2023-01-03&sp=r&sig="),
        (f'az storage blob list -c ckpts --account-name mlckpts --sas-token "sp=racwl&st=2026-12-01T08:00:00Z&se=2026-12-09T08:00:00Z&spr=https&sv=2022-11-02&sr=c&sig={_SIG}"\n', "sv=2022-11-02&sr=c&sig="),
        (f"--sas-token sv=2022-11-02&ss=b&sp=r&sig={_SIG} --recursive\n", "--sas-token sv=2022-11-02&ss=b&sp=r&sig="),
    ],
)
def test_a_sas_token_under_a_key_loses_its_signature_only(text: str, kept: str) -> None:
    out = mask(text).text
    assert _SIG not in out and _SIG[:12] not in out, out
    assert kept + "<SECRET:sas-signature-1>" in out, out
    assert mask(out).text == out


def test_a_query_without_a_signature_under_a_token_key_is_masked_whole() -> None:
    # No `sig=` inside: nothing says which part is the secret, so the whole value goes.
    out = mask('SAS_TOKEN="sp=r&se=2027-01-01&key=Jk2Lm8Qp4Rs6Tu0Vw"\n').text
    assert out == 'SAS_TOKEN="<SECRET:token-1>"\n', out


def test_a_json_object_under_an_env_name_keeps_its_keys_and_loses_its_secrets() -> None:
    text = 'GOOGLE_CREDENTIALS={"type":"service_account","project_id":"ml-prod","private_key_id":"9be1f0c2d3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c"}\n'
    out = mask(text).text
    assert out.startswith('GOOGLE_CREDENTIALS={"type":"service_account","project_id":"ml-prod","private_key_id":"<SECRET:'), out
    assert "9be1f0c2d3a4" not in out


def test_a_redaction_marker_in_parentheses_stays() -> None:
    text = "headers: {'Authorization': '(redacted)', 'User-Agent': 'Python/3.12.1 slackclient/3.27.0'}\n"
    assert mask(text).text == text


@pytest.mark.parametrize("line", ["NV_CUDNN_VERSION=8.9.0.131\n", "ENV TRT_VERSION 8.6.1.6\n", "cudnn_version: 9.1.0.70\n"])
def test_versions_under_version_names_stay(line: str) -> None:
    assert mask(line).text == line
    assert mask("MASTER_ADDR=10.4.0.17\n").text == "MASTER_ADDR=<IP-1>\n"


def test_a_netrc_written_with_tabs_loses_its_password() -> None:
    # netrc's parser splits on any whitespace: tabs are as common as blanks in hand-made files.
    key = "6d0f3a9e2b7c41d58e0a9f6b3c2d1e0f9a8b7c6d"
    for text in (
        f"machine\tapi.wandb.ai\n\tlogin\tuser\n\tpassword\t{key}\n",
        f"machine\tapi.wandb.ai\tlogin\tuser\tpassword\t{key}\n",
    ):
        out = mask(text).text
        assert key not in out and "<SECRET:" in out, out
    assert mask("the build machine\tpassword\tprompt\n").text == "the build machine\tpassword\tprompt\n"


def test_loguru_diagnose_values_under_secret_variables_are_masked() -> None:
    # loguru's `diagnose=True` draws each variable's value under the traceback's source line,
    # `└` under the variable's first character.
    key = "8c1e4b7a2d9f03c6e5b8a1d4f7c0e3b6a9d2f5c8"
    text = (
        "    wandb.login(key=WANDB_API_KEY, relogin=flag)\n"
        "    │               │                      └ True\n"
        f"    │               └ '{key}'\n"
        "    └ <module 'wandb' from '/opt/venv/lib/python3.11/site-packages/wandb/__init__.py'>\n"
    )
    out = mask(text).text
    assert key not in out and "└ '<SECRET:" in out, out
    assert "└ True" in out and "<module 'wandb'" in out


def test_loguru_diagnose_values_under_other_variables_stay() -> None:
    text = "    batch = collate(samples, pad_token)\n    │               │        └ '<pad>'\n    │               └ [{'input_ids': [1, 2]}]\n    └ None\n"
    assert mask(text).text == text
    # A value that is not under a variable's first character is not judged by it.
    text = "    run(name=run_name, key=cfg)\n             └ 'Tq8Zr2LmXw5VbN7kPy4JcH3dFg6SaR1e'\n"
    assert "Tq8Zr2LmXw5VbN7kPy4JcH3dFg6SaR1e" in mask(text).text


def test_a_learned_secret_spelled_like_a_placeholder_type_does_not_nest_placeholders() -> None:
    # A traceback's source passes a constant (`=SECRET`): masked as the value, learned (the
    # log is read for names and secrets before its pieces are masked), and then found again
    # inside our own `<SECRET:...>` placeholder.
    text = '    client = boto3.client("s3", aws_secret_access_key=SECRET, region_name="us-east-1")\n'
    out = _mask(text)
    assert "<<" not in out and out.count("<SECRET:") == 1, out
    assert _mask(out) == out


def test_an_ecr_login_password_alone_on_its_line_is_masked() -> None:
    token = "eyJwYXlsb2FkIjoi" + "Qm9vZ2llV29vZ2llMTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6" * 4 + "In0="
    out = mask(f"$ aws ecr get-login-password --region eu-central-1\n{token}\n").text
    assert out == "$ aws ecr get-login-password --region eu-central-1\n<SECRET:docker-auth-1>\n", out


def test_a_long_codeartifact_token_in_an_index_url_is_masked() -> None:
    token = "eyJ2ZXIiOjEsImlzdSI6MTczMzQ4MDAwMCwiZW5jIjoiQTEyOEdDTSIsInRhZyI6Ik" + "x7Qp9Lm2Zr8Vb4Nk6Wy3Jc5Hd1Fg0Sa" * 30
    text = f"PIP_INDEX_URL=https://aws:{token}@acme-111122223333.d.codeartifact.eu-west-1.amazonaws.com/pypi/ml/simple/\n"
    out = mask(text).text
    assert token[:40] not in out and "x7Qp9Lm2Zr8V" not in out, out
    assert out.endswith(".d.codeartifact.eu-west-1.amazonaws.com/pypi/ml/simple/\n"), out


def test_a_github_actions_add_mask_value_is_masked() -> None:
    text = "+ echo '::add-mask::Rq7vLp2XzW9mKc4TbN8y'\n::add-mask::Rq7vLp2XzW9mKc4TbN8y\n"
    out = mask(text).text
    assert "Rq7vLp2X" not in out and out.count("::add-mask::<SECRET:") == 2, out
