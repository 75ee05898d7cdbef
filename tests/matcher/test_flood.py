"""Floods settled per shape and rank (`engine._Flood`): a line whose whole effect is known only
adds to counts and moves `last_error_line`, and the scan ends exactly where it ends when every
line is read in full: every RuleHits (count, hits, first hit per rank), every LogFacts field,
the Diagnosis (evidence, lines, timestamps), whole or cut into pieces anywhere, and the
Diagnosis of the naive path."""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.matcher import Matcher, default_matcher, load_rulebook
from bot.matcher.engine import Scan, _Plan
from bot.matcher.salient import _error_kinds, repeat_effect
from tests.matcher.rulefactory import rule_doc, sig, write_rules
from tests.matcher.test_equivalence import comparable, pieces

ROOT = Path(__file__).resolve().parents[2]


class _ReadInFull(Matcher):
    """The same matcher with no flood ever settled: every candidate line goes through `_line`."""

    def plan(self, conditions: frozenset[int]) -> _Plan:
        plan = super().plan(conditions)
        plan.floods = False
        return plan


BOOK = default_matcher().rulebook
SETTLED = Matcher(BOOK, regex_timeout_s=1.0)
IN_FULL = _ReadInFull(BOOK, regex_timeout_s=1.0)
NAIVE = Matcher(BOOK, prefilter=False, regex_timeout_s=1.0)


def _pastes() -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import loggen
    finally:
        sys.path.remove(str(ROOT / "bench"))
    families = ("c10d-retry", "py-warnings", "iterations", "env-dump", "pdsh", "torchrun")
    return {f: loggen.paste(lines=1500, seed=5, family=f).splitlines(keepends=True) for f in families}


PASTES = _pastes()
# Lines that reach the edges of what a flood may settle: digits an error pattern tells apart,
# a traceback closing on an exception line, a spawn block, a Ray prefix, pdsh hosts placed late,
# a CR, non-ASCII text, a nonzero count of nan iterations, an `unless`.
SPECIAL = [
    "[rank{r}]: validation found {d} errors in batch {n}\n",
    "[rank{r}]: checker: errors=0 after {n} steps, failed={d}\n",
    "[rank{r}]:Traceback (most recent call last):\n",
    "[rank{r}]:  File \"train.py\", line {n}, in main\n",
    "[rank{r}]:RuntimeError: step {n} failed on device {d}\n",
    "-- Process {d} terminated with the following error:\n",
    "Traceback (most recent call last):\n",
    "ValueError: bad shard {n}\n",
    "(RayTrainWorker pid={n}) Setting up process group for: env:// [rank={d}, world_size=8]\n",
    "(RayTrainWorker pid={n}) connection failed after {d} tries\n",
    "worker-{d}: [launch.py:246:main] global_rank_mapping=defaultdict(<class 'list'>, {{'worker-0': [0, 1], 'worker-1': [2, 3]}})\n",
    "worker-{d}: [rank{r}]:[W1130 01:07:1{d}.230395101 socket.cpp:697] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).\n",
    "[rank{r}]:[W1130 01:07:1{d}.23039{n} socket.cpp:697] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).\r\n",
    "[rank{r}]:[W1130 01:07:1{d}.23039{n} socket.cpp:697] [c10d] The client socket has failed to connect to [node-{d}]:29500 (errno: 110 - Connection timed out).\n",
    "[rank{r}]: échec: opération failed {n}\n",
    " iteration {n}/ 250000 | lm loss: 2.6{d}E+00 | number of skipped iterations: {d} | number of nan iterations: {d} |\n",
    "worker-{r}: RuntimeError: step {n} failed\n",
    "worker-{r}: Traceback (most recent call last):\n",
    "worker sync of step {n} failed\n",
    "[rank{r}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {d}.00 GiB. GPU {r} has a total capacity of 79.15 GiB\n",
]


def _vary(line: str, rng: random.Random) -> str:
    """`line` with other digits: none, all past its first 12 characters (where a rank prefix
    stays), or each at random."""
    mode = rng.choice((0, 1, 1, 1, 2))
    if mode == 0:
        return line
    out = []
    for i, c in enumerate(line):
        if c.isdigit() and (i >= 12 if mode == 1 else rng.random() < 0.5):
            c = str(rng.randrange(10))
        out.append(c)
    return "".join(out)


def _flood_log(rng: random.Random, n_lines: int) -> str:
    """Floods of a few lines (other digits each time) from the families' pastes and `SPECIAL`,
    between runs of a paste as it was printed (its failure, windows, summaries)."""
    out: list[str] = []
    families = sorted(PASTES)
    while len(out) < n_lines:
        kind = rng.random()
        if kind < 0.25:
            paste = PASTES[rng.choice(families)]
            at = rng.randrange(len(paste))
            out += paste[at : at + rng.randrange(1, 80)]
            continue
        pool = [rng.choice(PASTES[rng.choice(families)]) for _ in range(rng.randrange(1, 4))]
        pool += [
            rng.choice(SPECIAL).format(r=rng.randrange(4), d=rng.randrange(10), n=rng.randrange(10**6))
            for _ in range(rng.randrange(0, 3))
        ]
        for _ in range(rng.randrange(5, 120)):
            out.append(_vary(rng.choice(pool), rng))
    return "".join(out)


def _state(scan: Scan) -> dict:
    """Everything a scan has gathered, compared field by field."""
    rules = {
        rid: (rh.count, sorted(rh.signatures), [dataclasses.asdict(h) for h in rh.hits],
              {r: dataclasses.asdict(h) for r, h in rh.first_by_rank.items()}, dict(rh._kept))
        for rid, rh in scan.by_rule.items()
    }  # fmt: skip
    facts = dataclasses.asdict(scan.facts)
    return {"rules": rules, "facts": facts, "lines": scan.lines, "bytes": scan.bytes, "timeouts": scan.regex_timeouts}


def _run(matcher: Matcher, data: bytes, cuts: list[bytes] | None = None, *, whole: bool = True) -> tuple[dict, dict]:
    scan = matcher.scan(whole=whole)
    for piece in cuts if cuts is not None else [data]:
        scan.feed(piece)
    diagnosis = scan.finish()
    full = dataclasses.asdict(diagnosis)
    full["stats"].pop("elapsed_ms")
    return _state(scan), full


def _same(data: bytes, rng: random.Random) -> None:
    cut = pieces(data, rng)
    for cuts, whole in ((None, True), (cut, False)):
        settled, in_full = _run(SETTLED, data, cuts, whole=whole), _run(IN_FULL, data, cuts, whole=whole)
        assert settled[0] == in_full[0]
        assert settled[1] == in_full[1]
    naive = NAIVE.diagnose(data.decode("utf-8", "surrogateescape"))
    assert comparable(SETTLED.diagnose(data.decode("utf-8", "surrogateescape"))) == comparable(naive)


@pytest.mark.parametrize("family", sorted(PASTES))
def test_a_family_paste_is_settled_exactly(family: str) -> None:
    _same("".join(PASTES[family]).encode(), random.Random(family))


def test_a_flood_is_settled_after_its_first_lines() -> None:
    """The point of it: a retry loop of one rank reaches `_line` a few times, not once a line."""
    line = next(x for x in PASTES["c10d-retry"] if "errno: 99" in x and "[localhost]" in x)
    rng = random.Random(1)
    head, tail = line[:12], line[12:]  # one rank; other timestamps
    log = "".join(head + "".join(str(rng.randrange(10)) if c.isdigit() else c for c in tail) for _ in range(500)).encode()
    scan = SETTLED.scan(whole=True)
    calls = 0
    original = scan._line

    def counting(*args: object) -> object:
        nonlocal calls
        calls += 1
        return original(*args)  # type: ignore[arg-type]  # its verdict settles the flood

    scan._line = counting  # type: ignore[method-assign]
    scan.feed(log)
    scan.finish()
    assert calls < 10
    assert _run(SETTLED, log)[0] == _run(IN_FULL, log)[0]


messages = st.text(alphabet=st.sampled_from(list("0123456789 :=-_rRoOeEsSwWaAnNiIfFlLdDcCkK")), max_size=40)
words = st.sampled_from(["error", "Error", "ERROR", " errors", "errors=", "error=", "0 error", "warning", "failed",
                         "RuntimeError:", "INFO", "no errors", "error_rate"])  # fmt: skip


@settings(max_examples=2_000, deadline=None, derandomize=True)
@given(st.lists(st.one_of(messages, words), max_size=6), st.data())
def test_a_repeat_effect_holds_for_every_digit(parts: list[str], data: st.DataObject) -> None:
    """Where `repeat_effect` says what a repeat does, `_error_kinds` answers the same on every
    message with other digits (what a settled flood rests on)."""
    message = "".join(parts)
    effect = repeat_effect(message, frozenset({"exception"}))
    if effect is None:
        return
    other = "".join(data.draw(st.sampled_from("0123456789")) if c.isdigit() else c for c in message)
    assert _error_kinds(other) == _error_kinds(message)
    assert not _error_kinds(other)[0]
    assert effect == _error_kinds(other)[1]


def test_a_flood_with_an_unless_is_settled_exactly(tmp_path: Path) -> None:
    """An unless that tells no digit apart (`warn`) answers alike on a whole shape: its lines
    settle. One that reads a digit (`device [1-3]` bars it) would need that digit in the key:
    lines its signature matches are read in full. Over four ranks, devices and counts changing,
    the hits and counts are the same as with every line read in full."""
    book = load_rulebook(
        write_rules(
            tmp_path,
            [
                rule_doc("dev", "gpu", {
                    "keywords": ["step failed"],
                    "signatures": [
                        sig("dev", r"step failed on device \d+ after \d+ tries", 0.8, unless=r"device [1-3]\b"),
                        sig("count", r"step failed .* retries left: [1-9]", 0.5, unless=r"(?i)\bwarn"),
                    ],
                }, ["x", "y"]),
                rule_doc("x", "data", {"keywords": ["zzzz"], "signatures": [sig("z", r"zzzz", 0.9)]}, ["dev", "y"]),
                rule_doc("y", "data", {"keywords": ["yyyy"], "signatures": [sig("y", r"yyyy", 0.9)]}, ["dev", "x"]),
            ],
        ),
        warnings=[],
    )
    settled, in_full = Matcher(book, regex_timeout_s=1.0), _ReadInFull(book, regex_timeout_s=1.0)
    rng = random.Random(7)
    lines = [
        f"[rank{rng.randrange(4)}]:[W1130 01:07:{rng.randrange(60):02d}] {rng.choice(('', 'WARN: ', 'Warning: '))}step failed on "
        + rng.choice((f"device {rng.choice((0, 1, 5, 12, 3))} after {rng.randrange(100)} tries", f"host node-{rng.randrange(9)}"))
        + f", retries left: {rng.randrange(3)}\n"
        for _ in range(3_000)
    ]
    data = "".join(lines).encode()
    for cuts, whole in ((None, True), (pieces(data, rng), False)):
        a, b = _run(settled, data, cuts, whole=whole), _run(in_full, data, cuts, whole=whole)
        assert a == b
        assert a[0]["rules"]["dev"][0] > 1_000  # counted, not only kept
    scan = settled.scan(whole=True)
    scan.feed(data)
    assert sum(len(f.done) for f in scan._floods.values()) > 4  # the flood did settle


def test_a_flood_settled_before_a_host_is_placed_or_a_spawn_block_opens_is_read_again() -> None:
    """Lines settled while they were plain error lines mean more once the log places their pdsh
    host (`worker-1: RuntimeError: ...` then closes that host's traceback) or opens a spawn block
    (an unprefixed line then belongs to the spawned rank): from there they are read in full."""
    rng = random.Random(3)

    def flood(template: str, n: int) -> str:
        return "".join(template.format(n=rng.randrange(10**6)) for _ in range(n))

    host_error = "worker-1: RuntimeError: step {n} failed\n"
    bare_error = "worker sync of step {n} failed\n"
    log = (
        flood(host_error, 50)
        + flood(bare_error, 50)
        + "worker-0: [launch.py:246:main] global_rank_mapping=defaultdict(<class 'list'>, {'worker-0': [0, 1], 'worker-1': [2, 3]})\n"
        + "worker-1: Traceback (most recent call last):\n"
        + flood(host_error, 50)
        + "worker-1: [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=1'] exits with return code = 1\n"
    )
    spawn = flood(bare_error, 50) + "-- Process 3 terminated with the following error:\n" + flood(bare_error, 50)
    for text in (log, spawn):
        data = text.encode()
        for cuts, whole in ((None, True), (pieces(data, rng), False)):
            assert _run(SETTLED, data, cuts, whole=whole) == _run(IN_FULL, data, cuts, whole=whole)
    scan = SETTLED.scan(whole=True)
    scan.feed(log.encode())
    assert scan.facts.host_tracebacks == {"worker-1": (103, "RuntimeError: " + log.splitlines()[102].split(": ", 2)[2])}
    scan = SETTLED.scan(whole=True)
    scan.feed(spawn.encode())
    assert 3 in scan.facts.ranks_seen


def test_the_error_patterns_tell_digits_apart_only_where_repeat_effect_looks() -> None:
    """`repeat_effect` rests on `0 errors?` and `errors?=0` being the only places the error
    patterns read a digit as itself; a pattern that reads another (`[1-9]`, `\\b5\\d\\d\\b`) must
    be added to `salient._ZERO_SENSITIVE`'s reasoning first, or floods would settle wrongly."""
    from bot.matcher.salient import _ERROR_LINE, _EXC_LINE, _NOT_ERROR

    for rx in (_EXC_LINE, _ERROR_LINE, _NOT_ERROR):
        rest = rx.pattern.replace(r"\b0 errors?\b", "").replace(r"errors?=0\b", "")
        assert not any(c.isdigit() for c in rest), rx.pattern
        assert "\\x3" not in rest and "\\u003" not in rest and "\\N{" not in rest, rx.pattern
