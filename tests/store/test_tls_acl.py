"""A managed-Redis set-up on loopback: TLS with a private CA and an ACL user, as a plain
server and as a cluster node. `rediss://` with `ssl_ca_certs` and `redis://user:password@`
work; a wrong CA, password or scheme is StoreUnavailable; the password is in no log line."""

from __future__ import annotations

import datetime as dt
import ipaddress
import itertools
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from redis.backoff import NoBackoff
from redis.retry import Retry

import bot.cli
from bot.store import Store, StoreConfig, StoreUnavailable

from .conftest import FakeClock, PrivateRedis, free_port
from .test_cluster import exercise

USER = "denpex"
PASSWORD = "Zq7-tls-acl-s3cret"  # looked for in every log line and error
ADMIN_PASSWORD = "admin-pw"
# What the bot needs, and no more (README, "Running N replicas against a Redis Cluster").
BOT_ACL = ("resetchannels ~denpex:* -@all +@read +@write +@keyspace +@scripting +@transaction "
           "+@connection +cluster|slots +cluster|shards +cluster|nodes +cluster|myid +info -@dangerous")


@dataclass
class TLSFiles:
    ca: Path
    cert: Path
    key: Path
    other_ca: Path  # a CA that did not sign the server's certificate


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))  # fmt: skip


def _ca(name: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = _key()
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                     key_encipherment=False, data_encipherment=False, key_agreement=False,
                                     encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    return cert, key


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TLSFiles:
    """A throwaway CA, a server certificate for 127.0.0.1 and localhost, and a stranger CA."""
    out = tmp_path_factory.mktemp("tls")
    ca, ca_key = _ca("Denpex test CA")
    other, _ = _ca("Somebody else's CA")
    key = _key()
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    files = TLSFiles(out / "ca.pem", out / "server.pem", out / "server.key", out / "other-ca.pem")
    files.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files.other_ca.write_bytes(other.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(files.key, key)
    return files


@dataclass
class SecureRedis:
    plain_port: int  # redis://, ACL user required
    tls_port: int  # rediss://, ACL user required
    ca: Path
    other_ca: Path
    server: PrivateRedis

    def url(self, tls: bool = True, password: str = PASSWORD, cluster: bool = False, **query: str) -> str:
        scheme = ("rediss" if tls else "redis") + ("+cluster" if cluster else "")
        port = self.tls_port if tls else self.plain_port
        options = {"ssl_ca_certs": str(self.ca), **query} if tls else query
        qs = "&".join(f"{k}={v}" for k, v in options.items())
        return f"{scheme}://{USER}:{password}@127.0.0.1:{port}/0" + (f"?{qs}" if qs else "")


def _secure_server(workdir: Path, files: TLSFiles, cluster: bool) -> SecureRedis:
    plain = free_port(with_bus=cluster)
    tls = free_port(with_bus=cluster)  # with tls-cluster, the bus is the TLS port + 10000
    # The bot's ACL user, as README suggests: our keys only, no admin or dangerous commands;
    # an admin user to set the scene; no anonymous access.
    acl = workdir / "users.acl"
    acl.write_text(f"user {USER} on >{PASSWORD} {BOT_ACL}\nuser admin on >{ADMIN_PASSWORD} ~* &* +@all\nuser default off\n")
    args = (
        "--tls-port", str(tls),
        "--tls-cert-file", str(files.cert), "--tls-key-file", str(files.key),
        "--tls-ca-cert-file", str(files.ca), "--tls-auth-clients", "no",
        "--aclfile", str(acl),
    )  # fmt: skip
    if cluster:
        args += ("--tls-cluster", "yes")

    def probe() -> redis.Redis:
        return redis.Redis(port=plain, username=USER, password=PASSWORD, socket_connect_timeout=0.2)

    server = PrivateRedis(workdir, *args, cluster=cluster, port=plain, probe=probe)
    server.start()
    return SecureRedis(plain, tls, files.ca, files.other_ca, server)


@pytest.fixture
def secure_redis(tmp_path: Path, tls_files: TLSFiles) -> Iterator[SecureRedis]:
    """redis-server with a TLS port (private CA) and a plain one, both needing an ACL user."""
    secure = _secure_server(tmp_path, tls_files, cluster=False)
    try:
        yield secure
    finally:
        secure.server.stop()


@pytest.fixture
def secure_cluster(tmp_path: Path, tls_files: TLSFiles) -> Iterator[SecureRedis]:
    """The same, as a one-node cluster owning every slot (cluster bus over TLS too)."""
    secure = _secure_server(tmp_path, tls_files, cluster=True)
    try:
        with redis.Redis(port=secure.plain_port, username="admin", password=ADMIN_PASSWORD, decode_responses=True) as admin:
            admin.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
            for _ in range(200):
                if "cluster_state:ok" in str(admin.execute_command("CLUSTER", "INFO")):
                    break
                time.sleep(0.05)
        yield secure
    finally:
        secure.server.stop()


def _works(url: str) -> None:
    """Every store operation runs with these credentials (and BOT_ACL's permissions)."""
    clock = FakeClock()
    store = Store(StoreConfig(url=url), clock)
    try:
        assert store.ping()
        exercise(store, f"T{next(_TEAMS)}", clock)
        assert store.feedback.summary() is not None
    finally:
        store.close()


_TEAMS = itertools.count(1)


def test_rediss_with_a_ca_file_and_an_acl_user_works(secure_redis: SecureRedis) -> None:
    """rediss://user:password@host/0?ssl_ca_certs=ca.pem verifies the server and logs in."""
    _works(secure_redis.url())


def test_redis_with_an_acl_user_works(secure_redis: SecureRedis) -> None:
    """redis://user:password@ logs in as the ACL user (the default user is off)."""
    _works(secure_redis.url(tls=False))


def test_rediss_cluster_with_an_acl_user_works(secure_cluster: SecureRedis) -> None:
    """rediss+cluster:// reaches a TLS cluster node with the CA file and the ACL user."""
    _works(secure_cluster.url(cluster=True))


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("wrong password", "invalid username-password"),
        ("CA that did not sign", "certificate verify failed"),
        ("plain to the TLS port", "Connection"),
        ("no user", "NOAUTH|Authentication required|NOPERM"),
    ],
)
def test_wrong_credentials_or_tls_are_store_unavailable(secure_redis: SecureRedis, how: str, reason: str) -> None:
    """Each mistake an operator can make raises StoreUnavailable saying what went wrong."""
    url = {
        "wrong password": secure_redis.url(password="not-it"),
        "CA that did not sign": secure_redis.url(ssl_ca_certs=str(secure_redis.other_ca)),
        "plain to the TLS port": secure_redis.url().replace("rediss://", "redis://").split("?")[0],
        "no user": f"redis://127.0.0.1:{secure_redis.plain_port}/0",
    }[how]
    store = Store(StoreConfig(url=url, timeout_s=0.5))
    with pytest.raises(StoreUnavailable, match=reason):
        store.quotas.consume("T1")
    assert store.ping() is False


def test_a_wrong_password_on_a_cluster_fails_at_once(secure_cluster: SecureRedis) -> None:
    """A refused login is not retried through the failover window: it cannot heal."""
    window = 10
    store = Store(StoreConfig(url=secure_cluster.url(cluster=True, password="not-it"), retry_window_s=window))
    t0 = time.monotonic()
    with pytest.raises(StoreUnavailable, match="invalid username-password"):
        store.quotas.consume("T1")
    # A retried login would take the whole window; half of it leaves a loaded machine room
    # for the TLS handshakes.
    assert time.monotonic() - t0 < window / 2


def test_the_password_never_appears_in_a_log_line(
    secure_redis: SecureRedis, secure_cluster: SecureRedis, caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every record (ours and redis-py's, at DEBUG) and every error, on success and failure,
    with TLS, ACL and cluster URLs, shows the password as *** at most."""
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    for url in (secure_redis.url(), secure_redis.url(tls=False), secure_cluster.url(cluster=True)):
        _works(url)
        store = Store(StoreConfig(url=url))
        logging.getLogger("denpex.test").warning("store at %s", store.config.display_url)
        seen += [repr(store.config), str(store.config.display_url)]
        store.close()
    # Failures: a refused login, a server that is down, a cluster that is down.
    for url in (secure_redis.url(password=PASSWORD + "x"), secure_redis.url(cluster=True)):
        store = Store(StoreConfig(url=url, retry_window_s=0.2))
        with pytest.raises(StoreUnavailable) as info:
            store.quotas.consume("T1")
        seen += [str(info.value), repr(info.value), info.value.url or "", info.value.reason or ""]
        logging.getLogger("denpex.test").warning("%s", info.value)
    secure_cluster.server.stop()
    down = Store(StoreConfig(url=secure_cluster.url(cluster=True)))
    with pytest.raises(StoreUnavailable) as info:
        down.quotas.consume("T1")
    seen.append(str(info.value))
    # The CLI prints the store's error: no password there either.
    monkeypatch.setenv("REDIS_URL", secure_cluster.url(cluster=True))
    monkeypatch.setattr(bot.cli, "COMMAND_MODULES", ("bot.cli.stats",))
    assert bot.cli.main(["stats", "unmatched"]) != 0
    out, err = capsys.readouterr()
    seen += [out, err]
    records = [r.getMessage() for r in caplog.records] + [caplog.text]
    assert any("***" in line for line in records + seen)
    leaks = [line for line in records + seen if PASSWORD in line]
    assert not leaks, leaks[:3]
    assert any("redis" in r.name for r in caplog.records)  # redis-py did log, and was read


def test_tls_and_acl_flags_are_what_this_redis_server_supports(secure_redis: SecureRedis) -> None:
    """The server really enforces both: no TLS on the TLS port, no login without the user."""
    raw = redis.Redis(port=secure_redis.tls_port, socket_connect_timeout=0.5, socket_timeout=0.5,
                      retry=Retry(NoBackoff(), 0))
    with raw, pytest.raises(redis.ConnectionError):
        raw.ping()
    anonymous = redis.Redis(port=secure_redis.plain_port, retry=Retry(NoBackoff(), 0))
    with anonymous, pytest.raises(redis.AuthenticationError):
        anonymous.ping()
    with redis.Redis(port=secure_redis.plain_port, username=USER, password=PASSWORD, decode_responses=True) as r:
        assert r.set("denpex:{T1}:probe", "1")
        with pytest.raises(redis.exceptions.NoPermissionError):
            r.set("not-ours", "1")  # the user is limited to denpex:* keys
        with pytest.raises(redis.exceptions.NoPermissionError):
            r.flushall()  # and to what the bot needs
