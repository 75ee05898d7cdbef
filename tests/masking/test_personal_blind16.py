"""Personal data a blind round found leaking (maskblind16): tables and passwd rows behind a
container runtime's timestamp, international numbers after a name on an on-call rota, chat
speakers, given names in run names and TODO owners, and the diagnostic text beside them that
must stay."""

from __future__ import annotations

import pytest

from bot.masking import mask


def _masked(text: str) -> str:
    return str(mask(text).text)


# `kubectl logs --timestamps` / `docker logs -t` put an RFC 3339 time before every line.
@pytest.mark.parametrize(
    ("text", "login"),
    [
        ("2024-05-11T10:46:24.123456789Z USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
         "2024-05-11T10:46:24.123456789Z ngozi     97723 584.7 19.9 60395867 9005324 ?  Rl   09:14 885:33 python train.py\n",
         "ngozi"),
        ("2024-05-11T10:46:24Z drwxr-xr-x  5 okonkwoc research 4096 Mar 12 11:02 run-12\n", "okonkwoc"),
        ("2024-05-11T10:46:24.123Z JobID           JobName       User      State ExitCode\n"
         "2024-05-11T10:46:24.123Z ------------ ---------- ---------- ---------- --------\n"
         "2024-05-11T10:46:24.123Z 949362         ft-llama   wei_chen OUT_OF_ME+    0:125\n", "wei_chen"),
        ("2024-05-11T10:46:24.123+00:00 achidi:x:4191:4191:Adaeze Chidi,,,:/home/achidi:/bin/bash\n", "achidi"),
    ],
)
def test_rows_behind_a_container_timestamp_are_masked(text: str, login: str) -> None:
    out = _masked(text)
    assert login not in out
    assert "<USER-1>" in out
    assert "2024-05-11T10:46:24" in out  # the time itself stays


@pytest.mark.parametrize(
    ("line", "number"),
    [
        ("Primary:   Aoife Mbeki  +353 87 555 0142", "+353 87 555 0142"),
        ("on call tonight Chidi +234 803 555 0198 (whatsapp ok)", "+234 803 555 0198"),
        ("backup Youssef El-Amin +44 7700 900123", "+44 7700 900123"),
        ("Hardware desk +49 30 1612005 weekdays", "+49 30 1612005"),
        ("escalation +1-646-555-0142 after 22:00", "+1-646-555-0142"),
    ],
)
def test_international_numbers_after_a_blank_are_masked(line: str, number: str) -> None:
    out = _masked(line)
    assert number not in out
    assert "<PHONE-1>" in out


@pytest.mark.parametrize(
    "line",
    [
        "Total params: +12 345 trainable",
        "grad_norm delta +3 1.5 0.25",
        "timezone offset +05:30 applied",
        "step 1200 loss 2.31 (+0.02 vs 1100)",
        "@@ -12,7 +12,9 @@ def train(args):",
    ],
)
def test_signed_counts_after_a_blank_are_kept(line: str) -> None:
    assert _masked(line) == line
