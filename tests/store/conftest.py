"""Fixtures for store tests: a real Redis on a spare database, a movable clock, and private
throwaway redis-servers for the tests that stop, restart or cluster them.

The shared test Redis is REDIS_URL's server (default redis://127.0.0.1:6379) on database 13
(DENPEX_TEST_REDIS_DB overrides; DENPEX_TEST_REDIS_URL overrides the server), flushed before
and after every test. Tests never stop that server; they start their own for that.

`redis_cluster` is a real Redis Cluster of three primaries with one replica each, on free
loopback ports in a temporary directory, made with `redis-cli --cluster create` once per
session and stopped after it. Where redis-server is installed these tests run; there is no
skip (CI installs it).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis

from bot.store import Store, StoreConfig
from tests.ports import free_port
from tests.redis_server import flushable_redis_base

TEST_DB = int(os.environ.get("DENPEX_TEST_REDIS_DB", "13"))
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"
START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def shared_redis_url() -> str:
    """The shared test Redis, always on the test database whatever the URL says."""
    base = flushable_redis_base()
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=f"/{TEST_DB}", query=""))


def dump_redis(url: str) -> dict[str, Any]:
    """Every key of the database at `url` with its value, for tests that look for leaks.

    Strings map to str, hashes to dict, sets to sorted lists, sorted sets to
    [(member, score)], lists to lists.
    """
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        out: dict[str, Any] = {}
        for key in client.scan_iter(count=1000):
            kind = client.type(key)
            if kind == "string":
                out[key] = client.get(key)
            elif kind == "hash":
                out[key] = client.hgetall(key)
            elif kind == "set":
                out[key] = sorted(client.smembers(key))
            elif kind == "zset":
                out[key] = client.zrange(key, 0, -1, withscores=True)
            elif kind == "list":
                out[key] = client.lrange(key, 0, -1)
            else:
                out[key] = f"<{kind}>"
        return out
    finally:
        client.close()


@pytest.fixture
def redis_url() -> Iterator[str]:
    """URL of the test database, flushed before and after the test."""
    url = shared_redis_url()
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
    try:
        client.flushdb()
    except redis.ConnectionError as exc:
        pytest.fail(f"store tests need a Redis at {url} (set REDIS_URL): {exc}")
    try:
        yield url
    finally:
        client.flushdb()
        client.close()


@pytest.fixture
def redis_dump(redis_url: str) -> Any:
    """dump_redis bound to the test database."""
    return lambda: dump_redis(redis_url)


class FakeClock:
    """A clock the test moves by hand; returns aware UTC datetimes."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    """A movable clock starting at 2026-11-30 12:00 UTC."""
    return FakeClock()


@pytest.fixture
def config(redis_url: str) -> StoreConfig:
    """Default settings, pointed at the test database."""
    return StoreConfig(url=redis_url)


@pytest.fixture
def store(config: StoreConfig, clock: FakeClock) -> Iterator[Store]:
    """A Store on the test database with the movable clock."""
    with Store(config, clock=clock) as s:
        yield s


class PrivateRedis:
    """A throwaway redis-server on its own port, no persistence; stop/start/kill at will.

    cluster: a cluster node (its nodes.conf in `workdir`, named by the port, so a restarted
    node rejoins as the same node). probe: how to PING it once started (TLS, ACL users).
    """

    def __init__(
        self,
        workdir: Path,
        *extra: str,
        cluster: bool = False,
        port: int | None = None,
        probe: Any = None,
    ) -> None:
        self.port = port or free_port(with_bus=cluster)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._workdir = workdir
        self._extra = extra
        if cluster:
            self._extra = (
                "--cluster-enabled", "yes",
                "--cluster-config-file", str(workdir / f"nodes-{self.port}.conf"),
                *extra,
            )  # fmt: skip
        self._probe = probe or (lambda: redis.Redis(port=self.port, socket_connect_timeout=0.2))
        self._log = workdir / f"redis-{self.port}.log"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the server on the same port and wait until it answers."""
        with self._log.open("ab") as log:  # the child keeps its own copy of the descriptor
            self._proc = subprocess.Popen(
                [
                    REDIS_SERVER,
                    "--port", str(self.port),
                    "--bind", "127.0.0.1",
                    "--save", "",
                    "--appendonly", "no",
                    "--dir", str(self._workdir),
                    *self._extra,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                break
            try:
                with self._probe() as probe:
                    if probe.ping():
                        return
            except redis.ConnectionError:
                time.sleep(0.02)
        tail = self._log.read_text(errors="replace")[-2000:]
        self.stop()
        raise RuntimeError(f"private redis-server on port {self.port} did not start:\n{tail}")

    def stop(self) -> None:
        """Stop the server (only this one: the process this fixture started)."""
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None

    def pause(self) -> None:
        """SIGSTOP the server: connections stay open, nothing is answered (a hung machine)."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGSTOP)

    def kill(self) -> None:
        """SIGKILL the server, as a crash or a lost machine would end it: no goodbye."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGKILL)
            self._proc.wait()
            self._proc = None

    def client(self) -> redis.Redis:
        """A plain redis-py client on this server, for setting the scene."""
        return redis.Redis(port=self.port, decode_responses=True)


class LocalCluster:
    """A Redis Cluster on loopback: `primaries` primaries with `replicas` replicas each.

    Nodes fail over fast (cluster-node-timeout 1 s) and a dead primary takes down only its
    own slots (cluster-require-full-coverage no), as we recommend for production.
    """

    def __init__(self, workdir: Path, primaries: int = 3, replicas: int = 1, node_timeout_ms: int = 1000) -> None:
        self.workdir = workdir
        self.replicas = replicas
        extra = (
            "--cluster-node-timeout", str(node_timeout_ms),
            "--cluster-require-full-coverage", "no",
            # A (re)started replica syncs at once instead of waiting 5 s for others to join.
            "--repl-diskless-sync-delay", "0",
        )  # fmt: skip
        self.nodes = [PrivateRedis(workdir, *extra, cluster=True) for _ in range(primaries * (1 + replicas))]

    @property
    def url(self) -> str:
        """REDIS_URL of the cluster: every node is a seed."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes) + "/0"

    def start(self) -> None:
        """Start every node, join them with redis-cli --cluster create, wait until ready."""
        for node in self.nodes:
            node.start()
        out = subprocess.run(
            [REDIS_CLI, "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        if out.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
        self.wait_ready()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def node(self, port: int) -> PrivateRedis:
        return next(n for n in self.nodes if n.port == port)

    def topology(self) -> dict[int, dict[str, Any]]:
        """By port, as a live node sees the cluster: role, primary's port, slots, failed."""
        for node in self.nodes:
            if not node.running:
                continue
            try:
                with node.client() as c:
                    text = c.execute_command("CLUSTER", "NODES")
            except redis.RedisError:
                continue
            if isinstance(text, dict):  # redis-py parses CLUSTER NODES; we want the text
                with node.client() as c:
                    text = c.execute_command("CLUSTER NODES", NEVER_DECODE=True)
            break
        else:
            raise RuntimeError("no cluster node answers")
        if isinstance(text, bytes):
            text = text.decode()
        ids: dict[str, int] = {}
        rows = [line.split() for line in text.splitlines() if line.strip()]
        for row in rows:
            ids[row[0]] = int(re.split(r"[:@]", row[1])[1])
        out: dict[int, dict[str, Any]] = {}
        for row in rows:
            port = ids[row[0]]
            flags = row[2].split(",")
            out[port] = {
                "role": "primary" if "master" in flags else "replica",
                "primary": ids.get(row[3]) if row[3] != "-" else None,
                "failed": "fail" in flags or "fail?" in flags,
                "slots": row[8:],
            }
        return out

    def primary_of_slot(self, slot: int) -> PrivateRedis:
        for port, info in self.topology().items():
            if info["role"] != "primary" or info["failed"]:
                continue
            for item in info["slots"]:
                if item.startswith("["):
                    continue
                lo, _, hi = item.partition("-")
                if int(lo) <= slot <= int(hi or lo):
                    return self.node(port)
        raise RuntimeError(f"no live primary serves slot {slot}")

    def replica_of(self, primary: PrivateRedis) -> PrivateRedis:
        return next(self.node(p) for p, i in self.topology().items() if i["primary"] == primary.port)

    def wait_ready(self, timeout: float = 30) -> None:
        """Until every running node says cluster_state:ok and knows every node, each primary
        holds slots, and every running replica's link to its primary is up."""
        deadline = time.monotonic() + timeout
        problem = "not checked"
        while time.monotonic() < deadline:
            problem = self._not_ready()
            if not problem:
                return
            time.sleep(0.05)
        raise RuntimeError(f"cluster not ready after {timeout:g} s: {problem}")

    def _not_ready(self) -> str:
        want = len(self.nodes)
        for node in self.nodes:
            if not node.running:
                return f"node {node.port} is down"
            try:
                with node.client() as c:
                    info = c.execute_command("CLUSTER", "INFO")
                    if isinstance(info, dict):
                        state, known = info.get("cluster_state"), int(info.get("cluster_known_nodes", 0))
                    else:
                        state = re.search(r"cluster_state:(\w+)", info).group(1)  # type: ignore[union-attr]
                        known = int(re.search(r"cluster_known_nodes:(\d+)", info).group(1))  # type: ignore[union-attr]
                    if state != "ok" or known != want:
                        return f"node {node.port}: state {state}, knows {known} of {want}"
                    repl = c.info("replication")
                    if repl["role"] == "slave" and repl.get("master_link_status") != "up":
                        return f"replica {node.port}: link to its primary is {repl.get('master_link_status')}"
            except redis.RedisError as exc:
                return f"node {node.port}: {exc}"
        topo = self.topology()
        if any(i["failed"] for i in topo.values()):
            return "a node is still flagged as failed"
        for node in self.nodes:  # every node agrees with the others about what it is
            with node.client() as c:
                own = "primary" if c.info("replication")["role"] == "master" else "replica"
            if topo.get(node.port, {}).get("role") != own:
                return f"node {node.port} is a {own}, the others do not know yet"
        if sum(1 for i in topo.values() if i["role"] == "primary" and i["slots"]) != want // (1 + self.replicas):
            return "not every primary holds slots yet"
        return ""

    def flushall(self) -> None:
        """Empty every primary (replicas follow); each node says itself what it is."""
        for node in self.nodes:
            with node.client() as c:
                if c.info("replication")["role"] == "master":
                    c.flushall()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A running throwaway redis-server the test may stop and restart."""
    if not os.path.exists(REDIS_SERVER):
        pytest.skip("redis-server binary not found")
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cluster_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A throwaway one-node Redis Cluster owning all 16384 slots (cheap: for the tests that
    stop the whole cluster)."""
    server = PrivateRedis(tmp_path, cluster=True)
    server.start()
    try:
        with server.client() as admin:
            admin.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
            deadline = time.monotonic() + 10
            while "cluster_state:ok" not in str(admin.execute_command("CLUSTER", "INFO")):
                if time.monotonic() > deadline:
                    raise RuntimeError("one-node cluster did not become ready")
                time.sleep(0.05)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_cluster_session() -> Iterator[LocalCluster]:
    """Three primaries and three replicas, made once per session, stopped after it."""
    workdir = Path(tempfile.mkdtemp(prefix="denpex-cluster-"))
    cluster = LocalCluster(workdir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def redis_cluster(redis_cluster_session: LocalCluster) -> Iterator[LocalCluster]:
    """The session's cluster, healthy (every node up, as after a failover test restarted its
    victim) and empty before and after the test."""
    cluster = redis_cluster_session
    for node in cluster.nodes:
        if not node.running:
            node.start()
    cluster.wait_ready()
    cluster.flushall()
    yield cluster
    for node in cluster.nodes:
        if not node.running:
            node.start()
    cluster.wait_ready()
    cluster.flushall()
