"""Credentials and over-masks from the credentials round 29, as the real tools print them.

configparser's `set(section, option, value)` (the key is the second argument), a Google OAuth
refresh token standing alone, S3's SignatureDoesNotMatch body (its `SignatureProvided`, and the
canonical request's hex bytes when they spell a session token), Slack's `xoxd-` session cookie
as slackdump-style tools export it, an exception class named for a key with its message, and
the pod-name prefix `argo logs` puts on each line. All values are synthetic, shaped as the real ones.
"""

from __future__ import annotations

from tests.masking.test_credentials_blind27 import _masked  # masked, each value gone, lines kept
from tests.masking.test_round12 import _mask_log  # learned whole first, then masked

_OPAQUE = "Zq8vT3kLmN2pR7sW9xY4bC6dF1gH5jK0aE3iO8uQ"
_AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY00"
# Google refresh tokens: `1//0` and about a hundred base64url characters.
_REFRESH = "1//0gFakeRefreshTokenAbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz012345678"
_XOXD_ENCODED = "xoxd-fAkEsEsSiOn%2BcOoKiEvAlUe%2FAbCdEfGhIjKlMn0123456789%3D"
_XOXD_DECODED = "xoxd-fAkEsEsSiOn+cOoKiEvAlUe/AbCdEfGhIjKlMn0123456789="
_SIGNATURE = "e8840b94be41f1ba8cfe8d915c293903d3332834055cbc2dc600c197252e87bc"
_STRING_TO_SIGN_HASH = "8b1e07b140147c77ec722fd60085afc9dc9da050696f6a0dde05092dbbb33c33"


def test_configparser_set_masks_the_third_argument_under_the_key_in_the_second() -> None:
    text = (
        "config = configparser.ConfigParser()\n"
        f"config.set('wandb', 'api_key', '{_OPAQUE}')\n"
        f'parser.set("default", "aws_secret_access_key", "{_AWS_SECRET}")\n'
    )
    out = _masked(text, _OPAQUE, _AWS_SECRET)
    # The section and the key are diagnostic facts and stay.
    assert "config.set('wandb', 'api_key', '<SECRET:" in out, out
    assert 'parser.set("default", "aws_secret_access_key", "<SECRET:' in out, out


def test_spark_conf_set_with_two_arguments_still_masks_the_second() -> None:
    out = _masked(f'spark.conf.set("fs.s3a.secret.key", "{_AWS_SECRET}")\n', _AWS_SECRET)
    assert 'spark.conf.set("fs.s3a.secret.key", "<SECRET:' in out, out


def test_a_bare_google_refresh_token_is_masked() -> None:
    text = f"$ cat token.txt\n{_REFRESH}\nexport GOOGLE_REFRESH={_REFRESH}\n"
    out = _masked(text, _REFRESH, _REFRESH[4:40])
    assert "<SECRET:google-oauth-token-1>" in out and "export GOOGLE_REFRESH=" in out, out


def test_s3_signature_mismatch_body_masks_the_signature_and_keeps_the_string_to_sign() -> None:
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not "
        "match the signature you provided. Check your key and signing method.</Message>"
        "<AWSAccessKeyId>AKIAIOSFODNN7EXAMPLE</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256\n"
        "20190814T102134Z\n20190814/ap-northeast-2/s3/aws4_request\n"
        f"{_STRING_TO_SIGN_HASH}</StringToSign><SignatureProvided>{_SIGNATURE}</SignatureProvided>"
        "<StringToSignBytes>41 57 53 34 2d 48 4d 41 43</StringToSignBytes><RequestId>4442587FB7D0A2F9</RequestId></Error>\n"
    )
    out = _masked(text, _SIGNATURE, "AKIAIOSFODNN7EXAMPLE")
    assert "<SignatureProvided><SECRET:aws-signature-1></SignatureProvided>" in out, out
    assert _STRING_TO_SIGN_HASH in out and "SignatureDoesNotMatch" in out, out
    assert "<StringToSignBytes>41 57 53 34 2d 48 4d 41 43</StringToSignBytes>" in out, out


def test_s3_canonical_request_bytes_spelling_a_session_token_are_masked() -> None:
    canonical = "GET\n/\nX-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEFAKEFAKE\nhost:s3.amazonaws.com"
    spelled = canonical.encode().hex(" ")
    plain = b"GET\n/\n\nhost:s3.amazonaws.com\nx-amz-date:20190814T102134Z".hex(" ")
    text = (
        f"<Error><CanonicalRequestBytes>{spelled}</CanonicalRequestBytes></Error>\n"
        f"<Error><CanonicalRequestBytes>{plain}</CanonicalRequestBytes></Error>\n"
    )
    out = _masked(text, spelled)
    assert plain in out, out


def test_slack_d_cookie_is_masked_url_encoded_and_decoded() -> None:
    text = f"SLACK_COOKIE={_XOXD_ENCODED}\nd cookie: {_XOXD_DECODED}\n"
    out = _masked(text, _XOXD_ENCODED, _XOXD_DECODED, "fAkEsEsSiOn")
    assert "SLACK_COOKIE=<SECRET:" in out, out


def test_an_exception_class_named_for_a_key_keeps_its_message() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/app/serve.py", line 12, in <module>\n'
        "replicate.exceptions.InvalidAPIKey: The API key provided is invalid.\n"
        "InvalidAPIKey: The API key provided is invalid\n"
    )
    out = _masked(text)
    assert out == text, out


def test_a_camel_case_key_with_a_value_is_still_masked() -> None:
    _masked(f"ApiKey: {_OPAQUE}\n", _OPAQUE)


def test_a_camel_case_key_holding_a_passphrase_of_words_is_still_masked() -> None:
    # Only a class whose name says it is an error keeps its message: a key may hold words.
    out = _masked("DbPassword: Correct horse battery staple\nSecretKey: Blue whale jumps high\n", "horse battery", "whale jumps")
    assert "DbPassword: <SECRET:password-" in out and "SecretKey: <SECRET:" in out, out


def test_argo_logs_pod_prefixes_are_kept() -> None:
    text = (
        "llm-sft-x7k2p-1234567: Traceback (most recent call last):\n"
        "llm-sft-x7k2p-1234567: torch.OutOfMemoryError: CUDA out of memory.\n"
        "llm-sft-x7k2p-train-3954717052: Killed\n"
        "llm-sft-x7k2p-train-3954717052: exit status 137\n"
    )
    # As `denpex mask` reads a log: the masker learns labels from the whole log first.
    assert _mask_log(text) == text


# A Slack bot token: `xoxb-`, two numbers, 24 letters (here cut to 20 by whoever pasted it).
_XOXB_SHORT = "xoxb-2345678901234-3456789012345-aB3dE5fG7hJ9kL1mN3pQ"


def test_a_lower_case_word_under_a_token_line_is_no_wrapped_tail() -> None:
    # `bkua` would fill the token's last part to 24 letters, but the line above was not cut
    # at a terminal's width and four random letters are rarely all lower case: a word.
    text = f"SLACK_BOT_TOKEN={_XOXB_SHORT}\nbkua\nstep 11 loss 2.0\n"
    out = _masked(text, _XOXB_SHORT)
    assert out == "SLACK_BOT_TOKEN=<SECRET:slack-token-1>\nbkua\nstep 11 loss 2.0\n", out


def test_a_token_cut_at_a_terminals_width_still_takes_its_lower_case_tail() -> None:
    token = _XOXB_SHORT + "bkua"
    line = f"export SLACK_BOT_TOKEN={token}"
    line = " " * (84 - len(line)) + line  # 80 columns with the token's last four letters cut off
    head = line[:80]
    out = _masked(f"{head}\nbkua\nstep 11 loss 2.0\n", token[:-4])
    assert out.endswith("<SECRET:slack-token-1>\n\nstep 11 loss 2.0\n"), out


def test_a_key_quoted_in_an_authentication_error_is_masked_without_a_vendor_prefix() -> None:
    key = "Tq9fZx2LmWv7RpKs8NcB3hYd"
    text = (
        f"Could not authenticate with key '{key}'\n"
        f"ValueError: Invalid API key: '{key}'\n"
        f"openai.error.AuthenticationError: Incorrect API key provided: {key}. You can find your API key at "
        "https://platform.openai.com/account/api-keys.\n"
    )
    out = _masked(text, key)
    assert "Could not authenticate with key '<SECRET:" in out and "ValueError: Invalid API key: '<SECRET:" in out, out
    assert "https://platform.openai.com/account/api-keys." in out, out
