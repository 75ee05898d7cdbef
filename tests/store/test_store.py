"""The Store as a whole: key layout, workspace isolation, health, configuration."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from redis.crc import key_slot

from bot.masking import mask
from bot.store import Store, StoreConfig, StoreConfigError, ThreadContext, keys
from bot.store.config import cluster_nodes, display_url

from .conftest import FakeClock


def use_everything(store: Store, team_id: str, clock: FakeClock) -> None:
    """Touch every per-workspace feature once."""
    store.quotas.consume(team_id)
    store.plans.grant(team_id, "scale", clock.now + timedelta(days=1))
    store.codes.redeem(team_id, "U1", "DNPX-0000-0000-0000")
    store.dedupe.first_time(team_id, "event:Ev1")
    ctx = ThreadContext(["rule-a"], 2, [mask("masked").text], "C1", "1.1", "2026-11-30T12:00:00+00:00")
    store.threads.save(team_id, "C1", "1.1", ctx)
    store.feedback.vote(team_id, "rule-a", "U1", True, "C1:1.1")
    store.unmatched.record(team_id, mask("Segfault 3").text)
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
    # thread-diagnosed: the marker that outlives a thread's context, so an uninstall removes it too.
    assert kinds == {"quota", "plan", "ratelimit", "dedupe", "thread", "thread-diagnosed", "feedback", "unmatched"}


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
            "REDIS_URL": "redis://:pw@redis.internal:6380/0",
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
    assert config.display_url == "redis://:***@redis.internal:6380/0"
    assert "pw" not in repr(config)
    assert StoreConfig.from_env({}) == StoreConfig()


def test_a_cluster_url_names_its_seeds() -> None:
    """redis+cluster:// (or rediss+cluster://) turns cluster mode on and may list several
    seeds; user, password and options apply to every node; the password is never shown."""
    url = "rediss+cluster://bot:s%40cret@10.0.0.1:7000,10.0.0.2,[::1]:7002/0?ssl_ca_certs=/ca.pem"
    config = StoreConfig.from_env({"REDIS_URL": url, "DENPEX_REDIS_RETRY_S": "1.5"})
    assert config.cluster is True and config.retry_window_s == 1.5
    nodes = cluster_nodes(config.url)
    assert nodes.seeds == (("10.0.0.1", 7000), ("10.0.0.2", 6379), ("::1", 7002)) and nodes.tls
    assert nodes.node_url == "redis://bot:s%40cret@10.0.0.1:7000/0?ssl_ca_certs=/ca.pem"
    shown = "rediss+cluster://bot:***@10.0.0.1:7000,10.0.0.2,[::1]:7002/0?ssl_ca_certs=/ca.pem"
    assert config.display_url == shown
    assert "cret" not in repr(config) + repr(nodes)
    assert display_url("redis://h/0?password=pw&ssl_password=pw2") == "redis://h/0?password=***&ssl_password=***"
    assert not cluster_nodes("redis+cluster://h:1").tls


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis+cluster://h:7000/3", "only database 0"),
        ("redis+cluster://h:7000,:7001/0", "without a host"),
        ("redis+cluster://h:port/0", "without a host"),
        ("redis+sentinel://h:26379/mymaster", "must start with"),
    ],
)
def test_a_bad_cluster_url_is_named(url: str, message: str) -> None:
    """A cluster URL that cannot work is refused at start, password hidden."""
    with pytest.raises(StoreConfigError, match=message):
        StoreConfig(url=url)
    with pytest.raises(StoreConfigError, match="DENPEX_REDIS_RETRY_S"):
        StoreConfig(retry_window_s=-1)


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
