"""The continuation window: a signature may span a few consecutive lines of one rank."""

import pytest

from bot.matcher import Matcher, RuleError, load_rulebook
from tests.matcher.rulefactory import rule_doc, sig, write_rules

# torch 2.4's watchdog line as a collector that wraps long lines relays it (milabench's
# `[stderr]` relay cut it after "detected"); hosts made up.
WRAPPED = (
    "node-d004 [stderr] [rank12]:[E909 09:55:29.313379098 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 12] "
    "Exception (either an error or timeout) detected\n"
    "by watchdog at work: 2070, last enqueued NCCL work: 2070, last completed NCCL work: 2069.\n"
)
PATTERN = r"Exception \(either an error or timeout\) detected\s+by watchdog at work"


def _book(tmp_path, span: object, prefilter: bool = True) -> Matcher:
    extra = {} if span is None else {"lines": span}
    docs = [
        rule_doc("wd", "network", {
            "keywords": ["(either an error or timeout) detected"],
            "signatures": [sig("wrapped", PATTERN, 0.6, **extra), sig("caught", "Watchdog caught collective", 0.9)],
        }, ["other", "third"]),
        rule_doc("other", "code", {"keywords": ["zzz"], "signatures": [sig("z", "zzz", 0.9)]}, ["wd", "third"]),
        rule_doc("third", "code", {"keywords": ["yyy"], "signatures": [sig("y", "yyy", 0.9)]}, ["wd", "other"]),
    ]  # fmt: skip
    return Matcher(load_rulebook(write_rules(tmp_path, docs)), prefilter=prefilter)


@pytest.mark.parametrize("prefilter", [True, False])
def test_a_wrapped_message_matches_across_its_lines(tmp_path, prefilter):
    d = _book(tmp_path, 2, prefilter).diagnose("step 5 loss 1.0\n" + WRAPPED)
    assert d.matches and d.matches[0].id == "wd" and d.matches[0].ranks == [12]
    ev = d.matches[0].evidence[0]
    assert ev.line == 2 and "detected by watchdog at work: 2070" in ev.text and "\n" not in ev.text


def test_one_line_at_a_time_loses_the_distinctive_half(tmp_path):
    assert _book(tmp_path, None).diagnose(WRAPPED).matches == []


def test_the_window_stops_at_another_ranks_line(tmp_path):
    log = WRAPPED.replace("by watchdog", "[rank3]:by watchdog")
    assert _book(tmp_path, 2).diagnose(log).matches == []
    # The same rank's prefix on the continuation is stripped, not a stop.
    assert _book(tmp_path, 2).diagnose(WRAPPED.replace("by watchdog", "[rank12]:by watchdog")).matches


def test_the_window_is_bounded_by_its_span(tmp_path):
    log = WRAPPED.replace("detected\nby", "detected\n\nby")  # three lines: a blank in between
    assert _book(tmp_path, 2).diagnose(log).matches == []
    assert _book(tmp_path, 3).diagnose(log).matches


@pytest.mark.parametrize("piece", [1, 5, 40, 150])
def test_a_window_cut_by_the_pieces_of_a_stream_still_matches(tmp_path, piece):
    """The continuation arrives in a later piece of the stream: the window waits for it."""
    m = _book(tmp_path, 3)
    data = ("step 5 loss 1.0\n" + WRAPPED + "step 6 loss 0.9\n").encode()
    whole = m.diagnose(data.decode()).to_dict()
    parts = m.diagnose_chunks(data[i : i + piece] for i in range(0, len(data), piece)).to_dict()
    whole.pop("stats"), parts.pop("stats")
    assert parts == whole and whole["matches"][0]["id"] == "wd"


def test_a_window_at_the_end_of_the_log_uses_the_lines_there_are(tmp_path):
    m = _book(tmp_path, 2)
    assert m.diagnose(WRAPPED.split("\n")[0] + "\n").matches == []
    assert m.diagnose(WRAPPED.rstrip("\n")).matches[0].id == "wd"  # no final newline


@pytest.mark.parametrize("span", [0, 4, "2", True])
def test_lint_rejects_a_bad_span(tmp_path, span):
    with pytest.raises(RuleError) as err:
        _book(tmp_path, span)
    assert "match.signatures[0].lines: must be an integer from 1 to 3" in str(err.value)


def test_a_window_starts_matching_on_its_own_first_line(tmp_path):
    """A line that passes the gate does not take the next line's match as its own."""
    log = "[rank12]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2070)\n" + WRAPPED.replace(
        "node-d004 [stderr] ", ""
    )
    d = _book(tmp_path, 3).diagnose(log)
    lines = {(e.line, tuple(d.matches[0].signatures)) for e in d.matches[0].evidence}
    wrapped = [e for e in d.matches[0].evidence if "detected by watchdog" in e.text]
    assert [e.line for e in wrapped] == [2], lines


def test_a_message_whole_on_its_first_line_is_not_joined_to_the_next(tmp_path):
    """The window's evidence is the lines its match spans: an unwrapped message does not take the progress bar after it along."""
    whole = WRAPPED.replace("detected\nby", "detected by")
    bar = "Epoch 3: 100%|##########| 250/250 [00:41<00:00,  6.02it/s]\n"
    m = _book(tmp_path, 2)
    (alone,) = m.diagnose(whole).matches[0].evidence
    (followed,) = m.diagnose(whole + bar).matches[0].evidence
    assert followed.text == alone.text and "Epoch" not in followed.text
    # A wrapped message still reads as its two lines joined.
    assert "detected by watchdog at work: 2070" in m.diagnose(WRAPPED + bar).matches[0].evidence[0].text



WATCHDOG = (
    "[rank{r}]:[E909 09:55:{s:02d}.{us:06d} ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] "
    "Exception (either an error or timeout) detected\n"
    "[rank{r}]:by watchdog at work: {w}, last enqueued NCCL work: {w}, last completed NCCL work: {c}.\n"
)


def _watchdog_book(tmp_path, pattern: str, unless: str | None = None) -> Matcher:
    extra = {} if unless is None else {"unless": unless}
    docs = [
        rule_doc("wd", "network", {
            "keywords": ["(either an error or timeout) detected"],
            "signatures": [sig("wrapped", pattern, 0.6, lines=2, **extra)],
        }, ["other", "third"]),
        rule_doc("other", "code", {"keywords": ["zzz"], "signatures": [sig("z", "zzz", 0.9)]}, ["wd", "third"]),
        rule_doc("third", "code", {"keywords": ["yyy"], "signatures": [sig("y", "yyy", 0.9)]}, ["wd", "other"]),
    ]  # fmt: skip
    return Matcher(load_rulebook(write_rules(tmp_path, docs)))


def _watchdogs(n: int) -> tuple[bytes, list[tuple[int, int, int]]]:
    """`n` ranks' wrapped watchdog messages, each rank its own timestamp and work numbers."""
    windows = [(r, (1070, 2070, 3071)[r % 3], (9069, 2069)[r // 3 % 2]) for r in range(n)]
    log = "".join(WATCHDOG.format(r=r, s=r % 60, us=r * 7919 % 10**6, w=w, c=c) for r, w, c in windows)
    return log.encode(), windows


def test_windows_of_one_shape_share_a_verdict(tmp_path):
    """Every rank's watchdog opens a window on lines that differ only in digits its pattern
    reads alike: one verdict per shape (digit count), not a regex per window."""
    log, windows = _watchdogs(300)
    scan = _watchdog_book(tmp_path, r"detected\s+by watchdog at work: \d+").scan()
    scan.feed(log)
    found = scan.finish()
    assert found.matches and found.matches[0].ranks == [r for r, _, _ in windows]
    assert len(scan._window_spans) < 10


def test_a_digit_a_window_pattern_reads_still_decides_each_window(tmp_path):
    """A digit the pattern (`work: 1`) or its `unless` (`completed NCCL work: 9`) reads decides
    each window, as the patterns say of that window's own lines."""
    log, windows = _watchdogs(300)
    matcher = _watchdog_book(tmp_path, r"detected\s+by watchdog at work: 1", unless=r"completed NCCL work: 9")
    expected = [r for r, w, c in windows if str(w).startswith("1") and not str(c).startswith("9")]
    assert matcher.diagnose(log.decode()).matches[0].ranks == expected
