"""Terminal colour codes written out as escapes (`\\u001b[33m` in a notebook's JSON, `\\x1b[1m` in a
repr, `\\033[31m` in a script) are as transparent to masking as real ones: the Slack edge takes
them out of what it shows after masking, so a value they hid would be posted bare."""

from __future__ import annotations

import pytest

from bot.masking import mask
from bot.slack.blocks import esc

HF_TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
GITHUB_TOKEN = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"


@pytest.mark.parametrize(("line", "value"), [
    (f"login as \\u001b[33m{HF_TOKEN}\\u001b[0m", HF_TOKEN),
    (f"tok \\x1b[1m{GITHUB_TOKEN}\\x1b[0m", GITHUB_TOKEN),
    ("aws \\033[31mAKIAIOSFODNN7EXAMPLE\\033[0m", "AKIAIOSFODNN7EXAMPLE"),
    (f"Authorization: Bearer \\u001b[33m{JWT}\\u001b[0m", JWT),
    ("\\x1b[33mpassword\\x1b[0m: Falcon2024xQ", "Falcon2024xQ"),
    ("\\033[1;33mDB_PASSWORD\\033[0m=Quasar2031Tn", "Quasar2031Tn"),
    ("url https://bob:\\u001b[31mPa55wordQz\\u001b[0m@db.ridgeline.io/x", "Pa55wordQz"),
    ("wandb: Currently logged in as: \\u001b[33mhfischer\\u001b[0m (use `wandb login --relogin`)", "hfischer"),
    ("by \\u001b[1malice.smith@example.com\\u001b[0m", "alice.smith"),
    # Caret notation: ESC as vim, `cat -v` or an Emacs shell buffer shows it, copied from there.
    ("wandb: Currently logged in as: ^[[33mhfischer^[[0m (use `wandb login --relogin`)", "hfischer"),
    (f"tok ^[[1m{GITHUB_TOKEN}^[[0m", GITHUB_TOKEN),
    # No `[0m` anywhere: git's reset `ESC[m`, or a line cut before its reset.
    (f"tok \\x1b[1m{GITHUB_TOKEN}\\x1b[m", GITHUB_TOKEN),
    (f"login as \\u001b[33m{HF_TOKEN}", HF_TOKEN),
], ids=["hf", "github", "aws-key", "bearer-jwt", "key-coloured", "env-coloured", "url-password", "wandb-user", "email",
        "caret-wandb-user", "caret-github", "short-reset", "no-reset"])
def test_a_value_behind_an_escaped_colour_code_is_masked(line: str, value: str) -> None:
    out = mask(line + "\n").text
    assert value not in out, out
    assert value not in esc(out)  # nor in what Slack is shown once the codes are out


def test_escaped_codes_are_put_back_around_the_placeholder() -> None:
    """`denpex mask` hands back the log as written: the codes stay, around the placeholder."""
    out = mask(f"login as \\u001b[33m{HF_TOKEN}\\u001b[0m done\n").text
    assert out == "login as \\u001b[33m<SECRET:hf-token-1>\\u001b[0m done\n", out


def test_a_backslash_before_anything_else_changes_nothing() -> None:
    line = "C:\\new\\x1\\e[ and \\033 kept, \\u001b alone too, a regex's [^[] and ^[a-z]+\n"
    assert mask(line).text == line
    assert esc("a regex's [^[] and ^[a-z]+") == "a regex's [^[] and ^[a-z]+"


def test_caret_notation_codes_are_taken_out_for_slack() -> None:
    assert esc("^[[0;31mOutOfMemoryError^[[0m: CUDA") == "OutOfMemoryError: CUDA"


@pytest.mark.parametrize("start", ["\x1b", "[0m", "\\", "^[["])
@pytest.mark.parametrize("pad", [0, 5000], ids=["a line", "a piece"])
def test_the_code_gate_reads_every_start_on_a_line_and_on_a_piece(start, pad):
    """may_hold_codes reads a line by `in` and a piece by one literal scan: both know all four."""
    from bot.terminal import _CODE_STARTS, may_hold_codes

    assert start in _CODE_STARTS
    assert may_hold_codes("x" * pad + start + "31m y") and not may_hold_codes("x" * pad + "31m y")
