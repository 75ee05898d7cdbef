"""The one error type the store raises when Redis cannot serve a call."""

from __future__ import annotations


class StoreUnavailable(Exception):
    """Redis could not be reached in time; the message says so plainly.

    Raised for refused or reset connections, timeouts, a Redis still loading its data, a
    read-only replica after a failover, or a cluster that is down. Callers tell the user the
    service is temporarily unavailable and carry on: the next call reconnects by itself.
    """

    def __init__(self, message: str, *, url: str | None = None, reason: str | None = None):
        super().__init__(message)
        self.url = url
        self.reason = reason

    @classmethod
    def from_error(cls, display_url: str, error: BaseException) -> StoreUnavailable:
        """Build the error for a failed call to the Redis at `display_url` (password hidden)."""
        reason = f"{type(error).__name__}: {error}".rstrip(" .:")
        return cls(
            f"Redis at {display_url} (REDIS_URL) is unavailable ({reason}); "
            "check that Redis is running and that REDIS_URL points at it",
            url=display_url,
            reason=reason,
        )


class StoreConfigError(ValueError):
    """A store setting (usually an environment variable) has a value that cannot work."""
