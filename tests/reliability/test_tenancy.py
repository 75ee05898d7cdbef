"""Workspaces are sealed from each other: thread context, quota, feedback and history of one
are never seen, spent or changed by another, even on identical channel ids and timestamps."""

from __future__ import annotations

import json

from bot.store import Store, StoreConfig
from tests.reliability.conftest import SAMPLE, all_text, message, new_ts, used
from tests.slack.conftest import wait_handled
from tests.slack.events import CHANNEL
from tests.slack.fake_slack import TEAM_ID

OTHER = "T0OTHER02"


def test_follow_up_in_another_workspaces_thread_gets_nothing(rbot, rfake):
    """Same channel id and thread ts, other workspace: no answer, no context leaks; the owner still gets one."""
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("chat.postMessage", thread_ts=ts)
    asked = [new_ts(), new_ts() + "1"]
    rbot.event(message("how do I confirm this?", asked[0], thread_ts=ts, team=OTHER), team=OTHER)
    rbot.event(message("is this hardware?", asked[1], thread_ts=ts, team=OTHER), team=OTHER)
    wait_handled(rbot, *asked, team=OTHER)
    assert len(rfake.delivered("chat.postMessage", thread_ts=ts)) == 1
    rbot.event(message("how do I confirm this?", new_ts(), thread_ts=ts))
    answer = rfake.wait_delivered("chat.postMessage", thread_ts=ts, count=2)[1]
    assert "How to confirm" in all_text(answer)
    with Store(StoreConfig(url=rbot.redis_url)) as store:
        assert store.threads.load(OTHER, CHANNEL, ts) is None
        assert store.threads.load(TEAM_ID, CHANNEL, ts) is not None
        assert all(OTHER in k for k in store.workspace_keys(OTHER))
        assert not any(ts in k for k in store.workspace_keys(OTHER) if ":thread" in k)


def test_one_workspace_spending_its_quota_leaves_the_others_untouched(rbot, rfake):
    """Workspace A at its daily limit: B is still diagnosed, and each /denpex quota shows its own count."""
    for _ in range(4):
        ts = new_ts()
        rbot.event(message(SAMPLE, ts))
        rfake.wait_delivered("chat.postMessage", thread_ts=ts)
    assert "Daily limit reached" in all_text(rfake.delivered("chat.postMessage")[-1])
    ts = new_ts()
    rbot.event(message(SAMPLE, ts, team=OTHER), team=OTHER)
    assert "cuda-oom" in all_text(rfake.wait_delivered("chat.postMessage", thread_ts=ts)[0])
    assert (used(rbot), used(rbot, OTHER)) == (3, 1)
    assert "3 of 3" in rbot.command("quota").json()["text"]
    assert "1 of 3" in rbot.command("quota", team=OTHER).json()["text"]


def test_feedback_is_counted_per_workspace(rbot, rfake):
    """The same user id voting on the same thread key from two workspaces: two separate votes."""
    rbot.action("denpex_feedback_right", "cuda-oom", thread_ts="1700000000.000100")
    rbot.action("denpex_feedback_wrong", "cuda-oom", thread_ts="1700000000.000100", team=OTHER)
    rfake.wait_delivered("chat.postEphemeral", count=2)
    with Store(StoreConfig(url=rbot.redis_url)) as store:
        row = {r.rule_id: r for r in store.feedback.summary()}["cuda-oom"]
    split = {t.team_id: (t.right, t.wrong) for t in row.teams}
    assert split == {TEAM_ID: (1, 0), OTHER: (0, 1)}


def test_home_tab_shows_only_the_workspaces_own_usage_and_history(rbot, rfake):
    """After A's diagnosis, B's Home tab shows no usage and none of A's history."""
    ts = new_ts()
    rbot.event(message(SAMPLE, ts))
    rfake.wait_delivered("chat.postMessage", thread_ts=ts)
    rbot.event({"type": "app_home_opened", "user": "U0BOB", "channel": "D0HOME", "tab": "home"}, team=OTHER)
    view = json.dumps(rfake.wait_delivered("views.publish")[0].params["view"])
    assert "cuda-oom" not in view and "CUDA Out of Memory" not in view
    rbot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"})
    mine = json.dumps(rfake.wait_delivered("views.publish", count=2)[1].params["view"])
    assert "CUDA Out of Memory" in mine or "cuda-oom" in mine, "the owner sees its own history"
