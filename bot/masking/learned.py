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
from collections.abc import Callable, Iterable

from bot.literals import DIGITS_AS_ZERO, Words, one_byte
from bot.masking.state import LogState, wordlike_login

_LETTERS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ALNUM = _LETTERS | frozenset(b"0123456789")
_DASH = ord("-")
# A learned login run into the word before it still stands as one before its `@`: a prompt
# whose terminal title lost its escape and bell (`]0;hfischer@gpu3: ~/llmhfischer@gpu3:~/llm$`).
# Run into a letter or a digit (`~/llama3hfischer@gpu3`), but not into an address's last digit
# (`10.0.0.1aaa@`): masking that login would leave a bounded address for a second pass.
_AT = ord("@")
_LT = ord("<")
# Not after one of these: a name inside a longer word, or inside one of our placeholders (`<USER-1>`).
_NOT_BEFORE_NAME = _ALNUM | {ord("<")}
_NOT_BEFORE_SECRET = frozenset({ord("<")})
# Before a login and its `@`, a letter (the run-in prompt above) or an address's bracket: cron's
# `Subject: Cron <hfischer@gpu-ws01> ...` holds a machine's short name, no e-mail address, and
# no placeholder of ours has an `@` after its type.
_AFTER_A_LOGIN = _LETTERS | {_LT}
_DIGITS = frozenset(b"0123456789")
_ADDRESS_TAIL = re.compile(rb"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}\Z")


def _run_in(data: bytes, start: int) -> bool:
    """The login at `start` is run into what stands before it, as a prompt's can be."""
    before = data[start - 1]
    if before in _AFTER_A_LOGIN:
        return True
    return before in _DIGITS and not _ADDRESS_TAIL.search(data, max(0, start - 16), start)
# A login that is also an English word (`grant`, `frank`, `will`): learned from `USER=grant`
# or a `ps` row, it is masked again only where a word of prose cannot stand, joined to a path,
# an address, an assignment or a name made of it (`/home/grant/`, `grant@gpu3`, `USER=grant`,
# `grant-lr5e-4`); `please grant roles/...`, `to be frank`, `xm.mark_step()` keep the word.
_JOINS_A_LOGIN = frozenset(b"/@=-~")


# A numbered machine name (`sc-061`, `nid0051`, `gpu-node-017`, `a100-03`): a host with a
# digit and a letter. A cluster numbers its nodes alike, so a learned one's digit shape (its
# digits as any digits) finds its siblings where nothing else says they are machines
# (`Subject: Re: sc-064 keeps draining`), and learning reads one line of each digit shape:
# `gpu-node-018`'s NCCL prefix lines, the same as `gpu-node-017`'s but for digits, teach
# nothing the first host's did not (bot/masking/masker.py).
_DIGIT = re.compile(r"[0-9]")
_LETTER = re.compile(r"[A-Za-z]")


def _by_shape(hosts: Iterable[str]) -> dict[str, None]:
    """One host of each digit shape among numbered `hosts` (its shape finds the others)."""
    shapes: dict[bytes, str] = {}
    for host in hosts:
        shapes.setdefault(host.encode("utf-8").translate(DIGITS_AS_ZERO), host)
    return dict.fromkeys(shapes.values())


def _names(state: LogState) -> Words | None:
    size = len(state.users) + len(state.hosts) + len(state.names)
    if size == 0:
        return None
    if state.learned_words is None or state.learned_size != size:
        # Per log, never shared: the set spells out user and host names, which must not
        # outlive this log's Masker.
        state.learned_cases = state.case_variants()
        names = {*state.users, *state.names, *state.learned_cases}
        hosts = [host for host in state.hosts if host not in names]
        numbered = [host for host in hosts if _DIGIT.search(host) and _LETTER.search(host)]
        shaped = _by_shape(numbered)
        words = names.union(hosts).difference(numbered).union(shaped)
        state.learned_words = Words(sorted(words), caseless=False, any_digits=shaped)
        state.learned_shaped = frozenset(i for i, word in enumerate(state.learned_words.words) if word in shaped)
        state.learned_bytes = frozenset(name.encode("utf-8", "surrogatepass") for name in (*names, *hosts))
        state.learned_wordlike = frozenset(user.encode() for user in state.users if wordlike_login(user))
        state.learned_size = size
    return state.learned_words


def _accept(
    data: bytes,
    before: frozenset[int],
    shaped: frozenset[int],
    learned: frozenset[bytes],
    wordlike: frozenset[bytes] = frozenset(),
) -> Callable[[int, int], bool]:
    """A match of `data` stands alone: no byte of `before` just before it, no letter or digit
    after; and when words match by digit shape (`shaped`), a sibling of a learned numbered host
    (one of its digit shape, learned or not) is followed by no more of a name: not `sc-064-ib0`.
    (One closure with the tests inline: it runs on every match, on NCCL logs twice a line.)"""
    size = len(data)
    if wordlike:
        plain = _accept(data, before, shaped, learned)

        def joined_if_a_word(start: int, end: int) -> bool:
            if not plain(start, end):
                return False
            if data[start:end] not in wordlike:
                return True
            return (start > 0 and data[start - 1] in _JOINS_A_LOGIN) or (end < size and data[end] in _JOINS_A_LOGIN)

        return joined_if_a_word
    if not shaped:

        def whole_word(start: int, end: int) -> bool:
            if end < size and data[end] == _AT and start and _run_in(data, start):
                return True  # a prompt run into what stood before it: `~/llmhfischer@gpu3:~$`
            return (start == 0 or data[start - 1] not in before) and (end == size or data[end] not in _ALNUM)

        return whole_word

    def learned_or_sibling(start: int, end: int) -> bool:
        if start and data[start - 1] in before:
            return end < size and data[end] == _AT and _run_in(data, start)  # as whole_word's
        if end == size:
            return True
        after = data[end]
        return after not in _ALNUM and (after != _DASH or data[start:end] in learned)

    return learned_or_sibling


def _split(
    text: str,
    words: Words,
    before: frozenset[int],
    shaped: frozenset[int] = frozenset(),
    learned: frozenset[bytes] = frozenset(),
    wordlike: frozenset[bytes] = frozenset(),
) -> tuple[list[str], list[str]] | None:
    """(the text between matches, the matched words), or None when there is no match.

    `shaped`: the indices of words matched by their digit shape, each match the name it
    matched; `learned`: the names a sibling is not; `wordlike`: logins that are English words,
    matched only where joined to a path or a name (`_accept`)."""
    # Words of ASCII alone (the rule) are found alike in the text with each non-ASCII character
    # read as `?` (one_byte), whose offsets are the text's own, so the text itself is cut: one
    # tqdm glyph in a piece used to send it through UTF-8, every gap decoded on its own. The
    # boundaries read the same: `?` is no letter or digit, nor is a non-ASCII character's
    # UTF-8. A word that is not ASCII, or holds a `?` that a non-ASCII character would match,
    # is looked for in the UTF-8.
    one_byte_safe = text.isascii() or all(word.isascii() and "?" not in word for word in words.words)
    data = one_byte(text) if one_byte_safe else text.encode("utf-8", "surrogatepass")
    found = words.find(data, _accept(data, before, shaped, learned, wordlike))
    if not found:
        return None
    # Every match is its own slice: a word matches exactly what it spells (case counts), and
    # a word matched by its digit shape is the name it matched. In the UTF-8, a match of whole
    # words starts and ends on character boundaries: each piece decodes.
    source: str | bytes = text if one_byte_safe else data
    gaps, matched, pos = [], [], 0
    for _, start, end in found:
        gaps.append(source[pos:start])
        matched.append(source[start:end])
        pos = end
    gaps.append(source[pos:])
    if isinstance(source, bytes):
        return [gap.decode("utf-8", "surrogatepass") for gap in gaps], [m.decode("utf-8", "surrogatepass") for m in matched]
    return gaps, matched


def _join(gaps: list[str], replacements: list[str]) -> str:
    """The gaps with the replacements between them (interleaved by slice assignment, in C)."""
    parts = gaps * 2
    del parts[-1]
    parts[0::2] = gaps
    parts[1::2] = replacements
    return "".join(parts)


# What stands before ROCm's HSA agent node in its fault messages (`by GPU node-2 (Agent handle`).
_ROCM_AGENT = "by GPU "


def mask_learned_names(text: str, state: LogState) -> str:
    """Replace each whole-word occurrence of a learned name with its placeholder."""
    words = _names(state)
    if words is None:
        return text
    split = _split(text, words, _NOT_BEFORE_NAME, state.learned_shaped, state.learned_bytes, state.learned_wordlike)
    if split is None:
        return text
    gaps, names = split
    users, people, cases, put_many = state.users, state.names, state.learned_cases, state.table.put_many
    if _ROCM_AGENT in text:
        # ROCm's `Memory access fault by GPU node-2`, `HW Exception by GPU node-1`: the agent's
        # node in the HSA topology, not a machine (hosts.py keeps it too), though `node-2` may
        # be a learned host or its sibling.
        kept = [i for i, name in enumerate(names) if gaps[i].endswith(_ROCM_AGENT) and name not in users and name not in people]
        for i in reversed(kept):
            gaps[i : i + 2] = [gaps[i] + names.pop(i) + gaps[i + 1]]
        if not names:
            return text
    # (A sibling of a learned host, `sc-064` beside `sc-061`, is neither user nor name: a host.)
    # Placeholders per distinct name, in order of first appearance, exactly as a substitution
    # from left to right would number them (Counter keeps that order and counts in C).
    # (A login's other spelling, `ALICE`, is put as the login itself: one placeholder for both.)
    placeholder = {
        name: put_many("user", cases[name], n)
        if name in cases
        else put_many("user" if name in users else "name" if name in people else "host", name, n)
        for name, n in Counter(names).items()
    }
    return _join(gaps, list(map(placeholder.__getitem__, names)))


def mask_learned_secrets(text: str, state: LogState) -> str:
    """Replace each occurrence of a secret value learned from the log with its placeholder."""
    if not state.secrets:
        return text
    if state.secrets_words is None or state.secrets_size != len(state.secrets):
        state.secrets_words = Words(sorted(state.secrets), caseless=False)
        state.secrets_size = len(state.secrets)
    # Not inside a longer token: `Quasar2024` learned must not cut `Quasar2024x` (its own
    # detector masks that whole). The left side stays open (`%3AQuasar2024` in a DSN) but for
    # `<`: a value spelled like a placeholder's type (`aws_secret_access_key=SECRET` in a
    # traceback's source) must not be replaced inside our own `<SECRET:...>`.
    split = _split(text, state.secrets_words, _NOT_BEFORE_SECRET)
    if split is None:
        return text
    gaps, values = split
    put, kinds = state.table.put, state.secrets
    return _join(gaps, [put(kinds[value], value) for value in values])
