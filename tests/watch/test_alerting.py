"""Which interim verdicts become alerts, and what the time left says (no processes, no network)."""

from __future__ import annotations

import time

import pytest

from bot.service import Denpex
from bot.watch.alerting import AlertPolicy, TimeoutFacts, countdown, countdown_text
from bot.watch.protocol import Countdown, ProtocolError, parse_alert
from bot.watch.session import WatchSession

OOM = (b"[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 5 has a total capacity "
       b"of 79.15 GiB of which 2.87 GiB is free.\n")
INIT = b"".join(b"[rank%d]:node01:33%d1:33%d5 [%d] NCCL INFO comm 0x55%d rank %d nranks 8 cudaDev %d nvmlDev %d busId 1b000 "
                b"commId 0x8c3b61f2a1d00e17 - Init COMPLETE\n" % ((r,) * 8) for r in range(8))
WATCHDOG = (b"[rank%d]:[E1104 10:12:14.118204 3301 ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation "
            b"timeout: WorkNCCL(SeqNum=2411, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
            b"1800041 milliseconds before timing out.\n")


@pytest.fixture(scope="module")
def app() -> Denpex:
    return Denpex()


def _session(app: Denpex) -> tuple[WatchSession, list[str]]:
    said: list[str] = []
    return WatchSession(app, "job-unit", said.append, clock=lambda: 100.0), said


def test_one_alert_per_root_cause_however_many_ranks_repeat_it(app: Denpex) -> None:
    session, said = _session(app)
    session.take("stderr", INIT + OOM)
    deadline = time.monotonic() + 10
    while not session.sent and time.monotonic() < deadline:
        time.sleep(0.01)
    for r in range(8):
        session.take("stderr", OOM.replace(b"rank5", b"rank%d" % r))
    session.end(None)
    alerts = [a for a in session.sent if a.kind == "alert"]
    assert [a.root for a in alerts] == ["cuda-oom"]
    assert alerts[0].initiating_rank == 5
    assert alerts[0].countdown is not None and alerts[0].countdown.waiting_ranks == [0, 1, 2, 3, 4, 6, 7]
    assert sum("ALERT" in s for s in said) == 1


def test_the_final_alert_comes_only_for_a_failed_job_or_after_an_alert(app: Denpex) -> None:
    quiet, _ = _session(app)
    quiet.take("stdout", b"{'loss': 1.2}\n")
    quiet.end(0)
    assert quiet.sent == []
    failed, _ = _session(app)
    failed.take("stdout", b"{'loss': 1.2}\n")
    failed.end(1)
    assert [(a.kind, a.exit.code) for a in failed.sent] == [("final", 1)]
    killed, _ = _session(app)
    killed.take("stderr", OOM)
    killed.end(-9)
    assert [a.kind for a in killed.sent] == ["alert", "final"] and killed.sent[1].exit.signal == "SIGKILL"


def test_the_countdown_reads_the_timeout_and_the_collective_from_the_log(app: Denpex) -> None:
    facts = TimeoutFacts()
    facts.read(WATCHDOG % (0, 0))
    assert (facts.timeout_ms, facts.op) == (1_800_000, "ALLREDUCE")
    facts = TimeoutFacts()
    facts.read(b"[rank0]:TrainingArguments(ddp_timeout=1800, eval_steps=500)\n")
    assert facts.timeout_ms == 1_800_000
    live = app.live()
    live.feed(INIT + OOM)
    cd = countdown(live.interim(), live.known_ranks(), TimeoutFacts(timeout_ms=600_000, op="ALLREDUCE"), waited_s=60)
    assert cd is not None and cd.fires_in_s == 540
    text = countdown_text(cd)
    assert text == ("ranks 0-4, 6-7 are waiting in ALLREDUCE; their watchdog (Timeout(ms)=600000) fires in ~9 minutes: "
                    "stop the job now")


def test_no_countdown_when_the_root_cause_is_the_timeout_itself(app: Denpex) -> None:
    live = app.live()
    live.feed(INIT + b"".join(WATCHDOG % (r, r) for r in range(7)))
    outcome = live.interim()
    assert outcome.diagnosis.root.id == "nccl-watchdog-timeout"
    assert countdown(outcome, live.known_ranks(), TimeoutFacts(), 0) is None


def test_a_default_timeout_is_said_to_be_assumed() -> None:
    text = countdown_text(Countdown(600_000, False, [1], None, 600))
    assert text == ("rank 1 is blocked in its next collective; its watchdog (the default 10-minute timeout) fires "
                    "in ~10 minutes: stop the job now")


def test_a_medium_severity_entry_waits_for_the_job_to_end() -> None:
    """nccl-ib-no-device is a slow fallback, not a death: no live alert for it."""
    app = Denpex()
    rule = app.entry("nccl-ib-no-device")
    assert rule is not None and rule.severity == "medium"
    policy = AlertPolicy()

    class Report:
        root, confidence = rule, "high"

    class Outcome:
        report = Report()

    assert not policy.wants(Outcome())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("doc", "reason"),
    [({"protocol": "denpex-watch/1", "nonce": "x"}, "nonce"),
     ({"protocol": "denpex-watch/1", "nonce": "0" * 32, "sent_at": 1.0, "job": "j", "kind": "shout"}, "kind"),
     ({"protocol": "denpex-watch/1", "nonce": "0" * 32, "sent_at": 1.0, "job": "j", "kind": "alert", "root": None,
       "evidence": [{"line": 1, "rank": None, "text": "x" * 501}]}, "longer than 500")],
    ids=["bad-nonce", "bad-kind", "long-evidence"],
)
def test_the_protocol_names_what_is_wrong(doc: dict, reason: str) -> None:
    import json

    with pytest.raises(ProtocolError, match=reason):
        parse_alert(json.dumps(doc).encode())


def test_what_leaves_the_node_is_masked(app: Denpex) -> None:
    """The alert's evidence is MaskedText: a token and a user name on the failing line are gone."""
    from bot.masking import MaskedText

    leak = "hf_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f"
    line = OOM.rstrip(b"\n") + b" while loading /home/alice/ckpt with HF_TOKEN=" + leak.encode() + b"\n"
    session, said = _session(app)
    session.take("stderr", b"[rank5]:USER=alice\n" + line)
    session.end(1)
    assert session.sent
    for alert in session.sent:
        for e in alert.evidence:
            assert isinstance(e.text, MaskedText)
            assert leak not in e.text and "alice" not in e.text
        assert leak not in alert.to_json("0" * 32, 0.0).decode()
    assert not any(leak in s for s in said)


def test_a_stopped_job_gets_a_final_word_only_when_something_was_found(app: Denpex) -> None:
    """Ctrl-C on a healthy job is quiet; a job stopped after its OOM still gets its final alert."""
    quiet, _ = _session(app)
    quiet.take("stdout", b"{'loss': 1.2}\n")
    quiet.end(-2, stopped=True)
    assert quiet.sent == []
    found, _ = _session(app)
    found.take("stderr", OOM)
    found.end(-15, stopped=True)
    assert [a.kind for a in found.sent] == ["alert", "final"] and found.sent[1].exit.signal == "SIGTERM"


def test_output_the_matcher_cannot_keep_up_with_is_passed_and_said(app: Denpex, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the backlog cap, pieces are not matched (the job is never slowed) and that is told."""
    import bot.watch.session as session_module

    monkeypatch.setattr(session_module, "MAX_BACKLOG_BYTES", 10)
    session, said = _session(app)
    session.take("stdout", b"x" * 100 + b"\n")
    session.end(0)
    assert session.unmatched_bytes == 101
    assert any("faster than its output can be matched" in s for s in said)


def test_a_watchdog_that_fired_already_is_said_so() -> None:
    text = countdown_text(Countdown(600_000, True, [0, 1], "ALLREDUCE", 0))
    assert text == ("ranks 0-1 are waiting in ALLREDUCE; their watchdog (Timeout(ms)=600000) has fired by now: "
                    "stop what is left of the job")


def test_a_job_printing_no_break_spaces_is_alerted_as_with_spaces(app: Denpex) -> None:
    """A job whose output carries no-break spaces (a wrapper that pretty-prints numbers and
    units, a locale's thousands separator): the same alert as with ASCII spaces."""
    session, _ = _session(app)
    session.take("stderr", INIT + OOM.replace(b" ", "\u00a0".encode()))
    deadline = time.monotonic() + 10
    while not session.sent and time.monotonic() < deadline:
        time.sleep(0.01)
    session.end(1)
    assert [a.root for a in session.sent if a.kind == "alert"] == ["cuda-oom"]
