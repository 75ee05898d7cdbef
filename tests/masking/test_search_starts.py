"""Patterns tried only where a match can start find what a search of the whole text finds.

A pattern that opens with an alternation or a lookbehind gives `re` no literal to skip to, so a
search tries it at every position; the masker tries such patterns only at the starts of the
literal words every match begins with. These tests compare both on random texts built from
the words, their near misses and the characters around them.
"""

from __future__ import annotations

import random

from bot.masking import people


def test_entity_settings_are_found_where_their_words_start_as_a_search_would_find_them() -> None:
    parts = ["WANDB_ENTITY", "entity", "--entity", "-entity", "xentity", "ENTITY", "Entity", "=", ":", " ", "\t", "'",
             '"', "alice", "acme-ml", "hfischer", "-", ".", "x", "é", "\n", "wandb.init(entity=", "--entity  "]  # fmt: skip
    rng = random.Random(26)
    for _ in range(3000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(14)))
        found = [m.span("user") for m in people._entity_matches(text)]
        assert found == [m.span("user") for m in people._ENTITY_RX.finditer(text)], text


def test_node_names_skip_only_what_the_shapes_would_find_nothing_in() -> None:
    """find_node_names decides an NCCL log's prefix hosts once per distinct host (when the
    prefix row has counted them), and leaves the shapes untried only at the heads where they
    would find nothing, whatever other heads the text holds: the same edits and learned hosts as the shapes tried at every head, on random
    lines of prefixes (known hosts and not, behind launcher labels and rank brackets) and of
    other text holding heads."""
    from bot.literals import one_byte
    from bot.masking import hosts
    from bot.masking.state import LogState

    names = ["dgx-h100-017", "dgx-h100-018", "gpu-node-17", "node017", "a100-044", "h100-028", "worker-3", "x.dgx-1",
             "aks-nodepool1-12345678-vmss000001", "ip-10-0-1-23", "compute-0-12", "gpu121", "dgx-a100-03.cluster"]  # fmt: skip
    tails = [":1234:1299 [3] NCCL INFO Channel 00/32 : 0 1", ":77:78 [0] transport/net_ib.cc:1696 NCCL WARN x"]
    leads = ["", "worker-3: ", " 12: ", "[rank5]:", "[default3]:", "[1,3]<stderr>:"]
    others = ["step 5 on gpu-node-17 done", "num_nodes=4", "loss 0.1", "node017: ok", "ssh dgx-h100-099", "é"]
    rng = random.Random(2626)
    quiet = partly = 0
    for _ in range(1500):
        lines = []
        for _ in range(rng.randrange(1, 9)):
            if rng.random() < 0.8:
                lines.append(rng.choice(leads) + rng.choice(names) + rng.choice(tails))
            else:
                lines.append(rng.choice(others))
        text = "\n".join(lines) + rng.choice(["", "\n"])
        learned = rng.sample(names, rng.randrange(len(names)))
        hosts._line_prefix_hosts(text)  # as the prefix row counts them first, in the hosts stage
        got: list = []
        got_state = LogState(hosts=dict.fromkeys(learned))
        hosts.find_node_names(text, got, got_state)
        want: list = []
        want_state = LogState(hosts=dict.fromkeys(learned))
        starts = dict(zip(hosts._NODE_HEADS, hosts._NODE_HEAD_WORDS.starts(one_byte(text)), strict=True))
        hosts._shapes_at_heads(text, starts, want, want_state)
        assert got == want, text
        assert list(got_state.hosts) == list(want_state.hosts), text
        tried = hosts._outside_quiet_prefix_hosts(text, starts, LogState(hosts=dict.fromkeys(learned)))
        heads, left = sum(map(len, starts.values())), sum(map(len, tried.values()))
        quiet += left == 0 < heads
        partly += 0 < left < heads
    # The shapes were left untried, at every head of a text or at some, often enough for the
    # comparison to tell.
    assert quiet > 150
    assert partly > 150


def test_prefix_hosts_counted_once_a_piece_are_the_count_of_what_a_stage_made() -> None:
    """The NCCL prefix count a stage's output is given without a count of its own
    (hosts.carry_prefix_hosts) is the count a fresh one makes, whatever lines the stage
    masked: other lines, prefix lines, spans over several lines, edits of raw text."""
    from bot.masking import hosts
    from bot.masking.edits import apply_edits
    from bot.masking.placeholders import PlaceholderTable

    lines = ["dgx-h100-017:1234:1299 [3] NCCL INFO Channel 00/32", "worker-3: worker-3:77:78 [0] NCCL INFO x",
             "[rank5]:gpu-node-17:9:9 [1] transport/net_ib.cc:1696 NCCL WARN y", "worker-0: [2025-11-30] [INFO] step=5",
             "loss 0.1 on worker-3", "NC", "CL:1:2 [0] NCCL", "Connect to 10.0.0.1<45763> failed", ""]  # fmt: skip
    count = hosts._line_prefix_hosts.__wrapped__  # the count itself, kept for no text
    rng = random.Random(1526)
    carried = 0
    for _ in range(3000):
        before = "\n".join(rng.choice(lines) for _ in range(rng.randrange(1, 8)))
        edits = []
        pos = 0
        while pos < len(before) and len(edits) < 3:
            start = rng.randrange(pos, len(before))
            end = min(len(before), start + rng.randrange(1, 30))
            edits.append((start, end, rng.choice(["host", "host", "ip", ""]), before[start:end] if rng.random() < 0.5 else ""))
            pos = end
        hosts._line_prefix_hosts(before)  # as the hosts stage's prefix row counts it
        after = apply_edits(before, edits, PlaceholderTable())
        hosts.carry_prefix_hosts(before, edits, after)
        carried += hosts._line_prefix_hosts.held(after) is not None and after != before
        assert hosts._line_prefix_hosts(after) == count(after), (before, edits)
    assert carried > 300  # the count was handed on often enough for the comparison to tell
