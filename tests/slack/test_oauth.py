"""Multi-workspace mode end to end: a second bot process (SLACK_CLIENT_ID set, no bot token)
installed through the OAuth v2 flow into workspaces of the Slack stand-in, on a real Redis."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import redis
import yaml
from cryptography.fernet import Fernet
from slack_bolt.request import BoltRequest

from bot.masking import mask
from bot.slack.app import build_app
from bot.slack.config import ConfigError, SlackConfig
from bot.slack.deps import BotDeps
from bot.slack.oauth import MANIFEST_SCOPES
from bot.store import Store, StoreConfig, keys
from tests.slack.conftest import (
    SIGNING_SECRET,
    Bot,
    free_port,
    fresh_state,
    quiesce,
    sign,
    slack_redis_url,
    start_bot,
    stop_bot,
    wait_handled,
)
from tests.slack.fake_slack import TEAM_ID, FakeSlack

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()
TOKEN_KEY = Fernet.generate_key().decode()
CLIENT_ID, CLIENT_SECRET = "1111.2222", "client-secret-for-tests"
COOKIE = "slack-app-oauth-state"


@dataclass
class Page:
    status: int
    headers: Any
    text: str


def get(bot: Bot, path: str, cookie: str | None = None) -> Page:
    """GET without following redirects, optionally with the state cookie a browser keeps."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    req = urllib.request.Request(bot.url + path, headers={"Cookie": f"{COOKIE}={cookie}"} if cookie else {})
    try:
        with urllib.request.build_opener(NoRedirect).open(req, timeout=10) as r:
            return Page(r.status, r.headers, r.read().decode())
    except urllib.error.HTTPError as e:
        return Page(e.code, e.headers, e.read().decode())


def message(team: str, channel: str, text: str, ts: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "channel": channel, "user": "U0ALICE", "text": text, "ts": ts,
            "channel_type": "channel", "team": team, **extra}


def grant(team: str, token: str, **extra: Any) -> dict[str, Any]:
    """What oauth.v2.access answers for a bot install into `team`."""
    return {"access_token": token, "token_type": "bot", "scope": ",".join(MANIFEST_SCOPES),
            "bot_user_id": "UBOT0001", "app_id": "A0DENPEX", "team": {"id": team, "name": f"Team {team}"},
            "enterprise": None, "authed_user": {"id": "U0ADMIN"}, **extra}


def open_install_page(bot: Bot) -> str:
    """Open /slack/install like a browser; return the state (checked against the cookie)."""
    page = get(bot, "/slack/install")
    assert page.status == 200 and "Add to Slack" in page.text
    url = re.search(r'href="(https://slack\.com/oauth/v2/authorize\?[^"]+)"', page.text).group(1)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url.replace("&amp;", "&")).query)
    assert query["client_id"] == [CLIENT_ID]
    assert query["scope"][0].split(",") == list(MANIFEST_SCOPES)
    cookie = page.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}={query['state'][0]};") and "HttpOnly" in cookie
    return query["state"][0]


def install(bot: Bot, fake: FakeSlack, team: str, token: str, **extra: Any) -> Page:
    """The whole OAuth round trip for `team`: install page, Slack's redirect with a code."""
    state = open_install_page(bot)
    code = f"code-{team}-{time.time_ns()}"
    fake.oauth_codes[code] = grant(team, token, **extra)
    page = get(bot, f"/slack/oauth_redirect?code={code}&state={state}", cookie=state)
    assert page.status == 200 and "Thank you!" in page.text, page.text
    return page


def posts_by(fake: FakeSlack, token: str, method: str = "chat.postMessage") -> list:
    return [c for c in fake.of(method) if c.token == token]


def wait_until(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def redis_text(url: str) -> str:
    """Every key and value in the database, as one string to search for leaked secrets."""
    r = redis.Redis.from_url(url, decode_responses=True)
    parts = []
    for key in r.scan_iter(count=1000):
        kind = r.type(key)
        if kind == "none":  # gone between SCAN and TYPE (the bot deletes or expires keys meanwhile)
            continue
        value = {"string": r.get, "hash": r.hgetall, "set": r.smembers, "list": lambda k: r.lrange(k, 0, -1),
                 "zset": lambda k: r.zrange(k, 0, -1)}[kind](key)
        parts.append(f"{key}={value}")
    return "\n".join(parts)


def sealed_installation(url: str, team: str) -> dict[str, Any]:
    raw = redis.Redis.from_url(url).get(keys.installation(team))
    return json.loads(Fernet(TOKEN_KEY.encode()).decrypt(raw))


@pytest.fixture(scope="module")
def multi_process(fake_slack: FakeSlack) -> Iterator[Bot]:
    url = slack_redis_url()
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).flushdb()
    except redis.ConnectionError as exc:
        pytest.fail(f"Slack tests need a Redis at {url} (set REDIS_URL): {exc}")
    bot = start_bot(fake_slack, url, {
        "SLACK_BOT_TOKEN": "", "SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "DENPEX_TOKEN_KEY": TOKEN_KEY,
    })  # fmt: skip
    yield bot
    stop_bot(bot)


@pytest.fixture
def multi(multi_process: Bot, fake_slack: FakeSlack) -> Iterator[Bot]:
    """The multi-workspace bot, a clean Redis, an empty call record, no installed workspace."""
    with fresh_state(multi_process, fake_slack):
        known = dict(fake_slack.tokens)
        yield multi_process
        quiesce(multi_process, fake_slack)  # the test's trailing work stays in its own record
    fake_slack.tokens.clear()
    fake_slack.tokens.update(known)
    fake_slack.oauth_codes.clear()
    fake_slack.refresh_tokens.clear()


@pytest.fixture
def store(multi: Bot) -> Iterator[Store]:
    with Store(StoreConfig(url=multi.redis_url)) as s:
        yield s


def test_install_round_trip_then_answers_with_that_workspace_token(multi, fake_slack, store):
    """An OAuth install stores the token encrypted; that workspace's events are answered with it."""
    install(multi, fake_slack, "T0ALPHA01", "xoxb-alpha-secret-token")
    exchange = fake_slack.of("oauth.v2.access")[-1]
    assert exchange.params["code"].startswith("code-T0ALPHA01")
    assert "xoxb-alpha-secret-token" not in redis_text(multi.redis_url)
    assert sealed_installation(multi.redis_url, "T0ALPHA01")["bot_token"] == "xoxb-alpha-secret-token"

    multi.event(message("T0ALPHA01", "C0ALPHA", SAMPLE, "1700000100.000100"), team="T0ALPHA01")
    post = fake_slack.wait_for("chat.postMessage")[0]
    assert post.token == "xoxb-alpha-secret-token" and post.params["thread_ts"] == "1700000100.000100"
    fake_slack.wait_for("reactions.add", name="white_check_mark")
    assert {c.token for c in fake_slack.calls if c.method != "oauth.v2.access"} == {"xoxb-alpha-secret-token"}
    assert store.quotas.status("T0ALPHA01").used == 1
    assert [e.entry_id for e in store.history.recent("T0ALPHA01", 3)] == [store.threads.load(
        "T0ALPHA01", "C0ALPHA", "1700000100.000100").entry_ids[0]]
    assert "xoxb-alpha-secret-token" not in Path(multi.log_path).read_text()


def test_two_workspaces_never_see_each_others_tokens_context_or_history(multi, fake_slack, store):
    """Workspaces side by side: own token on every call, own thread context, own Home history."""
    install(multi, fake_slack, "T0ALPHA01", "xoxb-alpha")
    install(multi, fake_slack, "T0BRAVO02", "xoxb-bravo")
    multi.event(message("T0ALPHA01", "C0ALPHA", SAMPLE, "1700000200.000100"), team="T0ALPHA01")
    multi.event(message("T0BRAVO02", "C0BRAVO", SAMPLE, "1700000300.000100"), team="T0BRAVO02")
    fake_slack.wait_for("chat.postMessage", count=2)
    assert [p.params["channel"] for p in posts_by(fake_slack, "xoxb-alpha")] == ["C0ALPHA"]
    assert [p.params["channel"] for p in posts_by(fake_slack, "xoxb-bravo")] == ["C0BRAVO"]

    # A follow-up in alpha's thread, sent as bravo, finds no context; sent as alpha, it does.
    question = "how do I confirm this?"
    multi.event(message("T0BRAVO02", "C0ALPHA", question, "1700000201.000100", thread_ts="1700000200.000100"), team="T0BRAVO02")
    multi.event(message("T0ALPHA01", "C0ALPHA", question, "1700000202.000100", thread_ts="1700000200.000100"), team="T0ALPHA01")
    wait_until(lambda: len(posts_by(fake_slack, "xoxb-alpha")) == 2)
    wait_handled(multi, "1700000201.000100", channel="C0ALPHA", team="T0BRAVO02")
    assert len(posts_by(fake_slack, "xoxb-bravo")) == 1

    multi.event({"type": "app_home_opened", "user": "U0ALICE", "tab": "home"}, team="T0ALPHA01")
    multi.event({"type": "app_home_opened", "user": "U0BOB", "tab": "home"}, team="T0BRAVO02")
    fake_slack.wait_for("views.publish", count=2)
    alpha_home = json.dumps(posts_by(fake_slack, "xoxb-alpha", "views.publish")[0].params["view"])
    bravo_home = json.dumps(posts_by(fake_slack, "xoxb-bravo", "views.publish")[0].params["view"])
    assert "<#C0ALPHA>" in alpha_home and "C0BRAVO" not in alpha_home
    assert "<#C0BRAVO>" in bravo_home and "C0ALPHA" not in bravo_home
    assert store.history.recent("T0ALPHA01", 5)[0].channel == "C0ALPHA"


def test_home_history_shows_3_on_free_and_more_on_scale(multi, fake_slack, store):
    """The Home tab lists the last 3 diagnoses on the free plan and up to 20 on scale, no log text."""
    install(multi, fake_slack, "T0ALPHA01", "xoxb-alpha")
    for i in range(5):
        store.history.record("T0ALPHA01", f"C0CHAN{i}", "cuda-oom", "CUDA Out of Memory", "high", i)

    def home() -> str:
        before = len(fake_slack.of("views.publish"))
        multi.event({"type": "app_home_opened", "user": "U0ALICE", "tab": "home"}, team="T0ALPHA01")
        fake_slack.wait_for("views.publish", count=before + 1)
        return json.dumps(fake_slack.of("views.publish")[-1].params["view"])

    free = home()
    assert [c for c in range(5) if f"<#C0CHAN{c}>" in free] == [2, 3, 4]
    store.plans.grant("T0ALPHA01", "scale", datetime.now(UTC) + timedelta(days=14))
    scale = home()
    assert [c for c in range(5) if f"<#C0CHAN{c}>" in scale] == [0, 1, 2, 3, 4]
    assert "rank 4" in scale and "CUDA Out of Memory" in scale


def test_replayed_expired_or_foreign_state_is_refused(multi, fake_slack):
    """A state used twice, past its TTL, never issued, or without its cookie installs nothing."""
    state = open_install_page(multi)
    fake_slack.oauth_codes["code-1"] = grant("T0ALPHA01", "xoxb-alpha")
    assert get(multi, f"/slack/oauth_redirect?code=code-1&state={state}", cookie=state).status == 200
    replay = get(multi, f"/slack/oauth_redirect?code=code-1&state={state}", cookie=state)
    assert replay.status == 401 and "invalid_state" in replay.text

    expired = open_install_page(multi)
    r = redis.Redis.from_url(multi.redis_url)
    (key,) = r.keys(keys.oauth_state("*"))
    r.pexpire(key, 1)
    time.sleep(0.05)
    page = get(multi, f"/slack/oauth_redirect?code=code-1&state={expired}", cookie=expired)
    assert page.status == 401 and "invalid_state" in page.text

    forged = "forged-state-never-issued"
    assert get(multi, f"/slack/oauth_redirect?code=code-1&state={forged}", cookie=forged).status == 401
    other_browser = open_install_page(multi)
    assert get(multi, f"/slack/oauth_redirect?code=code-1&state={other_browser}").status == 400
    assert len(fake_slack.of("oauth.v2.access")) == 1


def test_uninstall_forgets_all_but_plan_and_usage(multi, fake_slack, store):
    """app_uninstalled deletes all of the workspace but plan and usage; other workspaces untouched."""
    install(multi, fake_slack, "T0ALPHA01", "xoxb-alpha")
    install(multi, fake_slack, "T0BRAVO02", "xoxb-bravo")
    for team, channel, ts in (("T0ALPHA01", "C0ALPHA", "1700000400.000100"), ("T0BRAVO02", "C0BRAVO", "1700000500.000100")):
        multi.event(message(team, channel, SAMPLE, ts), team=team)
    fake_slack.wait_for("chat.postMessage", count=2)
    fake_slack.wait_for("reactions.add", count=2, name="white_check_mark")
    store.plans.grant("T0ALPHA01", "scale", datetime.now(UTC) + timedelta(days=14))
    store.feedback.vote("T0ALPHA01", "cuda-oom", "U0ALICE", True, "C0ALPHA:1700000400.000100")
    store.unmatched.record("T0ALPHA01", mask("Segfault at 0x1234").text)
    bravo_before = store.workspace_keys("T0BRAVO02")
    assert keys.installation("T0BRAVO02") in bravo_before

    multi.event({"type": "app_uninstalled"}, team="T0ALPHA01")
    wait_until(lambda: keys.installation("T0ALPHA01") not in store.workspace_keys("T0ALPHA01"))
    wait_until(lambda: len(store.workspace_keys("T0ALPHA01")) == 2)
    left = sorted(k.removeprefix(keys.workspace("T0ALPHA01")) for k in store.workspace_keys("T0ALPHA01"))
    assert left == ["plan", f"quota:{datetime.now(UTC).date().isoformat()}"]
    assert store.quotas.status("T0ALPHA01").used == 1 and store.plans.get("T0ALPHA01").plan == "scale"
    assert store.workspace_keys("T0BRAVO02") == bravo_before
    assert "T0ALPHA01" not in json.dumps([r.teams for r in store.feedback.summary()], default=str)

    # Gone: the workspace's events get no reply (Bolt finds no installation), bravo's still do.
    posted = len(fake_slack.of("chat.postMessage"))
    multi.event(message("T0ALPHA01", "C0ALPHA", SAMPLE, "1700000600.000100"), team="T0ALPHA01")
    multi.event(message("T0BRAVO02", "C0BRAVO", SAMPLE, "1700000700.000100"), team="T0BRAVO02")
    wait_until(lambda: len(fake_slack.of("chat.postMessage")) == posted + 1)
    time.sleep(0.5)
    assert [c.token for c in fake_slack.of("chat.postMessage")[posted:]] == ["xoxb-bravo"]

    # Re-installed: same paid plan, same day's usage.
    install(multi, fake_slack, "T0ALPHA01", "xoxb-alpha-again")
    status = store.quotas.status("T0ALPHA01")
    assert (status.plan, status.used) == ("scale", 1)


def test_bot_token_revocation_forgets_the_workspace(multi, fake_slack, store):
    """tokens_revoked naming the bot deletes the installation and the workspace's data too."""
    install(multi, fake_slack, "T0ALPHA01", "xoxb-alpha")
    store.history.record("T0ALPHA01", "C0ALPHA", "cuda-oom", "CUDA Out of Memory", "high", 3)
    multi.event({"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT0001"]}}, team="T0ALPHA01")
    wait_until(lambda: store.workspace_keys("T0ALPHA01") == [])


def test_token_rotation_refreshes_and_stores_the_new_token(multi, fake_slack):
    """An expiring token is refreshed on the next event, used for the reply, and stored encrypted."""
    install(multi, fake_slack, "T0ALPHA01", "xoxe.xoxb-alpha-first", refresh_token="xoxe-1-alpha-refresh-0", expires_in=60)
    assert sealed_installation(multi.redis_url, "T0ALPHA01")["bot_refresh_token"] == "xoxe-1-alpha-refresh-0"
    multi.event(message("T0ALPHA01", "C0ALPHA", SAMPLE, "1700000800.000100"), team="T0ALPHA01")
    post = fake_slack.wait_for("chat.postMessage")[0]
    refresh = [c for c in fake_slack.of("oauth.v2.access") if c.params.get("grant_type") == "refresh_token"]
    assert [c.params["refresh_token"] for c in refresh] == ["xoxe-1-alpha-refresh-0"]
    assert post.token.startswith("xoxe.xoxb-T0ALPHA01-rotated-")
    stored = sealed_installation(multi.redis_url, "T0ALPHA01")
    assert stored["bot_token"] == post.token and stored["bot_refresh_token"].startswith("xoxe-1-T0ALPHA01-refresh-")
    assert stored["bot_token_expires_at"] > time.time() + 40000
    dump = redis_text(multi.redis_url)
    assert post.token not in dump and stored["bot_refresh_token"] not in dump and "xoxe-1-alpha-refresh-0" not in dump

    # Fresh for 12 hours: the next event uses the stored token without refreshing again.
    multi.event(message("T0ALPHA01", "C0ALPHA", SAMPLE, "1700000900.000100"), team="T0ALPHA01")
    fake_slack.wait_for("chat.postMessage", count=2)
    assert fake_slack.of("chat.postMessage")[1].token == post.token
    assert len([c for c in fake_slack.of("oauth.v2.access") if c.params.get("grant_type") == "refresh_token"]) == 1
    # Done with both messages (the last reaction in) before the next test reads the record.
    wait_handled(multi, "1700000800.000100", "1700000900.000100", channel="C0ALPHA", team="T0ALPHA01")


def test_a_rate_limited_auth_test_does_not_hold_the_ack_of_an_installed_workspace(multi, fake_slack, store):
    """Bolt checks a workspace's token with auth.test before acknowledging; once per token, not
    per request: a later 429 (Retry-After 5) on auth.test leaves acks inside Slack's 3 s and the
    log answered."""
    install(multi, fake_slack, "T0ALPHA01", "xoxb-alpha-cached")
    multi.event(message("T0ALPHA01", "C0ALPHA", "lunch?", "1700001200.000100"), team="T0ALPHA01")
    wait_handled(multi, "1700001200.000100", channel="C0ALPHA", team="T0ALPHA01")
    checked = len(fake_slack.of("auth.test"))  # the install's own check, and the first event's
    fake_slack.fail("auth.test", 429, times=20, retry_after=5)
    started = time.monotonic()
    reply = multi.event(message("T0ALPHA01", "C0ALPHA", SAMPLE, "1700001200.000200"), team="T0ALPHA01")
    assert reply.status == 200 and time.monotonic() - started < 3
    wait_handled(multi, "1700001200.000200", channel="C0ALPHA", team="T0ALPHA01")
    (post,) = posts_by(fake_slack, "xoxb-alpha-cached")
    assert post.params["thread_ts"] == "1700001200.000200"
    assert len(fake_slack.of("auth.test")) == checked, "auth.test was called again for a known token"
    fake_slack.failures.clear()


def test_an_org_wide_install_answers_every_workspace_of_the_org_with_the_org_token(multi, fake_slack, store):
    """Enterprise Grid: an org-wide OAuth install (no workspace, `is_enterprise_install`) is
    stored under the organization; an event from any of its workspaces, whose `authorizations`
    name only the organization, is answered with the org's token and charged to the org."""
    org, token = "E0ORGWIDE1", "xoxb-org-wide-install"
    state = open_install_page(multi)
    g = grant("T0UNUSED1", token)
    g.update(team=None, enterprise={"id": org, "name": "Acme Org"}, is_enterprise_install=True)
    fake_slack.oauth_codes["code-org"] = g
    page = get(multi, f"/slack/oauth_redirect?code=code-org&state={state}", cookie=state)
    assert page.status == 200 and "Thank you!" in page.text, page.text
    assert sealed_installation(multi.redis_url, org)["bot_token"] == token
    ts = "1700001100.000100"
    body = json.dumps({
        "token": "legacy", "team_id": "T0ORGWS01", "enterprise_id": org, "api_app_id": "A0DENPEX",
        "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
        "is_enterprise_install": True, "event": message("T0ORGWS01", "C0ORG", SAMPLE, ts),
        "authorizations": [{"enterprise_id": org, "team_id": None, "user_id": "UBOT0001", "is_bot": True,
                            "is_enterprise_install": True}],
    }).encode()
    assert multi.post(body, "application/json").status == 200
    wait_handled(multi, ts, channel="C0ORG", team=org)
    (post,) = posts_by(fake_slack, token)
    assert post.params["thread_ts"] == ts and "cuda-oom" in json.dumps(post.params.get("blocks"))
    assert (store.quotas.status(org).used, store.quotas.status("T0ORGWS01").used) == (1, 0)


def test_a_workspace_that_never_installed_gets_nothing(multi, fake_slack):
    """An event from a workspace with no installation is acknowledged and answered by no call."""
    reply = multi.event(message("T0NOBODY9", "C0X", SAMPLE, "1700001000.000100"), team="T0NOBODY9")
    assert reply.status == 200
    time.sleep(0.5)
    # This workspace's calls only: another test's bot may still be finishing its last reaction.
    mine = [c for c in fake_slack.calls if c.params.get("team_id") == "T0NOBODY9" or c.params.get("channel") == "C0X"]
    assert [c.method for c in mine if c.method in ("chat.postMessage", "reactions.add")] == []


def test_manifest_scopes_match_the_install_scopes():
    """The scopes the install asks for are the bot scopes of manifest.yaml."""
    manifest = yaml.safe_load((ROOT / "manifest.yaml").read_text())
    assert sorted(manifest["oauth_config"]["scopes"]["bot"]) == sorted(MANIFEST_SCOPES)
    assert "https://denpex.example.com/slack/oauth_redirect" in manifest["oauth_config"]["redirect_urls"]
    assert {"app_uninstalled", "tokens_revoked"} <= set(manifest["settings"]["event_subscriptions"]["bot_events"])


def test_single_token_mode_has_no_install_pages_and_forgets_on_uninstall(bot, fake_slack):
    """Single-token mode has no install pages; app_uninstalled still forgets all but plan and usage."""
    assert bot.get("/slack/install").status == 404
    bot.event(message(TEAM_ID, "C0LOGS", SAMPLE, "1700001100.000100"))
    fake_slack.wait_for("reactions.add", name="white_check_mark")
    with Store(StoreConfig(url=bot.redis_url)) as store:
        assert keys.history(TEAM_ID) in store.workspace_keys(TEAM_ID)
        bot.event({"type": "app_uninstalled"})
        wait_until(lambda: keys.history(TEAM_ID) not in store.workspace_keys(TEAM_ID))
        left = [k.removeprefix(keys.workspace(TEAM_ID)).split(":")[0] for k in store.workspace_keys(TEAM_ID)]
        assert left == ["quota"]


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({"DENPEX_TOKEN_KEY": ""}, "DENPEX_TOKEN_KEY is not set"),
        ({"DENPEX_TOKEN_KEY": "hunter2"}, "DENPEX_TOKEN_KEY is not a Fernet key"),
        ({"SLACK_CLIENT_SECRET": ""}, "SLACK_CLIENT_SECRET"),
        ({"DENPEX_TOKEN_ROTATION_MINUTES": "soon"}, "DENPEX_TOKEN_ROTATION_MINUTES must be a whole number of minutes"),
    ],
)
def test_multi_workspace_configuration_is_checked(env, names):
    """Multi-workspace settings are checked at start-up; a bad key is named, never echoed."""
    good = {"SLACK_SIGNING_SECRET": "s", "SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET,
            "DENPEX_TOKEN_KEY": TOKEN_KEY}
    with pytest.raises(ConfigError, match=names) as err:
        SlackConfig.from_env("http", {**good, **env})
    assert "hunter2" not in str(err.value)


def test_multi_workspace_mode_needs_no_bot_token():
    """With SLACK_CLIENT_ID set, SLACK_BOT_TOKEN is not required and the manifest's scopes apply."""
    cfg = SlackConfig.from_env("http", {"SLACK_SIGNING_SECRET": "s", "SLACK_CLIENT_ID": CLIENT_ID,
                                        "SLACK_CLIENT_SECRET": CLIENT_SECRET, "DENPEX_TOKEN_KEY": TOKEN_KEY})
    assert cfg.multi_workspace and cfg.bot_token is None and cfg.scopes == ()
    assert cfg.token_rotation_minutes == 120


def test_without_redis_an_event_gets_a_500_so_slack_retries(fake_slack):
    """With Redis down, a multi-workspace event gets a 500 (Slack re-sends it), not a silent ack."""
    config = SlackConfig.from_env("http", {
        "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "DENPEX_TOKEN_KEY": TOKEN_KEY, "SLACK_API_URL": fake_slack.api_url,
    })  # fmt: skip
    dead = Store(StoreConfig(url=f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.2, connect_timeout_s=0.2))
    app = build_app(BotDeps(denpex=SimpleNamespace(rulebook=[]), store=dead, config=config))  # type: ignore[arg-type]
    body = json.dumps({"type": "event_callback", "team_id": "T0ALPHA01", "event_id": "Ev1", "api_app_id": "A0DENPEX",
                       "event": message("T0ALPHA01", "C0ALPHA", "hello", "1.1"),
                       "authorizations": [{"team_id": "T0ALPHA01", "user_id": "UBOT0001", "is_bot": True}]})
    headers = {k.lower(): [v] for k, v in sign(body.encode()).items()} | {"content-type": ["application/json"]}
    assert app.dispatch(BoltRequest(body=body, headers=headers)).status == 500
    dead.close()
