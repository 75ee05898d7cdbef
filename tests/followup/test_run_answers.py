"""Answers about the run come from the masked diagnosis kept in Redis, through the real store."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from bot.delivery import Place, thread_context
from bot.followup.kb_search import KbIndex
from bot.followup.thread_question import ask
from bot.service import Denpex
from bot.store import Store, keys
from bot.store.config import Plan
from bot.store.followup_quota import FREE_FOLLOWUPS_PER_DAY
from bot.store.threads import ThreadContext

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()
TEAM = "T0RUN"


@pytest.fixture(scope="module")
def denpex() -> Denpex:
    return Denpex()


@pytest.fixture(scope="module")
def kb(denpex: Denpex) -> KbIndex:
    return KbIndex(denpex.rulebook)


def kept(store: Store, denpex: Denpex, log: str = SAMPLE) -> ThreadContext:
    outcome = denpex.diagnose_text(log)
    place = Place(TEAM, "C1", "1700000000.000100")
    store.threads.save(TEAM, "C1", place.thread_ts, thread_context(outcome, place))
    ctx = store.threads.load(TEAM, "C1", place.thread_ts)
    assert ctx is not None
    return ctx


def ask_(store, denpex, kb, ctx, question, topic=None):
    reply = ask(denpex.rulebook, kb, store, TEAM, ctx, question, topic)
    assert reply is not None
    return reply


def test_initiating_rank_says_which_and_how(store, denpex, kb):
    """'which rank failed first?' names the kept rank, the reason, and quotes its own line."""
    ctx = kept(store, denpex)
    reply = ask_(store, denpex, kb, ctx, "which rank failed first?")
    assert reply.answer.topic == "initiating_rank"
    assert reply.answer.title == f"Initiating rank: {ctx.initiating_rank}"
    assert ctx.initiating_rank == 3
    assert "only rank" in reply.answer.text or "did not" in reply.answer.text or "By time" in reply.answer.text
    assert "rank 3" in reply.answer.text


def test_evidence_quotes_kept_masked_lines(store, denpex, kb):
    """'show me the line' quotes the evidence lines as kept (masked), with line numbers."""
    ctx = kept(store, denpex)
    reply = ask_(store, denpex, kb, ctx, "show me the line")
    assert reply.answer.topic == "evidence"
    first = ctx.matches[0].evidence[0]
    assert f"line {first.line}" in reply.answer.text and first.text.strip()[:60] in reply.answer.text


def test_secrets_in_the_log_never_reach_an_answer(store, denpex, kb):
    """A token on the evidence line is masked in the kept context and so in every run answer."""
    token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"
    ctx = kept(store, denpex, SAMPLE + f"[rank3]:torch.OutOfMemoryError: CUDA out of memory token={token}\n")
    texts = [ask_(store, denpex, kb, ctx, q).answer.text for q in
             ("show me the line", "which rank failed first", "which hosts were affected", "when did it fail")]
    assert all(token[:12] not in t for t in texts)
    assert any("<SECRET" in t for t in texts)


def test_collateral_and_runner_up_explain_themselves(store, denpex, kb):
    """Collateral is named with why it is not the cause; no runner-up is said plainly."""
    ctx = kept(store, denpex)
    coll = ask_(store, denpex, kb, ctx, "why isn't it the watchdog timeout?").answer
    assert coll.topic == "collateral"
    if ctx.collateral_ids:
        assert ctx.collateral_ids[0] in coll.text and "not the cause" in coll.text
    runner = ask_(store, denpex, kb, ctx, "what else could it be?").answer
    assert runner.topic == "runner_up"
    others = [m for m in ctx.matches[1:] if m.role == "root"]
    assert (others[0].id in runner.text) if others else ("no runner-up" in runner.text)


def test_host_question_never_guesses_a_real_name(store, denpex, kb):
    """'what's on node gpu-17?' lists ranks and placeholders, and says it cannot map real names."""
    ctx = kept(store, denpex)
    text = ask_(store, denpex, kb, ctx, "what's on node gpu-17?").answer.text
    assert "gpu-17" not in text and "cannot say which" in text


def test_knowledge_base_search_names_the_explaining_entry(store, denpex, kb):
    """'what does vendor err 129 mean?' finds the InfiniBand entries that explain it."""
    ctx = kept(store, denpex)
    reply = ask_(store, denpex, kb, ctx, "what does vendor err 129 mean?")
    assert reply.answer.topic == "kb_search"
    ids = [h.rule.id for h in kb.search("what does vendor err 129 mean?")]
    assert {"nccl-ib-retry-exceeded", "nccl-ib-completion-error"} & set(ids)
    assert f"/denpex show {ids[0]}" in reply.answer.text


def test_unrecognised_question_offers_topics_and_is_free(store, denpex, kb):
    """Chatter gets the closest topics to choose from, no answer, and costs no follow-up."""
    ctx = kept(store, denpex)
    reply = ask_(store, denpex, kb, ctx, "tell me a joke")
    assert reply.answer is None and len(reply.choices) == 3
    assert store.followup_quota.take(TEAM).used == 1


def test_free_plan_limit_is_said_and_scale_is_unlimited(store, denpex, kb, clock):
    """Past the free allowance the answer says the limit and when it resets; scale has none."""
    ctx = kept(store, denpex)
    for _ in range(FREE_FOLLOWUPS_PER_DAY):
        assert not ask_(store, denpex, kb, ctx, "how do I confirm this?").limit_reached
    over = ask_(store, denpex, kb, ctx, "how do I confirm this?")
    assert over.limit_reached and "scale" in over.answer.text and "resets at" in over.answer.text
    clock.advance(days=1)
    assert not ask_(store, denpex, kb, ctx, "how do I confirm this?").limit_reached
    store.plans.grant(TEAM, Plan.SCALE.value, clock() + timedelta(days=14))
    for _ in range(FREE_FOLLOWUPS_PER_DAY + 2):
        assert not ask_(store, denpex, kb, ctx, "how do I confirm this?").limit_reached


def test_history_lists_earlier_diagnoses_of_the_entry_as_far_back_as_the_plan_reads(store, denpex, kb, clock):
    """Free reads the last 3 diagnoses and says Scale reads further; scale reads the kept 30 days."""
    ctx = kept(store, denpex)
    root = ctx.entry_ids[0]
    store.history.record(TEAM, "C0OLD", root, "CUDA OOM", "high", 3)
    for _ in range(3):
        store.history.record(TEAM, "C1", "nccl-watchdog-timeout", "Watchdog", "medium", None)
    clock.advance(days=1)
    free = ask_(store, denpex, kb, ctx, "has this happened before?").answer
    assert free.title == "Not seen before" and "last 3 diagnoses" in free.text and "scale" in free.text
    store.plans.grant(TEAM, Plan.SCALE.value, clock() + timedelta(days=14))
    ans = ask_(store, denpex, kb, ctx, "is this the same as last week's?").answer
    assert ans.title == "Seen 1 time(s) before" and "C0OLD" in ans.text and "nccl-watchdog" not in ans.text
    assert "last 30 days" in ans.text


def test_free_history_finds_a_recent_repeat(store, denpex, kb, clock):
    """On free, a repeat among the last 3 diagnoses is found, with when and where."""
    ctx = kept(store, denpex)
    store.history.record(TEAM, "C0OLD", ctx.entry_ids[0], "CUDA OOM", "high", 3)
    clock.advance(hours=2)
    ans = ask_(store, denpex, kb, ctx, "did we see this before?").answer
    assert ans.title == "Seen 1 time(s) before" and "<#C0OLD>" in ans.text and "rank 3" in ans.text


def test_an_old_record_without_matches_still_answers(store, denpex, kb):
    """A context saved before matches were kept loads, and run questions say what is missing."""
    key = keys.thread(TEAM, "C1", "1600000000.000100")
    old = {"entry_ids": ["cuda-oom"], "initiating_rank": 3, "evidence": ["OOM line"], "channel": "C1",
           "thread_ts": "1600000000.000100", "created_at": "2026-01-01T00:00:00+00:00",
           "collateral_ids": [], "collateral_ranks": [], "confidence": "high"}
    store._client.redis.set(key, json.dumps(old))
    ctx = store.threads.load(TEAM, "C1", "1600000000.000100")
    assert ctx is not None and ctx.matches == []
    assert "Rank 3" in ask_(store, denpex, kb, ctx, "which rank failed first").answer.text
    assert "before I kept" in ask_(store, denpex, kb, ctx, "what else could it be").answer.text
    assert "OOM line" in ask_(store, denpex, kb, ctx, "show me the lines").answer.text


WATCHDOG_LINE = ("[rank{r}]:[E1130 04:12:55.1182{r:02d} 330{r} ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught "
                 "collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=26214400, "
                 "NumelOut=26214400, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.")
SILENT_RANK_LOG = (
    "[rank0]:node01:3301:3350 [0] NCCL INFO comm 0x5581e0b0 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x8c3b61f2a1d00e17 - Init COMPLETE\n"
    + "\n".join(WATCHDOG_LINE.format(r=r) for r in (0, 1, 2, 4, 5, 6, 7)) + "\n"
)
# A task killed before the node failure was reported: a second cause, not srun's teardown.
SLURM_LOG = ("srun: error: gpu-a100-12: task 0: Killed\n"
             "srun: error: Node failure on gpu-a100-17\n"
             "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n")
# The same kill after the node failure: srun tearing the step down, a consequence.
SLURM_TEARDOWN_LOG = ("srun: error: Node failure on gpu-a100-17\n"
                      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
                      "srun: error: gpu-a100-12: task 0: Killed\n")


def test_silent_rank_is_explained_as_the_one_the_others_waited_for(store, denpex, kb):
    """Every rank but 3 timed out: the answer says rank 3 is missing from the timeouts."""
    ctx = kept(store, denpex, SILENT_RANK_LOG)
    ans = ask_(store, denpex, kb, ctx, "how did you decide the initiating rank?").answer
    assert ans.title == "Initiating rank: 3"
    assert "not among the ranks that timed out" in ans.text and "0-2, 4-7" in ans.text
    when = ask_(store, denpex, kb, ctx, "when did it fail").answer
    assert "04:12:55" in when.text and "E1130" not in when.text, "times are rebuilt from digits only"


def test_runner_up_says_why_it_lost_and_what_tells_them_apart(store, denpex, kb):
    """Node failure beat host OOM on confidence; both entries' first checks tell them apart."""
    ctx = kept(store, denpex, SLURM_LOG)
    assert [m.id for m in ctx.matches][:2] == ["slurm-node-failure", "host-oom-sigkill"]
    ans = ask_(store, denpex, kb, ctx, "what was the runner-up?").answer
    assert "host-oom-sigkill" in ans.text and "confidence was medium against high" in ans.text
    assert "What tells them apart" in ans.text
    assert denpex.rulebook.get("host-oom-sigkill").confirm[0] in ans.text


def test_a_consequence_is_no_runner_up_but_is_named(store, denpex, kb):
    """srun killing the tasks after the node failure fired host-oom-sigkill as collateral: the
    answer says no cause competed, and names it rather than saying nothing else fired."""
    ctx = kept(store, denpex, SLURM_TEARDOWN_LOG)
    ans = ask_(store, denpex, kb, ctx, "what was the runner-up?").answer
    assert "no runner-up" in ans.text and "`host-oom-sigkill` also fired, as a consequence" in ans.text
    assert "No other entry fired" not in ans.text


def test_real_host_names_stay_out_of_the_store_and_the_answers(store, denpex, kb, redis_dump):
    """A node name the masker replaced stays a placeholder in Redis and in every run answer.

    (`Node failure on gpu-a100-17` keeps its name today: the masker's gap, not this path's; the
    answers only ever quote what the masker let out.)"""
    ctx = kept(store, denpex, SLURM_LOG)
    texts = [ask_(store, denpex, kb, ctx, q, topic).answer.text for q, topic in
             (("what's on node gpu-a100-17?", None), ("", "evidence"), ("", "affected"), ("", "timeline"))]
    assert not any("gpu-a100-12" in t for t in texts)
    assert any("<HOST-1>" in t for t in texts), texts
    assert "gpu-a100-12" not in json.dumps(redis_dump())


def test_a_near_tie_is_answered_with_the_other_topic_offered(store, denpex, kb):
    """When two topics score almost alike the answer comes with the other as a choice."""
    ctx = kept(store, denpex)
    from bot.followup.recognizer import recognise

    for q in ("what about the timeouts on node 3", "is it the machine", "how long", "which one"):
        seen = recognise(q)
        runner = [s for t, s in seen.ranked if t not in (seen.topic, "unknown")]
        reply = ask_(store, denpex, kb, ctx, q)
        near = seen.topic != "unknown" and seen.score - runner[0] < 0.05
        assert bool(reply.choices) == (near or reply.answer is None), q


@pytest.mark.parametrize(("question", "expected"), [
    ("what does vendor err 129 mean?", "nccl-ib"),
    ("what does NCCL_SOCKET_IFNAME do", "nccl-socket-ifname"),
    ("what is cudaErrorNoKernelImageForDevice", "cuda-no-kernel-image"),
    ("what does Bus error in the dataloader mean", "dataloader-shm-bus-error"),
], ids=["vendor-err", "socket-ifname", "no-kernel-image", "bus-error"])
def test_knowledge_base_search_ranks_the_explaining_entry_first(kb, question, expected):
    """The entry that explains the term comes first."""
    hits = kb.search(question)
    assert hits and hits[0].rule.id.startswith(expected), [(h.rule.id, round(h.score, 2)) for h in hits]


def test_collateral_answer_puts_the_named_entry_first_and_says_when_it_did_not_fire(store, denpex, kb):
    """'why not the ChildFailedError' leads with that entry; an entry that never fired is said to be absent."""
    ctx = kept(store, denpex)
    named = ask_(store, denpex, kb, ctx, "why not the ChildFailedError?").answer
    assert named.text.startswith("• *torchrun ChildFailedError")
    absent = ask_(store, denpex, kb, ctx, "why isn't it the dataloader timeout?").answer
    assert absent.title.endswith("did not fire") and "`dataloader-timeout`" in absent.text


@pytest.mark.parametrize(("entry", "question", "expected"), [
    ("nccl-socket-ifname", "does this happen on NCCL 2.21?", "What the entry says about NCCL 2.21"),
    ("nccl-rocev2-gid-index", "does this happen on NCCL 2.21?", "applies to NCCL 2.x as a whole"),
    ("cuda-oom", "does this happen on NCCL 2.21?", "does not mention NCCL 2.21"),
    ("cuda-oom", "which versions are affected?", "Where the entry says it applies"),
], ids=["named", "series", "absent", "no-version"])
def test_version_questions_say_what_the_entry_says_and_no_more(denpex, entry, question, expected):
    """A version asked about is quoted where the entry names it, covered by an N.x series, or said to be absent."""
    from bot.followup.entry_answers import answer

    assert expected in answer("versions", question, denpex.rulebook.get(entry)).text


def test_a_wrapper_runner_up_lost_on_its_role(store, denpex, kb):
    """A wrapper entry (torchrun's ChildFailedError) loses to any cause or consequence: the answer says that, not a score."""
    from bot.masking import mask
    from bot.store.threads import KeptLine, KeptMatch

    line = KeptLine(1, 1, mask("[Rank 1] Watchdog caught collective operation timeout").text)
    ctx = ThreadContext(
        entry_ids=["nccl-watchdog-timeout", "elastic-child-failed"], initiating_rank=5, evidence=[line.text],
        channel="C1", thread_ts="1.1", created_at="2026-11-30T12:00:00+00:00",
        matches=[KeptMatch("nccl-watchdog-timeout", "Watchdog", "root", "medium", 0.6, [1, 6], [line]),
                 KeptMatch("elastic-child-failed", "ChildFailedError", "root", "medium", 0.7, [], [])],
    )
    ans = ask_(store, denpex, kb, ctx, "what was the runner-up?").answer
    assert "lost because it is a wrapper entry" in ans.text
    assert "not among the ranks that timed out waiting in a collective (1, 6)" in ask_(store, denpex, kb, ctx, "which rank failed first").answer.text


def test_named_evidence_and_collateral_order(store, denpex, kb):
    """'show me the watchdog lines' quotes that match's lines; collateral says it began after the cause."""
    ctx = kept(store, denpex)
    lines = ask_(store, denpex, kb, ctx, "show me the watchdog timeout lines").answer
    assert lines.title == "The lines that matched nccl-watchdog-timeout" and "Watchdog caught" in lines.text
    coll = ask_(store, denpex, kb, ctx, "why isn't it the watchdog timeout?").answer
    assert "from line 20 (after the cause's line 19)" in coll.text


# DeepSpeed over pdsh, 2 hosts x 4 GPUs; worker-1's local rank 2 (global 6) runs out of memory and
# its launcher names it by `--local_rank=2`; worker-0's ranks time out waiting (deepspeed/launcher/launch.py
# and torch 2.0 ProcessGroupNCCL formats).
PDSH_LOG = "".join(
    f"{host}: [2024-03-12 09:14:02,511] [INFO] [launch.py:151:main] nnodes=2, num_local_procs=4, node_rank={n}\n"
    f"{host}: [2024-03-12 09:14:02,512] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, "
    "{'worker-0': [0, 1, 2, 3], 'worker-1': [4, 5, 6, 7]})\n"
    for n, host in enumerate(("worker-0", "worker-1"))
) + (
    "worker-1: Traceback (most recent call last):\n"
    'worker-1:   File "/home/user/train.py", line 190, in main\n'
    "worker-1:     model_engine.backward(loss)\n"
    "worker-1: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 2; 79.15 GiB total "
    "capacity; 75.02 GiB already allocated; 1.21 GiB free; 76.80 GiB reserved in total by PyTorch)\n"
    "worker-1: [2024-03-12 09:31:41,402] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', "
    "'train.py', '--local_rank=2', '--deepspeed', 'ds_config.json'] exits with return code = 1\n"
) + "".join(
    f"worker-0: [E ProcessGroupNCCL.cpp:828] [Rank {r}] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=5123, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800374 milliseconds before timing out.\n"
    for r in range(4)
)  # fmt: skip


def test_the_rank_answer_names_the_launcher_and_the_hosts_offset(store, denpex, kb):
    """The kept basis says how rank 6 was told: worker-1's launcher named local rank 2, and the
    host's ranks start at 4 (not a guess from the kept lines)."""
    ctx = kept(store, denpex, PDSH_LOG)
    assert (ctx.initiating_rank, ctx.rank_basis) == (6, "launcher_first_failure+host_offset")
    ans = ask_(store, denpex, kb, ctx, "how did you decide the initiating rank?").answer
    assert ans.title == "Initiating rank: 6"
    assert "launcher reported it as the first worker that failed" in ans.text
    assert "global_rank_mapping" in ans.text and "global rank 6" in ans.text


def test_the_rank_answer_follows_the_kept_basis_not_the_lines(store, denpex, kb):
    """The same kept lines with another recorded basis give that basis's explanation."""
    ctx = kept(store, denpex)
    assert ctx.rank_basis is not None
    by_time = replace(ctx, rank_basis="root_first_timestamp")
    text = ask_(store, denpex, kb, by_time, "which rank failed first?").answer.text
    assert "by timestamp" in text and "only rank" not in text
    unknown = replace(ctx, rank_basis="a_basis_of_a_later_release")
    assert ask_(store, denpex, kb, unknown, "which rank failed first?").answer.text == ask_(
        store, denpex, kb, replace(ctx, rank_basis=None), "which rank failed first?").answer.text  # fmt: skip
