"""Eighteenth audit of the Slack edge: a lookup with Redis down, the Home tab of a Scale
workspace, lookups that are small talk, and alerts connected in a channel the bot is not in.
Signed HTTP against the real bot, the Slack stand-in recording every call, a real Redis."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from bot.store import Store, StoreConfig
from tests.slack.conftest import Bot, quiesce
from tests.slack.fake_slack import TEAM_ID, FakeSlack
from tests.slack.test_edge_seventeenth_audit import GUIDANCE, listed
from tests.slack.test_edge_seventeenth_audit import lookup as answer
from tests.watch.conftest import TOKEN, make_scale

UNAVAILABLE = "temporarily unavailable"
HELP_MARK = "diagnoses failed training runs"
OOM_LINE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


def shown(said: dict[str, Any]) -> str:
    return said["text"] + json.dumps(said.get("blocks") or [])


# --- 1. Redis down: a lookup reads no state and is answered; the rest refuses --------------------------

def test_with_redis_down_a_lookup_is_answered_and_what_needs_state_says_unavailable(bot_without_redis: Bot,
                                                                                   fake_slack: FakeSlack) -> None:
    """Redis unreachable: `/denpex <error line>` lists its entry inside 3 s (the per-user limit
    fails open for lookups, and says so in the log), a vague lookup gets its guidance; quota,
    redeem and alerts connect get the outage notice, no ingest token; nothing is posted."""
    dead = bot_without_redis
    start = time.monotonic()
    oom = answer(dead, OOM_LINE)
    assert time.monotonic() - start < 3.0
    assert listed(oom)[:1] == ["cuda-oom"] and UNAVAILABLE not in shown(oom)
    assert GUIDANCE in shown(answer(dead, "training failed"))
    for needs_state in ("quota", "redeem DPX-0000-0000", "alerts connect", "alerts status"):
        said = answer(dead, needs_state)
        assert UNAVAILABLE in said["text"], (needs_state, said["text"])
        assert TOKEN.search(shown(said)) is None
    assert "lookup limit not checked" in dead.log_path.read_text()  # type: ignore[attr-defined]
    assert "Traceback" not in dead.log_path.read_text()  # type: ignore[attr-defined]
    assert not fake_slack.of("chat.postMessage")


# --- 2. the Home tab of a Scale workspace ----------------------------------------------------------------

def _home(bot: Bot, fake: FakeSlack, user: str = "U0ALICE") -> str:
    before = len(fake.of("views.publish"))
    bot.event({"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": "home",
               "event_ts": f"{time.time():.6f}"})
    fake.wait_for("views.publish", count=before + 1, timeout=15)
    return json.dumps(fake.of("views.publish")[-1].params["view"])


def test_the_home_tab_of_a_scale_workspace_shows_its_plan_alerts_and_not_the_redeem_offer(
        bot: Bot, fake_slack: FakeSlack) -> None:
    """On Scale the tab says the plan and until when, lists the connected alert channel and the
    latest alert, and does not offer to redeem an evaluation code; a free workspace's tab still does."""
    from tests.watch.test_ingest import body, send

    free = _home(bot, fake_slack)
    assert "Evaluation codes" in free and "Redeem one with `/denpex redeem" in free
    with Store(StoreConfig(url=bot.redis_url)) as store:
        make_scale(store, TEAM_ID)
        expires = store.plans.get(TEAM_ID).expires_at
    token = TOKEN.search(shown(answer(bot, "alerts connect"))).group(0)
    assert send(bot, token, body())[0] == 200
    scale = _home(bot, fake_slack)
    assert "*Plan*" in scale and "*scale* plan" in scale and f"{expires:%Y-%m-%d %H:%M}" in scale
    # The command list closing the tab still names `/denpex redeem`; the offer is gone.
    assert "Evaluation codes" not in scale and "Redeem one" not in scale
    assert "<#C0LOGS>" in scale and "(alert)" in scale


# --- 3. lookups that are small talk ------------------------------------------------------------------------

@pytest.mark.parametrize("chatter", ["hello world", "is this hardware?", "good morning everyone", "lunch at noon?",
                                     "what does this mean?", "deploy went fine"])
def test_a_lookup_that_is_small_talk_lists_no_entry(bot: Bot, fake_slack: FakeSlack, chatter: str) -> None:
    """Words sharing one word with an entry ("world" with world size, "hardware" with GPU
    faults) list nothing: "No entry matches", or for a question the guidance to send the error
    line or the log. Nothing is posted in the channel."""
    said = answer(bot, chatter)
    assert listed(said) == [], (chatter, listed(said))
    assert "No entry matches" in said["text"] or GUIDANCE in shown(said)
    quiesce(bot, fake_slack)
    assert not fake_slack.of("chat.postMessage")


def test_a_bare_word_that_is_no_subcommand_gets_help(bot: Bot) -> None:
    """`/denpex status` (one word, not a subcommand) is help, not a lookup listing entries."""
    said = answer(bot, "status")
    assert listed(said) == [] and HELP_MARK in shown(said)


@pytest.mark.parametrize("line,first", [
    (OOM_LINE, "cuda-oom"),
    ("hey, nccl watchdog timeout", "nccl-watchdog-timeout"),
    ("segmentation fault", "native-segfault"),
    ("disk full", "disk-full"),
    ("ModuleNotFoundError: No module named 'torch._six'", "torch-six-removed"),
])
def test_a_lookup_naming_a_failure_still_lists_it_first(bot: Bot, line: str, first: str) -> None:
    assert listed(answer(bot, line))[:1] == [first]


# --- 4. alerts connected in a channel the bot is not in ---------------------------------------------------

@pytest.mark.parametrize("error", ["not_in_channel", "channel_not_found"])
def test_alerts_connect_in_a_channel_the_bot_is_not_in_hands_out_no_token(bot: Bot, fake_slack: FakeSlack,
                                                                          error: str) -> None:
    """Slack says the bot cannot read the channel (it is not a member; a private channel is not
    found): no ingest token, whose every alert would be refused with `not_in_channel`, but how
    to add the bot; nothing stored. Once the bot is in, connecting works."""
    with Store(StoreConfig(url=bot.redis_url)) as store:
        make_scale(store, TEAM_ID)
        fake_slack.fail("conversations.history", 200, body={"ok": False, "error": error})
        refused = answer(bot, "alerts connect")
        assert TOKEN.search(shown(refused)) is None
        assert "not a member of <#C0LOGS>" in shown(refused) and "/invite @Denpex" in shown(refused)
        assert store.alerts.channels(TEAM_ID) == []
        (asked,) = fake_slack.of("conversations.history")
        assert asked.params["channel"] == "C0LOGS"
        assert TOKEN.search(shown(answer(bot, "alerts connect")))
        assert store.alerts.channels(TEAM_ID) == ["C0LOGS"]


def test_alerts_connect_when_slack_does_not_say_still_connects_inside_three_seconds(bot: Bot,
                                                                                    fake_slack: FakeSlack) -> None:
    """Slack failing the membership question (a 500, a slow answer) does not block connecting:
    the token is handed out, inside the command's 3 seconds."""
    with Store(StoreConfig(url=bot.redis_url)) as store:
        make_scale(store, TEAM_ID)
        fake_slack.fail("conversations.history", 500)
        assert TOKEN.search(shown(answer(bot, "alerts connect")))
        fake_slack.fail("conversations.history", 200, body={"ok": True, "messages": []}, delay_s=2.5)
        start = time.monotonic()
        assert TOKEN.search(shown(answer(bot, "alerts connect")))
        assert time.monotonic() - start < 3.0
        assert store.alerts.channels(TEAM_ID) == ["C0LOGS"]
