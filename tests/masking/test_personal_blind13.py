"""Personal data a blind round found leaking (maskblind13): national phone numbers without `+`
or label, UK National Insurance numbers, an on-call rota's given name, dotted logins in CI
variables, surnames in run and project names, Windows' default host names, and the diagnostic
text beside them that must stay."""

from __future__ import annotations

import pytest

from bot.masking import mask


def _masked(text: str) -> str:
    return str(mask(text).text)


@pytest.mark.parametrize(
    ("line", "number"),
    [
        ("# node flaps again? text Callum on 07912 334871 before rebooting", "07912 334871"),
        ("escalation (nights): 07460 118 902", "07460 118 902"),
        ("Bereitschaft Lena Hoffmann 0176 55123987", "0176 55123987"),
        ("Notfall: 0157-8812304 (Cluster-Team)", "0157-8812304"),
        ("astreinte cluster : 06 41 27 88 13", "06 41 27 88 13"),
        ("joignable au 07.83.12.44.90 en cas de panne", "07.83.12.44.90"),
        ("if the A100 pool drains, whatsapp 98450 21763", "98450 21763"),
        ("alerts:\n  - sms: \"09845021763\"", "09845021763"),
        ("escalate to Arjun 9845021763 if the NCCL watchdog fires", "9845021763"),
    ],
)
def test_national_mobile_numbers_are_masked(line: str, number: str) -> None:
    out = _masked(line)
    assert number not in out
    assert "<PHONE-1>" in out


@pytest.mark.parametrize(
    "line",
    [
        "Total params: 8589934592, trainable 20971520",
        "[rank0] step 07123 loss 2.3810",
        "tokens: [98450 21763 30522 1012]",
        "nvidia-cudnn-cu12==9.1.0.70 cuda 12.4.127 driver 550.54.15",
        "timestamp=1717000000 elapsed=6123456789us",
        "checkpoint-06123456/pytorch_model.bin",
        "call 6000000000 steps, then eval",
        "loaded 0700000123 bytes from shard 3",
    ],
)
def test_numbers_that_are_not_phones_stay(line: str) -> None:
    assert _masked(line) == line


def test_a_contact_line_masks_the_given_name_after_another_capitalised_word() -> None:
    out = _masked("Rufbereitschaft Jonas Weber: 0160 7741293")
    assert "Jonas" not in out and "Weber" not in out and "7741293" not in out
    assert out.startswith("Rufbereitschaft ")


@pytest.mark.parametrize(
    ("line", "nino"),
    [
        ("hr_sync: worker=E-2211 ni_number=JT394857C ok", "JT394857C"),
        ("NI no. KM 20 58 31 A on the onboarding form", "KM 20 58 31 A"),
        ("ValueError: bad row ['Ms', 'RS 66 01 92 D', '2019-04-01']", "RS 66 01 92 D"),
        ('{"national_insurance_number": "HZ481920B"}', "HZ481920B"),
    ],
)
def test_national_insurance_numbers_are_masked(line: str, nino: str) -> None:
    out = _masked(line)
    assert nino not in out and "<NINO-1>" in out


@pytest.mark.parametrize(
    "line",
    [
        "part AB123456C shipped",  # a compact id with no label is no one's number
        "Xid 79 on GPU 0000:3B:00.0 PCI 12 34 56",
        "kernel TK 12 34 56 E failed",  # suffix past D
    ],
)
def test_national_insurance_look_alikes_stay(line: str) -> None:
    assert _masked(line) == line


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("# on-call: Wilhelmina", "Wilhelmina"),
        ("oncall this week: Torvald", "Torvald"),
        ('on_call: "Marisol"', "Marisol"),
    ],
)
def test_an_on_call_given_name_alone_is_masked(line: str, name: str) -> None:
    out = _masked(line)
    assert name not in out and "<NAME-1>" in out


@pytest.mark.parametrize(
    "line",
    ["on-call: Platform", "on_call: true", "on-call: None", "on-call: SRE", "ONCALL=PagerDuty", "on-call: Weekdays",
     "oncall: Disabled", "on-call: Rotating", "on-call: Escalation (see runbook)"],
)
def test_an_on_call_team_or_flag_stays(line: str) -> None:
    assert _masked(line) == line


@pytest.mark.parametrize(
    ("line", "login"),
    [
        ("GITHUB_ACTOR=marisol.quintero", "marisol.quintero"),
        ("+ export GITHUB_TRIGGERING_ACTOR=t.okafor", "t.okafor"),
        ("github.actor: wil.de-groot", "wil.de-groot"),
    ],
)
def test_dotted_ci_logins_are_masked_whole(line: str, login: str) -> None:
    out = _masked(line)
    assert login.split(".")[-1] not in out and "<USER-1>" in out


def test_a_sentence_dot_after_a_ci_login_stays() -> None:
    assert _masked("GITHUB_ACTOR=qnakamura.") == "GITHUB_ACTOR=<USER-1>."


@pytest.mark.parametrize(
    ("line", "surname"),
    [
        ("wandb: Syncing run hannah-oyelowo-qwen2-7b-lr1e-5", "oyelowo"),
        ("  project_id: priya-vantongeren-c4-dedup", "vantongeren"),
        ("--run_name lukas_brzezinski_mistral-7b_gsm8k --output_dir /ckpt", "brzezinski"),
        ("wandb: ⭐️ View project at https://wandb.ai/acme-research/tomasz-okafor-gemma-2b", "okafor"),
        ("wandb: Syncing run zubeida-lindqvist-sft", "lindqvist"),
    ],
)
def test_a_family_name_beside_a_given_name_in_a_run_or_project_is_masked(line: str, surname: str) -> None:
    out = _masked(line)
    assert surname not in out and "<USER-1>" in out


@pytest.mark.parametrize(
    "line",
    [
        "wandb: Syncing run stellar-wolf-12",  # W&B's own adjective-noun-number name
        "wandb: 🚀 View run at https://wandb.ai/acme-ml/llama-sft/runs/x8k2",
        "wandb: Syncing run cosine-warmup-mixtral-8x7b",
    ],
)
def test_run_names_without_a_person_stay(line: str) -> None:
    assert _masked(line) == line


def test_a_run_word_after_a_given_name_stays() -> None:
    assert _masked("wandb: Syncing run priya-baseline-sweep") == "wandb: Syncing run <USER-1>-baseline-sweep"


@pytest.mark.parametrize(
    ("line", "host"),
    [
        ("Host Name:                 DESKTOP-QWHJTRP", "DESKTOP-QWHJTRP"),
        ("[W socket.cpp:663] [c10d] The client socket has failed to connect to [LAPTOP-7D2NQ0XA]:29500", "LAPTOP-7D2NQ0XA"),
        ("DistNetworkError: Connection reset by peer, remote=desktop-3m8vz1k.mshome.net:29400", "desktop-3m8vz1k"),
    ],
)
def test_windows_default_host_names_are_masked(line: str, host: str) -> None:
    out = _masked(line)
    assert host not in out and "<HOST-1>" in out
    assert "29" in out or "Host Name:" in out


@pytest.mark.parametrize("line", ["laptop-mode-tools 1.74 installed", "build DESKTOP-BACKENDS target", "ubuntu-desktop-minimal 1.481"])
def test_words_beginning_with_desktop_or_laptop_stay(line: str) -> None:
    assert _masked(line) == line


def test_a_windows_profile_named_with_spaces_is_masked_whole() -> None:
    line = r'OSError: [WinError 126] Error loading "C:\Users\Marisol Quintero\miniconda3\Lib\site-packages\torch\lib\c10.dll"'
    out = _masked(line)
    assert "Quintero" not in out and "Marisol" not in out
    assert r"C:\Users\<USER-1>\miniconda3\Lib\site-packages\torch\lib\c10.dll" in out


def test_windows_own_profiles_stay() -> None:
    line = r"C:\Users\All Users\NVIDIA Corporation\Drs\nvdrsdb0.bin"
    assert _masked(line) == line


def test_a_service_accounts_personal_namespace_is_masked() -> None:
    line = 'pods is forbidden: User "system:serviceaccount:user-qnakamura:default" cannot list resource "pods"'
    out = _masked(line)
    assert "qnakamura" not in out and "system:serviceaccount:user-<USER-1>:default" in out


def test_a_teams_service_account_stays() -> None:
    line = 'pods is forbidden: User "system:serviceaccount:ml-platform:trainer" cannot list resource "pods"'
    assert _masked(line) == line


def test_the_login_in_a_vscode_remote_uri_is_masked() -> None:
    out = _masked("vscode-remote://ssh-remote%2Bq.nakamura%40login02/home/q.nakamura/llm/train.py")
    assert "nakamura" not in out and "ssh-remote%2B<USER-1>%40" in out and "/llm/train.py" in out


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("WARNING pii_scan: sample 412 name=Marta Kowalewska dob=1988-02-11", "Marta Kowalewska"),
        ('{"name": "Ahmed Farouk", "role": "admin"}', "Ahmed Farouk"),
        ("escalation:\n  - name: Hannah Lindqvist\n    sms: \"07700 900461\"", "Hannah Lindqvist"),
    ],
)
def test_a_given_and_family_name_under_a_bare_name_key_are_masked(line: str, name: str) -> None:
    out = _masked(line)
    assert name.split()[-1] not in out and "<NAME-1>" in out


@pytest.mark.parametrize(
    "line",
    ["optimizer: name=Adam W", "  - name: Adam Optimizer", "layer_name=Dense Block", "JobName=Train Llama", "name: Llama Guard"],
)
def test_things_under_a_name_key_stay(line: str) -> None:
    assert _masked(line) == line


def test_a_given_and_family_name_run_together_as_an_entity_are_masked() -> None:
    out = _masked('wandb.init(project="llama-sft", entity="hannahfischer", name="hannah_fischer_sweep2")')
    assert "fischer" not in out and 'project="llama-sft"' in out


def test_an_hr_records_employee_login_is_masked() -> None:
    out = _masked("hr_sync: employee=m.quintero ni_number=JT394857C ok")
    assert "quintero" not in out and "employee=<USER-1>" in out and "ok" in out


def test_two_capitalised_words_right_before_a_contact_number_are_a_name() -> None:
    out = _masked("astreinte réseau : Maëlle Quéré 06 88 12 40 57")
    assert "Quéré" not in out and "<NAME-1> <PHONE-1>" in out


@pytest.mark.parametrize("line", ["Pager Duty: +44 20 7946 0958", "NCCL Version 2.19.3 phone", "Support Hotline: +1 415 555 0134"])
def test_what_announces_a_number_is_no_name(line: str) -> None:
    out = _masked(line)
    assert "<NAME-" not in out
