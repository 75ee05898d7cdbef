"""Root versus collateral, initiating rank, confidence and the unmatched line, on a small rulebook."""

import json

import pytest
import yaml

from bot.matcher import Matcher, RuleError, load_rulebook
from bot.matcher.model import RANK_BASES, RANK_OFFSETS
from tests.matcher.rulefactory import rule_doc, sig, standard_book, write_rules


@pytest.fixture
def matcher(tmp_path):
    return standard_book(tmp_path)


def test_healthy_log_yields_no_match_and_no_unmatched_line(matcher):
    """INFO chatter and loss lines give an empty diagnosis."""
    log = "step 1 loss 2.31\nNCCL INFO Init COMPLETE\nstep 2 loss 2.10\n"
    d = matcher.diagnose(log)
    assert d.matches == [] and d.unmatched is None and d.initiating_rank is None


def test_specific_cause_beats_consequences_on_other_ranks(matcher):
    """Watchdog timeouts on seven ranks are collateral when rank 3 ran out of memory."""
    lines = [f"[rank{r}]:[E1130 10:00:{10 + r:02d}.000 1 x.cpp:1] Watchdog caught collective operation timeout" for r in (0, 1, 2, 4, 5, 6, 7)]
    lines.insert(2, "[rank3]:[E1130 10:00:05.000 1 x.cpp:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    d = matcher.diagnose("\n".join(lines) + "\n")
    assert d.matches[0].id == "oom" and d.matches[0].role == "root"
    assert d.initiating_rank == 3
    assert [(c.id, c.ranks) for c in d.collateral] == [("timeout", [0, 1, 2, 4, 5, 6, 7])]
    assert d.matches[1].role == "collateral"


def test_collateral_of_names_the_cause(matcher):
    """A cuBLAS failure after an OOM is the OOM, even when the cuBLAS line scores higher."""
    log = "CUDA out of memory\nRuntimeError: CUBLAS_STATUS_ALLOC_FAILED when calling cublasCreate(handle)\n"
    d = matcher.diagnose(log)
    assert [m.id for m in d.matches] == ["oom", "blas"]
    assert d.collateral[0].id == "blas"


def test_collateral_rule_alone_is_the_root(matcher):
    """Without the OOM, the cuBLAS failure is itself the diagnosis."""
    d = matcher.diagnose("RuntimeError: CUBLAS_STATUS_EXECUTION_FAILED when calling cublasGemmEx\n")
    assert d.matches[0].id == "blas" and d.collateral == []


def test_wrapper_loses_to_anything_and_names_the_first_failure(matcher):
    """ChildFailedError alone is the root, and its root-cause block gives the initiating rank."""
    log = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-05-01_10:00:00
  host      : node01
  rank      : 5 (local_rank: 5)
  exitcode  : 1 (pid: 4242)
"""
    d = matcher.diagnose(log)
    assert d.matches[0].id == "wrapper" and d.initiating_rank == 5
    assert d.matches[0].confidence in ("medium", "low")
    d2 = matcher.diagnose("[rank5]:CUDA out of memory\n" + log)
    assert d2.matches[0].id == "oom" and d2.initiating_rank == 5
    assert "wrapper" in [c.id for c in d2.collateral]


def test_initiating_rank_is_the_one_missing_from_the_timeouts(matcher):
    """Only timeouts: the rank that did not time out is the one that stalled."""
    lines = [f"[rank{r}]:Watchdog caught collective operation timeout" for r in (0, 1, 3)]
    lines.insert(0, "NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 1b000 - Init COMPLETE")
    d = matcher.diagnose("\n".join(lines) + "\n")
    assert d.matches[0].id == "timeout" and d.initiating_rank == 2
    assert d.matches[0].confidence == "medium"


def test_initiating_rank_by_lowest_sequence_number(matcher):
    """All ranks time out; the one stuck on an earlier collective started it."""
    log = "".join(
        f"[rank{r}]:Watchdog caught collective operation timeout: WorkNCCL(SeqNum={s}, OpType=ALLREDUCE)\n"
        for r, s in ((0, 120), (1, 120), (2, 119), (3, 120))
    )
    assert matcher.diagnose(log).initiating_rank == 2


def test_initiating_rank_by_timestamp_not_line_order(matcher):
    """Interleaved output: the earliest stamp wins even when printed later."""
    log = (
        "[rank1]:[2024-05-01 10:00:09,000] CUDA out of memory\n"
        "[rank6]:[2024-05-01 10:00:02,000] CUDA out of memory\n"
    )
    assert matcher.diagnose(log).initiating_rank == 6


def test_confidence_tiers_follow_the_score(matcher):
    """A lone generic line is low; an unambiguous one is high."""
    assert matcher.diagnose("something odd happened\n").matches[0].confidence == "low"
    assert matcher.diagnose("CUDA out of memory\n").matches[0].confidence == "high"


def test_unmatched_is_the_exception_line_of_the_first_traceback(matcher):
    """No rule fired: the last line of the first traceback is the salient line."""
    log = """[rank2]:Traceback (most recent call last):
[rank2]:  File "train.py", line 10, in <module>
[rank2]:    main()
[rank1]:step 5 loss 1.0
[rank2]:KeyError: 'input_ids'
[rank0]:Traceback (most recent call last):
[rank0]:ValueError: later
"""
    d = matcher.diagnose(log)
    assert d.matches == [] and d.unmatched == "KeyError: 'input_ids'"


@pytest.mark.parametrize(
    "exc",
    [
        "\x1b[31mFileNotFoundError: [Errno 2] No such file or directory: 'data/train.jsonl'\x1b[0m",
        # A notebook's traceback copied as text: ESC lost, the codes' text kept (IPython colours
        # the exception's name).
        "[0;31mFileNotFoundError[0m: [Errno 2] No such file or directory: 'data/train.jsonl'",
        "\\e[31mFileNotFoundError: [Errno 2] No such file or directory: 'data/train.jsonl'\\e[0m",
    ],
    ids=["escape", "escape-lost", "written-out"],
)
def test_a_coloured_exception_is_the_unmatched_line_without_its_codes(matcher, exc):
    """A traceback printed in colour (a CI log, `docker logs` of a TTY, a notebook) is read as the
    terminal shows it: its exception is the error a person quotes, not "no failure found"."""
    log = f'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n{exc}\n'
    d = matcher.diagnose(log)
    assert d.matches == [] and d.unmatched == "FileNotFoundError: [Errno 2] No such file or directory: 'data/train.jsonl'"


def test_unmatched_falls_back_to_the_first_error_line(matcher):
    """Without a traceback, the first line saying error (not a warning) is quoted."""
    log = "UserWarning: error-prone setting\nINFO all good\nFATAL: disk quota exceeded for /data\nERROR later\n"
    assert matcher.diagnose(log).unmatched == "FATAL: disk quota exceeded for /data"


def test_evidence_carries_line_numbers_and_ranks(matcher):
    """Evidence lines are 1-based, with the rank they came from."""
    d = matcher.diagnose("a\nb\n[rank4]:CUDA out of memory\n")
    ev = d.matches[0].evidence[0]
    assert (ev.line, ev.rank) == (3, 4)


def test_json_contract_fields(matcher):
    """The JSON has exactly the fields of DESIGN.md."""
    out = json.loads(json.dumps(matcher.diagnose("[rank1]:CUDA out of memory\n").to_dict()))
    assert set(out) == {"matches", "initiating_rank", "rank_basis", "collateral", "unmatched", "stats"}
    assert (out["initiating_rank"], out["rank_basis"]) == (1, "root_only_rank")
    assert set(out["matches"][0]) == {"id", "title", "category", "confidence", "score", "role", "ranks", "evidence"}
    assert set(out["matches"][0]["evidence"][0]) == {"line", "rank", "text"}
    assert {"bytes", "lines", "elapsed_ms"} <= set(out["stats"])


@pytest.mark.parametrize("split", [1, 7, 64, 1000])
def test_chunked_feeding_gives_the_same_diagnosis(tmp_path, split):
    """Lines cut across chunk boundaries at any point are reassembled."""
    m = standard_book(tmp_path)
    log = ("noise line\n" * 50 + "[rank3]:CUDA out of memory\n" + "[rank1]:Watchdog caught collective operation timeout\n") * 3
    data = log.encode()
    whole = m.diagnose(log).to_dict()
    parts = m.diagnose_chunks(data[i : i + split] for i in range(0, len(data), split)).to_dict()
    whole.pop("stats"), parts.pop("stats")
    assert whole == parts


def test_prefilter_and_naive_paths_agree(tmp_path):
    """Running every regex on every line finds exactly what the prefilter path finds."""
    fast = standard_book(tmp_path)
    naive = Matcher(fast.rulebook, prefilter=False)
    log = "x\n[rank2]:CUDA out of memory\nTraceback (most recent call last):\nKeyError: 1\n[rank0]:Watchdog caught collective operation timeout\n"
    a, b = fast.diagnose(log).to_dict(), naive.diagnose(log).to_dict()
    a.pop("stats"), b.pop("stats")
    assert a == b


def test_hostile_line_is_bounded_and_reported(tmp_path):
    """A catastrophic-backtracking regex on a hostile line times out instead of hanging."""
    docs = [
        rule_doc("slow", "code", {"keywords": ["aaaa"], "signatures": [sig("s", r"(a+)+b", 0.9)]}, ["other", "third"]),
        rule_doc("other", "code", {"keywords": ["zzz"], "signatures": [sig("z", "zzz", 0.9)]}, ["slow", "third"]),
        rule_doc("third", "code", {"keywords": ["yyy"], "signatures": [sig("y", "yyy", 0.9)]}, ["slow", "other"]),
    ]
    m = Matcher(load_rulebook(write_rules(tmp_path, docs)), regex_timeout_s=0.02)
    d = m.diagnose("a" * 5000 + "!\nzzz\n")
    assert d.stats.regex_timeouts == 1 and d.matches[0].id == "other"


def test_loader_names_file_field_and_problem(tmp_path):
    """Every problem in a broken rule is reported as file: field: problem."""
    doc = rule_doc("broken", "network", {"keywords": ["x"], "signatures": [sig("s", "(unclosed", 2.0)]}, ["missing-id"])
    doc["severity"] = "urgent"
    doc["colour"] = "red"
    del doc["answers"]["scale"]
    write_rules(tmp_path, [doc])
    with pytest.raises(RuleError) as err:
        load_rulebook(tmp_path)
    text = "\n".join(err.value.problems)
    for expected in (
        "broken.yaml: match.signatures[0].pattern: does not compile",
        "broken.yaml: match.signatures[0].weight: must be a number in (0, 1]",
        "broken.yaml: severity: 'urgent' is not one of",
        "broken.yaml: (file): unknown field(s): colour",
        "broken.yaml: answers.scale: missing",
    ):
        assert expected in text


def test_loader_checks_references_and_file_placement(tmp_path):
    """Related ids must exist; id must equal the file name and category the folder."""
    doc = rule_doc("placed", "network", {"keywords": ["x"], "signatures": [sig("s", "x", 0.5)]}, ["nope", "nada"])
    write_rules(tmp_path, [doc])
    (tmp_path / "network" / "placed.yaml").rename(tmp_path / "network" / "elsewhere.yaml")
    with pytest.raises(RuleError) as err:
        load_rulebook(tmp_path)
    text = "\n".join(err.value.problems)
    assert "id: 'placed' differs from the file name 'elsewhere'" in text
    doc2 = yaml.safe_load((tmp_path / "network" / "elsewhere.yaml").read_text())
    assert doc2["related"] == ["nope", "nada"]


def test_loader_names_the_bad_list_item(tmp_path):
    """An unquoted number or `a: b` in a list is reported with its index and the remedy."""
    doc = rule_doc("listy", "network", {"keywords": ["x"], "signatures": [sig("s", "x", 0.5)]}, ["a", "b"])
    doc["tags"] = ["nccl", 503, {"host": "x"}]
    write_rules(tmp_path, [doc])
    with pytest.raises(RuleError) as err:
        load_rulebook(tmp_path)
    text = "\n".join(err.value.problems)
    assert "tags[1]: must be a non-empty string, got int 503 (quote it)" in text
    assert "tags[2]: must be a non-empty string, got dict" in text


def test_unmatched_quotes_an_exception_pasted_without_its_traceback(matcher):
    """`ValueError: ...` alone on a line (no traceback head above it) is still the line to quote."""
    log = "epoch 3 step 10 loss 0.5\nValueError: Target modules {'c_proj'} not found in the base model\n"
    assert matcher.diagnose(log).unmatched == "ValueError: Target modules {'c_proj'} not found in the base model"
    # A warning class is not an exception.
    assert matcher.diagnose("FutureWarning: `resume_download` is deprecated\nstep 1\n").unmatched is None


# One log per way the verdict tells the initiating rank, and the basis it records for it.
def _basis_logs() -> list[tuple[str, str, int]]:
    from tests.matcher import test_initiating_rank as t

    wd = t._timeout
    world8 = "NCCL INFO comm 0x1 rank 0 nranks 8 cudaDev 0 busId 1b000 - Init COMPLETE\n"
    oom_elastic = (
        "Traceback (most recent call last):\n  File \"/work/train.py\", line 120, in <module>\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 132.00 MiB. GPU 0 has a total capacity of 79.10 GiB\n"
        "E0217 16:43:29.165000 355419 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 2 (pid: 355716) of binary: /usr/bin/python3.11\n"
    )  # fmt: skip
    return [
        ("root_only_rank", "[rank1]:CUDA out of memory\n" + "".join(wd(r) for r in (0, 2, 3)), 1),
        ("root_first_timestamp", "2024-06-26 06:25:11,000 [rank1]:CUDA out of memory\n"
                                 "2024-06-26 06:25:10,000 [rank3]:CUDA out of memory\n", 3),
        ("root_first_line", "[rank1]:CUDA out of memory\n[rank3]:CUDA out of memory\n", 1),
        ("elastic_first_failure", "[rank3]:CUDA out of memory\n[rank1]:CUDA out of memory\n" + t.ELASTIC_TAIL, 1),
        ("spawn_process", t.SPAWN_OOM, 3),
        ("silent_rank", "".join(wd(r) for r in (2, 1, 3)) + t.ELASTIC_TAIL, 0),
        ("launcher_first_failure", oom_elastic, 2),
        ("gpu_index", "global_rank = 0 local_rank = 0 world_size = 4\nRuntimeError: CUDA out of memory. Tried to "
                      "allocate 824.00 MiB (GPU 2; 7.93 GiB total capacity; 4.71 GiB already allocated)\n", 2),
        ("first_own_error", world8 + "[rank2]:Traceback (most recent call last):\n[rank2]:KeyError: 'rougeL'\n"
                            + "".join(wd(r) for r in (0, 1)), 2),
        ("first_error_line", "[rank7]: torch.distributed.DistBackendError: NCCL error in: x, unhandled cuda error\n", 7),
        ("lowest_seq", wd(0, 808) + wd(1, 807) + wd(2, 808), 1),
        # the cause's line lost its prefix; the traceback that follows is rank 2's, cut before its exception
        ("only_rank_in_log", "CUDA out of memory\n[rank2]: Traceback (most recent call last):\n"
                             "[rank2]:   File \"/workspace/train.py\", line 154, in <module>\n", 2),
        ("ray_pid", t.RAY_SETUP + "(RayTrainWorker pid=2894, ip=10.0.0.1) torch.cuda.OutOfMemoryError: CUDA out of memory.\n", 3),
        ("spawn_process+node_offset", "+ python main.py --nnodes=2 --node_rank=1 --nproc_per_node=4 --master_addr=n0\n"
                                      + t.SPAWN_OOM.replace("Process 3", "Process 2"), 6),
        ("root_only_rank+node_offset", t.RDZV_NODE1 + "[default3]:torch.cuda.OutOfMemoryError: CUDA out of memory.\n", 11),
        ("launcher_first_failure+host_offset", t._pdsh_log(t._OOM_TRACEBACK), 6),
        ("gpu_index+host_offset", t._pdsh_log(t._OOM_TRACEBACK, sigkill=False), 6),
        ("first_own_error+host_offset", t._pdsh_log(t._KEYERROR_TRACEBACK), 6),
        ("only_rank_in_log", "torch.OutOfMemoryError: CUDA out of memory.\n[rank2]: Traceback (most recent call last):\n", 2),
    ]  # fmt: skip


@pytest.mark.parametrize("basis,log,rank", _basis_logs(), ids=[b for b, _, _ in _basis_logs()])
def test_each_way_of_telling_the_rank_records_its_basis(matcher, basis, log, rank):
    d = matcher.diagnose(log)
    assert (d.initiating_rank, d.rank_basis) == (rank, basis)
    assert d.to_dict()["rank_basis"] == basis


def test_every_recorded_basis_is_in_the_documented_vocabulary():
    for basis, _, _ in _basis_logs():
        head, _, offset = basis.partition("+")
        assert head in RANK_BASES and (not offset or offset in RANK_OFFSETS)


def test_no_rank_no_basis(matcher):
    """Healthy, or every rank timed out alike: neither a rank nor a reason."""
    from tests.matcher.test_initiating_rank import _timeout

    for log in ("all good\n", "".join(_timeout(r) for r in (0, 1, 2))):
        d = matcher.diagnose(log)
        assert (d.initiating_rank, d.rank_basis) == (None, None)


def test_unmatched_takes_a_bare_exception_after_its_traceback(matcher):
    """`raise Exception(...)` prints `Exception: ...`, a class name with nothing before it."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    model = wrap(model)\n"
        "Exception: Could not find the transformer layer class to wrap in the model.\n"
    )
    assert matcher.diagnose(log).unmatched == "Exception: Could not find the transformer layer class to wrap in the model."


def test_an_error_line_that_says_how_to_get_info_is_still_an_error(matcher):
    """`NCCL_DEBUG=INFO` in a hint is a value, not the line's level; `NCCL INFO` lines stay chatter."""
    log = (
        "host1:12:12 [0] NCCL INFO Call to connect returned Connection refused, retrying\n"
        "[2025-02-07 11:28:26] ERROR worker.py:88 custom allreduce init failed: cudaIpcOpenMemHandle"
        " returned invalid argument (run with NCCL_DEBUG=INFO for details)\n"
    )
    assert matcher.diagnose(log).unmatched.startswith("[2025-02-07 11:28:26] ERROR worker.py:88 custom allreduce")
    assert matcher.diagnose(log.splitlines(keepends=True)[0]).unmatched is None


def test_evidence_takes_the_initiating_ranks_line_first_then_the_earliest(matcher):
    """Of more lines than evidence holds, the initiating rank's comes first, however late, and
    the rest by line; the evidence then reads in line order."""
    lines = ["[rank3]:[E1130 10:00:00.000 1 x.cpp:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"]
    lines += [f"[rank{r}]:[E1130 10:00:{10 + r:02d}.000 1 x.cpp:1] Watchdog caught collective operation timeout" for r in (0, 1, 2, 4, 5, 6, 7, 3)]
    d = matcher.diagnose("\n".join(lines) + "\n")
    assert d.initiating_rank == 3
    timeout = next(m for m in d.matches if m.id == "timeout")
    assert [e.rank for e in timeout.evidence] == [0, 1, 2, 4, 3]
    assert [e.line for e in timeout.evidence] == sorted(e.line for e in timeout.evidence)
