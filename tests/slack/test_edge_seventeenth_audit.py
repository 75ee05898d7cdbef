"""Seventeenth audit of the Slack edge: `/denpex` lookups that name no failure in particular,
alerts asked for from a workspace the bot's one token cannot post in, and a few edges around
them (unicode, a lookup with a typo in its vague words). Signed HTTP against the real bot, the
Slack stand-in recording every call, a real Redis."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.store import Store, StoreConfig
from tests.slack.conftest import Bot, quiesce
from tests.slack.fake_slack import TEAM_ID, FakeSlack
from tests.watch.conftest import TOKEN, make_scale

OTHER_TEAM = "T0OTHER17"
GUIDANCE = "does not say which failure it is"


def lookup(bot: Bot, text: str, team: str = TEAM_ID) -> dict[str, Any]:
    """The ephemeral answer `/denpex <text>` is acknowledged with."""
    reply = bot.command(text, team=team)
    assert reply.status == 200, reply.body[:300]
    answer = reply.json()
    assert answer["response_type"] == "ephemeral"
    return answer


def listed(answer: dict[str, Any]) -> list[str]:
    """The entry ids a lookup's answer lists (its Show buttons)."""
    return [b["accessory"]["value"] for b in answer.get("blocks") or [] if b.get("accessory", {}).get("type") == "button"]


@pytest.mark.parametrize("vague", [
    "training failed",
    "cuda error",
    "my job failed",
    "job crashed",
    "training hangs",
    "nccl error",
    "rank 3 died",
    "trainng failed",  # a typo of a vague word is still vague
    "RuntimeError: training failed",
    "RuntimeError: CUDA error",
])
def test_a_lookup_naming_no_failure_asks_for_the_error_line(bot: Bot, fake_slack: FakeSlack, vague: str) -> None:
    """`/denpex training failed` (or "cuda error": 85 entries share "cuda") lists no entry, which
    would be a guess among dozens; it says the words name no failure and what to send instead:
    the error line, with an example lookup, or the log itself. Nothing is posted in the channel."""
    answer = lookup(bot, vague)
    shown = answer["text"] + json.dumps(answer["blocks"])
    assert listed(answer) == [], (vague, listed(answer))
    assert GUIDANCE in shown and vague.split()[0] in shown
    assert "/denpex torch.OutOfMemoryError: CUDA out of memory" in shown and "DM" in shown
    assert all(len(b["text"]["text"]) <= 3000 for b in answer["blocks"])
    quiesce(bot, fake_slack)
    assert not fake_slack.of("chat.postMessage")


@pytest.mark.parametrize("specific,first", [
    ("out of memory", "cuda-oom"),
    ("loss is nan", "loss-nan"),
    ("segmentation fault", "native-segfault"),
    ("nccl watchdog timeout", "nccl-watchdog-timeout"),
    ("CUDA error: an illegal memory access was encountered", "cuda-illegal-memory-access"),
    ("RuntimeError: CUDA error: device-side assert triggered", "cuda-device-side-assert"),
])
def test_a_lookup_naming_a_failure_still_lists_its_entry_first(bot: Bot, specific: str, first: str) -> None:
    """Words that do name a failure (or an error line a signature matches) are not told to be
    more specific: the entry comes first."""
    answer = lookup(bot, specific)
    assert listed(answer)[:1] == [first], (specific, listed(answer))
    assert GUIDANCE not in answer["text"]


def test_a_one_line_paste_naming_no_failure_points_at_the_rest_of_the_log(bot: Bot, fake_slack: FakeSlack) -> None:
    """"RuntimeError: CUDA error" alone in the bot's DM: no entry matches it, nothing is
    charged, and the reply asks for the lines above it (its lookup would only say the line is
    too general), not just to look the same line up."""
    from tests.slack import events as ev
    from tests.slack.conftest import wait_handled

    ts = "1703000300.000100"
    bot.event(ev.message("RuntimeError: CUDA error", ts, channel="D0DM0017", channel_type="im"))
    wait_handled(bot, ts, channel="D0DM0017", timeout=30)
    (reply,) = [p for p in fake_slack.of("chat.postMessage") if p.params.get("thread_ts") == ts]
    shown = ev.all_text(reply)
    assert "No known failure matched" in shown and "the lines above this one" in shown
    assert ev.used(bot) == 0


def test_a_vague_lookup_quoting_a_secret_never_echoes_it(bot: Bot) -> None:
    """The guidance echoes the query, masked as every lookup's echo is."""
    aws_key = "AKIA" + "Q3EGRH7NX5LMPW2K"
    answer = lookup(bot, f"training failed with key {aws_key}")
    assert aws_key not in json.dumps(answer)


@pytest.mark.parametrize("text", [
    "训练失败了",  # "training failed", in Chinese: no word the index reads
    "ошибка: CUDA out of memory",
    "🔥🔥 job crashed 🔥🔥",
    "Trainingsfehler: NCCL error",
])
def test_a_unicode_lookup_is_answered_privately_at_once(bot: Bot, fake_slack: FakeSlack, text: str) -> None:
    """Other scripts and emoji: an ephemeral answer (entries, guidance or "No entry matches"),
    never a crash; the English error inside a Russian line still finds its entry."""
    answer = lookup(bot, text)
    assert answer["text"]
    if "CUDA out of memory" in text:
        assert listed(answer)[:1] == ["cuda-oom"]
    quiesce(bot, fake_slack)
    assert not fake_slack.of("chat.postMessage")


def test_alerts_connect_from_a_workspace_the_single_token_cannot_post_in_is_refused(bot: Bot) -> None:
    """Single-token mode: `/denpex alerts connect` from another workspace (a channel shared
    with it; its Scale plan granted) hands out no ingest token, which the ingest endpoint would
    refuse with 403 anyway, and says why and where to run it; nothing is stored for that
    workspace. The bot's own workspace still connects."""
    with Store(StoreConfig(url=bot.redis_url)) as store:
        make_scale(store, OTHER_TEAM)
        make_scale(store, TEAM_ID)
        refused = lookup(bot, "alerts connect", team=OTHER_TEAM)
        shown = refused["text"] + json.dumps(refused["blocks"])
        assert TOKEN.search(shown) is None
        assert "installed in another workspace" in shown and "alerts connect" in shown
        assert store.alerts.channels(OTHER_TEAM) == []
        own = lookup(bot, "alerts connect")
        assert TOKEN.search(json.dumps(own["blocks"]))
        assert store.alerts.channels(TEAM_ID) == ["C0LOGS"]
        # Reading status and revoking from the other side answer without a token too.
        assert "No channel is connected" in lookup(bot, "alerts status", team=OTHER_TEAM)["text"]
        assert "no ingest token" in json.dumps(lookup(bot, "alerts revoke", team=OTHER_TEAM)["blocks"])
        assert store.alerts.channels(TEAM_ID) == ["C0LOGS"]


def _send_alert(bot: Bot, token: str) -> int:
    """A freshly stamped `denpex watch` alert (rank 3's OOM) sent with `token`: the status."""
    from tests.watch.test_ingest import body, send

    return send(bot, token, body())[0]


@pytest.mark.parametrize("leaving", [
    {"type": "app_uninstalled"},
    {"type": "tokens_revoked", "tokens": {"bot": ["UBOT0001"]}},
])
def test_uninstalling_stops_the_workspaces_alert_tokens(bot: Bot, fake_slack: FakeSlack, leaving: dict) -> None:
    """A connected channel's ingest token stops working once the app is uninstalled (or its bot
    token revoked): the watcher is refused (401), nothing is posted with a token Slack has
    revoked, and the Scale plan itself is kept for a re-install."""
    with Store(StoreConfig(url=bot.redis_url)) as store:
        make_scale(store, TEAM_ID)
        token = TOKEN.search(json.dumps(lookup(bot, "alerts connect")["blocks"])).group(0)
        assert _send_alert(bot, token) == 200
        assert bot.event(dict(leaving, event_ts="1703000100.000100")).status == 200
        quiesce(bot, fake_slack, quiet_s=0.5)
        posted = len(fake_slack.of("chat.postMessage"))
        assert _send_alert(bot, token) == 401
        assert store.alerts.channels(TEAM_ID) == []
        assert store.plans.get(TEAM_ID).plan == "scale"
    assert len(fake_slack.of("chat.postMessage")) == posted == 1


def test_a_user_token_revoked_keeps_the_alert_token(bot: Bot, fake_slack: FakeSlack) -> None:
    """`tokens_revoked` naming only a person's OAuth token leaves the workspace, and its alerts,
    as they were."""
    with Store(StoreConfig(url=bot.redis_url)) as store:
        make_scale(store, TEAM_ID)
        token = TOKEN.search(json.dumps(lookup(bot, "alerts connect")["blocks"])).group(0)
        event = {"type": "tokens_revoked", "tokens": {"oauth": ["U0ALICE"]}, "event_ts": "1703000200.000100"}
        assert bot.event(event).status == 200
        quiesce(bot, fake_slack, quiet_s=0.5)
        assert _send_alert(bot, token) == 200
        assert store.alerts.channels(TEAM_ID) == ["C0LOGS"]


def test_a_scale_workspace_at_its_limit_is_not_told_to_redeem_the_plan_it_is_on(bot: Bot, fake_slack: FakeSlack) -> None:
    """The 51st log of a Scale day: the limit told with its reset, not "redeem an evaluation code
    (scale plan: 50 a day)", which it has; nothing charged past 50. A free workspace at its
    limit is still pointed at `/denpex redeem`."""
    from tests.slack import events as ev
    from tests.slack.conftest import wait_handled

    with Store(StoreConfig(url=bot.redis_url)) as store:
        make_scale(store, TEAM_ID)
        for _ in range(50):
            assert store.quotas.consume(TEAM_ID).allowed
    ts = "1703000400.000100"
    bot.event(ev.message(ev.OOM_PASTE, ts))
    wait_handled(bot, ts, timeout=30)
    (told,) = [p for p in fake_slack.of("chat.postMessage") if p.params.get("thread_ts") == ts]
    shown = ev.all_text(told)
    assert "Daily limit reached" in shown and "50 of 50" in shown and "*scale* plan" in shown
    assert "redeem" not in shown and "resets at" in shown
    assert ev.used(bot) == 50
    with Store(StoreConfig(url=bot.redis_url)) as store:
        for _ in range(3):
            store.quotas.consume(OTHER_TEAM)
    ts = "1703000401.000100"
    bot.event(ev.message(ev.OOM_PASTE, ts, team=OTHER_TEAM), team=OTHER_TEAM)
    wait_handled(bot, ts, team=OTHER_TEAM, timeout=30)
    (free,) = [p for p in fake_slack.of("chat.postMessage") if p.params.get("thread_ts") == ts]
    assert "Daily limit reached" in ev.all_text(free) and "/denpex redeem" in ev.all_text(free)
