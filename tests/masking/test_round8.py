"""Round 8 (issue #16): what a corpus of cloud CLI, SDK debug, scheduler and structured logs
found still leaking or over-masked. Lines are shaped as the tools print them: LSF's `bjobs -l`,
botocore's debug log of `sts get-caller-identity`, the Vertex AI SDK and `gcloud`, scp/rsync
targets, a JSON log's `"node"` field."""

from __future__ import annotations

import random
import string

from bot.masking import Masker, mask


def _mask_log(text: str) -> str:
    # As `denpex mask` reads a log: learned whole first, then masked.
    masker = Masker()
    masker.learn(text.encode())
    return str(masker.mask(text))


def _digits(n: int, seed: int) -> str:
    rng = random.Random(seed)
    return str(rng.randint(1, 9)) + "".join(rng.choice(string.digits) for _ in range(n - 1))


def test_lsf_bjobs_long_masks_the_user_and_the_hosts() -> None:
    # LSF 10.1 `bjobs -l`, unwrapped; the job name form since 10.1 and the pre-9 `Started on`.
    log = (
        "Job <48213>, User <hfischer>, Project <default>, Status <EXIT>, Queue <gpu>, Command <python train.py>\n"
        "Fri Dec  5 10:11:12: Submitted from host <login03>, CWD <$HOME/llm>;\n"
        "Fri Dec  5 10:11:30: Started 1 Task(s) on Host(s) <gpu-0042>, Allocated 8 Slot(s) on Host(s) <8*gpu-0042>, "
        "Execution Home </home/hfischer>, Execution CWD </home/hfischer/llm>;\n"
        "Job <48214>, Job Name <eval>, User <okafor7>, Project <default>, Status <RUN>, Queue <gpu>\n"
        "Thu Mar 28 14:30:25: Started on <a100-117>, Execution Home </home/okafor7>;\n"
        "Fri Dec  5 10:40:02: Exited with exit code 137. The CPU time used is 1802.3 seconds.\n"
    )
    out = _mask_log(log)
    for value in ("hfischer", "login03", "gpu-0042", "okafor7", "a100-117"):
        assert value not in out, (value, out)
    assert "Job <48213>, User <<USER-1>>, Project <default>, Status <EXIT>" in out
    assert "Submitted from host <<HOST-" in out and "Allocated 8 Slot(s) on Host(s) <8*<HOST-" in out
    assert "Exited with exit code 137." in out


def test_lsf_lookalikes_are_kept() -> None:
    line = "Job <48213> is submitted to queue <gpu>. User <-> is unset; Host(s) <> none\n"
    assert mask(line).text == line


def test_sts_xml_answer_masks_the_account_as_the_arn_does() -> None:
    account = _digits(12, 1)
    # botocore.parsers' debug log of the body, one line with escaped newlines.
    line = (
        "b'<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\\n  <GetCallerIdentityResult>\\n"
        f"    <Arn>arn:aws:sts::{account}:assumed-role/MLTrainingRole/botocore-session-1733393472</Arn>\\n"
        f"    <Account>{account}</Account>\\n  </GetCallerIdentityResult>\\n'\n"
    )
    out = mask(line).text
    assert account not in out
    assert out.count("<ACCOUNT-1>") == 2
    assert "assumed-role/MLTrainingRole/" in out


def test_gcp_project_number_is_an_account_the_project_id_is_kept() -> None:
    number = _digits(12, 2)
    job = _digits(19, 3)
    log = (
        f"INFO:google.cloud.aiplatform.jobs:CustomJob created. Resource name: projects/{number}/locations/us-central1/customJobs/{job}\n"
        f"INFO:google.cloud.aiplatform.jobs:View Custom Job: https://console.cloud.google.com/ai/platform/locations/us-central1/training/{job}?project={number}\n"
        "$ gcloud projects describe acme-ml-prod\n"
        "name: acme-ml-prod\n"
        f"projectNumber: '{number}'\n"
    )
    out = mask(log).text
    assert number not in out
    assert out.count("<ACCOUNT-1>") == 3
    assert f"customJobs/{job}" in out and "acme-ml-prod" in out


def test_scp_and_rsync_targets_are_a_user_at_a_host_not_an_address() -> None:
    log = (
        "rsync -av ckpt/ hfischer@storage.prod.initech.de:/scratch/hfischer/ckpt/\n"
        "scp model.pt hfischer@login02.hpc.uni-kassel.de:~/models/\n"
        "scp eval.json hfischer@s3.amazonaws.com:/incoming/\n"
        "contact hannah.fischer@initech.de for access\n"
    )
    out = _mask_log(log)
    assert "hfischer" not in out and "initech.de" not in out and "uni-kassel" not in out
    assert "<USER-1>@<HOST-1>:/scratch/<USER-1>/ckpt/" in out
    assert "<USER-1>@<HOST-2>:~/models/" in out
    assert "<USER-1>@s3.amazonaws.com:/incoming/" in out  # a public service's host stays
    assert "contact <EMAIL-1> for access" in out


def test_numbered_node_in_a_json_log_is_a_host_and_teaches_its_siblings() -> None:
    log = (
        '{"event":"job.submitted","job":{"id":1503,"node":"gn334","pad_token_id":0}}\n'
        "anyone seen this NCCL timeout on gn285? it was fine on gn334 yesterday\n"
    )
    out = _mask_log(log)
    assert "gn334" not in out and "gn285" not in out
    assert '"node":"<HOST-1>","pad_token_id":0' in out


def test_node_key_keeps_ranks_counts_and_versions() -> None:
    log = 'node: 20\nnode: v20.11.1\n  node: worker\n{"node": 3, "nnodes": 2}\nnode_rank=1 NODE_RANK=0\n'
    assert mask(log).text == log


def test_a_key_described_in_prose_is_kept_a_password_is_not() -> None:
    kept = "the key is Ed25519-based, so older servers refuse it; the new key is RSA4096-only\n"
    assert mask(kept).text == kept
    out = mask("my password is Winter2024-secure\n").text
    assert "Winter2024-secure" not in out and "<SECRET:password-1>" in out


def test_a_command_that_prints_one_secret_has_it_masked_on_the_next_line() -> None:
    hexkey = "".join(random.Random(4).choice("0123456789abcdef") for _ in range(40))
    log = (
        "$ echo $WANDB_API_KEY\n"
        f"{hexkey}\n"
        '+ echo "${DB_PASSWORD}"\n'
        "Maple7186XSJq\n"
        "$ printenv MLFLOW_TRACKING_PASSWORD\n"
        "Quartz77aa\n"
        # Helm charts' NOTES.txt print this command for the admin password.
        '$ kubectl get secret --namespace monitoring grafana -o jsonpath="{.data.admin-password}" | base64 --decode ; echo\n'
        "prom0987operatorXY\n"
        "$ kubectl get secret wandb -o jsonpath='{.data.api-key}' | base64 -d\n"
        f"{hexkey}\n"
    )
    out = _mask_log(log)
    for value in (hexkey, "Maple7186XSJq", "Quartz77aa", "prom0987operatorXY"):
        assert value not in out, (value, out)
    assert out.count("<SECRET:wandb-key-1>") == 2  # the same key by both commands, one placeholder
    assert "$ echo $WANDB_API_KEY\n<SECRET:wandb-key-1>\n" in out


def test_printing_a_setting_keeps_its_value() -> None:
    log = "$ echo $TOKENIZERS_PARALLELISM\nfalse\n$ echo $PAD_TOKEN_ID\n0\n$ echo $HF_TOKEN\n\n$ ls\nckpt  logs\n"
    assert mask(log).text == log


def test_azure_ml_studio_link_masks_the_tenant() -> None:
    sub, tenant = "7a5a73c5-78c2-4d48-a42d-9aa174acafbc", "e239b3fa-060f-4305-ad06-1eddc924fa44"
    line = f"Link to Azure Machine Learning Portal: https://ml.azure.com/runs/sharp-owl-42?wsid=/subscriptions/{sub}/resourcegroups/rg-ml/workspaces/ws&tid={tenant}\n"
    out = mask(line).text
    assert sub not in out and tenant not in out
    assert "runs/sharp-owl-42?wsid=/subscriptions/<ACCOUNT-1>/resourcegroups/rg-ml/workspaces/ws&tid=<ACCOUNT-2>" in out
    kept = "worker pid=4242 tid=7a5a73c5 started\n"
    assert mask(kept).text == kept
