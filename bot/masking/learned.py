"""Mask every occurrence of a name or secret learned elsewhere in the same log.

`wandb: Currently logged in as: alice` or `/home/alice/` teaches that `alice` is a person;
from then on `alice` is masked wherever it stands as a word (`run-alice-7`, `alice's job`).
A secret value found under its key is masked wherever it recurs, key or not.
"""

from __future__ import annotations

import re
from collections import Counter

import regex

from bot.masking.state import LogState


def _pattern(state: LogState) -> regex.Pattern[str] | None:
    size = len(state.users) + len(state.hosts) + len(state.names)
    if size == 0:
        return None
    if state.learned_rx is None or state.learned_size != size:
        names = sorted({*state.users, *state.hosts, *state.names}, key=len, reverse=True)
        # Whole words only, and never inside one of our placeholders (`<USER-1>`). Not put in
        # the regex module's pattern cache: the pattern spells out user and host names, which
        # must not outlive this log's Masker.
        state.learned_rx = regex.compile(
            r"(?<![A-Za-z0-9<])(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9])",
            cache_pattern=False,
        )
        state.learned_size = size
    return state.learned_rx


def mask_learned_names(text: str, state: LogState) -> str:
    """Replace each whole-word occurrence of a learned name with its placeholder."""
    rx = _pattern(state)
    if rx is None:
        return text
    # split() hands back the text between names and the names (odd items) with no Python
    # call per occurrence; placeholders are then assigned per distinct name, in order of
    # first appearance, exactly as a substitution from left to right would.
    parts = rx.split(text)
    if len(parts) == 1:
        return text
    names = parts[1::2]
    users, people, put_many = state.users, state.names, state.table.put_many
    # Counter keeps first-appearance order and counts in C.
    placeholder = {
        name: put_many("user" if name in users else "name" if name in people else "host", name, n)
        for name, n in Counter(names).items()
    }
    parts[1::2] = [placeholder[name] for name in names]
    return "".join(parts)


def mask_learned_secrets(text: str, state: LogState) -> str:
    """Replace each occurrence of a secret value learned from the log with its placeholder."""
    if not state.secrets:
        return text
    if state.secrets_rx is None or state.secrets_size != len(state.secrets):
        values = sorted(state.secrets, key=len, reverse=True)
        # Not in the regex module's cache either: the pattern spells out the secrets.
        # Not inside a longer token: `Quasar2024` learned must not cut `Quasar2024x` (its own
        # detector masks that whole). The left side stays open: `%3AQuasar2024` in a DSN.
        state.secrets_rx = regex.compile("(?:" + "|".join(re.escape(v) for v in values) + ")(?![A-Za-z0-9])", cache_pattern=False)
        state.secrets_size = len(state.secrets)
    put, kinds = state.table.put, state.secrets
    return state.secrets_rx.sub(lambda m: put(kinds[m.group(0)], m.group(0)), text)
