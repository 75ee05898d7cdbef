"""Credentials as a third, fresh-seeded blind corpus placed them (issue #16, round 20).

Cloud CLIs' own output (`aws configure get ... --profile`, a service account's `ya29.c.`
access token), credentials files base64-encoded whole, and service-account keys cut by a
terminal through their BEGIN marker. All values are synthetic, shaped as the real ones.
"""

from __future__ import annotations

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
