"""Property tests over the line parser (bot/matcher/lines.py): any text at all, and text built
from the prefixes launchers write, parses without an exception into sane facts."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from bot.matcher.engine import rank_and_message
from bot.matcher.lines import parse_line, parse_timestamp, strip_prefixes
from tests.fuzz.corpus import fuzz

PIECES = st.sampled_from([
    "[rank", "[default", "[trainer", "]:", "[1,", "]<stderr>:", "]<stdout>:", ": ", "worker-3", "host.example.com",
    "12345", "0", "7", ":", " ", "[", "]", "2024-01-02 03:04:05", "2024-13-45 99:99:99", ",123", ".123456789",
    "T", "I0102 ", "E1399 ", "Jan  2 ", "Feb 31 ", "03:04:05", "[ 123.456]", "[", " NCCL ", "NCCL INFO", "Rank ",
    "rank=", "global_rank:", "[PG 0 Rank ", "\t", "\u0663", "\u096f", "99999999999999999999", "-1", "\r", "\x00",
    "\ud800", "\u2028", "ﬁ", "İ",
])  # fmt: skip
LINEISH = st.lists(PIECES | st.text(max_size=6), max_size=24).map("".join)
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=300)
LINES = ANY_TEXT | LINEISH
FUZZ = fuzz(400)


@FUZZ
@given(LINES)
def test_parse_line_never_raises_and_gives_sane_facts(line: str) -> None:
    """Any line: a non-negative rank or none, a device or none, a finite timestamp found in the line."""
    facts = parse_line(line)
    assert facts.rank is None or (isinstance(facts.rank, int) and facts.rank >= 0)
    assert facts.device is None or facts.device >= 0
    ts = facts.timestamp
    if ts is not None:
        assert math.isfinite(ts.value)
        assert ts.text and ts.text in line


@FUZZ
@given(LINES)
def test_strip_prefixes_never_raises_and_keeps_the_tail(line: str) -> None:
    """Stripping launcher prefixes only ever removes a head: the message is the line's tail."""
    assert line.endswith(strip_prefixes(line))


@FUZZ
@given(LINES)
def test_rank_shortcut_agrees_with_the_full_parse(line: str) -> None:
    """The engine's fast path for `[rankN]:` lines gives exactly what the full parse gives."""
    assert rank_and_message(line) == (parse_line(line).rank, strip_prefixes(line))


@FUZZ
@given(st.lists(PIECES, min_size=1, max_size=12).map("".join))
def test_parse_timestamp_never_raises_on_impossible_dates(line: str) -> None:
    """Month 13, day 45, hour 99, Unicode digits: no exception, and any stamp found is finite."""
    ts = parse_timestamp(line)
    assert ts is None or math.isfinite(ts.value)
