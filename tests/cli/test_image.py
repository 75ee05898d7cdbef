"""The image, read rather than built (no Docker here): pinned base, non-root, locked and hashed
dependencies that match pyproject.toml, a Redis with a password, a health check in both modes."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE = (ROOT / "compose.yaml").read_text()


def _lock() -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes)."""
    text = (ROOT / "requirements.lock").read_text()
    out: dict[str, tuple[str, int]] = {}
    for block in re.split(r"\n(?=[a-z0-9])", text):
        m = re.match(r"([a-z0-9][a-z0-9._-]*)==([^\s\\;]+)", block)
        if m:
            out[canonicalize_name(m[1])] = (m[2], block.count("--hash=sha256:"))
    return out


def test_base_images_are_pinned_to_exact_releases():
    images = re.findall(r"^ARG PYTHON_IMAGE=(\S+)", DOCKERFILE, re.M) + re.findall(r"image:\s*(\S+)", COMPOSE)
    assert images
    for image in images:
        tag = image.split("@")[0].split(":")[1]
        assert re.match(r"\d+\.\d+\.\d+", tag), f"{image}: pin an exact release (or a digest)"
    assert all(line.split()[1].startswith("${PYTHON_IMAGE}") for line in DOCKERFILE.splitlines() if line.startswith("FROM"))


def test_the_image_runs_as_a_user_and_installs_only_locked_hashed_files():
    runtime = DOCKERFILE.split("AS runtime", 1)[1]
    users = re.findall(r"^USER (\S+)", runtime, re.M)
    assert users and users[-1] not in ("root", "0")
    assert runtime.index("USER") < runtime.index("CMD")
    assert "--require-hashes" in runtime and "requirements.lock" in runtime and "--no-deps" in runtime
    assert "HEALTHCHECK" in runtime and "/healthz" in runtime


def test_the_lock_covers_pyproject_with_hashes():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    for extra in ("slack", "zstd"):
        wanted += [Requirement(r) for r in project["optional-dependencies"][extra]]
    lock = _lock()
    for req in wanted:
        name = canonicalize_name(req.name)
        assert name in lock, f"{req.name} is not in requirements.lock: regenerate it (see its header)"
        version, _ = lock[name]
        assert req.specifier.contains(version, prereleases=True), f"{req.name}=={version} does not satisfy {req}"
    assert all(h > 0 for _, h in lock.values()), "every locked requirement carries its hashes"


def test_the_wheel_is_built_with_the_locked_backend():
    build = DOCKERFILE.split("AS runtime", 1)[0]
    assert "--require-hashes -r requirements-build.lock" in build and "--no-build-isolation" in build
    wanted = [Requirement(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]]
    text = (ROOT / "requirements-build.lock").read_text()
    for req in wanted:
        m = re.search(rf"^{re.escape(req.name)}==(\S+) \\\n\s+--hash=sha256:", text, re.M)
        assert m and req.specifier.contains(m[1]), f"{req} is not locked with hashes in requirements-build.lock"


def test_compose_redis_has_a_password_the_bot_uses():
    assert "--requirepass" in COMPOSE and "REDIS_PASSWORD:?" in COMPOSE
    assert re.search(r"REDIS_URL: redis://:\$\{REDIS_PASSWORD", COMPOSE)
    assert "REDISCLI_AUTH" in COMPOSE, "the health check authenticates too"
    assert ".env" in (ROOT / ".dockerignore").read_text().split()
