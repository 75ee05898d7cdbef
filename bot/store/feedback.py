"""Right/wrong votes on diagnoses, per rule, so maintainers see which rules mislead."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.config import StoreConfig


@dataclass(frozen=True)
class TeamVotes:
    """One workspace's votes on a rule."""

    team_id: str
    right: int
    wrong: int


@dataclass(frozen=True)
class FeedbackRow:
    """Votes on one rule across workspaces, with the per-workspace split."""

    rule_id: str
    right: int
    wrong: int
    teams: tuple[TeamVotes, ...] = ()


# Records a user's vote on a rule in a thread; the last vote wins. A changed vote moves one
# count from the old side to the new one; repeating the same vote changes nothing.
# KEYS[1]  votes on this rule in this thread (hash: user_id -> "right" | "wrong")
# KEYS[2]  the workspace's counters (hash: "right:<rule_id>" / "wrong:<rule_id>" -> count)
# ARGV[1]  user_id  ARGV[2] "right" | "wrong"  ARGV[3] rule_id
# ARGV[4]  TTL of the per-thread votes, seconds (the thread's own lifetime)
# Returns 1 if the counters changed, 0 for a repeated vote.
_VOTE_LUA = """
local previous = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
if previous == ARGV[2] then
  return 0
end
if previous then
  redis.call('HINCRBY', KEYS[2], previous .. ':' .. ARGV[3], -1)
end
redis.call('HINCRBY', KEYS[2], ARGV[2] .. ':' .. ARGV[3], 1)
return 1
"""


class Feedback:
    """Votes per workspace; the summary adds them up across workspaces."""

    def __init__(self, client: RedisClient, config: StoreConfig) -> None:
        self._client = client
        self._config = config
        self._vote = client.script(_VOTE_LUA)

    @guarded
    def vote(
        self, team_id: str, rule_id: str, user_id: str, right: bool, thread_key: str = "-"
    ) -> None:
        """Record `user_id`'s verdict on `rule_id`; one vote per user, rule and thread
        (`thread_key`, e.g. "<channel>:<thread_ts>"), the last one counting."""
        votes_key = keys.feedback_votes(team_id, rule_id, thread_key)
        keys.check_part(user_id, "user_id")
        # The per-workspace counters are the truth; the global set only says which
        # workspaces to add up. Adding to it first (idempotent) means a vote is never
        # counted without its workspace being listed, even if Redis fails in between.
        self._client.redis.sadd(keys.feedback_teams(), team_id)
        self._vote(
            keys=[votes_key, keys.feedback_counts(team_id)],
            args=[user_id, "right" if right else "wrong", rule_id, self._config.thread_ttl_s],
        )

    @guarded
    def summary(self) -> list[FeedbackRow]:
        """Votes per rule across workspaces, most-voted first, each with its per-team split."""
        redis = self._client.redis
        teams = sorted(redis.smembers(keys.feedback_teams()))
        pipe = redis.pipeline(transaction=False)
        for team_id in teams:
            pipe.hgetall(keys.feedback_counts(team_id))
        per_rule: dict[str, dict[str, list[int]]] = defaultdict(dict)
        for team_id, counters in zip(teams, pipe.execute() if teams else [], strict=True):
            for name, value in counters.items():
                side, _, rule_id = name.partition(":")
                split = per_rule[rule_id].setdefault(team_id, [0, 0])
                split[0 if side == "right" else 1] += int(value)
        rows = []
        for rule_id, by_team in per_rule.items():
            split = tuple(
                TeamVotes(team, right, wrong)
                for team, (right, wrong) in sorted(by_team.items())
                if right or wrong
            )
            if split:
                right = sum(t.right for t in split)
                wrong = sum(t.wrong for t in split)
                rows.append(FeedbackRow(rule_id, right, wrong, split))
        rows.sort(key=lambda r: (-(r.right + r.wrong), r.rule_id))
        return rows
