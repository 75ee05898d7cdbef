"""Questions about this run, answered from the masked diagnosis kept for the thread only:
the initiating rank and how it was told, the evidence lines, why the collateral is not the
cause, the runner-up and what tells them apart, the ranks and hosts affected, the timeline.

Everything quoted comes from `ThreadContext` (masked lines, host placeholders); the entries'
own texts come from the rulebook. Where the kept diagnosis does not say, the answer says so.
"""

from __future__ import annotations

from bot.followup.entry_answers import Answer
from bot.followup.kb_search import KbIndex, named_entries
from bot.matcher.rulebook import Rule, Rulebook
from bot.report import ranks_text
from bot.store.threads import KeptLine, KeptMatch, ThreadContext

MAX_LINES = 8


def _root(ctx: ThreadContext) -> KeptMatch | None:
    return ctx.matches[0] if ctx.matches else None


def _line(e: KeptLine) -> str:
    where = [f"line {e.line}"]
    if e.rank is not None:
        where.append(f"rank {e.rank}")
    if e.host:
        where.append(str(e.host))
    if e.time:
        where.append(e.time)
    # A log line's own ``` would close the code block it is quoted in: grave look-alikes instead.
    return f"{' · '.join(where)}: {e.text.strip()[:300].replace('`', 'ˋ')}"


def _block(lines: list[KeptLine]) -> str:
    return "```\n" + "\n".join(_line(e) for e in lines[:MAX_LINES]) + "\n```"


def _old_record(ctx: ThreadContext) -> Answer | None:
    if ctx.matches:
        return None
    return Answer("not_kept", "Not kept for this thread",
                  "This thread was diagnosed before I kept the details of the run (ranks, hosts, "
                  "times, other matches). Paste the log again for a diagnosis that can answer this.")


def initiating_rank(ctx: ThreadContext, book: Rulebook) -> Answer:
    root = _root(ctx)
    rank = ctx.initiating_rank
    if rank is None:
        text = ("No rank could be told apart as the first to fail: the lines that show the failure "
                "carry no rank, or every rank failed alike.")
        if root and root.ranks:
            text += f" The failure shows on ranks {ranks_text(root.ranks)}."
        return Answer("initiating_rank", "Initiating rank: unknown", text)
    text = f"Rank {rank} failed first. " + _rank_basis(ctx, rank, book)
    own = [e for e in (root.evidence if root else []) if e.rank == rank]
    if own:
        text += "\n" + _block(own)
    return Answer("initiating_rank", f"Initiating rank: {rank}", text)


def _rank_basis(ctx: ThreadContext, rank: int, book: Rulebook) -> str:
    """How the rank was told: what the matcher recorded (`rank_basis`), else, for records kept
    before it did, as far as the kept diagnosis shows it."""
    if ctx.rank_basis:
        told = _recorded_basis(ctx, rank, book)
        if told is not None:
            return told
    return _reconstructed_basis(ctx, rank, book)


def _waiting(ctx: ThreadContext, book: Rulebook) -> list[int]:
    """Ranks that only show consequences: the root's own when it is a consequence, else collateral's."""
    root = _root(ctx)
    rule = book.get(root.id) if root else None
    if root is not None and rule is not None and rule.role == "consequence":
        return list(root.ranks)
    return sorted({r for m in ctx.matches[1:] if m.role == "collateral" for r in m.ranks} | set(ctx.collateral_ranks))


_OFFSET_TEXT = {
    "host_offset": (" The log names it by its local rank on its host (the pdsh prefix before each line); "
                    "DeepSpeed's launcher lines there (`global_rank_mapping`, `node_rank`) give where that "
                    "host's ranks start, added to make it global rank {rank}."),
    "node_offset": (" The log names it by its local rank on its node; the node's first global rank, which the "
                    "log states (torchrun's rendezvous lines, `group_rank`, `node_rank`), was added to make it "
                    "global rank {rank}."),
}  # fmt: skip


def _recorded_basis(ctx: ThreadContext, rank: int, book: Rulebook) -> str | None:
    """The matcher's own reason (`bot.matcher.model.RANK_BASES`) in words; None for one it does not know."""
    basis, _, offset = (ctx.rank_basis or "").partition("+")
    root = _root(ctx)
    title = root.title if root else "the error"
    shown = f" (ranks {ranks_text(root.ranks)})" if root and root.ranks else ""
    waiting = [r for r in _waiting(ctx, book) if r != rank]
    others = f"; ranks {ranks_text(waiting)} only show the consequences (collateral)" if waiting else ""
    texts = {
        "root_only_rank": f"It is the only rank whose lines show {title}{others}.",
        "root_first_timestamp": f"Several ranks show {title}{shown}; by timestamp, rank {rank}'s line is the earliest.",
        "root_first_line": (f"Several ranks show {title}{shown}; rank {rank}'s came first in the log (the lines carry "
                            "no timestamps that compare)."),
        "elastic_first_failure": ("torchelastic's failure summary names it as the root cause (\"first observed "
                                  f"failure\"){others}."),
        "ray_pid": "The cause's line came from a Ray actor whose pid Ray Train's process-group line gave this rank.",
        "nccl_init_pid": ("The cause's line carries NCCL's `host:pid` prefix, and NCCL's init line for that process "
                          "(`Init COMPLETE`) gave it this rank."),
        "spawn_process": "torch.multiprocessing.spawn reported this process as the one that terminated with the error.",
        "silent_rank": (f"It is not among the ranks that timed out waiting in a collective"
                        f"{f' ({ranks_text(waiting)})' if waiting else ''}, the one rank missing from an otherwise "
                        "complete set: they were waiting for a rank that had already stopped."),
        "launcher_first_failure": ("The launcher reported it as the first worker that failed (torchelastic's agent "
                                   f"line, or `--local_rank=N` in the launcher's exit line){others}."),
        "gpu_index": ("The cause's lines carry no rank, but the CUDA out-of-memory message names its GPU; with one "
                      "process per GPU the device index is the rank."),
        "first_own_error": f"It is the first rank with its own traceback (not a launcher's){others}.",
        "first_error_line": "No traceback names a rank; the first error line, the one quoted, is this rank's own.",
        "lowest_seq": ("Its collective sequence number is behind the other ranks': it stopped issuing collectives "
                       "first, and the others waited for it."),
        "only_rank_in_log": ("The cause's lines carry no rank, but every rank-prefixed line in the log is this "
                             "rank's and nothing names another: the process that failed is this one."),
    }  # fmt: skip
    text = texts.get(basis)
    if text is None or (offset and offset not in _OFFSET_TEXT):
        return None
    return text + (_OFFSET_TEXT[offset].format(rank=rank) if offset else "")


def _reconstructed_basis(ctx: ThreadContext, rank: int, book: Rulebook) -> str:
    """How the rank was told, as far as the kept matches show it (records without `rank_basis`)."""
    root = _root(ctx)
    if root is None:
        return "(how it was told is not kept for this thread)."
    rule = book.get(root.id)
    if rule is not None and rule.role == "consequence" and root.ranks and rank not in root.ranks:
        return (f"It is not among the ranks that timed out waiting in a collective ({ranks_text(root.ranks)}): "
                "they were waiting for a rank that had already stopped.")
    timed = [e for e in root.evidence if e.time and e.rank is not None]
    if len({e.rank for e in timed}) > 1:
        first = min(timed, key=lambda e: e.time or "")
        if first.rank == rank:
            return f"By time: its line at {first.time} is the earliest line of the root cause on any rank."
    waiting = sorted({r for m in ctx.matches[1:] if m.role == "collateral" for r in m.ranks} | set(ctx.collateral_ranks))
    if root.ranks == [rank]:
        basis = f"It is the only rank whose lines show {root.title}"
        if waiting:
            basis += f"; ranks {ranks_text(waiting)} only show the consequences (collateral)"
        return basis + "."
    if waiting and rank not in waiting:
        return (f"Ranks {ranks_text(waiting)} timed out or were torn down waiting; rank {rank} is the one "
                "that did not, so the others were waiting for it.")
    if rank in root.ranks:
        return f"Several ranks show {root.title} (ranks {ranks_text(root.ranks)}); rank {rank}'s came first in the log."
    return "It is the rank the launcher or the log's own error lines name as the first failure."


def evidence(ctx: ThreadContext, book: Rulebook, kb: KbIndex, question: str = "") -> Answer:
    root = _root(ctx)
    # "show me the watchdog lines": the lines of the match the question names, if it fired.
    named = {r.id for r in named_entries(kb, question)} if question else set()
    chosen = next((m for m in ctx.matches if m.id in named and m.evidence), None)
    if chosen is not None and chosen is not root:
        return Answer("evidence", f"The lines that matched {chosen.id}", _block(chosen.evidence))
    lines = root.evidence if root else []
    if not lines and ctx.evidence:
        return Answer("evidence", "The lines that matched",
                      "```\n" + "\n".join(e.strip()[:300] for e in ctx.evidence[:MAX_LINES]) + "\n```")
    if not lines:
        return Answer("evidence", "The lines that matched", "No evidence lines were kept for this thread.")
    return Answer("evidence", f"The lines that matched {root.id}", _block(lines))


def _named_absent(ctx: ThreadContext, kb: KbIndex, question: str) -> Rule | None:
    """The entry a question names by its id's words ("why isn't it the watchdog timeout?"),
    when that entry did not fire on this log at all."""
    fired = {m.id for m in ctx.matches} | set(ctx.entry_ids) | set(ctx.collateral_ids)
    named = named_entries(kb, question)
    if named and named[0].id not in fired:
        return named[0]
    return None


def collateral(ctx: ThreadContext, book: Rulebook, kb: KbIndex, question: str = "") -> Answer:
    old = _old_record(ctx)
    root = _root(ctx)
    coll = [m for m in ctx.matches if m.role == "collateral"]
    absent = _named_absent(ctx, kb, question) if question else None
    if absent is not None:
        root_title = root.title if root else ctx.entry_ids[0]
        return Answer("collateral", f"{absent.title} did not fire",
                      f"`{absent.id}` ({absent.title}) did not match anything in this log: none of its signature "
                      f"lines are there, so it is neither the cause nor collateral here. The cause found is {root_title}. "
                      f"`/denpex show {absent.id}` shows what it looks like.")
    if old is not None and not ctx.collateral_ids:
        return old
    if not coll and not ctx.collateral_ids:
        return Answer("collateral", "Collateral", "Nothing else fired as a consequence in this log: only "
                      f"{root.title if root else ctx.entry_ids[0]} and its evidence.")
    out = []
    root_id = root.id if root else ctx.entry_ids[0]
    # The entry the question names first ("why isn't it the watchdog timeout?").
    named = [r.id for r in named_entries(kb, question)] if question else []
    coll.sort(key=lambda m: named.index(m.id) if m.id in named else len(named))
    for m in coll or [KeptMatch(i, i, "collateral", "low", 0.0, []) for i in ctx.collateral_ids]:
        rule = book.get(m.id)
        title = rule.title if rule else m.title
        ranks = f" on ranks {ranks_text(m.ranks)}" if m.ranks else ""
        ranks += _after(root, m)
        if rule is not None and root_id in rule.collateral_of:
            why = f"the entry knows it as a consequence of {root_id}"
        elif rule is not None and rule.role == "consequence":
            why = ("it is what every rank prints while it waits for a rank that already failed; a specific "
                   "cause was found, so the waiting is its effect")
        elif rule is not None and rule.role == "wrapper":
            why = "it is a launcher's wrapper reporting that a worker failed; it points at the first failure"
        else:
            why = "it fired after the root cause, on ranks the root cause had already stopped"
        out.append(f"• *{title}* (`{m.id}`){ranks}: not the cause, {why}.")
    return Answer("collateral", "Why the other errors are not the cause", "\n".join(out))


def _after(root: KeptMatch | None, m: KeptMatch) -> str:
    """`, from line 20 (after the cause's line 19)` when the kept lines show the order."""
    if root is None or not root.evidence or not m.evidence:
        return ""
    first_root = min(e.line for e in root.evidence)
    first = min(e.line for e in m.evidence)
    order = "after" if first > first_root else "before"
    return f", from line {first} ({order} the cause's line {first_root})"


def runner_up(ctx: ThreadContext, book: Rulebook) -> Answer:
    old = _old_record(ctx)
    if old is not None:
        return old
    root = ctx.matches[0]
    others = [m for m in ctx.matches[1:] if m.role == "root"]
    if not others:
        related = book.get(root.id).related if book.get(root.id) else ()
        fired = [m.id for m in ctx.matches[1:]]
        if fired:
            # Others fired, but each as a consequence of this cause (collateral): none competed.
            text = ("No other cause competed: the diagnosis had no runner-up. "
                    + ", ".join(f"`{i}`" for i in fired[:5])
                    + (" also fired, as consequences of this failure (ask why they are not the cause)."
                       if len(fired) > 1 else " also fired, as a consequence of this failure (ask why it is not the cause)."))
        else:
            text = "No other entry fired on this log: the diagnosis had no runner-up."
        if related:
            text += " Entries that look alike, from the knowledge base: " + ", ".join(f"`{r}`" for r in related[:5]) + "."
        return Answer("runner_up", "Runner-up", text)
    out = []
    root_rule = book.get(root.id)
    # The matcher's order (bot/matcher/verdict.py): a root cause before a consequence before a
    # wrapper, then the more certain, then the first to happen.
    role_order = {"root": 0, "consequence": 1, "wrapper": 2}
    root_role = root_rule.role if root_rule else "root"
    for m in others[:3]:
        rule = book.get(m.id)
        role = rule.role if rule else "root"
        if role_order.get(role, 0) > role_order.get(root_role, 0):
            lost = (f"it is a {role} entry (it reports what followed a failure), and a {root_role} entry "
                    "that fired always goes first")
        elif m.confidence != root.confidence:
            lost = f"its confidence was {m.confidence} against {root.confidence}"
        else:
            first_root = min((e.line for e in root.evidence), default=None)
            first_other = min((e.line for e in m.evidence), default=None)
            if first_root is not None and first_other is not None and first_other > first_root:
                lost = f"both were {m.confidence} confidence; its first line ({first_other}) came after the root cause's ({first_root})"
            else:
                lost = f"both were {m.confidence} confidence; it scored {m.score:.2f} against {root.score:.2f}"
        out.append(f"• *{m.title}* (`{m.id}`): lost because {lost}.")
        tells = []
        if root_rule and root_rule.confirm:
            tells.append(f"{root.id}: {root_rule.confirm[0]}")
        if rule and rule.confirm:
            tells.append(f"{m.id}: {rule.confirm[0]}")
        if tells:
            out.append("  What tells them apart:\n" + "\n".join(f"    – {t}" for t in tells))
    return Answer("runner_up", "The runner-up and why it lost", "\n".join(out))


def affected(ctx: ThreadContext, book: Rulebook, question: str = "") -> Answer:
    old = _old_record(ctx)
    if old is not None and ctx.initiating_rank is None and not ctx.collateral_ranks:
        return old
    out = []
    for m in ctx.matches[:6]:
        ranks = f"ranks {ranks_text(m.ranks)}" if m.ranks else "no rank known"
        out.append(f"• {m.title} (`{m.id}`, {m.role}): {ranks}")
    if not ctx.matches and ctx.collateral_ranks:
        out.append(f"• collateral on ranks {ranks_text(ctx.collateral_ranks)}")
    hosts: dict[str, set[int]] = {}
    for m in ctx.matches:
        for e in m.evidence:
            if e.host:
                hosts.setdefault(str(e.host), set()).update([e.rank] if e.rank is not None else [])
    if hosts:
        out.append("Hosts in the evidence: " + "; ".join(
            f"{h} (ranks {ranks_text(sorted(r))})" if r else h for h, r in sorted(hosts.items())))
    else:
        out.append("No host names appear in the evidence lines.")
    out.append("Host names are masked in what I keep (placeholders such as <HOST-1>), so I cannot say which "
               "placeholder a real name like the one you asked about is; the evidence lines show which rank each host ran.")
    return Answer("affected", "Ranks and hosts affected", "\n".join(out))


def timeline(ctx: ThreadContext, book: Rulebook) -> Answer:
    old = _old_record(ctx)
    if old is not None:
        return old
    out = []
    for m in ctx.matches[:6]:
        timed = [e for e in m.evidence if e.time]
        first = min(timed, key=lambda e: e.time or "") if timed else (min(m.evidence, key=lambda e: e.line) if m.evidence else None)
        if first is None:
            continue
        at = f" at {first.time}" if first.time else ""
        rank = f" (rank {first.rank})" if first.rank is not None else ""
        out.append(f"• {m.title} (`{m.id}`, {m.role}): first at line {first.line}{at}{rank}")
    if not any(e.time for m in ctx.matches for e in m.evidence):
        out.append("The evidence lines carry no timestamps: the order above is the order in the log.")
    if ctx.lines is not None and ctx.elapsed_ms is not None:
        out.append(f"The log had {ctx.lines:,} lines; the diagnosis took {ctx.elapsed_ms} ms.")
    return Answer("timeline", "When it happened", "\n".join(out) or "No times were kept for this thread.")


def answer_run(topic: str, question: str, ctx: ThreadContext, book: Rulebook, kb: KbIndex) -> Answer:
    """The answer to a run topic (bot.followup.topics, source "run")."""
    if topic == "affected":
        return affected(ctx, book, question)
    if topic == "collateral":
        return collateral(ctx, book, kb, question)
    if topic == "evidence":
        return evidence(ctx, book, kb, question)
    return {"initiating_rank": initiating_rank, "runner_up": runner_up, "timeline": timeline}[topic](ctx, book)
