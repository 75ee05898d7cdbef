"""The Slack edge's waits from the environment: overrides honoured, nonsense falls back."""

from __future__ import annotations

import pytest

from bot.slack import timers


@pytest.mark.parametrize(
    ("raw", "allow_zero", "expected"),
    [(None, True, 3.0), ("0.05", True, 0.05), ("0", True, 0.0), ("0", False, 3.0), ("-1", True, 3.0),
     ("soon", True, 3.0), ("", True, 3.0)],
    ids=["unset", "fraction", "zero-allowed", "zero-refused", "negative", "not-a-number", "empty"],
)
def test_seconds(monkeypatch, raw, allow_zero, expected):
    """A duration override is read as seconds; unset, negative, unreadable (or a refused zero) keep the default."""
    if raw is None:
        monkeypatch.delenv("DENPEX_TEST_WAIT_S", raising=False)
    else:
        monkeypatch.setenv("DENPEX_TEST_WAIT_S", raw)
    assert timers.seconds("DENPEX_TEST_WAIT_S", 3.0, allow_zero=allow_zero) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("0,0.3,0.6", (0.0, 0.3, 0.6)), ("2", (2.0,)), ("1,x", (0.0, 2.0)), ("1,-1", (0.0, 2.0)), ("", (0.0, 2.0))],
    ids=["three", "one", "unreadable", "negative", "empty"],
)
def test_seconds_list(monkeypatch, raw, expected):
    """A list of waits ("0,2,4") is read in order; anything unreadable keeps the whole default."""
    monkeypatch.setenv("DENPEX_TEST_LOOKS_S", raw)
    assert timers.seconds_list("DENPEX_TEST_LOOKS_S", (0.0, 2.0)) == expected
