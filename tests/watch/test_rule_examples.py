"""Every rule example, fed line by line as `denpex watch` feeds a live job: the final verdict is
the one `denpex diagnose` gives, and an entry worth waking people for is alerted on while the
log is still being written, not only at its end."""

from __future__ import annotations

import pytest

from bot.service import Denpex
from bot.spaces import ascii_spaces
from bot.watch.alerting import LIVE_CONFIDENCES, LIVE_SEVERITIES, AlertPolicy

APP = Denpex()
RULE_IDS = sorted(rule.id for rule in APP.rulebook if rule.examples)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_live_feeding_finds_what_diagnose_finds(rule_id: str) -> None:
    rule = APP.entry(rule_id)
    assert rule is not None
    for example in rule.examples:
        log = example.log if example.log.endswith("\n") else example.log + "\n"
        live, policy, alerted = APP.live(), AlertPolicy(), []
        for line in log.splitlines(keepends=True):
            if live.feed(ascii_spaces(line.encode())):  # as the watch session feeds it
                outcome = live.interim()
                if policy.wants(outcome):
                    alerted.append(outcome.diagnosis.root.id)
        final, reference = live.finish().diagnosis, APP.diagnose_text(log).diagnosis
        assert [m.id for m in final.matches] == [m.id for m in reference.matches], example.name
        assert final.initiating_rank == reference.initiating_rank, example.name
        root = APP.entry(final.root.id) if final.root else None
        if root is not None and root.severity in LIVE_SEVERITIES and final.root.confidence in LIVE_CONFIDENCES:
            assert final.root.id in alerted, f"{example.name}: no live alert for {final.root.id} (got {alerted})"
