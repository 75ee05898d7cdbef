"""The ingest endpoint's answers, over real HTTP to the real bot: each bad request gets its own
clear answer, nothing is posted twice and nothing is charged twice."""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import replace

import pytest

from bot.store import Store
from bot.watch.protocol import Alert, EvidenceLine, JobExit
from tests.slack.conftest import Bot, free_port, start_bot, stop_bot
from tests.slack.fake_slack import TEAM_ID, FakeSlack
from tests.slack.test_bot import check_limits
from tests.watch.conftest import TOKEN, connect, make_scale

OOM = ("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 3 has a total capacity "
       "of 79.15 GiB of which 2.87 GiB is free.")
ALERT = Alert(job="job-42", kind="alert", root="cuda-oom", confidence="high", initiating_rank=3, host=None,
              ranks=[3], evidence=[EvidenceLine(12, 3, OOM)])


def send(bot: Bot, token: str | None, body: bytes, ctype: str = "application/json") -> tuple[int, dict, dict]:
    headers = {"Content-Type": ctype}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(bot.url + "/denpex/alerts", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read()), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), dict(e.headers)


def body(alert: Alert = ALERT, nonce: str | None = None, sent_at: float | None = None) -> bytes:
    return alert.to_json(nonce or secrets.token_hex(16), time.time() if sent_at is None else sent_at)


def test_an_alert_is_posted_once_and_charged_once(bot: Bot, fake_slack: FakeSlack, token: str, store: Store) -> None:
    """A retried alert (new request, same job and cause) gets the message already posted."""
    status, first, _ = send(bot, token, body())
    assert status == 200 and first["ok"] and first["channel"] == "C0LOGS"
    check_limits(fake_slack.of("chat.postMessage")[0])
    assert "denpex_feedback_right" in str(fake_slack.of("chat.postMessage")[0].params["blocks"])
    status, again, _ = send(bot, token, body())
    assert status == 200 and again["duplicate"] and again["ts"] == first["ts"]
    other = replace(ALERT, root="disk-full", initiating_rank=None, evidence=[])  # a second cause of its own
    assert send(bot, token, body(other))[0] == 200
    assert len(fake_slack.of("chat.postMessage")) == 2
    assert store.quotas.status(TEAM_ID).used == 1  # one job, one charge


def test_final_alert_updates_the_first_message(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    """The job's end edits its first alert in place, saying how it ended."""
    _, first, _ = send(bot, token, body())
    final = replace(ALERT, kind="final", exit=JobExit(1, None))
    status, answer, _ = send(bot, token, body(final))
    assert status == 200 and answer["updated"] and answer["ts"] == first["ts"]
    update = fake_slack.wait_for("chat.update")[0]
    assert update.params["ts"] == first["ts"] and "exit code 1" in str(update.params["blocks"])
    assert len(fake_slack.of("chat.postMessage")) == 1


def test_the_alert_thread_answers_follow_ups(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    """Like any diagnosis thread: a question in it is answered from the entry."""
    _, first, _ = send(bot, token, body())
    bot.event({"type": "message", "channel": "C0LOGS", "user": "U0ALICE", "text": "how do I confirm this?",
               "ts": f"{float(first['ts']) + 5:.6f}", "thread_ts": first["ts"], "channel_type": "channel"})
    answers = fake_slack.wait_for("chat.postMessage", count=2)
    assert answers[1].params.get("thread_ts") == first["ts"]
    assert "CUDA Out of Memory" in str(answers[1].params)


def test_a_secret_the_node_left_in_is_masked_by_the_bot(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    """A watcher that skipped masking still cannot put a raw token into Slack."""
    leak = "hf_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f"
    alert = replace(ALERT, evidence=[EvidenceLine(12, 3, f"{OOM} HF_TOKEN={leak}")])
    assert send(bot, token, body(alert))[0] == 200
    posted = str(fake_slack.of("chat.postMessage")[0].params)
    assert leak not in posted and "HF_TOKEN=" in posted


def test_markup_a_node_sends_in_any_field_stays_inert(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    """Every string a watcher sends (the signal that ended the job, the collective, the
    evidence) reaches Slack escaped: `<!channel>` from a node never pings anyone."""
    first = replace(ALERT, evidence=[EvidenceLine(12, 3, f"{OOM} <!channel> & <@U0BOSS>")])
    assert send(bot, token, body(first))[0] == 200
    final = replace(first, kind="final", exit=JobExit(None, "<!channel>"))
    assert send(bot, token, body(final))[0] == 200
    for call in [*fake_slack.of("chat.postMessage"), *fake_slack.wait_for("chat.update")]:
        sent = json.dumps(call.params.get("blocks")) + call.params.get("text", "")
        assert "<!channel>" not in sent and "<@U0BOSS>" not in sent, sent
    assert "signal &lt;!channel&gt;" in json.dumps(fake_slack.of("chat.update")[0].params["blocks"])


@pytest.mark.parametrize(
    ("auth", "expect"),
    [(None, "no ingest token"), ("dpx1.T0TEST001.notatokenwehaveeverissued00", "unknown ingest token"),
     ("xoxb-1234", "unknown ingest token")],
    ids=["missing", "unknown", "malformed"],
)
def test_requests_without_a_valid_token_are_refused(bot: Bot, fake_slack: FakeSlack, auth: str | None, expect: str) -> None:
    """401 with what to do, nothing posted."""
    status, answer, _ = send(bot, auth, body())
    assert status == 401 and expect in answer["error"]
    assert not fake_slack.of("chat.postMessage")


def test_a_revoked_token_says_so(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    reply = bot.command("alerts revoke")
    assert b"Revoked" in reply.body
    status, answer, _ = send(bot, token, body())
    assert status == 401 and "revoked" in answer["error"]
    assert not fake_slack.of("chat.postMessage")


def test_connecting_again_replaces_the_token(bot: Bot, token: str) -> None:
    newer = connect(bot)
    assert newer != token
    assert send(bot, token, body())[0] == 401
    assert send(bot, newer, body())[0] == 200


def test_a_token_of_another_workspace_is_refused(bot: Bot, fake_slack: FakeSlack, store: Store) -> None:
    """The single-workspace bot cannot post in a workspace it is not installed in: 403. (The
    slash command no longer hands out such a token; one made before, or kept from a
    multi-workspace install, is planted here.)"""
    make_scale(store, "T0OTHER01")
    other = store.alerts.connect("T0OTHER01", "C0LOGS", "U0ALICE", public=True)
    status, answer, _ = send(bot, other, body())
    assert status == 403 and "T0OTHER01" in answer["error"]
    assert not fake_slack.of("chat.postMessage")


def test_a_replayed_request_is_refused(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    raw = body()
    assert send(bot, token, raw)[0] == 200
    status, answer, _ = send(bot, token, raw)
    assert status == 409 and "replayed" in answer["error"]
    assert len(fake_slack.of("chat.postMessage")) == 1


def test_a_stale_request_is_refused(bot: Bot, token: str) -> None:
    status, answer, _ = send(bot, token, body(sent_at=time.time() - 900))
    assert status == 400 and "clock" in answer["error"]


def test_an_oversized_body_is_refused(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    status, answer, _ = send(bot, token, b"{" + b" " * 70_000 + b"}")
    assert status == 413 and "at most" in answer["error"]
    assert not fake_slack.of("chat.postMessage")


@pytest.mark.parametrize(
    ("raw", "expect"),
    # Bodies are built when the test runs, not at collection: a signed body carries its send
    # time, and a slow suite would otherwise have it past the endpoint's clock window.
    [(lambda: b"not json", "not JSON"), (lambda: b'{"protocol": "other/9"}', "protocol must be"),
     (lambda: body(replace(ALERT, job="has space")), "job must be"),
     (lambda: body(replace(ALERT, root="no-such-entry")), "unknown entry id")],
    ids=["not-json", "wrong-protocol", "bad-job", "unknown-entry"],
)
def test_bodies_that_are_not_the_protocol_are_refused(bot: Bot, fake_slack: FakeSlack, token: str,
                                                      raw: Callable[[], bytes], expect: str) -> None:
    status, answer, _ = send(bot, token, raw())
    assert status in (400, 422) and expect in answer["error"]
    assert not fake_slack.of("chat.postMessage")


def test_a_free_workspace_is_told_alerts_are_a_scale_feature(bot: Bot, fake_slack: FakeSlack, store: Store) -> None:
    """Both at connect time and, if the plan lapsed, at the endpoint (402)."""
    reply = bot.command("alerts connect")
    assert b"Scale plan feature" in reply.body and b"dpx1." not in reply.body
    make_scale(store)
    token = connect(bot)
    store.plans.revoke(TEAM_ID)
    status, answer, _ = send(bot, token, body())
    assert status == 402 and "Scale plan" in answer["error"]
    assert not fake_slack.of("chat.postMessage")
    assert store.quotas.status(TEAM_ID).used == 0


def test_the_token_is_rate_limited(bot: Bot, token: str) -> None:
    statuses = [send(bot, token, body())[0] for _ in range(31)]
    assert statuses[:30] == [200] * 30 and statuses[30] == 429


def test_redis_down_is_a_503_the_watcher_retries(fake_slack: FakeSlack) -> None:
    """With the store away the bot answers 503 with Retry-After, and posts nothing."""
    dead = start_bot(fake_slack, f"redis://127.0.0.1:{free_port()}/0")
    try:
        fake_slack.reset()
        status, answer, headers = send(dead, "dpx1.T0TEST001." + "a" * 43, body())
        assert status == 503 and "state store" in answer["error"] and headers.get("Retry-After") == "5"
        assert not fake_slack.of("chat.postMessage")
    finally:
        stop_bot(dead)


def test_app_home_lists_connected_channels_and_recent_alerts(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    assert send(bot, token, body())[0] == 200
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"})
    view = json.dumps(fake_slack.wait_for("views.publish")[0].params["view"])
    assert "Alerts* go to <#C0LOGS>" in view
    assert "CUDA Out of Memory" in view and "job-42" in view
    assert "Plan" in view  # the rest of the tab is still there


def test_app_home_tells_no_cause_or_job_of_a_private_channel(bot: Bot, fake_slack: FakeSlack, store: Store) -> None:
    """Every member opens the Home tab: an alert of a channel connected where Slack called it
    `privategroup` is listed by its mention alone (Slack hides a private channel's name from
    outsiders), without its cause or job; connected again as public, both are shown."""
    make_scale(store)
    reply = bot.post(bot.command_body("alerts connect").replace(b"channel_name=training", b"channel_name=privategroup"),
                     "application/x-www-form-urlencoded")
    token = TOKEN.search(reply.body.decode()).group()
    assert send(bot, token, body())[0] == 200
    bot.event({"type": "app_home_opened", "user": "U0BOB", "channel": "D0HOME", "tab": "home"})
    view = json.dumps(fake_slack.wait_for("views.publish")[0].params["view"])
    assert "<#C0LOGS> (alert; a private channel" in view
    assert "CUDA Out of Memory" not in view and "job-42" not in view
    connect(bot)  # the same channel connected again, named by Slack: public
    assert store.alerts.public_channels(TEAM_ID) == {"C0LOGS"}
    fake_slack.reset()
    bot.event({"type": "app_home_opened", "user": "U0BOB", "channel": "D0HOME", "tab": "home"})
    view = json.dumps(fake_slack.wait_for("views.publish")[0].params["view"])
    assert "CUDA Out of Memory" in view and "job-42" in view


def test_redis_keeps_the_token_hashed_and_no_log_text(bot: Bot, token: str) -> None:
    """Shown once: Redis holds its SHA-256, never the token; the alert records hold no log text
    (the masked evidence lives only in the thread context, as for any diagnosis thread)."""
    import redis

    assert send(bot, token, body())[0] == 200
    r = redis.Redis.from_url(bot.redis_url)
    dump = " ".join(f"{k!r} {r.dump(k)!r}" for k in r.scan_iter())
    assert token.rsplit(".", 1)[1][:12] not in dump
    alert_keys = [k for k in r.scan_iter() if b":alerts:" in k]
    assert len(alert_keys) >= 3  # token, channels, job, recent...
    assert not any(b"OutOfMemory" in (r.dump(k) or b"") for k in alert_keys)


def test_a_workspace_out_of_diagnoses_is_told_when_alerts_resume(bot: Bot, fake_slack: FakeSlack, token: str,
                                                                  store: Store) -> None:
    """The day's quota is spent: 429 saying when it resets; nothing posted, nothing charged."""
    while store.quotas.consume(TEAM_ID).allowed:
        pass
    used = store.quotas.status(TEAM_ID).used
    status, answer, headers = send(bot, token, body())
    assert status == 429 and "diagnoses today" in answer["error"] and int(headers["Retry-After"]) >= 60
    assert not fake_slack.of("chat.postMessage")
    assert store.quotas.status(TEAM_ID).used == used


def test_a_post_slack_refuses_is_refunded_and_can_be_retried(bot: Bot, fake_slack: FakeSlack, token: str,
                                                             store: Store) -> None:
    """not_in_channel: 502 with Slack's reason, the charge given back, a later retry posts once."""
    fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": "not_in_channel"})
    status, answer, _ = send(bot, token, body())
    assert status == 502 and "not_in_channel" in answer["error"]
    assert store.quotas.status(TEAM_ID).used == 0
    assert send(bot, token, body())[0] == 200
    assert store.quotas.status(TEAM_ID).used == 1
    assert len(fake_slack.of("chat.postMessage")) == 2  # the refused one and the real one


@pytest.mark.parametrize("posted", [True, False], ids=["posted", "not-posted"])
@pytest.mark.parametrize("answer", ["internal_error-200", "503"])
def test_an_alert_slack_answers_with_an_unknown_outcome_lands_once(bot: Bot, fake_slack: FakeSlack, token: str,
                                                                   store: Store, answer: str, posted: bool) -> None:
    """chat.postMessage answering a 503, or `internal_error` in a 200, whether or not Slack did
    post: the alert is looked for in the channel by its metadata, posted again only if absent,
    and the watcher gets 200 with the one message's ts (a 502 would make it retry: two alerts)."""
    if answer == "503":
        fake_slack.fail("chat.postMessage", 503, posted=posted)
    else:
        fake_slack.fail("chat.postMessage", 200, body={"ok": False, "error": "internal_error"}, posted=posted)
    status, reply, _ = send(bot, token, body())
    assert status == 200, reply
    with fake_slack.lock:
        landed = [m for m in fake_slack.messages if m["thread_ts"] == m["ts"]]
    assert len(landed) == 1 and reply["ts"] == landed[0]["ts"]
    assert (landed[0]["metadata"] or {}).get("event_type") == "denpex_alert"
    assert store.quotas.status(TEAM_ID).used == 1
    assert send(bot, token, body())[1].get("duplicate") is True


def test_a_failed_job_no_entry_knows_is_posted_and_free(bot: Bot, fake_slack: FakeSlack, token: str, store: Store) -> None:
    final = Alert(job="job-7", kind="final", root=None, confidence=None, initiating_rank=1, host=None, ranks=[],
                  evidence=[], unmatched="ValueError: bad shape in batch 17", exit=JobExit(1, None))
    status = send(bot, token, body(final))[0]
    assert status == 200
    posted = str(fake_slack.wait_for("chat.postMessage")[0].params)
    assert "No known failure matched" in posted and "bad shape in batch 17" in posted
    assert store.quotas.status(TEAM_ID).used == 0


@pytest.mark.parametrize(("given", "url"), [("https://bot.example", "https://bot.example/denpex/alerts"),
                                            ("https://bot.example/slack/events", "https://bot.example/denpex/alerts"),
                                            ("https://bot.example/denpex/alerts/", "https://bot.example/denpex/alerts")],
                         ids=["base", "events-url", "endpoint"])
def test_the_watcher_finds_the_endpoint_from_the_url_it_is_given(given: str, url: str) -> None:
    from bot.watch.client import ingest_url

    assert ingest_url(given) == url


def test_other_nodes_timeouts_do_not_bury_the_first_nodes_cause(bot: Bot, fake_slack: FakeSlack, token: str) -> None:
    """One job on two nodes, each with its own watcher: node A tells rank 3's OOM; node B's
    ranks only time out waiting for it. B's alert and final are folded into A's message."""
    _, first, _ = send(bot, token, body())
    timeout = replace(ALERT, root="nccl-watchdog-timeout", confidence="medium", initiating_rank=None, ranks=[8, 9],
                      evidence=[])
    status, answer, _ = send(bot, token, body(timeout))
    assert status == 200 and answer["ts"] == first["ts"] and answer["collateral_of"] == "cuda-oom"
    status, answer, _ = send(bot, token, body(replace(timeout, kind="final", exit=JobExit(1, None))))
    assert status == 200 and answer["ts"] == first["ts"]
    assert len(fake_slack.of("chat.postMessage")) == 1 and not fake_slack.of("chat.update")
    status, answer, _ = send(bot, token, body(replace(ALERT, kind="final", exit=JobExit(1, None))))
    assert status == 200 and answer["updated"]
    assert "CUDA Out of Memory" in str(fake_slack.wait_for("chat.update")[0].params)


@pytest.mark.parametrize(("channel", "name", "public"), [
    ("C0LOGS", "training", True),
    ("C0LOGS", "privategroup", False),  # a private channel, as slash commands name it
    ("G0OLD", "ml-oncall", False),  # an old-style private channel id
    ("C0MPIM", "mpdm-alice--bob-1", False),  # a group DM
    ("C0LOGS", "", False),  # not named: not known to be public
])
def test_only_a_channel_slack_names_is_public(channel: str, name: str, public: bool) -> None:
    from bot.slack.alerts_command import is_public

    assert is_public(channel, name) is public


@pytest.mark.parametrize("error", ["message_not_found", "cant_update_message", "edit_window_closed"])
def test_a_final_alert_whose_first_message_cannot_be_edited_is_posted_anew(bot: Bot, fake_slack: FakeSlack, token: str,
                                                                         store: Store, error: str) -> None:
    """The job's end, when Slack will not edit its first alert (deleted by someone:
    `message_not_found`; `cant_update_message`; `edit_window_closed`): the final alert posted
    as a message of its own, once, charged once for the job; a retry of the same final alert
    is its duplicate (was a 502 on every retry for 15 minutes: the job's end never told)."""
    _, first, _ = send(bot, token, body())
    fake_slack.fail("chat.update", 200, body={"ok": False, "error": error})
    final = replace(ALERT, kind="final", exit=JobExit(1, None))
    status, answer, _ = send(bot, token, body(final))
    assert status == 200 and answer["ok"] and not answer["updated"] and answer["ts"] != first["ts"], answer
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 2 and "exit code 1" in str(posts[1].params["blocks"])
    status, again, _ = send(bot, token, body(final))
    assert status == 200 and again["ts"] == answer["ts"] and len(fake_slack.of("chat.postMessage")) == 2
    assert store.quotas.status(TEAM_ID).used == 1
