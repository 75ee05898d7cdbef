"""The outage guard: a listener registered through OutageGuardedApp, acknowledging or lazy,
whose store does not answer is answered the one way bot.slack.outage decides, whatever the
listener itself forgot. A real Bolt app behind the bot's WSGI entry on loopback, signed
requests over HTTP, the Slack stand-in, and a real Store pointed at a port nothing listens on."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.slack.http import wsgi_app
from bot.slack.middleware import workspace
from bot.slack.outage import OutageGuardedApp
from bot.store import Store, StoreConfig
from tests.slack.conftest import SIGNING_SECRET, Bot, free_port
from tests.slack.fake_slack import BOT_TOKEN, TEAM_ID, FakeSlack

UNAVAILABLE = "temporarily unavailable"


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def forgetful_bot(fake_slack: FakeSlack) -> Iterator[Bot]:
    """Listeners that use the store and handle none of its failures, on a dead Redis."""
    fake_slack.reset()
    store = Store(StoreConfig(url=f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.2, connect_timeout_s=0.2))
    app = App(token=BOT_TOKEN, signing_secret=SIGNING_SECRET, client=WebClient(token=BOT_TOKEN, base_url=fake_slack.api_url))
    app.use(workspace)
    guarded: Any = OutageGuardedApp(app)

    def ack_now(ack: Ack) -> None:
        ack()

    def on_message(event: dict[str, Any], context: Any) -> None:
        store.quotas.status(context["workspace_id"])

    def on_command(ack: Ack, context: Any) -> None:
        store.quotas.status(context["workspace_id"])
        ack("never reached")

    def on_click(context: Any) -> None:
        store.feedback.vote(context["workspace_id"], "cuda-oom", "U0ALICE", True, thread_key="C0LOGS:1.1")

    def on_mention(event: dict[str, Any]) -> None:
        raise KeyError("a bug of ours, not an outage")

    def on_lookup(ack: Ack) -> None:
        ack()

    def on_lookup_later(body: dict[str, Any]) -> None:
        raise ValueError("a bug in a command's lazy part")

    guarded.event("message")(ack=ack_now, lazy=[on_message])
    guarded.event("app_mention")(ack=ack_now, lazy=[on_mention])
    guarded.command("/denpex-lookup")(ack=on_lookup, lazy=[on_lookup_later])
    guarded.command("/denpex")(on_command)
    guarded.action("denpex_feedback_right")(ack=ack_now, lazy=[on_click])
    server = make_server("127.0.0.1", 0, wsgi_app(app, store, SIGNING_SECRET), handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Bot(f"http://127.0.0.1:{server.server_port}", None, "", {})  # type: ignore[arg-type]
    finally:
        server.shutdown()
        server.server_close()


def test_a_lazy_listener_meeting_an_outage_tells_the_thread(forgetful_bot, fake_slack):
    """A lazy message listener raising StoreUnavailable: the outage notice lands in the message's thread."""
    ts = "1700006000.000100"
    event = {"type": "message", "channel": "C0LOGS", "user": "U0ALICE", "text": "x", "ts": ts,
             "channel_type": "channel", "team": TEAM_ID}
    assert forgetful_bot.event(event).status == 200
    (post,) = fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=10)
    assert UNAVAILABLE in post.params["text"] and "Nothing was charged" in post.params["text"]


def test_a_command_meeting_an_outage_is_acknowledged_with_the_notice(forgetful_bot):
    """An acknowledging listener raising before its ack: the command is still acked, ephemerally, with the notice."""
    reply = forgetful_bot.command("quota")
    assert reply.status == 200
    body = reply.json()
    assert UNAVAILABLE in body["text"] and body["response_type"] == "ephemeral"


def test_a_click_meeting_an_outage_gets_an_ephemeral_notice(forgetful_bot, fake_slack):
    """A lazy click listener raising StoreUnavailable: the person who clicked gets the notice, only they see it."""
    assert forgetful_bot.action("denpex_feedback_right", "cuda-oom").status == 200
    (note,) = fake_slack.wait_for("chat.postEphemeral", timeout=10)
    assert note.params["user"] == "U0ALICE" and UNAVAILABLE in note.params["text"]
    time.sleep(0.1)
    assert fake_slack.of("chat.postMessage") == []



INTERNAL = "internal error"


def test_a_lazy_listeners_bug_is_logged_with_its_traceback_and_told_in_the_thread(forgetful_bot, fake_slack, caplog):
    """Bolt logs a lazy listener's exception as one line with no traceback, and the person hears
    nothing: the guard logs the traceback and says in the thread that it failed."""
    ts = "1700006000.000200"
    event = {"type": "app_mention", "channel": "C0LOGS", "user": "U0ALICE", "text": "<@UBOT> hi", "ts": ts,
             "team": TEAM_ID}
    with caplog.at_level("ERROR", logger="denpex.slack"):
        assert forgetful_bot.event(event).status == 200
        (post,) = fake_slack.wait_for("chat.postMessage", thread_ts=ts, timeout=10)
    assert INTERNAL in post.params["text"] and UNAVAILABLE not in post.params["text"]
    (record,) = [r for r in caplog.records if r.name == "denpex.slack" and r.exc_info]
    assert record.exc_info is not None and record.exc_info[0] is KeyError
    assert "on_mention" in record.getMessage()


def test_a_commands_lazy_bug_reaches_the_person_ephemerally(forgetful_bot, fake_slack):
    """A command's lazy part failing long after its ack: the person who typed it gets an
    ephemeral note in that channel, not silence."""
    body = Bot.command_body("x").replace(b"command=%2Fdenpex&", b"command=%2Fdenpex-lookup&")
    assert b"denpex-lookup" in body
    reply = forgetful_bot.post(body, "application/x-www-form-urlencoded")
    assert reply.status == 200
    (note,) = fake_slack.wait_for("chat.postEphemeral", timeout=10)
    assert note.params["user"] and INTERNAL in note.params["text"]
