"""The Redis whose databases the tests may flush: one they started, never one they found.

The store, Slack and reliability suites flush their test databases (11-13) before and after
tests. Doing that on `$REDIS_URL` would wipe databases of whatever Redis a developer points
it at, so by default the session starts its own redis-server on a free loopback port (no disk:
`--save ''`, its folder removed at exit). `DENPEX_TEST_REDIS_URL` names a Redis given to the
tests on purpose (its databases 11-13 are flushed); without it and without a redis-server
binary the tests that need Redis fail, saying so.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import time

import redis

from tests.ports import free_port

_url: str | None = None


def _start() -> str:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError(
            "the tests start their own redis-server and none is installed (apt-get install "
            "redis-server), or set DENPEX_TEST_REDIS_URL to a Redis whose databases 11-13 they may flush"
        )
    folder = tempfile.mkdtemp(prefix="denpex-test-redis-")
    for _ in range(5):
        port = free_port()
        proc = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", folder, "--logfile", "", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                redis.Redis.from_url(url, socket_connect_timeout=0.2).ping()
            except redis.RedisError:
                time.sleep(0.05)
                continue

            def stop(proc: subprocess.Popen = proc) -> None:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                shutil.rmtree(folder, ignore_errors=True)

            atexit.register(stop)
            return url
        proc.kill()  # the port was taken between the probe and the start: try another
        proc.wait()
    shutil.rmtree(folder, ignore_errors=True)
    raise RuntimeError("could not start a redis-server for the tests")


def flushable_redis_base() -> str:
    """Base URL (no database) of the Redis the tests own: DENPEX_TEST_REDIS_URL, else their own."""
    global _url
    explicit = os.environ.get("DENPEX_TEST_REDIS_URL")
    if explicit:
        return explicit
    if _url is None:
        _url = _start()
    return _url
