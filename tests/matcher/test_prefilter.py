"""The Hyperscan prefilter and the shortcuts built on it give exactly what plain Python would.

- a line meets a condition (one of some words, and one of some others) exactly as substring
  tests on the lowered line say, overlapping occurrences included, whichever literals the
  database leaves out (as long as every condition keeps a side whole); a derived literal left
  out untested only adds the lines holding its condition's keywords;
- the world size is read at every `nRanks` / `world_size` wherever it stands, never across lines;
- one regex per rule ("any of its signatures") finds a match exactly where a signature does;
- scans from many threads at once (each Slack diagnosis runs in its own) agree with one alone.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.matcher.engine import _any_of
from bot.matcher.prefilter import Condition, Prefilter
from tests.matcher.rulefactory import rule_doc, sig, write_rules
from tests.matcher.test_equivalence import BOOK, FAST, LOGS, NAIVE, comparable

WORDS = ["nan", "loss", "loss scale", "scale: 1", "grad_norm", "norm: nan", "ab", "ba", "aba", "é:x"]


def _meets(line: str, c: Condition) -> bool:
    low = line.encode().lower()
    if not any(w.encode() in low for w in c.any_of):
        return False
    return c.and_any_of is None or any(w.encode() in low for w in c.and_any_of)


def _conditions_by_line(prefilter: Prefilter, text: str, variant=None) -> dict[int, frozenset[int]]:
    data = text.encode()
    lines, _ = prefilter.candidate_lines(data, variant=variant)
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
    number = {s: n for n, s in enumerate(starts)}
    return {number[start]: conds for start, _stop, conds in lines}


words = st.sampled_from(WORDS)
conditions = st.lists(
    st.builds(
        Condition,
        st.frozensets(words, min_size=1, max_size=3),
        st.one_of(st.none(), st.frozensets(words, min_size=1, max_size=3)),
    ),
    min_size=1,
    max_size=5,
)
# Lines made of the words, their halves, case changes and filler, so occurrences touch and overlap.
fragment = st.one_of(
    words,
    words.map(lambda w: w[: len(w) // 2]),
    words.map(lambda w: w[len(w) // 2 :]),
    words.map(str.upper),
    st.sampled_from([" ", "x", ": ", "'", "ſ", "\u212a"]),
)
line = st.lists(fragment, max_size=8).map("".join)


@settings(max_examples=300, deadline=None)
@given(conditions, st.lists(line, min_size=1, max_size=6))
def test_a_line_meets_a_condition_exactly_when_substring_tests_say_so(conds, lines):
    prefilter = Prefilter(conds)
    got = _conditions_by_line(prefilter, "\n".join(lines) + "\n")
    for n, text in enumerate(lines):
        want = frozenset(i for i, c in enumerate(conds) if _meets(text, c))
        assert got.get(n, frozenset()) == want, (text, conds)


@settings(max_examples=300, deadline=None)
@given(conditions, st.lists(line, min_size=1, max_size=6), st.lists(words, max_size=6))
def test_a_database_without_some_literals_finds_the_same_lines(conds, lines, wanted):
    prefilter = Prefilter(conds)
    dropped: frozenset[int] = frozenset()
    for w in wanted:  # as many of the wanted literals as can go with every condition kept whole
        if w in prefilter.words and prefilter.allows(dropped | {prefilter.words.index(w)}):
            dropped |= {prefilter.words.index(w)}
    got = _conditions_by_line(prefilter, "\n".join(lines) + "\n", prefilter.variant(dropped))
    for n, text in enumerate(lines):
        want = frozenset(i for i, c in enumerate(conds) if _meets(text, c))
        assert got.get(n, frozenset()) == want, (text, conds, dropped)


@settings(max_examples=200, deadline=None)
@given(conditions, st.lists(line, min_size=1, max_size=12), st.integers(0, 4))
def test_the_chosen_literals_always_leave_every_condition_a_whole_side(conds, lines, ratio):
    prefilter = Prefilter(conds)
    seen: Counter = Counter()
    prefilter.candidate_lines(("\n".join(lines) + "\n").encode(), seen=seen)
    dropped = prefilter.choose_dropped(seen, hot_lines=1, reports_per_test=ratio)
    assert prefilter.allows(dropped)
    prefilter.variant(dropped)  # refuses a choice that is not allowed


@settings(max_examples=300, deadline=None)
@given(conditions, st.lists(line, min_size=1, max_size=6), st.lists(words, max_size=6), st.lists(words, max_size=4))
def test_derived_literals_left_untested_only_add_lines_that_hold_the_keywords(conds, lines, wanted, untested):
    """A relaxed literal is not looked for: its conditions are met wherever their keywords are
    (a superset, the regex decides); every other condition is met exactly as before."""
    prefilter = Prefilter(conds)
    index = {w: i for i, w in enumerate(prefilter.words)}
    relaxed = frozenset(index[w] for w in untested if w in index and index[w] in prefilter._second_only)
    dropped = frozenset(relaxed)
    if not prefilter.allows(dropped):
        return
    for w in wanted:
        if w in index and prefilter.allows(dropped | {index[w]}):
            dropped |= {index[w]}
    variant = prefilter.variant(dropped, relaxed)
    opened = {ci for ci, c in enumerate(conds) if c.and_any_of and {index[w] for w in c.and_any_of if w in index} & relaxed}
    got = _conditions_by_line(prefilter, "\n".join(lines) + "\n", variant)
    for n, text in enumerate(lines):
        want = frozenset(i for i, c in enumerate(conds) if _meets(text, c))
        keywords_on_line = frozenset(i for i in opened if _meets(text, Condition(conds[i].any_of)))
        assert got.get(n, frozenset()) == want | keywords_on_line, (text, conds, dropped, relaxed)


def test_only_derived_literals_may_go_untested():
    prefilter = Prefilter([Condition(frozenset({"nan"}), frozenset({"loss"})), Condition(frozenset({"oom"}))])
    nan, loss = prefilter.words.index("nan"), prefilter.words.index("loss")
    with pytest.raises(ValueError):
        prefilter.variant(frozenset({nan}), frozenset({nan}))  # a keyword: the rule's contract
    with pytest.raises(ValueError):
        prefilter.variant(frozenset(), frozenset({loss}))  # untested yet still in the database


def test_a_derived_literal_every_hot_line_holds_is_no_longer_looked_for():
    """Megatron's iteration line holds `nan` (a keyword of loss-nan) and its derived literals
    `loss` and `number of nan iterations:`: the line meets those conditions either way, so the
    literals' reports are saved; a rare line holding the keyword alone is what it costs."""
    value = Condition(frozenset({"nan"}), frozenset({"loss"}))
    iters = Condition(frozenset({"nan"}), frozenset({"number of nan iterations:"}))
    oom = Condition(frozenset({"out of memory"}))
    prefilter = Prefilter([value, iters, oom])
    megatron = "".join(
        f" iteration {i}/ 5000 | lm loss: 2.1 | loss scale: 1.0 | number of nan iterations:   0 |\n" for i in range(400)
    )
    seen: Counter = Counter()
    reports: Counter = Counter()
    prefilter.candidate_lines((megatron + "nan seen\n").encode(), seen=seen, reports=reports)
    variant = prefilter.choose(seen, reports=reports)
    assert {prefilter.words[i] for i in variant.relaxed} == {"loss", "number of nan iterations:"}
    assert variant.dropped == variant.relaxed
    log = megatron + "nan seen\nCUDA out of memory\n"
    got = _conditions_by_line(prefilter, log, variant)
    assert got == {**_conditions_by_line(prefilter, log), 400: frozenset({0, 1})}
    # Keyword-only lines are the cost: with many of them in the sample, the literal stays.
    seen, reports = Counter(), Counter()
    prefilter.candidate_lines((megatron + "nan seen\n" * 200).encode(), seen=seen, reports=reports)
    assert prefilter.choose_relaxed(seen, reports=reports) == frozenset()


def test_a_healthy_line_printed_over_and_over_leaves_the_database():
    nvls = Condition(frozenset({"nvls", "multicast"}), frozenset({"failed to bind nvlink sharp (nvls) multicast memory"}))
    nan = Condition(frozenset({"nan"}))
    prefilter = Prefilter([nvls, nan])
    chatter = "".join(f"[rank{r}]:n1:1:1 [0] NCCL INFO NVLS multicast support is not available on dev {r % 8}\n" for r in range(500))
    failure = "n1:1:1 [0] transport/nvls.cc:163 NCCL WARN Cuda failure 1 'failed to bind NVLink SHARP (NVLS) Multicast memory'\n"
    seen: Counter = Counter()
    prefilter.candidate_lines((chatter + "loss: nan\n").encode(), seen=seen)
    dropped = prefilter.choose_dropped(seen)
    assert {prefilter.words[i] for i in dropped} == {"nvls", "multicast"}
    variant = prefilter.variant(dropped)
    got = _conditions_by_line(prefilter, chatter + failure + "loss: nan\n", variant)
    assert got == {500: frozenset({0}), 501: frozenset({1})}
    # A side that stands in for dropped literals is never dropped itself; nor is a one-sided one.
    with pytest.raises(ValueError):
        prefilter.variant(frozenset({prefilter.words.index("nan")}))


def test_overlapping_occurrences_count_as_both():
    prefilter = Prefilter([Condition(frozenset({"grad_norm"}), frozenset({"norm: nan"}))])
    assert _conditions_by_line(prefilter, "x\n{'grad_norm: nan'}\ngrad_norm: 1.0 norm: nanx\nnorm: nan\n") == {
        1: frozenset({0}),
        2: frozenset({0}),
    }


def test_only_text_before_end_is_scanned():
    prefilter = Prefilter([Condition(frozenset({"oops"}))])
    data = b"fine\noops one\noops two"
    lines, _ = prefilter.candidate_lines(data, data.index(b"oops two"))
    assert [(data[a:b]) for a, b, _ in lines] == [b"oops one"]


def test_world_size_is_the_largest_stated_anywhere():
    log = "\n".join(
        [
            "[rank0]:node-1:10:11 [0] NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8",
            "[rank5]:node-1:10:11 [5] NCCL INFO comm 0x2 rank 5 nranks 16 cudaDev 5 - Init COMPLETE",
            "initialized process group: backend=nccl, rank=0, world_size=4, local_rank=0",
            "NRANKS 999",  # not how NCCL spells it
            "WORLD SIZE:",
            "32 is on the next line, which does not count",
        ]
    )
    for matcher in (FAST, NAIVE):
        scan = matcher.scan()
        scan.feed((log + "\n").encode())
        scan.finish()
        assert scan.facts.world_size == 16


def test_any_of_a_rules_signatures_matches_exactly_where_one_does():
    lines = {ln for _, log in LOGS for ln in log.splitlines()[:400]}
    checked = 0
    for rule in BOOK:
        rx = _any_of(rule.signatures)
        if rx is None:
            continue
        checked += 1
        for text in lines:
            want = any(s.compiled.search(text) for s in rule.signatures)
            assert (rx.search(text) is not None) == want, (rule.id, text)
    assert checked > len(BOOK) // 2


@dataclass
class _Sig:
    pattern: str
    lines: int = 1  # as Signature: one-line signatures are what _any_of combines


def test_any_of_leaves_out_backreferences():
    assert _any_of((_Sig(r"(\w+) and \1"), _Sig(r"(?i)plain"))) is None
    assert _any_of((_Sig(r"(?P<t>\d) (?P=t)"), _Sig(r"plain"))) is None
    assert _any_of((_Sig(r"(?i)one"),)) is None  # a single signature is searched as it is
    assert _any_of((_Sig(r"(?i)one(?s)two"), _Sig(r"plain"))) is None  # a flag mid-pattern
    assert _any_of((_Sig(r"(?m)^x"), _Sig(r"plain"))) is None
    combined = _any_of((_Sig(r"(?i)plain"), _Sig(r"other \d+")))
    assert combined is not None and combined.search("PLAIN") and combined.search("other 12")
    assert not combined.search("other x")


def test_pathological_line_with_a_multi_signature_rule_is_bounded(tmp_path):
    from bot.matcher import Matcher, load_rulebook

    book = load_rulebook(
        write_rules(
            tmp_path,
            [
                rule_doc(
                    "slow",
                    "code",
                    {"keywords": ["aaaa"], "signatures": [sig("s", r"(a+)+b", 0.9), sig("t", r"(a|aa)+c", 0.5)]},
                    ["oom", "x"],
                ),
                rule_doc("oom", "memory", {"keywords": ["out of memory"], "signatures": [sig("o", r"CUDA out of memory", 0.9)]}, ["slow", "x"]),
                rule_doc("x", "data", {"keywords": ["zzzz"], "signatures": [sig("z", r"zzzz", 0.9)]}, ["slow", "oom"]),
            ],
        ),
        warnings=[],
    )
    log = "[rank1]: " + "a" * 5000 + "!\n[rank1]: torch.OutOfMemoryError: CUDA out of memory.\n"
    d = Matcher(book, regex_timeout_s=0.01).diagnose(log)
    assert d.stats.regex_timeouts == 2  # each signature on its own, once the combined one gave up
    assert d.root is not None and d.root.id == "oom"


def test_threads_scanning_at_once_agree_with_one_alone():
    logs = [log for _, log in LOGS[-40:]]
    want = [comparable(FAST.diagnose(log), timeouts=False) for log in logs]
    got: list[list[dict]] = [[] for _ in range(6)]
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            for log in logs:
                got[k].append(comparable(FAST.diagnose(log), timeouts=False))
        except BaseException as exc:  # surfaced below; a thread's exception is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(g == want for g in got)


def test_hyperscan_is_given_no_regex_syntax_from_literals():
    # Literals are escaped byte by byte: regex metacharacters in a keyword are plain text.
    prefilter = Prefilter([Condition(frozenset({"a.b(c)*[d]|e"}))])
    assert _conditions_by_line(prefilter, "a.b(c)*[d]|e\naxb(c)[d]\n") == {0: frozenset({0})}


def test_a_literal_reported_thousands_of_times_on_few_lines_leaves_the_database():
    """A tqdm file is a few megabyte lines, each saying `train_loss=` at every update: few lines,
    many reports (each a call into Python). Counted by reports, that literal goes; counted by
    lines, it would stay. The lines met are the same either way."""
    loss = Condition(frozenset({"nan"}), frozenset({"loss"}))
    oom = Condition(frozenset({"out of memory"}))
    prefilter = Prefilter([loss, oom])
    bars = "".join("Epoch 0: " + "".join(f"\r{i}/900 [00:01, train_loss={i / 7:.3f}]" for i in range(900)) + "\n" for _ in range(3))
    seen: Counter = Counter()
    reports: Counter = Counter()
    prefilter.candidate_lines(bars.encode(), seen=seen, reports=reports)
    assert reports[prefilter.words.index("loss")] == 2_700 and sum(seen.values()) == 3
    assert prefilter.choose_dropped(seen) == frozenset()  # 3 lines: not hot
    dropped = prefilter.choose_dropped(seen, reports=reports)
    assert {prefilter.words[i] for i in dropped} == {"loss"}
    log = bars + "loss: nan\nCUDA out of memory\n"
    assert _conditions_by_line(prefilter, log, prefilter.variant(dropped)) == _conditions_by_line(prefilter, log) == {
        3: frozenset({0}),
        4: frozenset({1}),
    }
