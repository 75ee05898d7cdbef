"""Container logs in Docker's json-file format: masked as the lines the process printed."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.masking import mask


def _entry(line: str, go: bool = True) -> str:
    """One json-file entry as Docker writes it (Go's encoder escapes <, > and &)."""
    log = json.dumps(line + "\n", ensure_ascii=False)
    if go:
        log = log.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return '{"log":' + log + ',"stream":"stderr","time":"2026-11-30T01:07:13.000019073Z"}'


def test_a_value_on_the_entry_after_its_key_is_masked() -> None:
    """`- name: DB_PASSWORD` and `value: ...` are two entries: read as two lines, the pair holds."""
    text = "\n".join([_entry("env:"), _entry("  - name: DB_PASSWORD"), _entry("    value: Falcon2024!xyz")]) + "\n"
    out = mask(text).text
    assert "Falcon2024" not in out
    decoded = [json.loads(line)["log"] for line in out.splitlines()]
    assert decoded[2].startswith("    value: <SECRET:") and decoded[2].endswith(">\n"), decoded


def test_an_entry_masking_leaves_alone_is_kept_byte_for_byte() -> None:
    """Entries with nothing to mask come out exactly as they went in, escapes and all."""
    text = "\n".join([_entry("step 10 loss 2.31 <ok> & done"), _entry("  password: correct horse battery staple")]) + "\n"
    out = mask(text).text.split("\n")
    assert out[0] == text.split("\n")[0]
    assert "correct horse" not in out[1]


def test_a_rewritten_entry_is_valid_json_in_the_style_it_came_in() -> None:
    """A masked entry is still one JSON object; Go-escaped input keeps Go escapes for what the
    process printed, and the placeholders read as they do everywhere (`<USER-1>`)."""
    line = _entry("[rank3]: Traceback at /home/hfischer7/run/train.py <frozen>")
    out = mask(line + "\n").text.rstrip("\n")
    obj = json.loads(out)
    assert "hfischer7" not in obj["log"] and "<USER-1>" in obj["log"]
    assert "<USER-1>" in out and "\\u003cfrozen\\u003e" in out
    assert obj["stream"] == "stderr" and obj["log"].endswith("<frozen>\n")


def test_the_rest_of_the_object_is_masked_too() -> None:
    """A collector's keys beside `log` (a node's address) are masked like any text."""
    line = '{"log":"ok\\n","stream":"stdout","host":"10.20.3.7","time":"2026-11-30T01:07:13Z"}'
    out = mask(line + "\n").text
    assert "10.20.3.7" not in out and json.loads(out)["log"] == "ok\n"


def test_lines_that_are_not_entries_are_masked_as_they_are() -> None:
    """A pasted excerpt mixing plain lines and entries keeps its line count, every line masked."""
    text = "export HF_TOKEN=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\n" + _entry("USER=hfischer7") + "\nplain line\n"
    out = mask(text).text
    assert out.count("\n") == text.count("\n")
    assert "hf_ytzw" not in out and "hfischer7" not in out and out.endswith("plain line\n")


def test_a_line_json_cannot_decode_is_masked_as_text() -> None:
    """An escape JSON does not have (`\\x41`) or a lone surrogate (`\\ud800`): no error, the line
    is masked as it stands, and an entry beside it is still read as its line."""
    text = (
        '{"log":"abc \\x41 password: hunter2222\\n","stream":"stdout"}\n'
        '{"log":"lone \\ud800 USER=hfischer7\\n","stream":"stdout"}\n'
        + _entry("  password: correct horse battery staple") + "\n"
    )
    out = mask(text).text
    assert out.count("\n") == text.count("\n")
    assert "hunter2222" not in out and "hfischer7" not in out and "correct horse" not in out
    assert json.loads(out.split("\n")[2])["log"].startswith("  password: <SECRET:")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.text(alphabet='{}"\\:log unx0123456789abcdefABCDEF\t<>&', max_size=60), max_size=6))
def test_anything_shaped_like_an_entry_is_masked_without_error(bodies: list[str]) -> None:
    """Whatever follows `{"log":"` (escapes of any kind, quotes, nothing): masked, no error,
    as many lines out as in."""
    text = "".join('{"log":"' + body + "\n" for body in bodies)
    out = mask(text).text
    assert out.count("\n") == text.count("\n")


def test_an_entry_a_collector_wrote_with_blanks_and_ascii_escapes_is_read_too() -> None:
    """`{"log": "...", ...}` as Python's json or fluent-bit write it (a blank after the colon,
    non-ASCII as \\u escapes): read as its line, written back in the same style."""
    lines = [json.dumps({"log": "  password: correct horse battery staple\n", "stream": "stderr"}),
             json.dumps({"log": "Grüße from /home/hfischer7/run\n", "stream": "stderr"})]
    out = mask("\n".join(lines) + "\n").text.split("\n")
    assert out[0].startswith('{"log": "') and "correct horse" not in out[0]
    assert "hfischer7" not in out[1] and "\\u00fc" in out[1]
    assert json.loads(out[1])["log"] == "Grüße from /home/<USER-1>/run\n"
