"""Seventh audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

A Slack message carries any text a person pastes, backslashes included: a notebook's JSON, a
Python repr or a shell script writes a terminal colour code as the six characters `\\u001b[33m`
(or `\\x1b[1m`, `\\033[31m`), which Slack's event JSON sends as `\\\\u001b[33m`. The bot takes
those codes out of what it shows (blocks.esc), so masking must see through them too: a code
glued to a token made it start with `m` as far as the detectors could tell."""

from __future__ import annotations

import json

from tests.slack.conftest import Bot, wait_handled
from tests.slack.events import all_text, message, used
from tests.slack.fake_slack import FakeSlack

# Obviously fake, well-formed values of the kinds the masker knows.
HF_TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
GITHUB_TOKEN = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
EMAIL = "alice.smith@example.com"


def replies(fake: FakeSlack) -> list:
    return fake.of("chat.postMessage")


def test_a_secret_behind_a_colour_code_written_as_an_escape_never_reaches_slack(bot: Bot, fake_slack: FakeSlack):
    """An OOM pasted from a notebook's saved output, its colour codes written as escapes and
    one glued to each value: diagnosed, and neither the token, the e-mail address, nor the
    escapes' remains posted (the bot strips `\\u001b[33m` for Slack after masking: a value
    the detectors missed behind it would show bare)."""
    paste = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.73 TiB. GPU 0 has a total capacity "
        "of 79.15 GiB of which 1.2 GiB is free. Process 4242 has 77.9 GiB memory in use by "
        f"\\u001b[33m{EMAIL}\\u001b[0m token \\x1b[1m{GITHUB_TOKEN}\\x1b[0m\n"
    )
    ts = "1700700000.000100"
    bot.event(message(paste, ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    shown = json.dumps(post.params, ensure_ascii=False)
    assert "cuda-oom" in all_text(post) and used(bot) == 1
    assert GITHUB_TOKEN not in shown and EMAIL not in shown and "alice.smith" not in shown, shown
    assert "u001b" not in shown and "x1b" not in shown and "[0m" not in shown, shown


def test_an_unmatched_error_with_an_escaped_colour_code_before_a_token_never_shows_it(bot: Bot, fake_slack: FakeSlack):
    """An error no entry matches is quoted back (masked) as the line the run died on: a token
    behind `\\u001b[33m` in it stays masked; the line's words still show."""
    paste = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n'
        '    login(token=os.environ["HF_TOKEN"])\n'
        f"ValueError: Invalid token passed: \\u001b[33m{HF_TOKEN}\\u001b[0m\n"
    )
    ts = "1700700001.000100"
    bot.event(message(paste, ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    shown = json.dumps(post.params, ensure_ascii=False)
    assert "Invalid token passed" in shown, shown
    assert HF_TOKEN not in shown and "AbCdEfGhIjKlMnOp" not in shown, shown

