"""The `denpex` command line as a user runs it: a real subprocess, real files."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log"


def denpex(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, input=stdin, capture_output=True, timeout=280,
        env={**os.environ, **(env or {})},
    )


def test_diagnose_sample_names_the_root_cause_and_initiating_rank():
    """The README's main job: the OOM on rank 3 is the root; the watchdog timeouts are collateral."""
    out = denpex("diagnose", str(SAMPLE), "--format", "json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["matches"][0]["id"] == "cuda-oom" and d["matches"][0]["role"] == "root"
    assert d["initiating_rank"] == 3
    coll = {c["id"]: c["ranks"] for c in d["collateral"]}
    assert coll.get("nccl-watchdog-timeout") == [0, 1, 2, 4, 5, 6, 7]
    assert d["unmatched"] is None and d["stats"]["lines"] > 50


def test_text_and_markdown_carry_the_same_content():
    """The terminal text names the entry, the fix and the rank; markdown too."""
    text = denpex("diagnose", str(SAMPLE)).stdout.decode()
    md = denpex("diagnose", str(SAMPLE), "--format", "markdown").stdout.decode()
    for out in (text, md):
        assert "Out of Memory" in out and "3" in out and "Fix" in out
    assert "\033[" not in text, "no colour when stdout is not a tty"


def test_diagnose_reads_gzip_and_stdin(tmp_path):
    """A .gz file and `-` (stdin) give the same diagnosis as the plain file."""
    gz = tmp_path / "train.log.gz"
    gz.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    a = json.loads(denpex("diagnose", str(gz), "--format", "json").stdout)
    b = json.loads(denpex("diagnose", "-", "--format", "json", stdin=SAMPLE.read_bytes()).stdout)
    assert a["matches"][0]["id"] == b["matches"][0]["id"] == "cuda-oom"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.log", None, "no such file"),
        ("", None, "no log files in this folder"),
        ("empty.log", b"", "empty"),
        ("blank.log", b"  \n\n\t\n", "empty"),
        ("bin.log", b"\x00\x01\x02abc" * 50, "binary"),
        ("a.zip", b"PK\x03\x04" + b"x" * 40, "zip archive"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, name, content, message):
    """Missing, directory, empty, binary and archive inputs: exit 2 and one specific line on stderr."""
    path = tmp_path / name if name else tmp_path
    if content is not None:
        path.write_bytes(content)
    out = denpex("diagnose", str(path))
    err = out.stderr.decode().strip()
    assert out.returncode == 2 and message in err and len(err.splitlines()) == 1, err


def test_invalid_utf8_is_diagnosed_not_refused(tmp_path):
    """Broken UTF-8 in a log is replaced, never a crash."""
    p = tmp_path / "latin1.log"
    p.write_bytes(SAMPLE.read_bytes() + b"\xff\xfe caf\xe9 \xc3\x28\n")
    out = denpex("diagnose", str(p), "--format", "json")
    assert out.returncode == 0 and json.loads(out.stdout)["matches"][0]["id"] == "cuda-oom"


def test_healthy_log_exits_0_with_no_match(tmp_path):
    """No failure is not an error: exit 0, empty matches."""
    p = tmp_path / "ok.log"
    p.write_text("epoch 1 loss 2.3\nepoch 2 loss 1.9\nTraining completed.\n")
    out = denpex("diagnose", str(p), "--format", "json")
    assert out.returncode == 0 and json.loads(out.stdout)["matches"] == []


def test_evidence_is_masked_by_default(tmp_path):
    """Secrets in the log never reach the output; --no-mask is the explicit opt-out."""
    p = tmp_path / "secret.log"
    p.write_bytes(b"export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567\n" + SAMPLE.read_bytes()
                  + b"[rank3]:torch.OutOfMemoryError: CUDA out of memory on 10.20.30.40 hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567\n")
    out = denpex("diagnose", str(p), "--format", "json").stdout.decode()
    assert "hf_AbCdEfGhIjKlMn" not in out and "10.20.30.40" not in out


def test_lookup_and_show():
    """lookup ranks the signature match first; show prints a whole entry; unknown ids exit 2."""
    out = denpex("lookup", "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB").stdout.decode()
    assert out.splitlines()[0].startswith("cuda-oom")
    shown = denpex("show", "cuda-oom")
    assert shown.returncode == 0 and b"Hardware or software?" in shown.stdout
    missing = denpex("show", "no-such-entry")
    assert missing.returncode == 2 and b"no entry" in missing.stderr


def test_a_lookup_naming_no_failure_asks_for_the_error_line():
    """`denpex lookup training failed`: no guessed entry, the way to a useful answer instead, exit 0."""
    done = denpex("lookup", "training", "failed")
    out = done.stdout.decode()
    assert done.returncode == 0 and "does not say which failure it is" in out and "denpex diagnose" in out
    assert "sagemaker" not in out


def test_rules_lint_and_test_pass():
    """The shipped knowledge base lints clean, and `rules test` runs the examples of the
    entries asked for. (Every entry's examples are run in process, with and without the
    prefilter, by tests/test_knowledge_base.py: the same check_example, not a second time here.)"""
    lint = denpex("rules", "lint")
    assert lint.returncode == 0, lint.stderr.decode()[-2000:]
    test = denpex("rules", "test", "--only", "cuda-oom", "nccl-watchdog-timeout")
    assert test.returncode == 0, test.stdout.decode()[-3000:]
    assert re.search(r"^(\d+) passed, 0 failed$", test.stdout.decode(), re.M), test.stdout.decode()[-500:]


def test_rules_test_fails_on_an_example_its_entry_does_not_diagnose(tmp_path):
    """An example the entry does not diagnose fails `rules test` with a non-zero exit and says which."""
    from tests.matcher.rulefactory import rule_doc, sig, write_rules

    def entry(rule_id: str, phrase: str, others: list[str], wrong: str | None = None) -> dict:
        match = [{"name": "real", "log": f"OSError: {phrase}\n"}, {"name": "again", "log": f"{phrase}\n"}]
        if wrong:
            match.append({"name": "wrong", "log": wrong})
        return rule_doc(rule_id, "storage", {"keywords": [phrase.lower()], "signatures": [sig("s", phrase, 0.9)]}, others,
                        examples={"match": match, "near_miss": [{"name": "fine", "log": "all good\n", "why": "fine"}]})

    rules = [entry("quota", "Disk quota exceeded", ["disk-full", "read-only"], wrong="No such file or directory\n"),
             entry("disk-full", "No space left on device", ["quota", "read-only"]),
             entry("read-only", "Read-only file system", ["quota", "disk-full"])]
    out = denpex("rules", "test", "--rules-dir", str(write_rules(tmp_path, rules)))
    text = out.stdout.decode()
    assert out.returncode != 0, text
    assert "1 failed" in text and "wrong" in text, text


def test_rules_match_the_raw_log_and_print_it_masked(tmp_path):
    """The matcher reads the raw log, so a pattern spelling out an address works in `rules
    test` and in `denpex diagnose` alike, and the address is still masked in what is printed."""
    from tests.matcher.rulefactory import rule_doc, sig, write_rules

    literal_ip = rule_doc(
        "redis-down", "storage",
        {"keywords": ["connection refused"], "signatures": [sig("s", r"10\.1\.2\.3:6379\. Connection refused", 0.9)]},
        ["masked-ok", "quota"],
        examples={
            "match": [
                {"name": "raw address", "log": "Error 111 connecting to 10.1.2.3:6379. Connection refused.\n"},
                {"name": "again", "log": "redis: Error 111 connecting to 10.1.2.3:6379. Connection refused.\n"},
            ],
            "near_miss": [{"name": "other port", "log": "10.1.2.3:6380. Connection refused.\n", "why": "not redis"}],
        },
    )
    any_address = rule_doc(
        "masked-ok", "storage",
        {"keywords": ["broken pipe"], "signatures": [sig("s", r"\S+:6379\. Broken pipe", 0.9)]},
        ["redis-down", "quota"],
        examples={
            "match": [
                {"name": "any address", "log": "Error 32 writing to 10.1.2.3:6379. Broken pipe.\n"},
                {"name": "a host", "log": "Error 32 writing to cache.acme.internal:6379. Broken pipe.\n"},
            ],
            "near_miss": [{"name": "other port", "log": "10.1.2.3:6380. Broken pipe.\n", "why": "not redis"}],
        },
    )
    quota = rule_doc(
        "quota", "storage",
        {"keywords": ["disk quota exceeded"], "signatures": [sig("s", r"Disk quota exceeded", 0.9)]},
        ["redis-down", "masked-ok"],
        examples={
            "match": [{"name": "a", "log": "OSError: [Errno 122] Disk quota exceeded\n"}, {"name": "b", "log": "Disk quota exceeded\n"}],
            "near_miss": [{"name": "c", "log": "quota: 10% used\n", "why": "fine"}],
        },
    )
    rules = write_rules(tmp_path, [literal_ip, any_address, quota])
    out = denpex("rules", "test", "--rules-dir", str(rules))
    text = out.stdout.decode()
    assert out.returncode == 0, text
    assert "9 passed, 0 failed" in text
    log = tmp_path / "redis.log"
    log.write_text("Error 111 connecting to 10.1.2.3:6379. Connection refused.\n")
    env = {"DENPEX_RULES_DIR": str(rules)}
    diagnosed = json.loads(denpex("diagnose", str(log), "--format", "json", env=env).stdout)
    assert diagnosed["matches"][0]["id"] == "redis-down"
    assert diagnosed["matches"][0]["evidence"][0]["text"] == "Error 111 connecting to <IP-1>:6379. Connection refused."
