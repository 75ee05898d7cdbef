"""Bad input, pasted or uploaded: empty, blank, one 5 MB line, invalid UTF-8, binaries and
images, gzip bombs, lying sizes, deep or huge JSON, regex-hostile runs. Each gets a clear
message (or a diagnosis) in bounded time; nothing crashes, nothing bad is charged."""

from __future__ import annotations

import gzip
import json
import time

import pytest

from tests.reliability.conftest import (
    INFLATED_CAP,
    SAMPLE,
    UPLOAD_CAP,
    all_text,
    message,
    new_ts,
    used,
)
from tests.slack.conftest import wait_handled

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 79.15 GiB"
BOUND_S = 30  # "bounded, not hung": generous on a loaded 2-core machine
FIVE_MB = 5_000_000


def upload_and_wait(rbot, rfake, name: str, content: bytes, **kw) -> tuple[str, float]:
    """Share a file; return the reply's text and how long it took."""
    f = rfake.add(name, content, **kw)
    ts = new_ts()
    started = time.monotonic()
    assert rbot.event(message("", ts, subtype="file_share", files=[f])).status == 200
    post = rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=BOUND_S)[0]
    return all_text(post), time.monotonic() - started


def paste_and_wait(rbot, rfake, text: str) -> tuple[str, float]:
    ts = new_ts()
    started = time.monotonic()
    assert rbot.event(message(text, ts)).status == 200
    post = rfake.wait_delivered("chat.postMessage", thread_ts=ts, timeout=BOUND_S)[0]
    return all_text(post), time.monotonic() - started


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t \n", "```\n\n```"], ids=["empty", "spaces", "blank-lines", "empty-code-block"])
def test_empty_or_blank_paste_is_ignored_and_a_blank_mention_gets_help(rbot, rfake, text):
    """A blank message in a channel gets nothing; the same mentioning the bot gets the help text."""
    blank = new_ts()
    rbot.event(message(text, blank))
    ts = new_ts()
    rbot.event({**message(f"<@UBOT0001> {text}", ts), "type": "app_mention"})
    post = rfake.wait_delivered("chat.postMessage", thread_ts=ts)[0]
    assert "diagnoses failed training runs" in all_text(post)
    wait_handled(rbot, blank, ts)
    assert len(rfake.delivered("chat.postMessage")) == 1
    assert used(rbot) == 0


@pytest.mark.parametrize("content", [b"", b" \n\t\n   \n", b"\n" * 100_000], ids=["zero-bytes", "blank", "100k-newlines"])
def test_empty_or_blank_upload_says_so(rbot, rfake, content):
    """An empty or blank file: 'the log is empty', no charge."""
    text, _ = upload_and_wait(rbot, rfake, "train.log", content)
    assert "empty" in text, text
    assert used(rbot) == 0


@pytest.mark.parametrize(
    ("content", "gz", "expect"),
    [
        (b"x" * FIVE_MB, False, None),
        (OOM.encode() + b" " + b"x" * FIVE_MB, False, "cuda-oom"),
        (b"a." * (FIVE_MB // 2) + b"\n" + OOM.encode() + b"\n", False, "cuda-oom"),
        (b" " * FIVE_MB + b"RuntimeError: something broke", False, None),
        (b"[rank3]:" * (FIVE_MB // 8), True, None),
    ],
    ids=["x-run", "error-then-run", "run-then-error", "spaces-then-text", "rank-prefixes-gz"],
)
def test_a_single_5mb_line_is_answered_in_bounded_time(rbot, rfake, content, gz, expect):
    """One 5 MB line (plain or gzip): a reply within 30 s, the diagnosis when an error leads it."""
    data = gzip.compress(content, 1) if gz else content
    text, took = upload_and_wait(rbot, rfake, "one-line.log.gz" if gz else "one-line.log", data)
    assert took < BOUND_S
    if expect:
        assert expect in text, text[:500]
    else:
        assert "empty" not in text and "Something went wrong" not in text, text[:500]


def test_the_longest_paste_slack_sends_is_answered(rbot, rfake):
    """A 40,000-character pasted line (Slack's message cap) after a traceback: answered, bounded."""
    text, took = paste_and_wait(rbot, rfake, "Traceback (most recent call last)\n" + "a." * 20_000 + "\n" + OOM)
    assert "cuda-oom" in text and took < BOUND_S


def test_invalid_utf8_upload_is_still_diagnosed(rbot, rfake):
    """Invalid UTF-8 sprinkled through a log (and overlong, surrogate, truncated sequences): still diagnosed."""
    junk = b"\xff\xfe \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82\n"
    content = junk + SAMPLE.encode().replace(b"\n", b" \xc3\x28\n", 5) + junk[:-1]
    text, _ = upload_and_wait(rbot, rfake, "train.log", content)
    assert "cuda-oom" in text
    assert used(rbot) == 1


def test_paste_with_lone_surrogates_and_control_characters_is_diagnosed(rbot, rfake):
    """A paste holding lone surrogates, escapes and bells (valid JSON, invalid text): still diagnosed."""
    text = "Traceback (most recent call last)\n\ud800 \udfff \x07\x1b[31m\x1b[0m \u202e\ufeff\n" + SAMPLE
    reply, _ = paste_and_wait(rbot, rfake, text)
    assert "cuda-oom" in reply


@pytest.mark.parametrize(
    ("name", "content", "kw", "expect"),
    [
        ("train.log", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, {}, "PNG image"),
        ("train.txt", b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(range(256)) * 40, {}, "JPEG image"),
        ("report.log", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + b"stream" * 1000, {}, "PDF"),
        ("logs.log", b"PK\x03\x04" + bytes(range(256)) * 40, {}, "zip archive"),
        ("train.log", bytes(range(256)) * 400, {}, "binary"),
        ("diagram.png", b"\x89PNG\r\n\x1a\n", {"filetype": "png", "mimetype": "image/png"}, "not a log file I read"),
        ("model.safetensors", b"\x00" * 100, {"filetype": "binary", "mimetype": "application/octet-stream"}, "not a log file I read"),
        ("weights.log", b"\x7fELF\x02\x01\x01" + b"\x00" * 5000, {}, "executable"),
    ],
    ids=["png-as-log", "jpeg-as-txt", "pdf", "zip", "random-binary", "image-upload", "weights-upload", "elf"],
)
def test_binary_and_image_uploads_get_a_clear_message(rbot, rfake, name, content, kw, expect):
    """Images, archives, executables and raw binary: a message naming what it is, no charge."""
    text, _ = upload_and_wait(rbot, rfake, name, content, **kw)
    assert expect in text, text
    assert used(rbot) == 0


def _members_bomb() -> bytes:
    member = gzip.compress(b"\n" * 2_000_000, 9)
    return member * (INFLATED_CAP // 2_000_000 + 5)


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        (gzip.compress(b"A" * (INFLATED_CAP * 3), 9), "inflates past"),
        (_members_bomb(), "inflates past"),
        # The second layer is read within the first's cap (bot.ingest: compressed twice).
        (gzip.compress(gzip.compress(b"\n" * (INFLATED_CAP * 2), 9), 9), "inflates past"),
        (gzip.compress(SAMPLE.encode())[:-40], "cuda-oom"),
        (b"\x1f\x8b\x08\x00" + b"\x00" * 2000, "corrupt"),
    ],
    ids=["one-member-bomb", "many-members-bomb", "gzip-in-gzip", "truncated-read-as-far-as-it-goes", "garbage-after-magic"],
)
def test_gzip_bombs_and_broken_gzip_are_refused_in_bounded_time(rbot, rfake, content, expect):
    """Gzip bombs and corrupt gzip: refused with a reason in bounded time; a cut-short gzip is read as far as it goes."""
    text, took = upload_and_wait(rbot, rfake, "train.log.gz", content, filetype="gzip", mimetype="application/gzip")
    assert expect in text, text
    assert took < BOUND_S
    assert used(rbot) == (1 if expect == "cuda-oom" else 0)


@pytest.mark.parametrize(
    ("content", "declared", "expect"),
    [
        (b"line\n" * (UPLOAD_CAP // 5 + 10), 100, "larger than the"),
        (b"line\n" * (UPLOAD_CAP // 5 + 10), 0, "larger than the"),
        (SAMPLE.encode(), UPLOAD_CAP * 10, "over the"),
        (SAMPLE.encode(), len(SAMPLE) * 3, "cuda-oom"),
    ],
    ids=["claims-small", "claims-zero", "claims-huge", "claims-bigger-but-under-cap"],
)
def test_declared_size_that_lies_is_caught_while_streaming(rbot, rfake, content, declared, expect):
    """files.info says one size, the bytes another: the cap holds on what actually arrives."""
    text, _ = upload_and_wait(rbot, rfake, "train.log", content, declared_size=declared)
    assert expect in text, text
    assert used(rbot) == (1 if expect == "cuda-oom" else 0)


def test_deeply_nested_and_huge_json_logs_are_answered(rbot, rfake):
    """A log that is one deeply nested JSON line, and a 3 MB JSON document: answered in bounded time."""
    nested = "Traceback (most recent call last)\n" + "[" * 15_000 + "]" * 15_000 + "\n" + OOM
    text, took = paste_and_wait(rbot, rfake, nested)
    assert "cuda-oom" in text and took < BOUND_S
    doc = json.dumps({"records": [{"level": "INFO", "msg": f"step {i} loss 1.0", "nested": {"a": [[[i]]]}} for i in range(40_000)]})
    text, took = upload_and_wait(rbot, rfake, "events.log", (doc + "\n" + OOM + "\n").encode())
    assert "cuda-oom" in text and took < BOUND_S


def test_deeply_nested_event_fields_are_acked_or_refused_never_crash(rbot, rfake):
    """Event blocks nested 400 deep still get a reply; nested past the parser's limit get 400."""
    ts = new_ts()
    nest: object = {"type": "text", "text": "x"}
    for _ in range(200):
        nest = {"type": "rich_text_section", "elements": [nest]}
    assert rbot.event(message(SAMPLE, ts, blocks=[nest])).status == 200
    rfake.wait_delivered("chat.postMessage", thread_ts=ts)
    event = json.dumps(message(SAMPLE, new_ts(), blocks="@@")).encode()
    deep = event.replace(b'"@@"', b'[{"elements": ' * 5000 + b"[]" + b"}]" * 5000)
    body = b'{"type": "event_callback", "team_id": "T0TEST001", "event_id": "EvDEEP1", "event": ' + deep + b"}"
    assert rbot.post(body, "application/json").status == 400


HOSTILE = {
    "a-run": "a" * 40_000,
    "dot-pairs": "a." * 20_000,
    "spaces-then-x": " " * 39_000 + "x",
    "rank-prefixes": "[rank" * 8_000,
    "error-colons": "Error:" * 6_000,
    "nccl-warns": "NCCL WARN " * 4_000,
    "srun-labels": "1: " * 13_000,
    "open-parens": "(" * 40_000,
    "ipv4-ish": "1.2.3." * 6_000,
    "email-ish": ("a" * 60 + "@") * 600,
    "key-value": "token=" + "A" * 40_000,
    "home-paths": "/home/alice" * 3_500,
    "timestamps": "2024-01-01 00:00:00 " * 2_000,
    "many-lines": "Error: x\n" * 4_000,
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_regex_hostile_paste_is_answered_in_bounded_time(rbot, rfake, name):
    """Long runs that make naive patterns backtrack, pasted after a traceback: a reply within 30 s."""
    text, took = paste_and_wait(rbot, rfake, "Traceback (most recent call last)\n" + HOSTILE[name] + "\n" + OOM)
    assert took < BOUND_S
    assert "cuda-oom" in text, text[:300]


def test_regex_hostile_upload_is_answered_in_bounded_time(rbot, rfake):
    """Every hostile run, 100 times over, in one 5 MB upload: a reply within 30 s."""
    body = "\n".join(HOSTILE.values())
    content = ((body + "\n") * 100)[:FIVE_MB] + "\n" + OOM + "\n"
    text, took = upload_and_wait(rbot, rfake, "hostile.log", content.encode())
    assert took < BOUND_S
    assert "cuda-oom" in text, text[:300]
