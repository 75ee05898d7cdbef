"""Credentials as a second blind corpus of training logs placed them (issue #16, round 17).

Flags continued over a shell command's lines, keys named for their encoding, tokens inside
percent-encoded text, and values a terminal cut where the line went on after them. All
values are synthetic, shaped as the real ones.
"""

from __future__ import annotations

import base64
import json
import urllib.parse

from bot.masking import Masker, mask

_HF = "hf_Q7wErTy2UiOpAs4DfGhJk6LzXcVb8NmQwE"
_OPENAI = "sk-proj-" + "Ab3dEf5hIj7lMn9pQr1tUv3xYz5bCd7fGh9jKl1n" + "T3BlbkFJ" + "Qr3tUv5xYz7bCd9fGh1jKl3nMp5rSt7vWx9zAb1d"
_WANDB = "9c1e4f7a2b5d8e0f3a6c9b2d5e8f1a4c7b0d3e6f"


def _wrap(line: str, width: int) -> str:
    return "\n".join(line[i : i + width] for i in range(0, len(line), width))


def test_a_flag_value_is_one_word_on_a_continued_command_line() -> None:
    # `optuna create-study ... \` continued: the password flag's value ends at its blank, and
    # the next flag (a URL that logs in too) is masked as its own pair.
    text = "  --password Zq9!a16fsL8k$ --storage 'mysql+pymysql://optuna:Winter7DdnCy@10.1.2.3/optuna'\n"
    out = mask(text).text
    assert out == "  --password <SECRET:password-1> --storage 'mysql+pymysql://<USER-1>:<SECRET:password-2>@<IP-1>/optuna'\n", out


def test_a_yaml_password_still_owns_its_line() -> None:
    assert mask("  password: correct horse battery\n").text == "  password: <SECRET:password-1>\n"


def test_a_key_named_for_its_encoding_is_the_secret_encoded() -> None:
    blob = base64.b64encode(json.dumps({"token": _HF, "repo": "acme/x"}).encode()).decode()
    text = f"HF_HUB_CREDS_B64={blob}\nGCP_SA_KEY_BASE64={blob[::-1]}\nHF_TOKEN_ENCODED=aGZfUTd3RXJUeTJVaU9wQXM0RGZHaEprNkx6\n"
    out = mask(text).text
    assert blob not in out and blob[::-1] not in out and "aGZfUTd3" not in out, out
    assert out.startswith("HF_HUB_CREDS_B64=<SECRET:"), out
    # An encoding word alone names nothing: `--encoding base64`, `b64: true`.
    assert mask("b64: true\nencoded=0\n").text == "b64: true\nencoded=0\n"


def test_a_token_after_a_percent_escape_is_masked() -> None:
    state = urllib.parse.quote(json.dumps({"api_key": _OPENAI}), safe="")
    text = (
        f"GET /oauth/callback?state={state}&code=200 HTTP/1.1\n"
        f"redirect: /login?h=Authorization%3A%20Bearer%20{_HF}\n"
        "s3 upload: ?q=%22AKIAQ3EGTZ7Y5WXH2KMV%22\n"
    )
    out = mask(text).text
    assert _OPENAI[8:20] not in out and _HF[3:15] not in out and "AKIAQ3EG" not in out, out
    assert "state=%7B%22api_key%22%3A%20%22<SECRET:openai-key-1>%22%7D&code=200" in out, out


def test_a_token_glued_to_a_word_is_still_no_token() -> None:
    # `%` and two hex digits release a token's edge; a word before it still holds it.
    text = f"abc{_HF} a1B{_OPENAI}\n"
    assert mask(text).text == text


def test_a_wrapped_value_whose_line_goes_on_is_masked_whole() -> None:
    # argparse's Namespace printed by a launcher and cut at 200 columns: the key's rest is
    # followed by the quote that closes it and the next fields.
    line = "[rank0]: Namespace(batch_size=8, gradient_accumulation_steps=4, hf_token='" + _HF + "', lr=0.0003, model='mistralai/Mistral-7B-v0.1', openai_api_key='" + _OPENAI + "', seed=42, wandb_project='sft')"
    text = _wrap(line, 200) + "\n"
    out = mask(text).text
    assert _OPENAI[-12:] not in out and _OPENAI[20:32] not in out, out
    assert out.rstrip("\n").endswith("', seed=42, wandb_project='sft')"), out
    assert out.count("\n") == text.count("\n")


def test_a_json_session_token_wrapped_at_80_is_masked_whole() -> None:
    token = "FwoGZXIvYXdzEypnPeGahWUFnRivE8fPT1zRpWszK4dk5dgeEUJyArHqMs3loojT+uqc5pk4QZxHs+D67qeR6dMdFBUxofH+OK86YkfSH4XTBeB3GhzdzkXpsAomGxwoCiYpHQln/z7wP70aDSpGgQZoA3hfAF41LKm+6run1Z"
    text = '    "Credentials": {\n' + _wrap(f'        "SessionToken": "{token}",', 80) + '\n        "Expiration": "2026-12-05T12:00:00Z"\n'
    out = mask(text).text
    lines = out.split("\n")
    assert lines[1] == '        "SessionToken": "<SECRET:aws-session-token-1>', out
    assert all(not line.strip() or line.strip() == '",' for line in lines[2:-2]), out
    assert '"Expiration": "2026-12-05T12:00:00Z"' in out


def test_a_key_cut_once_at_an_odd_width_is_masked_whole() -> None:
    # A 97-column pane: the first line holds the flag and the token's head, the second its rest
    # and the next flag.
    line = f"+ python train.py --report_to wandb --wandb_api_key {_WANDB} --output_dir /ckpt/run31"
    text = _wrap(line, 71) + "\n"
    out = mask(text).text
    assert _WANDB[-10:] not in out and _WANDB[:10] not in out, out
    assert "--output_dir /ckpt/run31" in out, out
    text = _wrap(f"[default0]: HUGGING_FACE_HUB_TOKEN={_HF}", 64) + "\n"
    out = mask(text).text
    assert out == "[default0]: HUGGING_FACE_HUB_TOKEN=<SECRET:hf-token-1>\n\n", out


def test_a_commit_printed_under_a_key_line_stays() -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    run = "3f2a9c1e-7b4d-4e8a-9c2f-1a3b5c7d9e0f"
    text = f"WANDB_API_KEY={_WANDB}\n{sha}\nHF_TOKEN={_HF}\n{run}\n"
    out = mask(text).text
    assert out == f"WANDB_API_KEY=<SECRET:wandb-key-1>\n{sha}\nHF_TOKEN=<SECRET:hf-token-1>\n{run}\n", out


def _service_account_line() -> tuple[str, str]:
    """A GCP service-account JSON as `json.dumps` prints it on one line, and its key's letters."""
    letters = base64.b64encode(bytes(range(256)) * 3).decode()
    pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(letters[i : i + 64] for i in range(0, len(letters), 64))
    pem += "\n-----END PRIVATE KEY-----\n"
    blob = {"type": "service_account", "project_id": "ml-train", "private_key": pem, "client_id": "1048576001234"}
    return "creds loaded: " + json.dumps(blob), letters


def _leaked_pieces(out: str, letters: str) -> list[str]:
    return [letters[i : i + 12] for i in range(0, len(letters) - 12, 6) if letters[i : i + 12] in out]


def test_a_one_line_service_account_json_cut_at_a_width_loses_its_whole_key() -> None:
    # The escaped key runs over many cut lines; each goes, the END marker's line keeps its
    # marker and what follows it, and the log keeps its line count.
    # Every width from 60 to 200 columns: the cut falls in the letters, in an escape, right
    # after the BEGIN marker, or through the END marker. (A cut through the BEGIN marker itself
    # is not read yet: those widths are left out.)
    line, letters = _service_account_line()
    widths = [w for w in range(60, 201) if "-----BEGIN PRIVATE KEY-----" in _wrap(line, w)]
    assert len(widths) > 100
    for width in widths:
        text = "[rank0]: start\n" + _wrap(line, width) + "\n[rank0]: done\n"
        out = mask(text).text
        assert not _leaked_pieces(out, letters), (width, out)
        assert out.count("\n") == text.count("\n")
        assert "-----BEGIN PRIVATE KEY-----" in out and out.count("<SECRET:private-key-1>") == 1, (width, out)
        assert out.endswith("[rank0]: done\n")


def test_a_cut_service_account_key_is_masked_when_the_lines_come_one_by_one() -> None:
    # `denpex mask` and the bot hand the masker whole lines in pieces: the string that goes on
    # past one piece goes on in the next.
    line, letters = _service_account_line()
    masker = Masker()
    pieces = [p + "\n" for p in _wrap(line, 120).split("\n")] + ["Epoch 1 done\n"]
    out = "".join(masker.mask(p) for p in pieces)
    assert not _leaked_pieces(out, letters), out
    assert out.endswith("Epoch 1 done\n")


def test_a_line_after_a_closed_escaped_key_is_left_alone() -> None:
    text = '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n"}\nEpoch1\n'
    assert mask(text).text.endswith("}\nEpoch1\n")
