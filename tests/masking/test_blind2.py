"""What an independent blind corpus of pasted ML-ops logs (78 families) still leaked from main.

Each row is text as the tool prints it, the planted values that must be gone, and the
diagnostic text that must stay as it is. Values are synthetic."""

from __future__ import annotations

import pytest

from bot.masking import Masker


def _mask_log(text: str) -> str:
    # As `denpex mask` reads a log: learned whole first, then masked.
    masker = Masker()
    masker.learn(text.encode())
    return str(masker.mask(text))


ROWS: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = [
    (
        # http.client's debuglevel=1 prints the request bytes with the header ends escaped.
        "http-client-send-cookie",
        "send: b'POST /v1/eval/submit HTTP/1.1\\r\\nHost: api.int.vandelay.net\\r\\nUser-Agent: python-requests/2.32.3\\r\\n"
        "Cookie: sessionid=Qm7xK2pLw9ZvN4bT1yRrWw4s5eH6jJ1kK0oO9pP8uU7aB3cD; csrftoken=Hq2kLw9ZxN4bV7cT1yRrWw4s5eH6jJ1k\\r\\n"
        "Content-Length: 512\\r\\n\\r\\n'\n",
        ("Qm7xK2pLw9ZvN4bT1yRrWw4s5eH6jJ1kK0oO9pP8uU7aB3cD", "Hq2kLw9ZxN4bV7cT1yRrWw4s5eH6jJ1k"),
        ("Cookie: sessionid=<SECRET:cookie-1>; csrftoken=<SECRET:cookie-2>\\r\\nContent-Length: 512\\r\\n",),
    ),
    (
        # Buildkite's job log checks out under the agent's name (`%hostname-%spawn`).
        "buildkite-agent-build-dir",
        "~~~ Preparing working directory\n$ cd /var/lib/buildkite-agent/builds/bk-gpu-k7gy5e-1/initech/trainer\n"
        '# Host "github.com" already in list of known hosts at "/var/lib/buildkite-agent/.ssh/known_hosts"\n'
        "$ cd /buildkite/builds/buildkite-agent-6b59766cd4-ft4cj-1/mindful/global-base\n",
        ("bk-gpu-k7gy5e-1", "buildkite-agent-6b59766cd4-ft4cj-1"),
        ("/var/lib/buildkite-agent/builds/<HOST-1>/initech/trainer", '# Host "github.com" already in list', "/mindful/global-base"),
    ),
    (
        # A North American number offered in prose, after an address: 3-3-4, no country code.
        "prose-phone-nanp",
        "Please reach me at ravi@tyrelllabs.co.uk or 486-690-8362 if you need access to the bucket.\n"
        "call me on 415.555.0142 tomorrow\n",
        ("486-690-8362", "415.555.0142"),
        ("if you need access to the bucket.", " tomorrow"),
    ),
    (
        # ... and what only looks like one stays: token counts, dates, times.
        "prose-numbers-kept",
        "reach 512-1024-2048 tokens\nreach 250-500-1000 steps\ntext me at 2024-11-14 10:00\ncall at 10:30\n",
        (),
        ("reach 512-1024-2048 tokens", "reach 250-500-1000 steps", "text me at 2024-11-14 10:00", "call at 10:30"),
    ),
]


@pytest.mark.parametrize(("text", "gone", "kept"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_blind_corpus_leak_is_masked(text: str, gone: tuple[str, ...], kept: tuple[str, ...]) -> None:
    assert_masked_as_a_log(text, gone, kept)


def assert_masked_as_a_log(text: str, gone: tuple[str, ...], kept: tuple[str, ...]) -> None:
    """`text` masked as `denpex mask` reads a log: every value in `gone` is gone, every fact in
    `kept` is still there as it was. (The third blind corpus's rows use it too.)"""
    out = _mask_log(text)
    for value in gone:
        assert value not in out, out
    for fact in kept:
        assert fact in out, out
