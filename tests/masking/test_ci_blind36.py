"""Maskblind36: OAuth redirects, Twilio's client, and containerd's pull error.

Lines as the tools print them: an nginx/Jupyter access log of Google's OAuth redirect, Twilio's
quickstart `Client(sid, token)` quoted by a traceback, and containerd's pull error that kubelet
and `ctr` print (`... may require authorization: server message: insufficient_scope: ...`).
Tokens with a vendor's prefix are built at run time so scanners do not flag this file.
"""

from __future__ import annotations

from bot.masking import Masker, mask

_CODE = "4/" + "0AfJohXn9nohK7Q51dFd4yugmOXV5vGUTiXTgK7KddS5rhzWcFpWxc3qpZqmqwLbhBXmVj"
_STATE = "vyy1un7BVWzqjgW6kmAjYzUkMZK4m1"
_SID = "A" + "C564be2511dc798f8521517892dbe0797"
_TWILIO_TOKEN = "9f2c4e1a7b3d5f6e8a0b1c2d3e4f5a6b"


def test_oauth_redirect_code_and_state_are_masked_scope_kept() -> None:
    """The authorization code and state of a callback go; the path, scope and status stay."""
    line = (
        f'34.120.5.7 - - [14/May/2024:10:15:02 +0000] "GET /oauth2/callback?state={_STATE}&code={_CODE}'
        '&scope=email%20openid&authuser=0&prompt=consent HTTP/1.1" 302 0'
    )
    out = mask(line).text
    assert _CODE not in out and _STATE not in out
    assert "?state=<SECRET:oauth-state-1>&code=<SECRET:oauth-code-1>&scope=email%20openid" in out
    assert '" 302 0' in out


def test_query_code_and_state_that_are_no_credentials_stay() -> None:
    """An HTTP status as `code=` and a job's state in a query are settings, kept."""
    for line in (
        "GET /api/v1/jobs?state=RUNNING&limit=50 HTTP/1.1",
        "redirect https://ci.example.org/status?code=404&state=failed",
        "ray.exceptions.RaySystemError: state=ALIVE code=1",
    ):
        assert mask(line).text == line


def test_same_oauth_code_same_placeholder_across_lines() -> None:
    """A code logged twice (the proxy's line and the app's) is one placeholder."""
    text = (
        f"GET /hub/oauth_callback?code={_CODE}&state={_STATE} HTTP/1.1\n"
        f"[W 2024-05-14 10:15:03 auth:412] token exchange failed for /hub/oauth_callback?code={_CODE}\n"
    )
    masker = Masker()
    masker.learn(text.encode())
    out = str(masker.mask(text))
    assert _CODE not in out
    assert out.count("<SECRET:oauth-code-1>") == 2


def test_twilio_client_sid_is_an_account_and_token_a_secret() -> None:
    """`Client("AC...", "<token>")`: the SID as the account it names, the token as a secret."""
    out = mask(f'    client = Client("{_SID}", "{_TWILIO_TOKEN}")').text
    assert out == '    client = Client("<ACCOUNT-1>", "<SECRET:twilio-token-1>")'


def test_containerd_pull_error_keeps_its_sentence() -> None:
    """`authorization: server message:` in containerd's error is prose, not a credential."""
    line = (
        '  Warning  Failed     6m23s (x4 over 8m17s)  kubelet  Failed to pull image "docker.io/library/ping:001": '
        'failed to resolve reference "docker.io/library/ping:001": pull access denied, repository does not exist '
        "or may require authorization: server message: insufficient_scope: authorization failed"
    )
    assert mask(line).text == line


def test_authorization_header_still_masked_without_scheme() -> None:
    """A header's bare credential (no scheme) after `authorization:` still goes."""
    cred = "Zq8pT3vB7nR1mW4sY6dXk29f"
    out = mask(f"send: b'GET /v2/ HTTP/1.1\\r\\nauthorization: {cred}\\r\\n'").text
    assert cred not in out


def test_state_and_code_are_oauth_values_only_in_a_query() -> None:
    """`STATE` or `CODE` read from the environment in a traceback's source line is a script's
    variable, not an OAuth redirect's parameter: its default stays, under no OAuth kind."""
    line = '    state = os.environ.get("STATE", "aB3dE5fG7hJ9kL1mN3pQ")'
    assert "oauth" not in mask(line).text
    assert "oauth" not in mask(line.replace("STATE", "CODE")).text
    assert mask("GET /cb?state=aB3dE5fG7hJ9kL1mN3pQ HTTP/1.1").text == "GET /cb?state=<SECRET:oauth-state-1> HTTP/1.1"
