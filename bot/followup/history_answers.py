"""'Has this happened before?': the workspace's earlier diagnoses of the same entry.

History (bot/store/history.py) keeps entry ids, titles, confidence, channel and time, never
log text. How far back an answer looks follows the plan, as the Home tab's list does: the
workspace's last 3 diagnoses on free (and the answer says that Scale looks further), the whole
kept history (30 days, at most 100) on scale.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

from bot.followup.entry_answers import Answer
from bot.store.config import Plan
from bot.store.history import HistoryEntry

# Diagnoses read back, by plan (bot/slack/listeners/home.py shows as many on the Home tab).
LOOK_BACK = {Plan.FREE.value: 3, Plan.SCALE.value: 100}
SHOWN = 5
# The diagnosis of this very thread is in the history too: within this long of it, same
# channel, it is that one, not an earlier occurrence.
_SAME_DIAGNOSIS = timedelta(minutes=2)


class HistoryReader(Protocol):
    def recent(self, team_id: str, n: int) -> list[HistoryEntry]: ...


def answer_history(history: HistoryReader, team_id: str, plan: str, entry_id: str, title: str,
                   channel: str, diagnosed_at: datetime | None) -> Answer:
    look_back = LOOK_BACK.get(plan, LOOK_BACK[Plan.FREE.value])
    # Public channels' diagnoses only (no viewer): the answer is posted in a thread that
    # others read, and a DM's or private channel's diagnosis is its asker's alone.
    earlier = [e for e in history.recent(team_id, look_back)
               if e.entry_id == entry_id and not _is_this_one(e, channel, diagnosed_at)]
    limited = look_back < LOOK_BACK[Plan.SCALE.value]
    scope = (f"among this workspace's last {look_back} diagnoses (the *{plan}* plan looks no further; the *scale* "
             "plan answers from the last 30 days: `/denpex redeem <code>`)") if limited else "in the last 30 days"
    if not earlier:
        return Answer("history", "Not seen before", f"No earlier diagnosis of `{entry_id}` ({title}) {scope}.")
    lines = [f"• {e.when:%Y-%m-%d %H:%M} UTC in <#{e.channel}> ({e.confidence} confidence"
             + (f", rank {e.initiating_rank}" if e.initiating_rank is not None else "") + ")" for e in earlier[:SHOWN]]
    more = f"\n…and {len(earlier) - SHOWN} more." if len(earlier) > SHOWN else ""
    return Answer("history", f"Seen {len(earlier)} time(s) before",
                  f"`{entry_id}` ({title}) was diagnosed here before, {scope}:\n" + "\n".join(lines) + more)


def _is_this_one(e: HistoryEntry, channel: str, at: datetime | None) -> bool:
    return at is not None and e.channel == channel and abs(e.when - at) <= _SAME_DIAGNOSIS


def parse_created(created_at: str) -> datetime | None:
    try:
        return datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return None



