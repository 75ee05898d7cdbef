"""The matching thread takes the pumps' pieces a batch at a time (FEED_EVERY_S or FEED_BYTES):
alerts still come while the job runs, and no line is lost, doubled or spliced at a batch's edge.
No processes; no timing asserted beyond "before the job ends"."""

from __future__ import annotations

import time

import pytest

import bot.watch.session as session_module
from bot.service import Denpex
from bot.watch.session import WatchSession

OOM = (b"[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 5 has a total capacity "
       b"of 79.15 GiB of which 2.87 GiB is free.\n")
HEALTHY = b"".join(b"[rank%d]:{'loss': 1.%d, 'grad_norm': 0.5, 'learning_rate': 3e-05, 'epoch': 0.01}\n" % (r % 8, r)
                   for r in range(200))


@pytest.fixture(scope="module")
def app() -> Denpex:
    return Denpex()


def _wait_for_alert(session: WatchSession, keep_writing: bytes = b"", seconds: float = 20) -> None:
    """Wait (the job still running: no end()) until an alert is out; meanwhile the job goes on
    writing healthy lines, if given, a few at a time."""
    deadline = time.monotonic() + seconds
    while not session.sent and time.monotonic() < deadline:
        if keep_writing:
            session.take("stdout", keep_writing)
        time.sleep(0.01)


def test_an_alert_comes_while_the_job_goes_on_writing(app: Denpex) -> None:
    """Output in many small pieces, the OOM line cut at odd places among them: the alert comes
    from a batch, before the job ends, while the job keeps writing."""
    session = WatchSession(app, "job-batch", lambda _s: None)
    for i in range(0, len(HEALTHY), 37):
        session.take("stdout", HEALTHY[i : i + 37])
    for i in range(0, len(OOM), 11):
        session.take("stderr", OOM[i : i + 11])
    _wait_for_alert(session, keep_writing=HEALTHY[:400])
    assert [a.root for a in session.sent] == ["cuda-oom"]
    assert session.sent[0].initiating_rank == 5
    session.end(None)


def test_a_batch_goes_when_enough_bytes_wait_not_only_on_the_timer(app: Denpex, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a window far longer than the test, FEED_BYTES alone sends the batch to be matched."""
    monkeypatch.setattr(session_module, "FEED_EVERY_S", 3600.0)
    monkeypatch.setattr(session_module, "FEED_BYTES", 4096)
    session = WatchSession(app, "job-bytes", lambda _s: None)
    session.take("stderr", OOM)
    session.take("stdout", HEALTHY)  # past FEED_BYTES: the batch goes now
    _wait_for_alert(session)
    assert [a.root for a in session.sent] == ["cuda-oom"]
    session.end(None)


@pytest.mark.parametrize("prefix_rank", [None, 5])
def test_a_line_cut_at_a_batch_edge_is_matched_once_and_whole(app: Denpex, monkeypatch: pytest.MonkeyPatch,
                                                               prefix_rank: int | None) -> None:
    """The OOM line's two halves land in different batches (a short window, a pause between
    them): it is read as one line, once; the line count is the lines written, none doubled or
    dropped. With a rank's file the prefix goes before the whole line only."""
    monkeypatch.setattr(session_module, "FEED_EVERY_S", 0.01)
    session = WatchSession(app, "job-edge", lambda _s: None)
    line = OOM if prefix_rank is None else OOM.split(b":", 1)[1].lstrip()
    if prefix_rank is not None:
        session.add_source("rank_5.log", prefix_rank)
    source = "stdout" if prefix_rank is None else "rank_5.log"
    session.take(source, HEALTHY + line[:40])
    time.sleep(0.3)  # the first half's batch is matched on its own
    session.take(source, line[40:] + HEALTHY)
    time.sleep(0.3)
    session.take(source, b"last line without a newline")
    outcome = session.end(None)
    assert outcome is not None
    assert outcome.diagnosis.stats.lines == 2 * HEALTHY.count(b"\n") + 2
    assert outcome.diagnosis.root.id == "cuda-oom"
    evidence = [e for m in outcome.diagnosis.matches for e in m.evidence if "OutOfMemoryError" in e.text]
    assert len(evidence) == 1
    assert evidence[0].line == HEALTHY.count(b"\n") + 1
    assert "CUDA out of memory. Tried to allocate 3.91 GiB" in evidence[0].text
    assert evidence[0].text.rstrip("\n").endswith("2.87 GiB is free.")
    assert evidence[0].rank == 5


def test_a_backlog_is_matched_a_batch_at_a_time_and_whole(app: Denpex, monkeypatch: pytest.MonkeyPatch) -> None:
    """When more than FEED_BYTES waits (the matcher fell behind), each batch takes about
    FEED_BYTES of it, in order; every line is still matched, once."""
    monkeypatch.setattr(session_module, "FEED_BYTES", 1000)
    session = WatchSession(app, "job-backlog", lambda _s: None)
    sizes: list[int] = []
    process = session._process

    def recording(source: str, parts: list[bytes]) -> bool:
        sizes.append(sum(map(len, parts)))
        return process(source, parts)

    monkeypatch.setattr(session, "_process", recording)
    with session._ready:  # hold the matching thread off while the backlog builds
        pieces = [HEALTHY[i : i + 97] for i in range(0, len(HEALTHY), 97)]
        for piece in pieces:
            session._pending.append(("stdout", piece, 0.0))
            session._pending_bytes += len(piece)
        session._first_at = time.monotonic() - 1
        session._ready.notify()
    outcome = session.end(None)
    assert outcome is not None and outcome.diagnosis.stats.lines == HEALTHY.count(b"\n")
    assert sum(sizes) == len(HEALTHY) and len(sizes) > 1
    assert max(sizes) < 1000 + 97


@pytest.mark.parametrize("cut", [1, 37, 500])
def test_a_batch_is_cut_into_groups_of_whole_lines_none_lost_or_spliced(app: Denpex, monkeypatch: pytest.MonkeyPatch,
                                                                        cut: int) -> None:
    """One batch of many pieces (one byte, 37, 500: a line spread over several pieces, pieces
    with no newline, several lines in one) is matched in groups of a few KB: the partial line at
    a group's end is carried into the next group, so every line is read once and whole, and the
    line numbers are the log's. The last line, without a newline, is read at the end."""
    monkeypatch.setattr(session_module, "FEED_SLICE_BYTES", 4096)
    monkeypatch.setattr(session_module, "GROUP_ROOM_BYTES", 512)
    log = HEALTHY * 3 + OOM + HEALTHY + b"last line without a newline"
    session = WatchSession(app, "job-groups", lambda _s: None)
    with session._ready:  # every piece in one batch
        for i in range(0, len(log), cut):
            session._pending.append(("stdout", log[i : i + cut], 0.0))
            session._pending_bytes += len(log[i : i + cut])
        session._first_at = time.monotonic() - 1
        session._ready.notify()
    outcome = session.end(None)
    assert outcome is not None
    stats = outcome.diagnosis.stats
    assert stats.lines == log.count(b"\n") + 1 and stats.bytes == len(log) + 1  # the last line's newline added
    evidence = [e for m in outcome.diagnosis.matches for e in m.evidence if "OutOfMemoryError" in e.text]
    assert len(evidence) == 1
    assert evidence[0].line == 3 * HEALTHY.count(b"\n") + 1
    assert evidence[0].text.rstrip("\n").endswith("2.87 GiB is free.") and evidence[0].rank == 5


def test_a_name_learned_batches_before_the_failure_is_masked_in_the_alert(app: Denpex) -> None:
    """wandb names `alice` at the start; megabytes of healthy output later (past FEED_BYTES:
    another batch, several slices) the OOM line names her bare (`ckpt-alice-7`, which no
    detector masks on its own). The alert, sent while the job still runs, carries her
    placeholder: the watch learns names from every batch, not only from the lines an alert
    quotes, and masks what leaves the node with them."""
    session = WatchSession(app, "job-learned", lambda _s: None)
    session.take("stdout", b"[rank0]:wandb: Currently logged in as: alice (team-x)\n")
    size = session_module.FEED_BYTES + 2 * session_module.FEED_SLICE_BYTES
    session.take("stdout", HEALTHY * (size // len(HEALTHY) + 1))
    session.take("stderr", OOM.rstrip(b"\n") + b" Saving to ckpt-alice-7 first\n")
    _wait_for_alert(session)
    assert [a.root for a in session.sent] == ["cuda-oom"]
    quoted = " ".join(e.text for e in session.sent[0].evidence)
    assert "ckpt-<USER-1>-7" in quoted and "alice" not in quoted
    session.end(None)
