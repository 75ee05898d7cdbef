"""Blind round 39: credentials in lines a terminal or a pager folded at its width (the cut in the
key's name, between the key and its value, inside a password with marks; emacs' and `most`'s
`\\` in the last column; a command continued with ` \\`), and the left-overs: Twilio's Account
SID alone, a home login in upper case, a Hub profile's owner, getfacl's entries.

Values are made up, in each vendor's format."""

from __future__ import annotations

import pytest

from bot.masking import Masker, mask

_HF = "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"  # hf_ and 34 letters
_PASSWORD = "Tr0ub4!dor#x9*Q@"
_SID = "AC" + "5e44f63e4c4b87efc9a96305efda2c4a"  # AC and 32 hex
_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


def _fold(line: str, width: int, marked: bool = False) -> str:
    """`line` as a terminal folds it at `width` (with the pager's `\\` in the last column)."""
    step = width - 1 if marked else width
    pieces = [line[i : i + step] for i in range(0, len(line), step)]
    mark = "\\" if marked else ""
    return "\n".join([piece + mark for piece in pieces[:-1]] + pieces[-1:])


def _pad_to(head: str, width: int) -> str:
    """`head` padded on its left with a run directory's name so it ends at column `width`."""
    pad = width - len(head) - len("RUN_DIR=/scratch/ ")
    assert pad > 0
    return "RUN_DIR=/scratch/" + ("sft_" * 40)[:pad] + " " + head


def test_a_key_name_cut_by_the_window_leaves_neither_piece_of_its_value() -> None:
    first = _pad_to("HF_TO", 80)
    text = f"{first}\nKEN={_HF} TOKENIZERS_PARALLELISM=false\n{_OOM}\n"
    assert len(first) == 80
    out = mask(text).text
    assert _HF not in out and _HF[3:20] not in out, out
    lines = out.split("\n")
    assert lines[0] == first and lines[1].startswith("KEN=<SECRET:hf-token-1> TOKENIZERS_PARALLELISM=false"), out
    assert lines[2] == _OOM


def test_a_password_after_its_key_at_the_window_s_edge_is_masked_on_the_next_line() -> None:
    for width in (80, 100, 120):
        first = _pad_to("DB_PASSWORD=", width)
        text = f"{first}\n{_PASSWORD} DB_PORT=5432\npsycopg2.OperationalError: FATAL:  password authentication failed\n"
        out = mask(text).text
        assert _PASSWORD not in out and "!dor#x9" not in out, out
        lines = out.split("\n")
        assert lines[1] == "<SECRET:password-1> DB_PORT=5432", out
        assert lines[2] == "psycopg2.OperationalError: FATAL:  password authentication failed", out


def test_a_password_cut_inside_loses_both_pieces() -> None:
    head = "-e DB_PASSWORD='" + _PASSWORD[:6]
    first = _pad_to(head, 100)
    text = f"{first}\n{_PASSWORD[6:]}' nvcr.io/nvidia/pytorch:24.05-py3\nKilled\n"
    out = mask(text).text
    assert _PASSWORD[:6] not in out and _PASSWORD[6:] not in out, out
    lines = out.split("\n")
    assert lines[0].endswith("-e DB_PASSWORD='<SECRET:password-1>"), out
    assert lines[1] == "' nvcr.io/nvidia/pytorch:24.05-py3" and lines[2] == "Killed", out


def test_a_json_value_folded_off_its_key_and_a_flow_mapping_s_key_cut() -> None:
    line = '{"level": "info", "output_dir": "/ckpt/run", "hub_token": "' + _HF + '", "db_password": "' + _PASSWORD + '", "seed": 42}'
    cut = line.index(_PASSWORD)
    line = line[:20] + " " * ((120 - cut) % 120) + line[20:]  # the password starts the second line
    text = _fold(line, 120) + "\nValueError: Invalid token passed!\n"
    out = mask(text).text
    assert _PASSWORD not in out and _HF not in out, out
    assert '"seed": 42}' in out and "ValueError: Invalid token passed!" in out, out
    yaml = "  env: {RUN_DIR: /scratch/x, NCCL_DEBUG: 'INFO', DB_PASSWORD: " + _PASSWORD + ", NCCL_IB_GID_INDEX: '3'}"
    cut = yaml.index("DB_PASSWORD") + 5  # `DB_PA` / `SSWORD: ...`
    yaml = yaml[:8] + "x" * ((80 - cut) % 80) + yaml[8:]
    out = mask(_fold(yaml, 80) + "\n").text
    assert _PASSWORD not in out and "SSWORD: <SECRET:password-1>, NCCL_IB_GID_INDEX: '3'}" in out, out


def test_a_pager_s_marked_fold_is_read_without_its_backslash() -> None:
    line = "$ docker run --rm --gpus all -v /data/shards:/data -e NCCL_DEBUG=INFO -e HUGGING_FACE_HUB_TOKEN=" + _HF
    line += " nvcr.io/nvidia/pytorch:24.05-py3 torchrun --nproc_per_node 8 train.py"
    cut = line.index(_HF) + 10
    line = line.replace("/data/shards", "/data/shards" + "x" * ((79 - cut) % 79), 1)
    text = _fold(line, 80, marked=True) + "\nError response from daemon: pull access denied for private/trainer\n"
    assert text.split("\n")[0].endswith("\\") and len(text.split("\n")[0]) == 80
    out = mask(text).text
    assert _HF[:10] not in out and _HF[10:] not in out, out
    assert "nvcr.io/nvidia/pytorch:24.05-py3" in out and "pull access denied for private/trainer" in out, out


def test_a_flag_s_value_on_the_next_line_of_a_continued_command() -> None:
    text = (
        "+ docker run --rm --gpus all \\\n"
        "    --db-password \\\n"
        f"    '{_PASSWORD}' \\\n"
        "    --hub_token \\\n"
        f"    {_HF} \\\n"
        "    nvcr.io/nvidia/pytorch:24.05-py3\n"
    )
    out = mask(text).text
    assert _PASSWORD not in out and _HF not in out, out
    assert "    '<SECRET:password-1>' \\\n" in out and "    --db-password \\\n" in out, out


@pytest.mark.timeout(30)
def test_a_piece_whose_last_line_is_continued_ends() -> None:
    """A piece ending in ` \\` and its newline (a command cut off by the paste, or a chunk
    boundary of `denpex mask`): the search for the command's next line found no line end there
    and read the text's tail as one, forever. Each piece is masked and ends."""
    for piece in ("torchrun train.py --lr 3 \\\n", "export HF_TOKEN=hf_" + "a1B2c3D4e5" * 3 + "abcd \\\n",
                  "docker run \\\n  --db-password \\\n"):
        masker = Masker()
        out = masker.mask(piece)
        assert out.count("\n") == piece.count("\n") and out.endswith(" \\\n")
        assert "a1B2c3D4e5" not in out


def test_a_full_line_ending_in_a_key_does_not_take_the_error_below_it() -> None:
    first = _pad_to("DB_PASSWORD=", 80)
    for below in ("RuntimeError: CUDA error: out of memory", "Killed", "Traceback (most recent call last):", "ChildFailedError",
                  "gpu-node-07:48213:48213 [0] NCCL INFO Bootstrap : Using ib0"):
        out = mask(f"{first}\n{below}\n").text
        assert out.split("\n")[1].endswith(below[11:]) and "<SECRET" not in out, out
    # A whole key ending a full line: the line below is its own.
    key = "WANDB_API_KEY=" + "0a1b2c3d4e" * 4
    first = _pad_to(key, 100)
    out = mask(f"{first}\ngpu-node-07:48213:48213 [0] NCCL INFO Bootstrap : Using ib0\n").text
    assert out.split("\n")[1].endswith(":48213:48213 [0] NCCL INFO Bootstrap : Using ib0"), out


def test_twilio_s_account_sid_alone_is_an_account_id() -> None:
    text = (
        f"TWILIO_ACCOUNT_SID={_SID}\n"
        f"  account_sid: '{_SID}'\n"
        f"HTTP 401 error: POST /2010-04-01/Accounts/{_SID}/Messages.json\n"
        "twilio.base.exceptions.TwilioRestException: HTTP 401 error: Unable to create record: Authenticate\n"
        "residual: ACE\n"
    )
    out = mask(text).text
    assert _SID not in out, out
    assert out.count("<ACCOUNT-1>") == 3 and "TWILIO_ACCOUNT_SID=<ACCOUNT-1>" in out, out
    assert "TwilioRestException: HTTP 401 error" in out and "residual: ACE" in out, out


def test_getfacl_masks_the_people_and_keeps_the_permissions() -> None:
    text = (
        "Loading checkpoint shards from /home/hfischer/ckpt/\n"
        "# file: scratch/ckpt\n# owner: hfischer\n# group: mlteam\n"
        "user::rwx\nuser:rkumar:r-x\ngroup::r-x\nmask::r-x\nother::---\ndefault:user:rkumar:rwx\n"
    )
    out = mask(text).text
    assert "hfischer" not in out and "rkumar" not in out, out
    for kept in ("# owner: <USER-1>", "user::rwx", "user:<USER-2>:r-x", "group::r-x", "mask::r-x", "other::---", "default:user:<USER-2>:rwx"):
        assert kept in out, out
    assert "<SECRET" not in out, out


def test_a_home_login_of_an_initial_and_a_name_in_upper_case() -> None:
    out = mask("Loading from /home/jli/ckpt\nSubmitted batch job by JLI on partition gpu\n").text
    assert "JLI" not in out and "by <USER-1> on partition gpu" in out, out
    # A home directory named for a device or a cloud is no person's: its upper case stays.
    out = mask("Loading from /home/tpu/ckpt\nTPU v4 pod slice ready\nERROR: x\n").text
    assert "TPU v4 pod slice ready" in out and "ERROR: x" in out, out


def test_a_hub_profile_s_owner_goes_and_the_hub_s_pages_stay() -> None:
    text = (
        "See https://huggingface.co/tfischer for the model card\n"
        "https://huggingface.co/meta-llama https://huggingface.co/gpt2 https://huggingface.co/docs (https://huggingface.co/pricing)\n"
    )
    out = mask(text).text
    assert "tfischer" not in out and "huggingface.co/<USER-1> for the model card" in out, out
    assert "huggingface.co/meta-llama huggingface.co/gpt2" not in out  # (sanity: the URLs keep their scheme)
    for kept in ("huggingface.co/meta-llama", "huggingface.co/gpt2", "huggingface.co/docs", "huggingface.co/pricing)"):
        assert kept in out, out


def test_a_short_hub_profile_url_and_a_host_that_only_ends_in_hf_co() -> None:
    # (The two hosts are read by a pattern each, led by its literal: the short host only where
    # it stands alone, not as the end of another name.)
    text = "model card: hf.co/tfischer.\nmirror: https://cdn.shelf.co/tfischer\nmirror: https://mirror-hf.co/bwagner\n"
    out = mask(text).text
    assert "hf.co/<USER-1>." in out and "tfischer" not in out, out
    assert "mirror-hf.co/bwagner" in out, out
