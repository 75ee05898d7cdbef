"""Mask every occurrence of a name or secret learned elsewhere in the same log.

`wandb: Currently logged in as: alice` or `/home/alice/` teaches that `alice` is a person;
from then on `alice` is masked wherever it stands as a word (`run-alice-7`, `alice's job`).
A secret value found under its key is masked wherever it recurs, key or not.

Both are word sets found by the literal engine (`bot.literals.Words`), case-sensitively, in one
pass over the text's UTF-8; the word boundaries are ruled on as the matches are chosen.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from bot.literals import Words
from bot.masking.state import LogState

_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_DASH = ord("-")
# Not after one of these: a name inside a longer word, or inside one of our placeholders (`<USER-1>`).
_NOT_BEFORE_NAME = _ALNUM | {ord("<")}


# A numbered machine name (`sc-061`, `nid0051`, `gpu-node-017`): its stem, then two to six
# digits. A cluster numbers its nodes alike, so a learned one's stem and digit count find its
# siblings where nothing else says they are machines (`Subject: Re: sc-064 keeps draining`).
_NUMBERED = re.compile(r"([A-Za-z](?:[A-Za-z0-9-]{0,62}[A-Za-z-])?)(\d{2,6})\Z")
_LETTERS = re.compile(r"[A-Za-z]")


def _stems(hosts: dict[str, None]) -> dict[str, int]:
    """The stems of the learned numbered hosts, with their digit counts (one count per stem)."""
    stems: dict[str, int] = {}
    for host in hosts:
        m = _NUMBERED.match(host)
        if m is not None and len(_LETTERS.findall(m.group(1))) >= 2:
            stems.setdefault(m.group(1), len(m.group(2)))
    return stems


def _names(state: LogState) -> Words | None:
    size = len(state.users) + len(state.hosts) + len(state.names)
    if size == 0:
        return None
    if state.learned_words is None or state.learned_size != size:
        # Per log, never shared: the set spells out user and host names, which must not
        # outlive this log's Masker.
        names = {*state.users, *state.hosts, *state.names}
        stems = {stem: n for stem, n in _stems(state.hosts).items() if stem not in names}
        state.learned_words = Words(sorted(names | stems.keys()), caseless=False)
        state.learned_stems = {stem.encode(): n for stem, n in stems.items()}
        state.learned_size = size
    return state.learned_words


def _whole_word(data: bytes, before: frozenset[int]) -> Callable[[int, int], bool]:
    """A match of `data` stands alone: no byte of `before` just before it, no letter or digit after."""

    def accept(start: int, end: int) -> bool:
        return (start == 0 or data[start - 1] not in before) and (end == len(data) or data[end] not in _ALNUM)

    return accept


def _sibling_or_word(data: bytes, before: frozenset[int], stems: dict[bytes, int]) -> Callable[[int, int], bool]:
    """A whole word, or a stem followed by exactly its digit count and no more of the name."""
    word = _whole_word(data, before)

    def accept(start: int, end: int) -> bool:
        n = stems.get(data[start:end])
        if n is None:
            return word(start, end)
        stop = end + n
        digits = data[end:stop]  # shorter than n where the text ends first
        return (
            (start == 0 or data[start - 1] not in before)
            and len(digits) == n
            and digits.isdigit()
            and (stop == len(data) or (data[stop] not in _ALNUM and data[stop] != _DASH))
        )

    return accept


def _split(
    text: str, words: Words, before: frozenset[int], stems: dict[bytes, int] | None = None
) -> tuple[list[str], list[str]] | None:
    """(the text between matches, the matched words), or None when there is no match.

    A match of a stem (`stems`, learned._stems) takes the digits after it too."""
    data = text.encode("utf-8", "surrogatepass")
    found = words.find(data, _sibling_or_word(data, before, stems) if stems else _whole_word(data, before))
    if not found:
        return None
    # A match of whole UTF-8 words starts and ends on character boundaries: each gap decodes.
    gaps, matched, pos = [], [], 0
    for idx, start, end in found:
        gaps.append(data[pos:start].decode("utf-8", "surrogatepass"))
        word = words.words[idx]
        if stems:
            n = stems.get(data[start:end])
            if n is not None:
                end += n
                word = data[start:end].decode("ascii")
        matched.append(word)
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
    split = _split(text, words, _NOT_BEFORE_NAME, state.learned_stems)
    if split is None:
        return text
    gaps, names = split
    users, people, put_many = state.users, state.names, state.table.put_many
    # (A sibling of a learned host, `sc-064` beside `sc-061`, is neither user nor name: a host.)
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
