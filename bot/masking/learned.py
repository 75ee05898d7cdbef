"""Mask every occurrence of a user or host name learned elsewhere in the same log.

`wandb: Currently logged in as: alice` or `/home/alice/` teaches that `alice` is a person;
from then on `alice` is masked wherever it stands as a word (`run-alice-7`, `alice's job`).
"""

from __future__ import annotations

import re

import regex

from bot.masking.state import LogState


def _pattern(state: LogState) -> regex.Pattern[str] | None:
    size = len(state.users) + len(state.hosts)
    if size == 0:
        return None
    if state.learned_rx is None or state.learned_size != size:
        names = sorted({*state.users, *state.hosts}, key=len, reverse=True)
        # Whole words only, and never inside one of our placeholders (`<USER-1>`). Not put in
        # the regex module's pattern cache: the pattern spells out user and host names, which
        # must not outlive this log's Masker.
        state.learned_rx = regex.compile(
            r"(?<![A-Za-z0-9<])(?:" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9])",
            cache_pattern=False,
        )
        state.learned_size = size
    return state.learned_rx


def mask_learned_names(text: str, state: LogState) -> str:
    """Replace each whole-word occurrence of a learned name with its placeholder."""
    rx = _pattern(state)
    if rx is None:
        return text
    users, put = state.users, state.table.put
    return rx.sub(lambda m: put("user" if m.group() in users else "host", m.group()), text)
