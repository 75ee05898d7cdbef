"""Seventh audit of the Slack edge: scenarios an outside end-to-end check would run that no test
ran yet, through the real bot over signed HTTP against the recording stand-in and a real Redis.

A Slack message carries any text a person pastes, backslashes included: a notebook's JSON, a
Python repr or a shell script writes a terminal colour code as the six characters `\\u001b[33m`
(or `\\x1b[1m`, `\\033[31m`), which Slack's event JSON sends as `\\\\u001b[33m`. The bot takes
those codes out of what it shows (blocks.esc), so masking must see through them too: a code
glued to a token made it start with `m` as far as the detectors could tell.

Editing a message that mentions the bot makes Slack send a new `app_mention` event (a new event
id, the message's own `ts`) carrying `edited: {user, ts}` (bolt-js#960, slack-go/slack#1256):
the bot treats it as it treats any edit (`message_changed`), with nothing.

Slack re-sends an event answered with a non-2xx (`http_error`) unless the answer carries
`X-Slack-No-Retry: 1` (Events API field guide, "turning retries off")."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from tests.slack.conftest import Bot, quiesce, sign, wait_handled
from tests.slack.events import CHANNEL, OOM_PASTE, all_text, message, used
from tests.slack.fake_slack import BOT_USER_ID, TEAM_ID, FakeFile, FakeSlack

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


@pytest.mark.parametrize("text", [f"<@{BOT_USER_ID}> our run died:\n{OOM_PASTE}", f"<@{BOT_USER_ID}> what can you do?"],
                         ids=["log", "help"])
def test_an_edited_mention_is_not_answered_again(bot: Bot, fake_slack: FakeSlack, text: str):
    """A mention fixed for a typo the next day: Slack sends `app_mention` again, `edited` set,
    the message's ts a day old, long after the bot forgot it had answered. Nothing posted,
    nothing charged; a new mention is still answered."""
    yesterday = f"{int(time.time()) - 86_400}.000100"
    edited = {"type": "app_mention", "channel": CHANNEL, "user": "U0ALICE", "text": text + " (typo fixed)",
              "ts": yesterday, "team": TEAM_ID, "edited": {"user": "U0ALICE", "ts": f"{int(time.time())}.000000"}}
    assert bot.event(edited).status == 200
    fresh = f"{int(time.time())}.000200"
    bot.event({**{k: v for k, v in edited.items() if k != "edited"}, "ts": fresh, "text": text})
    fake_slack.wait_for("chat.postMessage", thread_ts=fresh, timeout=20)
    wait_handled(bot, fresh)
    quiesce(bot, fake_slack, quiet_s=1.5)  # an app_mention waits a second for its message event
    assert [c.params.get("thread_ts") for c in replies(fake_slack)] == [fresh]
    assert used(bot) == (1 if "died" in text else 0)


def test_an_uploaded_log_quoting_escaped_colour_codes_posts_no_value_behind_them(bot: Bot, fake_slack: FakeSlack):
    """A log file whose lines a logger wrote as reprs (`\\x1b[1m` as text), uploaded: the token
    and address behind the codes stay masked in the evidence."""
    log = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "train.py", line 88, in <module>\n'
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        f"capacity of 79.15 GiB of which 1.2 GiB is free. owner=\\x1b[1m{EMAIL}\\x1b[0m \\033[33m{GITHUB_TOKEN}\\033[0m\n"
    )
    f = fake_slack.add_file(FakeFile(id="F0ESCAPED01", name="train.log", content=log.encode()))
    ts = "1700700002.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    shown = json.dumps(post.params, ensure_ascii=False)
    assert "cuda-oom" in all_text(post)
    assert GITHUB_TOKEN not in shown and "alice.smith" not in shown, shown


def test_a_lookup_echoing_a_token_behind_an_escaped_colour_code_masks_it(bot: Bot, fake_slack: FakeSlack):
    """`/denpex <error line>` copied from a notebook's JSON, a token in it behind `\\x1b[1m`:
    the answer (in the command's ack) echoes the line masked, the token nowhere."""
    line = f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB \\x1b[1m{GITHUB_TOKEN}\\x1b[0m"
    reply = bot.command(line)
    assert reply.status == 200
    shown = reply.body.decode()
    assert "cuda-oom" in shown and GITHUB_TOKEN not in shown, shown


def _post(bot: Bot, body: bytes, ctype: str) -> tuple[int, dict[str, str]]:
    """A signed POST to the events endpoint: its status and headers."""
    req = urllib.request.Request(bot.url + "/slack/events", data=body, method="POST",
                                 headers={"Content-Type": ctype, **sign(body)})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers)


def _event(event: dict, team: str = TEAM_ID, event_id: str = "Ev0SEVENTH1") -> bytes:
    return json.dumps({"type": "event_callback", "team_id": team, "api_app_id": "A0DENPEX", "event": event,
                       "event_id": event_id, "event_time": int(time.time()),
                       "authorizations": [{"team_id": team, "user_id": BOT_USER_ID, "is_bot": True}]}).encode()


@pytest.mark.parametrize(("body", "status"), [
    (b'{"type": "event_callback", "event": ', 400),
    (json.dumps({"type": "event_callback", "team_id": TEAM_ID, "event": "not an object"}).encode(), 400),
    (_event({"type": "message", "channel": CHANNEL, "user": "U0ALICE", "text": "hi", "ts": "1.1"}, team="not a team"), 400),
    (_event({"type": "message", "channel": CHANNEL, "user": "U0ALICE", "text": "hi", "ts": "1.1"}, event_id=" "), 400),
    (b'{"type": "event_callback", "junk": "' + b"x" * 2_100_000 + b'"}', 413),
], ids=["truncated-json", "event-not-an-object", "invalid-team", "invalid-event-id", "oversized"])
def test_a_request_refused_for_its_shape_tells_slack_not_to_retry(bot: Bot, fake_slack: FakeSlack, body: bytes,
                                                                    status: int):
    """Slack re-sends an event answered with anything but a 2xx (`http_error`), three times over
    five minutes, unless the answer carries `X-Slack-No-Retry: 1` (Events API, "turning
    retries off"). A body refused for what it is would be refused again: say so. A good event
    is answered 200 as ever."""
    got, headers = _post(bot, body, "application/json")
    assert got == status
    assert headers.get("X-Slack-No-Retry") == "1", headers
    good, headers = _post(bot, _event({"type": "reaction_added", "user": "U0ALICE", "reaction": "eyes"},
                                      event_id=f"Ev{time.time_ns()}"), "application/json")
    assert good == 200 and "X-Slack-No-Retry" not in headers
