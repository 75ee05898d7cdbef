"""The prefiltered masking path (prefilter, splice, prefix_hosts, name_scan, learned_fast)
gives byte for byte what every pass on every line gives, and skips the lines it may skip."""

from __future__ import annotations

import random
import re

import hyperscan as hs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.masking import Masker
from bot.masking.learned import mask_learned_names
from bot.masking.name_scan import NameScanner
from bot.masking.prefilter import ANCHORS, hot_runs, scan_anchors
from bot.masking.splice import gather, scatter
from bot.masking.state import LogState

NCCL = "[rank{r}]:gpu-node-{n:03d}:2{r:04d}:3{r:04d} [{d}] NCCL INFO Channel 0{d}/0 : {r}[{d}] -> {s}[{d}] via P2P/IPC/read"


def nccl(r: int) -> str:
    return NCCL.format(r=r, n=r // 8, d=r % 8, s=r + 1)


def both(pieces: list[str]) -> tuple[list[str], list[str], dict[str, int], dict[str, int]]:
    fast, full = Masker(), Masker(prefilter=False)
    a = [fast.mask(p) for p in pieces]
    b = [full.mask(p) for p in pieces]
    return a, b, fast.counts, full.counts


def assert_same(pieces: list[str]) -> None:
    a, b, ca, cb = both(pieces)
    assert a == b
    assert ca == cb and list(ca) == list(cb)


def test_line_without_anchor_is_not_hot():
    text = "first line\n" + nccl(9) + "\n" + nccl(10) + "\n" + "x" * 80 + "\n"
    runs = hot_runs(text, scan_anchors(text, hs.Scratch(ANCHORS)))
    hot = gather(text, runs)
    assert nccl(9) not in hot and nccl(10) not in hot
    assert hot.startswith("first line\n") and hot.endswith("x" * 80 + "\n")


def test_anchor_lines_are_hot():
    lines = [nccl(i) for i in range(40)]
    lines[20] = "export HF_TOKEN=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"
    lines[30] = nccl(30) + " peer 10.1.2.3<0>"
    text = "\n".join(lines) + "\n"
    hot = gather(text, hot_runs(text, scan_anchors(text, hs.Scratch(ANCHORS))))
    assert lines[20] in hot and lines[30] in hot
    assert lines[25] not in hot


def test_lines_of_tqdm_bars_are_hot_once_each_and_the_piece_keeps_its_prefilter():
    bar = "\r".join(f"{p:3d}%|{'█' * (p // 10) + '▌':<11}| {p}/100 [00:{p:02d}<01:00,  1.52s/it]" for p in range(40, 80))
    lines = [nccl(i) for i in range(400)]
    for i in range(0, 400, 20):
        lines[i] = "[rank0]:" + bar
    lines[7] = nccl(7) + " what? why?"
    text = "\n".join(lines) + "\n"
    anchors = scan_anchors(text, hs.Scratch(ANCHORS))
    assert anchors is not None  # a report per line, not per character: the scan does not give up
    hot = gather(text, hot_runs(text, anchors))
    assert all(line in hot for line in lines[::20]) and lines[7] in hot
    assert lines[5] not in hot
    assert_same([text])


def test_scatter_puts_runs_back():
    text = "a\nb\nc\nd\ne"
    runs = [(0, 2), (4, 6), (8, 9)]
    assert gather(text, runs) == "a\nc\ne"
    assert scatter(text, runs, "A\nC\nE") == "A\nb\nC\nd\nE"


def test_nccl_lines_untouched_but_for_their_host():
    text = "\n".join(nccl(i) for i in range(64)) + "\n"
    out = Masker().mask(text)
    assert "gpu-node" not in out
    assert out.count("NCCL INFO Channel") == 64
    assert_same([text])


@pytest.mark.parametrize(
    "lines",
    [
        # name learned late in the piece: earlier lines get it too, as with the full passes
        [nccl(1), "ssh alice@login7 uptime", nccl(2), "MASTER_ADDR=gpu-node-000", "done alice"],
        # a `- name:` key whose `value:` line comes after an NCCL line: no pair either way
        ["- name: DB_PASSWORD", nccl(3), "  value: Hunter2Hunter2"],
        ["- name: DB_PASSWORD", "  value: Hunter2Hunter2", nccl(3)],
        # .netrc looks back 256 characters for `machine `, /u/ 200 characters for `://`
        ["machine git.acme.internal", *[nccl(i) for i in range(5)], "password Zk9sR2xl-X3Rva2Vu"],
        ["machine git.acme.internal", nccl(1), "password Zk9sR2xl-X3Rva2Vu"],
        # the look-back window starts before a hot line that sits just above the key
        ["machine git.acme.internal", *[nccl(i) for i in range(3)], "node7.cluster.local:1:2 [0] NCCL INFO x", "password Zk9sR2xl-X3Rva2Vu"],
        ["see https://x.io", *[nccl(i) for i in range(2)], "node7.cluster.local:1:2 [0] NCCL INFO x", "cd /u/alice/run"],
        ["see https://x.io", *[nccl(i) for i in range(3)], "cd /u/alice/run"],
        ["see https://x.io", nccl(1), "cd /u/alice/run"],
        # a dotted quad after `(` on a long line reads `==` anywhere before it
        ["pkg==10.1.2.3", *[nccl(i) for i in range(8)], "x" * 600 + " (10.1.2.3)"],
        # hosts that are not learnable, or not line-leading, keep the leftover scan
        ["gpu:1:2 [0] NCCL INFO a", nccl(4)],
        [nccl(5), "wrapped " + nccl(6)],
        ["node7.cluster.local:10:11 [0] NCCL INFO Bootstrap", nccl(7)],
        # a user name that is also a prefix host
        ["USER=gpu-node-000", nccl(1)],
        # an address written out with short groups is an anchor on its own
        [nccl(1), "peer 2001:db8:85a3:0:0:8a2e:370:7334 down", nccl(2)],
        # non-ASCII and control characters make a line hot
        [nccl(1) + " é", nccl(2) + " \x1c", nccl(3)],
    ],
)
def test_prefiltered_equals_full_passes(lines):
    text = "\n".join(lines) + "\n"
    assert_same([text])
    assert_same([line + "\n" for line in lines])  # each line its own piece


def test_anchor_at_piece_edges_and_random_cuts():
    rng = random.Random(5)
    specials = [
        "export HF_TOKEN=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",
        "alice@gpu-node-002:~/llm$ torchrun train.py",
        "[c10d] connect to [gpu-node-003]:29500 failed",
        "Bootstrap : Using ib0:10.16.0.10<0>",
        "-----BEGIN RSA PRIVATE KEY-----",
        "QUJDREVGR0g=",
        "-----END RSA PRIVATE KEY-----",
        "data:",
        "  token: QUJDREVGR0g=",
        "wandb: Currently logged in as: bob (acme)",
    ]
    for _ in range(30):
        lines = [nccl(rng.randrange(64)) if rng.random() < 0.8 else rng.choice(specials) for _ in range(200)]
        cuts = sorted(rng.sample(range(1, len(lines)), 6))
        pieces, last = [], 0
        for cut in [*cuts, len(lines)]:
            pieces.append("".join(line + "\n" for line in lines[last:cut]))
            last = cut
        assert_same(pieces)


def test_name_scanner_finds_what_the_regex_finds():
    rng = random.Random(3)
    alphabet = "ab-.<:x1 "
    for _ in range(300):
        names = {"".join(rng.choice("ab1-") for _ in range(rng.randrange(3, 6))) for _ in range(4)}
        names = {n for n in names if n[0].isalnum()}
        if not names:
            continue
        text = "".join(rng.choice([*alphabet, *names]) for _ in range(60))
        state = LogState()
        state.hosts.update(dict.fromkeys(names))
        expected = mask_learned_names(text, state)
        scanner = NameScanner()
        scanner.update(names)
        found = scanner.find(text, cap=10_000)
        placeholders = {name: state.table.placeholder_of(name) for _, _, name in found}
        out, pos = [], 0
        for start, end, name in found:
            out += [text[pos:start], placeholders[name] or "?"]
            pos = end
        out.append(text[pos:])
        assert "".join(out) == expected


_PIECES = ["0", "1", "9", ".", ":", "a", "F", "x", " ", "]", "=", "==", "::", "10.1.2.3", "fe80:", "abcd:",
           "NCCL", " NCCL", ":12 NCCL", ".internal", ".com", "hf_", "@", "://", "token", "password", "/", "+", "é"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=40).map("".join))
def test_anchor_scan_finds_what_python_finds(text):
    """Every anchor Python's own search finds, Hyperscan reports too: the prefilter's safety
    rests on the engine missing nothing (Vectorscan has had false negatives in other shapes)."""
    from bot.masking import prefilter as P

    data = text.encode("ascii", errors="replace")
    literals = (*P._WORDS, *P._TOKEN_PREFIXES, *P._BLOCK_LITERALS)
    want = {i for i, w in enumerate(literals) if w.encode().lower() in data.lower()}
    want |= {len(literals) + j for j, p in enumerate(P._PATTERNS) if re.search(p.encode(), data)}
    got: set[int] = set()
    ANCHORS.scan(data, match_event_handler=lambda i, *_: got.add(i), scratch=hs.Scratch(ANCHORS))
    assert want <= got, (text, sorted(want - got))


# The prefix split as first written (`(?:X)?` groups, class escapes): the language the cheaper
# spellings in prefix_hosts must keep.
_SPLIT_AS_WRITTEN = re.compile(
    r"(\n(?:\[[\w,.-]{1,32}\](?:<\w{1,8}>)?: ?)?)([^\s:\[\]<>|]{1,253})"
    r"(?=:\d{1,10}:\d{1,10} \[\d{1,4}\] (?:NCCL|[\w./-]{1,128}:\d{1,6} NCCL))"
)
_LEADS = ["", "[rank7]", "[rañk7]", "[rank٣]", "[rank7]<stdöut>", "[local_rank1]", "[default3]", "[r,a.n-k]", "[" + "w" * 32 + "]", "[" + "w" * 33 + "]",
          "[rank7]<stdout>", "[rank7]<std_out>", "[rank7]<" + "s" * 9 + ">", "[é]", "[rank 7]", "[]"]
_SEPS = ["", ":", ": ", ":  ", " "]
_HOSTS = ["gpu-node-001", "gpu_node_2", "h" * 253, "h" * 254, "node.é", "a|b", "n<1", "x\ty", "x\x0by", "x\x0cy", "x\ry", "x\x1cy", "x\x1fy", "x\x1by", "\u00a0n", "٣", "n\u2028o", "n\u3000o", "nödé", "ǅ", "\U0001f600", ""]
_TAILS = [":12:34 [3] NCCL INFO x", ":1234567890:1 [0] NCCL", ":12345678901:1 [0] NCCL",
          ":1:1234567890 [0] NCCL", ":1:12345678901 [0] NCCL", ":1:2 [12345] NCCL",
          ":1:2 [1234] NCCL", ":1:2 [3] net_ib.cc:1696 NCCL WARN", ":1:2 [3] " + "f" * 128 + ":1 NCCL",
          ":1:2 [3] " + "f" * 129 + ":1 NCCL", ":1:2 [3] x.cc:1234567 NCCL", ":٣:2 [3] NCCL", ":1:2 [٣] NCCL", ":1:2 [3] x٣.cc:1 NCCL", ":1:2 [3] x.cc:٣ NCCL", ":1:2\u00a0[3] NCCL", ":1:2 [3]  NCCL",
          ":1:2 [3] NCCLX", ":1:2 [3]\x0bNCCL", ": [3] NCCL", ""]  # fmt: skip
_prefix_line = st.tuples(*(st.sampled_from(x) for x in (_LEADS, _SEPS, _HOSTS, _TAILS))).map("".join)


def test_prefix_split_is_the_split_as_first_written_on_every_combination():
    import itertools

    lines = ["".join(parts) for parts in itertools.product(_LEADS, _SEPS, _HOSTS, _TAILS)]
    _check_prefix_split("\n".join(line for line in lines if line.isascii()))  # one-byte str
    _check_prefix_split("\n".join(lines))
    _check_prefix_split("\n".join(lines) + "\U0001f600")  # four-byte str


@settings(max_examples=300, deadline=None)
@given(st.lists(_prefix_line, min_size=1, max_size=8).map("\n".join))
def test_prefix_split_is_the_split_as_first_written(text):
    _check_prefix_split(text)


def _check_prefix_split(text: str) -> None:
    from bot.masking import prefix_hosts
    from bot.masking._prefix_split import replace_hosts, scan, split

    want = _SPLIT_AS_WRITTEN.split("\n" + text)
    assert prefix_hosts._SPLIT.split("\n" + text) == want
    assert split("\n" + text) == want
    spans, hosts = scan(text)
    matches = list(_SPLIT_AS_WRITTEN.finditer("\n" + text))
    assert memoryview(spans).cast("n").tolist() == [at for m in matches for at in (m.start(), m.end(1), m.end(2))]
    assert hosts == want[2::3]
    swap = {h: f"<HOST-{i}>" for i, h in enumerate(dict.fromkeys(want[2::3])) if i % 3}  # some, not all
    expected = want.copy()
    expected[2::3] = [swap.get(h, h) for h in want[2::3]]
    replaced = replace_hosts(text, spans, hosts, swap)
    if replaced is None:  # only ever when a host to replace is not ASCII
        assert any(not h.isascii() for h in swap)
    else:
        assert replaced == "".join(expected)[1:]
        assert replaced.encode("utf-32") == "".join(expected)[1:].encode("utf-32")  # same kind-free content
    if " NCCL" in text:
        for native in (prefix_hosts._native, None):  # the scanner, and the regex it mirrors
            saved, prefix_hosts._native = prefix_hosts._native, native
            try:
                prefixes = prefix_hosts.split_prefixes(text)
                assert prefixes.parts == want and prefixes.hosts == want[2::3]
                assert prefixes.text_with({}) == text
                assert prefixes.text_with(swap) == "".join(expected)[1:]
            finally:
                prefix_hosts._native = saved


def test_the_prefix_scanner_is_built():
    """setup.py builds it where a C compiler is (CI has one); without it masking falls back to
    the regex, same answers, slower: fail loudly here rather than measure the fallback."""
    from bot.masking import _prefix_split, prefix_hosts

    assert prefix_hosts._native is _prefix_split


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_prefix_line, st.text(max_size=12)), max_size=10))
def test_prefix_scanner_splits_any_text_as_the_regex_does(lines):
    """Any text too, every truncation of its head included (ends in the middle of a prefix):
    the scanner must never read past the end or disagree on what it is given."""
    from bot.masking._prefix_split import split as scanner
    from bot.masking.prefix_hosts import _SPLIT

    for sep in ("\n", ""):
        text = sep.join(lines)
        for cut in range(min(len(text), 64) + 1):
            assert scanner(text[:cut]) == _SPLIT.split(text[:cut])
        assert scanner(text) == _SPLIT.split(text)


def test_prefix_scanner_on_a_generated_training_log():
    import io
    import sys
    from pathlib import Path

    from bot.masking._prefix_split import split as scanner
    from bot.masking.prefix_hosts import _SPLIT

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        import loggen
    finally:
        sys.path.pop(0)
    buf = io.BytesIO()
    loggen.generate(buf, 400_000, ranks=64, seed=9)
    text = "\n" + buf.getvalue().decode("utf-8")
    got = scanner(text)
    assert got == _SPLIT.split(text)
    assert len(got) // 3 > 3000  # nearly every line is a prefix
    with pytest.raises(TypeError):
        scanner(b"bytes")  # type: ignore[arg-type]


def test_replace_hosts_refuses_spans_that_do_not_fit():
    from bot.masking._prefix_split import replace_hosts, scan

    text = nccl(1) + "\n" + nccl(2) + "\n"
    spans, hosts = scan(text)
    swap = {h: "<HOST-1>" for h in hosts}
    assert replace_hosts(text, spans, hosts, swap).count("<HOST-1>") == 2
    with pytest.raises(ValueError):
        replace_hosts(text, spans[:-1], hosts, swap)  # a torn span
    with pytest.raises(ValueError):
        replace_hosts(text, spans, hosts[:1], swap)  # spans and hosts disagree
    with pytest.raises(ValueError):
        replace_hosts(text[:20], spans, hosts, swap)  # spans past the end of the text
    with pytest.raises(ValueError):
        replace_hosts(text, spans, list(reversed(["x", "y"])), swap)  # a host that is not the span's
    with pytest.raises(TypeError):
        replace_hosts(text, spans, hosts, {h: 1 for h in hosts})
    size = len(spans) // 2
    with pytest.raises(ValueError):
        replace_hosts(text, spans[size:] + spans[:size], hosts[::-1], swap)  # out of order


def test_replacing_the_only_non_ascii_host_leaves_a_plain_str():
    """The result's kind follows from the text's only while every character wider than ASCII
    is kept: a replaced host that is not ASCII hands the join back to Python."""
    from bot.masking import prefix_hosts
    from bot.masking._prefix_split import replace_hosts, scan

    text = "[rank1]:nödé-1:1:2 [0] NCCL INFO x\n" + nccl(2) + "\n"
    spans, hosts = scan(text)
    assert hosts[0] == "nödé-1"
    assert replace_hosts(text, spans, hosts, {"nödé-1": "<HOST-1>"}) is None
    out = prefix_hosts.split_prefixes(text).text_with({"nödé-1": "<HOST-1>"})
    assert out == "[rank1]:<HOST-1>:1:2 [0] NCCL INFO x\n" + nccl(2) + "\n"
    assert out.isascii()
