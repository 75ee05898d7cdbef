"""The on-disk cache of compiled Hyperscan databases: a hit loads, anything odd compiles afresh."""

from __future__ import annotations

import os

import pytest

from bot import dbcache
from bot.literals import Words
from bot.masking import Masker
from bot.matcher.prefilter import Condition, Prefilter


def _lines(prefilter: Prefilter, data: bytes) -> list[bytes]:
    lines, _ = prefilter.candidate_lines(data)
    return [data[a:b] for a, b, _ in lines]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DENPEX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


CONDS = [Condition(frozenset({"watchdog caught"})), Condition(frozenset({"nan"}), frozenset({"loss"}))]
LOG = b"ok\n[E] Watchdog caught collective operation timeout\nloss: nan\nnan only\n"
WANT = [b"[E] Watchdog caught collective operation timeout", b"loss: nan"]


def test_a_second_build_loads_the_stored_database(cache):
    assert _lines(Prefilter(CONDS), LOG) == WANT
    files = list(cache.glob("*.hsdb"))
    assert len(files) == 1 and files[0].stat().st_size > 0
    inode, data = files[0].stat().st_ino, files[0].read_bytes()
    assert _lines(Prefilter(CONDS), LOG) == WANT
    assert (files[0].stat().st_ino, files[0].read_bytes()) == (inode, data)  # read, not rewritten
    assert oct(files[0].stat().st_mode & 0o777) == "0o644"  # readable by the bot's own user


def test_other_conditions_get_their_own_file(cache):
    Prefilter(CONDS)
    Prefilter([Condition(frozenset({"xid"}))])
    assert len(list(cache.glob("*.hsdb"))) == 2


def test_a_corrupt_file_is_compiled_over(cache):
    Prefilter(CONDS)
    (path,) = cache.glob("*.hsdb")
    path.write_bytes(b"not a database" * 100)
    assert _lines(Prefilter(CONDS), LOG) == WANT
    assert path.read_bytes() != b"not a database" * 100


def test_an_unwritable_cache_still_gives_a_working_prefilter(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the directory should be")
    monkeypatch.setenv("DENPEX_CACHE_DIR", str(blocker / "cache"))
    assert _lines(Prefilter(CONDS), LOG) == WANT


def test_old_databases_are_pruned(cache):
    for i in range(dbcache._KEEP + 3):
        Prefilter([Condition(frozenset({f"word{i}"}))])
    assert len(list(cache.glob("*.hsdb"))) == dbcache._KEEP
    newest = Prefilter([Condition(frozenset({f"word{dbcache._KEEP + 2}"}))])
    assert _lines(newest, b"word%d\n" % (dbcache._KEEP + 2)) == [b"word%d" % (dbcache._KEEP + 2)]
    assert len(list(cache.glob("*.hsdb"))) == dbcache._KEEP


def test_pruning_keeps_the_databases_in_use(cache):
    """A database loaded at every start (the masker's gates) outlives floods of newer ones."""
    Prefilter([Condition(frozenset({"in use"}))])
    (used,) = cache.glob("*.hsdb")
    for i in range(dbcache._KEEP - 1):
        Prefilter([Condition(frozenset({f"word{i}"}))])
    others = sorted(set(cache.glob("*.hsdb")) - {used})
    for age, path in enumerate([used, *others]):  # written first: the oldest of all
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    Prefilter([Condition(frozenset({"in use"}))])  # loaded again: now the most recently used
    Prefilter([Condition(frozenset({"one more"}))])
    assert used.exists() and len(list(cache.glob("*.hsdb"))) == dbcache._KEEP


def test_fixed_word_sets_are_stored_and_learned_ones_never(cache):
    Words(["nodelist", "jobid "], fixed=True)
    assert len(list(cache.glob("*.hsdb"))) == 1
    # The masker's own fixed sets are compiled on first use, and stored (here, or by an earlier
    # test in this process): a masker used once counts them in, whatever ran before.
    str(Masker().mask("warm-up of the masker's fixed word sets\n"))
    stored = set(cache.glob("*.hsdb"))
    # A learned name is compiled into the masker's per-log word set: it must not reach the disk.
    masker = Masker()
    masker.learn(b"USER=qzorvath\nHOME=/home/qzorvath\n")
    masked = str(masker.mask("job of qzorvath failed\n"))
    assert "qzorvath" not in masked
    assert set(cache.glob("*.hsdb")) == stored
    assert not any(b"qzorvath" in path.read_bytes() for path in cache.iterdir())


def test_default_location_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("DENPEX_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert dbcache.cache_dir() == tmp_path / "denpex"


def _counting(calls: list[str]):
    from bot.matcher.required import required_literals

    def derive(pattern: str, window: bool):
        calls.append(pattern)
        return required_literals(pattern, first_line=window)

    return derive


def test_derived_literals_are_kept_per_derivation_version(cache):
    patterns = [(r"Watchdog caught collective operation timeout", False), (r"(?i)got completion from peer", False),
                (r"\d+", False), (r"Exception detected\s+by watchdog", True), (r"Exception detected\s+by watchdog", False)]  # fmt: skip
    calls: list[str] = []
    first = dbcache.derived_literals(patterns, _counting(calls), "v1")
    assert first[patterns[0]] == (frozenset({"watchdog caught collective operation timeout"}),)
    assert first[patterns[2]] == ()
    assert first[patterns[3]] == (frozenset({"exception detected"}),)  # the first line's part only
    assert set(first[patterns[4]]) == {frozenset({"exception detected"}), frozenset({"by watchdog"})}
    assert len(calls) == 5
    again = dbcache.derived_literals(patterns, _counting(calls), "v1")
    assert again == first and len(calls) == 5  # all read back, none derived
    dbcache.derived_literals([*patterns, ("new literal here", False)], _counting(calls), "v1")
    assert calls[5:] == ["new literal here"]  # only the new pattern
    dbcache.derived_literals(patterns, _counting(calls), "v2")
    assert len(calls) == 11  # another derivation version shares nothing


def test_derived_literals_survive_a_corrupt_file(cache):
    calls: list[str] = []
    dbcache.derived_literals([("abcdef", False)], _counting(calls), "v1")
    (path,) = cache.glob("literals-*.json")
    path.write_text("{not json")
    assert dbcache.derived_literals([("abcdef", False)], _counting(calls), "v1") == {("abcdef", False): (frozenset({"abcdef"}),)}
    assert len(calls) == 2
