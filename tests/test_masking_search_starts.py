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
