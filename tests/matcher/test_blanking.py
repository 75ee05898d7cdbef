"""Blanking (`bot.matcher.blanking`): the lines of settled flood keys are emptied from later
pieces before the prefilter scans them, exactly those lines, and a scan that empties them ends
exactly where one that reads every line in full ends."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.matcher.blanking import Blanker, Literals
from tests.matcher.test_equivalence import _generated_log
from tests.matcher.test_flood import IN_FULL, PASTES, SETTLED, _run

LITERALS = Literals(["sig 7", "c10d"], ["nranks"], ["node_rank"])
# Digits 1-3 alike, as `Plan.shape` maps them for a pattern reading `[1-3]`.
SHAPE = bytes.maketrans(b"0123456789", b"0111456789")


def _reads_as(line: bytes, raw: bytes, rank: tuple[int, int], marks: tuple[int, ...]) -> bool:
    """The definition blanking implements: same text, the rank's digits and those of a literal
    with digits as they were, a mark's digit in its class, any other digit free."""
    if len(line) != len(raw) or b"nranks" in raw.lower():
        return False
    pinned = set(range(*rank))
    zeroed = raw.lower().translate(bytes.maketrans(b"123456789", b"000000000"))
    for word in (b"sig 0", b"c00d"):
        at = zeroed.find(word)
        while at >= 0:
            pinned.update(range(at, at + len(word)))
            at = zeroed.find(word, at + 1)
    for p, (a, b) in enumerate(zip(line, raw, strict=True)):
        if not chr(b).isdigit() or p in pinned:
            if a != b:
                return False
        elif not chr(a).isdigit() or (p in marks and SHAPE[a] != SHAPE[b]):
            return False
    return True


text = st.one_of(st.text(alphabet=st.sampled_from("ab :[]().7"), max_size=6), st.sampled_from(["sig 7", "SIG 3", "c10d", "nranks "]))
digits = st.text(alphabet=st.sampled_from("0123456789"), min_size=1, max_size=3)


@st.composite
def lines(draw: st.DrawFn) -> tuple[bytes, tuple[int, int], tuple[int, ...]]:
    """A settled line: a rank prefix (or none), text and digits, and the places of its marks."""
    ranked = draw(st.booleans())
    head = "[rank" if ranked else ""
    rank = draw(digits) if ranked else ""
    body = "".join(draw(st.lists(st.one_of(text, digits), max_size=8)))
    raw = (head + rank + ("]:" if ranked else "") + body).encode()
    span = (len(head), len(head) + len(rank))
    places = [p for p in range(span[1], len(raw)) if chr(raw[p]).isdigit()]
    marks = tuple(sorted(draw(st.sets(st.sampled_from(places)))) if places else ())
    return raw, span, marks


def _variant(raw: bytes, rng: random.Random) -> bytes:
    return bytes(rng.choice(b"0123456789") if chr(b).isdigit() and rng.random() < 0.3 else b for b in raw)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(lines(), min_size=1, max_size=6), st.integers(0, 2**32))
def test_a_line_is_emptied_exactly_when_it_reads_as_a_settled_one(settled, seed):
    rng = random.Random(seed)
    blanker = Blanker(LITERALS)
    for raw, rank, marks in settled:
        blanker.add(raw, rank, marks, SHAPE, (), False, False)
    candidates = [_variant(raw, rng) for raw, _, _ in settled for _ in range(6)] + [raw for raw, _, _ in settled]
    candidates += [c + b"1" for c in candidates[:3]] + [b"", b"[rank1]:"]
    piece = b"".join(c + b"\n" for c in candidates)
    out = blanker.blank(piece, 0, len(piece), plain=True)
    kept = out.chunk[out.begin : out.end].split(b"\n")[:-1]
    assert len(kept) == len(candidates)  # every newline stays: line numbers stand
    for line, after in zip(candidates, kept, strict=True):
        expected = any(_reads_as(line, raw, rank, marks) for raw, rank, marks in settled)
        assert after == (b"" if expected else line), (line, settled)


def test_counts_and_the_last_error_line_come_from_the_lines_emptied():
    class Hits:
        count = 0

    hits = Hits()
    blanker = Blanker(LITERALS)
    blanker.add(b"[rank3]:retry 12 failed", (5, 6), (), None, (hits, hits), True, False)
    piece = b"".join(
        (b"[rank3]:retry %02d failed\n" % n if n % 3 else b"[rank4]:retry 05 failed\n") for n in range(1, 11)
    )
    out = blanker.blank(piece, 0, len(piece), plain=False)
    assert out.emptied == 7 and hits.count == 14  # the same RuleHits twice: two counts a line
    assert out.last_error == 10  # line 10 of the piece (retry 10) is the last one emptied
    # A group of plans with probes is left alone unless the facts are plain, and stay so over
    # the piece (no line that could place a host or open a spawn block).
    blanker.add(b"[rank4]:retry 05 failed", (5, 6), (), None, (), True, True)
    assert blanker.blank(piece, 0, len(piece), plain=False).emptied == 7
    assert blanker.blank(piece, 0, len(piece), plain=True).emptied == 10
    unsettling = piece + b"NODE_RANK=3\n"
    assert blanker.blank(unsettling, 0, len(unsettling), plain=True).emptied == 7


def test_a_run_of_free_digits_is_one_counted_class():
    """`re` steps through its pattern op by op: a flood line's timestamp is one `[0-9]{n}` a run,
    not n classes in a row (a quarter of the substitution's time on c10d-retry's retry line)."""
    blanker = Blanker(LITERALS)
    blanker.add(b"[rank3]:[W1130 01:08:33.310453432 socket.cpp:697] retry", (5, 6), (), None, (), False, False)
    piece = b"[rank3]:[W1201 11:18:03.999453432 socket.cpp:123] retry\n" * 2
    assert blanker.blank(piece, 0, len(piece), plain=True).emptied == 2
    (group,) = blanker._groups.values()
    assert b"[0-9]{4}\\ [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{9}\\ socket\\.cpp:[0-9]{3}\\]" in group.rx.pattern


def test_two_lines_settled_for_the_same_ranks_share_their_text_up_to_where_they_differ():
    """Ranks go into the trie in order: two lines settled for the same ranks, in any order, spell
    them alike, so the substitution reads their shared head once (c10d-retry's two retry lines,
    `[localhost]` and `[::ffff:127.0.0.1]`, each of every rank)."""
    blanker = Blanker(LITERALS)
    ranks = list(range(300))
    for rank in ranks:
        blanker.add(b"[rank%d]:retry to [localhost] failed" % rank, (5, 5 + len(str(rank))), (), None, (), False, False)
    for rank in reversed(ranks):
        blanker.add(b"[rank%d]:retry to [::1] failed" % rank, (5, 5 + len(str(rank))), (), None, (), False, False)
    piece = b"[rank7]:retry to [localhost] failed\n[rank299]:retry to [::1] failed\n[rank300]:retry to [::1] failed\n"
    assert blanker.blank(piece, 0, len(piece), plain=True).emptied == 2
    (group,) = blanker._groups.values()
    assert group.rx.pattern.count(b"retry") == 1  # one rank trie, then `[localhost` or `[::`


def test_a_group_that_stops_paying_is_retired_until_a_new_line_settles_in_it():
    """A substitution costs about 2 ms a megabyte: a settled line that has stopped coming (its
    rank moved on) is no longer looked for after two pieces that empty under a line a KB. A line
    that stops because its shape changed (Megatron's iteration counter reaching 100000) settles
    again as a new line of the same group (the same effect): the group is tried again."""
    blanker = Blanker(LITERALS)
    blanker.add(b"[rank3]:iteration 99998 ok", (5, 6), (), None, (), False, False)
    old = b"[rank3]:iteration 99999 ok\n" * 2000
    new = b"[rank3]:iteration 100000 ok\n" * 2000
    assert blanker.blank(old, 0, len(old), plain=True).emptied == 2000
    assert blanker.blank(new, 0, len(new), plain=True).emptied == 0
    assert blanker.blank(new, 0, len(new), plain=True).emptied == 0
    # Retired: the old lines come back to be read one by one (which is always right), and a
    # known line settled for another rank (NCCL's chatter moving on) leaves it retired.
    assert blanker.blank(old, 0, len(old), plain=True).emptied == 0
    blanker.add(b"[rank4]:iteration 99998 ok", (5, 6), (), None, (), False, False)
    assert blanker.blank(old.replace(b"rank3", b"rank4"), 0, len(old), plain=True).emptied == 0
    blanker.add(b"[rank3]:iteration 100001 ok", (5, 6), (), None, (), False, False)
    assert blanker.blank(new, 0, len(new), plain=True).emptied == 2000



def test_a_retired_group_is_tried_again_once_it_holds_twice_the_lines_it_was_retired_with():
    """NCCL's chatter settles a new line now and then and mostly moves on: a try costs a
    compile and a substitution a piece, so a retired group is not tried on each new line, only
    once its lines have doubled (a few tries however long the log)."""
    blanker = Blanker(LITERALS)
    words = [b"alpha", b"beta", b"gamma", b"delta"]
    for word in words[:2]:
        blanker.add(b"[rank3]:%s 1 ok" % word, (5, 6), (), None, (), False, False)
    quiet = b"[rank3]:nothing settled here\n" * 2000
    alpha = b"[rank3]:alpha 2 ok\n" * 2000
    assert blanker.blank(quiet, 0, len(quiet), plain=True).emptied == 0
    assert blanker.blank(quiet, 0, len(quiet), plain=True).emptied == 0  # retired with 2 lines
    blanker.add(b"[rank3]:gamma 1 ok", (5, 6), (), None, (), False, False)
    assert blanker.blank(alpha, 0, len(alpha), plain=True).emptied == 0  # 3 lines: still retired
    blanker.add(b"[rank3]:delta 1 ok", (5, 6), (), None, (), False, False)
    assert blanker.blank(alpha, 0, len(alpha), plain=True).emptied == 2000  # 4: tried again

def _emptied(cuts: list[bytes]) -> int:
    """Lines emptied by blanking while a scan is fed `cuts` (read off `Blanked.emptied`)."""
    scan = SETTLED.scan()
    emptied = 0
    blank = scan._blanker.blank

    def counting(*args, **kwargs):
        nonlocal emptied
        out = blank(*args, **kwargs)
        emptied += out.emptied
        return out

    scan._blanker.blank = counting  # type: ignore[method-assign]
    for piece in cuts:
        scan.feed(piece)
    scan.finish()
    return emptied


def _retry_flood(seed: int) -> tuple[bytes, list[bytes]]:
    """A c10d retry flood of 20,000 lines from 8 ranks between a job's first and last lines of
    its c10d-retry paste, and the log cut in 64 KB pieces."""
    line = next(x for x in PASTES["c10d-retry"] if "errno: 99" in x and "[localhost]" in x)
    rng = random.Random(seed)
    tail = line[line.index("]:") :]
    body = "".join(
        f"[rank{rng.randrange(8)}" + "".join(str(rng.randrange(10)) if c.isdigit() else c for c in tail)
        for _ in range(20_000)
    )
    log = ("".join(PASTES["c10d-retry"][:200]) + body + "".join(PASTES["c10d-retry"][-300:])).encode()
    return log, [log[i : i + 65_536] for i in range(0, len(log), 65_536)]


def test_a_retry_flood_in_pieces_is_emptied_before_the_scan_and_ends_as_read_in_full():
    """The point of it: after its first lines, a retry loop's lines of every rank never reach the
    prefilter's callbacks; the scan's state is the one of reading every line in full."""
    log, cuts = _retry_flood(2)
    emptied = _emptied(cuts)
    assert emptied > 18_000
    assert _run(SETTLED, log, cuts, whole=False) == _run(IN_FULL, log, cuts, whole=False)


def test_settled_lines_stay_emptied_when_the_prefilter_samples_the_log_again(monkeypatch):
    """A new sample changes which literals the prefilter looks for, never what a line does: a
    condition's derived side is required by its regex, so a signature the new database lets a
    line meet matches only where the old one let it too, and a line that reads as a settled
    one holds the same literals (their digits are pinned). So the settled lines are emptied
    on through every sample (they used to settle again from nothing after each, 32 MB apart:
    c10d-retry at 100 MB read ~100 ms of retries one by one each time), and the scan still ends
    as read in full."""
    from bot.matcher import engine

    monkeypatch.setattr(engine, "LEARN_BYTES", 128 * 1024)
    monkeypatch.setattr(engine, "RESAMPLE_BYTES", 64 * 1024)
    monkeypatch.setattr(engine, "RESAMPLE_EVERY", 256 * 1024)
    log, cuts = _retry_flood(3)
    assert _emptied(cuts) > 18_000  # of 20,000, with a sample every 256 KB (about 1,300 lines)
    assert _run(SETTLED, log, cuts, whole=False) == _run(IN_FULL, log, cuts, whole=False)


# Lines each family's log empties at least (of 10-23 thousand): pdsh none, its lines behind
# placed hosts are read in full (`LogFacts.plain`); py-warnings none at this size, no key of its
# warnings repeats BLANK_AFTER times.
# torchrun's flood lines settle per rank and then mostly move on: its groups are retired after
# two pieces that empty less than a line a kilobyte (`Blanker.blank`), so few lines go.
EMPTIED = {"c10d-retry": 5_000, "env-dump": 2_000, "iterations": 2_000, "torchrun": 20, "py-warnings": 0, "pdsh": 0}


@pytest.mark.parametrize("family", sorted(EMPTIED))
def test_every_family_read_as_the_cli_reads_it_ends_as_read_in_full(family):
    """The production path: a family's log (its failure and collateral in it) fed in 256 KB
    pieces, as `denpex diagnose` reads a file in pieces, empties settled lines and ends with
    every RuleHits, every LogFacts field and the Diagnosis of reading each line in full."""
    log = _generated_log(2_500_000, family, seed=11, failure_at=0.8).encode()
    cuts = [log[i : i + 262_144] for i in range(0, len(log), 262_144)]
    emptied = _emptied(cuts)
    assert emptied >= EMPTIED[family]
    assert _run(SETTLED, log, cuts, whole=False) == _run(IN_FULL, log, cuts, whole=False)
