"""Fifth audit of the Slack edge: the known gaps an outside end-to-end check found (Unicode
spaces in uploads, topic buttons of an expired thread, DM links on the Home tab, other slash
commands) and the behaviours SLACK.md implies that no other test ran yet, through the real bot
over signed HTTP against the recording stand-in and a real Redis.

Slack's shapes used here: a permalink's path is `/archives/<channel>/p<ts without the dot>`
(chat.getPermalink answers one); a slash command's form carries the `command` the workspace
configured, which need not be ours."""

from __future__ import annotations

import json

import pytest

from tests.slack.conftest import Bot, wait_handled
from tests.slack.events import all_text, message, used
from tests.slack.fake_slack import FakeFile

SAMPLE_PATH = "tests/data/samples/rank3-oom-8-ranks.log"


@pytest.fixture(scope="module")
def sample() -> str:
    from tests.slack.conftest import ROOT

    return (ROOT / SAMPLE_PATH).read_text()


def replies(fake) -> list:
    return fake.of("chat.postMessage")


# --- Unicode spaces in an upload -----------------------------------------------------------------

@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u3000"], ids=["nbsp", "narrow-nbsp", "ideographic"])
def test_an_uploaded_log_with_unicode_spaces_is_diagnosed(bot: Bot, fake_slack, sample, space):
    """A log file saved from a web page (a CI run's page, a notebook) with no-break or other
    Unicode spaces where it had spaces: diagnosed as the log it was, charged once, and no
    such space in what the bot posts."""
    f = fake_slack.add_file(FakeFile(id="F0NBSPUP01", name="train.log", content=sample.replace(" ", space).encode()))
    ts = "1700500000.000100"
    bot.event(message("", ts, subtype="file_share", files=[f]))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and used(bot) == 1
    assert space not in json.dumps(post.params, ensure_ascii=False)


def test_a_log_pasted_with_narrow_no_break_spaces_is_diagnosed(bot: Bot, fake_slack, sample):
    """The paste path reads the same list of spaces as an upload: U+202F (macOS puts it before
    AM/PM, web pages between numbers and units) as well as U+00A0."""
    ts = "1700500010.000100"
    bot.event(message(sample.replace(" ", "\u202f"), ts))
    wait_handled(bot, ts)
    (post,) = replies(fake_slack)
    assert "cuda-oom" in all_text(post) and used(bot) == 1
