"""The initiating rank and the wrapper's place, on multi-rank log fragments shaped like real ones.

Each fragment follows what PyTorch, torchelastic, torch.multiprocessing.spawn and NCCL print
(formats as of torch 1.x-2.5, NCCL 2.x); hosts, paths and pids are made up.
"""

import pytest

from bot.matcher import Matcher, RuleError, load_rulebook
from tests.matcher.rulefactory import rule_doc, sig, standard_book, write_rules


@pytest.fixture
def matcher(tmp_path):
    return standard_book(tmp_path)


def _timeout(rank: int, seq: int = 808, second: int = 44) -> str:
    return (
        f"[rank{rank}]:[E626 06:24:{second}.903881913 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught "
        f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=9801523, "
        f"NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
    )


ELASTIC_TAIL = """E0626 06:25:10.120000 4711 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 1 (pid: 4713) of binary: /opt/conda/bin/python
Traceback (most recent call last):
  File "/opt/conda/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-06-26_06:25:10
  host      : gpu-node-3
  rank      : 1 (local_rank: 1)
  exitcode  : -6 (pid: 4713)
  error_file: <N/A>
  traceback : Signal 6 (SIGABRT) received by PID 4713
============================================================
"""


def test_silent_rank_zero_is_the_initiator_not_the_rank_torchelastic_names(matcher):
    """Ranks 1-3 time out on one allreduce, rank 0 prints nothing: rank 0 never reached it.
    torchelastic's first observed failure (rank 1) is only the lowest rank that timed out."""
    log = "".join(_timeout(r) for r in (2, 1, 3)) + ELASTIC_TAIL
    d = matcher.diagnose(log)
    assert d.matches[0].id == "timeout"
    assert d.initiating_rank == 0


def test_silent_highest_rank_needs_the_world_size(matcher):
    """Ranks 0-2 time out: without a stated world size nothing says a rank 3 exists."""
    log = "".join(_timeout(r) for r in (0, 1, 2))
    assert matcher.diagnose(log).initiating_rank is None
    banners = "".join(
        f"06/26/2024 06:00:0{r} - WARNING - __main__ - Process rank: {r}, device: cuda:{r}, n_gpu: 1, "
        "distributed training: True, 16-bits training: True\n"
        for r in range(4)
    )
    assert matcher.diagnose(banners + log).initiating_rank == 3
    env = "WORLD_SIZE=4 MASTER_ADDR=gpu-node-3 MASTER_PORT=29500\n"
    assert matcher.diagnose(env + log).initiating_rank == 3


def test_two_silent_ranks_name_no_one(matcher):
    """Two ranks missing from the timeouts: either could have stalled first."""
    log = "NCCL INFO comm 0x1 rank 0 nranks 6 cudaDev 0 busId 1b000 - Init COMPLETE\n"
    log += "".join(_timeout(r) for r in (0, 1, 3, 5))
    assert matcher.diagnose(log).initiating_rank is None


def test_rank_with_its_own_error_began_what_the_others_timed_out_on(matcher):
    """Rank 2 raised an error no rule knows; all the others timed out waiting for it."""
    log = (
        "[rank2]:Traceback (most recent call last):\n"
        '[rank2]:  File "/work/train.py", line 88, in evaluate\n'
        "[rank2]:    score = metrics[name]\n"
        "[rank2]:KeyError: 'rougeL'\n"
    ) + "".join(_timeout(r) for r in (0, 1, 3))
    d = matcher.diagnose(log)
    assert d.matches[0].id == "timeout" and d.initiating_rank == 2


SPAWN_OOM = """Traceback (most recent call last):
  File "/work/main.py", line 410, in <module>
    mp.spawn(main_worker, nprocs=4, args=(args,))
  File "/opt/conda/lib/python3.8/site-packages/torch/multiprocessing/spawn.py", line 150, in join
    raise ProcessRaisedException(msg, error_index, failed_process.pid)
torch.multiprocessing.spawn.ProcessRaisedException:

-- Process 3 terminated with the following error:
Traceback (most recent call last):
  File "/opt/conda/lib/python3.8/site-packages/torch/multiprocessing/spawn.py", line 69, in _wrap
    fn(i, *args)
  File "/work/main.py", line 301, in main_worker
    loss.backward()
RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 3; 23.65 GiB total capacity; 20.10 GiB already allocated)
"""


def test_spawn_names_the_process_whose_traceback_follows(matcher):
    """torch.multiprocessing.spawn prints the child's traceback unprefixed, after `-- Process 3`."""
    d = matcher.diagnose(SPAWN_OOM)
    assert d.matches[0].id == "oom" and d.initiating_rank == 3


def test_spawn_names_the_process_when_no_rule_matched(matcher):
    """No entry knows the child's error: it is the unmatched line, with the child's rank."""
    log = SPAWN_OOM.replace(
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 3; 23.65 GiB total capacity; 20.10 GiB already allocated)",
        "AssertionError: daemonic processes are not allowed to have children",
    )
    d = matcher.diagnose(log)
    assert d.matches == []
    assert d.unmatched == "AssertionError: daemonic processes are not allowed to have children"
    assert d.initiating_rank == 3


def test_oom_without_prefix_takes_the_rank_torchelastic_reports(matcher):
    """`failed (exitcode: 1) local_rank: 2 (pid: ...)` names the worker whose OOM is above."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 120, in <module>\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 132.00 MiB. GPU 0 has a total capacity of 79.10 GiB\n"
        "W0217 16:43:26.140000 355419 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 355715 closing signal SIGTERM\n"
        "E0217 16:43:29.165000 355419 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 2 (pid: 355716) of binary: /usr/bin/python3.11\n"
    )
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 2


def test_oom_gpu_index_agrees_with_the_old_launchers_argv(matcher):
    """torch.distributed.launch names the worker by `--local_rank=3` in its CalledProcessError."""
    log = (
        "RuntimeError: CUDA out of memory. Tried to allocate 824.00 MiB (GPU 3; 7.93 GiB total capacity; 4.71 GiB already allocated)\n"
        "Killing subprocess 31867\nKilling subprocess 31868\n"
        "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=3', '--cfg', 'a.yaml']' "
        "returned non-zero exit status 1.\n"
    )
    assert matcher.diagnose(log).initiating_rank == 3


def test_oom_gpu_index_alone_on_a_multi_rank_node(matcher):
    """No launcher line: the device in the message is the local rank when ranks share a node."""
    log = (
        "global_rank = 0 local_rank = 0 world_size = 4\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 824.00 MiB (GPU 2; 7.93 GiB total capacity; 4.71 GiB already allocated)\n"
    )
    assert matcher.diagnose(log).initiating_rank == 2
    # One process, one GPU: no rank to report.
    assert matcher.diagnose(log.split("\n", 1)[1]).initiating_rank is None


def test_oom_device_is_the_rank_when_only_a_peers_timeout_names_a_rank(matcher):
    """An unprefixed OOM naming GPU 1 and a watchdog timeout on rank 3: the OOM's rank, not the victim's.

    Rank 3 showing up at all says the job has several ranks; PyTorch 2.1 spelled "capacty".
    """
    log = (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 564.00 MiB. GPU 1 has a total capacty "
        "of 22.20 GiB of which 203.12 MiB is free. Process 9841 has 22.00 GiB memory in use. Of the allocated memory "
        "21.13 GiB is allocated by PyTorch, and 169.00 MiB is reserved by PyTorch but unallocated.\n"
        "[E ProcessGroupNCCL.cpp:456] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1250, "
        "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800470 milliseconds before timing out.\n"
    )
    d = matcher.diagnose(log)
    assert (d.initiating_rank, d.rank_basis) == (1, "gpu_index")


def _one_rule_matcher(tmp_path, rid: str, category: str, keyword: str, pattern: str) -> Matcher:
    """A book of one real rule (`rid`, read from `pattern`) and two that never fire."""
    docs = [
        rule_doc(rid, category, {"keywords": [keyword], "signatures": [sig("s", pattern, 0.8)]}, ["other", "third"]),
        rule_doc("other", "code", {"keywords": ["zzz"], "signatures": [sig("z", "zzz", 0.9)]}, [rid, "third"]),
        rule_doc("third", "code", {"keywords": ["yyy"], "signatures": [sig("y", "yyy", 0.9)]}, [rid, "other"]),
    ]  # fmt: skip
    return Matcher(load_rulebook(write_rules(tmp_path, docs)))


def _ibv_warn_matcher(tmp_path) -> Matcher:
    """A book whose one network rule reads NCCL's unprefixed `... NCCL WARN Call to ibv_create_qp failed`."""
    return _one_rule_matcher(tmp_path, "ibv", "network", "ibv_create_qp", r"NCCL WARN Call to ibv_create_qp failed")


def test_nccl_host_pid_maps_back_to_the_rank_of_the_init_lines(tmp_path):
    """NCCL's WARN line carries `host:pid`, its init line the rank that process holds."""
    m = _ibv_warn_matcher(tmp_path)
    log = (
        "node-a:2668:2780 [0] NCCL INFO comm 0x7f0a8834b870 rank 0 nranks 4 cudaDev 0 busId 1b000 - Init START\n"
        "node-b:2712:2824 [0] NCCL INFO comm 0x7fa94834c010 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE\n"
        "node-b:2712:2824 [0] NCCL INFO comm 0x7fa94834c020 rank 2 nranks 4 cudaDev 0 busId 1b000 - Init COMPLETE\n"
        "node-b:2712:2824 [0] misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed\n"
        "node-b:2712:2824 [0] NCCL INFO transport/net_ib.cc:371 -> 2\n"
    )
    # The rank in the widest communicator is the global one (rank 0 of a 2-rank subgroup is not).
    d = m.diagnose(log)
    assert (d.initiating_rank, d.rank_basis) == (2, "nccl_init_pid")


def test_nccl_init_start_names_the_rank_of_a_communicator_that_never_completed(tmp_path):
    """A communicator that fails while connecting prints `Init START` and no `Init COMPLETE`."""
    m = _ibv_warn_matcher(tmp_path)
    log = (
        "gpu7:6898:7104 [3] NCCL INFO ncclCommInitRank comm 0xf5c0b50 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId d2000 commId 0xc9 - Init START\n"
        "gpu7:6896:7103 [1] NCCL INFO ncclCommInitRank comm 0xf1486b0 rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 8a000 commId 0xc9 - Init START\n"
        "gpu7:6896:7103 [1] misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed\n"
        "gpu7:6896:7103 [1] NCCL INFO transport/net_ib.cc:371 -> 2\n"
    )
    d = m.diagnose(log)
    assert (d.initiating_rank, d.rank_basis) == (1, "nccl_init_pid")


def _xid_matcher(tmp_path) -> Matcher:
    """A book whose one hardware rule reads the kernel's Xid line, which carries no rank."""
    return _one_rule_matcher(tmp_path, "xid", "hardware", "xid", r"NVRM: Xid \([^)]*\):\s*(?:79|92|94|95)\b")


def test_the_pid_an_xid_names_maps_back_to_the_rank_of_the_init_lines(tmp_path):
    """The kernel names the process whose GPU failed; NCCL's init lines tell which rank that pid is.

    Ranks 0 and 2 time out and rank 3 is absent too, so no single silent rank points at the GPU."""
    m = _xid_matcher(tmp_path)
    log = (
        "node-b:48210:48300 [0] NCCL INFO comm 0x7fa94834c010 rank 0 nranks 4 cudaDev 0 busId 1b000 - Init COMPLETE\n"
        "node-b:48211:48301 [1] NCCL INFO comm 0x7fa94834c020 rank 1 nranks 4 cudaDev 1 busId 3b000 - Init COMPLETE\n"
        "node-b:48212:48302 [2] NCCL INFO comm 0x7fa94834c030 rank 2 nranks 4 cudaDev 2 busId 5b000 - Init COMPLETE\n"
        + _timeout(0) + _timeout(2)
        + "[Sat Oct 12 08:03:57 2024] NVRM: Xid (PCI:0000:3b:00): 94, pid=48211, name=python, Contained: SM (0x1). "
        "RST: No, D-RST: No\n"
    )
    d = m.diagnose(log)
    assert (d.initiating_rank, d.rank_basis) == (1, "nccl_init_pid")


def test_a_pid_two_hosts_share_names_no_rank(tmp_path):
    """Two nodes may reuse a pid: when the init lines tie it to two ranks, the Xid names neither."""
    m = _xid_matcher(tmp_path)
    log = (
        "node-a:48211:48300 [1] NCCL INFO comm 0x7fa94834c010 rank 1 nranks 16 cudaDev 1 busId 3b000 - Init COMPLETE\n"
        "node-b:48211:48301 [1] NCCL INFO comm 0x7fa94834c020 rank 9 nranks 16 cudaDev 1 busId 3b000 - Init COMPLETE\n"
        "[Sat Oct 12 08:03:57 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=48211, name=python, GPU has fallen off the bus.\n"
    )
    d = m.diagnose(log)
    assert d.rank_basis != "nccl_init_pid"
    assert d.initiating_rank not in (1, 9)


def test_first_rank_with_its_own_error_when_nothing_matched(matcher):
    """Out of the knowledge base: the rank is still reported, the unmatched line is its error."""
    log = (
        "[rank5]:Traceback (most recent call last):\n"
        "[rank5]:  File \"/opt/megatron-lm/megatron/training/checkpointing.py\", line 1818, in load_checkpoint\n"
        "[rank5]:KeyError: 'state'\n"
        "[rank0]:Traceback (most recent call last):\n"
        "[rank0]:KeyError: 'state'\n"
    )
    d = matcher.diagnose(log)
    assert d.matches == [] and d.initiating_rank == 5 and d.unmatched == "KeyError: 'state'"


WRAPPED_KEYERROR = """[rank1]: Traceback (most recent call last):
[rank1]:   File "/work/train.py", line 230, in <module>
[rank1]:     optimizer.step()
[rank1]:   File "/opt/conda/lib/python3.10/site-packages/torch/optim/adam.py", line 85, in step
[rank1]:     beta1, beta2 = group['betas']
[rank1]: KeyError: 'betas'
W0301 10:02:11.100000 900 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 902 closing signal SIGTERM
E0301 10:02:12.400000 900 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 903) of binary: /opt/conda/bin/python
Traceback (most recent call last):
  File "/opt/conda/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-03-01_10:02:12
  host      : gpu-node-1
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 903)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""


def test_the_wrapper_never_wins_over_the_ranks_own_error(matcher):
    """Only ChildFailedError matched: the KeyError above it is the cause, with its rank."""
    d = matcher.diagnose(WRAPPED_KEYERROR)
    assert d.matches == []
    assert d.unmatched == "KeyError: 'betas'" and d.initiating_rank == 1
    assert [c.id for c in d.collateral] == ["wrapper"]


def test_the_wrapper_never_wins_over_an_unprefixed_error_either(matcher):
    """torchrun --nproc_per_node=1 prints the child's traceback without a prefix."""
    log = "\n".join(line.replace("[rank1]: ", "", 1) for line in WRAPPED_KEYERROR.splitlines()) + "\n"
    d = matcher.diagnose(log)
    assert d.matches == [] and d.unmatched == "KeyError: 'betas'" and d.initiating_rank == 1


def test_the_wrapper_alone_stays_when_there_is_no_python_error(matcher):
    """Killed by a signal, no traceback of its own: the wrapper is all the log says."""
    log = ELASTIC_TAIL.replace("failed (exitcode: -6)", "failed (exitcode: -11)")
    d = matcher.diagnose(log)
    assert d.matches[0].id == "wrapper" and d.initiating_rank == 1 and d.unmatched is None


def test_the_wrapper_yields_to_an_exception_whose_traceback_header_was_cut_off(matcher):
    """An excerpt pasted from an issue starts inside the child's traceback: no `Traceback (most
    recent call last):` above the KeyError, yet it is still the error the wrapper reports."""
    _, _, tail = WRAPPED_KEYERROR.partition("[rank1]:     beta1, beta2 = group['betas']\n")
    log = "[rank1]:     beta1, beta2 = group['betas']\n" + tail
    d = matcher.diagnose(log)
    assert d.matches == [] and d.unmatched == "KeyError: 'betas'" and d.initiating_rank == 1
    assert [c.id for c in d.collateral] == ["wrapper"]


def test_an_error_log_line_before_the_wrapper_is_not_taken_for_the_childs_exception(matcher):
    """Only a Python exception line stands in for the cut-off traceback, not any line that says error."""
    log = "ERROR: could not reach the metrics endpoint, retrying\n" + ELASTIC_TAIL.replace(
        "failed (exitcode: -6)", "failed (exitcode: -11)"
    )
    d = matcher.diagnose(log)
    assert d.matches[0].id == "wrapper" and d.unmatched is None


def test_a_rule_that_matched_the_child_still_wins(matcher):
    """The child's error is known: it is the root and the wrapper is collateral, as before."""
    log = WRAPPED_KEYERROR.replace("[rank1]: KeyError: 'betas'", "[rank1]: torch.OutOfMemoryError: CUDA out of memory.")
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 1
    assert "wrapper" in [c.id for c in d.collateral]


def test_one_nodes_log_names_the_gap_in_its_own_block_not_the_agents_local_rank(matcher):
    """A pod log holds ranks 16-23 only; 19 never timed out. torchelastic's agent line says
    `local_rank: 3`, which is 19 on this node, not global rank 3."""
    log = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 10.90 GiB. GPU 3 has a total capacity of 79.15 GiB\n"
        + "".join(_timeout(r) for r in (16, 17, 18, 20, 21, 22, 23))
        + "E1130 04:07:34.712995 1631088 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 3 (pid: 1631128) of binary: /usr/bin/python\n"
    )
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 19


def test_a_few_pasted_timeouts_say_nothing_about_the_rank_between_them(matcher):
    """Four timeout lines copied into a thread: rank 13 is not shown to be silent."""
    log = "".join(_timeout(r) for r in (11, 12, 14, 15))
    assert matcher.diagnose(log).initiating_rank is None


def test_a_rankless_cause_takes_the_rank_the_timeouts_leave_out(matcher):
    """The OOM traceback has no prefix; 255 of 256 ranks (nranks 256) time out; 149 did not."""
    log = (
        "node-12:515482:515705 [1] NCCL INFO comm 0x1071a092a40 rank 0 nranks 256 cudaDev 1 busId 2a000 - Init COMPLETE\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.62 GiB. GPU 5 has a total capacity of 79.15 GiB\n"
        + "".join(_timeout(r) for r in range(256) if r != 149)
    )
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 149


def test_the_terminal_names_the_rank_and_the_wrapper_around_the_unmatched_error(matcher):
    from bot.render.text import render_report
    from bot.report import build_report

    out = render_report(build_report(matcher.diagnose(WRAPPED_KEYERROR), matcher.rulebook))
    assert "No known failure matched" in out and "KeyError: 'betas'" in out
    assert "(rank 1, the first to fail)" in out and "Reported around it: Title of wrapper" in out


# --- multi-node: one node's log shows local ranks; the initiating rank reported is global ---

RDZV_NODE1 = """INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:
  restart_count=0
  master_addr=gpu-node-0
  master_port=29500
  group_rank=1
  group_world_size=2
  local_ranks=[0, 1, 2, 3, 4, 5, 6, 7]
  role_ranks=[8, 9, 10, 11, 12, 13, 14, 15]
  global_ranks=[8, 9, 10, 11, 12, 13, 14, 15]
  role_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]
  global_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]

"""


def _local_timeout(local: int, offset: int = 8) -> str:
    """torch < 2.2 with `torchrun --tee 3`: the prefix is the local rank, the text the global one."""
    return (
        f"[default{local}]:[E ProcessGroupNCCL.cpp:828] [Rank {local + offset}] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=4120, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800483 "
        "milliseconds before timing out.\n"
    )


def test_a_tee_prefix_on_the_second_node_is_reported_as_the_global_rank(matcher):
    """`[default3]:` on node 1 of 2x8 is global rank 11: the rendezvous result says where it starts."""
    log = RDZV_NODE1 + (
        "[default3]:Traceback (most recent call last):\n"
        '[default3]:  File "/work/pretrain.py", line 402, in train_step\n'
        "[default3]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a "
        "total capacity of 79.15 GiB of which 1.02 GiB is free.\n"
    ) + "".join(_local_timeout(r) for r in (0, 1, 2, 4, 5, 6, 7))
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 11
    assert d.matches[0].ranks == [11]
    assert d.collateral[0].ranks == [8, 9, 10, 12, 13, 14, 15]


def test_the_failure_summary_pairs_the_global_rank_with_the_local_one(matcher):
    """No rendezvous lines: `rank : 11 (local_rank: 3)` gives the offset for the agent's `local_rank: 3`."""
    log = (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB\n"
        "E1204 02:11:09.300000 7001 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 3 (pid: 7020) of binary: /usr/bin/python\n"
        + ELASTIC_TAIL.replace("rank      : 1 (local_rank: 1)", "rank      : 11 (local_rank: 3)").split("\n", 1)[1]
    )
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 11


def test_the_silent_rank_of_the_second_node_is_its_local_zero(matcher):
    """Local ranks 1-7 of node 1 time out; `[default0]` (global 8) never reached the allreduce."""
    log = RDZV_NODE1 + "".join(_local_timeout(r) for r in range(1, 8))
    d = matcher.diagnose(log)
    assert d.matches[0].id == "timeout" and d.initiating_rank == 8


def test_spawn_on_a_second_node_adds_node_rank_times_processes(matcher):
    """`--node_rank=1 --nproc_per_node=4` echoed, then spawn's `-- Process 2`: global rank 6."""
    log = "+ python main.py --nnodes=2 --node_rank=1 --nproc_per_node=4 --master_addr=gpu-node-0\n" + SPAWN_OOM.replace(
        "Process 3", "Process 2"
    ).replace("(GPU 3;", "(GPU 2;")
    assert matcher.diagnose(log).initiating_rank == 6


def test_a_log_of_two_nodes_keeps_the_ranks_it_reads(matcher):
    """Two nodes' summaries (offsets 0 and 8) in one file: no single offset, nothing is added."""
    tail0 = ELASTIC_TAIL.replace("rank      : 1 (local_rank: 1)", "rank      : 3 (local_rank: 3)")
    tail1 = ELASTIC_TAIL.replace("rank      : 1 (local_rank: 1)", "rank      : 9 (local_rank: 1)")
    log = "[rank3]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n" + tail0 + tail1
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 3


def test_global_rank_prefixes_on_the_second_node_are_left_as_they_are(matcher):
    """torch >= 2.2 prints `[rank11]:` itself: the ranks on the lines are global already."""
    log = RDZV_NODE1 + "[rank11]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    d = matcher.diagnose(log)
    assert d.initiating_rank == 11 and d.matches[0].ranks == [11]


def test_a_subgroups_rank_list_is_not_a_nodes_offset(matcher):
    """A subgroup's list printed mid-line (`pipeline group global_ranks=[4, 5]`) is not the rendezvous result."""
    log = (
        "[rank1]: building pipeline group global_ranks=[4, 5, 6, 7] group_rank=1 local_world_size=4\n"
        "[rank1]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    )
    assert matcher.diagnose(log).initiating_rank == 1


DS_SIGKILL = (
    "[2024-03-20 20:31:29,210] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 3353707\n"
    "[2024-03-20 20:31:29,269] [ERROR] [launch.py:321:sigkill_handler] ['/data/envs/llama/bin/python', '-u', "
    "'src/train_bash.py', '--local_rank=4', '--stage', 'sft', '--deepspeed', 'ds_z3.json'] exits with return code = 1\n"
)


def test_deepspeeds_launcher_names_the_worker_that_died_first(matcher):
    """The unprefixed KeyError belongs to `--local_rank=4`, the process DeepSpeed's sigkill_handler reports."""
    log = "Traceback (most recent call last):\n  File \"src/train_bash.py\", line 14, in <module>\nKeyError: 'labels'\n" + DS_SIGKILL
    d = matcher.diagnose(log)
    assert d.unmatched == "KeyError: 'labels'" and d.initiating_rank == 4


def test_deepspeeds_killing_lines_name_no_one(matcher):
    """`Killing subprocess N` is the launcher tearing the others down, not a failed rank."""
    log = "torch.cuda.OutOfMemoryError: CUDA out of memory.\n" + DS_SIGKILL.splitlines(keepends=True)[0]
    assert matcher.diagnose(log).initiating_rank is None


def test_an_unmatched_error_without_a_traceback_keeps_its_ranks_prefix(matcher):
    """`[rank7]: ...DistBackendError...` with no traceback head: the quoted line's rank is reported."""
    log = (
        "[rank7]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
        "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
        "[rank7]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
    )
    d = matcher.diagnose(log)
    assert d.matches == [] and d.initiating_rank == 7 and d.unmatched.startswith("torch.distributed.DistBackendError")


RAY_SETUP = "".join(
    f"(RayTrainWorker pid={2891 + r}, ip=10.0.0.1) Setting up process group for: env:// [rank={r}, world_size=4]\n"
    for r in range(4)
)


def test_a_ray_workers_traceback_is_read_behind_its_actor_prefix(matcher):
    """`(RayTrainWorker pid=2893, ...) KeyError`: the error is quoted, and pid 2893 is rank 2."""
    log = RAY_SETUP + (
        "(RayTrainWorker pid=2893, ip=10.0.0.1) Traceback (most recent call last):\n"
        '(RayTrainWorker pid=2893, ip=10.0.0.1)   File "/work/train.py", line 40, in train_func\n'
        "(RayTrainWorker pid=2893, ip=10.0.0.1) KeyError: 'pixel_values'\n"
    )
    d = matcher.diagnose(log)
    assert d.matches == [] and d.unmatched == "KeyError: 'pixel_values'" and d.initiating_rank == 2


def test_ray_trainers_worker_list_maps_every_pid(matcher):
    """Ray prints the process-group line for rank 0 only; TorchTrainer's list names the others."""
    log = (
        "(RayTrainWorker pid=75298) Setting up process group for: env:// [rank=0, world_size=2]\n"
        "(TorchTrainer pid=71127) Started distributed worker processes:\n"
        "(TorchTrainer pid=71127) - (ip=10.216.70.82, pid=75298) world_rank=0, local_rank=0, node_rank=0\n"
        "(TorchTrainer pid=71127) - (ip=10.216.70.82, pid=75299) world_rank=1, local_rank=1, node_rank=0\n"
        "(RayTrainWorker pid=75299) torch.cuda.OutOfMemoryError: CUDA out of memory.\n"
    )
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 1


def test_a_rule_hit_on_a_ray_worker_takes_that_workers_rank(matcher):
    log = RAY_SETUP + "(RayTrainWorker pid=2894, ip=10.0.0.1) torch.cuda.OutOfMemoryError: CUDA out of memory.\n"
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 3
    assert matcher.diagnose(RAY_SETUP).matches == []


@pytest.mark.parametrize("esc", ["\x1b", ""], ids=["escape", "escape-lost"])
def test_ray_prefixes_in_colour_still_name_the_rank(matcher, esc):
    """Ray colours each actor's prefix on a terminal (`\\x1b[36m(RayTrainWorker pid=..)\\x1b[0m`);
    pasted from a notebook or a web console the escape byte is often lost and `[36m(...)[0m`
    stays (ray-project/ray issues show both). The pid is that worker's rank either way."""
    c, r = f"{esc}[36m", f"{esc}[0m"
    log = (
        f"{c}(TorchTrainer pid=71127){r} Started distributed worker processes:\n"
        f"{c}(TorchTrainer pid=71127){r} - (ip=10.216.70.82, pid=75298) world_rank=0, local_rank=0, node_rank=0\n"
        f"{c}(TorchTrainer pid=71127){r} - (ip=10.216.70.82, pid=75299) world_rank=1, local_rank=1, node_rank=0\n"
        f"{c}(RayTrainWorker pid=75299, ip=10.216.70.82){r} torch.cuda.OutOfMemoryError: CUDA out of memory.\n"
    )
    d = matcher.diagnose(log)
    assert d.matches[0].id == "oom" and d.initiating_rank == 1 and d.rank_basis == "ray_pid"


# DeepSpeed's launcher over pdsh, 2 hosts x 4 GPUs: pdsh puts the hostfile's name before every
# line; each host's launch.py prints the lines below (format of deepspeed/launcher/launch.py,
# 0.9-0.14), and its sigkill_handler names the failed worker by its LOCAL rank.
def _ds_launch(host: str, node_rank: int, mapping: bool = True, user: str = "") -> str:
    lines = [
        f"[2024-03-12 09:14:02,511] [INFO] [launch.py:145:main] WORLD INFO DICT: "
        f"{{'{user}worker-0': [0, 1, 2, 3], '{user}worker-1': [0, 1, 2, 3]}}",
        f"[2024-03-12 09:14:02,511] [INFO] [launch.py:151:main] nnodes=2, num_local_procs=4, node_rank={node_rank}",
    ]
    if mapping:
        lines.append(
            "[2024-03-12 09:14:02,512] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, "
            f"{{'{user}worker-0': [0, 1, 2, 3], '{user}worker-1': [4, 5, 6, 7]}})"
        )
    lines += [
        "[2024-03-12 09:14:02,512] [INFO] [launch.py:163:main] dist_world_size=8",
        "[2024-03-12 09:14:02,512] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3",
    ]
    return "".join(f"{host}: {line}\n" for line in lines)


_OOM_TRACEBACK = """Traceback (most recent call last):
  File "/home/user/train.py", line 212, in <module>
    main()
  File "/home/user/train.py", line 190, in main
    model_engine.backward(loss)
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 2; 79.15 GiB total capacity; 75.02 GiB already allocated; 1.21 GiB free; 76.80 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
"""
_KEYERROR_TRACEBACK = """Traceback (most recent call last):
  File "/home/user/train.py", line 212, in <module>
    main()
  File "/home/user/train.py", line 88, in main
    betas = cfg["optimizer"]["betas"]
KeyError: 'betas'
"""


def _sigkill(host: str, local_rank: int) -> str:
    return "".join(
        f"{host}: {line}\n"
        for line in (
            *(f"[2024-03-12 09:31:40,118] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pid}"
              for pid in (48209, 48210, 48211, 48212)),
            f"[2024-03-12 09:31:41,402] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', "
            f"'train.py', '--local_rank={local_rank}', '--deepspeed', 'ds_config.json'] exits with return code = 1",
        )
    ) + f"pdsh@worker-0: {host}: ssh exited with exit code 1\n"  # fmt: skip


def _old_timeout(host: str, rank: int) -> str:
    # torch 1.13-2.1 ProcessGroupNCCL: `[Rank N]` is the rank in the default group, a global one.
    return (
        f"{host}: [E ProcessGroupNCCL.cpp:828] [Rank {rank}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum=5123, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800374 milliseconds before timing out.\n"
    )


def _pdsh_log(failure: str, *, sigkill: bool = True, mapping: bool = True, timeouts=(0, 1, 2, 3), user="") -> str:
    head = _ds_launch("worker-0", 0, mapping, user) + _ds_launch("worker-1", 1, mapping, user)
    body = "".join(f"worker-1: {line}\n" for line in failure.splitlines())
    tail = _sigkill("worker-1", 2) if sigkill else ""
    hosts = {r: "worker-0" if r < 4 else "worker-1" for r in range(8)}
    return head + body + tail + "".join(_old_timeout(hosts[r], r) for r in timeouts)


def test_pdsh_oom_on_second_host_is_its_global_rank(matcher):
    """worker-1's launcher names `--local_rank=2`: worker-1's ranks start at 4, so rank 6.
    worker-0's ranks 0-3 timed out waiting for it."""
    d = matcher.diagnose(_pdsh_log(_OOM_TRACEBACK))
    assert d.matches[0].id == "oom"
    assert (d.initiating_rank, d.rank_basis) == (6, "launcher_first_failure+host_offset")


def test_pdsh_oom_told_by_gpu_index_on_its_host(matcher):
    """No launcher line (the paste ends at the OOM): `GPU 2` on a worker-1 line is rank 6."""
    d = matcher.diagnose(_pdsh_log(_OOM_TRACEBACK, sigkill=False))
    assert (d.initiating_rank, d.rank_basis) == (6, "gpu_index+host_offset")


def test_pdsh_offset_from_node_rank_when_no_mapping_is_printed(matcher):
    """Without `global_rank_mapping`, each host's `nnodes=2, num_local_procs=4, node_rank=1` places it."""
    d = matcher.diagnose(_pdsh_log(_OOM_TRACEBACK, mapping=False))
    assert (d.initiating_rank, d.rank_basis) == (6, "launcher_first_failure+host_offset")


def test_pdsh_hostfile_user_and_every_other_rank_timing_out(matcher):
    """`user@worker-1` in the hostfile is `worker-1: ` in pdsh's prefix; with ranks 0-5 and 7
    timing out, the silent rank and the launcher agree on 6."""
    d = matcher.diagnose(_pdsh_log(_OOM_TRACEBACK, user="ubuntu@", timeouts=(0, 1, 2, 3, 4, 5, 7)))
    assert (d.initiating_rank, d.rank_basis) == (6, "silent_rank")


def test_pdsh_traceback_of_an_error_no_entry_knows_is_the_hosts_failed_rank(matcher):
    """The traceback carries no rank; worker-1's launcher says it was local rank 2: rank 6's own error."""
    d = matcher.diagnose(_pdsh_log(_KEYERROR_TRACEBACK))
    assert d.matches[0].id == "timeout"
    assert (d.initiating_rank, d.rank_basis) == (6, "first_own_error+host_offset")


def test_pdsh_failure_on_first_host_keeps_its_rank(matcher):
    log = (_ds_launch("worker-0", 0) + _ds_launch("worker-1", 1)
           + "".join(f"worker-0: {line}\n" for line in _OOM_TRACEBACK.splitlines())
           + _sigkill("worker-0", 1) + "".join(_old_timeout("worker-1", r) for r in (4, 5, 6, 7)))  # fmt: skip
    assert (matcher.diagnose(log).initiating_rank, matcher.diagnose(log).rank_basis) == (
        1, "launcher_first_failure+host_offset")  # fmt: skip


def test_single_host_deepspeed_log_keeps_the_local_rank(matcher):
    """No pdsh prefix, one node: `--local_rank=2` is rank 2, as before."""
    log = (
        "[2024-03-12 09:14:02,511] [INFO] [launch.py:151:main] nnodes=1, num_local_procs=4, node_rank=0\n"
        + _OOM_TRACEBACK
        + "[2024-03-12 09:31:41,402] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', "
        "'train.py', '--local_rank=2'] exits with return code = 1\n"
    )
    d = matcher.diagnose(log)
    assert (d.initiating_rank, d.rank_basis) == (2, "launcher_first_failure")


@pytest.mark.parametrize("prefilter", [True, False])
def test_pdsh_ranks_same_on_the_naive_path(tmp_path, prefilter):
    m = standard_book(tmp_path, prefilter=prefilter)
    d = m.diagnose(_pdsh_log(_KEYERROR_TRACEBACK))
    assert (d.initiating_rank, d.rank_basis, d.unmatched) == (6, "first_own_error+host_offset", None)


def test_one_hosts_part_of_a_pdsh_run_without_the_prefixes_uses_its_node_rank(matcher):
    """`dshbak` (or a per-node log) drops pdsh's `worker-1: `: the whole log is worker-1's, and its
    `node_rank=1` x `num_local_procs=4` puts `--local_rank=2` at global rank 6, though the mapping
    names both hosts."""
    part = _ds_launch("worker-1", 1) + _OOM_TRACEBACK + _sigkill("worker-1", 2).replace("pdsh@worker-0: ", "")
    log = "".join(line.removeprefix("worker-1: ") + "\n" for line in part.splitlines())
    d = matcher.diagnose(log)
    assert (d.initiating_rank, d.rank_basis) == (6, "launcher_first_failure+node_offset")


def test_a_masked_pdsh_log_gives_the_same_rank(matcher):
    """The masker writes `<HOST-2>: ` for `worker-1: `, in the prefix and in the mapping alike."""
    from bot.masking import mask

    log = _pdsh_log(_OOM_TRACEBACK)
    masked = mask(log).text
    assert "worker-1" not in masked
    d = matcher.diagnose(masked)
    assert (d.initiating_rank, d.rank_basis) == (6, "launcher_first_failure+host_offset")


def test_a_bare_error_line_belongs_to_the_only_rank_the_log_shows(matcher):
    """A pasted traceback: the error line has no prefix, the process's other lines are `[rank0]:`."""
    log = (
        "Traceback (most recent call last):\n"
        "  File \"/work/grpo.py\", line 227, in main\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
        "[rank0]: Traceback (most recent call last):\n"
    )
    d = matcher.diagnose(log)
    assert (d.initiating_rank, d.rank_basis) == (0, "only_rank_in_log")


def test_a_bare_error_line_names_no_rank_when_the_log_shows_two(matcher):
    log = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank1]: Traceback (most recent call last):\n"
    )
    assert matcher.diagnose(log).initiating_rank is None


def test_a_ranks_work_sequence_is_the_first_number_its_line_states():
    """The seq probe reads whichever of `SeqNum=` and `last completed NCCL work:` comes first on
    the line, skips a `SeqNum=` without digits, and keeps each rank's lowest."""
    from bot.matcher.salient import LogFacts

    facts = LogFacts()
    watchdog = "[PG 0 (default_pg) Rank 5] Exception (either an error or timeout) detected by watchdog at work: 812"
    facts.observe(1, f"{watchdog}, last enqueued NCCL work: 812, last completed NCCL work: 808. SeqNum=990", 5, {"seq"})
    facts.observe(2, "WorkNCCL(SeqNum=n/a) then WorkNCCL(SeqNum=811, OpType=ALLREDUCE)", 6, {"seq"})
    facts.observe(3, "WorkNCCL(SeqNum=809, OpType=ALLREDUCE) last completed NCCL work: 700", 5, {"seq"})
    facts.observe(4, "no sequence number on this line", 7, {"seq"})
    assert facts.seq_by_rank == {5: 808, 6: 811}


MPIRUN_FIRST = """--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------
--------------------------------------------------------------------------
mpirun detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[50371,1],{rank}]
  Exit code:    1
--------------------------------------------------------------------------
"""


OOM_LINE = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n"


@pytest.mark.parametrize(
    ("tail", "rank"),
    [
        # Open MPI's summary names the rank that exited first; the OOM line carries no prefix.
        pytest.param(MPIRUN_FIRST.format(rank=2), 2, id="first-process-to-do-so"),
        pytest.param(
            "mpirun noticed that process rank 3 with PID 4242 on node gpu-node-7 exited on signal 9 (Killed).\n",
            3,
            id="noticed-signal",
        ),
        # mpirun's other help texts name processes too: only the one under the heading counts.
        pytest.param(
            "ORTE has lost communication with a remote daemon.\n  Process name: [[50371,1],5]\n", None, id="no-heading"
        ),
    ],
)
def test_mpirun_names_the_rank_that_failed_first(matcher, tail, rank):
    d = matcher.diagnose(OOM_LINE + tail)
    assert d.matches[0].id == "oom"
    assert d.initiating_rank == rank


def _barrier_matcher(tmp_path, *, waiting: bool) -> Matcher:
    """A book whose one rule reads the store-based barrier timeout, marked waiting or not."""
    match = {
        "keywords": ["store based barrier"],
        "signatures": [sig("barrier", r"Timed out initializing process group in store based barrier on rank", 0.8)],
    }
    if waiting:
        match["waiting"] = True
    docs = [
        rule_doc("barrier", "distributed", match, ["other", "third"]),
        rule_doc("other", "code", {"keywords": ["zzz"], "signatures": [sig("z", "zzz", 0.9)]}, ["barrier", "third"]),
        rule_doc("third", "code", {"keywords": ["yyy"], "signatures": [sig("y", "yyy", 0.9)]}, ["barrier", "other"]),
    ]  # fmt: skip
    return Matcher(load_rulebook(write_rules(tmp_path, docs)))


def _barrier(rank: int, world: int, count: int) -> str:
    return (
        f"[default{rank}]:RuntimeError: Timed out initializing process group in store based barrier on rank: {rank}, "
        f"for key: store_based_barrier_key:1 (world_size={world}, worker_count={count}, timeout=0:30:00)\n"
    )


def test_a_waiting_entry_names_the_one_rank_that_never_arrived(tmp_path):
    """Ranks 0-6 of 8 time out in the barrier: rank 7 is the one they waited for."""
    log = "".join(_barrier(r, 8, 7) for r in (3, 0, 6, 1, 5, 2, 4))
    d = _barrier_matcher(tmp_path, waiting=True).diagnose(log)
    assert d.root is not None and d.root.id == "barrier"
    assert (d.initiating_rank, d.rank_basis) == (7, "silent_rank")


def test_a_waiting_entry_never_names_the_first_rank_that_printed(tmp_path):
    """megatron-deepspeed#338: ranks 7 and 5 of 8 waited for 4 that never came; none of them began it."""
    log = _barrier(7, 8, 4) + _barrier(5, 8, 4)
    assert _barrier_matcher(tmp_path / "w", waiting=True).diagnose(log).initiating_rank is None
    # the same rule without the flag takes the first line's rank: the flag is what changes it
    assert _barrier_matcher(tmp_path / "n", waiting=False).diagnose(log).initiating_rank == 7


def test_waiting_must_be_a_boolean(tmp_path):
    docs = [
        rule_doc("barrier", "distributed", {"keywords": ["x"], "signatures": [sig("s", "x", 0.8)], "waiting": "yes"},
                 ["other", "third"]),
        rule_doc("other", "code", {"keywords": ["zzz"], "signatures": [sig("z", "zzz", 0.9)]}, ["barrier", "third"]),
        rule_doc("third", "code", {"keywords": ["yyy"], "signatures": [sig("y", "yyy", 0.9)]}, ["barrier", "other"]),
    ]  # fmt: skip
    with pytest.raises(RuleError, match=r"match\.waiting"):
        load_rulebook(write_rules(tmp_path, docs))
