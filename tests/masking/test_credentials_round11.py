"""Round 11 (credentials on logs never seen): what a seeded corpus of ML-engineer logs with
planted, well-formed fake credentials still leaked or destroyed. Lines are shaped as the tools
print them: `env`/`declare -x` dumps with an empty variable, http.client's `send: b'...'`
debug line carrying a request's headers on one line."""

from __future__ import annotations

from bot.masking import Masker


def _mask_log(text: str) -> str:
    # As `denpex mask` reads a log: learned whole first, then masked.
    masker = Masker()
    masker.learn(text.encode())
    return str(masker.mask(text))


def test_an_empty_secret_variable_does_not_take_the_next_variable_as_its_value() -> None:
    # `env` prints an unset-but-exported variable as `NAME=` alone on its line; the lines below
    # are other variables, whose names and settings are diagnostic.
    log = "AWS_SECRET_ACCESS_KEY=\nWANDB_API_KEY=\napi_key=None\nHF_TOKEN=\nNCCL_DEBUG=INFO\n"
    assert _mask_log(log) == log


def test_a_split_json_secret_is_still_taken_from_the_next_line() -> None:
    log = '{\n  "SecretAccessKey":\n      "Zk3pQ9rT2vX8bN4mL7cW1yH6jD5sA0eGuRoIiKfE"\n}\n'
    out = _mask_log(log)
    assert "Zk3pQ9rT2vX8bN4mL7cW1yH6jD5sA0eGuRoIiKfE" not in out, out
    assert '"SecretAccessKey":' in out, out


def test_a_continued_export_still_masks_the_value_below() -> None:
    log = "export DB_PASSWORD=\\\n  Qm7vRt2xPz9LwK\n"
    assert "Qm7vRt2xPz9LwK" not in _mask_log(log)


def test_http_client_debug_headers_each_keep_their_own_secret() -> None:
    # http.client (`HTTPConnection.debuglevel = 1`) prints the request as one escaped bytes
    # literal: the Host header's value must stop at `\r\n`, or it swallows the API key header.
    key = "47587901b24e85a8a97ceb2d3099f2e1"
    log = (
        "send: b'POST /api/v2/series HTTP/1.1\\r\\nHost: api.datadoghq.com\\r\\n"
        f"DD-API-KEY: {key}\\r\\nContent-Type: application/json\\r\\n\\r\\n'\n"
    )
    out = _mask_log(log)
    assert key not in out, out
    assert "\\r\\nDD-API-KEY: <SECRET:" in out, out
    # The next header is not part of the masked value.
    assert ">\\r\\nContent-Type: application/json\\r\\n" in out, out


def test_an_escaped_header_value_ends_at_the_escaped_line_break() -> None:
    log = "send: b'GET /v1/models HTTP/1.1\\r\\nX-Api-Key: 9f1c2b7d4e8a6f3c0b5d2e7a1c4f8b6d\\r\\nAccept: */*\\r\\n'\n"
    out = _mask_log(log)
    assert "9f1c2b7d4e8a6f3c0b5d2e7a1c4f8b6d" not in out, out
    assert out.endswith(">\\r\\nAccept: */*\\r\\n'\n"), out


def test_a_twilio_auth_token_after_the_account_sid_is_masked() -> None:
    # Twilio's older quickstart passes both positionally; a traceback quotes the line.
    token = "70f0f66c04fdd35574b22c2b9529f6d9"
    for quoted in (f'Client("AC0b0638e6d289ce04365c3970cdcdec88", "{token}")', f"Client('AC0b0638e6d289ce04365c3970cdcdec88','{token}')"):
        log = f'  File "notify.py", line 7, in <module>\n    client = {quoted}\n'
        out = _mask_log(log)
        assert token not in out, out
        assert "<SECRET:twilio-token-1>" in out, out


def test_two_hex_ids_quoted_after_some_other_id_are_kept() -> None:
    # Only a Twilio Account SID (AC + 32 hex) makes the next quoted hex a token.
    log = 'ids = ("BC0b0638e6d289ce04365c3970cdcdec88", "70f0f66c04fdd35574b22c2b9529f6d9")\n'
    assert _mask_log(log) == log


def test_an_ngrok_authtoken_is_masked_in_its_cli_and_colab_forms() -> None:
    token = "2wN8FoCzGqhT2tAoannVHp31mFY_p7ZPVxQF9H5EfiwLBSVh"
    log = (
        f"!ngrok config add-authtoken {token}\n"
        "Authtoken saved to configuration file: /root/.config/ngrok/ngrok.yml\n"
        f"ngrok authtoken {token}\n"
    )
    out = _mask_log(log)
    assert token not in out, out
    assert "Authtoken saved to configuration file: /root/.config/ngrok/ngrok.yml" in out, out


def test_snake_case_names_of_the_ngrok_length_are_kept() -> None:
    log = "2nd_stage_pipeline_parallel_rank_of_the_group_size\n"
    assert _mask_log(log) == log


def test_an_npm_sha512_integrity_hash_is_not_an_azure_storage_key() -> None:
    # Base64 of 64 bytes is 88 characters ending `==`, as a storage account key is.
    sri = "sha512-TNEuS6eId8p6a+xskoMhEaUV9tQteB/odkhnp4IcNvwt1RLIBVuVW9P83u6OSVxrhPS2dzu4dppK4ZxShdp3cw=="
    log = f'npm http fetch GET 200 https://registry.npmjs.org/left-pad 12ms\n    "integrity": "{sri}",\n'
    assert sri in _mask_log(log)


def test_an_azure_storage_key_is_still_masked() -> None:
    key = "TNEuS6eId8p6a+xskoMhEaUV9tQteB/odkhnp4IcNvwt1RLIBVuVW9P83u6OSVxrhPS2dzu4dppK4ZxShdp3cw=="
    log = f"az storage blob upload --account-name mldata01 --account-key {key} -f ckpt.pt\n"
    assert key not in _mask_log(log)


def test_csh_setenv_and_fish_set_x_values_are_masked() -> None:
    # HPC login scripts are often csh (`setenv NAME value`); fish sets with `set -gx NAME value`.
    log = (
        "setenv WANDB_API_KEY 3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a\n"
        "set -gx COMET_API_KEY dBA9g7tiXcqMUTQJH3vIbFbRA\n"
        "set -x DB_PASSWORD Qm7vRt2xPz9LwK\n"
        "set -x WANDB_MODE offline\n"
    )
    out = _mask_log(log)
    for value in ("3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a", "dBA9g7tiXcqMUTQJH3vIbFbRA", "Qm7vRt2xPz9LwK"):
        assert value not in out, out
    assert out.startswith("setenv WANDB_API_KEY <SECRET:"), out
    assert "set -x WANDB_MODE offline\n" in out, out


def test_a_two_column_variable_listing_masks_a_random_value_only() -> None:
    log = (
        "WANDB_MODE\tonline\n"
        "COMET_API_KEY\tdBA9g7tiXcqMUTQJH3vIbFbRC\n"
        "MLFLOW_TRACKING_PASSWORD    Qm7vRt2xPz9LwX\n"
        "TOKENIZERS_PARALLELISM\tfalse\n"
    )
    out = _mask_log(log)
    assert "dBA9g7tiXcqMUTQJH3vIbFbRC" not in out and "Qm7vRt2xPz9LwX" not in out, out
    assert out.startswith("WANDB_MODE\tonline\nCOMET_API_KEY\t<SECRET:"), out


def test_table_rows_and_placeholders_after_a_secret_word_are_kept() -> None:
    log = (
        "TOKEN   TYPE\n"
        "SECRET   Opaque\n"
        "HF_TOKEN    ***\n"
        "AWS_SECRET_ACCESS_KEY   (not set)\n"
        "SECRET_KEY   None\n"
        "      WANDB_API_KEY:  <set to the key 'api-key' in secret 'wandb'>  Optional: false\n"
    )
    assert _mask_log(log) == log
