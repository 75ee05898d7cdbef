"""The required-literal derivation never claims a literal that a match can lack.

Patterns are drawn from the regex subset the rules use (literals with the letters that fold
outside ASCII, classes, groups, alternation, every kind of quantifier, anchors, lookarounds,
backreferences, global and scoped `(?i)`); subjects are strings `hypothesis` builds to match
them, with case changes and fold characters mixed in. Whenever `regex` finds a match, every
derived set has a literal on the subject, compared as the prefilter compares (ASCII-lowered
UTF-8 bytes).
"""

from __future__ import annotations

import sys

import pytest
import regex
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.matcher.regex_syntax import (
    DIGITS,
    Alt,
    Char,
    CharSet,
    Empty,
    Look,
    Opaque,
    Repeat,
    Seq,
    Unsupported,
    parse,
)
from bot.matcher.required import FOLDS, gate_is_proven, required_literals

_ALPHABET = "abkisKIS:-. 01"


def _escape(ch: str) -> str:
    return "\\" + ch if ch in ".-" else ch


leaf = st.one_of(
    st.sampled_from(_ALPHABET).map(_escape),
    st.text(_ALPHABET, min_size=2, max_size=6).map(lambda t: "".join(map(_escape, t))),
    st.sampled_from(["[ab]", "[Kk]", "[^x]", "[a-c]", "[\\d:]", "\\d", "\\s", "\\w", "\\S", ".", "\\b", "^", "$",
                     "\\.", "\\x41", "[\\-s]", "[]a]"]),
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    quantifier = st.sampled_from(["*", "+", "?", "{2}", "{0,2}", "{1,3}", "{2,}", "*?", "+?", "??", "{1,2}?"])
    return st.one_of(
        st.lists(children, min_size=2, max_size=4).map("".join),
        st.lists(children, min_size=2, max_size=3).map(lambda b: "(?:" + "|".join(b) + ")"),
        children.map(lambda c: f"({c})"),
        children.map(lambda c: f"(?P<g>{c})"),
        children.map(lambda c: f"(?>{c})"),
        children.map(lambda c: f"(?i:{c})"),
        st.tuples(children, quantifier).map(lambda t: f"(?:{t[0]}){t[1]}"),
        st.tuples(st.sampled_from(["(?=", "(?!", "(?<=", "(?<!"]), children).map(lambda t: f"{t[0]}{t[1]})"),
        st.tuples(children, children).map(lambda t: f"({t[0]}) {t[1]}\\1"),
    )


patterns = st.tuples(st.sampled_from(["", "(?i)"]), st.recursive(leaf, _combine, max_leaves=10)).map("".join)


def _compiles(pattern: str) -> bool:
    try:
        regex.compile(pattern)
    except regex.error:
        return False
    return True


def _fold_variants(text: str) -> st.SearchStrategy[str]:
    """`text` with some letters swapped for their case partner or a character folding onto them."""
    swaps = {c: [c.swapcase(), *([FOLDS[c.lower()]] if c.lower() in FOLDS else [])] for c in set(text) if c.isalpha()}
    return st.lists(st.booleans(), min_size=len(text), max_size=len(text)).flatmap(
        lambda flips: st.tuples(*[st.sampled_from(swaps[c]) if f and c in swaps else st.just(c) for c, f in zip(text, flips, strict=False)]).map("".join)
    ) if text else st.just(text)


def _holds(text: str, words: frozenset[str]) -> bool:
    low = text.encode("utf-8", "surrogatepass").lower()
    return any(w.encode("utf-8") in low for w in words)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_every_match_holds_a_literal_of_every_derived_set(data):
    pattern = data.draw(patterns)
    assume(_compiles(pattern))
    sets = required_literals(pattern, min_literal=1)
    assume(sets)
    # `re` builds the subject (hypothesis reads its syntax); `regex`, the engine, judges it.
    try:
        seed = data.draw(st.from_regex(pattern.replace("(?>", "(?:").replace("(?P<g>", "("), fullmatch=False))
    except Exception:
        seed = data.draw(st.text(_ALPHABET, max_size=12))
    subject = data.draw(_fold_variants(seed))
    for text in (seed, subject):
        if regex.search(pattern, text):
            for words in sets:
                assert _holds(text, words), (pattern, text, words)


@settings(max_examples=200, deadline=None)
@given(patterns, st.text(_ALPHABET + "\u017f\u212a\u0130", max_size=16))
def test_arbitrary_subjects_that_match_hold_the_literals(pattern, text):
    assume(_compiles(pattern))
    if regex.search(pattern, text):
        for words in required_literals(pattern, min_literal=1):
            assert _holds(text, words), (pattern, text, words)


def test_the_fold_table_is_what_regex_folds_onto_ascii_letters():
    """Every non-ASCII character a case-insensitive ASCII letter matches is in FOLDS."""
    everything = "".join(chr(c) for c in range(0x80, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    found = {}
    for letter in "abcdefghijklmnopqrstuvwxyz":
        for ch in regex.findall("(?i)" + letter, everything):
            found[letter] = found.get(letter, "") + ch
    assert found == FOLDS


@pytest.mark.parametrize(
    ("pattern", "tree"),
    [
        ("ab", Seq((Char("a", False), Char("b", False)))),
        ("(?i)a|b", Alt((Seq((Empty(), Char("a", True))), Char("b", True)))),
        ("a(?i)", Seq((Char("a", True), Empty()))),  # version 0: a flag anywhere is global
        ("[a-c]+?", Repeat(CharSet(frozenset("abc"), False), 1, None)),
        ("[^a]{2,}", Repeat(CharSet(None, False, DIGITS), 2, None)),
        ("[^1-9]\\s", Seq((CharSet(None, False, frozenset("0")), CharSet(None, False, frozenset(), spaces=True)))),
        ("[ \\t][\\d.]", Seq((CharSet(frozenset(" \t"), False, spaces=True), CharSet(None, False, DIGITS)))),
        ("x{,3}", Repeat(Char("x", False), 0, 3)),
        ("(?=a)\\b$", Seq((Look(Char("a", False)), Empty(), Empty()))),
        ("(a)\\1", Seq((Char("a", False), Opaque()))),
        ("(?i:a)b", Seq((Char("a", True), Char("b", False)))),
        ("\\x41\\.\\t", Seq((Char("A", False), Char(".", False), Char("\t", False)))),
    ],
    ids=["seq", "global-i", "late-global-i", "lazy-class", "negated-count", "negated-digits", "space-set", "open-count", "zero-width",
         "backreference", "scoped-i", "escapes"],
)
def test_parse_trees(pattern, tree):
    assert parse(pattern) == tree


@pytest.mark.parametrize(
    "pattern",
    ["(?x)a b", "(?f)ss", "a{e<=1}", "[[:alpha:]]", "\\p{L}", "(?(1)a|b)", "(?|a|b)", "a{", "a**", "(a", "a)"],
    ids=["verbose", "fullcase", "fuzzy", "posix-class", "property", "conditional", "branch-reset", "bare-brace",
         "double-quantifier", "unclosed", "unbalanced"],
)
def test_syntax_outside_the_subset_is_refused_and_derives_nothing(pattern):
    with pytest.raises(Unsupported):
        parse(pattern)
    assert required_literals(pattern) == ()


def test_lint_refuses_signatures_whose_keywords_are_not_proven_necessary(tmp_path, capsys):
    """`denpex rules lint` fails on a signature that could match a line holding none of its
    rule's keywords (the prefilter would never show it that line), naming file and signature,
    and on one whose regex the proof cannot read; a keyword every match holds mends it."""
    from bot.cli import main as denpex
    from tests.matcher.rulefactory import rule_doc, sig, write_rules

    docs = [
        rule_doc("proven", "memory", {"keywords": ["out of memory"], "signatures": [sig("p", r"CUDA out of memory\. Tried", 0.9)]}, ["loose", "fuzzy"]),
        rule_doc("loose", "code", {"keywords": ["segfault"], "signatures": [sig("l", r"Segmentation fault \(core dumped\)", 0.9)]}, ["proven", "fuzzy"]),
        rule_doc("fuzzy", "data", {"keywords": ["checksum"], "signatures": [sig("f", r"(?:checksum mismatch){e<=1}", 0.9)]}, ["proven", "loose"]),
    ]  # fmt: skip
    rules = write_rules(tmp_path, docs)
    assert denpex(["rules", "lint", "--rules-dir", str(rules)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3, err
    assert err[0] == (f"{rules}/code/loose.yaml: match.signatures[0] (l): a line holding none of the rule's keywords "
                      "could match; add a keyword every match holds to the signature's `keywords`")
    assert err[1].startswith(f"{rules}/data/fuzzy.yaml: match.signatures[0] (f): the regex is outside the syntax")
    assert err[2] == f"2 problem(s) in {rules}"

    docs[1]["match"]["signatures"][0]["keywords"] = ["segmentation fault"]
    docs[2]["match"]["signatures"][0]["pattern"] = "checksum mismatch"
    rules = write_rules(tmp_path / "mended", docs)
    assert denpex(["rules", "lint", "--rules-dir", str(rules)]) == 0


@pytest.mark.parametrize(
    ("pattern", "keywords", "proven"),
    [
        # each branch holds a keyword, though the sets keep one literal per branch
        (r"/dev/shm\S*.*No space left|No space left.*/dev/shm", {"/dev/shm"}, True),
        (r"/dev/shm\S*.*No space left|No space left on device", {"/dev/shm"}, False),
        # a literal run cut at the derivation's length cap still proves through its parts
        (r"(?:RuntimeError|ValueError): trying to initialize the default process group twice!", {"group twice"}, False),
        (r"(?:RuntimeError|ValueError): trying to initialize the default process group twice!", {"trying to init"}, True),
        # an optional part proves nothing; a repeated one does
        (r"connect (?:to \S+ )?returned", {"connect to"}, False),
        (r"(?:to \S+ )+returned", {"to "}, True),
        (r"(?i)loss(?:: ?|=)-?inf", {"loss:inf", "loss: inf", "loss=inf", "loss:-inf", "loss: -inf"}, False),
        (r"(?i)loss(?:: ?|=)-?inf", {"loss:inf", "loss: inf", "loss=inf", "loss:-inf", "loss: -inf", "loss=-inf"}, True),
        (r"(a)\1", {"a"}, True),
        (r"(a|b)\1", {"a"}, False),
    ],
)
def test_gate_proof(pattern, keywords, proven):
    assert gate_is_proven(pattern, frozenset(keywords)) is proven
