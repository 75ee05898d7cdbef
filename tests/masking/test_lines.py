"""LinePattern (bot/masking/lines.py): a pattern read at line starts, behind launcher prefixes,
and skipped on a text where its `gate` finds nothing."""

from __future__ import annotations

import gc
import re

import pytest

import bot.masking.masker  # noqa: F401  (every detector module, so every LinePattern, is loaded)
from bot.masking import Masker
from bot.masking.lines import LinePattern
from tests.masking.test_masking import PERSONAL, SECRETS

# What the tables and rows that declare `needs` look like, as the tools print them, behind the
# prefixes launchers put on a rank's lines.
TABLES = """\
NAMESPACE   NAME                 READY   STATUS    RESTARTS   AGE   IP            NODE                          NOMINATED NODE
ml          trainer-worker-0     1/1     Running   0          3h    10.244.1.17   aks-gpupool-31245827-vmss000  <none>
NAME                              STATUS   ROLES    AGE   VERSION
gke-train-a100-pool-9f2c7d1e-x8kq Ready    <none>   12d   v1.29.4-gke.1043002
             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
            481516       gpu    train hfischer  R    2:03:11      2 gpu-node-[017-018]
PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST
gpu*         up 2-00:00:00      4  alloc gpu-node-[017-020]
NODELIST      NODES PARTITION STATE
gpu-node-017      1      gpu* alloc
    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
 201733 hfischer  20   0  112.3g  41.2g   2.1g R 100.0  16.4  12:03.44 python
USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
hfischer  201733 99.8 16.4 117758 43201 ?        Rl   10:42  12:03 python train.py
UID          PID    PPID  C STIME TTY          TIME CMD
hfischer  201733  201700 99 10:42 ?        00:12:03 python train.py
JobID           JobName  Partition    Account  AllocCPUS      State ExitCode
------------ ---------- ---------- ---------- ---------- ---------- --------
481516            train        gpu    ml-team         64     FAILED      1:0
127.0.0.1	localhost
10.1.2.17	gpu-node-017.cluster.local gpu-node-017
::1	ip6-localhost ip6-loopback
^025441e (Hannah Fischer 2026-12-04 03:05:28 +0000 1) import torch
May  6 10:42:01 gpu-node-017 kernel: [ 8412.551] NVRM: Xid (PCI:0000:17:00): 79, GPU has fallen off the bus.
2026-12-04T10:42:01.123456+00:00 gpu-node-018 slurmstepd[4242]: error: Detected 1 oom_kill event
-rw-r--r-- 1 hfischer ml-team 4823 Dec  4 10:42 train.py
"""


def _line_patterns() -> list[LinePattern]:
    return [obj for obj in gc.get_objects() if isinstance(obj, LinePattern)]


def _corpus() -> list[str]:
    plain = [TABLES, *(row[0] for row in SECRETS), *(row[0] for row in PERSONAL)]
    prefixed = ["\n".join(f"[rank3]: {line}" for line in text.splitlines()) for text in plain]
    hosts = ["\n".join(f"worker-1: {line}" for line in text.splitlines()) for text in plain]
    return plain + prefixed + hosts + ["\n".join(RAY + line for line in text.splitlines()) for text in plain]


def test_every_gate_finds_something_in_every_match():
    """A gated pattern finds nothing, on any text, where its gate finds nothing: the gate finds
    something on the line(s) of each of its matches over the example corpus."""
    gated = [p for p in _line_patterns() if p._gate_source is not None]
    assert len(gated) >= 11  # the tables, /etc/hosts, sacct, git blame, syslog, ls -l
    matched = 0
    for pattern in gated:
        unguarded = LinePattern.__new__(LinePattern)
        unguarded._source, unguarded._flags, unguarded._gate_source = pattern._source, pattern._flags, None
        unguarded._first = unguarded._rest = unguarded._gate = None
        gate = re.compile(pattern._gate_source, pattern._flags)
        for text in _corpus():
            for m in unguarded.finditer(text):
                matched += 1
                end = text.find("\n", m.end())
                assert gate.search(text, m.start(), len(text) if end < 0 else end), (pattern._source, m[0])
    assert matched >= 11  # the corpus meets the patterns: the check above means something


def test_every_line_pattern_compiles():
    """LinePatterns compile on first use, not at import: each one compiles, gate and all, so a
    broken pattern fails here and not on the first log that reaches it."""
    patterns = _line_patterns()
    assert len(patterns) >= 30
    for pattern in patterns:
        first, rest = pattern._compile()
        assert rest.pattern == "\\n" + first.pattern
        if pattern._gate_source is not None:
            re.compile(pattern._gate_source, pattern._flags)


def test_a_line_pattern_compiles_on_first_use():
    rows = LinePattern(r"[ \t]*NODELIST[ \t]+NODES[ \t]+[^\n]*$", re.M, gate=r"NODELIST[ \t]+NODES")
    assert rows._first is None and rows._gate is None
    assert list(rows.finditer("loss 1.0\n")) == []
    assert rows._gate is not None and rows._first is None  # the gate found nothing: body never compiled
    assert len(list(rows.finditer("NODELIST  NODES  PARTITION\n"))) == 1


def test_a_gate_skips_a_text_it_finds_nothing_in():
    rows = LinePattern(r"[ \t]*NODELIST[ \t]+NODES[ \t]+[^\n]*$", re.M, gate=r"NODELIST[ \t]+NODES")
    assert list(rows.finditer("loss 1.0\nNODES 2\n")) == []
    assert [m.start("lead") for m in rows.finditer("x\n[rank0]: NODELIST   NODES PARTITION\n")] == [2]


RAY = "(RayTrainWorker pid=2893, ip=10.0.0.1) "


@pytest.mark.parametrize(
    "prefix", ["", "[rank3]: ", "worker-1: ", " 3: ", RAY, "\x1b[36m" + RAY[:-1] + "\x1b[0m ", "[36m" + RAY[:-1] + "[0m "]
)
def test_tables_with_needs_are_still_masked(prefix):
    """The gated rows still mask what they read: users and hosts in the tables above."""
    text = "\n".join(prefix + line for line in TABLES.splitlines()) + "\n"
    masker = Masker()
    masker.learn(text.encode())
    out = str(masker.mask(text))
    for value in ("hfischer", "aks-gpupool-31245827-vmss000", "gke-train-a100-pool-9f2c7d1e-x8kq",
                  "gpu-node-017", "Hannah Fischer"):  # fmt: skip
        assert value not in out, (value, out)
    for kept in ("READY", "JobID", "localhost", "FAILED", "PARTITION"):
        assert kept in out


def test_every_table_header_holds_its_literal():
    """find_tables tries a header pattern only where its literal occurs (one literal scan for
    all of them): every header each pattern matches over the corpus holds that literal."""
    from bot.masking.hosts import _TABLES

    seen = set()
    for literal, header, _, _ in _TABLES:
        for text in _corpus():
            for m in header.finditer(text):
                seen.add(literal)
                assert literal in m[0], (literal, m[0])
    assert len(seen) >= 6  # the corpus meets most tables: the check above means something
