"""Floods of one line: the verdict per line shape is decided once, and only where it is exact."""

from __future__ import annotations

from bot.matcher import default_matcher
from bot.matcher.engine import Matcher, _digit_features, _shape_table
from bot.matcher.rulebook import Signature

MATCHER = default_matcher()
# The reference runs every regex on every line (~5 ms a line): a generous timeout, so a search
# slowed by a busy machine never skips a line here and not on the fast path.
NAIVE = Matcher(MATCHER.rulebook, prefilter=False, regex_timeout_s=1.0)
# A paste is one piece, so no line of these logs is emptied before the prefilter (`blanking`
# needs a later piece); what a flood's size must reach is its settling: one line of a key whose
# hits are all kept (`_KEEP_PER_KEY`, 2 per rank and signature) and a flood has nothing left to
# change (`test_flood.test_a_flood_is_settled_after_its_first_lines`: under 10 lines of 500).
# Floods of a few hundred lines settle as those of thousands did and cost the naive path less.


def _sig(pattern: str, unless: str | None = None) -> Signature:
    return Signature("s", pattern, 0.5, unless)


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
    """Three hundred `errno: 99` retries and one `errno: 110` two hundred lines in, long after
    the retries settled: the one that differs by a digit reaches its signature, as it does on
    the naive path."""
    retry = "[W socket.cpp:{n}] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).\n"
    lines = [retry.format(n=600 + i % 7) for i in range(300)]
    lines.insert(200, "[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-7]:29500 (errno: 110 - Connection timed out).\n")
    log = "".join(lines)
    fast = MATCHER.diagnose(log)
    naive = NAIVE.diagnose(log)
    assert [m.id for m in fast.matches] == [m.id for m in naive.matches]
    assert "c10d-store-connect-timeout" in [m.id for m in fast.matches]


def test_ranks_in_a_flood_of_one_shape_are_all_recorded() -> None:
    """Lines of one shape from different ranks: every rank's first hit is kept, as without the cache."""
    oom = "[rank{r}]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {r} has a total capacity of 79.15 GiB\n"
    log = "".join(oom.format(r=r % 8) for r in range(80))  # ten lines a rank, each repeated after its first
    fast, naive = MATCHER.diagnose(log), NAIVE.diagnose(log)
    assert fast.matches[0].ranks == naive.matches[0].ranks == list(range(8))
    assert fast.to_dict()["matches"] == naive.to_dict()["matches"]


RETRY = (
    "[rank{r}]:[W1130 01:07:{s:02d}.{us:09d} socket.cpp:697] [c10d] The client socket has failed to connect to "
    "[localhost]:29500 (errno: 99 - Cannot assign requested address).\n"
)


def test_a_retry_flood_line_arms_no_signature() -> None:
    """The c10d timeout signature requires `(errno: 110 ...` as well as its opening words: the
    engine tests the required set that does not restate a keyword, so an `errno: 99` retry
    meets no rule's condition and costs no regex, only the probes its `failed` feeds."""
    data = RETRY.format(r=3, s=13, us=230395101).encode()
    (line,), _ = MATCHER.prefilter.candidate_lines(data)
    plan = MATCHER.plan(line[2])
    assert plan.rules == ()
    assert "exception" in plan.probes


def test_a_retry_flood_diagnoses_as_the_naive_path() -> None:
    """Hundreds of retries with their timestamps and 64 ranks (each settled after its first line
    here: the retry matches no signature), and errors among them once every rank has settled."""
    lines = [RETRY.format(r=i % 64, s=i % 60, us=(i * 7919) % 10**9) for i in range(400)]
    lines.insert(250, "[rank5]:[W1130 01:07:13.2 socket.cpp:697] [c10d] The client socket has failed to connect to [node-7]:29500 (errno: 110 - Connection timed out).\n")
    lines.insert(300, "[rank9]:RuntimeError: 0 errors were expected\n")
    lines.insert(350, "[rank9]:RuntimeError: 10 errors were found\n")
    log = "".join(lines)
    fast, naive = MATCHER.diagnose(log).to_dict(), NAIVE.diagnose(log).to_dict()
    for d in (fast, naive):
        d["stats"].pop("elapsed_ms")
    assert fast == naive


def test_error_kinds_of_a_message_shape_are_those_of_every_message_of_it() -> None:
    """The probes' error classification, decided once per shape (digits 1-9 alike, 0 apart),
    is what the patterns say of each message: `0 errors` is no error, `10 errors` is one."""
    from bot.matcher import salient

    messages = [
        "RuntimeError: 10 errors were found", "RuntimeError: 0 errors were found", "step 3: 0 errors",
        "errors=0 in 12 steps", "errors=10 in 12 steps", "[W1130 01:07:13.2] The client socket has failed",
        "ValueError: bad value 7", "warning: 3 failed", "INFO 5 failed", "torch.OutOfMemoryError: CUDA out of memory",
    ]  # fmt: skip
    for message in messages:
        for digit in "0123456789":
            text = "".join(digit if c.isdigit() and i % 2 else c for i, c in enumerate(message))
            want = (
                salient._EXC_LINE.match(text) is not None,
                salient._ERROR_LINE.search(text) is not None and salient._NOT_ERROR.search(text) is None,
            )
            assert salient._error_kinds(text) == want, text


MEGATRON = (
    " [2025-11-30 01:{m:02d}:{s:02d}] iteration {it:>8d}/  250000 | consumed samples: {cs:>12d} | elapsed time per "
    "iteration (ms): {ms:.1f} | learning rate: {lr:.6E} | global batch size:  1024 | lm loss: {loss:.6E} | "
    "loss scale: 1.0 | grad norm: {gn:.3f} | number of skipped iterations: {sk:>3d} | number of nan iterations: {nan:>3d} |\n"
)


def test_a_flood_of_iteration_lines_is_a_few_shapes_and_diagnoses_as_naive() -> None:
    """Megatron prints every number of its iteration line anew; only the digits behind
    `skipped iterations:` and `nan iterations:` (and `loss scale: `) are read by a signature as
    more than a digit, so two hundred lines are a handful of shapes. One line with a skipped
    iteration, one with a NaN iteration: both still reach their signatures."""
    def line(i: int, sk: int = 0, nan: int = 0) -> str:
        return MEGATRON.format(m=i // 60 % 60, s=i % 60, it=800 + i, cs=(800 + i) * 1024, ms=1400 + (i * 37) % 300,
                               lr=1.2e-4 + i * 1e-8, loss=2.9 - i * 1e-4, gn=0.8 + (i % 50) / 100, sk=sk, nan=nan)  # fmt: skip

    lines = [line(i) for i in range(200)]
    lines[120] = line(120, sk=3)
    lines[160] = line(160, nan=2)
    log = "".join(lines)
    scan = MATCHER.scan()
    scan.feed(log.encode())
    fast = scan.finish().to_dict()
    naive = NAIVE.diagnose(log).to_dict()
    for d in (fast, naive):
        d["stats"].pop("elapsed_ms")
    assert fast == naive
    assert {m["id"] for m in fast["matches"]} >= {"loss-nan", "fp16-loss-scale-min"}
    assert len(scan._shapes) < 40  # not one per line


def test_an_unless_is_decided_on_each_line_not_its_shape() -> None:
    """`grad_norm: nan` counts unless the loss is finite and non-zero (`unless`): lines of one
    shape whose loss digits differ get different answers, as on the naive path."""
    lines = [f"{{'loss': 0.{d}{e}, 'grad_norm': nan, 'learning_rate': 1e-05, 'epoch': 0.{e}}}\n" for d in "0123" for e in "05"]
    for log in ("".join(lines), "".join(lines[:2]), "".join(lines[2:])):
        fast, naive = MATCHER.diagnose(log).to_dict(), NAIVE.diagnose(log).to_dict()
        for d in (fast, naive):
            d["stats"].pop("elapsed_ms")
        assert fast == naive, log
    only_zero = MATCHER.diagnose("".join(lines[:1])).to_dict()["matches"]  # loss 0.00: the nan counts
    finite = MATCHER.diagnose("".join(lines[1:2])).to_dict()["matches"]  # loss 0.05: it does not
    assert any(m["id"] == "loss-nan" for m in only_zero) and not any(m["id"] == "loss-nan" for m in finite)
