"""`denpex codes create` and `denpex stats`: output, errors and exit codes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import bot.cli
from bot.masking import mask
from bot.store import Store

from .conftest import free_port

CODE = re.compile(r"DNPX-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}")


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, redis_url: str) -> Any:
    """Run `denpex ARGS` against the test database; only the store's command groups load."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setattr(bot.cli, "COMMAND_MODULES", ("bot.cli.codes", "bot.cli.stats"))
    return lambda *argv: bot.cli.main(list(argv))


def test_codes_create_prints_codes_once_and_only_codes(
    cli: Any, capsys: pytest.CaptureFixture[str], redis_dump: Any
) -> None:
    """stdout holds exactly the new codes, one a line; Redis holds none of them."""
    assert cli("codes", "create", "--plan", "scale", "--days", "14", "--count", "3") == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 3 and all(CODE.fullmatch(line) for line in lines)
    assert "not shown again" in err
    dump = json.dumps(redis_dump())
    assert not any(code in dump or code.replace("-", "") in dump for code in lines)


def test_created_code_redeems(cli: Any, capsys: pytest.CaptureFixture[str], redis_url: str) -> None:
    """A code printed by the CLI redeems for the plan and days asked for."""
    cli("codes", "create", "--plan", "scale", "--days", "7")
    code = capsys.readouterr().out.strip()
    with Store.from_env() as store:
        result = store.codes.redeem("T1", "U1", code)
    assert result.ok and result.plan == "scale"


@pytest.mark.parametrize(
    "argv",
    [
        ["codes", "create", "--plan", "scale", "--days", "0"],
        ["codes", "create", "--plan", "scale", "--days", "14", "--count", "0"],
        ["codes", "create", "--plan", "scale", "--days", "400"],
        ["stats", "unmatched", "--top", "0"],
    ],
)
def test_bad_arguments_exit_2(
    cli: Any, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """Impossible values are a usage error: one line on stderr, exit 2, nothing on stdout."""
    assert cli(*argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("denpex: ")


def test_redis_down_exits_1_naming_redis_url(
    cli: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without Redis each command prints one line naming REDIS_URL and exits 1."""
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")
    for argv in (
        ["codes", "create", "--plan", "scale", "--days", "14"],
        ["stats", "feedback"],
        ["stats", "unmatched"],
    ):
        assert cli(*argv) == 1
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "REDIS_URL" in err


def test_stats_feedback_table(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """stats feedback prints a header and one row per rule with votes and share right."""
    with Store.from_env() as store:
        store.feedback.vote("T1", "nccl-rocev2-gid-index", "U1", True, "C1:1.1")
        store.feedback.vote("T2", "nccl-rocev2-gid-index", "U1", True, "C1:1.1")
        store.feedback.vote("T2", "nccl-rocev2-gid-index", "U2", False, "C1:1.1")
        store.feedback.vote("T1", "cuda-oom", "U1", False, "C1:1.2")
    assert cli("stats", "feedback") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["RULE", "RIGHT", "WRONG", "RIGHT%", "WORKSPACES"]
    assert lines[1].split() == ["nccl-rocev2-gid-index", "2", "1", "67%", "2"]
    assert lines[2].split() == ["cuda-oom", "0", "1", "0%", "1"]


def test_stats_unmatched_table(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """stats unmatched prints counts and fingerprints, most frequent first, --top rows."""
    with Store.from_env() as store:
        for rank in range(3):
            store.unmatched.record("T1", mask(f"Segfault on rank {rank}").text)
        store.unmatched.record("T2", mask("Bus error at 0xdead").text)
    assert cli("stats", "unmatched", "--top", "1") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["COUNT  FINGERPRINT", "    3  Segfault on rank <N>"]


def test_stats_when_empty(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """With nothing recorded the commands say so instead of printing an empty table."""
    assert cli("stats", "feedback") == 0
    assert cli("stats", "unmatched") == 0
    assert capsys.readouterr().out.splitlines() == [
        "No feedback votes yet.",
        "No unmatched failures recorded yet.",
    ]
