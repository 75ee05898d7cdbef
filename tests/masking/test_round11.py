"""Round 11 (issue #16): what a fresh blind corpus of ML engineers' pastes still leaked.

The corpus (seff, kubeconfig, `kubectl get pods`, Hugging Face clones, GitLab CI, Slack
threads with a signature, structlog lines with colour codes spelled out) was written apart
from the repository and is not kept here; these rows are its leaks, shaped as the tools print
them, each with what must stay beside it.
"""

from __future__ import annotations

import pytest

from bot.masking import Masker, mask
from bot.masking.detectors import DETECTORS
from tests.masking.test_gate import _check


def _mask_log(text: str) -> str:
    # As `denpex mask` reads a log: learned whole first, then masked.
    masker = Masker()
    masker.learn(text.encode())
    return str(masker.mask(text))


def test_seff_names_the_jobs_user_before_its_group() -> None:
    log = (
        "Job ID: 6480629\n"
        "Cluster: hohenberg\n"
        "User/Group: okaminski/ml\n"
        "State: TIMEOUT (exit code 0)\n"
        "Memory Efficiency: 80.47% of 512.00 GB (256.00 GB/node)\n"
        "okaminski's job hit the wall clock\n"
    )
    out = _mask_log(log)
    assert "okaminski" not in out, out
    assert "User/Group: <USER-1>/ml\n" in out, out
    assert "State: TIMEOUT (exit code 0)\nMemory Efficiency: 80.47% of 512.00 GB (256.00 GB/node)\n" in out, out


def test_kubeconfig_user_entry_is_the_login_its_context_names() -> None:
    log = (
        "contexts:\n"
        "- context:\n"
        "    cluster: research\n"
        "    namespace: ml-team\n"
        "    user: lukas89\n"
        "  name: research\n"
        "users:\n"
        "- name: lukas89\n"
        "  user:\n"
        "    exec:\n"
        "      command: kubelogin\n"
        'error: exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"\n'
    )
    out = _mask_log(log)
    assert "lukas89" not in out, out
    assert "users:\n- name: <USER-1>\n" in out, out
    assert 'invalid apiVersion "client.authentication.k8s.io/v1alpha1"' in out and "namespace: ml-team" in out, out


def test_kubeconfig_user_entry_whatever_the_logins_letters() -> None:
    # (`sw` begins English words, so `swojcik` alone would not read as a login: the entry says it is one.)
    log = (
        "contexts:\n- context:\n    cluster: gpu-prod\n    namespace: swojcik\n    user: swojcik\n  name: swojcik\n"
        "current-context: swojcik\nkind: Config\nusers:\n- name: swojcik\n  user:\n"
        "error: You must be logged in to the server (Unauthorized)\n"
    )
    out = _mask_log(log)
    assert "swojcik" not in out, out
    assert "users:\n- name: <USER-1>\n" in out and "(Unauthorized)" in out, out


def test_libpq_refusal_keeps_a_services_own_account() -> None:
    log = (
        'psql: error: connection to server at "10.20.30.40", port 5432 failed: FATAL:  password authentication failed for user "mlflow"\n'
        'psql: error: connection to server at "10.20.30.40", port 5432 failed: FATAL:  password authentication failed for user "hfischer"\n'
    )
    out = _mask_log(log)
    assert 'password authentication failed for user "mlflow"' in out, out
    assert "hfischer" not in out, out


@pytest.mark.parametrize("entry", ["kubernetes-admin", "oidc", "gke_acme-ml-prod_us-central1_gpu", "default"])
def test_kubeconfig_user_entries_clouds_make_are_kept(entry: str) -> None:
    log = f"users:\n- name: {entry}\n  user:\n    token: REDACTED\n"
    assert f"- name: {entry}\n" in _mask_log(log)


def test_hub_repository_owner_is_a_user_when_it_reads_as_a_login() -> None:
    log = (
        "$ git clone https://huggingface.co/hfischer/llama-3.1-8b-sft\n"
        "fatal: repository 'https://huggingface.co/hfischer/llama-3.1-8b-sft/' not found\n"
        "OSError: hfischer/llama-3.1-8b-sft is not a local folder and is not a valid model identifier listed on "
        "'https://huggingface.co/models'\n"
        "base: https://huggingface.co/meta-llama/Llama-3.1-8B, https://huggingface.co/mistralai/Mistral-7B-v0.3, "
        "https://huggingface.co/datasets/HuggingFaceFW/fineweb, https://huggingface.co/TheBloke/Llama-2-7B-GGUF\n"
    )
    out = _mask_log(log)
    assert "hfischer" not in out, out
    assert "OSError: <USER-1>/llama-3.1-8b-sft is not a local folder" in out, out
    for org in ("meta-llama/Llama-3.1-8B", "mistralai/Mistral-7B-v0.3", "HuggingFaceFW/fineweb", "TheBloke/Llama-2-7B-GGUF"):
        assert org in out, out


def test_a_home_path_right_after_the_hub_host_is_still_a_home_path() -> None:
    """The Hub-owner anchor stops before the `/`, so `/home/` after the host is still seen."""
    assert _mask_log("proxy rewrote it to https://huggingface.co/home/hfischer/.cache\n") == (
        "proxy rewrote it to https://huggingface.co/home/<USER-1>/.cache\n"
    )


def test_a_pod_named_for_a_given_name_and_a_number() -> None:
    log = (
        "NAME                               READY   STATUS             RESTARTS     AGE\n"
        "leila93-llama-ft-7e360e3c4-ms72q   0/1     CrashLoopBackOff   6 (2m ago)   14m\n"
        "$ kubectl logs leila93-llama-ft-7e360e3c4-ms72q --previous\n"
        "train-job-worker-0                 1/1     Running            0            14m\n"
    )
    out = _mask_log(log)
    assert "leila93" not in out, out
    assert "<USER-1>-llama-ft-7e360e3c4-ms72q   0/1     CrashLoopBackOff   6 (2m ago)" in out, out
    assert "train-job-worker-0" in out, out


def test_gitlab_ci_triggered_by_a_login_with_a_number() -> None:
    out = _mask_log('$ echo "triggered by $GITLAB_USER_LOGIN"\ntriggered by dmitri3\ntriggered by push\n')
    assert out.splitlines()[1:] == ["triggered by <USER-1>", "triggered by push"], out


def test_signature_phone_with_area_code_after_a_bar() -> None:
    log = "Priya Iyer\nML Platform | priya.iyer@kestrel-labs.io | (415) 555-9046\n| 12 | (415) rows |\n"
    out = _mask_log(log)
    assert "555-9046" not in out, out
    assert out.splitlines()[1] == "ML Platform | <EMAIL-1> | <PHONE-1>", out
    assert out.splitlines()[2] == "| 12 | (415) rows |", out


def test_the_machine_a_job_died_on_in_a_thread() -> None:
    text = (
        "@Omar Haddad the llama-ft job on gn036 died again with NCCL timeout, see below\n"
        "it crashed again on dgx07; earlier it failed on step-1200, hung on cuda12, stuck on iter-500, job on gpu0\n"
    )
    out = mask(text).text
    assert "gn036" not in out and "dgx07" not in out, out
    for kept in ("failed on step-1200", "hung on cuda12", "stuck on iter-500", "job on gpu0", "with NCCL timeout"):
        assert kept in out, out


def test_colour_codes_spelled_out_between_a_key_and_its_secret() -> None:
    log = (
        "\\x1b[31mDB_PASSWORD\\x1b[0m=\\x1b[33mKUKpZ7^vvliKIf\\x1b[0m\n"
        'echo -e "\\033[1;32mWANDB_API_KEY\\033[0m: \\033[33m0123456789abcdef0123456789abcdef01234567\\033[0m"\n'
        "2026-12-04 10:11:14 [error    ] openai.RateLimitError: Error code: 429\n"
    )
    out = _mask_log(log)
    assert "KUKpZ7" not in out and "0123456789abcdef" not in out, out
    assert out.splitlines()[0] == "\\x1b[31mDB_PASSWORD\\x1b[0m=\\x1b[33m<SECRET:password-1>\\x1b[0m", out
    assert out.splitlines()[2] == "2026-12-04 10:11:14 [error    ] openai.RateLimitError: Error code: 429", out


def test_escaped_colour_codes_alone_change_nothing() -> None:
    text = 'print("\\033[1;31mOutOfMemoryError\\033[0m: CUDA out of memory")\nC:\\\\tmp\\\\e[1]\n'
    assert mask(text).text == text


NEW_LINES = (
    "ML Platform | priya.iyer@kestrel-labs.io | (415) 555-9046",
    "@Omar Haddad the llama-ft job on gn036 died again with NCCL timeout",
    "it crashed again on dgx07 and failed on step-1200",
)


@pytest.mark.parametrize("name", ["labelled-numbers", "prose-hosts"])
def test_the_new_shapes_pass_their_rows_gate(name: str) -> None:
    detector = next(d for d in DETECTORS if d.name == name)
    for line in NEW_LINES:
        _check(detector, line + "\n")


def test_a_wandb_entity_set_for_the_run_alone() -> None:
    log = (
        "WANDB_ENTITY=priya28\n"
        "[2026-12-04 10:11:12,345][__main__][INFO] - Config:\n"
        "logger:\n  wandb:\n    entity: hfischer\n    project: llama-ft\n"
        "wandb sweep --entity lukas sweep.yaml\n"
        "WANDB_ENTITY=acme-ml\n"
        "  entity: vision-lab\n"
        "NER labels: entity: PERSON, entity=ORG\n"
    )
    out = _mask_log(log)
    for login in ("priya28", "hfischer", "lukas"):
        assert login not in out, out
    assert "WANDB_ENTITY=acme-ml\n  entity: vision-lab\nNER labels: entity: PERSON, entity=ORG\n" in out, out
