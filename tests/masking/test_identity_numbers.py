"""National id numbers and payment card numbers (bot/masking/identity_numbers.py).

They reach a training log when a data sample or a validation error quotes a record, or a
support thread is pasted. The cards here are the networks' published test numbers, the SSNs
the SSA's advertising examples (078-05-1120, 219-09-9999), so no real person's number is in
the repository.
"""

from __future__ import annotations

import pytest

from bot.masking import Masker
from bot.masking.masker import mask as mask_log


def mask(text: str) -> str:
    return str(Masker().mask(text))


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        # pandas / csv errors quoting a row, as a data loader prints them
        ("ValueError: could not convert string to float: '078-05-1120'", "078-05-1120"),
        ("KeyError in row 17: {'name': 'x', 'ssn': '219-09-9999', 'label': 1}", "219-09-9999"),
        ("  SSN: 078051120", "078051120"),
        ("social security number 219 09 9999 on file", "219 09 9999"),
        ("record=[4111 1111 1111 1111, exp 12/29]", "4111 1111 1111 1111"),
        ("Visa 4111-1111-1111-1111 declined", "4111-1111-1111-1111"),
        ('{"cc_number": "5555555555554444", "amount": 12.5}', "5555555555554444"),
        ("card_number=4012888888881881", "4012888888881881"),
        ("amex 3782 822463 10005", "3782 822463 10005"),
        ("credit card: 6011111111111117", "6011111111111117"),
    ],
)
def test_identity_numbers_are_masked(line: str, secret: str) -> None:
    out = mask(line)
    assert secret not in out
    assert "<SSN-1>" in out or "<CARD-1>" in out


@pytest.mark.parametrize(
    "line",
    [
        "2024-12-05 10:42:01 step 1200 loss 1.234",  # a date is 4-2-2
        "Phone support: 415-555-0199 (US)",  # a phone number is 3-3-4 (masked as a phone, not an SSN)
        "id 900-12-3456 and 666-12-3456 and 123-00-4567 and 123-45-0000",  # never issued
        "input_ids: [ 101 4111 1111 1111 1111 2000 ]",  # a numpy row of token ids
        "tensor sizes 4096 4096 4096 4096",  # not Luhn-valid
        "4111 1111 1111 1112 fails the check digit",
        "build 123-45-67890 and part 0123-45-6789",  # longer runs
        "nvidia-cudnn-cu12==8.9.2.26 at 0000:1b:00.0",
        "epoch 4111111111111111 steps",  # contiguous digits without a card label
    ],
)
def test_numbers_that_only_look_like_them_survive(line: str) -> None:
    out = mask(line)
    assert "<SSN-" not in out and "<CARD-" not in out


def test_one_number_in_two_spellings_is_one_placeholder() -> None:
    out = mask("SSN: 078051120\nlater the form showed 078-05-1120 again\nand 219-09-9999\n")
    assert out.count("<SSN-1>") == 2
    assert "<SSN-2>" in out


def test_stats_count_them_by_kind_without_values() -> None:
    result = mask_log("ssn 078-05-1120 card 4111 1111 1111 1111\n")
    assert result.counts.get("ssn") == 1 and result.counts.get("card") == 1
