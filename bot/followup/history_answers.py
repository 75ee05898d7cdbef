"""'Has this happened before?': the workspace's earlier diagnoses of the same entry.

History (bot/store/history.py) keeps entry ids, titles, confidence, channel and time, never
log text. Answered on the plans in HISTORY_PLANS; on others the answer says it is a Scale
feature rather than pretending nothing happened.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

from bot.followup.entry_answers import Answer
from bot.store.config import Plan
from bot.store.history import HistoryEntry

HISTORY_PLANS = frozenset({Plan.SCALE.value})
LOOK_BACK = 100  # records read (the store keeps at most history_max = 100, 30 days)
SHOWN = 5
# The diagnosis of this very thread is in the history too: within this long of it, same
# channel, it is that one, not an earlier occurrence.
_SAME_DIAGNOSIS = timedelta(minutes=2)


class HistoryReader(Protocol):
    def recent(self, team_id: str, n: int) -> list[HistoryEntry]: ...


def answer_history(history: HistoryReader, team_id: str, plan: str, entry_id: str, title: str,
                   channel: str, diagnosed_at: datetime | None) -> Answer:
    if plan not in HISTORY_PLANS:
        return Answer("history", "History is a Scale feature",
                      f"Answers from the workspace's diagnosis history come with the *scale* plan (this workspace is on "
                      f"*{plan}*). Redeem an evaluation code with `/denpex redeem <code>`; the Home tab lists your "
                      "latest diagnoses meanwhile.")
    earlier = [e for e in history.recent(team_id, LOOK_BACK)
               if e.entry_id == entry_id and not _is_this_one(e, channel, diagnosed_at)]
    if not earlier:
        return Answer("history", "Not seen before",
                      f"No earlier diagnosis of `{entry_id}` ({title}) in this workspace's history (last 30 days).")
    lines = [f"• {e.when:%Y-%m-%d %H:%M} UTC in <#{e.channel}> ({e.confidence} confidence"
             + (f", rank {e.initiating_rank}" if e.initiating_rank is not None else "") + ")" for e in earlier[:SHOWN]]
    more = f"\n…and {len(earlier) - SHOWN} more." if len(earlier) > SHOWN else ""
    return Answer("history", f"Seen {len(earlier)} time(s) before",
                  f"`{entry_id}` ({title}) was diagnosed here before:\n" + "\n".join(lines) + more)


def _is_this_one(e: HistoryEntry, channel: str, at: datetime | None) -> bool:
    return at is not None and e.channel == channel and abs(e.when - at) <= _SAME_DIAGNOSIS


def parse_created(created_at: str) -> datetime | None:
    try:
        return datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return None



