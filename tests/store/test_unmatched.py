"""Unmatched failures: normalised fingerprints and their counts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.masking import mask
from bot.store import Store, StoreConfig
from bot.store.unmatched import MAX_FINGERPRINT_CHARS, fingerprint


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "RuntimeError: foo failed at /a/b.py:12 rank 3",
            "RuntimeError: foo failed at <PATH> rank <N>",
        ),
        (
            'File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1501, in f',
            'File "<PATH>", line <N>, in f',
        ),
        ("connect to <IP-1> port <PORT-2> failed", "connect to <IP> port <PORT> failed"),
        ("peer 10.0.0.12:29500 closed", "peer <IP> closed"),
        (
            "store at node12:29500 and gpu-3.cluster:2379 timed out",
            "store at <HOST> and <HOST> timed out",
        ),
        ("illegal memory access at 0x7f3a2b1c", "illegal memory access at <HEX>"),
        ("bad checksum deadbeef1234 for shard", "bad checksum <HEX> for shard"),
        ("KeyError: 'model.layers.0.weight'", "KeyError: <STR>"),
        ("shape torch.Size([4096, 11008]) vs [4096 x 4096]", "shape torch.Size([<N>]) vs [<N>]"),
        ("at 2024-01-01T12:00:00Z after   12:01:02.5  ", "at <TS> after <TS>"),
        ("see https://example.com/x?y=1 or mail a@b.io", "see <URL> or mail <EMAIL>"),
        ("run 123e4567-e89b-12d3-a456-426614174000 died", "run <UUID> died"),
        ("I/O error in Conv2d fp16 rank3", "I/O error in Conv2d fp<N> rank<N>"),
        (
            "torch.distributed.elastic.multiprocessing.api:699 failed",
            "torch.distributed.elastic.multiprocessing.api:<N> failed",
        ),
        ("c10::Error: oops", "c<N>::Error: oops"),
        ("can't open 'x' \t\n now", "can't open <STR> now"),
    ],
)
def test_fingerprint_examples(line: str, expected: str) -> None:
    """Numbers, hex, paths, addresses, quoted values and placeholders normalise; words stay."""
    assert fingerprint(line) == expected


def test_same_failure_on_other_nodes_has_one_fingerprint() -> None:
    """Lines differing only in ranks, hosts, paths and times fingerprint the same."""
    a = "[rank3] 12:00:01 NCCL timeout on 10.0.0.3:29500 in /home/a/run1/train.py:88 after 600012 ms"
    b = "[rank17] 23:59:59 NCCL timeout on 10.9.8.7:1234 in /scratch/b/train.py:90 after 31 ms"
    assert fingerprint(a) == fingerprint(b)


LOGGISH = st.text(alphabet="abcdefxX0123456789/\\.:-_'\"`<>IPNHEX@~ \t\n", max_size=200)


# No deadline and no too_slow check: a loaded CI box may stall generation, not the property.
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400) | LOGGISH)
def test_fingerprint_is_stable(line: str) -> None:
    """Fingerprinting a fingerprint changes nothing; output is one bounded line."""
    fp = fingerprint(line)
    assert fingerprint(fp) == fp
    assert len(fp) <= MAX_FINGERPRINT_CHARS
    assert "\n" not in fp and fp == fp.strip()


def test_record_counts_and_top_orders(store: Store) -> None:
    """record() counts by fingerprint across workspaces; top() lists most frequent first."""
    for rank in range(3):
        store.unmatched.record("T1", mask(f"Segfault in worker {rank}").text)
    store.unmatched.record("T2", mask("Segfault in worker 9").text)
    assert store.unmatched.record("T2", mask("Bus error at 0xdead").text) == "Bus error at <HEX>"
    assert store.unmatched.top(5) == [("Segfault in worker <N>", 4), ("Bus error at <HEX>", 1)]
    assert store.unmatched.top(1) == [("Segfault in worker <N>", 4)]
    assert store.unmatched.top(5, team_id="T2") == [
        ("Bus error at <HEX>", 1),
        ("Segfault in worker <N>", 1),
    ]


def test_blank_line_is_not_counted(store: Store) -> None:
    """A line that normalises to nothing records nothing."""
    assert store.unmatched.record("T1", mask("   ").text) == ""
    assert store.unmatched.top(5) == []


def test_rarest_fingerprints_go_past_the_cap(redis_url: str) -> None:
    """Past unmatched_max distinct fingerprints, the rarest are dropped."""
    with Store(StoreConfig(url=redis_url, unmatched_max=3)) as store:
        for _ in range(5):
            store.unmatched.record("T1", mask("common failure").text)
        for word in ("alpha", "beta", "gamma", "delta"):
            store.unmatched.record("T1", mask(f"rare {word}").text)
        top = store.unmatched.top(10)
    assert len(top) == 3
    assert top[0] == ("common failure", 5)
