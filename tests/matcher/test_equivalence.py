"""The fast paths give the same diagnosis as the plain ones.

- prefilter (keywords + literals derived from the regexes) vs naive (every regex on every line),
- a log fed in random pieces vs whole, through the matcher and through the service (gzip too),
over every rule's examples, the healthy logs and a generated multi-rank log; plus the pieces the
fast paths rest on (derived literals, the `[rankN]:` shortcut) and the regex timeout.
"""

from __future__ import annotations

import functools
import gzip
import random
import sys
from pathlib import Path

import pytest

from bot.matcher import Matcher, load_rulebook
from bot.matcher.engine import rank_and_message
from bot.matcher.lines import parse_line, strip_prefixes
from bot.matcher.required import required_literals
from bot.matcher.rulebook import RuleError, default_rules_dir, rule_files
from tests.matcher.rulefactory import rule_doc, sig, write_rules

ROOT = Path(__file__).resolve().parents[2]
HEALTHY = sorted((ROOT / "tests" / "data" / "healthy").glob("*.log"))


def _load_book():
    """The knowledge base as it loads now; files still being written are left out."""
    files = rule_files(default_rules_dir())
    while True:
        try:
            return load_rulebook(files=files, warnings=[])
        except RuleError as exc:
            bad = {p.split(": ", 1)[0] for p in exc.problems}
            kept = [f for f in files if str(f) not in bad]
            if len(kept) == len(files):
                raise
            files = kept


def _generated_log(size: int = 300_000, family: str = "torchrun", **kw) -> str:
    """A log from the benchmark's generator (bench/loggen.py)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import loggen
    finally:
        sys.path.remove(str(ROOT / "bench"))
    import io

    buf = io.BytesIO()
    loggen.generate(buf, size, family, **kw)
    return buf.getvalue().decode("utf-8")


BOOK = _load_book()
# The paths are compared, not the regex timeout (tested on its own below): a generous one, so a
# search slowed by a busy machine never skips a line on one path and not on the other.
FAST = Matcher(BOOK, regex_timeout_s=1.0)
NAIVE = Matcher(BOOK, prefilter=False, regex_timeout_s=1.0)
LOGS = (
    [(f"{r.id}:match:{e.name[:30]}", e.log) for r in BOOK for e in r.examples]
    + [(f"{r.id}:near_miss:{e.name[:30]}", e.log) for r in BOOK for e in r.near_misses]
    + [(f"healthy:{p.name}", p.read_text(encoding="utf-8", errors="replace")) for p in HEALTHY]
    + [("generated:700-ranks", _generated_log(ranks=700, seed=3, failure_at=0.5))]
)
IDS = [name for name, _ in LOGS]
_LOG_BY_NAME = dict(LOGS)


def comparable(d, *, timeouts: bool = True) -> dict:
    out = d.to_dict()
    out["stats"].pop("elapsed_ms")
    if not timeouts:
        # The naive path runs more regexes, so on a loaded machine it may time out on more.
        out["stats"].pop("regex_timeouts")
    return out


@functools.cache
def naive_comparable(name: str) -> dict:
    """The naive path's diagnosis of the log of LOGS called `name`, as `comparable` without the
    timeouts. It is the reference three tests compare a fast path with; working it out over
    LOGS costs ~20 s of CPU (every regex on every line), so each log's is worked out once."""
    return comparable(NAIVE.diagnose(_LOG_BY_NAME[name]), timeouts=False)


def pieces(data: bytes, rng: random.Random) -> list[bytes]:
    """`data` cut at random places: inside lines, inside UTF-8 sequences, tiny and large pieces."""
    out, i = [], 0
    while i < len(data):
        n = rng.choice((1, 2, 7, 64, 333, 4096, 65536))
        out.append(data[i : i + n])
        i += n
    return out


@pytest.mark.parametrize(("name", "log"), LOGS, ids=IDS)
def test_prefilter_matches_naive(name, log):
    """Keywords and derived literals only skip lines on which no signature could match."""
    assert comparable(FAST.diagnose(log), timeouts=False) == naive_comparable(name)


@pytest.mark.parametrize(("name", "log"), LOGS, ids=IDS)
def test_streamed_in_random_pieces_matches_whole(name, log):
    whole = comparable(FAST.diagnose(log))
    data = log.encode("utf-8", "surrogatepass")
    for seed in range(3):
        assert comparable(FAST.diagnose_chunks(pieces(data, random.Random(seed)))) == whole, seed


# Every log of LOGS is scanned in each mode below, a share of them per test: the whole book in
# one test ran past the per-test timeout on a loaded machine (each log compiles databases of its own).
_SHARDS = 6


@pytest.mark.parametrize("shard", range(_SHARDS))
@pytest.mark.parametrize(
    ("threshold", "seed", "chosen"),
    [
        # Every literal that may leave the database leaves (`Prefilter.choose_dropped`): each
        # condition is decided from one side in the database and the other tested on the line.
        ("_REPORTS_PER_TEST", 11, "dropped"),
        # Every derived literal is left untested (`Prefilter.choose_relaxed`): conditions are met
        # on the rules' keywords alone, and the regexes (once per line shape) decide.
        ("_REPORTS_PER_CANDIDATE", 12, "relaxed"),
    ],
    ids=["dropped", "relaxed"],
)
def test_every_literal_the_sample_lets_go_goes_and_the_diagnosis_stands(monkeypatch, threshold, seed, chosen, shard):
    """After its sample a scan settles on a database without the literals the log repeats;
    here the sample is the first piece and every literal that may go goes, and the diagnosis
    is still the naive path's."""
    from bot.matcher import engine, prefilter

    logs = LOGS[shard::_SHARDS]
    naive = {name: naive_comparable(name) for name, _ in logs}  # before the knobs below move
    monkeypatch.setattr(engine, "LEARN_BYTES", 1)
    monkeypatch.setattr(prefilter, "_HOT_LINES", 1)
    monkeypatch.setattr(prefilter, threshold, 0)
    rng = random.Random(seed * _SHARDS + shard)
    chosen_somewhere = set()
    for name, log in logs:
        data = log.encode("utf-8", "surrogatepass")
        scan = FAST.scan()
        for piece in pieces(data, rng):
            scan.feed(piece)
        got = scan.finish()
        chosen_somewhere |= getattr(scan.variant, chosen)
        assert comparable(got, timeouts=False) == naive[name], name
    assert len(chosen_somewhere) > 50  # the path under test really ran


def test_a_paste_takes_no_sample_and_keeps_every_literal(monkeypatch):
    """A log in one piece (`Matcher.diagnose`, a paste) is scanned with the full database and
    counts nothing for a choice no later piece would use; the same log streamed chooses."""
    from bot.matcher import engine, prefilter

    monkeypatch.setattr(engine, "LEARN_BYTES", 1)
    monkeypatch.setattr(prefilter, "_HOT_LINES", 1)
    log = "\n".join(f"[rank{r}]: step {s} loss: 2.{s} grad norm: 1.{r} number of nan iterations: 0" for s in range(50) for r in range(4))
    whole = FAST.scan(whole=True)
    whole.feed(log.encode())
    assert whole.variant is FAST.prefilter.full and whole._sample is None
    streamed = FAST.scan()
    for line in log.encode().splitlines(keepends=True):
        streamed.feed(line)
    assert streamed.left_out()  # the streamed scan did choose: the comparison means something
    assert comparable(whole.finish()) == comparable(streamed.finish())


def test_hits_counted_without_their_time_change_no_diagnosis(monkeypatch):
    """A hit a rule would drop is counted without reading its line's time
    (`RuleHits.saturated`); with every hit built in full, every diagnosis is the same."""
    from bot.matcher import engine

    # The stride sample moves whenever the knowledge base gains an example, so it may miss every
    # log that saturates; the healthy socket-only init log (repeated 'via NET/Socket' channels on
    # every rank) always does, and does not move.
    socket_only = [(n, lg) for n, lg in LOGS if n == "healthy:nccl-socket-only-init.log"]
    logs = LOGS[:: max(1, len(LOGS) // 60)] + socket_only + LOGS[-1:]
    real, skipped = engine.RuleHits.saturated, []

    def counting(self, signature, rank, line):
        answer = real(self, signature, rank, line)
        skipped.append(answer)
        return answer

    monkeypatch.setattr(engine.RuleHits, "saturated", counting)
    fast = [comparable(FAST.diagnose(log), timeouts=False) for _, log in logs]
    assert any(skipped)  # some hits really were only counted
    monkeypatch.setattr(engine.RuleHits, "saturated", lambda self, signature, rank, line: False)
    full = [comparable(FAST.diagnose(log), timeouts=False) for _, log in logs]
    assert fast == full


def test_byte_by_byte_matches_whole():
    name, log = next((n, lg) for n, lg in LOGS if n.startswith("nccl-watchdog-timeout:match"))
    data = log.encode()
    assert comparable(FAST.diagnose_chunks([data[i : i + 1] for i in range(len(data))])) == comparable(
        FAST.diagnose(log)
    ), name


def test_service_stream_and_gzip_match_whole():
    """The upload / CLI path (re-cut lines, ingest, gzip) diagnoses as the matcher does."""
    from bot.service import Denpex

    app = Denpex(FAST)
    for name, log in LOGS[:: max(1, len(LOGS) // 25)] + LOGS[-1:]:
        want = FAST.diagnose(log).to_dict()
        want.pop("stats")
        data = log.encode()
        for i, chunks in enumerate((pieces(data, random.Random(1)), pieces(gzip.compress(data), random.Random(2)))):
            got = app.diagnose_stream(chunks, mask=False).diagnosis.to_dict()
            got.pop("stats")
            assert got == want, (name, "gzip" if i else "plain")


def test_derived_literals_are_on_every_matching_line():
    """A line a signature matches holds one literal of each set derived from its regex."""
    checked = 0
    for rule in BOOK:
        for s in rule.signatures:
            sets = required_literals(s.pattern)
            for ex in rule.examples:
                for line in ex.log.splitlines():
                    if sets and s.compiled.search(line):
                        low = line.encode("utf-8", "surrogatepass").lower()
                        for lits in sets:
                            assert any(w.encode() in low for w in lits), (rule.id, s.name, line, lits)
                        checked += 1
    assert checked > 0


@pytest.mark.parametrize(
    ("pattern", "must", "never"),
    [
        (r"NET/IB\s*:\s*Got completion from peer", {"got completion from peer"}, None),
        (r"(?:CUDA|HIP) out of memory", {"cuda out of memory", "hip out of memory"}, None),
        (r"[Ee]rror: bad thing", {"error: bad thing"}, None),
        (r"(?:torch\.)?OutOfMemoryError", {"outofmemoryerror"}, None),
        (r"foo\d+bar|bazqux", None, None),  # `foo`/`bar` are too short to prove anything
        (r"(?:abcdef){e<=1}", None, None),  # fuzzy matching: literals prove nothing
        (r"(?i)fallen off the bus", {"fallen off the bus", "\u017f"}, None),  # (?i)s also matches \u017f
        (r"(?fi)strasse kaputt", None, None),  # full case folding: ss ~ \u00df
        (r"\w+ \d+", None, None),
        (r"(?P<t>\d) then (?P=t) again and again", {" again and again"}, None),  # backreference: opaque
        (r"(?i:loss) is NaN(?=!)", {"loss is nan", "\u017f"}, {"loss is nan!"}),  # a lookahead consumes nothing
    ],
    ids=["net-ib", "alternation", "class", "optional-group", "too-short", "fuzzy", "ignorecase-folds",
         "fullcase", "classes-only", "named-backreference", "scoped-flag-lookahead"],
)
def test_required_literals(pattern, must, never):
    got = required_literals(pattern)
    if must is None and never is None:
        assert got == ()
    if must is not None:
        assert frozenset(must) in got
    if never is not None:
        assert not any(s & never for s in got)


def test_case_insensitive_literals_stay_sound():
    """Characters that fold onto ASCII (K Kelvin, \u017f, \u0130) still meet the derived sets."""
    import regex

    for pattern, text in [
        (r"(?i)fallen off the bus", "GPU has fallen off the bu\u017f"),
        (r"(?i)link down", "LINK DOWN"),
        (r"(?i)kill process", "\u212aILL PROCESS"),
        (r"(?i)dist init", "D\u0130ST INIT"),
    ]:
        assert regex.search(pattern, text)
        low = text.encode().lower()
        sets = required_literals(pattern)
        assert sets
        for lits in sets:
            assert any(w.encode() in low for w in lits), (pattern, lits)


def _lines_of_every_shape():
    yield from (line for _, log in LOGS[:200] for line in log.splitlines()[:60])
    yield from [
        "[rank3]:[default1]:oops",
        "[default2]:[rank12]:RuntimeError: x",
        "[rank4]:3: srun-prefixed",
        "[rank1234567]:too many digits",
        "[rank٣]:arabic digit",
        "[rank5]:٣ leading digit",
        "[rank5]:",
        "[rank]:no digits",
        "host-1: [rank7]:hello",
        "[default0]:[W1130 04:22:55.1 3302 ProcessGroupNCCL.cpp:607] [Rank 9] msg",
        "[rank0]:node:12:13 [0] NCCL INFO comm 0x1 rank 0 nranks 8",
    ]


def test_rank_shortcut_agrees_with_parse_line():
    from bot.matcher.lines import LineReader

    reader = LineReader()
    for line in _lines_of_every_shape():
        want = (parse_line(line).rank, strip_prefixes(line))
        assert rank_and_message(line) == want, line
        assert rank_and_message(line, reader) == want, line


def test_pathological_line_is_bounded_and_reported(tmp_path):
    """A regex that backtracks forever on one line times out there; the log is still diagnosed."""
    book = load_rulebook(
        write_rules(
            tmp_path,
            [
                rule_doc("slow", "code", {"keywords": ["aaaa"], "signatures": [sig("s", r"(a+)+b", 0.9)]}, ["oom", "x"]),
                rule_doc("oom", "memory", {"keywords": ["out of memory"], "signatures": [sig("o", r"CUDA out of memory", 0.9)]}, ["slow", "x"]),
                rule_doc("x", "data", {"keywords": ["zzzz"], "signatures": [sig("z", r"zzzz", 0.9)]}, ["slow", "oom"]),
            ],
        ),
        warnings=[],
    )
    log = "[rank0]: step 1\n[rank1]: " + "a" * 5000 + "!\n[rank1]: torch.OutOfMemoryError: CUDA out of memory.\n"
    for prefilter in (True, False):
        d = Matcher(book, prefilter=prefilter, regex_timeout_s=0.01).diagnose(log)
        assert d.stats.regex_timeouts >= 1
        assert d.to_dict()["stats"]["regex_timeouts"] == d.stats.regex_timeouts
        assert d.root is not None and d.root.id == "oom"


def test_a_window_signature_is_gated_by_its_first_lines_literals(tmp_path):
    """A signature spanning lines is opened only on lines holding the literals of its match's
    opening (before the first `\\s` that may take the newline), and still finds every match the
    naive path finds, the wrapped one included."""
    docs = [
        rule_doc("wd", "network", {"keywords": ["alpha"], "signatures": [
            sig("wrapped", r"Alpha failure detected\s+by the beta monitor", 0.6, lines=2)]}, ["other", "third"]),
        rule_doc("other", "code", {"keywords": ["zzz"], "signatures": [sig("z", "zzz", 0.9)]}, ["wd", "third"]),
        rule_doc("third", "code", {"keywords": ["yyy"], "signatures": [sig("y", "yyy", 0.9)]}, ["wd", "other"]),
    ]  # fmt: skip
    book = load_rulebook(write_rules(tmp_path, docs))
    fast, naive = Matcher(book), Matcher(book, prefilter=False)
    (derived,) = fast._derived["wd"]
    assert derived == frozenset({"alpha failure detected"})
    chatter = "[rank1]: alpha phase 3\n" * 50
    for log in (
        chatter + "[rank2]: ALPHA failure detected\n[rank2]: by the beta monitor\n",
        chatter + "[rank2]: Alpha failure detected by the beta monitor\n",
        chatter + "[rank2]: Alpha failure\n[rank2]: detected by the beta monitor\n",  # no match either way
    ):
        assert comparable(fast.diagnose(log)) == comparable(naive.diagnose(log))
    assert [m.id for m in fast.diagnose(chatter + "[rank2]: Alpha failure detected\n[rank2]: by the beta monitor\n").matches] == ["wd"]
