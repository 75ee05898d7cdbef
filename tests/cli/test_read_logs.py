"""`denpex diagnose` on what jobs really leave behind: a folder of per-rank logs, several files or
a glob, torchelastic's per-attempt tree, xz/bzip2/zstd, UTF-16, and progress on big inputs."""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import json
import lzma
import re
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.diagnose import PROGRESS_FROM_BYTES, Progress
from bot.ingest import rank_from_path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB."


def per_rank(sample: Path = SAMPLE) -> dict[int, str]:
    """The sample's `[rankN]:` lines split into one file per rank, prefixes taken off: what a job
    that writes one log per rank leaves (no rank on any line)."""
    files: dict[int, list[str]] = {}
    for line in sample.read_text().splitlines():
        m = re.match(r"\[rank(\d+)\]:(.*)", line)
        if m:
            files.setdefault(int(m[1]), []).append(m[2])
    return {rank: "\n".join(lines) + "\n" for rank, lines in files.items()}


def diagnose(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["diagnose", *args])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys, *args: str) -> dict:
    code, out, err = diagnose(capsys, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    ("path", "rank"),
    [
        ("logs/rank_3.log", 3),
        ("logs/rank-17.txt", 17),
        ("node-2/rank-17.txt", 17),
        ("train_rank03.out.gz", 3),
        ("slurm-1234_3.out", 3),
        ("/tmp/torchelastic_x/run_ab/attempt_0/3/stderr.log", 3),
        ("/tmp/torchelastic_x/run_ab/attempt_1/12/error.json", 12),
        ("rank_5/train.log", 5),
        ("train.log", None),
        ("node-2/train.log", None),
        ("slurm-1234.out", None),
        ("worker-3.log", None),  # a pod or host, not a rank
        ("frankly.log", None),
    ],
)
def test_rank_from_the_file_name(path, rank):
    assert rank_from_path(path) == rank


def test_a_folder_of_per_rank_logs_is_one_run(tmp_path, capsys, monkeypatch):
    """Eight files, no rank on any line: the rank comes from the names, the OOM of rank_3.log is
    the root, the others' watchdog timeouts are collateral, and evidence names the file and its
    own line number, with the line as the file has it."""
    # The text report cuts evidence at the terminal's width; a wide one shows the whole line.
    monkeypatch.setenv("COLUMNS", "120")
    logs = tmp_path / "logs"
    logs.mkdir()
    for rank, text in per_rank().items():
        (logs / f"rank_{rank}.log").write_text(text)
    d = as_json(capsys, str(logs))
    assert d["matches"][0]["id"] == "cuda-oom" and d["initiating_rank"] == 3
    assert {c["id"]: c["ranks"] for c in d["collateral"]}["nccl-watchdog-timeout"] == [0, 1, 2, 4, 5, 6, 7]
    ev = d["matches"][0]["evidence"][0]
    lines = (logs / "rank_3.log").read_text().splitlines()
    assert ev["file"] == "rank_3.log" and ev["rank"] == 3
    assert lines[ev["line"] - 1].startswith(ev["text"][:60]) and ev["text"].startswith(OOM)
    assert [f["file"] for f in d["files"]] == [f"rank_{r}.log" for r in range(8)]
    _, text, _ = diagnose(capsys, str(logs))
    assert f"rank_3.log:{ev['line']} rank 3: {OOM}" in text


def test_several_files_and_a_glob_and_slurm_names(tmp_path, capsys):
    for rank, body in per_rank().items():
        (tmp_path / f"slurm-1234_{rank}.out").write_text(body)
    files = sorted(str(p) for p in tmp_path.glob("*.out"))
    assert as_json(capsys, *files)["initiating_rank"] == 3
    d = as_json(capsys, str(tmp_path / "slurm-1234_*.out"))
    assert d["initiating_rank"] == 3 and len(d["files"]) == 8
    # Natural order: rank 10 after rank 9, not after rank 1.
    (tmp_path / "slurm-1234_10.out").write_text("step 1\n")
    (tmp_path / "slurm-1234_9.out").write_text("step 1\n")
    names = [f["file"] for f in as_json(capsys, str(tmp_path / "slurm-1234_*.out"))["files"]]
    assert names.index("slurm-1234_9.out") < names.index("slurm-1234_10.out")
    code, _, err = diagnose(capsys, str(tmp_path / "nothing-*.out"))
    assert code == 2 and "no file matches" in err


def test_a_line_that_carries_its_own_rank_keeps_it(tmp_path, capsys):
    """A node's file (`node-1/rank-8.log`) whose lines say `[rank11]:` is read as rank 11."""
    (tmp_path / "node-1").mkdir()
    (tmp_path / "node-1" / "rank-8.log").write_text(f"step 1\n[rank11]:{OOM}\n")
    (tmp_path / "node-1" / "rank-9.log").write_text("step 1\n")
    d = as_json(capsys, str(tmp_path), "--no-mask")  # masked, the host in the path reads <HOST-1>
    assert d["matches"][0]["id"] == "cuda-oom" and d["initiating_rank"] == 11
    assert d["matches"][0]["evidence"][0]["file"] == "node-1/rank-8.log"


def test_torchelastic_attempt_tree_with_error_json(tmp_path, capsys):
    """torchelastic writes <run>/attempt_N/<local rank>/{stderr.log, error.json}: the error file is
    read as its message and traceback, and the rank comes from the folder."""
    run = tmp_path / "torchelastic_abc" / "none_xyz" / "attempt_0"
    for rank in range(4):
        (run / str(rank)).mkdir(parents=True)
        (run / str(rank) / "stdout.log").write_text("step 1 loss 2.3\n")
        (run / str(rank) / "stderr.log").write_text("")  # empty: skipped, not an error
    error = {
        "message": {
            "message": f"{OOM} GPU 2 has a total capacity of 79.15 GiB",
            "extraInfo": {
                "py_callstack": 'Traceback (most recent call last):\n  File "train.py", line 187, in main\n'
                f"    loss = model(**batch).loss\n{OOM} GPU 2 has a total capacity of 79.15 GiB\n",
                "timestamp": "1732939323",
            },
        }
    }
    (run / "2" / "error.json").write_text(json.dumps(error))
    d = as_json(capsys, str(tmp_path))
    assert d["matches"][0]["id"] == "cuda-oom" and d["initiating_rank"] == 2
    ev = d["matches"][0]["evidence"][0]
    assert ev["file"].endswith("attempt_0/2/error.json") and ev["text"].startswith(OOM)
    assert any("stderr.log" in s and "empty" in s for s in d["skipped"])
    code, _, err = diagnose(capsys, str(tmp_path), "--format", "json", "--quiet")
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [(".xz", lzma.compress), (".bz2", bz2.compress), (".gz", gzip.compress), (".zst", None)],
)
def test_compressed_logs(tmp_path, capsys, suffix, compress):
    if compress is None:
        zstandard = pytest.importorskip("zstandard")
        compress = zstandard.ZstdCompressor().compress
    data = compress(SAMPLE.read_bytes())
    whole = tmp_path / f"train.log{suffix}"
    whole.write_bytes(data)
    d = as_json(capsys, str(whole))
    assert d["matches"][0]["id"] == "cuda-oom" and d["initiating_rank"] == 3 and d["stats"]["truncated"] is False
    cut = tmp_path / f"cut.log{suffix}"
    cut.write_bytes(data[: len(data) * 9 // 10])
    code, out, err = diagnose(capsys, str(cut))
    if code == 0:  # what the cut kept is diagnosed, with the notice
        assert "the log ends early" in out
    else:  # a block format may keep nothing of a small file: then it says so
        assert "cut off" in err and len(err.strip().splitlines()) == 1


def test_zst_without_zstandard_says_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    p = tmp_path / "train.log.zst"
    p.write_bytes(b"(\xb5/\xfd" + b"\x00" * 64)
    code, _, err = diagnose(capsys, str(p))
    assert code == 2 and "pip install 'denpex[zstd]'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_logs_are_read_not_refused(tmp_path, capsys, encoding):
    """PowerShell's `>` writes UTF-16 with a BOM; some tools write it without one."""
    p = tmp_path / "train.log"
    p.write_bytes(SAMPLE.read_text().encode(encoding))
    d = as_json(capsys, str(p))
    assert d["matches"][0]["id"] == "cuda-oom" and d["initiating_rank"] == 3
    p.write_bytes(codecs.BOM_UTF8 + SAMPLE.read_bytes())
    assert as_json(capsys, str(p))["matches"][0]["id"] == "cuda-oom"


def test_a_binary_file_in_a_folder_is_skipped_with_a_note(tmp_path, capsys):
    (tmp_path / "rank_3.log").write_text(OOM + "\n")
    (tmp_path / "core").write_bytes(b"\x7fELF" + b"\x00" * 100)
    (tmp_path / "model.pt").write_bytes(b"\x00" * 100)  # not a log name: not even opened
    code, out, err = diagnose(capsys, str(tmp_path), "--format", "json")
    assert code == 0 and json.loads(out)["initiating_rank"] == 3
    assert err.strip() == "denpex: skipped core: this is an executable, not a text log: send the .log/.txt file (or a .gz of it)"


@pytest.mark.parametrize(("name", "mode", "said"), [("logs.tar", "w", "a tar archive,"),
                                                     ("logs.tar.gz", "w:gz", "a tar archive (.gz of one),")])
def test_a_tar_archive_is_named_as_one_not_called_binary(tmp_path, capsys, name, mode, said):
    """A tarball of logs (the usual way to hand over a run's folder) is said to be a tar archive,
    with what to send instead, not refused as some binary file."""
    import tarfile

    p = tmp_path / name
    with tarfile.open(p, mode) as tar:
        tar.add(SAMPLE, arcname="logs/rank3.log")
    code, _, err = diagnose(capsys, str(p))
    assert code == 2, err
    assert f"this is {said} not a text log: send the .log/.txt file itself" in err


def test_stdin_and_files_together_is_a_usage_error(capsys):
    code, _, err = diagnose(capsys, "-", str(SAMPLE))
    assert code == 2 and "stdin" in err


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_progress_on_a_pipe_a_terminal_and_quiet():
    """stdin (size unknown) gets a running count too; a terminal gets a bar that is taken away
    before the report; --quiet prints nothing."""
    pipe = _Stream(tty=False)
    p = Progress(None, stream=pipe)
    for _ in range(3):
        p(PROGRESS_FROM_BYTES)
    assert pipe.getvalue() == "denpex: read 4 MB\n", "then one line per 100 MB"
    term = _Stream(tty=True)
    p = Progress(4 * PROGRESS_FROM_BYTES, stream=term)
    p(2 * PROGRESS_FROM_BYTES)
    assert "[##############--------------]  50%" in term.getvalue() and "\n" not in term.getvalue()
    p.close()
    assert term.getvalue().endswith("\r\033[K")
    quiet = _Stream(tty=True)
    p = Progress(None, quiet=True, stream=quiet)
    p(10 * PROGRESS_FROM_BYTES)
    assert quiet.getvalue() == ""


def test_progress_on_stdin_end_to_end(capsys, monkeypatch):
    data = SAMPLE.read_bytes()
    big = b"step 1 loss 2.0 " * 64 + b"\n"
    body = big * (PROGRESS_FROM_BYTES // len(big) + 10) + data
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    code, out, err = diagnose(capsys, "-", "--format", "json")
    assert code == 0 and json.loads(out)["matches"][0]["id"] == "cuda-oom"
    assert err.startswith("denpex: read 4 MB")


def test_line_numbers_stay_per_file_when_a_file_has_no_final_newline(tmp_path, capsys):
    (tmp_path / "rank_0.log").write_text("a\nb\nno newline at the end")
    (tmp_path / "rank_1.log").write_text(f"x\n{OOM}\n")
    d = as_json(capsys, str(tmp_path))
    ev = d["matches"][0]["evidence"][0]
    assert (ev["file"], ev["line"], ev["rank"]) == ("rank_1.log", 2, 1)
    assert d["stats"]["lines"] == 5


def test_the_unmatched_line_of_a_rank_named_file_reads_as_the_file_has_it(tmp_path, capsys):
    (tmp_path / "rank_5.log").write_text(
        'step 1\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
        "FrobError: the frobnicator exploded unexpectedly\n"
    )
    _, out, _ = diagnose(capsys, str(tmp_path / "rank_5.log"))
    assert "    FrobError: the frobnicator exploded" in out and "[rank5]" not in out
    d = as_json(capsys, str(tmp_path / "rank_5.log"))
    assert d["unmatched"].startswith("FrobError") and d["initiating_rank"] == 5


def _kinds():
    kinds = [
        ("bzip2", lambda d: bz2.compress(d, 1)),
        ("xz", lambda d: lzma.compress(d, preset=0)),
        ("gzip", lambda d: gzip.compress(d, 1)),
    ]
    try:
        import zstandard

        kinds.append(("zstd", zstandard.ZstdCompressor().compress))
    except ImportError:
        pass
    return kinds


@pytest.mark.parametrize(("kind", "compress"), _kinds())
def test_every_compression_streams_concatenates_caps_and_notices_a_cut(kind, compress):
    from bot.ingest import NO_LIMITS, InputError, Limits, ReadStatus, read_log

    log = b"".join(b"[rank%d]:step %d loss %d\n" % (i % 8, i, i * 7919 % 10007) for i in range(60_000))

    def read(data: bytes, piece: int = 65536, limits: Limits = NO_LIMITS) -> tuple[bytes, ReadStatus]:
        status = ReadStatus()
        chunks = [data[i : i + piece] for i in range(0, len(data), piece)]
        return b"".join(read_log(chunks, limits, status)), status

    packed = compress(log)
    text, status = read(packed + packed)
    assert text == log + log and not status.truncated and status.compression == kind
    text, status = read(packed[: len(packed) * 3 // 4])
    assert status.truncated and log.startswith(text) and text
    with pytest.raises(InputError, match="inflates past the 1 MB limit"):
        read(compress(b"a" * (4 << 20)), limits=Limits(max_inflated=1_000_000))


@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u2007", "\u3000"], ids=["nbsp", "narrow-nbsp", "figure", "ideographic"])
@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_log_with_unicode_spaces_is_diagnosed_as_with_ascii_ones(tmp_path, capsys, monkeypatch, space, how):
    """A log copied from a web page (no-break spaces, a narrow no-break space, any Unicode
    space where it had ASCII spaces) read from a file or stdin: the same entry on the same line
    as the log itself, and `stats.bytes` the bytes as read."""
    typed = as_json(capsys, str(SAMPLE))
    body = SAMPLE.read_text().replace(" ", space).encode()
    if how == "file":
        (tmp_path / "train.log").write_bytes(body)
        copied = as_json(capsys, str(tmp_path / "train.log"))
    else:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
        copied = as_json(capsys, "-")
    assert [m["id"] for m in copied["matches"]] == [m["id"] for m in typed["matches"]]
    assert [e["line"] for e in copied["matches"][0]["evidence"]] == [e["line"] for e in typed["matches"][0]["evidence"]]
    assert space not in json.dumps(copied, ensure_ascii=False)
    assert copied["stats"]["bytes"] == len(body) and copied["stats"]["lines"] == typed["stats"]["lines"]


def test_a_log_ending_in_blocks_of_nul_bytes_is_read_and_a_binary_file_still_refused(tmp_path, capsys):
    """A node that crashed while writing leaves its log's text, then the blocks the file had grown
    by, read back as NUL bytes: a log (its evidence without the NULs); NUL bytes scattered, or
    before a first line, are still a binary file."""
    log = tmp_path / "train.log"
    log.write_bytes(f"step 10\n{OOM}\n".encode() + b"\x00" * 4096 + b"\nrestarted\n")
    d = as_json(capsys, str(log))
    assert d["matches"][0]["id"] == "cuda-oom" and "\x00" not in json.dumps(d)
    for content in (b"\x00" * 4096 + f"\n{OOM}\n".encode(), f"step\x00 10\n{OOM}\n".encode() + b"\x00" * 4096):
        log.write_bytes(content)
        code, _, err = diagnose(capsys, str(log))
        assert code != 0 and "binary file" in err


def test_line_separators_are_line_breaks_and_line_numbers_stay_per_file(tmp_path, capsys):
    """U+2028 where a file had line breaks (saved from a rich-text editor): each is a line,
    for the matcher and for the line numbers of a run of several files alike."""
    (tmp_path / "rank_0.log").write_text("a\u2028b\u2029c\n")
    (tmp_path / "rank_1.log").write_text(f"x\n{OOM}\n")
    d = as_json(capsys, str(tmp_path))
    ev = d["matches"][0]["evidence"][0]
    assert (ev["file"], ev["line"], ev["rank"]) == ("rank_1.log", 2, 1)
    assert d["stats"]["lines"] == 5


def test_a_log_compressed_twice_is_read_and_three_times_refused(tmp_path, capsys):
    """A shipper that gzips every file, `.gz` ones too (or xz over gzip): read through both
    layers; a third layer (or a file compressed in itself) is refused with a word, not read on."""
    log = tmp_path / "train.log.gz.gz"
    log.write_bytes(gzip.compress(gzip.compress(SAMPLE.read_bytes())))
    assert as_json(capsys, str(log))["matches"][0]["id"] == "cuda-oom"
    log.write_bytes(lzma.compress(gzip.compress(SAMPLE.read_bytes())))
    assert as_json(capsys, str(log))["matches"][0]["id"] == "cuda-oom"
    log.write_bytes(gzip.compress(gzip.compress(gzip.compress(SAMPLE.read_bytes()))))
    code, _, err = diagnose(capsys, str(log))
    assert code != 0 and "compressed three times" in err
