"""Round 12 (issue #16): logins only their shape shows, on a blind corpus of ML logs.

A seeded corpus of the places a person's login or name appears in ML logs (paths, prompts,
Slurm and kubectl columns, Hub and tracker URLs, git) was written apart from the repository
and is not kept here; these rows are its leaks and over-masks, shaped as the tools print them,
each with what must stay beside it.
"""

from __future__ import annotations

import pytest

from bot.masking import Masker
from bot.masking.owners import person_login


def _mask_log(text: str) -> str:
    # As `denpex mask` reads a log: learned whole first, then masked.
    masker = Masker()
    masker.learn(text.encode())
    return str(masker.mask(text))


@pytest.mark.parametrize(
    "login",
    [
        "framirez",  # `fr` begins English words
        "sherrera",  # `sh` too
        "labernathy",  # a consonant and a vowel: no initial-and-surname shape
        "zeriksen",
        "epapadopoulos",  # a vowel first
        "aokonkwo",
        "eriksen12",  # a family name and a number
        "irene_ueda",  # a given name the list lacks, a family name it has
    ],
)
def test_an_initial_and_a_family_name_reads_as_a_login(login: str) -> None:
    assert person_login(login)


@pytest.mark.parametrize("word", ["spark", "flange", "shall", "strain", "mlflow", "kubeflow", "xgboost", "lindgren"])
def test_an_initial_before_a_word_is_no_login(word: str) -> None:
    assert not person_login(word)



def test_pod_named_for_a_login_whose_second_letter_is_a_vowel() -> None:
    log = (
        "NAME                                READY   STATUS             RESTARTS   AGE\n"
        "labernathy-bert-ft-7f9c8d-x2k4q     0/1     CrashLoopBackOff   5          12m\n"
        "coredns-5d78c9869d-8x7kq            1/1     Running            0          3d\n"
    )
    out = _mask_log(log)
    assert "labernathy" not in out, out
    assert "<USER-1>-bert-ft-7f9c8d-x2k4q" in out and "CrashLoopBackOff" in out, out
    assert "coredns-5d78c9869d-8x7kq" in out, out


def test_hydra_wandb_entity_with_a_vowel_second() -> None:
    log = "wandb:\n  project: llama-sft\n  entity: zeriksen\n  mode: online\n"
    out = _mask_log(log)
    assert "zeriksen" not in out, out
    assert "  project: llama-sft\n  entity: <USER-1>\n  mode: online\n" in out, out
