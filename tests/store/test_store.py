"""The Store as a whole: key layout, workspace isolation, health, configuration."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from redis.crc import key_slot

from bot.store import Store, StoreConfig, StoreConfigError, ThreadContext, keys

from .conftest import FakeClock


def use_everything(store: Store, team_id: str, clock: FakeClock) -> None:
    """Touch every per-workspace feature once."""
    store.quotas.consume(team_id)
    store.plans.grant(team_id, "scale", clock.now + timedelta(days=1))
    store.codes.redeem(team_id, "U1", "DNPX-0000-0000-0000")
    store.dedupe.first_time(team_id, "event:Ev1")
    ctx = ThreadContext(["rule-a"], 2, ["masked"], "C1", "1.1", "2026-11-30T12:00:00+00:00")
    store.threads.save(team_id, "C1", "1.1", ctx)
    store.feedback.vote(team_id, "rule-a", "U1", True, "C1:1.1")
    store.unmatched.record(team_id, "Segfault 3")
    store.ratelimit.allow(team_id, "U1", "lookup", 5, 60)


def test_key_layout() -> None:
    """Keys are namespaced by workspace with the team id as the cluster hash tag."""
    assert keys.quota("T0123", date(2026, 11, 30)) == "denpex:{T0123}:quota:2026-11-30"
    assert keys.plan("T0123") == "denpex:{T0123}:plan"
    assert keys.thread("T0123", "C1", "1.2") == "denpex:{T0123}:thread:C1:1.2"
    assert keys.dedupe("T0123", "event:Ev1") == "denpex:{T0123}:dedupe:event:Ev1"
    assert keys.code("ab12").startswith("denpex:{codes}:")
    assert keys.unmatched_all().startswith("denpex:{stats}:")


def test_workspace_keys_lists_all_and_only_that_workspace(
    store: Store, clock: FakeClock, redis_dump: object
) -> None:
    """workspace_keys() returns every key a workspace has, none of another's or global ones."""
    use_everything(store, "T1", clock)
    use_everything(store, "T2", clock)
    mine = store.workspace_keys("T1")
    assert mine and all(k.startswith("denpex:{T1}:") for k in mine)
    every = set(redis_dump())  # type: ignore[operator]
    assert {k for k in every if k.startswith("denpex:{T1}:")} == set(mine)
    kinds = {k.split(":")[2] for k in mine}
    assert kinds == {"quota", "plan", "ratelimit", "dedupe", "thread", "feedback", "unmatched"}


def test_workspace_keys_share_one_cluster_slot(store: Store, clock: FakeClock) -> None:
    """All keys of a workspace hash to one Redis Cluster slot."""
    use_everything(store, "T1", clock)
    assert len({key_slot(k.encode()) for k in store.workspace_keys("T1")}) == 1


def test_bad_team_ids_are_refused(store: Store) -> None:
    """Team ids with braces, glob characters or spaces cannot reach a key."""
    for bad in ("", "T{1}", "T*", "T 1", "T:1", "x" * 65):
        with pytest.raises(ValueError, match="team_id"):
            store.quotas.consume(bad)


def test_ping(store: Store) -> None:
    """ping() is True when Redis answers."""
    assert store.ping() is True


def test_naive_clock_is_refused(redis_url: str) -> None:
    """A clock returning naive datetimes is a programming error, said plainly."""
    from datetime import datetime

    with (
        Store(StoreConfig(url=redis_url), clock=datetime.now) as store,
        pytest.raises(ValueError, match="aware"),
    ):
        store.quotas.status("T1")


def test_config_from_env() -> None:
    """from_env reads REDIS_URL and DENPEX_* settings and keeps defaults for the rest."""
    config = StoreConfig.from_env(
        {
            "REDIS_URL": "redis://:pw@redis.internal:6380/2",
            "DENPEX_FREE_DAILY": "5",
            "DENPEX_SCALE_DAILY": "100",
            "DENPEX_REDIS_TIMEOUT_S": "0.5",
            "DENPEX_REDIS_CLUSTER": "yes",
            "DENPEX_THREAD_TTL_S": "",
        }
    )
    assert (config.free_daily, config.scale_daily, config.timeout_s) == (5, 100, 0.5)
    assert config.cluster is True
    assert config.thread_ttl_s == 7 * 86400
    assert config.display_url == "redis://:***@redis.internal:6380/2"
    assert "pw" not in repr(config)
    assert StoreConfig.from_env({}) == StoreConfig()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DENPEX_FREE_DAILY": "three"}, "DENPEX_FREE_DAILY='three' is not a valid int"),
        ({"DENPEX_FREE_DAILY": "-1"}, "DENPEX_FREE_DAILY"),
        ({"DENPEX_REDIS_TIMEOUT_S": "0"}, "DENPEX_REDIS_TIMEOUT_S"),
        ({"DENPEX_REDIS_CLUSTER": "maybe"}, "DENPEX_REDIS_CLUSTER"),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL must start with"),
    ],
)
def test_bad_environment_is_named(env: dict[str, str], message: str) -> None:
    """A bad setting raises StoreConfigError naming the variable."""
    with pytest.raises(StoreConfigError, match=message):
        StoreConfig.from_env(env)
