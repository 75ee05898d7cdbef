"""Values glued into file names, run names and identifiers (blind round 34).

The masker reads `_` as a word character, so a value a file or run name runs into its other
parts by `_` (or a `-` after an address) went on unseen: an e-mail address before `_run3`, an
IP address after `rank3_`, a token after `train_`, a machine's full name before `_rank3.log`,
a node's name in `nccl_debug_dgx042_rank3.txt` or a core dump's `core.<host>.<pid>`. Versions,
attribute paths and program words glued the same way (`tensorrt_8.6.1.6`, `args.local_rank`,
`tree_node3`) stay. All values are synthetic, shaped as the real ones.
"""

from __future__ import annotations

import pytest

from bot.masking import mask
from tests.masking.test_credentials_blind27 import _masked  # masked, each value gone, lines kept

_HF = "hf_rsNGufP8Ghqwu8AAKnk8cKLz66UNs5iff6"
_OPENAI = "sk-proj-xH9EG0AXCJoFlixGPcjie4GUXxssDzBhTFNAuWXLrkLQj6Ej"
_GITHUB = "ghp_Q1n8c5vyZN2xIhhzRlwNaKMUbXUm3ovQxa7B"


def test_a_token_glued_after_an_underscore_is_masked() -> None:
    text = (
        f"+ export RUN_NAME=train_{_HF}\n"
        f"export WANDB_RUN_ID=ft_{_HF}_v2\n"
        f"[HYDRA] outputs/2024-01-01/12-00-00 cache_{_OPENAI}\n"
        f"cached as run_{_GITHUB} (layer_10.attention, rank_3)\n"
    )
    out = _masked(text, _HF, _OPENAI, _GITHUB)
    assert "RUN_NAME=train_<SECRET:hf-token-1>" in out and "ft_<SECRET:hf-token-1>_v2" in out, out
    assert "cache_<SECRET:openai-key-1>" in out and "run_<SECRET:github-token-1>" in out, out
    assert "outputs/2024-01-01/12-00-00" in out and "layer_10.attention, rank_3" in out, out


def test_an_address_glued_by_an_underscore_is_masked_and_a_glued_version_kept() -> None:
    text = (
        "NCCL WARN rank3_10.42.7.19 timed out after 1800000 ms (model_v100_fp16, sm_80)\n"
        "cp debug/192.168.4.7_rank0.txt /shared/logs/  # tensorrt_8.6.1.6 libcudnn.so.8.9.2.26\n"
        "worker_34.120.5.7:29500 refused the connection (torch_2.1.0+cu121, cudnn_8.9.2.26_cuda12)\n"
    )
    out = _masked(text, "10.42.7.19", "192.168.4.7", "34.120.5.7")
    assert "rank3_<IP-1> timed out" in out and "debug/<IP-2>_rank0.txt" in out and "worker_<IP-3>:29500" in out, out
    for kept in ("model_v100_fp16", "sm_80", "tensorrt_8.6.1.6", "libcudnn.so.8.9.2.26", "torch_2.1.0+cu121", "cudnn_8.9.2.26_cuda12"):
        assert kept in out, (kept, out)


def test_an_email_glued_into_a_name_is_masked() -> None:
    text = (
        "launcher: user=jane.doe@acme-corp.com_run3 submitted job 4821337\n"
        "Uploading priya.okafor@research.acme.co.uk_eval_results.json to the bucket\n"
        "notify run-kenji.novak@uni-heidelberg.de-3 ; mv hannah.moreau@example-ai.org-notes.txt /archive/\n"
    )
    out = _masked(text, "jane.doe@", "priya.okafor@", "kenji.novak@", "hannah.moreau@", "acme-corp.com", "uni-heidelberg.de")
    assert "user=<EMAIL-1>_run3 submitted" in out and "<EMAIL-2>_eval_results.json" in out, out
    assert "<EMAIL-3>-3 ; mv <EMAIL-4>" in out, out  # (its `-notes.txt` reads as two more labels)


def test_a_machine_glued_into_a_file_name_is_masked_whole() -> None:
    text = (
        "connecting to gpu-node-17.acme.internal:29500\n"
        "tail: cannot open 'logs/gpu-node-17.acme.internal_rank3.log' for reading: No such file or directory\n"
        "FileNotFoundError: [Errno 2] No such file or directory: '/shared/logs/hgx-h100-412.cluster.acme-corp.com_rank1.log'\n"
    )
    out = _masked(text, "gpu-node-17", "acme.internal", "hgx-h100-412", "acme-corp.com")
    assert "to <HOST-1>:29500" in out and "logs/<HOST-1>_rank3.log" in out and "logs/<HOST-2>_rank1.log" in out, out


@pytest.mark.parametrize(
    ("line", "node", "expected"),
    [
        ("nccl_debug_dgx042_rank3.txt  nccl_2.18.1-1+cuda12.1", "dgx042", "nccl_debug_<HOST-1>_rank3.txt  nccl_2.18.1-1+cuda12.1"),
        ("scp results_hgx-h100-412_4821337.tar.gz .", "hgx-h100-412", "results_<HOST-1>_4821337.tar.gz"),
        ("core dumped: /var/crash/core.compute-node-1412.48213", "compute-node-1412", "/var/crash/core.<HOST-1>.48213"),
        ("train_4821337_gpu121.err", "gpu121", "train_4821337_<HOST-1>.err"),
    ],
    ids=["nccl-debug-file", "results-archive", "core-dump", "slurm-error-file"],
)
def test_a_node_glued_into_a_file_name_or_a_core_dump_is_masked(line: str, node: str, expected: str) -> None:
    out = _masked(line + "\n", node)
    assert expected in out, out


def test_attribute_paths_program_words_and_glued_versions_stay() -> None:
    text = (
        "local_rank = args.local_rank; state = self.internal_state; r = torch.distributed.local_rank\n"
        "tree_node3 = graph.node0; gpu07_x = 1; model_a100-80gb; layer_10.mlp; bf16_1.3b lr_3e-4 seed_42\n"
        "zero_pp_rank_0_mp_rank_00_optim_states.pt global_step1000/mp_rank_00_model_states.pt epoch=3-step=1200.ckpt\n"
        "wandb/run-20240101_120000-abc123xy/files slurm-4821337.out python3.10 cuda_12.1 libnccl.so.2.18.1\n"
        "pkg_12.1.3.1 nvidia_cublas_cu12-12.1.3.1-py3-none-manylinux1_x86_64.whl\n"
    )
    assert mask(text).text == text
