"""The store on a real Redis Cluster (three primaries, one replica each): every operation runs,
every script and multi-key call stays in one slot, redirects are followed, and a killed
primary costs callers a bounded wait or a clear StoreUnavailable, never a double charge."""

from __future__ import annotations

import importlib
import logging
import pkgutil
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from cryptography.fernet import Fernet
from redis.crc import key_slot
from redis.exceptions import ClusterCrossSlotError, RedisClusterException
from slack_sdk.oauth.installation_store import Installation

import bot.store
from bot.masking import mask
from bot.store import Store, StoreConfig, StoreUnavailable, ThreadContext, keys
from bot.store.alerts import RecentAlert
from bot.store.bursts import Part
from bot.store.quotas import _QUOTA_LUA

from .conftest import FakeClock, LocalCluster, PrivateRedis

TEAMS = [f"T{i:03d}" for i in range(12)]  # their hash tags land on all three primaries
# Commands that name no key: nothing to keep in a slot.
KEYLESS = {"PING", "SCAN", "SCRIPT LOAD", "SCRIPT EXISTS", "CLUSTER", "INFO"}


def exercise(store: Store, team: str, clock: FakeClock) -> None:
    """Every public store operation, once or more, for `team`."""
    assert [store.quotas.consume(team).allowed for _ in range(4)] == [True] * 3 + [False]
    store.quotas.refund(team)
    assert store.quotas.status(team).used == 2
    allowance = store.followup_quota.take(team)
    assert allowance.allowed and allowance.counted and store.followup_quota.used(team) == 1
    store.followup_quota.refund(team, allowance.day)
    assert store.followup_quota.used(team) == 0
    (code,) = store.codes.create("scale", 14)
    assert store.codes.redeem(team, "U1", code).ok
    assert store.codes.redeem(team + "X", "U1", code).reason == "already_used"
    assert store.plans.get(team).plan == "scale"
    store.plans.grant(team, "scale", clock.now + timedelta(days=30), keep_later=True)
    assert store.dedupe.first_time(team, "event:Ev1")
    assert not store.dedupe.first_time(team, "event:Ev1")
    store.dedupe.forget(team, "event:Ev1")
    ctx = ThreadContext(["rule-a"], 1, [mask("line").text], "C1", "1.1", "2026-11-30T12:00:00+00:00")
    store.threads.save(team, "C1", "1.1", ctx)
    assert store.threads.load(team, "C1", "1.1") == ctx
    store.feedback.vote(team, "rule-a", "U1", True, "C1:1.1")
    store.feedback.vote(team, "rule-a", "U1", False, "C1:1.1")
    store.unmatched.record(team, mask("Segfault 3").text)
    assert store.unmatched.top(1, team) == [("Segfault <N>", 1)]
    assert store.ratelimit.allow(team, "U1", "x", 1, 60)
    store.history.record(team, "C1", "rule-a", "Rule A", "high", 3)
    assert [e.entry_id for e in store.history.recent(team, 5)] == ["rule-a"]
    installs = store.installations(Fernet.generate_key().decode())
    installs.save(Installation(app_id="A1", team_id=team, bot_token=f"xoxb-{team}", bot_id="B1",
                               bot_user_id="UB1", user_id="U1"))  # fmt: skip
    assert installs.find_bot(enterprise_id=None, team_id=team).bot_token == f"xoxb-{team}"
    state = store.oauth_states.issue()
    assert store.oauth_states.consume(state) and not store.oauth_states.consume(state)
    place = "C1:top:U1"
    first = store.bursts.join(team, place, Part("1.1", "1.1", mask("part one").text), 5)
    last = store.bursts.join(team, place, Part("1.2", "1.1", mask("part two").text), 5)
    assert store.bursts.is_open(team, place) and store.bursts.close(team, place, first) is None
    assert [p.ts for p in store.bursts.close(team, place, last) or []] == ["1.1", "1.2"]
    # A closer that comes after the burst expired is told so ([]), not "a later part joined"
    # (None): it answers for its own part instead of dropping it.
    late = store.bursts.join(team, place, Part("1.4", "1.4", mask("part three").text), 0.05)
    time.sleep(0.2)
    assert store.bursts.close(team, place, late) == []
    # A log file taking the sentence before it: its closer then finds a later part.
    weak = store.bursts.join(team, place, Part("1.5", "1.5", mask("rank 3 died").text, False), 5)
    assert [p.ts for p in store.bursts.take(team, place, "1.9", 5)] == ["1.5"]
    assert store.bursts.close(team, place, weak) is None and store.bursts.take(team, place, "1.9", 5) == []
    claim = store.claims.claim(team, "message:C1:1.3", {"channel": "C1"}, 30)
    assert claim is not None and store.claims.claim(team, "message:C1:1.3", {"channel": "C1"}, 30) is None
    assert store.claims.renew(claim, 30)
    store.claims.finish(claim)
    token = store.alerts.connect(team, "C1", "U1")
    assert store.alerts.check(token).state == "ok" and store.alerts.channels(team) == ["C1"]
    assert store.alerts.first_use_of(team, "a" * 32) and not store.alerts.first_use_of(team, "a" * 32)
    assert store.alerts.claim(team, "job-1", "alert:rule-a").state == "new"
    assert store.alerts.charge_once(team, "job-1") and not store.alerts.charge_once(team, "job-1")
    store.alerts.posted(team, "job-1", "alert:rule-a", "C1", "1.4")
    assert store.alerts.claim(team, "job-1", "alert:rule-a").ts == "1.4"
    store.alerts.record_recent(team, RecentAlert(1.0, "C1", "job-1", "rule-a", "Rule A", "alert"))
    assert [a.job for a in store.alerts.recent(team)] == ["job-1"]
    assert store.alerts.revoke(team, "C1") and store.alerts.check(token).state == "revoked"
    store.plans.revoke(team)
    forgotten = store.forget_workspace(team)
    assert keys.installation(team) in forgotten


def test_every_operation_works_across_three_primaries(redis_cluster: LocalCluster, clock: FakeClock) -> None:
    """All operations run for workspaces whose keys live on every primary, from one client."""
    store = Store(StoreConfig(url=redis_cluster.url), clock)
    assert store.config.cluster and store.ping()
    for team in TEAMS:
        exercise(store, team, clock)
    owners = {redis_cluster.primary_of_slot(key_slot(keys.plan(t).encode())).port for t in TEAMS}
    assert len(owners) == 3
    assert store.feedback.summary() == []  # every workspace was forgotten, its votes too
    assert store.unmatched.top(1) == [("Segfault <N>", len(TEAMS))]
    store.close()


class Recorder:
    """Every command the redis-py cluster client sends, and every pipeline's batch."""

    def __init__(self, store: Store) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.batches: list[tuple[bool, list[tuple[Any, ...]]]] = []
        client = store._client.redis
        real_execute, real_pipeline = client.execute_command, client.pipeline

        def execute_command(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(args)
            return real_execute(*args, **kwargs)

        def pipeline(transaction: Any = None, shard_hint: Any = None) -> Any:
            pipe = real_pipeline(transaction=transaction, shard_hint=shard_hint)
            batch: list[tuple[Any, ...]] = []
            self.batches.append((bool(transaction), batch))
            queue = pipe.execute_command

            def stage(*args: Any, **kwargs: Any) -> Any:
                batch.append(args)
                return queue(*args, **kwargs)

            pipe.execute_command = stage
            return pipe

        client.execute_command = execute_command
        client.pipeline = pipeline


def slots_of(args: tuple[Any, ...]) -> set[int]:
    """The slots of the keys a command names (EVAL/EVALSHA: its KEYS; others: redis-py's
    own key extraction, which is what routes the command)."""
    name = str(args[0]).upper()
    if name in ("EVALSHA", "EVAL"):
        return {key_slot(str(k).encode()) for k in args[3 : 3 + int(args[2])]}
    first = str(args[0]).split()[0].upper()
    if name in KEYLESS or first in KEYLESS:
        return set()
    return {key_slot(str(a).encode()) for a in args[1:2]} | _more_keys(args)


def _more_keys(args: tuple[Any, ...]) -> set[int]:
    # Multi-key commands the store sends: DEL/UNLINK/EXISTS/MGET name only keys.
    if str(args[0]).upper() in ("DEL", "UNLINK", "EXISTS", "MGET", "TOUCH"):
        return {key_slot(str(a).encode()) for a in args[1:]}
    return set()


def lua_sources() -> dict[str, str]:
    """Every module-level Lua script (a `_..._LUA` string) in the bot.store package, by
    `module.NAME`."""
    found = {}
    for info in pkgutil.iter_modules(bot.store.__path__):
        module = importlib.import_module(f"bot.store.{info.name}")
        found |= {f"{info.name}.{k}": v for k, v in vars(module).items() if k.endswith("_LUA") and isinstance(v, str)}
    return found


def scripts_by_source(scripts: dict[str, Any]) -> dict[str, str]:
    return {script.script: sha for sha, script in scripts.items()}


def test_every_script_and_multi_key_call_stays_in_one_slot(redis_cluster: LocalCluster, clock: FakeClock) -> None:
    """Each registered Lua script runs, and every call (script, command, MULTI) names keys of
    one slot: the cluster would refuse it otherwise, and redis-py's router agrees."""
    store = Store(StoreConfig(url=redis_cluster.url), clock)
    recorder = Recorder(store)
    for team in TEAMS[:4]:
        exercise(store, team, clock)
    store.feedback.summary()
    scripts = {s.sha: s for s in store._client.scripts}
    # Every Lua source in bot/store is registered on the client (so none escapes this test).
    sources = lua_sources()
    assert {s.script for s in store._client.scripts} == set(sources.values()) != set()
    called = {c[1] for c in recorder.calls if str(c[0]).upper() == "EVALSHA"}
    unrun = sorted(name for name, src in sources.items() if scripts_by_source(scripts)[src] not in called)
    assert not unrun, f"add a call running {unrun} to exercise() in tests/store/test_cluster.py"
    assert not [c for c in recorder.calls if str(c[0]).upper() == "EVAL"]  # only registered ones
    router = store._client.redis
    for call in recorder.calls:
        slots = slots_of(call)
        assert len(slots) <= 1, f"{call[:4]} spans slots {slots}"
        if slots:
            assert router.determine_slot(*call) in slots
    transactions = [batch for atomic, batch in recorder.batches if atomic]
    assert transactions, "history and OAuth states run in MULTI"
    for batch in transactions:
        slots = set().union(*(slots_of(c) for c in batch))
        assert len(slots) == 1, f"MULTI over slots {slots}: {[c[0] for c in batch]}"
    store.close()


def test_a_cross_slot_script_is_refused_by_the_cluster(redis_cluster: LocalCluster) -> None:
    """The guard above can fail: keys of two workspaces in one script are refused, by
    redis-py's router and by the cluster node itself (CROSSSLOT)."""
    store = Store(StoreConfig(url=redis_cluster.url))
    (quota,) = [s for s in store._client.scripts if s.script == _QUOTA_LUA]
    two = [keys.quota("T000", store._clock.now().date()), keys.plan("T001")]
    assert key_slot(two[0].encode()) != key_slot(two[1].encode())
    with pytest.raises(RedisClusterException):
        quota(keys=two, args=["peek", 0, 60, 3])
    node = redis_cluster.primary_of_slot(key_slot(two[0].encode())).client()
    with node, pytest.raises(ClusterCrossSlotError):  # the node answered CROSSSLOT
        node.eval(_QUOTA_LUA, 2, *two, "peek", 0, 60, 3)
    store.close()


def _migrate_empty_slot(cluster: LocalCluster, slot: int) -> tuple[PrivateRedis, PrivateRedis]:
    """Begin moving `slot` (empty) to another primary; return (source, target)."""
    source = cluster.primary_of_slot(slot)
    target = next(cluster.node(p) for p, i in cluster.topology().items()
                  if i["role"] == "primary" and p != source.port)  # fmt: skip
    with source.client() as s, target.client() as t:
        source_id, target_id = s.execute_command("CLUSTER", "MYID"), t.execute_command("CLUSTER", "MYID")
        t.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        s.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        assert target_id
    return source, target


def _finish_migration(cluster: LocalCluster, slot: int, target: PrivateRedis) -> None:
    with target.client() as t:
        target_id = t.execute_command("CLUSTER", "MYID")
    for port, info in cluster.topology().items():
        if info["role"] == "primary":
            with cluster.node(port).client() as c:
                c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)


def test_ask_and_moved_redirects_are_followed(redis_cluster: LocalCluster, clock: FakeClock) -> None:
    """While a workspace's slot migrates, one-key calls follow ASK and a quota script (whose
    keys the cluster will not split: TRYAGAIN) waits for the move to finish; after it, MOVED
    is followed."""
    # A window the move fits in even when a loaded machine runs the finisher late.
    store = Store(StoreConfig(url=redis_cluster.url, retry_window_s=15), clock)
    team = "T007"
    slot = key_slot(keys.plan(team).encode())
    assert store.quotas.status(team).used == 0  # the client now maps the slot to its owner
    source, target = _migrate_empty_slot(redis_cluster, slot)
    assert store.dedupe.first_time(team, "event:EvASK")  # absent on the source: ASK
    assert redis_cluster.primary_of_slot(slot).port == source.port  # still the owner
    with redis.Redis(port=target.port, single_connection_client=True, decode_responses=True) as t:
        t.execute_command("ASKING")
        assert t.get(keys.dedupe(team, "event:EvASK")) == "1"  # written through ASK
    moving: list[float] = []

    def finish() -> None:
        moving.append(time.monotonic())  # the slot is still half-moved until this runs
        _finish_migration(redis_cluster, slot, target)

    finisher = threading.Timer(0.5, finish)
    t0 = time.monotonic()
    finisher.start()
    assert store.quotas.consume(team).allowed  # TRYAGAIN until the slot moved, then MOVED
    done = time.monotonic()
    finisher.join()
    # It waited for the move (not answered before the finisher began) and no longer than
    # its window.
    assert moving and 0.4 < moving[0] - t0 < done - t0 < store.config.retry_window_s
    assert redis_cluster.primary_of_slot(slot).port == target.port
    assert store.quotas.consume(team).status.used == 2
    with target.client() as t:
        assert t.get(keys.quota(team, clock.now.date())) == "2"
    redis_cluster.wait_ready()
    store.close()


def replica_get(node: PrivateRedis, key: str) -> str | None:
    """GET on a replica (READONLY: a replica otherwise answers MOVED)."""
    with redis.Redis(port=node.port, single_connection_client=True, decode_responses=True) as c:
        c.execute_command("READONLY")
        return c.get(key)


def _until(deadline_s: float, check: Callable[[], bool]) -> float:
    start = time.monotonic()
    while time.monotonic() - start < deadline_s:
        if check():
            return time.monotonic() - start
        time.sleep(0.05)
    raise AssertionError(f"not within {deadline_s} s")


def _until_promoted(cluster: LocalCluster, heir: PrivateRedis, deadline_s: float = 30) -> dict[str, Any]:
    """The heir's row of the topology once the live nodes see it as a primary holding slots.

    The heir answering our calls proves it promoted itself; the node the topology is read
    from learns that by gossip, a moment later (longer on a loaded machine)."""
    seen: dict[str, Any] = {}

    def promoted() -> bool:
        seen.update(cluster.topology()[heir.port])
        return seen["role"] == "primary" and bool(seen["slots"])

    try:
        _until(deadline_s, promoted)
    except AssertionError as exc:
        raise AssertionError(f"{heir.port} not seen as a primary with slots: {seen}") from exc
    return seen


def test_a_killed_primary_fails_over_and_the_store_recovers(
    redis_cluster: LocalCluster, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """SIGKILL the primary of a workspace: its calls wait (bounded) or raise StoreUnavailable
    until the replica is promoted, then succeed with exact counts; other primaries' workspaces
    are served throughout; the restarted node rejoins as a replica."""
    team = "T001"
    slot = key_slot(keys.plan(team).encode())
    victim = redis_cluster.primary_of_slot(slot)
    heir = redis_cluster.replica_of(victim)
    other = next(t for t in TEAMS if redis_cluster.primary_of_slot(key_slot(keys.plan(t).encode())) is not victim)
    window = 2.0
    patient = Store(StoreConfig(url=redis_cluster.url, retry_window_s=window, free_daily=1000), clock)
    hasty = Store(StoreConfig(url=redis_cluster.url, retry_window_s=0, free_daily=1000), clock)
    # "At once": well under the patient window, so a call that waited it out fails the check,
    # yet room for a loaded CI box to schedule a sub-millisecond call late.
    at_once = window / 2
    # A patient caller's worst case: its window, then one connect and one reply (the slot-map
    # refresh) at the configured timeouts.
    bounded = window + patient.config.connect_timeout_s + patient.config.timeout_s
    assert patient.quotas.consume(team).allowed and hasty.quotas.consume(team).allowed
    # The charge must be on the replica before the crash (replication is asynchronous).
    _until(10, lambda: replica_get(heir, keys.quota(team, clock.now.date())) == "2")

    victim.kill()
    killed = time.monotonic()
    assert patient.ping()  # a health check: the live nodes answer, at once
    assert time.monotonic() - killed < at_once
    charged, outcomes, hasty_errors = 2, [], []
    while time.monotonic() - killed < 20:
        # The hasty caller first: its first try comes well before any promotion (which takes
        # at least the 1 s node timeout), whatever the patient one's window.
        try:
            hasty.quotas.consume(team)
            charged += 1
        except StoreUnavailable as exc:
            hasty_errors.append(exc)
        t0 = time.monotonic()
        try:
            patient.quotas.consume(team)
            charged += 1
            outcomes.append(("ok", t0 - killed, time.monotonic() - t0))
        except StoreUnavailable as exc:
            outcomes.append(("unavailable", t0 - killed, time.monotonic() - t0))
            assert "unavailable" in str(exc)
        t1 = time.monotonic()
        assert hasty.quotas.consume(other).allowed  # another primary's workspace: no wait
        assert time.monotonic() - t1 < at_once
        if outcomes[-1][0] == "ok" and outcomes[-1][1] > 0.5 and len(outcomes) > 3:
            break
    assert outcomes[-1][0] == "ok", outcomes  # the heir took the charge: it is the primary now
    _until_promoted(redis_cluster, heir)
    # Before the promotion a hasty caller got the clear error at once; a patient one waited
    # at most its window (plus one connect and slot-map refresh) before getting it.
    assert hasty_errors and all("unavailable" in str(e) and "REDIS_URL" in str(e) for e in hasty_errors)
    waits = [took for kind, _, took in outcomes if kind == "unavailable"]
    assert all(took < bounded for took in waits), (bounded, outcomes)
    assert outcomes[-1][0] == "ok" and outcomes[-1][1] < 15, outcomes
    # Nothing charged twice, nothing lost: every success is one diagnosis.
    assert patient.quotas.status(team).used == charged
    assert patient.dedupe.first_time(team, "event:after-failover")

    victim.start()
    redis_cluster.wait_ready()
    rejoined = redis_cluster.topology()[victim.port]
    assert rejoined["role"] == "replica" and rejoined["primary"] == heir.port, rejoined
    assert patient.quotas.status(team).used == charged
    logging.getLogger(__name__).info("failover outcomes: %s", outcomes)
    patient.close()
    hasty.close()


def _replica_ports(node: PrivateRedis) -> set[int]:
    """The client-side ports of the replication links into `node` (its replicas' REPLCONF
    ACKs are requests too, and not ours)."""
    with node.client() as c:
        return {int(client["addr"].rsplit(":", 1)[1]) for client in c.client_list() if "S" in client["flags"]}


def _unread_requests(port: int, ignore: set[int]) -> int:
    """How many connections into 127.0.0.1:`port` hold bytes the server has not read yet,
    as the kernel counts them (/proc/net/tcp: the receive queue of each established socket)."""
    waiting = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, state, queues = fields[1], fields[2], fields[3], fields[4]
        if state != "01" or int(local.split(":")[1], 16) != port:
            continue
        if int(remote.split(":")[1], 16) in ignore:
            continue
        if int(queues.split(":")[1], 16) > 0:
            waiting += 1
    return waiting


def test_calls_in_flight_when_a_primary_dies_read_again_but_never_write_twice(
    redis_cluster: LocalCluster, clock: FakeClock
) -> None:
    """A read and a charge are sent to a primary that hangs (SIGSTOP) and then dies: the read
    is sent again and answered by the promoted replica; the charge, which might have run, is
    not resent but fails with StoreUnavailable (and had not run: nothing is charged)."""
    team = "T002"
    victim = redis_cluster.primary_of_slot(key_slot(keys.plan(team).encode()))
    heir = redis_cluster.replica_of(victim)
    # The read is resent until the heir is promoted: a window that a loaded machine's slow
    # failover fits in.
    config = StoreConfig(url=redis_cluster.url, retry_window_s=20, timeout_s=5, free_daily=100)
    reader, writer = Store(config, clock), Store(config, clock)
    ctx = ThreadContext(["rule-a"], 1, [mask("line").text], "C1", "1.1", "2026-11-30T12:00:00+00:00")
    reader.threads.save(team, "C1", "1.1", ctx)
    assert writer.quotas.consume(team).status.used == 1  # both clients hold a pooled connection
    _until(10, lambda: replica_get(heir, keys.quota(team, clock.now.date())) == "1")
    replication = _replica_ports(victim)
    outcome: dict[str, Any] = {}

    def read() -> None:
        outcome["read"] = reader.threads.load(team, "C1", "1.1")

    def write() -> None:
        try:
            outcome["write"] = writer.quotas.consume(team)
        except StoreUnavailable as exc:
            outcome["write"] = exc

    victim.pause()
    calls = [threading.Thread(target=read), threading.Thread(target=write)]
    for call in calls:
        call.start()
    # Both sent, both waiting for an answer: two requests sit unread in the paused server's
    # sockets (the timeout_s of 5 s leaves them waiting well past this).
    _until(4, lambda: _unread_requests(victim.port, replication) >= 2)
    victim.kill()
    for call in calls:
        call.join(30)
    assert outcome["read"] == ctx
    assert isinstance(outcome["write"], StoreUnavailable), outcome["write"]
    assert "ConnectionError" in str(outcome["write"])
    _until_promoted(redis_cluster, heir)
    assert writer.quotas.status(team).used == 1  # the lost charge never ran
    reader.close()
    writer.close()


def test_a_cluster_that_cannot_be_reached_is_store_unavailable(cluster_redis: PrivateRedis) -> None:
    """A cluster with every node down raises StoreUnavailable within the retry window, and
    a store built while it is down works once it is back."""
    store = Store(StoreConfig(url=cluster_redis.url, cluster=True, retry_window_s=0.5))
    assert store.quotas.consume("T1").allowed
    cluster_redis.stop()
    t0 = time.monotonic()
    with pytest.raises(StoreUnavailable):
        store.quotas.consume("T1")
    assert time.monotonic() - t0 < 2
    assert store.ping() is False
    late = Store(StoreConfig(url=f"redis+cluster://127.0.0.1:{cluster_redis.port}/0"))
    with pytest.raises(StoreUnavailable):
        late.quotas.status("T1")
    cluster_redis.start()
    with cluster_redis.client() as admin:  # a restarted primary takes writes after ~2 s
        _until(10, lambda: "cluster_state:ok" in str(admin.execute_command("CLUSTER", "INFO")))
    assert late.quotas.status("T1").used == 0
    store.close()
    late.close()
