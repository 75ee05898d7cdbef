"""People a blind round found leaking (maskblind19) whose names no list of ours holds: chat
speakers and senders told by where they stand (Slack's `Family, Given` header, a bracketed
clock's speaker, Discord's copy, Outlook's `From:`, a role line's login in parentheses, the
second of two people cc'd), and what one clear sighting teaches for the rest of the log
(logins from a name, a name from a login). Beside them, the words and tools' names that must stay."""

from __future__ import annotations

import pytest

from bot.masking import mask


def _masked(text: str) -> str:
    return str(mask(text).text)


# Slack shows a directory's display name as it is written there: `Family, Given`.
def test_a_slack_header_in_family_given_order_is_masked_and_teaches_the_person() -> None:
    out = _masked(
        "Tserendorj, Enkhjin  9:56 AM\n"
        "still OOM on node 3 after the restart\n"
        "Enkhjin will rerun with a smaller batch\n"
        "pod/train-etserendorj-0 created\n"
    )
    assert "Tserendorj" not in out and "Enkhjin" not in out
    assert "etserendorj" not in out
    assert "<NAME-1>  9:56 AM" in out
    assert "still OOM on node 3 after the restart" in out
    assert "pod/train-<USER-1>-0 created" in out


def test_the_second_of_two_people_cc_d_loses_the_family_name_too() -> None:
    out = _masked("cc Aino Havili and Tahmina Fifita for the NCCL hang\n")
    assert "Havili" not in out and "Fifita" not in out
    assert out == "cc <NAME-1> and <NAME-2> for the NCCL hang\n"


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("[10:42] Khue Lac: still OOM on node 3", "still OOM on node 3"),
        ("[15:26] Sigrun Chikwanha: CUDA error: an illegal memory access was encountered", "CUDA error: an illegal memory access"),
        ("[2026-12-04 08:09] Pania Ngata: @batbayar can you restart the job?", "can you restart the job?"),
    ],
)
def test_a_speaker_whom_no_list_knows_is_masked_by_the_line_s_shape(line: str, kept: str) -> None:
    out = _masked(line + "\n")
    assert out.startswith(line[: line.index("]") + 1] + " <NAME-1>: ")
    assert kept in out


@pytest.mark.parametrize(
    "line",
    [
        "[10:42] Eval Loss: 0.5123",
        "[10:42] Training Loss: improved from 0.61 to 0.55",
        "[10:42:07] Learning Rate: 3e-4 after warmup",
        "[10:43] Validation Accuracy: went up again today",
        "[10:44] Job Failed: exit code 137 on rank 3",
    ],
)
def test_a_program_s_label_in_a_bracketed_line_is_kept(line: str) -> None:
    assert _masked(line + "\n") == line + "\n"


# Discord copies a message under its sender and the time: the display name or the username.
@pytest.mark.parametrize(
    ("header", "masked"),
    [
        ("Olamide Bakare — Today at 2:14 PM", "<NAME-1> — Today at 2:14 PM"),
        ("olamide.bakare — 12/04/2026 2:14 PM", "<USER-1> — 12/04/2026 2:14 PM"),
        ("kwabena74 — Yesterday at 11:02 PM", "<USER-1> — Yesterday at 11:02 PM"),
    ],
)
def test_a_discord_sender_is_masked(header: str, masked: str) -> None:
    out = _masked(header + "\nthe dataloader workers die with SIGKILL\n")
    assert out.splitlines()[0] == masked
    assert "the dataloader workers die with SIGKILL" in out


def test_a_discord_bot_and_a_dash_in_prose_are_kept() -> None:
    text = "GitHub BOT — Today at 2:14 PM\nloss — as expected — went down at 10:42 PM\n"
    assert _masked(text) == text


def test_a_role_line_s_login_in_parentheses_is_masked_and_learned() -> None:
    out = _masked("  maintainer: Pania Ngata (pania60)\nresuming from runs/pania60/last.ckpt\n")
    assert "pania60" not in out and "Ngata" not in out
    assert "maintainer: <NAME-1> (<USER-1>)" in out
    assert "runs/<USER-1>/last.ckpt" in out


def test_a_role_line_s_pronouns_stay() -> None:
    out = _masked("owner: Pania Ngata (she)\n")
    assert out == "owner: <NAME-1> (she)\n"


@pytest.mark.parametrize(
    ("header", "masked"),
    [
        ("From: Hope Tuilagi", "From: <NAME-1>"),
        ("From: Tuilagi, Hope", "From: <NAME-1>"),
    ],
)
def test_an_outlook_sender_without_an_address_is_masked(header: str, masked: str) -> None:
    out = _masked(header + "\nSent: Monday, December 4, 2026 10:41 AM\nSubject: NCCL timeouts\n")
    assert out.splitlines()[0] == masked


def test_a_team_mailbox_as_sender_is_kept() -> None:
    text = "From: Data Platform\nSubject: maintenance\n"
    assert _masked(text) == text


# What one sighting teaches: the logins a cluster makes of a name, the name a login spells.
def test_a_learned_name_teaches_the_family_initial_and_joined_logins() -> None:
    out = _masked(
        "Pania Gebremedhin  7:55 AM\n"
        "python train.py --run_name gebremedhinp-sweep-3 --lr 5e-4\n"
        'run = api.run("paniagebremedhin/llama-sft/3cgvpwwv")\n'
    )
    assert "gebremedhin" not in out.lower()
    assert "--lr 5e-4" in out and "/llama-sft/3cgvpwwv" in out


def test_a_dotted_login_teaches_the_name_a_chat_writes() -> None:
    out = _masked(
        '  File "/home/ketevan.kealoha/llm/train.py", line 211, in main\n'
        "[18:49] Ketevan Kealoha: the NCCL timeout is back\n"
        "wandb: ⭐️ View project at https://wandb.ai/kkealoha/llama-sft\n"
    )
    assert "Ketevan" not in out and "Kealoha" not in out and "kkealoha" not in out
    assert "the NCCL timeout is back" in out


def test_a_numbered_login_teaches_its_name() -> None:
    out = _masked("USER=kagiso63\nmlflow: Run 'kagiso-lr5e-4' finished with status FAILED\nKagiso will rerun it\n")
    assert "kagiso" not in out.lower()
    assert "-lr5e-4' finished with status FAILED" in out


def test_a_one_word_login_teaches_the_given_name_but_not_a_tool_s() -> None:
    out = _masked("/home/dragan/x\nDragan will rerun with a smaller batch\n")
    assert "Dragan" not in out
    text = '  File "/home/jenkins/workspace/train.py", line 3\nStarted by Jenkins timer\nUSER=slurm\nSlurm Workload Manager\n'
    out = _masked(text)
    assert "Started by Jenkins timer" in out and "Slurm Workload Manager" in out


def test_words_that_are_also_given_names_stay_words() -> None:
    out = _masked(
        "Sandy Ezeji  10:41 AM\n"
        "Sandy Bridge CPUs do not support AVX2\n"
        "[W1206 10:42:05] Will retry in 5 seconds (attempt 2/5)\n"
        "Grace period of 30s expired, sending SIGKILL to the worker\n"
    )
    assert "Ezeji" not in out
    assert "Sandy Bridge CPUs do not support AVX2" in out
    assert "Will retry in 5 seconds" in out
    assert "Grace period of 30s expired" in out


def test_a_program_s_two_word_label_before_a_word_and_digits_is_kept() -> None:
    text = "[14:02] Git Commit: abc1234 on main branch\n[14:03] Peak Memory: went up to 71 GiB\n"
    assert _masked(text) == text


def test_a_namespace_of_a_learned_given_name_and_a_word_is_hers_whole() -> None:
    out = _masked("USER=sadia38\n$ kubectl -n sadia-tserendorj describe pod train-0\n$ kubectl -n sadia-dev get pods\n")
    assert "tserendorj" not in out and "sadia" not in out
    assert "describe pod train-0" in out
    assert "-n <USER-3>-dev get pods" in out or "-n <USER-2>-dev get pods" in out


def test_a_numbered_role_account_teaches_no_word() -> None:
    out = _masked("USER=kube38\n$ kubectl -n kube-system get pods\nUSER=student12\nthe student cluster is full\n")
    assert "-n kube-system get pods" in out
    assert "the student cluster is full" in out


def test_a_team_in_parentheses_and_a_library_s_warning_label_stay() -> None:
    out = _masked("  owner: Hannah Fischer (ml-infra)\n[10:46] Nccl Warn: connection closed by peer\n")
    assert "(ml-infra)" in out and "Fischer" not in out
    assert "[10:46] Nccl Warn: connection closed by peer" in out


def test_masked_chat_headers_mask_to_themselves() -> None:
    once = _masked(
        "Olamide Bakare — Today at 2:14 PM\nok then go\n[10:42] Khue Lac: still OOM on node 3\n"
        "From: Hope Tuilagi\n  owner: Pania Ngata (pania60)\nFischer, Hannah  9:56 AM\n"
    )
    assert _masked(once) == once
