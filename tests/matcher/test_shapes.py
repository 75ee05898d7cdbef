"""Floods of one line: the verdict per line shape is decided once, and only where it is exact."""

from __future__ import annotations

import regex

from bot.matcher import default_matcher
from bot.matcher.engine import Matcher, _digit_features, _shape_table
from bot.matcher.rulebook import Signature

MATCHER = default_matcher()
NAIVE = Matcher(MATCHER.rulebook, prefilter=False)


def _sig(pattern: str, unless: str | None = None) -> Signature:
    return Signature("s", pattern, 0.5, regex.compile(pattern), regex.compile(unless) if unless else None)


def test_a_shape_keeps_every_digit_a_pattern_tells_apart() -> None:
    """`\\d`, `0-9` and `{m,n}` treat digits alike; literal digits stay themselves, a range
    `[1-9]` keeps non-zero apart from zero; a backreference makes the line itself the shape."""
    assert _digit_features(_sig(r"exitcode: -?\d{1,3} \(pid: [0-9]+\)")) == []
    assert _digit_features(_sig(r"(\w+) then \1")) is None
    assert _shape_table([_sig(r"(\w+) then \1")]) is None
    table = _shape_table([_sig(r"errno: 110 - ")])
    assert table is not None
    assert b"errno: 110 99 113 57".translate(table) == b"errno: 110 22 112 22"
    nonzero = _shape_table([_sig(r"skipped iterations:\s*[1-9]")])
    assert nonzero is not None
    assert b"skipped iterations: 0 5 9 10".translate(nonzero) == b"skipped iterations: 0 1 1 10"
    assert _shape_table([_sig(r"0 1 2 3 4 5 6 7 8 9")]) is None  # every digit stays itself


def test_a_different_errno_in_a_flood_is_still_seen() -> None:
    """Fifteen hundred `errno: 99` retries and one `errno: 110`: the one that differs by a digit
    reaches its signature, as it does on the naive path."""
    retry = "[W socket.cpp:{n}] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).\n"
    lines = [retry.format(n=600 + i % 7) for i in range(1_500)]
    lines.insert(1_000, "[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-7]:29500 (errno: 110 - Connection timed out).\n")
    log = "".join(lines)
    fast = MATCHER.diagnose(log)
    naive = NAIVE.diagnose(log)
    assert [m.id for m in fast.matches] == [m.id for m in naive.matches]
    assert "c10d-store-connect-timeout" in [m.id for m in fast.matches]


def test_ranks_in_a_flood_of_one_shape_are_all_recorded() -> None:
    """Lines of one shape from different ranks: every rank's first hit is kept, as without the cache."""
    oom = "[rank{r}]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {r} has a total capacity of 79.15 GiB\n"
    log = "".join(oom.format(r=r % 8) for r in range(400))
    fast, naive = MATCHER.diagnose(log), NAIVE.diagnose(log)
    assert fast.matches[0].ranks == naive.matches[0].ranks == list(range(8))
    assert fast.to_dict()["matches"] == naive.to_dict()["matches"]
