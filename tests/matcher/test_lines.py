"""Per-line facts: rank prefixes of every launcher, NCCL's host prefix, timestamp formats."""

import pytest

from bot.matcher.lines import parse_line, parse_timestamp, strip_prefixes


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        ("[rank3]:RuntimeError: boom", 3),
        ("[rank12]:[E1130 04:12:55.118204 3301 ProcessGroupNCCL.cpp:616] x", 12),
        ("[default5]:Traceback (most recent call last):", 5),
        ("7: RuntimeError: CUDA error", 7),
        ("[1,3]<stderr>:NCCL WARN", 3),
        ("[1,14]<stdout>:step 10", 14),
        ("worker-2: [rank9]: torch.OutOfMemoryError", 9),
        ("[E ProcessGroupNCCL.cpp:475] [Rank 6] Watchdog caught collective operation timeout", 6),
        ("[PG 0 Rank 4] Timeout at NCCL work: 12", 4),
        # ProcessGroupNCCL's prefix carries the rank within its group: global only in the default one
        ("[PG ID 0 PG GUID 0(default_pg) Rank 3] Exception (either an error or timeout) detected", 3),
        ("[PG 0 (default_pg) Rank 6] Process group watchdog thread terminated with exception", 6),
        ("[PG ID 0 PG GUID 0 Rank 7] Timeout at NCCL work: 12", 7),
        ("  what():  [PG 3 Rank 5] Process group watchdog thread terminated with exception: [Rank 5] Watchdog", None),
        ("[PG ID 1 PG GUID 1 Rank 0]  failure detected by watchdog at work sequence id: 2847", None),
        ("[PG ID 2 PG GUID 12(tp) Rank 1] Timeout at NCCL work: 3", None),
        ("[rank11]:[E602 11:17:52.399 ProcessGroupNCCL.cpp:2268] [PG ID 1 PG GUID 1 Rank 3]  failure detected", 11),
        # LLaVA#930 / LlamaFactory#2470: rank 6 prints it; rank 0 is the one it names as crashed
        (
            "RuntimeError: [6] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
            "key-value store by key '0', but store->get('0') got error: Connection reset by peer. This may "
            "indicate a possible application crash on rank 0 or a network set up issue.",
            6,
        ),
        (
            "gpu004: RuntimeError: [14] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via "
            "c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer.",
            14,
        ),
        ("RuntimeError: CUDA error: an illegal memory access", None),
    ],
)
def test_rank_is_recovered_from_every_launcher_prefix(line, rank):
    """Each launcher's prefix (and a rank named in the message) yields the rank."""
    assert parse_line(line).rank == rank


def test_nccl_prefix_is_a_host_and_device_not_a_rank():
    """NCCL's `host:pid:tid [dev]` bracket is a local device: keep the host, no rank."""
    facts = parse_line("node07:1234:1290 [3] NCCL INFO Channel 00/0 : 3[3] -> 11[3] via NET/IB/0")
    assert (facts.host, facts.device, facts.rank) == ("node07", 3, None)


def test_rank_prefix_and_nccl_prefix_together():
    """A torch rank prefix in front of NCCL's own prefix gives both."""
    facts = parse_line("[rank8]:node02:2211:2290 [0] NCCL WARN NET/IB : Got completion")
    assert (facts.rank, facts.host, facts.device) == (8, "node02", 0)


@pytest.mark.parametrize(
    ("line", "kind", "text"),
    [
        ("2024-05-01T10:00:00.250Z rank 0 failed", "iso", "2024-05-01T10:00:00.250"),
        ("[2024-05-01 10:00:00,123] [ERROR] x", "iso", "2024-05-01 10:00:00,123"),
        ("May  1 10:00:00 node01 kernel: NVRM: Xid 79", "syslog", "May  1 10:00:00"),
        ("I0501 10:00:00.123456 1234 file.cc:1] x", "glog", "I0501 10:00:00.123456"),
        ("[rank1]:[E0501 10:00:00.5 99 x.cpp:1] y", "glog", "E0501 10:00:00.5"),
        ("[ 1234.567890] NVRM: Xid (PCI:0000:1b:00): 79", "uptime", "[ 1234.567890]"),
    ],
)
def test_timestamp_formats(line, kind, text):
    """ISO, bracketed Python logging, syslog, glog and dmesg stamps are all read."""
    ts = parse_timestamp(line)
    assert ts is not None and ts.kind == kind and ts.text == text


def test_timestamps_order_within_a_kind():
    """Later stamps compare greater, down to the fraction of a second."""
    a = parse_timestamp("[2024-05-01 10:00:00,123] a")
    b = parse_timestamp("[2024-05-01 10:00:00,456] b")
    assert a.value < b.value


def test_strip_prefixes_leaves_the_message():
    """The message a program printed, with the launcher's prefix removed."""
    assert strip_prefixes("[rank3]:Traceback (most recent call last):") == "Traceback (most recent call last):"
    assert strip_prefixes("node1: [default0]:KeyError: 'x'") == "KeyError: 'x'"


def test_stacked_prefixes_prefer_the_global_rank():
    """torchrun --tee over PyTorch's prefix: `[default0]:[rank12]:` is global rank 12."""
    assert parse_line("[default0]:[rank12]:RuntimeError: x").rank == 12
    assert strip_prefixes("[default0]:[rank12]:RuntimeError: x") == "RuntimeError: x"
    assert strip_prefixes("0:   rank      : 3 (local_rank: 3)") == "  rank      : 3 (local_rank: 3)"


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        ("2024-11-20 14:37:16 [rank3]: torch.OutOfMemoryError: CUDA out of memory.", 3),
        ("10.0.0.5: [rank3]: RuntimeError: CUDA out of memory.", 3),
        ("(RayWorkerWrapper pid=1019, ip=10.0.0.2) [rank3]: RuntimeError: boom", 3),
        ("[80746] [rank5]: RuntimeError: boom", 5),
        ("Jun 02 16:13:44 node01 python[1234]: [rank5]: RuntimeError: boom", 5),
        ("2019-06-02T16:13:44.884Z: [1,12]<stdout>:node01:815:864 [0] NCCL WARN x", 12),
    ],
)
def test_rank_prefix_behind_a_collector_prefix(line, rank):
    """A rank prefix after a timestamp, host, Ray or journald prefix is still the rank."""
    assert parse_line(line).rank == rank
    assert strip_prefixes(line).startswith(("torch.", "RuntimeError", "node01"))


def test_line_reader_reads_every_line_of_a_shape_as_parse_line_does() -> None:
    """LineReader works a layout out once per digit shape; every line of the shape, whatever its
    digits (a glog month of 13, an ISO date of Feb 30, another rank), reads as parse_line reads it."""
    import random

    from bot.matcher.lines import LineReader, parse_line

    lines = [
        "[rank3]:[E1130 04:15:03.217338 140372 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout",
        "worker-2: [2024-05-01 12:00:01,123] [INFO] [logging.py:128:log_dist] [Rank 0] step=100, skipped=0",
        "gpu-node-017:12345:12399 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[4] via P2P/IPC",
        "  3: [W socket.cpp:697] [c10d] The client socket has failed to connect to [localhost]:29500",
        "Nov 30 04:15:03 node7 kernel: NVRM: Xid (PCI:0000:1b:00): 79, pid=1234",
        "[ 1234.567890] NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus.",
        "[1,3]<stderr>:RuntimeError: CUDA error: an illegal memory access was encountered",
        "2024-02-30T12:00:00Z rank=5 loss 1.25",
    ]
    rng = random.Random(7)
    reader = LineReader()
    for line in lines:
        for _ in range(40):
            other = "".join(rng.choice("0123456789") if c.isdigit() else c for c in line)
            assert reader.facts(other) == parse_line(other), other
            assert other[reader.facts(other).message_start :] == strip_prefixes(other)
            # What the probes take instead of the facts: the same rank and message start.
            facts = parse_line(other)
            assert reader.prefix(other) == (facts.rank, facts.message_start), other


def test_line_reader_remembers_a_stamps_second_but_reads_its_fraction_on_every_line() -> None:
    """Lines printed in one second share their stamp's time to the second (LineReader reads it
    once), never its fraction; a stamp that names no time (glog month 13) stays none on repeat."""
    from bot.matcher.lines import LineReader, parse_line

    reader = LineReader()
    for fraction, s in [(f, s) for f in ("118204", "118205", "9", "000001", "118204") for s in "565"]:
        for line in (
            f"[rank3]:[E1130 04:12:5{s}.{fraction} 3301 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught",
            f"[E1330 04:12:5{s}.{fraction} 3301 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught",
            f"[2024-05-01 12:00:0{s},{fraction}] [INFO] [Rank 0] step=100",
            f"2024-02-31T12:00:0{s}.{fraction}Z rank=5 loss 1.25",
            f"Nov 30 04:15:0{s} node{fraction} kernel: NVRM: Xid",
        ):
            facts = reader.facts(line)
            assert facts == parse_line(line), line
    stamped = reader.facts("[rank3]:[E1130 04:12:55.9 3301 ProcessGroupNCCL.cpp:616] [Rank 3] x").timestamp
    again = reader.facts("[rank3]:[E1130 04:12:55.5 3301 ProcessGroupNCCL.cpp:616] [Rank 3] x").timestamp
    assert stamped is not None and again is not None and stamped.value - again.value == pytest.approx(0.4)
    assert reader.facts("[E1330 04:12:55.5 3301 ProcessGroupNCCL.cpp:616] x").timestamp == parse_line(
        "[E1330 04:12:55.5 3301 ProcessGroupNCCL.cpp:616] x"
    ).timestamp
