"""The follow-up topics the bot can answer, and what a button for each says.

A topic is answered from one source: the diagnosed entry's text (`entry`), the diagnosis kept
for the thread (`run`), the whole knowledge base (`kb`) or the workspace's history
(`history`). Recognition (bot.followup.recognizer) maps a question to one of these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Source = Literal["entry", "run", "kb", "history"]


@dataclass(frozen=True)
class Topic:
    name: str
    source: Source
    label: str  # a button's text: what the user gets by clicking it


TOPICS: tuple[Topic, ...] = (
    Topic("fix", "entry", "How do I fix it?"),
    Topic("confirm", "entry", "How do I confirm it?"),
    Topic("why", "entry", "Why did it happen?"),
    Topic("code", "entry", "Code for my stack"),
    Topic("related", "entry", "Related entries"),
    Topic("hardware_or_software", "entry", "Hardware or software?"),
    Topic("fix_time", "entry", "How long does the fix take?"),
    Topic("inference_impact", "entry", "Does it affect inference?"),
    Topic("recurrence", "entry", "Will it come back?"),
    Topic("monitor", "entry", "What should I monitor?"),
    Topic("scale", "entry", "How does it scale?"),
    Topic("docs", "entry", "Where are the docs?"),
    Topic("next_checks", "entry", "What if it's not this?"),
    Topic("cheapest_check", "entry", "Cheapest check"),
    Topic("versions", "entry", "Which versions are affected?"),
    Topic("constraints", "entry", "Fix without changing the env"),
    Topic("initiating_rank", "run", "Which rank failed first?"),
    Topic("evidence", "run", "Show me the lines"),
    Topic("collateral", "run", "Why not the other errors?"),
    Topic("runner_up", "run", "What else could it be?"),
    Topic("affected", "run", "Which ranks and hosts?"),
    Topic("timeline", "run", "When did it happen?"),
    Topic("kb_search", "kb", "Search the knowledge base"),
    Topic("history", "history", "Has this happened before?"),
)
BY_NAME: dict[str, Topic] = {t.name: t for t in TOPICS}
UNKNOWN = "unknown"
