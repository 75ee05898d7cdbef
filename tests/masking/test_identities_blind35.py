"""Identities and hosts a thirty-fifth blind corpus (Slurm, DeepSpeed, Hugging Face and W&B
output on HPC centres) found kept:

- a machine's full name glued after `_` to another value (a job's or a file's name:
  `run_<address>_gpu-node-54.hpc.uni-kassel.de_4`, `host_thor-3.corp.acme-ai.com_gpu0`),
  bot/masking/hosts.py `find_fqdns`; an identifier glued the same way stays
  (`self._model.internal`, `cfg_base.local`);
- a learned login shouted or capitalised elsewhere in the log (`ERIKSENA`, `Mateus84` in a
  job's banner after `/home/eriksena/`, `USER=mateus84`), under the login's own placeholder
  (bot/masking/learned.py); a login that is a word or a tool's keeps its word (`Will`, `Ubuntu`);
- a code owner's family name in a traceback's `TODO(...)`/`FIXME(...)` (bot/masking/addressed.py),
  learned when a list knows it, masked in place when none does; a topic (`TODO(perf)`) stays;
- a Slurm hostlist sacct or squeue cut at its column's width (`nid[005896-005+`), the `+` kept;
- a Hub or GitHub owner that is a handle of words alone (`silent-owl`) where only a repository's
  owner can stand (bot/masking/publishers.py `word_handle`); an organisation's words
  (`open-kernels`) and a local directory where a path may stand (`sft-output/...`) stay.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import re

import pytest

from tests.masking.test_round12 import _mask_log  # learned whole first, then masked


@pytest.mark.parametrize(
    ("log", "host"),
    [
        ("[launcher] job name: run_amara.eriksen@uni-kassel.de_gpu-node-54.hpc.uni-kassel.de_4\n", "gpu-node-54.hpc.uni-kassel.de"),
        (
            "host_thor-3.corp.acme-ai.com_gpu0 NCCL WARN Connect to thor-3.corp.acme-ai.com<29500> failed : Connection refused\n",
            "thor-3.corp.acme-ai.com",
        ),
        ("[launcher] writing logs to /shared/logs/job_dgx412.acme.internal_743820_rank0.log\n", "dgx412.acme.internal"),
    ],
)
def test_fqdn_glued_after_underscore_is_masked(log: str, host: str) -> None:
    """A machine's full name after `_` goes, the same placeholder as where it stands alone."""
    out = _mask_log(log)
    assert host not in out
    assert host.split(".", 1)[1] not in out
    assert "_rank0.log" in out or "Connection refused" in out or "job name: " in out
    if "Connect to" in log:
        assert re.search(r"host_(<HOST-\d+>)_gpu0 .*Connect to \1<29500>", out), out


@pytest.mark.parametrize(
    "log",
    [
        "    x = self._model.internal_forward(batch)\n",
        "loaded cfg_base.local overrides from configs/\n",
    ],
)
def test_identifier_glued_after_underscore_is_kept(log: str) -> None:
    """An attribute path or a config name after `_` holds no machine: kept whole."""
    assert _mask_log(log) == log


def test_learned_login_in_upper_and_capitalised_case_is_masked() -> None:
    """`eriksena` learned from its home: `ERIKSENA` and `Eriksena` in a banner go, as it does."""
    log = (
        "+ cd /home/eriksena/llm\n"
        "##### JOB SUBMITTED BY ERIKSENA #####\n"
        "==> Welcome Eriksena, your allocation expires in 3 days\n"
        "[prolog] owner=ERIKSENA partition=gpu\n"
    )
    out = _mask_log(log)
    assert "ERIKSENA" not in out and "Eriksena" not in out and "eriksena" not in out
    placeholders = set(re.findall(r"<USER-\d+>", out))
    assert len(placeholders) == 1, out
    assert "JOB SUBMITTED BY" in out and "partition=gpu" in out


def test_dotted_and_numbered_login_in_upper_case_is_masked() -> None:
    """`USER=mateus84`, `amara.oyelaran` in a path: their shouted forms go too."""
    log = (
        "+ export USER=mateus84\n"
        "+ cd /home/amara.oyelaran/llm\n"
        "##### JOB SUBMITTED BY MATEUS84 #####\n"
        "[prolog] owner=AMARA.OYELARAN partition=gpu\n"
    )
    out = _mask_log(log)
    assert "MATEUS84" not in out and "AMARA.OYELARAN" not in out


@pytest.mark.parametrize(
    ("log", "word"),
    [
        ("+ export USER=will\nWill the job restart? exit code 1\n", "Will"),
        ("$ ls /home/ubuntu/llm\nUbuntu 22.04.3 LTS\n", "Ubuntu"),
        ("$ ls /home/jenkins/workspace\nStarted by JENKINS timer\n", "JENKINS"),
    ],
)
def test_word_or_tool_login_keeps_its_word(log: str, word: str) -> None:
    """A login that is an English word or a tool's is not masked in its other spellings."""
    assert word in _mask_log(log)


@pytest.mark.parametrize(
    ("log", "owner"),
    [
        (
            '  File "/home/jdoe/llm/model/attention.py", line 77, in forward\n'
            "    attn = attn.masked_fill(mask, -1e4)  # TODO(haddad): fp16 overflow, use finfo.min\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered\n",
            "haddad",
        ),
        ("    x = self.proj(x)  # FIXME(nakashima): fp16 overflow here\n", "nakashima"),
        ("    # XXX(castellano): drop once apex ships the fused kernel\n", "castellano"),
    ],
)
def test_todo_owner_family_name_is_masked(log: str, owner: str) -> None:
    """A letters-only owner of a TODO in a traceback's source line goes; the code stays."""
    out = _mask_log(log)
    assert owner not in out
    assert re.search(r"(?:TODO|FIXME|XXX)\(<USER-\d+>\)", out), out


def test_todo_owner_a_list_knows_is_learned() -> None:
    """`TODO(haddad)` teaches the login: the same login in a later path goes too."""
    out = _mask_log("    # TODO(haddad): remove after the NCCL upgrade\nsee /shared/notes-haddad.txt\n")
    assert "haddad" not in out


@pytest.mark.parametrize("log", ["    # TODO(perf): fuse these two kernels\n", "    # FIXME(cleanup): remove shim\n"])
def test_todo_topic_is_kept(log: str) -> None:
    """A TODO's topic names no one: kept."""
    assert _mask_log(log) == log


def test_sacct_cut_hostlist_is_masked() -> None:
    """sacct ends a NodeList cell too wide for its column with `+`: the list goes, the `+` stays."""
    log = (
        "JobID           JobName      User      State ExitCode        NodeList \n"
        "------------ ---------- --------- ---------- -------- --------------- \n"
        "5010311        llama-ft  eriksena     FAILED      1:0 frontier[01582+ \n"
        "5010311.0        python                FAILED      1:0 nid[005896-005+ \n"
    )
    out = _mask_log(log)
    assert "frontier[01582" not in out and "nid[005896" not in out
    assert re.search(r"FAILED      1:0 <HOST-\d+>\+ \n", out), out
    assert "5010311.0        python" in out


@pytest.mark.parametrize(
    "log",
    [
        "Repository Not Found for url: https://huggingface.co/api/models/silent-owl/llama-ft/revision/main.\n",
        "$ git clone https://github.com/amber-lynx/fused-rope-kernels.git\nCloning into 'fused-rope-kernels'...\n",
        "$ pip install git+https://github.com/amber-lynx/fused-rope-kernels.git@main\n",
        "Downloading https://huggingface.co/silent-owl/llama-ft/resolve/main/config.json\n",
    ],
)
def test_word_handle_owner_is_masked(log: str) -> None:
    """A handle of words alone where only a repository's owner can stand goes; the repository stays."""
    out = _mask_log(log)
    assert "silent-owl" not in out and "amber-lynx" not in out
    assert "/llama-ft/" in out or "/fused-rope-kernels.git" in out


@pytest.mark.parametrize(
    "log",
    [
        "$ git clone https://github.com/state-spaces/mamba.git\n",
        "$ pip install git+https://github.com/open-kernels/fused-rope.git@main\n",
        "Downloading https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json\n",
        'model = AutoModelForCausalLM.from_pretrained("sft-output/checkpoint-100")\n',
    ],
)
def test_organisation_or_local_path_is_kept(log: str) -> None:
    """An organisation (a list's, or named with its field's words) and a local directory stay."""
    assert _mask_log(log) == log
