"""Fixtures for store tests: a real Redis on a spare database, a movable clock, and private
throwaway redis-servers for the tests that stop, restart or cluster them.

The shared test Redis is REDIS_URL's server (default redis://127.0.0.1:6379) on database 13
(DENPEX_TEST_REDIS_DB overrides; DENPEX_TEST_REDIS_URL overrides the server), flushed before
and after every test. Tests never stop that server; they start their own for that.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis

from bot.store import Store, StoreConfig

TEST_DB = int(os.environ.get("DENPEX_TEST_REDIS_DB", "13"))
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def shared_redis_url() -> str:
    """The shared test Redis, always on the test database whatever the URL says."""
    base = os.environ.get("DENPEX_TEST_REDIS_URL") or os.environ.get(
        "REDIS_URL", "redis://127.0.0.1:6379"
    )
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


def free_port(with_bus: bool = False) -> int:
    """A loopback TCP port nobody listens on right now.

    with_bus: also keep port + 10000 free and valid, as a cluster node needs it for its bus.
    """
    for _ in range(100):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if not with_bus:
            return port
        if port + 10000 <= 65535:
            with socket.socket() as bus:
                try:
                    bus.bind(("127.0.0.1", port + 10000))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free loopback port pair for a cluster node")


class PrivateRedis:
    """A throwaway redis-server on its own port, no persistence; stop/start at will."""

    def __init__(self, workdir: Path, *extra: str, cluster: bool = False) -> None:
        self.port = free_port(with_bus=cluster)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._workdir = workdir
        self._extra = extra
        self._log = workdir / f"redis-{self.port}.log"
        self._proc: subprocess.Popen[bytes] | None = None

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
                with redis.Redis(port=self.port, socket_connect_timeout=0.2) as probe:
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

    def client(self) -> redis.Redis:
        """A plain redis-py client on this server, for setting the scene."""
        return redis.Redis(port=self.port, decode_responses=True)


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
    """A throwaway one-node Redis Cluster owning all 16384 slots.

    One node is enough to prove the key layout: a cluster node refuses any multi-key command
    or script whose keys are in different slots (CROSSSLOT), whatever node holds them.
    """
    if not os.path.exists(REDIS_SERVER):
        pytest.skip("redis-server binary not found")
    server = PrivateRedis(
        tmp_path,
        "--cluster-enabled", "yes",
        "--cluster-config-file", str(tmp_path / "nodes.conf"),
        cluster=True,
    )  # fmt: skip
    server.start()
    try:
        with server.client() as admin:
            admin.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
            deadline = time.monotonic() + 10
            while "cluster_state:ok" not in admin.execute_command("CLUSTER", "INFO"):
                if time.monotonic() > deadline:
                    raise RuntimeError("one-node cluster did not become ready")
                time.sleep(0.05)
        yield server
    finally:
        server.stop()
