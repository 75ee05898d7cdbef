"""The Slack edge's waits, read from the environment: production keeps the defaults, and the
end-to-end tests run the same code paths at tens of milliseconds (tests/slack/conftest.py
FAST_TIMERS) instead of sleeping through seconds of windows and back-offs."""

from __future__ import annotations

import os


def seconds(name: str, default: float, *, allow_zero: bool = True) -> float:
    """A duration in seconds from `name`; the default when unset, unreadable or negative (or
    zero, where zero would mean "never wait" and is not allowed)."""
    try:
        value = float(os.environ.get(name) or default)
    except ValueError:
        return default
    if value < 0 or (value == 0 and not allow_zero):
        return default
    return value


def seconds_list(name: str, default: tuple[float, ...]) -> tuple[float, ...]:
    """Comma-separated durations (e.g. "0,2,4") from `name`; the default when unset or unreadable."""
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        values = tuple(float(part) for part in raw.split(","))
    except ValueError:
        return default
    return values if values and all(v >= 0 for v in values) else default
