"""Installations in Redis: tokens sealed at rest, found by team or org, rotated, forgotten;
OAuth states single-use and short-lived; uninstalling forgets all but plan and usage."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import pytest
import redis
from cryptography.fernet import Fernet
from redis.crc import key_slot
from slack_sdk.oauth.installation_store import Bot, Installation

from bot.masking import mask
from bot.store import Store, StoreConfig, StoreConfigError, ThreadContext, keys
from bot.store.sealing import Sealer, Unsealable

from .conftest import FakeClock, PrivateRedis

KEY = Fernet.generate_key().decode()


def installation(team: str = "T1", token: str = "xoxb-1-secret-T1", **changes: Any) -> Installation:
    """A bot installation as Bolt's OAuth flow builds it."""
    values: dict[str, Any] = {
        "app_id": "A0DENPEX", "enterprise_id": None, "team_id": team, "team_name": f"Team {team}",
        "bot_token": token, "bot_id": f"B{team}", "bot_user_id": f"U{team}BOT",
        "bot_scopes": "chat:write,files:read", "user_id": "U0ADMIN", "token_type": "bot",
        "incoming_webhook_url": f"https://hooks.slack.com/services/{team}/secret",
    }  # fmt: skip
    values.update(changes)
    return Installation(**values)


@pytest.fixture
def installs(store: Store):
    """The installation store over the test database, with a fresh key."""
    return store.installations(KEY)


def test_saved_installation_is_found_by_team(installs) -> None:
    """A saved installation comes back for its team with its token and scopes."""
    installs.save(installation())
    found = installs.find_installation(enterprise_id=None, team_id="T1")
    assert found is not None and found.bot_token == "xoxb-1-secret-T1"
    assert found.bot_scopes == ["chat:write", "files:read"] and found.user_id == "U0ADMIN"
    bot = installs.find_bot(enterprise_id=None, team_id="T1")
    assert bot is not None and bot.bot_token == "xoxb-1-secret-T1" and bot.bot_user_id == "UT1BOT"


def test_tokens_are_only_stored_as_ciphertext(installs, redis_dump) -> None:
    """Redis holds no token, refresh token or webhook URL in plaintext, only a Fernet token."""
    installs.save(installation(bot_refresh_token="xoxe-1-refresh-T1", bot_token_expires_in=43200))
    dump = json.dumps(redis_dump())
    for secret in ("xoxb-1-secret-T1", "xoxe-1-refresh-T1", "hooks.slack.com"):
        assert secret not in dump
    (value,) = redis_dump().values()
    assert json.loads(Fernet(KEY.encode()).decrypt(value.encode()))["bot_token"] == "xoxb-1-secret-T1"


def test_workspaces_never_see_each_other(installs) -> None:
    """Each team gets its own token; an unknown team gets nothing."""
    installs.save(installation("T1", "xoxb-T1"))
    installs.save(installation("T2", "xoxb-T2"))
    assert installs.find_installation(enterprise_id=None, team_id="T1").bot_token == "xoxb-T1"
    assert installs.find_installation(enterprise_id=None, team_id="T2").bot_token == "xoxb-T2"
    assert installs.find_installation(enterprise_id=None, team_id="T3") is None


def test_a_record_copied_to_another_workspace_is_refused(installs, redis_url) -> None:
    """A sealed record moved under another team's key lends that team no token."""
    installs.save(installation("T1", "xoxb-T1"))
    r = redis.Redis.from_url(redis_url)
    r.set(keys.installation("T2"), r.get(keys.installation("T1")))
    assert installs.find_installation(enterprise_id=None, team_id="T2") is None


def test_org_wide_install_serves_the_orgs_workspaces(installs) -> None:
    """An Enterprise Grid org-wide install is found by the org, and for a team of the org."""
    installs.save(installation(None, "xoxb-org", enterprise_id="E1", is_enterprise_install=True))
    org = installs.find_installation(enterprise_id="E1", team_id=None, is_enterprise_install=True)
    assert org is not None and org.bot_token == "xoxb-org"
    assert installs.find_installation(enterprise_id="E1", team_id="T9").bot_token == "xoxb-org"
    assert installs.find_installation(enterprise_id="E2", team_id="T9") is None
    installs.delete_all(enterprise_id="E1", team_id=None)
    assert installs.find_installation(enterprise_id="E1", team_id=None, is_enterprise_install=True) is None


def test_lookup_for_another_user_finds_nothing(installs) -> None:
    """With a user id, only the installer's installation is returned (no one else's token)."""
    installs.save(installation())
    assert installs.find_installation(enterprise_id=None, team_id="T1", user_id="U0ADMIN") is not None
    assert installs.find_installation(enterprise_id=None, team_id="T1", user_id="U0OTHER") is None


def test_rotated_tokens_replace_the_old_ones(installs) -> None:
    """Saving a refreshed installation (or bot) replaces token, refresh token and expiry."""
    installs.save(installation(bot_refresh_token="xoxe-r1", bot_token_expires_in=60))
    found = installs.find_installation(enterprise_id=None, team_id="T1")
    assert found.bot_refresh_token == "xoxe-r1" and found.bot_token_expires_at <= time.time() + 60
    found.bot_token, found.bot_refresh_token = "xoxb-rotated-1", "xoxe-r2"
    found.bot_token_expires_at = int(time.time()) + 43200
    installs.save(found)
    again = installs.find_installation(enterprise_id=None, team_id="T1")
    assert (again.bot_token, again.bot_refresh_token) == ("xoxb-rotated-1", "xoxe-r2")
    bot = again.to_bot()
    installs.save_bot(Bot(**{**bot.to_dict_for_copying(), "bot_token": "xoxb-rotated-2", "bot_refresh_token": "xoxe-r3"}))
    last = installs.find_installation(enterprise_id=None, team_id="T1")
    assert (last.bot_token, last.bot_refresh_token, last.user_id) == ("xoxb-rotated-2", "xoxe-r3", "U0ADMIN")


def test_delete_forgets_the_installation(installs) -> None:
    """delete_installation / delete_bot / delete_all remove the workspace's installation only."""
    installs.save(installation("T1"))
    installs.save(installation("T2"))
    installs.delete_installation(enterprise_id=None, team_id="T1")
    assert installs.find_installation(enterprise_id=None, team_id="T1") is None
    installs.delete_bot(enterprise_id=None, team_id="T2")
    assert installs.find_bot(enterprise_id=None, team_id="T2") is None


def test_revoking_a_user_token_keeps_the_bot(installs) -> None:
    """Dropping the installer's user token leaves the bot token in place."""
    installs.save(installation(user_token="xoxp-user", user_scopes="search:read"))
    installs.delete_installation(enterprise_id=None, team_id="T1", user_id="U0ADMIN")
    found = installs.find_installation(enterprise_id=None, team_id="T1")
    assert found.bot_token == "xoxb-1-secret-T1" and found.user_token is None


def test_a_wrong_key_reads_as_not_installed(store: Store, installs) -> None:
    """A record sealed under another key is unreadable: the workspace must install again."""
    installs.save(installation())
    other = store.installations(Fernet.generate_key().decode())
    assert other.find_installation(enterprise_id=None, team_id="T1") is None


def test_keys_rotate_old_first_key_still_opens(store: Store, installs) -> None:
    """With 'new,old' keys, records sealed under the old key still open."""
    installs.save(installation())
    rotated = store.installations(f"{Fernet.generate_key().decode()},{KEY}")
    assert rotated.find_installation(enterprise_id=None, team_id="T1").bot_token == "xoxb-1-secret-T1"


# Named ids: KEY is generated per run, and pytest-xdist's workers must agree on every id.
@pytest.mark.parametrize(
    "bad", ["", "not-a-key", "a" * 44, f"{KEY},short"], ids=["empty", "not-a-key", "44-chars", "second-key-short"]
)
def test_malformed_key_is_refused_without_echoing_it(bad: str) -> None:
    """A DENPEX_TOKEN_KEY that is not Fernet keys is refused, naming the variable, not the value."""
    with pytest.raises(StoreConfigError, match="DENPEX_TOKEN_KEY") as err:
        Sealer(bad)
    assert "not-a-key" not in str(err.value) and KEY not in str(err.value)


def test_tampered_ciphertext_does_not_open() -> None:
    """A changed byte of a sealed value makes it unsealable."""
    sealer = Sealer(KEY)
    sealed = sealer.seal("xoxb-1")
    with pytest.raises(Unsealable):
        sealer.open(sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1])


# --- OAuth states ----------------------------------------------------------------------------


def test_state_is_accepted_once(store: Store, redis_dump) -> None:
    """An issued state is consumed once; a replay is refused; Redis holds only its hash."""
    state = store.oauth_states.issue()
    assert len(state) >= 40 and state not in json.dumps(redis_dump())
    assert store.oauth_states.consume(state) is True
    assert store.oauth_states.consume(state) is False


def test_expired_or_unknown_state_is_refused(store: Store, clock: FakeClock) -> None:
    """A state past its TTL (10 minutes) or never issued is refused."""
    state = store.oauth_states.issue()
    clock.advance(seconds=601)
    assert store.oauth_states.consume(state) is False
    assert store.oauth_states.consume("never-issued") is False
    assert store.oauth_states.consume("") is False


def test_state_ttl_is_configurable(redis_url: str, clock: FakeClock) -> None:
    """DENPEX_OAUTH_STATE_TTL_S sets the state's lifetime (and its Redis TTL)."""
    with Store(StoreConfig.from_env({"REDIS_URL": redis_url, "DENPEX_OAUTH_STATE_TTL_S": "60"}), clock) as store:
        state = store.oauth_states.issue()
        (key,) = redis.Redis.from_url(redis_url).keys("denpex:{oauth}:state:*")
        assert 55 <= redis.Redis.from_url(redis_url).ttl(key) <= 60
        clock.advance(seconds=61)
        assert store.oauth_states.consume(state) is False


# --- Uninstall ---------------------------------------------------------------------------------


def test_forget_workspace_keeps_only_plan_and_usage(store: Store, installs, clock: FakeClock) -> None:
    """Forgetting a workspace keeps only its plan, usage and redeem limits; others are untouched."""
    for team in ("T1", "T2"):
        installs.save(installation(team))
        store.quotas.consume(team)
        store.plans.grant(team, "scale", clock.now + timedelta(days=14))
        store.dedupe.first_time(team, "event:Ev1")
        store.threads.save(team, "C1", "1.1", ThreadContext(["rule-a"], 1, [mask("line").text], "C1", "1.1", "2026-11-30T12:00:00+00:00"))
        store.history.record(team, "C1", "rule-a", "Rule A", "high", 3)
        store.feedback.vote(team, "rule-a", "U1", True, "C1:1.1")
        store.unmatched.record(team, mask("Segfault 3").text)
        store.ratelimit.allow(team, "U1", "lookup", 30, 60)
        store.codes.redeem(team, "U1", "DNPX-0000-0000-0000")  # unknown code: counts a redeem attempt
    before = store.workspace_keys("T2")
    deleted = store.forget_workspace("T1")
    assert keys.installation("T1") in deleted and keys.history("T1") in deleted
    left = [k.removeprefix(keys.workspace("T1")) for k in store.workspace_keys("T1")]
    assert sorted(left) == ["plan", "quota:2026-11-30", "ratelimit:redeem:user:U1",
                            "ratelimit:redeem:wrong:team", "ratelimit:redeem:wrong:user:U1"]
    assert store.quotas.status("T1").used == 1 and store.plans.get("T1").plan == "scale"
    assert installs.find_installation(enterprise_id=None, team_id="T1") is None
    assert store.workspace_keys("T2") == before
    assert [t.team_id for row in store.feedback.summary() for t in row.teams] == ["T2"]


def test_forget_an_unknown_workspace_is_harmless(store: Store) -> None:
    """Forgetting a workspace with nothing stored deletes nothing."""
    assert store.forget_workspace("T404") == []


def test_installations_states_history_and_forget_work_on_a_cluster(cluster_redis: PrivateRedis, clock: FakeClock) -> None:
    """The new keys keep to one slot per workspace and run unchanged on Redis Cluster."""
    store = Store(StoreConfig(url=cluster_redis.url, cluster=True), clock)
    installs = store.installations(KEY)
    installs.save(installation("T1"))
    assert installs.find_bot(enterprise_id=None, team_id="T1").bot_token == "xoxb-1-secret-T1"
    state = store.oauth_states.issue()
    assert store.oauth_states.consume(state) and not store.oauth_states.consume(state)
    store.history.record("T1", "C1", "rule-a", "Rule A", "high", None)
    assert [e.entry_id for e in store.history.recent("T1", 3)] == ["rule-a"]
    store.quotas.consume("T1")
    assert len({key_slot(k.encode()) for k in store.workspace_keys("T1")}) == 1
    store.forget_workspace("T1")
    assert [k.rsplit(":", 1)[0] for k in store.workspace_keys("T1")] == ["denpex:{T1}:quota"]
    store.close()
