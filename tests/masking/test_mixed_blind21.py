"""Leaks and an over-mask a twenty-first blind round (a third corpus from a new seed, sixteen
log families) found.

- scp and rsync write an IPv6 target bracketed (`scp f alice@[2a05:...]:/data/`): the login
  before it was kept, since the account-at-host pattern took only names and dotted quads.
- Ray's images run as `ray` (`/home/ray/ray_results/...`): learned as a login, it took
  `ray.exceptions.OutOfMemoryError` with it.
- A sweep or a run a thread says died on a numbered machine (`the sweep on gn310 died again`)
  named the machine with no `job` word before `on`.
- SkyPilot names an unnamed cluster `sky-<4 hex>-<login>`; the login stayed.
- A cluster login of a given name, the family name's initial and a number (`yasmino2`) was not
  read as a person's in an MLflow experiment or a GCP project id.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

from tests.masking.test_round12 import _mask_log as _mask  # learned whole first, then masked


def test_scp_login_before_a_bracketed_ipv6_target_is_masked() -> None:
    log = (
        "$ scp -P 2222 model.safetensors kkowalczyk@[2a05:d014:9c1:3e::7a1:f3]:/data/incoming/\n"
        "model.safetensors                             100%   13GB 112.4MB/s   01:58\n"
        "$ rsync -av ckpt/ zoe.lindqvist@[fe80::1c2:3ff:fe4d:5e6f%eth0]:/scratch/\n"
    )
    out = _mask(log)
    assert "kkowalczyk" not in out and "lindqvist" not in out
    assert "2a05:d014" not in out and "fe4d:5e6f" not in out
    assert "<USER-1>@[<IPV6-1>]:/data/incoming/" in out
    assert "100%   13GB 112.4MB/s" in out


def test_a_bracketed_address_after_a_word_is_no_login_at_a_machine_by_itself() -> None:
    # Without an scp/rsync command or a path after it, `x@[addr]` alone is not a target; the
    # address is still the IPv6 pass's.
    out = _mask("decorator @[2001:db8:85a3::8a2e:370:7334] kept\n")
    assert "decorator @" in out and "8a2e:370:7334" not in out


def test_rays_own_user_is_no_person() -> None:
    log = (
        "(TorchTrainer pid=4379, ip=10.14.2.31) Trial logs: /home/ray/ray_results/TorchTrainer_2026-12-04_10-11-12\n"
        "(raylet, ip=10.14.2.31) node_manager.cc:3007: 1 Workers (tasks / actors) killed due to memory pressure (OOM)\n"
        "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
        "ray@ray-head-7f9c:~$ ray status\n"
    )
    out = _mask(log)
    assert "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory." in out
    assert "/home/ray/ray_results/" in out
    assert "$ ray status" in out


def test_a_numbered_machine_a_sweep_died_on_is_masked() -> None:
    log = "Hi Dana, the sweep on gn310 died again with NCCL timeouts, can you look?\nruns on kraken-ml7 are slow\n"
    out = _mask(log)
    assert "gn310" not in out and "kraken-ml7" not in out
    assert "the sweep on <HOST-1> died again with NCCL timeouts" in out


def test_a_run_on_a_data_set_or_a_setting_is_kept() -> None:
    log = "the run on cifar100 died\nthe sweep on lr-3e4 hung\nthe run on seed-42 failed\nthe run on llama-70b died\n"
    assert _mask(log) == log


def test_skypilot_default_cluster_name_loses_its_login() -> None:
    log = (
        "I 12-04 10:16:57 cloud_vm_ray_backend.py:4397] Creating a new cluster: 'sky-ff6c-mateogalloway' [1x AWS(p4d.24xlarge, {'A100': 8})].\n"
        "I 12-04 10:19:12 provisioner.py:450] Successfully provisioned cluster: sky-ff6c-mateogalloway\n"
        "pod/sky-9f3c-hfischer-2ea4-head   1/1   Running\n"
        "I 12-04 10:20:01 controller_utils.py:88] Launching jobs controller sky-jobs-controller-2ea485ef\n"
    )
    out = _mask(log)
    assert "mateogalloway" not in out and "hfischer" not in out
    assert "Creating a new cluster: 'sky-ff6c-<USER-1>' [1x AWS(p4d.24xlarge, {'A100': 8})]." in out
    assert "sky-9f3c-<USER-2>-2ea4-head" in out
    assert "sky-jobs-controller-2ea485ef" in out


def test_a_given_name_initial_and_number_login_is_read_as_a_person() -> None:
    log = (
        "2026/12/04 10:11:12 INFO mlflow.tracking.fluent: Experiment with name 'yasmino2-bert-ablation' does not exist. Creating a new experiment.\n"
        "$ gcloud config set project mateoh8-sandbox-258\n"
        "Experiment with name 'llama2-sft' does not exist.\n"
        "Experiment with name 'bert3-base' does not exist.\n"
    )
    out = _mask(log)
    assert "yasmino2" not in out and "mateoh8" not in out
    assert "'<USER-1>-bert-ablation'" in out and "<USER-2>-sandbox-258" in out
    assert "'llama2-sft'" in out and "'bert3-base'" in out


def test_a_host_with_a_departments_two_letters_under_a_country_domain_is_masked() -> None:
    log = (
        "2026-12-04 10:31:00,001\tINFO worker.py:1642 -- Connecting to existing Ray cluster at address: ray-head.cs.brightmoor.nl:6379...\n"
        "debug1: Connecting to login01.ml.uni-kassel.de [141.51.204.17] port 22.\n"
    )
    out = _mask(log)
    assert "brightmoor" not in out and "uni-kassel" not in out
    assert "Connecting to existing Ray cluster at address: <HOST-1>:6379..." in out


def test_corpus_files_named_by_language_pair_are_still_kept() -> None:
    log = "reading wmt14.en.de, train.tok.clean.de, europarl-v7.de-en.de and data.en.tok.de\n"
    assert _mask(log) == log


def test_a_bucket_word_pair_is_masked_whole_when_the_log_names_the_person() -> None:
    # `galloway` is on no list; the chat header says Mateo Galloway is a person.
    log = "Mateo Galloway  10:41 AM\nthe ckpts are in s3://norvane-ml-mateo-galloway/ckpt/\n"
    out = _mask(log)
    assert "galloway" not in out.lower()
    assert "s3://norvane-ml-<USER-" in out and "/ckpt/" in out


def test_a_dotted_login_is_also_masked_run_together() -> None:
    log = (
        "wandb: Currently logged in as: bartholomew.ferrante (acme-ml). Use `wandb login --relogin` to force relogin\n"
        "Uploading the following files to bartholomewferrante/llama3-sft-v2: model.safetensors,config.json\n"
        "I 12-04 10:16:57 cloud_vm_ray_backend.py:4397] Creating a new cluster: 'sky-3b1e-bartholomewferrante' [1x AWS(p4d.24xlarge, {'A100': 8})].\n"
    )
    out = _mask(log)
    assert "ferrante" not in out.lower()
    assert "/llama3-sft-v2: model.safetensors,config.json" in out


def test_a_personal_url_user_is_learned_and_a_service_one_is_not() -> None:
    log = (
        "$ export MLFLOW_TRACKING_URI=https://delacroix93:DrWx4g*qn5J9YH@mlflow.research.hexavia.io\n"
        "2026/12/04 10:11:12 INFO mlflow.tracking.fluent: Experiment with name 'delacroix93-bert-ablation' does not exist. Creating a new experiment.\n"
        "mlflow server --backend-store-uri postgresql://mlflow:Xq81mZpw0a@10.4.2.9:5432/mlflow --host 0.0.0.0\n"
        "mlflow.exceptions.MlflowException: API request failed\n"
    )
    out = _mask(log)
    assert "delacroix93" not in out
    assert "Experiment with name '<USER-1>-bert-ablation'" in out
    assert "mlflow.exceptions.MlflowException: API request failed" in out and ":5432/mlflow --host" in out


def test_a_dotted_login_leading_an_experiment_name_is_masked_and_tools_are_kept() -> None:
    log = (
        "2026/12/04 10:11:12 INFO mlflow.tracking.fluent: Experiment with name 'rosalind.hollister-bert-ablation' does not exist. Creating a new experiment.\n"
        "Experiment with name 'llama.cpp-bench' does not exist.\n"
        "Experiment with name 'roberta.large-mnli' does not exist.\n"
    )
    out = _mask(log)
    assert "hollister" not in out and "rosalind" not in out
    assert "'<USER-1>-bert-ablation'" in out
    assert "'llama.cpp-bench'" in out and "'roberta.large-mnli'" in out


def test_a_bucket_word_pair_is_masked_whole_after_an_underscored_login() -> None:
    log = (
        "wandb: Currently logged in as: mateo_lundgren (acme-ml). Use `wandb login --relogin` to force relogin\n"
        "[INFO|trainer.py:3503] 2026-12-04 10:14:00,912 >> Saving model checkpoint to gs://tamborine-mateo-lundgren-ckpt/run1\n"
    )
    out = _mask(log)
    assert "lundgren" not in out and "-ckpt/run1" in out


def test_an_international_phone_in_parentheses_and_the_on_call_name_before_it_are_masked() -> None:
    log = (
        "[ALERT] GPU node gpu-node-17 XID 48 (DBE) - paging on-call\n"
        "on-call this week: Matthias (+49 89 8204 8112)\n"
        "on-call: Platform (+44 20 7553 8064)\n"
        "Matthias will check the node\n"
    )
    out = _mask(log)
    assert "8204 8112" not in out and "7553 8064" not in out and "Matthias" not in out
    assert "on-call this week: <NAME-1> (<PHONE-1>)" in out
    assert "on-call: Platform (<PHONE-2>)" in out
    assert "XID 48 (DBE)" in out


def test_signed_numbers_in_parentheses_are_no_phones() -> None:
    log = "loss improved (+12.5%) at offset (+3600), tz (+05:30), delta (+123456789)\n"
    assert _mask(log) == log


def test_nvidia_smi_csv_serial_column_is_masked() -> None:
    log = (
        "[root@gn101 ~]# nvidia-smi --query-gpu=serial,uuid --format=csv\n"
        "serial, uuid\n"
        "5805481896914, GPU-1b2c3d4e-aaaa-bbbb-cccc-0123456789ab\n"
        "1324020012345, GPU-2b2c3d4e-aaaa-bbbb-cccc-0123456789ab\n"
        "$ nvidia-smi --query-gpu=index,name,serial,memory.used --format=csv\n"
        "index, name, serial, memory.used [MiB]\n"
        "0, NVIDIA H100 80GB HBM3, 1654923000123, 81002 MiB\n"
        "1, NVIDIA H100 80GB HBM3, [N/A], 12 MiB\n"
        "step 100, loss 2.31\n"
    )
    out = _mask(log)
    assert "5805481896914" not in out and "1324020012345" not in out and "1654923000123" not in out
    assert "<SERIAL-1>, GPU-1b2c3d4e-aaaa-bbbb-cccc-0123456789ab" in out
    assert "0, NVIDIA H100 80GB HBM3, <SERIAL-3>, 81002 MiB" in out
    assert "1, NVIDIA H100 80GB HBM3, [N/A], 12 MiB" in out and "step 100, loss 2.31" in out


def test_a_csv_without_a_serial_column_is_kept() -> None:
    log = "index, name, memory.used [MiB]\n0, NVIDIA H100 80GB HBM3, 81002 MiB\nserial port ok\n"
    assert _mask(log) == log


def test_a_numbered_login_before_a_sandbox_word_in_a_project_id_is_masked() -> None:
    log = (
        "$ gcloud config set project ferrante53-sandbox-100\n"
        "Updated property [core/project].\n"
        "$ gcloud config set project llama3-sandbox-1\n"
        "$ gcloud config set project team42-sandbox\n"
        "$ gcloud config set project proj2-sandbox\n"
    )
    out = _mask(log)
    assert "ferrante53" not in out and "<USER-1>-sandbox-100" in out
    assert "llama3-sandbox-1" in out and "team42-sandbox" in out and "proj2-sandbox" in out
