"""Consecutive messages by one person in one place, gathered into one log (a debounce).

A long log pasted as several messages arrives as several events, possibly on different
replicas. Each part joins its place's burst and gets a sequence number; whoever joined last
and still is last after a quiet moment closes the burst and answers for all of it, so the
parts give one diagnosis and one charge. Parts are kept as masked text only (the log itself
is never stored), for a few seconds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.masking.masked import MaskedText, require_masked
from bot.store import keys
from bot.store.client import RedisClient, guarded

# Adds one part to a place's burst.
# KEYS[1]  the burst's parts (list of JSON [ts, thread_ts, masked text, strong])
# KEYS[2]  the burst's sequence number (string: the number of the last part to join)
# ARGV[1]  the part as JSON  ARGV[2] lifetime of the burst, ms
# Returns the part's sequence number.
_JOIN_LUA = """
redis.call('RPUSH', KEYS[1], ARGV[1])
local seq = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return seq
"""

# Closes a burst if the caller's part is still the last one, handing back every part.
# KEYS[1]  the burst's parts  KEYS[2] its sequence number
# ARGV[1]  the caller's sequence number
# Returns the parts (JSON strings) when closed, false when a later part joined, 0 when the
# burst expired before its closer came (a closer delayed past the burst's lifetime).
_CLOSE_LUA = """
local seq = redis.call('GET', KEYS[2])
if not seq then
  return 0
end
if seq ~= ARGV[1] then
  return false
end
local parts = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1], KEYS[2])
return parts
"""


# Takes a burst for a message that answers for it (the log file its words announced, or the
# full log after a pasted excerpt): the parts are handed back and the burst's closer finds a
# later number, so it answers nothing.
# KEYS[1]  the burst's parts  KEYS[2] its sequence number
# Returns the parts (JSON strings) when taken, false when no burst is open.
_TAKE_LUA = """
if not redis.call('GET', KEYS[2]) then
  return false
end
local parts = redis.call('LRANGE', KEYS[1], 0, -1)
if #parts == 0 then
  return false
end
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
return parts
"""


@dataclass(frozen=True)
class Part:
    ts: str
    thread_ts: str
    text: MaskedText
    # Does the part look like a log by itself? A burst of weak parts only (a sentence naming
    # an error) is chatter: answered only if an entry matches, like a weak message alone.
    strong: bool = True


class Bursts:
    """Gather parts per (workspace, place); a place is e.g. `C0123:top:U0456`."""

    def __init__(self, client: RedisClient) -> None:
        self._client = client
        self._join = client.script(_JOIN_LUA)
        self._close = client.script(_CLOSE_LUA)
        self._take = client.script(_TAKE_LUA)

    @staticmethod
    def _keys(team_id: str, place: str) -> list[str]:
        base = keys.dedupe(team_id, f"burst:{place}")
        return [base + ":parts", base + ":seq"]

    @guarded
    def join(self, team_id: str, place: str, part: Part, lifetime_s: float) -> int:
        """Add a part (its text masked); return its sequence number in the burst."""
        require_masked(part.text, "burst part")
        payload = json.dumps([part.ts, part.thread_ts, part.text, part.strong])
        return int(self._join(keys=self._keys(team_id, place), args=[payload, max(1, int(lifetime_s * 1000))]))

    @guarded
    def is_open(self, team_id: str, place: str) -> bool:
        """Whether a burst is gathering parts in this place right now."""
        return bool(self._client.redis.exists(self._keys(team_id, place)[1]))

    @guarded
    def close(self, team_id: str, place: str, seq: int) -> list[Part] | None:
        """Every part, in the order Slack stamped them, if `seq` is still the last to have
        joined; None when a later part joined (its joiner will close the burst); [] when the
        burst expired before this closer came: no one else will answer, so the caller answers
        for the part it holds rather than drop it."""
        raw = self._close(keys=self._keys(team_id, place), args=[str(seq)])
        if raw == 0:
            return []
        if not raw:
            return None
        return _parts(raw)

    @guarded
    def take(self, team_id: str, place: str) -> list[Part]:
        """The open burst's parts, in the order Slack stamped them: the caller answers for
        them, and the burst's closer answers nothing. [] when no burst is open."""
        return _parts(self._take(keys=self._keys(team_id, place)) or [])


def _parts(raw: list[bytes]) -> list[Part]:
    """Stored parts, in the order Slack stamped them."""
    parts = []
    for item in raw:
        # A part joined by a replica of the version before `strong` has three fields.
        ts, thread_ts, text, *strong = json.loads(item)
        parts.append(Part(ts, thread_ts, MaskedText.restored(text), bool(strong[0]) if strong else True))
    return sorted(parts, key=lambda p: float(p.ts))
