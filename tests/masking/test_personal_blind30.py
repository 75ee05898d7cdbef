"""Logins a thirtieth blind corpus found kept: Hugging Face Hub and GitHub accounts with no
name-like shape, where a log names a repository (bot/masking/people.py, publishers.py):

- the cache's `models--<owner>--<repo>` directories, transformers' `Can't load tokenizer for
  '<owner>/<repo>'`, `push_to_hub("<owner>/...")`, a `git clone` of a Hub or a GitHub
  repository, pip's `git+https://github.com/<owner>/...`, a gist;
- owners a number, an East or Central Asian family name with initials (`tserendorjb9`,
  `parkji`, `jhpark`, `kimjh93`), a known name among the parts (`kenji-oyelaran`,
  `HannahFischer`) or such a family name run into a given name (`kimkenji`) say are people's;
- Kubeflow profiles' `kubeflow-<login>` namespaces (bot/masking/owners.py).
Kept: organisations and publishers (`meta-llama`, `Qwen`, `TheBloke`, `unsloth`, `BAAI`,
`nomic-ai`, GitHub's `pytorch`, `Dao-AILab`), a local directory where a repository id may
stand (`from_pretrained("outputs/final")`), Kubeflow's shared `kubeflow-anonymous`.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from bot.masking import mask
from tests.masking.test_round12 import _mask_log  # learned whole first, then masked


@pytest.mark.parametrize(
    ("log", "login"),
    [
        (
            "OSError: Can't load tokenizer for '/home/jdoe/.cache/huggingface/hub/models--tserendorjb9--llama-ft/"
            "snapshots/3f1c2a9e0b7d4c5e6f708192a3b4c5d6e7f80912'. If you were trying to load it from "
            "'https://huggingface.co/models', make sure you don't have a local directory with the same name.\n",
            "tserendorjb9",
        ),
        ("$ ls ~/.cache/huggingface/hub\nmodels--parkji--qwen2-7b-lora  version.txt\n", "parkji"),
        ("datasets--kimjh93--ko-chat-sft/snapshots/0a1b2c/train.parquet\n", "kimjh93"),
        (
            "OSError: Can't load config for 'jhpark/deberta-v3-cls'. If you were trying to load it from "
            "'https://huggingface.co/models', make sure you don't have a local directory with the same name.\n",
            "jhpark",
        ),
        ("$ git clone https://huggingface.co/quantumkiwi623/mistral-7b-dpo\nCloning into 'mistral-7b-dpo'...\n", "quantumkiwi623"),
        (
            "Repository Not Found for url: https://huggingface.co/api/models/kenji-oyelaran/bert-ner-ft/revision/main.\n",
            "kenji-oyelaran",
        ),
        ("Model card: https://hf.co/HannahFischer/gemma-2b-chat\n", "HannahFischer"),
        (">>> trainer.push_to_hub(\"kimkenji/t5-summarizer\")\n", "kimkenji"),
        (
            "Collecting mylib@ git+https://github.com/zhangrl62/mylib.git@main\n"
            "  Cloning https://github.com/zhangrl62/mylib.git (to revision main) to /tmp/pip-install-1a2b3c4d/mylib_5e6f\n",
            "zhangrl62",
        ),
        ("$ git clone git@github.com:hpark2031/thesis-code.git\nCloning into 'thesis-code'...\n", "hpark2031"),
        ("see https://gist.github.com/gradientghost/4f7c2a9e0b1d3c5e for the launcher\n", "gradientghost"),
        (
            "$ kubectl get pods -n kubeflow-nadiahaddad\n"
            'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:kubeflow-nadiahaddad:default-editor" '
            'cannot list resource "pods" in API group "" in the namespace "kubeflow-nadiahaddad"\n',
            "nadiahaddad",
        ),
    ],
)
def test_repository_owners_and_profiles_that_are_people_are_masked(log: str, login: str) -> None:
    masked = _mask_log(log)
    assert login not in masked
    assert "<USER-1>" in masked
    assert masked.count("\n") == log.count("\n")


@pytest.mark.parametrize(
    "line",
    [
        "Repository Not Found for url: https://huggingface.co/api/models/meta-llama/Llama-3.1-8B-Instruct/revision/main.",
        "/root/.cache/huggingface/hub/models--Qwen--Qwen2.5-7B-Instruct/snapshots/a09a3545/config.json",
        "/root/.cache/huggingface/hub/models--TheBloke--Llama-2-7B-GGUF/blobs/5c3e",
        "$ git clone https://huggingface.co/unsloth/llama-3-8b-bnb-4bit",
        "OSError: Can't load tokenizer for 'BAAI/bge-large-en-v1.5'. If you were trying to load it from 'https://huggingface.co/models'",
        "datasets--nomic-ai--gpt4all-j-prompt-generations/snapshots/1a2b",
        "https://huggingface.co/hkunlp/instructor-large",
        "https://huggingface.co/EleutherAI/pythia-1b and https://huggingface.co/bigscience/bloom-560m",
        "pip install git+https://github.com/huggingface/transformers.git",
        "  warnings.warn(... see https://github.com/pytorch/pytorch/issues/97207 for details)",
        "Please install flash-attn: https://github.com/Dao-AILab/flash-attention#installation-and-features",
        'model = AutoModelForCausalLM.from_pretrained("outputs/final")',
        "tokenizer = AutoTokenizer.from_pretrained('run_12/ckpt')",
        "OSError: Can't load tokenizer for 'saved/tok'. If you were trying to load it from 'https://huggingface.co/models'",
        "$ kubectl get pods -n kubeflow-anonymous",
    ],
)
def test_publishers_and_local_paths_stay(line: str) -> None:
    assert str(mask(line).text) == line


def test_an_owner_learned_from_the_cache_goes_from_the_rest_of_the_log() -> None:
    log = (
        "models--tserendorjb9--llama-ft/snapshots/3f1c/config.json\n"
        "Loading tserendorjb9/llama-ft with dtype=bfloat16\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    )
    masked = _mask_log(log)
    assert "tserendorjb9" not in masked
    assert "Loading <USER-1>/llama-ft with dtype=bfloat16" in masked
    assert "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" in masked
