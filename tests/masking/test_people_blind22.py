"""Personal data a blind round found leaking or over-masked (maskblind22): logins that are
English words, learned from a process or file listing, kept as words in the thread's prose; a
user's private group in `ls -l`; a mail sender that is a monitoring product; the person a thread
quotes (`Sigrun said`); a personal Hub namespace where a script loads the model. Beside each,
what must stay: the sentence, the public organisation's repository id, the error text."""

from __future__ import annotations

import pytest

from bot.masking import mask
from tests.masking.test_keeps_diagnoses import MATCHER


def _masked(text: str) -> str:
    return str(mask(text).text)


@pytest.mark.parametrize(
    ("listing", "prose"),
    [
        (
            "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
            "grant      34197  3.1  9.9 12345678 13000000 pts/2 S+  09:02   1:02 python eval.py\n",
            "please grant roles/storage.objectViewer to the service account\n",
        ),
        (
            "USER=frank HOME=/home/frank CUDA_VISIBLE_DEVICES=0,1,2,3\n",
            "to be frank the loss curve looked fine until step 1200\n",
        ),
        (
            "[will@gpu-node-03 ~]$ nvidia-smi --query-gpu=memory.used --format=csv\n",
            "FutureWarning: `resume_download` is deprecated and will be removed in version 1.0.0.\n",
        ),
        (
            "-rw------- 1 mark mark 512 Mar  4 09:01 latest\n",
            "xm.mark_step() was not called; mark the step before the optimizer update\n",
        ),
    ],
)
def test_a_login_that_is_an_english_word_is_masked_as_a_login_and_kept_as_a_word(listing: str, prose: str) -> None:
    out = _masked(listing + prose)
    first = out.splitlines()[listing.count("\n") - 1]
    assert "<USER-1>" in first
    assert all(word not in first.split() for word in ("grant", "frank", "will", "mark"))
    assert out.endswith(prose)


def test_a_learned_english_word_login_still_goes_where_it_names_the_person() -> None:
    out = _masked("USER=grant\nwandb: Syncing run grant-lr5e-4\nls /home/grant/ckpt\nplease grant access\n")
    assert out == "USER=<USER-1>\nwandb: Syncing run <USER-1>-lr5e-4\nls /home/<USER-1>/ckpt\nplease grant access\n"


def test_an_ls_group_spelled_as_its_owner_is_the_user_s_and_a_team_group_stays() -> None:
    out = _masked(
        "drwxr-xr-x 2 smamani smamani 4096 Mar  5 10:42 global_step1200\n"
        "-rw-r--r-- 1 smamani ml-users 16106127360 Mar  5 10:42 model.safetensors\n"
    )
    assert "smamani" not in out
    assert "drwxr-xr-x 2 <USER-1> <USER-1> 4096 Mar  5 10:42 global_step1200" in out
    assert "<USER-1> ml-users 16106127360" in out


def test_a_monitoring_product_s_mail_keeps_its_name_and_a_person_s_does_not() -> None:
    out = _masked(
        "From: Sigrun Holm <sigrun.holm@nordlab.no>\n"
        "From: Prometheus Alertmanager <alertmanager@acme.io>\n"
        "Subject: [FIRING:1] GPUXidError gpu12 (nvidia 79)\n"
    )
    assert "Sigrun" not in out and "Holm" not in out
    assert "From: <NAME-1> <<EMAIL-1>>" in out
    assert "From: Prometheus Alertmanager <" in out
    assert "[FIRING:1] GPUXidError" in out


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Bayarmaa said yesterday the IB link on that rack flapped\n", "<NAME-1> said yesterday the IB link on that rack flapped\n"),
        ("as Wanjiru mentioned, NCCL_P2P_DISABLE=1 helps\n", "as <NAME-1> mentioned, NCCL_P2P_DISABLE=1 helps\n"),
        ("Then Hannah said the node was drained.\n", "Then <NAME-1> said the node was drained.\n"),
        ("thanks! also looping in Sione Taufa from infra\n", "thanks! also looping in <NAME-1> from infra\n"),
    ],
)
def test_the_person_a_thread_quotes_is_masked_with_no_list_knowing_the_name(line: str, expected: str) -> None:
    assert _masked(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "That said, the loss is fine.\n",
        "It said OOM. Nobody said anything. The docs said so.\n",
        "NCCL WARN Training said: retry\n",
        # Programs and services a thread quotes: a name by its shape, but no person's.
        "Docker said permission denied, and Kubelet said the pod was evicted.\n",
        "Conda said the environment is inconsistent; Python said no module named torch.\n",
        "Gemini suggested NCCL_P2P_DISABLE=1 and Megatron said the checkpoint is missing.\n",
        "Sentry reported the crash, Jupyter mentioned the kernel died, Qwen wrote the patch.\n",
    ],
)
def test_a_pronoun_or_a_thing_before_said_is_kept(line: str) -> None:
    assert _masked(line) == line


def test_a_personal_hub_namespace_where_a_model_is_loaded_is_masked_and_an_organisation_s_kept() -> None:
    out = _masked(
        'tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.1-8B")\n'
        'model = AutoModelForCausalLM.from_pretrained("mateo76/llama-3.1-8b-sft-v2")\n'
        "OSError: mateo76/llama-3.1-8b-sft-v2 is not a local folder and is not a valid model identifier listed on "
        "'https://huggingface.co/models'\n"
        "base_model_name_or_path: google/gemma-2b\n"
        "--hub_model_id jdoe/my-finetune\n"
    )
    assert "mateo76" not in out and "jdoe" not in out
    assert 'from_pretrained("<USER-1>/llama-3.1-8b-sft-v2")' in out
    assert "OSError: <USER-1>/llama-3.1-8b-sft-v2 is not a local folder and is not a valid model identifier" in out
    assert "meta-llama/Llama-3.1-8B" in out and "google/gemma-2b" in out
    assert "--hub_model_id <USER-2>/my-finetune" in out


def test_the_diagnosis_of_a_listing_with_a_word_login_is_unchanged() -> None:
    log = (
        "grant      34197  3.1  9.9 12345678 13000000 pts/2 S+  09:02   1:02 python train.py\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
        "of 79.15 GiB of which 1.19 GiB is free.\n"
        "please grant roles/storage.objectViewer to the service account\n"
    )
    before, after = MATCHER.diagnose(log), MATCHER.diagnose(_masked(log))
    assert before.matches
    assert [m.id for m in after.matches][:1] == [m.id for m in before.matches][:1]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("wandb: Syncing run farai-lr5e-4\n", "wandb: Syncing run <USER-1>-lr5e-4\n"),
        ("wandb: 🚀 View run tenzin-bs64-seed3 at: https://wandb.ai/acme-ml/llm-sft/runs/k6gjnlym\n",
         "wandb: 🚀 View run <USER-1>-bs64-seed3 at: https://wandb.ai/acme-ml/llm-sft/runs/k6gjnlym\n"),
    ],
)
def test_a_run_named_by_its_owner_and_its_settings_loses_the_owner(line: str, expected: str) -> None:
    assert _masked(line) == expected


@pytest.mark.parametrize(
    "name",
    ["baseline-lr5e-4", "resnet-lr1e-3", "lora-lr2e-4", "distilbert-bs32", "ablate-lr5e-4", "stellar-wolf-12", "gru-lr1e-3", "swin-bs64"],
)
def test_a_run_named_for_a_model_a_method_or_by_wandb_is_kept(name: str) -> None:
    line = f"wandb: Syncing run {name}\n"
    assert _masked(line) == line


def test_a_hub_namespace_of_a_given_name_and_the_family_name_s_first_letters_is_a_person_s() -> None:
    out = _masked(
        "Uploading the following files to yusufdem/qwen-lora-ckpt: adapter_model.safetensors,adapter_config.json\n"
        "Uploading the following files to allenai/olmo-ckpt: model.safetensors\n"
    )
    assert "yusufdem" not in out
    assert "Uploading the following files to <USER-1>/qwen-lora-ckpt: adapter_model.safetensors" in out
    assert "allenai/olmo-ckpt" in out
