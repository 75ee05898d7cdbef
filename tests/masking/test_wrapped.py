"""Secrets spread over lines: values a terminal wrapped (and lines that only look like the rest
of one), private keys relayed behind pdsh's prefixes.

A blind corpus of credentials in training logs (keys under env names, JWTs, AWS session
tokens) pasted from a terminal found the head of a wrapped value masked under its key and
its tail left on the lines below (bot/masking/wrapped.py), and a key `cat` through pdsh
masked on its BEGIN line only. (Not rows of test_masking's tables: the family tests put a
launcher's prefix on every line of a row, which is neither shape.)
"""

from __future__ import annotations

from bot.masking import mask

# Synthetic, shaped as the real ones: a JWT (header.payload.signature, base64url).
_JWT = (
    "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik5xYjdLZDJ4UW1aVDRwV3M5dkxjIn0."
    "eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6bWw6dHJhaW5lciIsImV4cCI6MTc2NzIyNTYwMH0."
    "Zk3mQ8vR2tW7yB1nC4xL6pD9sF0gH5jK8aE3uI7oP2qT4wY6zX1vN9mB5cR8kL0dS3fG7hJ2aQ4wE6rT8yU1iO3pA5sD7fG9h"
)


def _wrap(line: str, width: int) -> str:
    return "\n".join(line[i : i + width] for i in range(0, len(line), width))


def test_a_value_wrapped_twice_at_any_width_is_masked_whole() -> None:
    text = _wrap("[rank0]: MLFLOW_TRACKING_TOKEN=" + _JWT, 97) + "\n[rank0]: mlflow.exceptions.RestException: UNAUTHENTICATED\n"
    out = mask(text).text
    lines = out.split("\n")
    assert lines[0] == "[rank0]: MLFLOW_TRACKING_TOKEN=<SECRET:jwt-1>", out
    assert lines[1:3] == ["", ""], out  # the tail's lines stay, blank: no line moves
    assert lines[3] == "[rank0]: mlflow.exceptions.RestException: UNAUTHENTICATED", out
    assert out.count("\n") == text.count("\n")
    assert mask(out).text == out


def test_a_key_wrapped_once_at_80_columns_is_masked_whole() -> None:
    key = "sk-proj-Qw3eR5tY7uI9oP1aS3dF5gH7jK9lZ1xC3vB5nM7qW9eR1tY3uI5oP7aS9dF1gH3jK5lZ7xC9vB1nM3T3BlbkFJ"
    line = "[rank0]: OPENAI_API_KEY=" + key
    text = _wrap(line, 80) + "\n[rank0]: openai.AuthenticationError: Error code: 401\n"
    out = mask(text).text
    assert out == "[rank0]: OPENAI_API_KEY=<SECRET:openai-key-1>\n\n[rank0]: openai.AuthenticationError: Error code: 401\n", out


def test_a_private_key_behind_pdsh_prefixes_is_masked_whole() -> None:
    body = ["MIIEowIBAAKCAQEAq7Zt1pXc8bN4rT6yU2iO5pL7aS3dFgH9jK1lZ3xC5vB7nM9qW", "Vd0Wm9hQk3Zt1pXc8bN4rT6yU2iO5pL7aS3dFgAAAJgq3vXzKt71Qy0wTyqW8eR2"]
    text = (
        "node-a7: -----BEGIN RSA PRIVATE KEY-----\n"
        f"node-a7: {body[0]}\nnode-a2: {body[1]}\n"
        "node-a7: -----END RSA PRIVATE KEY-----\nnode-a7: Permission denied (publickey).\n"
    )
    out = mask(text).text
    assert out == (
        "node-a7: -----BEGIN RSA PRIVATE KEY-----\nnode-a7: <SECRET:private-key-1>\n\n"
        "node-a7: -----END RSA PRIVATE KEY-----\nnode-a7: Permission denied (publickey).\n"
    ), out
    assert mask(out).text == out


def test_a_setting_below_a_key_is_no_part_of_it() -> None:
    # A 48-character line, a line of token letters below it: two env lines, not one wrapped.
    text = "MISTRAL_API_KEY=yF611wyqZv9L3aSdyoiQ0IpCMaRIWQ3c\nTOKENIZERS_PARALLELISM=false\nNCCL_DEBUG=INFO\n"
    assert mask(text).text == "MISTRAL_API_KEY=<SECRET:api-key-1>\nTOKENIZERS_PARALLELISM=false\nNCCL_DEBUG=INFO\n"


def test_an_exception_name_below_an_80_column_key_line_stays() -> None:
    line = "+ export ANTHROPIC_API_KEY=sk-ant-api03-u1bZMakAjpJ867D-KLe2f2zOEactHU7dlUHQum1C"
    assert len(line) == 80
    text = line + "\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError\n"
    out = mask(text).text
    assert out.endswith("\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError\n"), out
