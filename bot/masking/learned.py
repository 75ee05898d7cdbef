"""Mask every occurrence of a name or secret learned elsewhere in the same log.

`wandb: Currently logged in as: alice` or `/home/alice/` teaches that `alice` is a person;
from then on `alice` is masked wherever it stands as a word (`run-alice-7`, `alice's job`).
A secret value found under its key is masked wherever it recurs, key or not.

Both are word sets found by the literal engine (`bot.literals.Words`), case-sensitively, in one
pass over the text's UTF-8; the word boundaries are ruled on as the matches are chosen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from bot.literals import Words
from bot.masking.state import LogState

_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
# Not after one of these: a name inside a longer word, or inside one of our placeholders (`<USER-1>`).
_NOT_BEFORE_NAME = _ALNUM | {ord("<")}


def _names(state: LogState) -> Words | None:
    size = len(state.users) + len(state.hosts) + len(state.names)
    if size == 0:
        return None
    if state.learned_words is None or state.learned_size != size:
        # Per log, never shared: the set spells out user and host names, which must not
        # outlive this log's Masker.
        state.learned_words = Words(sorted({*state.users, *state.hosts, *state.names}), caseless=False)
        state.learned_size = size
    return state.learned_words


def _whole_word(data: bytes, before: frozenset[int]) -> Callable[[int, int], bool]:
    """A match of `data` stands alone: no byte of `before` just before it, no letter or digit after."""

    def accept(start: int, end: int) -> bool:
        return (start == 0 or data[start - 1] not in before) and (end == len(data) or data[end] not in _ALNUM)

    return accept


def _split(text: str, words: Words, before: frozenset[int]) -> tuple[list[str], list[str]] | None:
    """(the text between matches, the matched words), or None when there is no match."""
    data = text.encode("utf-8", "surrogatepass")
    found = words.find(data, _whole_word(data, before))
    if not found:
        return None
    # A match of whole UTF-8 words starts and ends on character boundaries: each gap decodes.
    gaps, matched, pos = [], [], 0
    for idx, start, end in found:
        gaps.append(data[pos:start].decode("utf-8", "surrogatepass"))
        matched.append(words.words[idx])
        pos = end
    gaps.append(data[pos:].decode("utf-8", "surrogatepass"))
    return gaps, matched


def _join(gaps: list[str], replacements: list[str]) -> str:
    parts = [gaps[0]]
    for replacement, gap in zip(replacements, gaps[1:], strict=True):
        parts += (replacement, gap)
    return "".join(parts)


def mask_learned_names(text: str, state: LogState) -> str:
    """Replace each whole-word occurrence of a learned name with its placeholder."""
    words = _names(state)
    if words is None:
        return text
    split = _split(text, words, _NOT_BEFORE_NAME)
    if split is None:
        return text
    gaps, names = split
    users, people, put_many = state.users, state.names, state.table.put_many
    # Placeholders per distinct name, in order of first appearance, exactly as a substitution
    # from left to right would number them (Counter keeps that order and counts in C).
    placeholder = {
        name: put_many("user" if name in users else "name" if name in people else "host", name, n)
        for name, n in Counter(names).items()
    }
    return _join(gaps, [placeholder[name] for name in names])


def mask_learned_secrets(text: str, state: LogState) -> str:
    """Replace each occurrence of a secret value learned from the log with its placeholder."""
    if not state.secrets:
        return text
    if state.secrets_words is None or state.secrets_size != len(state.secrets):
        state.secrets_words = Words(sorted(state.secrets), caseless=False)
        state.secrets_size = len(state.secrets)
    # Not inside a longer token: `Quasar2024` learned must not cut `Quasar2024x` (its own
    # detector masks that whole). The left side stays open: `%3AQuasar2024` in a DSN.
    split = _split(text, state.secrets_words, frozenset())
    if split is None:
        return text
    gaps, values = split
    put, kinds = state.table.put, state.secrets
    return _join(gaps, [put(kinds[value], value) for value in values])
