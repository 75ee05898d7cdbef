"""Credentials from the credentials round 38: container JSON log lines a terminal wrapped at 80.

`docker logs`/`kubectl logs` of the json-file driver print each entry as
`{"log": "...\\n", "stream": "stdout", "time": "..."}`; pasted from an 80-column terminal, the
line is cut inside the value, and the value's last piece is followed by the entry's escaped
newline (`\\n"`) or by an escaped closing quote (`\\"}\\n"`) when the logged text was JSON itself.
Values are synthetic, shaped as the real ones (built here, so no scanner flags the repository).
"""

from __future__ import annotations

import json

from bot.masking import mask

# Azure storage account keys: 86 base64 characters and `==`.
_AZURE_KEY = "ScbM391LlyCOgHgpueBziplqjY4313OwfHITWoKoe+xsLmGOqpTToo0UCDxNJQXOEVxVxfSjHfV+SONBh24iPq" + "=="
# NVIDIA API keys: `nvapi-` and 64 base64url characters (this one's last 11 hold no digit).
_NVAPI = "nv" + "api-" + "IpveAJXP1UDmDsIqLbqecEuAhbGHt7lvHAUHN49DIo91bYSOY3xH5" + "dxeOXSiMNBb"
_AWS_SECRET = "U9K8zCu2gxI6CNpJW+49m0v2X0bsNQgYHKhEi8es"
_WANDB_LOCAL = "local-" + "3f9a0c1e7b2d4a6f8e0c2b4d6f8a0c1e3b5d7f9a"


def _wrap80(line: str) -> str:
    return "\n".join(line[i : i + 80] for i in range(0, len(line), 80))


def _pieces(value: str, text: str) -> list[str]:
    """The pieces of `value` each wrapped line holds (six letters or more)."""
    out = []
    for line in text.split("\n"):
        for size in range(len(line), 5, -1):
            found = next((line[i : i + size] for i in range(len(line) - size + 1) if line[i : i + size] in value), None)
            if found:
                out.append(found)
                break
    return out


def _masked_wrapped(line: str, value: str) -> str:
    text = _wrap80(line) + "\nKilled\n"
    pieces = _pieces(value, text)
    assert len(pieces) >= 2, pieces  # the value is cut across lines
    out = mask(text).text
    for piece in pieces:
        assert piece not in out, (piece, out)
    assert len(out.splitlines()) == len(text.splitlines()), out
    return out


def _entry(log: str, stream: str = "stdout") -> str:
    return json.dumps({"log": log + "\n", "stream": stream, "time": "2024-05-14T10:22:31.118522Z"})


def test_padded_base64_tail_before_the_entrys_escaped_newline_is_masked() -> None:
    out = _masked_wrapped(_entry("ACCOUNT_KEY=" + _AZURE_KEY), _AZURE_KEY)
    assert out.startswith('{"log": "ACCOUNT_KEY=<SECRET:'), out
    # The entry's own fields stay.
    assert '"stream": "stdout"' in out and "Killed" in out, out


def test_fixed_length_key_tail_of_letters_alone_before_the_escaped_newline_is_masked() -> None:
    out = _masked_wrapped(_entry("NGC_API_KEY=" + _NVAPI), _NVAPI)
    assert out.startswith('{"log": "NGC_API_KEY=<SECRET:'), out


def test_escaped_quote_value_cut_by_the_width_is_masked_from_the_same_start() -> None:
    line = "[rank0]: " + _entry('export aws_secret_access_key="' + _AWS_SECRET + '"')
    out = _masked_wrapped(line, _AWS_SECRET)
    # The escaped quotes around the value stay: the key and its quoting are what was logged.
    assert 'aws_secret_access_key=\\"<SECRET:' in out, out


def test_json_logged_inside_the_entry_keeps_its_escaped_quotes_and_masks_the_value() -> None:
    line = "[rank0]: " + _entry(json.dumps({"wandb_api_key": _WANDB_LOCAL}))
    out = _masked_wrapped(line, _WANDB_LOCAL)
    assert '{\\"wandb_api_key\\": \\"<SECRET:' in out, out


def test_a_wrapped_entry_whose_next_line_is_a_word_keeps_the_word() -> None:
    # A message cut at 80 whose rest is words (not a key's letters) is left as it is.
    text = _wrap80(_entry("RuntimeError: NCCL communicator was aborted on rank 3 after ProcessGroupNCCL watchdog")) + "\n"
    out = mask(text).text
    assert "RuntimeError: NCCL communicator was aborted on rank 3" in out, out
    assert "watchdog" in out, out
