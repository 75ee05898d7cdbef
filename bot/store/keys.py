"""Every Redis key name the store uses, in one place.

Per-workspace keys look like `denpex:{T0123}:quota:2026-11-30`: the `{T0123}` braces are the
Redis Cluster hash tag, so all keys of a workspace live in one slot and every multi-key script
over them runs unchanged on a cluster. Global records live under their own tags,
`denpex:{codes}:...` and `denpex:{stats}:...`; no script mixes tags.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date

PREFIX = "denpex"

# Slack team ids are short and alphanumeric (T…, E… for Enterprise Grid). Refusing anything
# else keeps braces out of the hash tag and glob characters out of SCAN patterns.
_TEAM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# Other key parts (channels, timestamps, rule ids, event ids) may hold `:` and most
# punctuation, but not whitespace or control characters, and stay short.
_PART = re.compile(r"[^\s\x00-\x1f\x7f]{1,200}")


def check_team_id(team_id: str) -> str:
    """Return `team_id` if it is a plausible Slack workspace id, else raise ValueError."""
    if not isinstance(team_id, str) or not _TEAM_ID.fullmatch(team_id):
        raise ValueError(
            f"team_id must be 1-64 letters, digits, '_' or '-' (a Slack team id), got {team_id!r}"
        )
    return team_id


def check_part(value: str, what: str) -> str:
    """Return `value` if it can be part of a key: 1-200 characters, no whitespace."""
    if not isinstance(value, str) or not _PART.fullmatch(value):
        raise ValueError(f"{what} must be 1-200 characters without whitespace, got {value!r}")
    return value


def workspace(team_id: str) -> str:
    """The prefix, hash tag included, that every key of a workspace starts with."""
    return f"{PREFIX}:{{{check_team_id(team_id)}}}:"


def workspace_pattern(team_id: str) -> str:
    """SCAN pattern matching every key of a workspace (team ids hold no glob characters)."""
    return workspace(team_id) + "*"


def quota(team_id: str, day: date) -> str:
    """Diagnoses used by the workspace on UTC `day` (a counter)."""
    return f"{workspace(team_id)}quota:{day.isoformat()}"


def plan(team_id: str) -> str:
    """The workspace's paid plan, if any (hash: plan, expires_at, granted_at, source)."""
    return f"{workspace(team_id)}plan"


def thread(team_id: str, channel: str, thread_ts: str) -> str:
    """Context of one diagnosed thread (JSON string)."""
    return (
        f"{workspace(team_id)}thread:{check_part(channel, 'channel')}:"
        f"{check_part(thread_ts, 'thread_ts')}"
    )


def thread_diagnosed(team_id: str, channel: str, thread_ts: str) -> str:
    """Marker that a thread got a diagnosis, kept past its context (so a question there can be
    told that the diagnosis expired rather than be read as a first message)."""
    return (
        f"{workspace(team_id)}thread-diagnosed:{check_part(channel, 'channel')}:"
        f"{check_part(thread_ts, 'thread_ts')}"
    )


def dedupe(team_id: str, key: str) -> str:
    """Marker that an event or message was seen already."""
    return f"{workspace(team_id)}dedupe:{check_part(key, 'dedupe key')}"


def ratelimit(team_id: str, action: str, user_id: str | None) -> str:
    """Recent hits of one rate-limit bucket: per user, or the whole workspace when no user."""
    who = "team" if user_id is None else f"user:{check_part(user_id, 'user_id')}"
    return f"{workspace(team_id)}ratelimit:{check_part(action, 'action')}:{who}"


def feedback_votes(team_id: str, rule_id: str, thread_key: str) -> str:
    """Who voted what on one rule in one thread (hash: user_id -> right|wrong)."""
    return (
        f"{workspace(team_id)}feedback:votes:{check_part(rule_id, 'rule_id')}:"
        f"{check_part(thread_key, 'thread key')}"
    )


def feedback_counts(team_id: str) -> str:
    """The workspace's vote counters (hash: right:<rule_id> / wrong:<rule_id> -> count)."""
    return f"{workspace(team_id)}feedback:counts"


def unmatched(team_id: str) -> str:
    """The workspace's unmatched-log fingerprints by count (sorted set)."""
    return f"{workspace(team_id)}unmatched"


def installation(owner_id: str) -> str:
    """The app's installation in a workspace, or in an Enterprise Grid org for an org-wide
    install (the org's E… id then stands in for the team id). Encrypted JSON."""
    return f"{workspace(owner_id)}installation"


def history(team_id: str) -> str:
    """The workspace's recent diagnoses (sorted set scored by epoch milliseconds)."""
    return f"{workspace(team_id)}history"


def kept_on_uninstall(key: str, team_id: str) -> bool:
    """Whether a key of the workspace outlives an uninstall: its plan, its daily usage
    counters and its code-redemption limits stay, so a re-install resets neither a paid plan,
    nor the day's usage, nor the brake on guessing codes (those limits expire within the hour).
    """
    rest = key.removeprefix(workspace(team_id))
    return rest == "plan" or rest.startswith(("quota:", "ratelimit:redeem:"))


CODES = f"{PREFIX}:{{codes}}:"
STATS = f"{PREFIX}:{{stats}}:"
OAUTH = f"{PREFIX}:{{oauth}}:"


def code(code_hash: str) -> str:
    """Record of one evaluation code, named by the SHA-256 of the code (never the code)."""
    return f"{CODES}code:{code_hash}"


def feedback_teams() -> str:
    """Workspaces that have voted at least once (set), for the cross-workspace summary."""
    return f"{STATS}feedback:teams"


def unmatched_all() -> str:
    """Unmatched-log fingerprints by count across workspaces (sorted set)."""
    return f"{STATS}unmatched"


def oauth_state(state_hash: str) -> str:
    """One issued OAuth state, named by its SHA-256 (never the state itself)."""
    return f"{OAUTH}state:{check_part(state_hash, 'state hash')}"


def digest(text: str) -> str:
    """Hex SHA-256 of `text`, for naming keys by secrets that must not be stored."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
