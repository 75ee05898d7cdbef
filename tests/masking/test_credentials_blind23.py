"""Credentials as a fresh-seeded blind corpus placed them (issue #16, round 23).

A key folded inside a rich traceback's `locals` box (the bars and the hanging indent on every
line), a key pasted over two chat messages (the second message's header between the pieces),
botocore's debug lines (`credentials: aws_access_key_id=...`, headers as bytes literals), and
a source line passing a constant's name. All values are synthetic, shaped as the real ones.
"""

from __future__ import annotations

from pathlib import Path

from bot.masking import mask
from bot.matcher import Matcher, load_rulebook

# OpenAI project key: `sk-proj-`, then 156 letters with `T3BlbkFJ` at their middle.
_OPENAI = "sk-proj-" + "Xa7Qm2Lp9Rt4Vw8Yb3Nc6Hd1Jf5Gk0Ze7Us2Io9Pe4Aq6Wr3Ty8Ui1Op5As7Df2Gh9Jk4Lz6Xc3V" + "T3BlbkFJ" + (
    "Bn8Mq1We5Rt0Yu3Io7Pa2Sd6Fg9Hj4Kl8Zx1Cv5Bn0Mq3We7Rt2Yu6Io9Pa4Sd1Fg5Hj8Kl3Zx7Cv0B"
)
# PyPI API token: the macaroon's fixed `pypi-AgEIcHlwaS5vcmc` head, then a variable length.
_PYPI = "pypi-AgEIcHlwaS5vcmcCJGQ3ZTJmYjkwLWZha2UtNGRlYS1iZWVmLTAwMDAwMDAwMDAwMAACKlsz" + (
    "LCJ4eXoiXQAABiA5Zm9vYmFyYmF6cXV4cXV1eGZha2V0b2tlbmZvcnRlc3RzMDAwMDAwMA"
)
# NVIDIA API key: `nvapi-` and 64 base64url letters.
_NVAPI = "nvapi-" + "Qz8Lm3Kp7Rt2Vx6Yb1Nc5Hd9Jf4Gk0Ze8Us3Io7Pe2Aq6Wr1Ty5Ui9Op4As8Df3Gh7Jk"
# Slack bot token: `xoxb-`, two numbers, 24 letters.
_XOXB = "xoxb-" + "482913570264-6039127745810-" + "Qm4Lp8Rt2Vx6Yb1Nc5Hd9Jf3"
_HF = "hf_" + "QmLpRtVxYbNcHdJfGkZeUsIoPeAqWrTyUi"


def _box_fold(name: str, value: str, inner: int = 62) -> list[str]:
    """A rich `locals` panel row: `name = 'value'` folded at the panel's inner width."""
    head = f"{name} = "
    text = f"'{value}'"
    first, rest = text[: inner - len(head)], text[inner - len(head) :]
    rows = [f"│ │ {head}{first.ljust(inner - len(head))} │ │"]
    while rest:
        rows.append(f"│ │ {' ' * len(head)}{rest[: inner - len(head)].ljust(inner - len(head))} │ │")
        rest = rest[inner - len(head) :]
    return rows


def test_a_key_folded_in_a_rich_locals_box_is_masked_and_the_box_kept() -> None:
    rows = [
        "│ ╭──────────────────────────── locals ─────────────────────────────╮ │",
        *_box_fold("api_key", _OPENAI),
        *_box_fold("  token", _PYPI),
        "│ ╰─────────────────────────────────────────────────────────────────╯ │",
    ]
    text = "\n".join(rows) + "\n"
    out = mask(text).text
    for value in (_OPENAI, _PYPI):
        for piece in (value[i : i + 8] for i in range(8, len(value) - 8, 4)):
            assert piece not in out, (piece, out)
    lines = out.splitlines()
    assert len(lines) == len(rows), out
    assert lines[1].startswith("│ │ api_key = '<SECRET:openai-key-1>"), out
    assert all(line.startswith("│ │") and line.endswith("│ │") for line in lines[2:-1]), out


def test_a_key_split_over_two_slack_messages_is_masked_whole() -> None:
    text = (
        "dana  10:42 AM\nTWINE_PASSWORD=" + _PYPI[:60] + "\n"
        "dana  10:42 AM\n" + _PYPI[60:] + "\n"
        "dana  10:43 AM\nNGC_API_KEY=" + _NVAPI[:31] + "\n"
        "dana  10:43 AM\n" + _NVAPI[31:] + "\n"
        "HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\n"
    )
    out = mask(text).text
    assert _PYPI[60:68] not in out and _NVAPI[31:39] not in out, out
    lines = out.splitlines()
    assert lines[1] == "TWINE_PASSWORD=<SECRET:pypi-token-1>", out
    assert lines[3] == "" and lines[7] == "", out
    assert lines[5] == "NGC_API_KEY=<SECRET:ngc-key-1>", out
    assert lines[2].endswith("10:42 AM") and lines[6].endswith("10:43 AM"), out
    assert "HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/" in out, out


def test_a_key_split_over_teams_and_discord_messages_is_masked() -> None:
    text = (
        "[10:41 AM] Brandt, Lukas:\nSLACK_BOT_TOKEN=" + _XOXB[:20] + "\n"
        "[10:41 AM] Brandt, Lukas:\n" + _XOXB[20:] + "\n"
        "kenji.t — Today at 10:42\nexport HF_TOKEN=" + _HF[:15] + "\n"
        "kenji.t — Today at 10:42\n" + _HF[15:] + "\n"
    )
    out = mask(text).text
    assert _XOXB[20:] not in out and _HF[15:] not in out and _XOXB[27:35] not in out, out
    assert "SLACK_BOT_TOKEN=<SECRET:slack-token-1>" in out and "export HF_TOKEN=<SECRET:hf-token-1>" in out, out


def test_a_digest_in_the_next_chat_message_is_no_keys_rest() -> None:
    sha = "4f2a9c81d03b7e6a5c4d2e1f0a9b8c7d6e5f4a3b"
    digest = "sha256:9b2c4e6f8a0d1c3e5f7a9b1d3c5e7f9a0b2d4c6e8f0a1b3d5c7e9f1a3b5d7c9e"
    text = (
        "dana  10:42 AM\nthe loss spikes began right after we merged branch fix_grad_accum\n"
        "dana  10:42 AM\n" + sha + "\n"
        "dana  10:43 AM\nand the image we run is nvcr.io/nvidia/pytorch@sha256_pinned_tag\n"
        "dana  10:43 AM\n" + digest + "\n"
    )
    out = mask(text).text
    assert sha in out and digest in out and "fix_grad_accum" in out, out


def test_botocore_credentials_line_keeps_its_key_names() -> None:
    text = (
        "2026-12-06 01:00:00,165 - MainThread - botocore.credentials - DEBUG - credentials: "
        "aws_access_key_id=AKIAZQ4XMPLE7TESTK3Y aws_secret_access_key=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\n"
    )
    out = mask(text).text
    assert out.endswith(
        "credentials: aws_access_key_id=<SECRET:aws-access-key-1> aws_secret_access_key=<SECRET:aws-secret-key-1>\n"
    ), out


def test_botocore_bytes_headers_keep_their_literal_and_one_placeholder_per_value() -> None:
    token = "IQoJb3JpZ2luX2VjEHMaCXVzLXdlc3QtMiJHMEUCIQDfakeSessionTokenForTests0123456789abcdefghijklmnopqrstuvwxyz+/ABCDEFGH"
    text = (
        "x-amz-security-token:" + token + "\n"
        "2026-12-06 09:04:00,312 - MainThread - botocore.endpoint - DEBUG - Sending http request: <AWSPreparedRequest "
        "stream_output=False, method=PUT, url=https://ml-ckpts.s3.us-west-2.amazonaws.com/run-42/model.safetensors, "
        "headers={'X-Amz-Date': b'20261207T001233Z', 'X-Amz-Security-Token': b'" + token + "', 'Content-Length': '4718592'}>\n"
    )
    out = mask(text).text
    assert token[16:40] not in out, out
    assert "x-amz-security-token:<SECRET:aws-session-token-1>\n" in out, out
    assert "'X-Amz-Security-Token': b'<SECRET:aws-session-token-1>', 'Content-Length': '4718592'}>" in out, out
    assert "url=https://ml-ckpts.s3.us-west-2.amazonaws.com/run-42/model.safetensors" in out, out


def test_a_constants_name_passed_as_a_key_in_source_stays() -> None:
    text = (
        '  File "/opt/app/infer.py", line 31, in <module>\n'
        "    client = OpenAI(base_url=BASE, api_key=NGC_API_KEY)\n"
        "openai.AuthenticationError: Error code: 401\n"
        "OPENAI_API_KEY=" + _OPENAI + "\n"
        "DB_PASSWORD=STAGING_DB_PASS\n"
    )
    out = mask(text).text
    assert "api_key=NGC_API_KEY)" in out, out
    assert "OPENAI_API_KEY=<SECRET:openai-key-1>" in out, out
    assert "DB_PASSWORD=<SECRET:password-1>" in out, out


def test_a_folded_key_in_a_traceback_box_leaves_the_diagnosis() -> None:
    matcher = Matcher(load_rulebook(Path(__file__).resolve().parents[2] / "rules"))
    log = "\n".join(
        [
            "╭───────────────────── Traceback (most recent call last) ─────────────────────╮",
            *_box_fold("api_key", _OPENAI),
            "╰──────────────────────────────────────────────────────────────────────────────╯",
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB",
        ]
    ) + "\n"
    before = [m.id for m in matcher.diagnose(log).matches][:1]
    after = [m.id for m in matcher.diagnose(mask(log).text).matches][:1]
    assert before and after == before
