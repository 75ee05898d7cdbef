"""People a twenty-fifth blind corpus (mixed training logs with one or two planted values of
many kinds) found kept:

- An on-call rota that says when before its colon named a full name no list knows
  (`# on-call this week: Noemi Moretti, phone ...`): only the given name alone was read
  after `this week` (bot/masking/names.py).
- A person addressed by title in a shipping note (`ship the RMA unit to Mrs. Genoveva
  Throckmorton, ...`) was kept (bot/masking/names.py).
- A British street type (`27 Wexley Gardens`, `4500 Wexford Way`, `221 Kingsley Place`) was not
  read as an address (bot/masking/postal.py).
- A copy list's second name (`cc: Radomir Wojciechowski, Svetlana Ibragimova`) was kept: only
  the first was read (bot/masking/addressed.py).
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from bot.masking import mask
from bot.matcher import Matcher, load_rulebook
from tests.masking.test_keeps_diagnoses import ROOT


def test_on_call_rota_with_a_when_masks_the_full_name():
    out = mask("# on-call this week: Noemi Moretti, phone +1 635-452-4472 (escalate after 15 min)\n").text
    assert "Noemi" not in out and "Moretti" not in out
    assert out == "# on-call this week: <NAME-1>, phone <PHONE-1> (escalate after 15 min)\n"


def test_on_call_rota_with_a_when_keeps_a_team():
    out = mask("# on-call this week: Platform Infrastructure\n").text
    assert "Platform Infrastructure" in out


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Please ship the RMA unit to Mrs. Genoveva Throckmorton, Boise, ID 83702\n", "Genoveva Throckmorton"),
        ("Prof. Xiaoming Zhou reviewed the config.\n", "Xiaoming Zhou"),
        ("per Dr Ifeoma Nwachukwu the eval set is frozen\n", "Ifeoma Nwachukwu"),
    ],
)
def test_a_titled_name_is_masked_and_the_title_kept(line, name):
    out = mask(line).text
    assert all(part not in out for part in name.split())
    assert "<NAME-1>" in out
    assert line.split(name)[0] in out  # the title and the words before it stay


@pytest.mark.parametrize(
    "line",
    [
        "L2 Cache Miss Rate 12.5%\n",
        "[INFO|trainer.py:2243] 2026-11-30 03:10:40,118 >> ***** Running training *****\n",
        "Mr. Robot\n",
    ],
)
def test_title_words_without_a_person_stay(line):
    assert mask(line).text == line


@pytest.mark.parametrize(
    ("line", "street"),
    [
        ("Emergency contact: Flat 3, 27 Wexley Gardens, London SW9 8BJ\n", "27 Wexley Gardens"),
        ("Mailing: 4500 Wexford Way, Austin, TX 78701\n", "4500 Wexford Way"),
        ("Office: 221 Kingsley Place, Suite 400\n", "221 Kingsley Place"),
    ],
)
def test_more_street_types_are_addresses(line, street):
    out = mask(line).text
    assert street not in out
    assert "<ADDRESS-1>" in out
    assert line.split(street)[1] in out  # postcode and city stay


def test_numbers_before_a_street_type_word_in_a_log_stay():
    line = "Epoch 3 Best Way to resume: load step_4000\n"
    assert mask(line).text == line


def test_every_name_in_a_copy_list_is_masked():
    out = mask("cc: Radomir Wojciechowski, Svetlana Ibragimova\n").text
    assert out == "cc: <NAME-1>, <NAME-2>\n"


def test_copy_list_with_addresses_keeps_structure():
    out = mask("Cc: Svetlana Ibragimova <s.ibragimova@globex.com>, Radomir Wojciechowski\n").text
    assert "Svetlana" not in out and "Ibragimova" not in out and "Wojciechowski" not in out
    assert out.startswith("Cc: <NAME-") and "<EMAIL-1>" in out


def test_mixed_log_diagnosis_unchanged_by_the_new_rows():
    log = (
        "# on-call this week: Noemi Moretti, phone +1 635-452-4472 (escalate after 15 min)\n"
        "# cc: Radomir Wojciechowski, Svetlana Ibragimova\n"
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 79.15 GiB of which 1.12 GiB is free.\n"
    )
    matcher = Matcher(load_rulebook(ROOT / "rules"))
    before = matcher.diagnose(log)
    masked = mask(log).text
    after = matcher.diagnose(masked)
    assert [m.id for m in after.matches] == [m.id for m in before.matches]
    assert "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB." in masked


def test_meeting_attendees_are_masked_each():
    out = mask("Attendees: Ngozi Eze, Tobias Fairweather\n").text
    assert out == "Attendees: <NAME-1>, <NAME-2>\n"


def test_a_copy_label_before_a_metric_stays():
    line = "Participants: 16 ranks, Recipients: 8\n"
    assert mask(line).text == line
