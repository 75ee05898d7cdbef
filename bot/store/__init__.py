"""Everything Denpex keeps between messages, in Redis. Nothing else imports redis.

Use `Store.from_env()` (REDIS_URL, default redis://localhost:6379/0) and its parts:
quotas, plans, codes, dedupe, threads, feedback, unmatched, ratelimit, history,
oauth_states, and `installations(token_key)` for multi-workspace mode. Any call raises
StoreUnavailable when Redis cannot answer in time.
"""

from bot.store.codes import RedeemResult
from bot.store.config import Plan, StoreConfig
from bot.store.errors import StoreConfigError, StoreUnavailable
from bot.store.feedback import FeedbackRow, TeamVotes
from bot.store.history import HistoryEntry
from bot.store.installations import Installations
from bot.store.plans import PlanState
from bot.store.quotas import ConsumeResult, QuotaStatus
from bot.store.store import Store
from bot.store.threads import ThreadContext
from bot.store.unmatched import fingerprint

__all__ = [
    "ConsumeResult",
    "FeedbackRow",
    "HistoryEntry",
    "Installations",
    "Plan",
    "PlanState",
    "QuotaStatus",
    "RedeemResult",
    "Store",
    "StoreConfig",
    "StoreConfigError",
    "StoreUnavailable",
    "TeamVotes",
    "ThreadContext",
    "fingerprint",
]
