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
