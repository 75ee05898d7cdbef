"""The terminal report and the command line's own manners: order, width, colour, help, errors."""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from bot.cli.term import use_color, width
from bot.render.text import cut, plural

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log"
ANSI = re.compile(r"\033\[[0-9;]*m")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_evidence_and_fix_come_before_the_prose(capsys):
    code, out, _ = run(capsys, "diagnose", str(SAMPLE))
    assert code == 0
    order = ["Root cause: CUDA Out of Memory", "Initiating rank: 3", "Evidence", "line 19 rank 3:", "Fix",
             "export PYTORCH_CUDA_ALLOC_CONF", "Why", "Verify", "Confirm it is this"]
    where = [out.index(s) for s in order]
    assert where == sorted(where), list(zip(order, where, strict=True))
    assert out.index("Evidence") < 400, "the evidence is within the first lines, not after the prose"


def test_long_evidence_is_cut_with_an_ellipsis_and_lines_follow_the_width(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    _, out, _ = run(capsys, "diagnose", str(SAMPLE))
    evidence = [line for line in out.splitlines() if line.startswith("  line ")]
    assert evidence and all(len(line) <= 60 for line in evidence), evidence
    assert evidence[0].endswith("…")
    prose = out[out.index("Why"): out.index("Verify")]
    assert all(len(line) <= 60 for line in prose.splitlines())
    monkeypatch.setenv("COLUMNS", "120")
    _, wide, _ = run(capsys, "diagnose", str(SAMPLE))
    assert max(len(line) for line in wide.split("Why")[1].split("Verify")[0].splitlines()) > 60


def test_cut_keeps_words_whole():
    assert cut("short", 20) == "short"
    assert cut("CUDA out of memory. Tried to allocate 3.91 GiB", 24) == "CUDA out of memory.…"
    assert cut("x" * 50, 10) == "x" * 9 + "…"


def test_one_line_reads_one_line(tmp_path, capsys):
    p = tmp_path / "one.log"
    p.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")
    _, out, _ = run(capsys, "diagnose", str(p))
    assert "1 line," in out and "1 lines" not in out
    assert plural(1, "byte") == "1 byte" and plural(2, "file") == "2 files" and plural(1000, "line") == "1,000 lines"


def test_markdown_keeps_the_rank(capsys):
    _, out, _ = run(capsys, "diagnose", str(SAMPLE), "--format", "markdown")
    assert "line 19 rank 3: [rank3]:torch.OutOfMemoryError" in out
    assert out.index("### Evidence") < out.index("### Fix") < out.index("### Why")


def test_color_auto_always_never_no_color_and_dumb(capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    _, out, _ = run(capsys, "diagnose", str(SAMPLE), "--color", "always")
    assert "\033[" in out
    assert "\033[31m" not in out and "31;" not in "".join(ANSI.findall(out)), "confidence is not red"
    _, out, _ = run(capsys, "diagnose", str(SAMPLE), "--color", "never")
    assert "\033[" not in out
    _, out, _ = run(capsys, "diagnose", str(SAMPLE))  # auto, and captured output is no terminal
    assert "\033[" not in out

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert use_color("auto", Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color("auto", Tty()) and use_color("always", Tty())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not use_color("auto", Tty())
    code = subprocess.run([sys.executable, "-m", "bot", "diagnose", str(SAMPLE), "--color", "sometimes"],
                          capture_output=True, cwd=ROOT, timeout=60).returncode
    assert code == 2


def test_width_follows_the_terminal(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "72")
    assert width(Tty()) == 72
    monkeypatch.setenv("COLUMNS", "500")
    assert width(Tty()) == 120
    monkeypatch.delenv("COLUMNS")
    assert width(io.StringIO()) == 100


def test_version_and_help_with_examples_and_exit_codes():
    from bot.cli import version

    out = subprocess.run([sys.executable, "-m", "bot", "--version"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == f"denpex {version()}" and version()[0].isdigit()
    helped = subprocess.run([sys.executable, "-m", "bot", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "examples:" in helped.stdout and "exit codes:" in helped.stdout and "denpex diagnose logs/" in helped.stdout


def _parsers(parser: argparse.ArgumentParser, name: str = "denpex"):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}")


def test_every_option_and_command_has_help():
    missing = []
    for name, parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._VersionAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                missing += [f"{name} {c.dest}" for c in action._choices_actions if not c.help]
                continue
            if not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


@pytest.mark.parametrize("limit", ["0", "-1", "51", "many"])
def test_lookup_limit_is_validated(limit):
    out = subprocess.run([sys.executable, "-m", "bot", "lookup", "CUDA out of memory", "--limit", limit],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 2 and "--limit" in out.stderr


def test_missing_or_broken_rules_give_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DENPEX_RULES_DIR", str(tmp_path / "nowhere"))
    code, _, err = run(capsys, "diagnose", str(SAMPLE))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "rules folder not found" in err, err
    broken = tmp_path / "rules" / "memory"
    broken.mkdir(parents=True)
    (broken / "bad.yaml").write_text("id: bad\ntitle: [unclosed\n")
    monkeypatch.setenv("DENPEX_RULES_DIR", str(tmp_path / "rules"))
    code, _, err = run(capsys, "diagnose", str(SAMPLE))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "bad.yaml" in err and "Traceback" not in err, err
    code, _, err = run(capsys, "lookup", "CUDA out of memory")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_rules_lint_reports_a_rejected_file_once(tmp_path, capsys):
    """b.yaml is broken; a.yaml lists it as related: the problem is b's, said once."""
    from tests.matcher.rulefactory import rule_doc, sig, write_rules

    def doc(rid: str, pattern: str, related: list[str]) -> dict:
        return rule_doc(rid, "memory", {"keywords": [rid], "signatures": [sig("s", pattern, 0.9)]}, related)

    a = doc("a-rule", r"alpha failed", ["b-rule", "c-rule"])
    b = doc("b-rule", r"beta (failed", ["a-rule", "c-rule"])
    c = doc("c-rule", r"gamma failed", ["a-rule", "b-rule"])
    rules = write_rules(tmp_path, [a, b, c])
    code, _, err = run(capsys, "rules", "lint", "--rules-dir", str(rules))
    assert code == 1
    problems = err.strip().splitlines()
    assert len(problems) == 2 and "b-rule.yaml" in problems[0] and "does not compile" in problems[0], err
    assert problems[1].startswith("1 problem(s)")


def test_shell_completion_completes_commands_and_option_values(tmp_path):
    script = subprocess.run([sys.executable, "-m", "bot", "completion", "bash"], capture_output=True, text=True,
                            cwd=ROOT, timeout=60).stdout
    (tmp_path / "c.sh").write_text(script)
    probe = f"""
source {tmp_path / "c.sh"}
t() {{ COMP_WORDS=("$@"); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); _denpex; echo "${{COMPREPLY[*]}}"; }}
t denpex di
t denpex diagnose --format ""
t denpex diagnose --color a
t denpex rules ""
"""
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert out == ["diagnose", "json markdown text", "always auto", "--help lint test"], out


def test_rules_lint_names_a_fix_env_written_as_text(tmp_path, capsys):
    """`fix.env: "NCCL_P2P_DISABLE=1"` (a string, not a mapping) is a problem in the file, not a traceback."""
    from tests.matcher.rulefactory import rule_doc, sig, write_rules

    doc = rule_doc("a-rule", "memory", {"keywords": ["a-rule"], "signatures": [sig("s", r"alpha failed", 0.9)]}, [])
    doc["fix"]["env"] = "NCCL_P2P_DISABLE=1"
    code, _, err = run(capsys, "rules", "lint", "--rules-dir", str(write_rules(tmp_path, [doc])))
    assert code == 1 and "Traceback" not in err, err
    assert "a-rule.yaml" in err and "fix.env" in err and "must be a mapping" in err, err
