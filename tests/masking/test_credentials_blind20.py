"""Credentials as a third, fresh-seeded blind corpus placed them (issue #16, round 20).

Cloud CLIs' own output (`aws configure get ... --profile`, a service account's `ya29.c.`
access token), credentials files base64-encoded whole, and service-account keys cut by a
terminal through their BEGIN marker. All values are synthetic, shaped as the real ones.
"""

from __future__ import annotations

import base64
import json
import re

from bot.masking import mask

_AWS_SECRET = "LCyfPf6hgHG4sddOp3C3IBsy5hSKfOtSrnBdTgpo"
# A service account's access token as the metadata server and `gcloud auth print-access-token`
# print it: `ya29.c.` then the token.
_SA_TOKEN = "ya29.c.c0ASRK0GZq7hXw2Lr9TbN4vYk1Jm8Pd3Fs6Hu0Ec5Wa2Qn7Tz"+"Kb4Mg9Rj1Vp6Yd3Lf8Sh"


def test_aws_configure_get_with_its_profile_prints_the_secret_below() -> None:
    text = f"$ aws configure get aws_secret_access_key --profile prod\n{_AWS_SECRET}\nregion = us-east-1\n"
    out = mask(text).text
    assert out == "$ aws configure get aws_secret_access_key --profile prod\n<SECRET:aws-secret-key-1>\nregion = us-east-1\n", out


def test_aws_configure_get_of_a_setting_keeps_its_value() -> None:
    text = "$ aws configure get region --profile prod\nus-west-2\n"
    assert mask(text).text == text


def test_a_service_accounts_access_token_is_masked_whole() -> None:
    text = f"$ gcloud auth print-access-token\n{_SA_TOKEN}\ncurl -H 'Authorization: Bearer {_SA_TOKEN}' https://storage.googleapis.com/x\n"
    out = mask(text).text
    assert "c0ASRK0G" not in out and "Sh\n" not in out, out
    assert out.splitlines()[1] == "<SECRET:google-oauth-token-1>", out


def _wrap(line: str, width: int) -> str:
    return "\n".join(line[i : i + width] for i in range(0, len(line), width))


def _service_account_line() -> tuple[str, str]:
    """A service-account JSON on one line, as `print(json.dumps(info))` leaves it; its key's
    letters (`\\n`-escaped, 64 to a line as openssl writes PKCS#8)."""
    body = base64.b64encode(bytes([0x30, 0x82]) + bytes((i * 37 + 11) % 256 for i in range(1190))).decode()
    escaped = "\\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    key = "-----BEGIN PRIVATE KEY-----\\n" + escaped + "\\n-----END PRIVATE KEY-----\\n"
    line = json.dumps({"type": "service_account", "project_id": "vexkal-482913", "private_key_id": "a" * 8 + "3f9c" * 8,
                       "private_key": "@KEY@"}).replace("@KEY@", key)
    return line, escaped


def test_a_service_account_key_cut_through_its_begin_marker_goes_whole() -> None:
    # The width falls inside `-----BEGIN PRIVATE KEY-----`: the marker is read across the cut.
    line, escaped = _service_account_line()
    start = line.index("-----BEGIN")
    widths = [w for w in range(60, 201) if any(start < c < start + 27 for c in range(w, len(line), w))]
    assert len(widths) > 20
    for width in widths:
        out = mask(_wrap(line, width) + "\n").text
        leaked = [run for run in re.findall(r"[A-Za-z0-9+/=]{4,}", out.replace("\\n", " ")) if run in escaped]
        assert not leaked, (width, leaked[:3])
        assert "<SECRET:private-key-1>" in out, width


def test_a_line_ending_in_dashes_above_words_is_kept() -> None:
    text = "---------------------------------------------\nBEGIN epoch 3 of 10\nEND epoch 3\n"
    assert mask(text).text == text


_CREDENTIALS_FILE = (
    "[default]\naws_access_key_id = AKIAL36OS5VYTRWKEBI2\n"
    "aws_secret_access_key = 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\nregion = us-east-1\n"
)


def test_a_credentials_file_through_base64_is_masked_whole() -> None:
    # `base64 creds.txt` wraps at 76 columns; the last line is shorter.
    blob = base64.b64encode(_CREDENTIALS_FILE.encode()).decode()
    lines = [blob[i : i + 76] for i in range(0, len(blob), 76)]
    text = "$ base64 creds.txt\n" + "\n".join(lines) + "\nStep 1200 | loss 2.3769\n"
    out = mask(text).text
    assert out == "$ base64 creds.txt\n<SECRET:encoded-credentials-1>\n" + "\n" * (len(lines) - 1) + "Step 1200 | loss 2.3769\n", out
    # On one line (`base64 -w 0`), or as a value no key names a secret.
    assert mask(f"CONFIG={blob}\n").text == "CONFIG=<SECRET:encoded-credentials-1>\n"


def test_base64_that_is_not_a_credential_stays() -> None:
    tensor = base64.b64encode(bytes((i * 53 + 7) % 256 for i in range(96))).decode()
    notes = base64.b64encode(b"epoch 3: loss 2.31, eval accuracy 0.812, saved to /ckpt/step_1200\n").decode()
    text = f'  "data": "{tensor}", "dtype": "float32"\n{notes}\ncommit 249548cacf9a88cb0cbd31426fe472bdfc1f8fcc\n'
    assert mask(text).text == text


def test_a_json_pair_url_encoded_into_a_query_masks_its_value() -> None:
    text = "GET /callback?state=%7B%22wandb_key%22%3A%20%229248ffd894aaa07da9c8a1d4e01c06b4621e9d35%22%2C%20%22seed%22%3A%2042%7D HTTP/1.1\n"
    out = mask(text).text
    assert out == "GET /callback?state=%7B%22wandb_key%22%3A%20%22<SECRET:wandb-key-1>%22%2C%20%22seed%22%3A%2042%7D HTTP/1.1\n", out
    kept = "GET /callback?state=%7B%22token_type%22%3A%20%22bearer%22%2C%20%22seed%22%3A%2042%7D HTTP/1.1\n"
    assert mask(kept).text == kept


def test_basic_auth_cut_right_after_its_scheme_masks_the_credential_below() -> None:
    # requests' headers in an error, wrapped by the terminal right after `'Basic`.
    text = "request headers: {'Connection': 'keep-alive', 'Authorization': 'Basic\n bWxvcHM6QjFkNmEhMFhSR3RrME96aTZTdSV1dzU='}\n"
    out = mask(text).text
    assert out == "request headers: {'Connection': 'keep-alive', 'Authorization': 'Basic\n <SECRET:basic-auth-1>'}\n", out


def test_a_token_right_after_a_json_escaped_line_break_is_masked() -> None:
    # A command's output captured into one JSON log record: the token opens an escaped line.
    text = '{"level": "DEBUG", "stdout": "$ gcloud auth print-access-token\\nya29.a0AfB_byDrKaCCdOpvhjptEEAcItxRqAatseVVCSgL"}\n'
    out = mask(text).text
    assert out == '{"level": "DEBUG", "stdout": "$ gcloud auth print-access-token\\n<SECRET:google-oauth-token-1>"}\n', out
    # A token that runs on from a word stays a word's tail.
    assert mask("see nhf_DrKaCCdOpvhjptEEAcItxRqAatseVVCSgL\n").text == "see nhf_DrKaCCdOpvhjptEEAcItxRqAatseVVCSgL\n"


def test_an_env_dump_in_one_json_string_keeps_the_settings_after_a_secret() -> None:
    text = '{"stdout": "HF_TOKEN=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\\nCUDA_VISIBLE_DEVICES=0,1\\nNCCL_DEBUG=INFO\\nDB_PASSWORD=Zelr8348x\\nPATH=/usr/bin"}\n'
    out = mask(text).text
    assert out == (
        '{"stdout": "HF_TOKEN=<SECRET:hf-token-1>\\nCUDA_VISIBLE_DEVICES=0,1\\nNCCL_DEBUG=INFO'
        '\\nDB_PASSWORD=<SECRET:password-1>\\nPATH=/usr/bin"}\n'
    ), out


_HF_LETTERS = "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"  # `hf_` and 34 letters, no digit


def test_a_fixed_length_tokens_last_letters_cut_onto_the_next_line_go_too() -> None:
    # Cut so its last few letters (no digit among them) sit alone below: a Hugging Face token
    # is always 37 characters, so the letters it lacks on the first line are its own.
    for cut in range(1, 8):
        head, tail = _HF_LETTERS[:-cut], _HF_LETTERS[-cut:]
        out = mask(f"step 10 loss 2.1\nHF_TOKEN={head}\n{tail}\nstep 11 loss 2.0\n").text
        assert out == "step 10 loss 2.1\nHF_TOKEN=<SECRET:hf-token-1>\n\nstep 11 loss 2.0\n", (cut, out)
        out = mask(f'  "hf_token": "{head}\n{tail}",\n').text
        assert out == '  "hf_token": "<SECRET:hf-token-1>\n",\n', (cut, out)


def test_a_word_under_a_whole_token_stays() -> None:
    # The token is whole on its line: the word below is the log's own.
    text = f"HF_TOKEN={_HF_LETTERS}\nKilled\ndone\n"
    assert mask(text).text == "HF_TOKEN=<SECRET:hf-token-1>\nKilled\ndone\n"


def test_a_db_url_cut_inside_its_password_is_masked_on_both_lines() -> None:
    # The width falls inside the password: the `@` that makes it userinfo is on the next line.
    line = "DATABASE_URL=postgresql://svc_train:131201f60071d3c12bec0dbb01cd9299@db-7.acme.internal:5432/runs"
    start = line.index("131201")
    for cut in range(start + 1, start + 32):
        out = mask(f"step 1\n{line[:cut]}\n{line[cut:]}\nstep 2\n").text
        password = "131201f60071d3c12bec0dbb01cd9299"
        assert "svc_train" not in out and not any(password[i : i + 4] in out for i in range(len(password) - 3)), (cut, out)
        assert out.startswith("step 1\nDATABASE_URL=postgresql://<USER-1>:<SECRET:password-1>\n"), (cut, out)
        assert out.endswith(":5432/runs\nstep 2\n"), (cut, out)


def test_a_line_ending_in_a_url_and_a_colon_stays() -> None:
    text = "see https://docs.python.org/3/library/urllib.html: and the\nnote@ here\n"
    assert mask(text).text == text
