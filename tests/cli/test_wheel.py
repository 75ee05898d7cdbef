"""The package as a user installs it: `pip wheel .`, the wheel in a fresh venv, `denpex diagnose`.

Offline: the wheel is built without build isolation (README's dev install brings setuptools>=77),
the venv has no pip of its own and gets the already-installed dependencies through a `.pth`
line (no index), so the check takes seconds and needs no network.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log"
CORE_DEPS = ("yaml", "regex", "hyperscan")


def _setuptools_new_enough() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the tree (an in-tree build would leave build/ behind)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("bot", "rules"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("wheels")
    cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(out), str(src)]
    if _setuptools_new_enough():
        cmd.insert(5, "--no-build-isolation")
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    print(f"wheel built in {time.perf_counter() - started:.1f} s")
    (whl,) = out.glob("denpex-*.whl")
    return whl


def test_wheel_carries_every_package_and_rule_file(wheel):
    """The packages are listed by hand in pyproject.toml: a new sub-package or rule file that the
    list misses would be absent from the installed tool, so compare with the tree."""
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "bot").rglob("*.py") if "__pycache__" not in p.parts}
    rules = {"bot/_rules/" + p.relative_to(ROOT / "rules").as_posix() for p in (ROOT / "rules").rglob("*.yaml")}
    assert modules - names == set()
    assert rules - names == set()
    assert "bot/_rules/README.md" in names
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert "License-Expression: LicenseRef-Proprietary" in text
    core = [line for line in text.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert not any(dep in " ".join(core) for dep in ("slack", "redis", "waitress", "cryptography")), core


def test_installed_wheel_diagnoses_with_no_environment_variable(wheel, tmp_path):
    started = time.perf_counter()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    py = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True, capture_output=True, timeout=120,
    )
    # The dependencies this interpreter already has, by path: no index, no download.
    dirs = {str(Path(importlib.import_module(m).__file__).resolve().parents[1]) for m in CORE_DEPS}
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    Path(purelib, "denpex-test-deps.pth").write_text("\n".join(sorted(dirs)) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DENPEX_", "PYTHON"))}
    env["DENPEX_CACHE_DIR"] = str(tmp_path / "cache")
    out = subprocess.run(
        [str(venv / "bin" / "denpex"), "diagnose", str(SAMPLE), "--format", "json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["matches"][0]["id"] == "cuda-oom" and d["initiating_rank"] == 3
    where = subprocess.run(
        [str(py), "-c", "import bot, bot.matcher as m; print(bot.__file__); print(m.default_rules_dir())"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    ).stdout.split()
    assert where[0].startswith(str(venv)) and where[1].startswith(str(venv)), where
    print(f"venv + install + diagnose in {time.perf_counter() - started:.1f} s")
