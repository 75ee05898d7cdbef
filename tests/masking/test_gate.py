"""The line gate (bot/masking/gate.py) never changes what a gated detector finds.

A detector with `line_anchors` or a `line_trigger` runs on the masker's path only over the
lines holding one of the words or matching the trigger. These tests run each gated row of the detectors table both ways, over the whole text and
over its gated lines, on the masking corpora, the families generator and random texts built
from the shapes the detectors look for, and check the edits and what it learns are the same;
and that every edit it makes over the whole text lies on a line its gate finds.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.masking.anchors import find_anchors, present_words
from bot.masking.detectors import DETECTORS, Detector, Scan
from bot.masking.gate import Gate, gated_text, remap
from bot.masking.state import LogState
from tests.data.masking import families

GATED = [d for d in DETECTORS if d.gated]
DATA = Path(__file__).parents[1] / "data" / "masking"
# Each row's own gate, as the masker's stage gate holds it (compiled once: Hyperscan is slow to build).
GATES = {d.name: Gate([d]) for d in GATED}


def _own_lines(detector: Detector, text: str) -> list[tuple[int, int]]:
    """The lines the row's gate matches, each looked at alone (the gate may give the whole
    text instead, where they are most of it)."""
    spans, start = [], 0
    for line in text.split("\n"):
        end = min(start + len(line) + 1, len(text))  # the newline with it (a line ends only there)
        if GATES[detector.name].spans(line)[detector.name]:
            spans.append((start, end))
        start = end
    return spans


def _run(detector: Detector, text: str, gate: bool, own: bool = False) -> tuple[list, dict, dict]:
    state = LogState()
    present = present_words(text, find_anchors(text))
    if gate:
        lines = _own_lines(detector, text) if own else GATES[detector.name].spans(text)[detector.name]
        joined, joined_starts, text_starts = gated_text(text, lines)
        scan = Scan(joined, [], present, [], state)
        detector.find(scan)
        edits = remap(scan.edits, joined_starts, text_starts)
    else:
        scan = Scan(text, find_anchors(text), present, [], state)
        detector.find(scan)
        edits = scan.edits
    return edits, dict(state.hosts), dict(state.users)


def _check(detector: Detector, text: str) -> None:
    whole = _run(detector, text, gate=False)
    assert _run(detector, text, gate=True) == whole
    assert _run(detector, text, gate=True, own=True) == whole
    gate = GATES[detector.name]
    for start, end, _, _ in whole[0]:
        line = text[text.rfind("\n", 0, start) + 1 : (text.find("\n", end) + 1 or len(text) + 1) - 1]
        assert "\n" not in text[start:end] and gate.spans(line)[detector.name], (detector.name, text[start:end])


def test_some_rows_are_gated() -> None:
    """The gate is in force: the rows the masker skips most lines for are declared gated."""
    assert {"cloud-accounts", "ipv4"} <= {d.name for d in GATED}


def _corpora() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(DATA.glob("*.log"))]
    for name, family in families.FAMILIES.items():
        texts.append("\n".join(family(families.P(random.Random(name)))) + "\n")
    return texts


@pytest.mark.parametrize("detector", GATED, ids=lambda d: d.name)
def test_gate_finds_what_the_whole_text_pass_finds_on_the_corpora(detector: Detector) -> None:
    """On every masking corpus and generated family, the gated lines give the same edits."""
    for text in _corpora():
        _check(detector, text)


@pytest.mark.parametrize("detector", GATED, ids=lambda d: d.name)
def test_every_example_passes_its_rows_gate(detector: Detector) -> None:
    """Each kind's example as the real tool prints it (tests/masking/test_detectors.py): what
    a gated row finds in it, it finds on the lines its gate gives it."""
    from tests.masking.test_detectors import ALL_LINES

    for line in ALL_LINES:
        _check(detector, line)


# Lines as a later stage reads them (the hosts stage sees addresses as placeholders already),
# and shapes the corpora lack.
STAGED = """\
[rank0]: -rw-r--r-- 1 hfischer ml-team 4823 Dec  4 10:42 train.py
<IP-1>   gpu-node-07 gpu-node-07.cluster.local
[rank3]: <IPV6-2> trainbox05 # login
127.0.1.1\ttrainbox05
::1 localhost ip6-localhost
hfischer  123456 99.3  2.1 31544212 2763444 ?     Rl   10:41  52:03 python train.py
gpu-node-07,<IP-2> ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHd3Nn1ZpQ0kq7m0a1cR9xk2T5w8Yb3cJ4uV6eL0sA1B
(I pasted my token Xq7mK2pL9vR4tZ8w earlier, rotating it now)
I moved the job to kraken-ml for now
SM_OUTPUT_DATA_DIR=s3://ximena-llm-ckpts/output
Thanks Lukas! ping Dana if you see this
-- Priya
Ship it to 221 Baker Street, London NW1 6XE, or to Lindenstraße 12a, 10999 Berlin (12 Rue de la Roquette is closed)
ValueError: could not parse row {'ssn': '219-09-9999', 'card': '4111 1111 1111 1111'}
jdoe-dev      jdoe-llama-sft-6b8d9f-zz9qp   0/1     OOMKilled   2          5m
{"assigned_to": "Hannah Fischer", "state": "open"}
Triggered by Dana Whitfield; detected by watchdog at work: 71487
mail the owner of the label at ops@
gpu07.cluster.internal/replica-index=0
Gurobi: evaluation code: A44DLW7HJH2G (exit code: 1)
project = hfischer-sandbox ; wandb: Syncing run hannah-llama-sweep-3
see https://www.kaggle.com/code/priya42/train-vit and gs://x --project=tanaka-yuki-exp
on-call this week: Dana (415-555-0134), backup Priya Raman, +44 20 7946 0958
ssh into Hannahs-MacBook-Pro.local failed; jupyter on tomasz-desktop:8888
Bereitschaft Jonas Weber 0171/234 5678, astreinte 06.12.34.56.78, ring 07700 900 123 or escalate to Dana 98765 43210
payroll: nino=PR654321B, the form says WK 48 19 27 B
Host Name:                 DESKTOP-4RT9KQW ; remote=laptop-8c2k1m7q.mshome.net:29400
sample 12: name=Hannah Fischer label=1 ; {"name": "Priya Raman"}
[10:42] Aoife Mbeki: loss went NaN again; // TODO(hfischer): ask Minh or escalate to Joaquín Muñoz
"""


def test_gate_finds_what_the_whole_text_pass_finds_on_staged_lines() -> None:
    for detector in GATED:
        _check(detector, STAGED)


def test_the_corpora_exercise_every_gated_row() -> None:
    """Each gated row finds something in the corpora, so the equality above is not vacuous."""
    for detector in GATED:
        assert any(_run(detector, text, gate=False)[0] for text in [*_corpora(), STAGED]), detector.name


# Pieces of the shapes the gated rows look for, and near misses, run together at random.
FRAGMENTS = [
    "dgx-h100-026", "gpu-node-17", "node017", "a100-044", "trn1-191", "compute-0-12", "ec2-10-0-1-23",
    "ip-10-0-1-23", "aks-nodepool1-12345678-vmss000001", "gke-prod-pool-1a2b3c4d-xyz1", "hgx-12", "cpu-3-7",
    "arn:aws:iam::123456789012:user/hannah.fischer", "arn:aws:sts::123456789012:assumed-role/R/alice",
    '"Account": "123456789012"', "AWS_ACCOUNT_ID=123456789012", "owner_id: 123456789012",
    "123456789012.dkr.ecr.us-east-1.amazonaws.com/repo", "s3://sagemaker-us-east-1-123456789012/",
    "AIDAABCDEFGHIJKLMNOP", "AROAABCDEFGHIJKLMNOP:alice", "/subscriptions/0123abcd-0123-4567-89ab-0123456789ab/",
    '"id": "0123abcd-0123-4567-89ab-0123456789ab"', '"tenantId"', "tenant_id=0123abcd-0123-4567-89ab-0123456789ab",
    "step-", "x", "-", ":", "[0]", "NCCL INFO", "ACCOUNT", "é", "\t", "  ", "12", "\r",
    "s3://ximena-llm-ckpts/", "gs://raul_scratch", "S3://", "s3://adam-runs/",
    # Named resources, contact lines, people's machines, North American numbers, near misses.
    "project = hfischer-sandbox", "Syncing run priya-llama-3", "Experiment 'nvolkov-sweep'", "kaggle.com/code/priya42/",
    "415-555-0134", "(415) 555-0134", "+44 20 7946 0958", "415-055-0134", "tomasz-desktop", "gpu-box", " phone: ",
    "Dana ", "Hannahs-MacBook-Pro", "Email ",
    # Addresses, hardware addresses and host lists, and near misses.
    "0c:42:a1:9b:6d:2c", "0C-42-A1-9B-6D-2C", "0c42.a19b.6d2c", "brd ", "Port GUID: 0x0c42a10300123456", "guİd: ",
    "0x0c42a10300123456", ' ports 1 "', '"H-0c42a10300123456"', "fe80::14ad:64ff:fe64:b31e%eth0", "::ffff:10.0.0.1",
    "2001:db8:85a3:0:0:8a2e:370:7334", "fe80:0000:0000:0000:0c42:a1ff:fe9b:6d2c", "veth1:", "<0>", "::", "10.1.2.3",
    "CUDA Version: ", "127.0.0.1", "<IP-1>", "gpu-node-[017-018]", "node[01-04,7]", "[٣]", "layers[3]", " localhost",
    # Line prefixes that name a host: syslog, RFC 5424, pdsh.
    "May  6 10:42:01 a100-03 kernel: ", "2026-05-06T10:42:01.123Z gpu-07 systemd[1]: ", "10:42:0", "worker-1: [2025-",
    "worker-1: [INFO", "deepspeed.runtime: [INFO", "1٣:42:01 ",
    # `ls -l` rows.
    "-rw-r--r-- 1 hfischer ml-team 4823 Dec  4 10:42 train.py", "drwxr-xr-x.  2 ", "lrwxrwxrwx 1 ", "bsmith users ", "-rw-r--r-- ٣ ",
    # Identity numbers and their near misses (dates, phone numbers, numpy rows of token ids).
    "219-09-9999", "SSN: ", "078051120", "4111 1111 1111 1111", "5555-5555-5555-4444", "3782 822463 10005",
    "card_number=", "4012888888881881", "2024-12-05", "415-555-0199", " 4096 4096", "٣",
    "07700 900123", "0151-2345678", "06 12 34 56 78", "98765 43210", "escalate to Dana ", "sms: \"", "Dana (", "07.12.3",
    "name=Hannah Fischer", "name: Dana ", "name=Adam W", "\"name\": \"", "Raman", "job_name=",
    "DESKTOP-4RT9KQW", "LAPTOP-R4N8D2KQ", "desktop-7qk2l9m", "laptop-mode", "DESKTOP-", ".mshome.net",
    "nino: ", "NI no. ", "JG123456C", "WK 48 19 27 B", "AB 12 34 56", " 8589934592", "0x06123",
    # Vendor tokens, split from their prefixes at random, and near misses (`task-`, `tokens_`).
    "hf_", "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3z", "AKIA", "LAGIQMINLNPWO65O", "sk-", "proj-aB3dE5fG7hJ9kL2mN4pQ6r",
    "eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOiJ4In0.", "task-", "tokens_", "1Q~", "Vtx8Q~pN3kLr2mZs9QwE5yHb7uJc1dFg4aKo6iWe",
    # Postal addresses and near misses.
    "221 Baker Street", "Lindenstraße 12a", "12 Rue de la ", "Via Garibaldi 7", "via NCCL", " Files In Place", "Ave", "STREET",
    # URLs with and without userinfo, a forge's owner path, DeepSpeed's world and near misses.
    "https://", "redis://", "://", "hfischer:Tundra9x@", ":pw@", "@", "git.acme.io/hfischer/llm.git", "trn-052:8888/lab",
    "db01.initech.de:5432", "--world_info=", "eyJ3b3JrZXItMCI6IFswLCAxXX0=", "World_Info=", "/", "?",
    # Chat speakers, asked people and TODO owners, and near misses.
    "[10:42] ", "[2024-03-12 10:42] ", "Aoife Mbeki: ", "Thảo: ", "ask Minh ", "escalate to ", "TODO(hfischer)", "TODO(perf)",
    " or Priya Raman",
]  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# `İ` lower-cases to two characters: a row finding its label in `text.lower()` was a place off.
@example([["guİd: "], [" phone: ", "415-555-0134"]])
@given(st.lists(st.lists(st.sampled_from(FRAGMENTS) | st.text(alphabet="abdgx-:.0123456789 A\"", max_size=6), max_size=8), max_size=12))
def test_gate_finds_what_the_whole_text_pass_finds_on_random_texts(lines: list[list[str]]) -> None:
    """Random lines of detector shapes and near misses: the gate changes no edit."""
    text = "\n".join("".join(parts) for parts in lines)
    for detector in GATED:
        _check(detector, text)


def test_a_stage_gate_finds_each_rows_lines_as_the_rows_own_gate_does() -> None:
    """The masker scans one database per stage: each row's lines in it are its own gate's."""
    for stage in {d.stage for d in GATED}:
        rows = [d for d in GATED if d.stage == stage]
        stage_gate = Gate(rows)
        for text in _corpora():
            found = stage_gate.spans(text)
            assert found == {d.name: GATES[d.name].spans(text)[d.name] for d in rows}


def test_a_row_on_most_lines_is_given_the_whole_text() -> None:
    ipv4 = next(d for d in GATED if d.name == "ipv4")
    dense = "(RayTrainWorker pid=1, ip=10.16.0.218) up\nplain\n(RayTrainWorker pid=2, ip=10.16.0.219) up\n"
    assert GATES[ipv4.name].spans(dense)[ipv4.name] == [(0, len(dense))]
    sparse = "plain\nhost 10.16.0.7 up\nplain\n"
    assert GATES[ipv4.name].spans(sparse)[ipv4.name] == [(6, 24)]


def test_no_gated_row_reads_every_line_of_an_nccl_log() -> None:
    """NCCL names a node on every line (`dgx-h100-017:1234:1299 [3] NCCL ...`): a row gated by
    node words had every line of such a log, a gate callback a line for nothing (its row
    finds its heads itself, in one scan), and cost the hosts stage's gate half its time."""
    log = "".join(
        f"{lead}dgx-h100-0{n % 32:02d}:{1000 + n}:{2000 + n} [{n % 8}] NCCL INFO Channel 00/0 : {n}[0] -> {n + 1}[1] via P2P/IPC/read\n"
        for n in range(64)
        for lead in ("", "worker-3: ", "[rank5]:")
    )
    for stage in {d.stage for d in GATED}:
        found = Gate([d for d in GATED if d.stage == stage]).spans(log)
        busy = {name: spans for name, spans in found.items() if len(spans) >= 8 or spans == [(0, len(log))]}
        assert not busy, (stage, list(busy))


def test_a_role_key_spelled_with_an_underscore_reaches_its_row() -> None:
    """`assigned_to:` is a role key of the owners row: its gate let the line through only
    when spelled with a blank, so a tracker's JSON kept the name."""
    from bot.masking import mask

    assert "Hannah" not in mask('{"id": 4812, "assigned_to": "Hannah Fischer", "state": "open"}\n').text


def test_the_postal_gate_stays_shut_on_a_logs_own_words() -> None:
    """NCCL prints `via P2P/IPC` on every channel line and code says `dist.` and `lane`: with
    the street types as any-case words, the postal row was given the whole of such a log
    and its pattern cost 80 ms a MB of `denpex mask`. Only an address's own spelling opens it."""
    log = (
        "gpu-node-017:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
        "gpu-node-017:1:2 [1] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via P2P/CUMEM/read\n"
        "  File \"train.py\", line 40, in main: dist.barrier(); warp lane 3 drive 2 court\n"
        "Ship to 95 Elm Street, 10999 Berlin\n"
    )
    assert GATES["postal-addresses"].spans(log)["postal-addresses"] == [(log.index("Ship"), len(log))]
