"""Masking round 7 (issue #16): tool output and people in pasted chat and issue threads.

A thread quotes rows without their header, names people by their given name, puts a login's
given name in the names of its things, and says what a secret is in words. Each case is text
as the tool or the person writes it; the value must be gone and its placeholder typed. The
decoys are what the same tools and threads print that must stay byte for byte.
"""

from __future__ import annotations

import re

import pytest

from bot.masking import mask

PLACEHOLDER = re.compile(r"<([A-Z0-9]+)(?:-|:[\w-]+-)\d+>")

MASKED = [
    # `ps aux` rows pasted without their header (USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND).
    ("hfischer  2876491  99.7  3.2 48213064 8392144 ?    Rl   09:14 612:33 python -u train.py --config a.yaml", "hfischer", "USER"),
    ("lucia.fe   31337 101.0  0.4 16596506 1872286 pts/3  Sl+  17:54   0:34 torchrun --nproc_per_node 8 train.py", "lucia.fe", "USER"),
    # `sinfo -R` ("%20E %9u %19H %N"): the reason holds blanks; the user is cut to nine characters.
    ("REASON               USER      TIMESTAMP           NODELIST\nKill task failed     lucia.fer 2026-11-25T15:45:11 gpu-node-017", "lucia.fer", "USER"),
    ("REASON               USER      TIMESTAMP           NODELIST\nNot responding       slurm     2026-11-25T15:45:11 gpu-node-[017-018]", "gpu-node-[017-018]", "HOST"),
    ("REASON               USER      TIMESTAMP           NODELIST\nECC errors GPU3      hfischer  2026-11-25T15:45:11 dgx042", "dgx042", "HOST"),
    # ~/.ssh/known_hosts: the hosts before the key type, a non-default port in brackets.
    ("kraken-ml,10.4.0.12 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHd3Nn1ZpQ0kq7m0a1cR9xk2T5w8Yb3cJ4uV6eL0sA1B", "kraken-ml", "HOST"),
    ("[login02.initech.de]:2222 ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBK3x", "login02.initech.de", "HOST"),
    # gcloud compute instances list: NAME is the machine; blank EXTERNAL_IP and PREEMPTIBLE cells.
    ("NAME              ZONE           MACHINE_TYPE   PREEMPTIBLE  INTERNAL_IP  EXTERNAL_IP  STATUS\n"
     "lucia-a100-0      us-central1-a  a2-highgpu-8g               10.128.0.7                RUNNING", "lucia-a100-0", "HOST"),
    # Given names in a thread's greetings and sign-offs; a closing above the full name.
    ("ping Dana if you see this before standup", "Dana", "NAME"),
    ("Thanks Lukas! looks like a zombie still holds the GPUs", "Lukas", "NAME"),
    ("-- Priya", "Priya", "NAME"),
    ("Cheers,\nJonas Gallagher", "Jonas Gallagher", "NAME"),
    # Accented and Irish names signing a message.
    ("Thanks,\nGráinne Kowalczyk\nSenior ML Engineer", "Gráinne Kowalczyk", "NAME"),
    ("Cheers,\nSiobhán Ó Súilleabháin", "Siobhán Ó Súilleabháin", "NAME"),
    ("text me if the job dies\n-- Jörg Öztürk", "Jörg Öztürk", "NAME"),
    # The given name learned from a full name or a `given.family` login goes wherever it recurs.
    ("Hannah Fischer  10:42 AM\nrestarted it, Hannah will check the loss tomorrow", "Hannah", "NAME"),
    ('  File "/home/lucia.fernandez/llm/train.py", line 88\nresuming from s3://acme-ml-lucia/ckpt/step_12000', "lucia", "USER"),
    # A mention a rank printed, behind the launcher's tag: torchrun's `[rank3]:`, MPI's `[1,3]<stdout>:`.
    ("[rank3]:@hfischer can you check the NCCL error?", "hfischer", "USER"),
    ("[1,3]<stdout>:@hfischer can you check the NCCL error?", "hfischer", "USER"),
    # A phone number offered after an address.
    ("reach me at hannah.fischer@initech.de or +44 20 7946 0958", "+44 20 7946 0958", "PHONE"),
    # A secret a sentence names; the machine a sentence moves a job to.
    ("(oops, I pasted my token Xq7mK2pL9vR4tZ8wYb3c earlier in #ml-infra, rotating it now)", "Xq7mK2pL9vR4tZ8wYb3c", "SECRET"),
    ("the password is hunter2024! so please rotate", "hunter2024!", "SECRET"),
    ("(I pasted my token fSDkgb.ApaQBmx in the wrong channel)", "fSDkgb.ApaQBmx", "SECRET"),
    ("I moved the job to kraken-ml for now", "kraken-ml", "HOST"),
    ("ssh'd into thor-dev and the GPUs are idle", "thor-dev", "HOST"),
]

KEPT = [
    "root         1  0.0  0.0 168328 11924 ?        Ss   Nov24   0:09 /sbin/init splash",
    "REASON               USER      TIMESTAMP           NODELIST\nNot responding       root      2026-11-25T15:45:11 ",
    "|1|JfKTdBh7rNbXkVAQCRp4OQoPfmI=|USPfZqe2ry0F5dJt+KHI3wVBtGg= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHd3Nn1Z",
    "Thanks All! and hi Team, cc Infra",
    "my token expired again, and the key was rotated",
    "moved the run to bf16-mixed and multi-node",
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error",
    "Role is arn:aws:iam::<ACCOUNT-1>:role/SageMakerExecutionRole",
    # a config key or a parameter named in a sentence is not a secret
    "ValueError: the key fp16_master_weights is missing from the checkpoint",
    "The new key encoder.layer1.weight was not found in the state dict",
]


@pytest.mark.parametrize(
    "line",
    ["deepspeed: Using client Optimizer as basic optimizer: Adam", 'AutoModel.from_pretrained("google/gemma-2b")',
     "GH200 Grace Hopper Superchip, Ada Lovelace L40S"],
)
def test_a_given_name_that_is_also_what_logs_print_is_not_learned(line: str) -> None:
    """A person's given name is learned to be masked everywhere, but not one that a training log
    prints as an optimizer, a model family or a GPU architecture."""
    text = f"Author: Adam Kowalski <adam.kowalski@acme.io>\nping Gemma, Grace and Ada\n{line}\n"
    assert mask(text).text.splitlines()[-1] == line


@pytest.mark.parametrize(("text", "value", "label"), MASKED, ids=[f"{m[2]}:{m[0][:30]}" for m in MASKED])
def test_thread_values_are_masked(text: str, value: str, label: str) -> None:
    masked = mask(text).text
    assert not re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", masked), masked
    assert label in PLACEHOLDER.findall(masked), masked


@pytest.mark.parametrize("text", KEPT)
def test_thread_decoys_are_kept(text: str) -> None:
    assert mask(text).text == text


def test_a_given_name_keeps_one_placeholder_across_the_thread() -> None:
    masked = mask("Hannah Fischer  10:42 AM\nping @hfischer\nThanks Hannah!\n-- Hannah\n").text
    assert "Hannah" not in masked
    assert len(set(re.findall(r"<NAME-\d+>", masked))) == 2, masked  # the full name and the given name
