"""Credentials in shapes a blind corpus of training logs found leaking or over-masked.

- A private key's BEGIN/END label was replaced with the key, so the reply no longer said which
  key (`OPENSSH PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`) failed: the markers stay now, the body
  goes (bot/masking/blocks.py). A legacy encrypted key (`Proc-Type:` headers) was not masked
  at all: its header read as a launcher's prefix.
- A value wrapped from column 0 (`AWS_SESSION_TOKEN=...` cut at the window's width, a JWT
  `cat` from a file) kept its tail; a value that broke at its own width (base64 at 64) after
  a longer first line kept its tail; a number printed under an exactly 80-column key line was
  swallowed into the key (bot/masking/wrapped.py).
- kubeconfig's `client-key-data:` (bot/masking/keys.py), labelled licence and evaluation codes
  (bot/masking/prose.py), the SigV4 scheme name kept (bot/masking/pairs.py).
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from bot.masking import Masker, mask
from tests.masking.test_wrapped import _JWT, _wrap

_BODY = [
    "b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABBk",
    "Qm7vX2pLr9TnB4kZw8JcYdH3fN8qWzL1xVt6RpK9mBcSq8ZpT3vB7nR1mW4sY6dX",
    "k29fLhJ2aQ4wE6rT8yU1iO3pA5sD7fG9hJ2kL4mN6pQ8rS0tU2vW4xY6zA8bC0d==",
]
# An STS session token's shape: base64 of a protobuf that begins `IQoJb3JpZ2lu`.
_SESSION = (
    "IQoJb3JpZ2luX2VjEF8aCXVzLWVhc3QtMSJHMEUCIQDx7Qm2pLr9TnB4kZw8JcYdH3fN8qWzL1xVt6RpK9mBcSq8Zp"
    "T3vB7nR1mW4sY6dXk29fLhJ2aQ4wE6rT8yU1iO3pA5sD7fG9hJ2kL4mN6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hJ6kL8m"
    "N0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hJ0kL2mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2h"
)


@pytest.mark.parametrize("label", ["RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PRIVATE KEY"])
def test_a_private_key_keeps_its_label_and_loses_its_body(label: str) -> None:
    text = f"ssh_key:\n  -----BEGIN {label}-----\n" + "".join(f"  {b}\n" for b in _BODY) + f"  -----END {label}-----\nPermission denied (publickey).\n"
    out = mask(text).text
    assert out == (
        f"ssh_key:\n  -----BEGIN {label}-----\n  <SECRET:private-key-1>\n\n\n  -----END {label}-----\nPermission denied (publickey).\n"
    ), out
    assert mask(out).text == out


def test_an_escaped_service_account_key_keeps_its_label() -> None:
    text = '{"private_key_id": "7ec897c6aab7b5a4518252880316b8cc7741844b", "private_key": "-----BEGIN PRIVATE KEY-----\\n' + "\\n".join(_BODY) + '\\n-----END PRIVATE KEY-----\\n"}'
    out = mask(text).text
    assert '"private_key": "-----BEGIN PRIVATE KEY-----\\n<SECRET:private-key-1>\\n-----END PRIVATE KEY-----\\n"' in out, out
    assert not any(b[:12] in out for b in _BODY), out


def test_a_legacy_encrypted_key_keeps_its_headers_and_loses_its_body() -> None:
    # OpenSSL's traditional encrypted form: the RFC 1421 headers' `Proc-Type: 4,ENCRYPTED` read
    # as a launcher's prefix, so the block stopped at once and its whole body stayed.
    text = (
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,9F3A1B2C4D5E6F708192A3B4C5D6E7F8\n\n"
        + "\n".join(_BODY)
        + "\n-----END RSA PRIVATE KEY-----\nbad decrypt\n"
    )
    out = mask(text).text
    assert out == (
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,9F3A1B2C4D5E6F708192A3B4C5D6E7F8\n\n"
        "<SECRET:private-key-1>\n\n\n-----END RSA PRIVATE KEY-----\nbad decrypt\n"
    ), out


@pytest.mark.parametrize("width", [64, 76, 80])
def test_a_value_wrapped_from_column_zero_is_masked_whole(width: int) -> None:
    text = _wrap("AWS_SESSION_TOKEN=" + _SESSION, width) + "\nbotocore.exceptions.ClientError: ExpiredToken\n"
    out = mask(text).text
    assert out.startswith("AWS_SESSION_TOKEN=<SECRET:aws-session-token-1>\n"), out
    assert _SESSION[-30:-20] not in out and _SESSION[100:110] not in out, out
    assert out.endswith("\nbotocore.exceptions.ClientError: ExpiredToken\n") and out.count("\n") == text.count("\n")


def test_a_bare_token_cat_from_a_file_and_wrapped_is_masked_whole() -> None:
    text = "$ cat /var/run/secrets/kubernetes.io/serviceaccount/token\n" + _wrap(_JWT, 76) + "\nerror: Unauthorized\n"
    out = mask(text).text
    assert out.split("\n")[1] == "<SECRET:jwt-1>", out
    assert _JWT[-20:] not in out and _JWT[90:110] not in out, out


def test_a_value_broken_at_its_own_width_after_a_wider_key_line_is_masked_whole() -> None:
    # The key and 64 letters on the first line, then the value's own 64-column lines.
    text = "AWS_SESSION_TOKEN=" + _wrap(_SESSION, 64) + "\nstep 10 loss 2.31\n"
    out = mask(text).text
    assert out == "AWS_SESSION_TOKEN=<SECRET:aws-session-token-1>\n\n\n\nstep 10 loss 2.31\n", out


@pytest.mark.parametrize("below", ["0.5123", "12345", "100%", "1e-05", "v2.3.1", "step_1200", "epoch-3"])
def test_a_number_under_an_80_column_key_line_stays(below: str) -> None:
    line = "[rank0]: SECRET_TOKEN=Zq8pT3vB7nR1mW4sY6dXk29fLhJ2aQ4wE6rT8yU1iO3pA5sD7fG9hJ2kL4"
    assert len(line) == 80
    out = mask(f"{line}\n{below}\nValueError: bad value\n").text
    assert out == f"[rank0]: SECRET_TOKEN=<SECRET:token-1>\n{below}\nValueError: bad value\n", out


def test_a_key_wrapped_once_at_80_columns_still_takes_its_random_tail() -> None:
    line = "[rank0]: SECRET_TOKEN=Zq8pT3vB7nR1mW4sY6dXk29fLhJ2aQ4wE6rT8yU1iO3pA5sD7fG9hJ2kL4"
    out = mask(f"{line}\naB3dE5fG7h\nValueError: bad value\n").text
    assert out == "[rank0]: SECRET_TOKEN=<SECRET:token-1>\n\nValueError: bad value\n", out


def test_a_kubeconfig_client_key_is_masked_and_its_certificates_stay() -> None:
    ca = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcwQkFRc0ZBREFWTVJNd0VRWURWUVFERXdwcmRXSmwK"
    key = "Qm7vX2pLr9TnB4kZw8JcYdH3fN8qWzL1xVt6RpK9mBcSq8ZpT3vB7nR1mW4sY6dXk29fLhJ2aQ4wE6rT8yU1iO3pA5sD7fG9hJ2kL4mN6pQ8rS0tU2vW4xY6zA8bC0d=="
    text = f"clusters:\n- cluster:\n    certificate-authority-data: {ca}\nusers:\n- name: trainer\n  user:\n    client-key-data: {key}\n"
    out = mask(text).text
    assert f"certificate-authority-data: {ca}\n" in out, out
    assert "    client-key-data: <SECRET:private-key-1>\n" in out, out


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("evaluation code: A44DLW7HJH2G", "A44DLW7HJH2G"),
        ("Activation code = XK92-PQ7Z-LL01", "XK92-PQ7Z-LL01"),
        ("the licence code is 7KQ2M9XJ4H", "7KQ2M9XJ4H"),
        ("Backup code 83920174", "83920174"),
    ],
)
def test_a_labelled_code_is_masked(line: str, value: str) -> None:
    out = mask(line + "\n").text
    assert value not in out and "<SECRET:access-code-1>" in out, out


@pytest.mark.parametrize("line", ["exit code: 1", "access code expired", "evaluation code: gpt4o-mini", "error code 0x1F", "verification code 2024"])
def test_words_and_small_numbers_after_code_stay(line: str) -> None:
    assert mask(line + "\n").text == line + "\n"


def test_the_sigv4_scheme_name_stays_and_its_parts_go() -> None:
    sig = "c0a09cfce14db0699202bd90872129b6f237adc0cc56aca3b736998252d572dd"
    text = f"Authorization: AWS4-HMAC-SHA256 Credential=AKIAQ3EGRT5YBZ7XKW2M/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature={sig}\n"
    out = mask(text).text
    assert out.startswith("Authorization: AWS4-HMAC-SHA256 Credential=<SECRET:"), out
    assert "AKIAQ3EGRT5YBZ7XKW2M" not in out and sig not in out, out


def test_a_key_across_pieces_keeps_both_markers() -> None:
    masker = Masker()
    parts = ["-----BEGIN EC PRIVATE KEY-----\n" + _BODY[0] + "\n", _BODY[1] + "\n-----END EC PRIVATE KEY-----\nok\n"]
    out = [masker.mask(p) for p in parts]
    assert out == ["-----BEGIN EC PRIVATE KEY-----\n<SECRET:private-key-1>\n", "\n-----END EC PRIVATE KEY-----\nok\n"], out


def test_a_pgp_private_key_with_armor_headers_is_masked() -> None:
    # `gpg --armor --export-secret-keys` writes a `Version:` header first (older GnuPG): the
    # block stopped at it and its whole body stayed.
    body = ["lQOYBGWx3pABCAC7Zt1pXc8bN4rT6yU2iO5pL7aS3dFgH9jK1lZ3xC5vB7nM9qWVd0W", "m9hQk3Zt1pXc8bN4rT6yU2iO5pL7aS3dFgAAAJgq3vXzKt71Qy0wTyqW8eR2aB3dE5", "=Xk2q"]
    text = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n" + "\n".join(body) + "\n-----END PGP PRIVATE KEY BLOCK-----\n"
    out = mask(text).text
    assert out == "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n<SECRET:private-key-1>\n\n\n-----END PGP PRIVATE KEY BLOCK-----\n", out


@pytest.mark.parametrize("log", [
    "requirepass Zq8vLm2pXw91\n",                                  # redis.conf
    "masterauth Zq8vLm2pXw91\n",
    "redis-server --requirepass Zq8vLm2pXw91 --port 6380\n",
    '127.0.0.1:6379> CONFIG SET requirepass "Zq8vLm2pXw91"\nOK\n',
    '127.0.0.1:6379> CONFIG GET requirepass\n1) "requirepass"\n2) "Zq8vLm2pXw91"\n',
], ids=["conf", "masterauth", "server-flag", "config-set", "config-get-reply"])
def test_redis_password_directives_are_passwords(log: str) -> None:
    """Redis names its password `requirepass` (and a replica's `masterauth`), which no password
    word reads; redis-cli prints CONFIG GET's value alone on the next line."""
    out = mask(log).text
    assert "Zq8vLm2pXw91" not in out and "<SECRET:password-1>" in out
    assert "requirepass" in out or "masterauth" in out


def test_a_commented_out_redis_directive_stays() -> None:
    """redis.conf ships `# requirepass foobared` as documentation: prose, not a password."""
    text = "# requirepass foobared\n"
    assert mask(text).text == text
