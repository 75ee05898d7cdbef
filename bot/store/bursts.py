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
# KEYS[1]  the burst's parts (list of JSON [ts, thread_ts, masked text, strong]): present
#          while the burst is open
# KEYS[2]  the burst's sequence number (string: the number of the last part to join); kept
#          after a close, so an earlier part's closer that runs late finds a later number
# KEYS[3]  the place's last log file answered alone (its message's ts), for a short while
# ARGV[1]  the part as JSON  ARGV[2] lifetime of the burst, ms  ARGV[3] the part's ts
# ARGV[4]  "1" when the part looks like a log by itself
# Returns the part's sequence number, or -1 when the part belongs to the log file its sender
# sent at once, which was answered already: words about it (any time in the window), or an
# excerpt of it pasted before it.
_JOIN_LUA = """
local upload = redis.call('GET', KEYS[3])
if upload and (ARGV[4] ~= '1' or tonumber(ARGV[3]) < tonumber(upload)) then
  return -1
end
redis.call('RPUSH', KEYS[1], ARGV[1])
local seq = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return seq
"""

# Closes a burst if the caller's part is still the last one, handing back every part.
# KEYS[1]  the burst's parts  KEYS[2] its sequence number
# ARGV[1]  the caller's sequence number
# Returns the parts (JSON strings) when closed; false when a later part joined, or the burst
# was closed or taken already (the closers' timers of parts joined at once fire in any order:
# the last part's closer may run first); 0 when the burst expired before its closer came (a
# closer delayed past the burst's lifetime).
_CLOSE_LUA = """
local seq = redis.call('GET', KEYS[2])
if not seq then
  return 0
end
if seq ~= ARGV[1] then
  return false
end
local parts = redis.call('LRANGE', KEYS[1], 0, -1)
if #parts == 0 then
  return false
end
redis.call('DEL', KEYS[1])
return parts
"""


# Takes a burst for a message that answers for it (the log file its words announced, or the
# full log after a pasted excerpt): the parts are handed back and the burst's closer finds a
# later number, so it answers nothing. Whether or not a burst was open, the log file is noted
# for the place: words or an excerpt its sender sent with it that are read only after it
# (Slack delivers them at once, in any order) join nothing and are not answered again.
# The thread the file is answered in is noted beside it: the first part's, when it takes a
# burst, else the file's own; a question its sender sends a moment later ("what now?", or a
# mention of the bot) is asked about that answer.
# KEYS[1]  the burst's parts  KEYS[2] its sequence number  KEYS[3] the place's last log file
# KEYS[4]  the thread its answer goes to
# ARGV[1]  the log file's message ts  ARGV[2] how long it is noted, ms  ARGV[3] the file's thread
# Returns the parts (JSON strings) when taken, false when no burst is open.
_TAKE_LUA = """
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
local parts = redis.call('LRANGE', KEYS[1], 0, -1)
local thread, first = ARGV[3], nil
for _, raw in ipairs(parts) do
  local part = cjson.decode(raw)
  if first == nil or tonumber(part[1]) < first then
    first, thread = tonumber(part[1]), part[2]
  end
end
redis.call('SET', KEYS[4], thread, 'PX', ARGV[2])
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
    # The ts of its sender's edit, when the part is read as edited (`Bursts.edit_of`): a
    # replica's own raw copy of the part, taken before the edit, is then not its text.
    edited: str = ""


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
        return [base + ":parts", base + ":seq", base + ":upload", base + ":answered"]

    @guarded
    def join(self, team_id: str, place: str, part: Part, lifetime_s: float) -> int | None:
        """Add a part (its text masked); return its sequence number in the burst, or None when
        the part goes with a log file its sender sent at once that was answered already
        (`take`): words about it, or an excerpt of it pasted before it."""
        require_masked(part.text, "burst part")
        payload = json.dumps([part.ts, part.thread_ts, part.text, part.strong])
        seq = int(self._join(keys=self._keys(team_id, place),
                             args=[payload, max(1, int(lifetime_s * 1000)), part.ts, "1" if part.strong else "0"]))
        return None if seq < 0 else seq

    @guarded
    def note_edit(self, team_id: str, channel: str, part: Part, noted_s: float) -> None:
        """Note its sender's edit of the message at `part.ts` (masked) for `noted_s`: the burst
        it is a part of reads it as edited when it closes, whichever of the message and its
        edit was read first (Slack delivers them in any order, on any replica)."""
        require_masked(part.text, "edited part")
        payload = json.dumps([part.ts, part.thread_ts, part.text, part.strong, part.edited])
        self._client.redis.set(self._edit_key(team_id, channel, part.ts), payload, px=max(1, int(noted_s * 1000)))

    @guarded
    def edit_of(self, team_id: str, channel: str, ts: str) -> Part | None:
        """Its sender's latest edit of the message at `ts`, noted by `note_edit`, or None."""
        raw = self._client.redis.get(self._edit_key(team_id, channel, ts))
        return _parts([raw])[0] if raw else None

    @staticmethod
    def _edit_key(team_id: str, channel: str, ts: str) -> str:
        return keys.dedupe(team_id, f"burst-edit:{channel}:{ts}")

    @guarded
    def is_open(self, team_id: str, place: str) -> bool:
        """Whether a burst is gathering parts in this place right now."""
        return bool(self._client.redis.exists(self._keys(team_id, place)[0]))

    @guarded
    def after_upload(self, team_id: str, place: str) -> bool:
        """Whether a log file its sender sent here was answered a moment ago (`take`)."""
        return bool(self._client.redis.exists(self._keys(team_id, place)[2]))

    @guarded
    def recent_answer(self, team_id: str, place: str) -> str | None:
        """The thread a log its sender sent here a moment ago is answered in (a log file,
        `take`; a pasted log, `note_answer`), or None when none was, or long enough ago that a
        message now is about something else."""
        thread = self._client.redis.get(self._keys(team_id, place)[3])
        return thread.decode() if isinstance(thread, bytes) else thread

    @guarded
    def note_answer(self, team_id: str, place: str, thread_ts: str, noted_s: float) -> None:
        """Note the thread a log sent here is (being) answered in, for `noted_s` (`recent_answer`)."""
        self._client.redis.set(self._keys(team_id, place)[3], thread_ts, px=max(1, int(noted_s * 1000)))

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
    def take(self, team_id: str, place: str, upload_ts: str, noted_s: float, upload_thread: str = "") -> list[Part]:
        """The open burst's parts, in the order Slack stamped them: the caller (the log file
        sent at `upload_ts`, in `upload_thread`) answers for them, and the burst's closer
        answers nothing. [] when no burst is open. Either way the file is noted for `noted_s`:
        the words or excerpt sent with it that are read after it join nothing (`join`), and
        the thread of its answer is kept (`recent_answer`)."""
        raw = self._take(keys=self._keys(team_id, place),
                         args=[upload_ts, max(1, int(noted_s * 1000)), upload_thread or upload_ts])
        return _parts(raw or [])


def _parts(raw: list[bytes]) -> list[Part]:
    """Stored parts, in the order Slack stamped them."""
    parts = []
    for item in raw:
        # A part joined by a replica of the version before `strong` has three fields; a part
        # as first sent, four; an edit (`note_edit`), five.
        ts, thread_ts, text, *rest = json.loads(item)
        strong = bool(rest[0]) if rest else True
        edited = str(rest[1]) if len(rest) > 1 and rest[1] else ""
        parts.append(Part(ts, thread_ts, MaskedText.restored(text), strong, edited))
    return sorted(parts, key=lambda p: float(p.ts))
