"""Credentials a fifteenth blind corpus (URL queries, `set -x` traces, CLI logins, tracebacks,
Windows shells) found leaking.

- A secret set by a call that names the variable, then its value: PowerShell's
  `[Environment]::SetEnvironmentVariable("NAME", "value", "User")`, Go's `os.Setenv`, C's
  `setenv`, pytest's `monkeypatch.setenv`, `os.putenv`: only `os.getenv`'s and
  `os.environ.get`'s fallbacks were read as pairs (bot/masking/pairs.py).
- A Hugging Face token (`hf_` and 34 letters) wrapped at a terminal's width: its rest, alone
  on the next line, holds no digit, and only lines with one were read as a key's rest
  (bot/masking/wrapped.py).
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from tests.masking.test_round12 import _mask_log as _mask  # learned whole first, then masked

_OPAQUE = "Tq4vZ8mR1xKc0WbN7pYs3LdH6jFa2UeG"  # 32 letters and digits, no vendor prefix


@pytest.mark.parametrize(
    "line",
    [
        f'PS C:\\work> [Environment]::SetEnvironmentVariable("QDRANT_API_KEY", "{_OPAQUE}", "User")',
        f'PS C:\\work> [System.Environment]::SetEnvironmentVariable(\'COHERE_TOKEN\', \'{_OPAQUE}\', \'Machine\')',
        f'    os.Setenv("LANGSMITH_API_KEY", "{_OPAQUE}")',
        f'  setenv("MODEL_REGISTRY_SECRET", "{_OPAQUE}", 1);',
        f'    monkeypatch.setenv("PINECONE_API_KEY", "{_OPAQUE}")',
        f'    os.putenv("SERVICE_AUTH_TOKEN", "{_OPAQUE}")',
    ],
)
def test_a_secret_set_by_an_env_call_is_masked_and_its_name_kept(line: str) -> None:
    out = _mask(line + "\n")
    assert _OPAQUE not in out
    assert "<SECRET:" in out
    name = line.split("(", 1)[1].split(",", 1)[0].strip("\"' ")
    assert name in out


@pytest.mark.parametrize(
    "line",
    [
        'PS C:\\work> [Environment]::SetEnvironmentVariable("CUDA_VISIBLE_DEVICES", "0,1,2,3", "User")',
        '    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")',
        '    os.Setenv("NCCL_SOCKET_IFNAME", "ens5f0")',
        '    monkeypatch.setenv("HF_HUB_ENABLE_HF_TRANSFER", "1")',
    ],
)
def test_a_setting_set_by_an_env_call_is_kept(line: str) -> None:
    assert _mask(line + "\n") == line + "\n"


# A Hugging Face token is `hf_` and 34 letters, no digit: the rest of one a terminal wrapped
# holds none either (synthetic, in the real format).
_HF = "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"
assert len(_HF) == 37


def _wrap(line: str, width: int) -> str:
    return "\n".join(line[i : i + width] for i in range(0, len(line), width))


def test_a_letters_only_token_wrapped_at_80_columns_is_masked_whole() -> None:
    head = "2025-06-01 12:00:03 INFO accelerate.utils: pushing with HF_TOKEN="
    cut = 80 - len(head)
    text = _wrap(head + _HF, 80) + "\nhuggingface_hub.errors.HfHubHTTPError: 401 Client Error\n"
    assert len(_HF) - cut >= 8  # the rest is on the next line, long enough to be a leak
    out = _mask(text)
    assert _HF[cut:] not in out, out
    assert out.split("\n")[0] == head + "<SECRET:hf-token-1>", out
    assert out.count("\n") == text.count("\n")


@pytest.mark.parametrize("word", ["Killed", "ChildFailedError", "OutOfMemoryError", "HTTPError", "SIGKILL", "torch.distributed"])
def test_a_word_under_a_key_line_80_columns_wide_is_no_rest_of_the_key(word: str) -> None:
    # A whole token ending a line exactly 80 wide, then a word alone: not a wrap.
    line = "[rank0]: exporting HF_TOKEN=" + _HF
    line = "#" * (80 - len(line)) + line
    assert len(line) == 80
    out = _mask(line + "\n" + word + "\n")
    assert out.split("\n")[0].endswith("HF_TOKEN=<SECRET:hf-token-1>"), out
    assert out.split("\n")[1] == word, out
