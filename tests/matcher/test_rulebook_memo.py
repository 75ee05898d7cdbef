"""The rule files' memo: a set of files loaded without a problem is read back without parsing
its YAML or compiling its regexes again; any change to a file proves it afresh."""

from __future__ import annotations

import pytest

from bot import dbcache
from bot.matcher import Matcher
from bot.matcher.rulebook import RuleError, load_rulebook
from tests.matcher.rulefactory import rule_doc, sig, write_rules


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DENPEX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _docs(pattern: str = r"ZorgleError: code \d+") -> list[dict]:
    return [
        rule_doc("zorgle", "code", {"keywords": ["zorgleerror"], "signatures": [sig("z", pattern, 0.9)]}, ["other", "third"]),
        rule_doc("other", "code", {"keywords": ["zzz"], "signatures": [sig("o", "zzz", 0.9)]}, ["zorgle", "third"]),
        rule_doc("third", "code", {"keywords": ["yyy"], "signatures": [sig("t", "yyy", 0.9)]}, ["zorgle", "other"]),
    ]


def test_a_second_load_reads_the_memo_and_matches_alike(cache, tmp_path, monkeypatch):
    rules = write_rules(tmp_path / "rules", _docs())
    first = load_rulebook(rules)
    assert len(list(cache.glob("rules-*.json"))) == 1
    # Read back: no YAML is parsed (a parser that fails would show) and no regex compiled yet.
    monkeypatch.setattr("bot.matcher.rulebook.yaml.load", lambda *_a, **_k: pytest.fail("YAML parsed again"))
    second = load_rulebook(rules)
    assert [r.id for r in second] == [r.id for r in first]
    sig_ = second.get("zorgle").signatures[0]
    assert "compiled" not in sig_.__dict__
    assert Matcher(second).diagnose("boom\nZorgleError: code 7\n").matches[0].id == "zorgle"
    assert "compiled" in sig_.__dict__  # compiled on first use


def test_a_changed_file_is_proved_again(cache, tmp_path):
    rules = write_rules(tmp_path / "rules", _docs())
    load_rulebook(rules)
    write_rules(tmp_path / "rules", _docs(pattern="(unclosed ZorgleError"))
    with pytest.raises(RuleError) as err:
        load_rulebook(rules)
    assert any("zorgle.yaml: match.signatures[0].pattern: does not compile" in p for p in err.value.problems)
    assert len(list(cache.glob("rules-*.json"))) == 1, "a set with a problem is not kept"


def test_lint_proves_everything_afresh(cache, tmp_path):
    """`denpex rules lint` loads with proved=False: a memo that says otherwise is not read."""
    rules = write_rules(tmp_path / "rules", _docs())
    load_rulebook(rules)
    (memo,) = cache.glob("rules-*.json")
    kept = dbcache.read_memo(memo.stem)
    for document in kept.values():
        for s in document["match"]["signatures"]:
            s["pattern"] = "(unclosed"  # what a proved load would now trust
    dbcache.write_memo(memo.stem, kept)
    assert len(load_rulebook(rules, proved=False)) == 3
