"""The follow-up use case: a question (or a topic button) in a diagnosis thread in, an answer
or a choice of topics out, counted against the workspace's follow-up allowance.

It knows neither Slack nor Redis details: the store comes in as `FollowupStore`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

from bot.followup.entry_answers import Answer, answer
from bot.followup.history_answers import HistoryReader, answer_history, parse_created
from bot.followup.kb_search import KbIndex
from bot.followup.recognizer import recognise
from bot.followup.run_answers import answer_run
from bot.followup.topics import BY_NAME, UNKNOWN, Topic
from bot.matcher.rulebook import Rule, Rulebook
from bot.store.threads import ThreadContext

CHOICES = 3
# A recognised topic this close to the next one is answered, with the next offered beside it.
NEAR_MARGIN = 0.05


class FollowupStore(Protocol):
    @property
    def followup_quota(self) -> Any: ...
    @property
    def history(self) -> HistoryReader: ...


@dataclass(frozen=True)
class FollowUp:
    """What to post: an answer, or (answer None) the closest topics to choose from."""

    rule: Rule | None  # None in the thread of a log no entry matched
    answer: Answer | None
    choices: list[Topic] = field(default_factory=list)
    limit_reached: bool = False
    resets_at: datetime | None = None
    counted: date | None = None  # the day this answer was counted on, to refund if it is not posted


def limit_answer(used: int, resets_at: datetime) -> Answer:
    return Answer("limit", "Daily follow-up limit reached",
                  f"This workspace has asked its {used} follow-up questions for today on the *free* plan. Follow-ups "
                  f"beyond that are a *scale* feature; the count resets at {resets_at:%H:%M} UTC. Redeem an evaluation "
                  "code with `/denpex redeem <code>`. The diagnosis above, and `/denpex show`, stay available.")


def ask(book: Rulebook, kb: KbIndex, store: FollowupStore, team_id: str, ctx: ThreadContext,
        question: str, topic: str | None = None) -> FollowUp | None:
    """Answer `question` (or the `topic` a button chose) in the thread of `ctx`; None when the
    thread's entry no longer exists."""
    if not ctx.entry_ids:
        # The thread of a log no entry matched: nothing to answer from, but the asker is told
        # what helps (free: no entry's answer is given).
        return FollowUp(None, unmatched_answer(kb, question))
    rule = book.get(ctx.entry_ids[0])
    if rule is None:
        return None
    near: list[Topic] = []
    if topic is None or topic not in BY_NAME:
        seen = recognise(question)
        if seen.topic == UNKNOWN:
            return FollowUp(rule, None, [BY_NAME[t] for t in seen.closest(CHOICES)])
        topic = seen.topic
        runner = [(t, s) for t, s in seen.ranked if t not in (topic, UNKNOWN)]
        if runner and seen.score - runner[0][1] < NEAR_MARGIN:
            near = [BY_NAME[runner[0][0]]]
    allowance = store.followup_quota.take(team_id)
    if not allowance.allowed:
        return FollowUp(rule, limit_answer(allowance.used, allowance.resets_at), limit_reached=True,
                        resets_at=allowance.resets_at)
    text = _answer(book, kb, store, team_id, allowance.plan, ctx, rule, topic, question)
    return FollowUp(rule, text, near, counted=allowance.day if allowance.counted else None)


def _answer(book: Rulebook, kb: KbIndex, store: FollowupStore, team_id: str, plan: str, ctx: ThreadContext,
            rule: Rule, topic: str, question: str) -> Answer:
    source = BY_NAME[topic].source
    if source == "run":
        return answer_run(topic, question, ctx, book, kb)
    if source == "kb":
        return kb_answer(kb, question, rule)
    if source == "history":
        return answer_history(store.history, team_id, plan, rule.id, rule.title, ctx.channel,
                              parse_created(ctx.created_at))
    titles = {rid: r.title for rid in rule.related if (r := book.get(rid))}
    return answer(topic, question, rule, titles)


UNMATCHED_HELP = (
    "No entry matched this log, so there is no diagnosis here to answer from. What usually helps: paste the "
    "first error the failing rank printed, with its whole traceback (the last lines of a log are often other "
    "ranks timing out), or look an error line up with `/denpex <the error line>`."
)


def unmatched_answer(kb: KbIndex, question: str) -> Answer:
    """A question in the thread of an unmatched log: what helps, and the entries it names, if any."""
    hits = kb.search(question)
    if not hits:
        return Answer("unmatched", "Nothing diagnosed in this thread", UNMATCHED_HELP)
    lines = [UNMATCHED_HELP, "", "Entries that mention what you asked about:"]
    lines += [f"• *{h.rule.title}* (`{h.rule.id}`) · `/denpex show {h.rule.id}`" for h in hits]
    return Answer("unmatched", "Nothing diagnosed in this thread", "\n".join(lines))


def kb_answer(kb: KbIndex, question: str, diagnosed: Rule) -> Answer:
    hits = kb.search(question)
    if not hits:
        return Answer("kb_search", "Nothing in the knowledge base",
                      "No entry mentions what you asked about. Try `/denpex <the error line>` to look it up.")
    lines = []
    for h in hits:
        mark = " (the entry diagnosed here)" if h.rule.id == diagnosed.id else ""
        lines.append(f"• *{h.rule.title}* (`{h.rule.id}`){mark}: {h.rule.summary.strip()[:300]}\n"
                     f"  mentions {', '.join(h.terms)} · `/denpex show {h.rule.id}`")
    return Answer("kb_search", "From the knowledge base", "\n".join(lines))
