"""Time as the store sees it: aware UTC datetimes from an injectable clock.

Every expiry decision (day boundaries, plan and code expiry, rate-limit windows) is taken
from this clock and handed to Redis as relative TTLs or script arguments, never from Redis'
own TIME, so tests can move time without waiting and replicas agree as far as their clocks do.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


class UtcClock:
    """Wraps a clock callable and checks it returns aware datetimes."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or system_clock

    def now(self) -> datetime:
        """The current time in UTC; a naive datetime from the clock is a programming error."""
        now = self._clock()
        if now.tzinfo is None or now.utcoffset() is None:
            raise ValueError("the store's clock must return an aware datetime (e.g. tz=UTC)")
        return now.astimezone(UTC)


def day_of(moment: datetime) -> date:
    """The UTC calendar day `moment` falls on."""
    return moment.astimezone(UTC).date()


def day_end(day: date) -> datetime:
    """The UTC midnight that ends `day`: when its quota resets."""
    return datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)


def to_epoch(moment: datetime) -> float:
    """Seconds since the epoch, as Redis scripts compare them."""
    return moment.timestamp()


def from_epoch(seconds: float | str) -> datetime:
    """An aware UTC datetime from epoch seconds (as stored in Redis)."""
    return datetime.fromtimestamp(float(seconds), UTC)
