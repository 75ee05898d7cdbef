"""Masking at the egress: the raw log is matched, and only masked text leaves.

These tests run the production path (`Denpex.diagnose_stream`, `denpex mask`) on logs of
several families with every planted kind of tests/masking/test_masking.py, and check both halves of
the design: nothing planted leaves, and masking never changes what is diagnosed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.masking import MaskedText, Masker, UnmaskedTextError, mask, require_masked
from bot.service import Denpex
from tests.masking.test_masking import PERSONAL, SECRETS

ROOT = Path(__file__).resolve().parent.parent
APP = Denpex()
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB"


def _torchrun_nccl(n: int) -> list[str]:
    return [
        f"[rank{i % 8}]:gpu-node-{i % 4:02d}:{4100 + i % 8}:{4200 + i % 97} [{i % 8}] NCCL INFO Channel {i % 32:02d}/0 : "
        f"{i % 8}[{i % 8}] -> {(i + 1) % 8}[{(i + 1) % 8}] via P2P/IPC"
        for i in range(n)
    ]


def _trainer_steps(n: int) -> list[str]:
    return [f"{{'loss': {2.5 - i / 1e4:.4f}, 'grad_norm': 0.{i % 97:02d}, 'learning_rate': 3e-05, 'epoch': {i / 1000:.2f}}}" for i in range(n)]


def _k8s_json(n: int) -> list[str]:
    return [
        json.dumps({"log": f"[rank{i % 4}]: step {i} loss {2.1 - i / 1e4:.4f}\n", "stream": "stderr", "time": f"2026-11-30T12:{i % 60:02d}:00.{i:06d}Z"})
        for i in range(n)
    ]


FAMILIES = {"torchrun-nccl": _torchrun_nccl, "trainer-steps": _trainer_steps, "k8s-json": _k8s_json}
PLANTED = SECRETS + PERSONAL


def _planted(family: str, line: str) -> str:
    """A 2,000-line log of `family` with `line` planted near the top and again, with the
    failure, on the line the diagnosis quotes."""
    body = FAMILIES[family](2000)
    body.insert(40, line)
    body.insert(1400, f"{line} {OOM}")
    return "\n".join(body) + "\n"


def _leaves(value: str, texts: list[str]) -> bool:
    rx = re.compile(r"(?<![\w.])" + re.escape(value) + r"(?![\w])")
    return any(rx.search(t) for t in texts)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_no_planted_kind_leaves_in_a_diagnosis(family: str) -> None:
    """Every planted secret and personal value, on the very line the evidence quotes, is masked
    in what the diagnosis carries out; the diagnosis is the same as on the raw log."""
    leaked, differ = [], []
    for line, value, kind in PLANTED:
        log = _planted(family, line).encode()
        masked = APP.diagnose_stream([log]).diagnosis
        raw = APP.diagnose_stream([log], mask=False).diagnosis
        texts = [e.text for m in masked.matches for e in m.evidence] + [masked.unmatched or ""]
        assert all(isinstance(t, MaskedText) for t in texts if t)
        if _leaves(value, texts):
            leaked.append(kind)
        if [m.id for m in masked.matches] != [m.id for m in raw.matches] or masked.initiating_rank != raw.initiating_rank:
            differ.append(kind)
    assert not leaked, f"leaked from the evidence: {leaked}"
    assert not differ, f"masking changed the diagnosis: {differ}"


def test_denpex_mask_removes_every_planted_kind(tmp_path: Path) -> None:
    """`denpex mask` on a 2,000-line torchrun log carrying every planted kind prints none of them."""
    body = _torchrun_nccl(2000)
    for i, (line, _, _) in enumerate(PLANTED):
        body.insert(20 * i + 7, line)
    path = tmp_path / "train.log"
    log = "\n".join(body) + "\n"
    path.write_text(log)
    out = subprocess.run([sys.executable, "-m", "bot", "mask", str(path)], cwd=ROOT, capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode()
    assert text.count("\n") == log.count("\n")
    leaked = [kind for _, value, kind in PLANTED if _leaves(value, [text])]
    assert not leaked, leaked


def test_a_name_learned_early_is_masked_in_evidence_far_below() -> None:
    """`/home/alice` on line 3 and an NCCL prefix host teach names; a failure line 5,000 lines
    later that names them bare leaves with the same placeholders as everywhere else."""
    lines = ["+ cd /home/hfischer7/runs/exp42", "USER=hfischer7", *_torchrun_nccl(5000)]
    lines.append(f"[rank3]: hfischer7 job on gpu-node-03 failed: {OOM}")
    out = APP.diagnose_text("\n".join(lines) + "\n").diagnosis
    evidence = out.matches[0].evidence[0].text
    assert "hfischer7" not in evidence and "gpu-node-03" not in evidence, evidence
    assert "<USER-1>" in evidence and "<HOST-" in evidence


@pytest.mark.parametrize("hosts", [("gpu-node-017", "gpu-node-018", "gpu-node-102"), ("r055", "r056", "r310"), ("a100-03", "a100-04", "a100-11")])
def test_every_nccl_prefix_host_is_masked_bare_with_one_placeholder_each(hosts: tuple[str, str, str]) -> None:
    """NCCL prefix lines of hosts that differ only in digits are one line shape, read once by
    learning; every one of those hosts is still masked where a later piece names it bare,
    each with its own placeholder, the same one every time it leaves."""
    masker = Masker()
    for piece in range(3):
        masker.learn("".join(
            f"{host}:{4100 + i}:{4200 + i} [{i % 8}] NCCL INFO Channel {i % 32:02d}/0 : {i % 8}[{i % 8}] -> {(i + 1) % 8}[{(i + 1) % 8}] via P2P/IPC\n"
            for i in range(50 * piece, 50 * piece + 50) for host in hosts
        ).encode())
    first = masker.mask(" ".join(f"job on {host} failed;" for host in hosts) + "\n")
    again = masker.mask(" ".join(f"{host} down" for host in reversed(hosts)) + "\n")
    assert not any(host in first or host in again for host in hosts), (first, again)
    placeholders = re.findall(r"<HOST-\d+>", first)
    assert len(set(placeholders)) == 3, first
    assert re.findall(r"<HOST-\d+>", again) == placeholders[::-1], (first, again)


def test_secret_value_learned_under_its_key_is_masked_where_it_recurs() -> None:
    """A password found under `- name: DB_PASSWORD` is masked on a later line that lacks the key."""
    log = "env:\n  - name: DB_PASSWORD\n    value: Falcon2024!xyz\n" + "\n".join(_trainer_steps(300)) + f"\nlogin Falcon2024!xyz refused {OOM}\n"
    out = APP.diagnose_text(log).diagnosis
    assert "Falcon2024" not in out.matches[0].evidence[0].text


def test_learning_reads_a_new_value_under_a_key_it_has_seen_in_an_earlier_piece() -> None:
    """Teaching lines read in one piece are not read again in the next, but a new value under
    the same key is: both passwords are masked where they recur bare."""
    masker = Masker()
    steps = "\n".join(_trainer_steps(50)) + "\n"
    masker.learn(("  - name: DB_PASSWORD\n    value: Falcon2024!xyz\n" + steps).encode())
    masker.learn(("  - name: DB_PASSWORD\n    value: Heron2031?abc\n" + steps).encode())
    out = masker.mask("login Falcon2024!xyz refused\nlogin Heron2031?abc refused\n")
    assert "Falcon2024" not in out and "Heron2031" not in out, out


def test_learning_reads_a_value_at_the_start_of_a_long_line_under_its_key() -> None:
    """The line after a teaching line is read as far as a value goes, not to its end: the
    password at the start of a line of 200 KB (a progress bar's epoch) is learned
    under its key, and a user named in a later progress bar's checkpoint line too."""
    bar = "".join(f"\rEpoch 2:  {i // 100:3d}%|{'#' * (i // 400)}| {i}/4000 [00:{i % 60:02d}<00:10, 9.53it/s]" for i in range(4000))
    assert len(bar) > 50 * 4096
    masker = Masker()
    masker.learn(("  - name: DB_PASSWORD\n    value: Falcon2024!xyz " + bar + "\n").encode())
    masker.learn(("saving model to '/home/mkowalski/llm/checkpoints/epoch=1-step=4000.ckpt' as top 3\n" + bar + "\n").encode())
    out = masker.mask("login Falcon2024!xyz refused for mkowalski\n")
    assert "Falcon2024" not in out and "mkowalski" not in out, out


def test_learning_across_pieces_still_learns_a_new_user() -> None:
    """A teaching line of a shape seen before (`/home/<name>/`) with another name is new text:
    the name in it is learned, whichever piece it is in."""
    masker = Masker()
    masker.learn(b"+ cd /home/hfischer7/runs/exp42\n")
    masker.learn(b"+ cd /home/mkowalski/runs/exp42\n")
    out = masker.mask("mkowalski and hfischer7 own the job\n")
    assert "mkowalski" not in out and "hfischer7" not in out, out


def test_gitlab_runner_line_teaches_the_runner_host() -> None:
    """GitLab's `Running on <runner> via <host>...` names the machine: learned from the raw log,
    masked where it recurs bare (NCCL's ` via P2P/IPC` lines teach nothing)."""
    masker = Masker()
    masker.learn(
        b"Running on runner-aqxkpm3na-project-1-concurrent-0 via ubuntest...\n"
        + "\n".join(_torchrun_nccl(200)).encode()
        + b"\n"
    )
    out = masker.mask("artifacts upload from ubuntest failed\n")
    assert "ubuntest" not in out and "<HOST-" in out, out


@pytest.mark.parametrize(
    "log",
    [
        # docker's bridge address is what tells nccl-docker-interface from nccl-socket-ifname
        "NCCL WARN socketProgressOpt: Call to recv from 172.17.0.2<45763> failed : Connection refused\n"
        "NCCL WARN Connect to 172.17.0.2<45763> failed : Connection refused\n",
    ],
)
def test_masking_does_not_change_a_diagnosis_that_reads_an_address(log: str) -> None:
    """The rules see the raw address; the evidence shows its placeholder."""
    masked = APP.diagnose_text(log).diagnosis
    raw = APP.diagnose_stream([log.encode()], mask=False).diagnosis
    assert [m.id for m in masked.matches] == [m.id for m in raw.matches]
    assert "172.17.0.2" not in json.dumps(masked.to_dict())


def test_every_rule_example_and_healthy_log_diagnoses_the_same_masked_and_raw() -> None:
    """Over every rule example, near-miss and healthy log: the same ids, roles and initiating rank."""
    logs = [ex.log for rule in APP.rulebook for ex in (*rule.examples, *rule.near_misses)]
    logs += [p.read_text() for p in sorted((ROOT / "tests" / "data" / "healthy").glob("*.log"))]
    for log in logs:
        masked = APP.diagnose_text(log).diagnosis
        raw = APP.diagnose_stream([log.encode()], mask=False).diagnosis
        assert [(m.id, m.role) for m in masked.matches] == [(m.id, m.role) for m in raw.matches]
        assert masked.initiating_rank == raw.initiating_rank


def test_masked_text_is_made_only_by_the_masker() -> None:
    """A plain str cannot pose as MaskedText, and text derived from it is plain again."""
    with pytest.raises(TypeError):
        MaskedText("alice@example.com")
    sealed = mask("token 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").text
    assert isinstance(sealed, MaskedText)
    assert type(sealed[:5]) is str and type(sealed + "x") is str
    with pytest.raises(UnmaskedTextError):
        require_masked("raw line", "test")
    assert require_masked(sealed, "test") is sealed


def test_learning_counts_nothing_and_keeps_numbering_for_what_leaves() -> None:
    """Learning reads the log but masks nothing itself: the first value that leaves is `-1`."""
    masker = Masker()
    masker.learn(b"MASTER_ADDR=10.9.8.7 USER=hfischer7\nssh 10.1.1.1\n")
    assert masker.counts == {}
    assert masker.mask("peer 10.1.1.1 down") == "peer <IP-1> down"


@pytest.mark.parametrize("via", ["file", "stdin"])
def test_denpex_mask_masks_a_name_before_the_line_that_teaches_it(tmp_path: Path, via: str) -> None:
    """`denpex mask` learns from the whole log first: `/home/hfischer7` on the last line masks
    the bare name on the first."""
    log = "hfischer7 started the job\n" + "\n".join(_trainer_steps(500)) + "\n+ cd /home/hfischer7/run\n"
    path = tmp_path / "train.log"
    path.write_text(log)
    argv = [sys.executable, "-m", "bot", "mask", str(path) if via == "file" else "-"]
    out = subprocess.run(argv, cwd=ROOT, input=None if via == "file" else log.encode(), capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode()
    assert "hfischer7" not in text
    assert text.splitlines()[0] == "<USER-1> started the job"
