"""What masking reads once and reuses must still be decided for each place it stands.

An address's context (`ip=`, `cuda `, `brd `) is read once per distinct text before it on its
line, and a coloured line that masking left alone is its source line again: these tests hold
the answers to what each occurrence says, whatever was decided for the one before it.
"""

from __future__ import annotations

from bot.masking import mask


def test_one_value_is_an_address_or_a_version_by_what_stands_before_it_each_time() -> None:
    """The same dotted quad after `ip=` is masked and after `cuda ` kept, on alternate lines:
    the value decides nothing, its context does, every time."""
    lines = []
    for step in range(6):
        lines.append(f"(RayTrainWorker pid=9127, ip=10.4.5.6) step {step}")
        lines.append(f"cuda 10.4.5.6 step {step}")
        lines.append(f"(RayTrainWorker pid=9127, ip=10.4.5.6-1) step {step}")  # a version by what follows
    masked = mask("\n".join(lines)).text.split("\n")
    for step in range(6):
        assert masked[3 * step] == f"(RayTrainWorker pid=9127, ip=<IP-1>) step {step}"
        assert masked[3 * step + 1] == f"cuda 10.4.5.6 step {step}"
        assert masked[3 * step + 2] == f"(RayTrainWorker pid=9127, ip=10.4.5.6-1) step {step}"


def test_pip_s_parenthesised_version_is_told_from_an_address_after_the_same_text() -> None:
    """`(8.9.2.26)` after `X==8.9.2.26` is that version; after the same words an address with no
    `==` of its own on the line is masked."""
    tail = " in /opt/conda/lib/python3.11/site-packages (from torch) ("
    text = "\n".join([
        f"Requirement already satisfied: nvidia-cudnn-cu12==8.9.2.26{tail}8.9.2.26)",
        f"Requirement already satisfied: mirror-at 10.20.30.40{tail}10.20.30.40)",
        f"Requirement already satisfied: nvidia-cudnn-cu12==8.9.2.26{tail}8.9.2.26)",
    ])
    masked = mask(text).text.split("\n")
    assert masked[0].endswith("(8.9.2.26)") and masked[2].endswith("(8.9.2.26)")
    assert masked[1] == f"Requirement already satisfied: mirror-at <IP-1>{tail}<IP-1>)"


def test_a_broadcast_address_is_kept_and_the_host_before_it_masked_on_every_line() -> None:
    text = "\n".join(f"    inet 10.20.3.{7 + i}/24 brd 10.20.3.255 scope global ib0" for i in range(4))
    masked = mask(text).text.split("\n")
    assert masked == [f"    inet <IP-{i + 1}>/24 brd 10.20.3.255 scope global ib0" for i in range(4)]


def test_coloured_lines_masked_and_left_alone_in_one_piece_keep_their_codes_in_place() -> None:
    """loguru's colours on lines masking leaves alone come back byte for byte; on the lines it
    masks, each code stands where it stood, around the placeholder; an uncoloured line between
    them is masked as it is."""
    plain = "\x1b[32m2025-11-30 01:07:14,398\x1b[0m | \x1b[1mINFO    \x1b[0m | \x1b[36mtrainer\x1b[0m:\x1b[36m211\x1b[0m - \x1b[1mrank 0 step 860\x1b[0m"
    ray = "\x1b[36m(RayTrainWorker pid=2225233, ip=10.16.0.218)\x1b[0m loss 2.93"
    inside = "\x1b[1mconnecting to \x1b[33m10.16.0.\x1b[0m219\x1b[0m now"
    bare = "export HF_TOKEN=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"
    text = "\n".join([plain, ray, bare, plain, inside, ray])
    assert mask(text).text.split("\n") == [
        plain,
        "\x1b[36m(RayTrainWorker pid=2225233, ip=<IP-1>)\x1b[0m loss 2.93",
        "export HF_TOKEN=<SECRET:hf-token-1>",
        plain,
        # A code inside the masked address goes after its placeholder.
        "\x1b[1mconnecting to \x1b[33m<IP-2>\x1b[0m\x1b[0m now",
        "\x1b[36m(RayTrainWorker pid=2225233, ip=<IP-1>)\x1b[0m loss 2.93",
    ]


def test_codes_at_a_line_s_ends_and_inside_a_masked_value_stand_where_they_did() -> None:
    """A code before a value that starts the line stays before its placeholder; codes inside a
    value go after it; a code at the line's end stays at the end."""
    cases = {
        "\x1b[1m10.16.0.218\x1b[0m": "\x1b[1m<IP-1>\x1b[0m",
        "10.16.\x1b[1m0.218\x1b[0m": "<IP-1>\x1b[1m\x1b[0m",
        "ip \x1b[33m10.16.0.218 \x1b[0m10.16.0.219\x1b[K": "ip \x1b[33m<IP-1> \x1b[0m<IP-2>\x1b[K",
        "\x1b[31mHF_TOKEN=hf_jvnVaupKOXNwJmKnAbuh\x1b[0mJdkWQsbOEqVuoC\x1b[0m done": "\x1b[31mHF_TOKEN=<SECRET:hf-token-1>\x1b[0m\x1b[0m done",
    }
    for line, expected in cases.items():
        assert mask(line).text == expected
