"""The Slack edge's security: the bot token goes only to Slack, nothing from a log or a user
becomes live markup, code blocks hold any line, echoed queries are masked, code guessing
cannot lock out the real code, and a replayed signed command runs once."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from bot.store import Store, StoreConfig
from tests.slack.conftest import Bot, sign
from tests.slack.events import LIVE_MRKDWN, OOM_PASTE, message, mrkdwn_strings
from tests.slack.fake_slack import BOT_TOKEN, TEAM_ID, FakeFile


def assert_inert(strings: list[str]) -> None:
    for s in strings:
        assert not LIVE_MRKDWN.search(s), f"live markup reached Slack: {s[:500]!r}"


class Elsewhere:
    """A host that is not Slack's: records every request and its Authorization header."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.seen.append({"path": self.path, "auth": self.headers.get("Authorization", "")})
                body = OOM_PASTE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/steal/rank3.log"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def elsewhere() -> Iterator[Elsewhere]:
    e = Elsewhere()
    yield e
    e.stop()


def test_a_download_url_off_slack_never_gets_the_token(bot, fake_slack, elsewhere):
    """files.info naming a download host that is not Slack's: nothing is sent there, and the user is told why."""
    f = fake_slack.add_file(FakeFile(id="FOFFHOST1", name="rank3.log", content=b"", download_url=elsewhere.url))
    bot.event(message("", "1700001000.000100", subtype="file_share", files=[f]))
    post = fake_slack.wait_for("chat.postMessage", timeout=15)[0]
    assert "not hosted by Slack" in " ".join(mrkdwn_strings(post))
    assert elsewhere.seen == []
    assert Store(StoreConfig(url=bot.redis_url)).quotas.status(TEAM_ID).used == 0


def test_a_redirect_off_slack_is_refused_without_the_token(bot, fake_slack, elsewhere):
    """The download answering 302 to another host: the redirect is not followed, the token not sent, the user told."""
    f = fake_slack.add_file(FakeFile(id="FREDIR001", name="rank3.log", content=b"", redirect_to=elsewhere.url))
    bot.event(message("", "1700001001.000100", subtype="file_share", files=[f]))
    post = fake_slack.wait_for("chat.postMessage", timeout=15)[0]
    assert "redirected" in " ".join(mrkdwn_strings(post)) and "not a Slack file server" in " ".join(mrkdwn_strings(post))
    assert all(BOT_TOKEN not in s["auth"] for s in elsewhere.seen)
    assert elsewhere.seen == []


def test_a_redirect_within_slack_is_followed(bot, fake_slack):
    """A 302 to another path of Slack's own file host is followed with the token, and the log diagnosed."""
    real = fake_slack.add_file(FakeFile(id="FREAL0001", name="rank3.log", content=OOM_PASTE.encode()))
    f = fake_slack.add_file(FakeFile(id="FHOP00001", name="rank3.log", content=b"", redirect_to=real["url_private_download"]))
    bot.event(message("", "1700001002.000100", subtype="file_share", files=[f]))
    post = fake_slack.wait_for("chat.postMessage", timeout=15)[0]
    assert "cuda-oom" in json.dumps(post.params)
    assert [c.params["file"] for c in fake_slack.of("files.download")] == ["FHOP00001", "FREAL0001"]


MARKUP_LOG = (
    "Traceback (most recent call last):\n"
    '  File "launch.py", line 3, in <module>\n'
    "ZorgleError: deploy &lt;!channel&gt; &lt;!here&gt; &lt;@U0ADMIN&gt; &lt;https://evil.example/x|click here&gt; "
    "&lt;#C0GENERAL&gt; &amp;lt;b&amp;gt;\n"
)


def test_escaped_markup_in_a_pasted_log_never_comes_back_live(bot, fake_slack):
    """`&lt;!channel&gt;`, a mention, a link in a pasted log's salient line: inert in the fallback text and the blocks."""
    bot.event(message(MARKUP_LOG, "1700001100.000100"))
    post = fake_slack.wait_for("chat.postMessage", timeout=15)[0]
    strings = mrkdwn_strings(post)
    assert any("ZorgleError" in s for s in strings), strings
    assert_inert(strings)
    assert "&lt;!channel&gt;" in post.params["text"]  # shown as typed, escaped


def test_markup_in_file_names_and_lookups_stays_inert(bot, fake_slack):
    """A file named `<!here>.pdf` and a lookup quoting `<!channel>`: inert in every string sent."""
    f = fake_slack.add_file(FakeFile(id="FPDFNAME1", name="<!here> <@U0ADMIN>.pdf", content=b"%PDF-1.4",
                                     filetype="pdf", mimetype="application/pdf"))
    bot.event(message("", "1700001101.000100", subtype="file_share", files=[f]))
    post = fake_slack.wait_for("chat.postMessage", timeout=15)[0]
    assert "not a log file" in post.params["text"]
    assert_inert(mrkdwn_strings(post))
    reply = bot.command("&lt;!channel&gt; &lt;https://evil.example|x&gt; CUDA out of memory")
    body = reply.json()
    strings = [body.get("text") or "", json.dumps(body.get("blocks") or [])]
    assert_inert([s.replace("\\u003c", "<") for s in strings])
    assert "&lt;!channel&gt;" in body["text"]


def test_backticks_in_an_evidence_line_cannot_break_the_code_block(bot, fake_slack):
    """An uploaded log whose evidence line holds four backticks: every section has an even number of fences."""
    log = OOM_PASTE.replace("CUDA out of memory.", "CUDA out of memory. ```` ``` `")
    f = fake_slack.add_file(FakeFile(id="FTICKS001", name="rank3.log", content=log.encode()))
    bot.event(message("", "1700001200.000100", subtype="file_share", files=[f]))
    post = fake_slack.wait_for("chat.postMessage", timeout=15)[0]
    evidence = [s for s in mrkdwn_strings(post) if s.startswith("*Evidence*")]
    assert evidence and "CUDA out of memory" in evidence[0]
    for s in mrkdwn_strings(post):
        assert s.count("```") % 2 == 0, s
        assert "````" not in s


def test_backticks_in_an_unmatched_line_cannot_break_the_code_block(bot, fake_slack):
    """An unmatched salient line ending in backticks stays inside its code block."""
    log = 'Traceback (most recent call last):\n  File "a.py", line 1\nZorgleError: bad quote ````\n'
    bot.event(message(log, "1700001201.000100"))
    post = fake_slack.wait_for("chat.postMessage", timeout=15)[0]
    for s in mrkdwn_strings(post):
        assert s.count("```") % 2 == 0, s


def test_lookup_echoes_the_query_masked(bot):
    """A lookup pasting a bot token and an email: the ephemeral answer echoes neither."""
    secret = "xoxb-2048123456-9912345678-AbCdEfGhIjKlMnOpQrStUvWx"
    reply = bot.command(f"CUDA out of memory for alice.smith@example.com with {secret}")
    assert reply.status == 200
    assert secret not in reply.body.decode() and "alice.smith@example.com" not in reply.body.decode()
    assert "Entries for" in reply.json()["text"] or "No entry matches" in reply.json()["text"]


def test_a_flood_of_wrong_codes_does_not_lock_out_the_real_one(bot):
    """Several users spending the workspace's 20 guesses in a burst: a member with the real code still redeems it."""
    with Store(StoreConfig(url=bot.redis_url)) as store:
        (code,) = store.codes.create("scale", 14)
    for i in range(30):
        bot.command("redeem DNPX-0000-0000-0000", user=f"U0FLOOD{i % 6}")
    refused = bot.command("redeem DNPX-0000-0000-0000", user="U0FLOOD1").json()["text"]
    assert "Too many attempts" in refused
    ok = bot.command(f"redeem {code}", user="U0ADMIN").json()["text"]
    assert "scale" in ok and "plan is on" in ok


def _signed_command(text: str) -> tuple[bytes, dict[str, str]]:
    body = Bot.command_body(text)
    return body, sign(body)


def test_a_replayed_slash_command_runs_once(bot):
    """The same signed /denpex request sent again within 5 minutes (Slack gives every
    invocation its own trigger_id, so this is one request sent twice): the lookup's answer
    shown again, as an empty 200 would show the person nothing, but counted once."""
    body, headers = _signed_command("CUDA out of memory")
    first = bot.post(body, "application/x-www-form-urlencoded", headers=headers, sign_it=False)
    replay = bot.post(body, "application/x-www-form-urlencoded", headers=headers, sign_it=False)
    assert first.status == 200 and "cuda" in first.body.decode().lower()
    assert replay.status == 200 and replay.json() == first.json()
    r = __import__("redis").Redis.from_url(bot.redis_url)
    hits = [k for k in r.keys("*ratelimit:lookup*")]
    assert len(hits) == 1 and r.zcard(hits[0]) == 1
    # A new invocation (new timestamp and trigger) is answered as usual.
    again, headers2 = _signed_command("CUDA out of memory")
    assert b"cuda" in bot.post(again, "application/x-www-form-urlencoded", headers=headers2, sign_it=False).body.lower()


# Our own `<placeholder>` words in mrkdwn: anything in angle brackets that is not one of the
# bot's intended channel or user references is a control sequence Slack would act on.
UNINTENDED = re.compile(r"<(?!#[CGD][A-Z0-9]+>|@[UW][A-Z0-9]+>)[^>]*>")


def mrkdwn(params: dict) -> list[str]:
    """`texts` of a message given as its parameters (a command's ack, a view's blocks)."""
    return mrkdwn_strings(SimpleNamespace(params=params))


def test_the_bots_own_placeholders_show_as_typed(bot, fake_slack):
    """Help, the Home tab, the quota notice and the alerts set-up name `<code>`, `<id>`, `<your
    job>`: sent escaped, so Slack shows them, rather than reading each as a link and showing `code`."""
    strings = [s for text in ("", "alerts connect") for s in mrkdwn(bot.command(text).json())]
    bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0HOME", "tab": "home"})
    for i in range(4):  # the 4th on the free plan is refused with the quota notice
        bot.event(message(OOM_PASTE, f"1700001300.00010{i}"))
        fake_slack.wait_for("chat.postMessage", count=i + 1, timeout=15)
    Store(StoreConfig(url=bot.redis_url)).plans.grant(TEAM_ID, "scale", datetime.now(UTC) + timedelta(days=14))
    strings += mrkdwn(bot.command("alerts connect").json())
    strings += mrkdwn({"blocks": fake_slack.wait_for("views.publish")[0].params["view"]["blocks"]})
    strings += [s for c in fake_slack.of("chat.postMessage") for s in mrkdwn_strings(c)]
    joined = "\n".join(strings)
    assert "Daily limit reached" in joined and "DENPEX_ALERT_TOKEN" in joined
    assert not UNINTENDED.findall(joined), sorted(set(UNINTENDED.findall(joined)))
    for shown in ("&lt;code&gt;", "&lt;id&gt;", "&lt;error string&gt;", "&lt;your job&gt;", "&lt;this bot's URL&gt;"):
        assert shown in joined, shown
