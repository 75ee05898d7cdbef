"""Credentials a fifteenth blind corpus (URL queries, `set -x` traces, CLI logins, tracebacks,
Windows shells) found leaking.

- A secret set by a call that names the variable, then its value: PowerShell's
  `[Environment]::SetEnvironmentVariable("NAME", "value", "User")`, Go's `os.Setenv`, C's
  `setenv`, pytest's `monkeypatch.setenv`, `os.putenv`: only `os.getenv`'s and
  `os.environ.get`'s fallbacks were read as pairs (bot/masking/pairs.py).
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from tests.test_masking_round12 import _mask_log as _mask  # learned whole first, then masked

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
