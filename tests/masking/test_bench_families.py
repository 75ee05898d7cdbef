"""Every planted kind in a 2,000-line log of each benchmark family (bench/loggen.py), written as
that family's launcher writes a rank's line (`[rank19]:`, `worker-2: `, `12: `, a JSON entry):
gone from `denpex mask`, and gone from what a diagnosis carries out when the planted line is the
one it quotes. The production path on the logs the speed benchmark measures."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from bot.masking import MaskedText
from bot.service import Denpex
from tests.masking.test_masking import PERSONAL, SECRETS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import loggen  # noqa: E402  (bench/ is no package: on the path above)

APP = Denpex()
PLANTED = SECRETS + PERSONAL
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB"
# Sorted: the same ids in every process (pytest-xdist).
FAMILIES = sorted(loggen.FAMILIES)


@cache
def _family(name: str) -> tuple[list[str], loggen.Family]:
    """The family's 2,000-line log (its own failure in it) and a writer of its line wrapping."""
    lines = loggen.paste(2000, seed=3, family=name).split("\n")[:-1]
    return lines, loggen.FAMILIES[name](random.Random(3), 300_000)


def _wrapped(family: loggen.Family, text: str) -> str:
    """`text` (one line or several) as the family's launcher writes each line of a rank's output."""
    return "\n".join(family.wrap(family.failed, line) for line in text.split("\n"))


def _forms(value: str) -> list[str]:
    """How a value can stand in the log: as is, JSON-escaped, Go-escaped (k8s-json's entries)."""
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    go = escaped.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return sorted({value, escaped, go})


def _leaked(value: str, text: str) -> bool:
    return any(re.search(r"(?<![\w.])" + re.escape(form) + r"(?![\w])", text) for form in _forms(value))


@pytest.mark.parametrize("name", FAMILIES)
def test_denpex_mask_removes_every_kind_from_each_family(name: str, tmp_path: Path) -> None:
    """`denpex mask` on the family's log with every kind planted, spread through it."""
    lines, family = _family(name)
    body = list(lines)
    step = len(body) // (len(PLANTED) + 1)
    for i, (line, _, _) in enumerate(PLANTED):
        body.insert((i + 1) * step + i, _wrapped(family, line))
    log = "\n".join(body) + "\n"
    path = tmp_path / "train.log"
    path.write_text(log, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "bot", "mask", str(path)], cwd=ROOT, capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode("utf-8")
    assert text.count("\n") == log.count("\n")
    leaked = [kind for _, value, kind in PLANTED if _leaked(value, text)]
    assert not leaked, leaked


@pytest.mark.parametrize("name", FAMILIES)
def test_a_diagnosis_quoting_the_planted_line_carries_no_kind_out(name: str) -> None:
    """Each kind on the failure line the diagnosis quotes (the first OOM of the log; a planted
    block of lines ends with it): what the diagnosis carries out is MaskedText, and no planted
    value is in it."""
    lines, family = _family(name)
    at = len(lines) // 5  # before the family's own failure, which the paste keeps past the middle
    leaked, unquoted = [], []
    for line, value, kind in PLANTED:
        # As in tests/test_egress.py: the block once as printed (where its context teaches a
        # name or a secret), then again with the failure on its last line.
        body = [*lines[:40], _wrapped(family, line), *lines[40:at], _wrapped(family, f"{line} {OOM}"), *lines[at:]]
        diagnosis = APP.diagnose_stream(["\n".join(body).encode() + b"\n"]).diagnosis
        evidence = [e for m in diagnosis.matches for e in m.evidence]
        quoted = at + 2 + 2 * line.count("\n")  # the failure ends the second block's last line
        if not any(e.line == quoted for e in evidence):
            unquoted.append(kind)
        texts = [e.text for e in evidence] + [diagnosis.unmatched or ""]
        assert all(isinstance(t, MaskedText) for t in texts if t)
        if any(_leaked(value, t) for t in texts):
            leaked.append(kind)
    assert not unquoted, f"the planted line was not the one quoted: {unquoted}"
    assert not leaked, f"leaked from the evidence: {leaked}"
