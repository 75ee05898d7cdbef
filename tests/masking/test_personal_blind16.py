"""Personal data a blind round found leaking (maskblind16): tables and passwd rows behind a
container runtime's timestamp, international numbers after a name on an on-call rota, chat
speakers, given names in run names and TODO owners, and the diagnostic text beside them that
must stay."""

from __future__ import annotations

import pytest

from bot.masking import mask


def _masked(text: str) -> str:
    return str(mask(text).text)


# `kubectl logs --timestamps` / `docker logs -t` put an RFC 3339 time before every line.
@pytest.mark.parametrize(
    ("text", "login"),
    [
        ("2024-05-11T10:46:24.123456789Z USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
         "2024-05-11T10:46:24.123456789Z ngozi     97723 584.7 19.9 60395867 9005324 ?  Rl   09:14 885:33 python train.py\n",
         "ngozi"),
        ("2024-05-11T10:46:24Z drwxr-xr-x  5 okonkwoc research 4096 Mar 12 11:02 run-12\n", "okonkwoc"),
        ("2024-05-11T10:46:24.123Z JobID           JobName       User      State ExitCode\n"
         "2024-05-11T10:46:24.123Z ------------ ---------- ---------- ---------- --------\n"
         "2024-05-11T10:46:24.123Z 949362         ft-llama   wei_chen OUT_OF_ME+    0:125\n", "wei_chen"),
        ("2024-05-11T10:46:24.123+00:00 achidi:x:4191:4191:Adaeze Chidi,,,:/home/achidi:/bin/bash\n", "achidi"),
    ],
)
def test_rows_behind_a_container_timestamp_are_masked(text: str, login: str) -> None:
    out = _masked(text)
    assert login not in out
    assert "<USER-1>" in out
    assert "2024-05-11T10:46:24" in out  # the time itself stays


@pytest.mark.parametrize(
    ("line", "number"),
    [
        ("Primary:   Aoife Mbeki  +353 87 555 0142", "+353 87 555 0142"),
        ("on call tonight Chidi +234 803 555 0198 (whatsapp ok)", "+234 803 555 0198"),
        ("backup Youssef El-Amin +44 7700 900123", "+44 7700 900123"),
        ("Hardware desk +49 30 1612005 weekdays", "+49 30 1612005"),
        ("escalation +1-646-555-0142 after 22:00", "+1-646-555-0142"),
    ],
)
def test_international_numbers_after_a_blank_are_masked(line: str, number: str) -> None:
    out = _masked(line)
    assert number not in out
    assert "<PHONE-1>" in out


@pytest.mark.parametrize(
    "line",
    [
        "Total params: +12 345 trainable",
        "grad_norm delta +3 1.5 0.25",
        "timezone offset +05:30 applied",
        "step 1200 loss 2.31 (+0.02 vs 1100)",
        "@@ -12,7 +12,9 @@ def train(args):",
    ],
)
def test_signed_counts_after_a_blank_are_kept(line: str) -> None:
    assert _masked(line) == line


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("[10:42] Aoife Mbeki: @chidi the run on the H100 pool died again", "Aoife Mbeki"),
        ("[10:44] Adaeze: cc @wei.chen can you look?", "Adaeze"),
        ("[2024-03-12 09:15] Joaquín Muñoz: restarted it with NCCL_DEBUG=INFO", "Joaquín Muñoz"),
        ("[10:42] Thảo Nguyễn: loss went NaN at step 1200", "Thảo Nguyễn"),
        ("# NOTE: ask Minh before restarting the job", "Minh"),
        ("Escalate to Siobhán Ní Bhriain if the node drains again", "Siobhán Ní Bhriain"),
        ("escalate to Priya Venkataraman or Youssef Al-Rashid if loss goes NaN again", "Youssef Al-Rashid"),
        ("Hi Thảo,", "Thảo"),
        ("Secondary: Joaquín Muñoz, mobile +34 612 345 678", "Joaquín Muñoz"),
        ("Secondary: Ciarán Ó Ceallaigh, mobile 07700 900123", "Ó Ceallaigh"),
        ("user.name=Ciarán O'Sullivan", "Ciarán O'Sullivan"),
    ],
)
def test_people_named_in_chat_and_notes_are_masked(line: str, name: str) -> None:
    out = _masked(line)
    assert name not in out
    assert "<NAME-1>" in out


@pytest.mark.parametrize(
    "line",
    [
        "[10:42] Training Loss: 0.5123",
        "[12:01] Epoch 3: eval_loss=1.22",
        "[10:42] Job Failed: exit code 1",
        "ask Support before restarting the job",
        "Escalate to Platform Team if the node drains again",
        "contact NVIDIA Enterprise Support with the nvidia-bug-report.log.gz",
        "[10:42] Using NVIDIA Grace Hopper Superchip: unified memory enabled",
    ],
)
def test_chat_clocks_and_asked_things_are_kept(line: str) -> None:
    assert _masked(line) == line


@pytest.mark.parametrize(
    ("line", "login"),
    [
        ("// TODO(oluwaseun): remove after the NCCL upgrade", "oluwaseun"),
        ("# FIXME(hfischer) the sampler drops the last batch", "hfischer"),
        ("Saving model checkpoint to /checkpoints/okonkwoc/run-90/checkpoint-4000", "okonkwoc"),
        ("Saving model checkpoint to /checkpoints/dvorakm/run-36/checkpoint-2500", "dvorakm"),
        ("Saving model checkpoint to /mnt/ckpt/skuznetsova14/run-83/checkpoint-2500", "skuznetsova14"),
        ("Saving model checkpoint to /lustre/fsw/ml/dmitri/run-78/checkpoint-4000", "dmitri"),
        ("--output_dir /checkpoints/oisino/run-93", "oisino"),
        ("Mar 12 10:02:11 gpu-node-014 systemd-logind[1201]: New session 42 of user xiaoming.zhang.", "xiaoming.zhang"),
        ("wandb: Syncing run youssef-lr2e-5-bs64", "youssef"),
        ("🏃 View run joaquin-lr5e-4-bs16 at: http://mlflow.internal:5000/#/experiments/3/runs/0a1b", "joaquin"),
    ],
)
def test_logins_in_paths_runs_and_todos_are_masked(line: str, login: str) -> None:
    out = _masked(line)
    assert login not in out
    assert "<USER-1>" in out


@pytest.mark.parametrize(
    "line",
    [
        "Saving model checkpoint to /checkpoints/llama-7b/run-12/checkpoint-500",
        "Saving model checkpoint to /ckpt/mistral-7b-sft/checkpoint-500",
        "loading /checkpoints/bakers/dolly-15k.jsonl",
        "# TODO(perf): fuse the kernels on Hopper and Ampere",
        "NVIDIA RTX 6000 Ada Generation, sm_89 (Ada), fallback for Ampere",
        "kubectl -n kube-system get pods; kubectl -n gpu-operator logs nvidia-driver-daemonset-x2k4q",
        "Loading meta-llama/Llama-2-7b-hf and mistralai/Mistral-7B-v0.1 and Qwen/Qwen2-7B",
    ],
)
def test_models_architectures_and_system_names_are_kept(line: str) -> None:
    assert _masked(line) == line
