"""NCCL line prefixes (`[rank8]:host:pid:tid [dev] NCCL`) of a whole piece in one C-level split.

On a training log nearly every line is one. A single `re.split` hands back the host of each
line-leading prefix with the text around it, which serves the three jobs that need every
line: learning the hosts (hosts.learn_nccl_hosts), deciding whether the leftover scan can
be skipped (hosts.find_nccl_leftovers), and putting each learned host's placeholder in place
(learned.mask_learned_names) with one list operation instead of a regex match per line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from bot.masking.hosts import IPV4ISH, NCCL_AFTER_DIGIT
from bot.masking.state import LogState

# hosts._NCCL_LINE with the host and what leads to it captured, and the tail in a look-ahead
# (it holds no newline, so the matches are the same). Inside the look-ahead the plain `NCCL`
# is tried first: same language, no backtracking over `NCCL INFO` as a source file name.
# Written for `re`'s cheapest paths, the language unchanged: optional groups as an empty
# alternative (`(?:X|)`, not `(?:X)?`, whose repeat machinery costs on every line) and
# possessive runs where the next character can never be one of the run's.
_SPLIT_PATTERN = (
    r"(\n(?:\[[\w,.-]{1,32}+\](?:<\w{1,8}+>|): ?|))([^\s:\[\]<>|]{1,253}+)"
    r"(?=:\d{1,10}+:\d{1,10}+ \[\d{1,4}+\] (?:NCCL|[\w./-]{1,128}:\d{1,6} NCCL))"
)
_SPLIT = re.compile(_SPLIT_PATTERN)
# The same for the bytes of an ASCII text, each class spelled out as the bytes that str's
# `\w`, `\d` and `\s` hold below 128 (`\s` includes the separators \x1c-\x1f): `re` tests such a
# set with one bitmap lookup where a class escape costs a category test, and splitting bytes is
# cheaper than splitting a str (together about a third off the split of a training log).
_SPLIT_BYTES = re.compile(
    rb"(\n(?:\[[0-9A-Za-z_,.-]{1,32}+\](?:<[0-9A-Za-z_]{1,8}+>|): ?|))([^\t\n\x0b\x0c\r\x1c-\x1f :\[\]<>|]{1,253}+)"
    rb"(?=:[0-9]{1,10}+:[0-9]{1,10}+ \[[0-9]{1,4}+\] (?:NCCL|[0-9A-Za-z_./-]{1,128}:[0-9]{1,6} NCCL))"
)

try:
    # The same split as a C scanner (setup.py builds it where a compiler is): the regex spends
    # most of its time matching, a quarter of a microsecond a line; the scanner, nanoseconds.
    from bot.masking._prefix_split import split as _split_ascii
except ImportError:  # not built here: the regex it mirrors gives the same answer
    _split_ascii = _SPLIT_BYTES.split


@dataclass
class Prefixes:
    """`"\n" + text` split around its line-leading prefix hosts."""

    # [before, lead, host, before, lead, host, ..., before]: hosts are items 2, 5, 8, ...;
    # joining the list and dropping the first character gives the text back. ASCII bytes when
    # the text is ASCII (as a training log nearly always is), else str.
    pieces: list[bytes] | list[str]
    counts: Counter[str]  # host -> number of prefixes naming it
    nccl: bool  # the text holds " NCCL" at all

    @cached_property
    def parts(self) -> list[str]:
        """`pieces` as str."""
        pieces = self.pieces
        if pieces and isinstance(pieces[0], bytes):
            return [p.decode("ascii") for p in pieces]  # type: ignore[union-attr]
        return pieces  # type: ignore[return-value]

    @property
    def hosts(self) -> list[str]:
        return self.parts[2::3]

    def text_with(self, placeholders: dict[str, str]) -> str:
        """The text, each prefix host that `placeholders` names replaced by its placeholder."""
        pieces = list(self.pieces)
        hosts = pieces[2::3]
        if pieces and isinstance(pieces[0], bytes):
            # Placeholders are ASCII (`<HOST-3>`), and so is every host of an ASCII text.
            swap = {h.encode("ascii"): ph.encode("ascii") for h, ph in placeholders.items()}
            pieces[2::3] = list(map(swap.get, hosts, hosts))
            return b"".join(pieces)[1:].decode("ascii")  # type: ignore[arg-type]
        pieces[2::3] = list(map(placeholders.get, hosts, hosts))
        return "".join(pieces)[1:]  # type: ignore[arg-type]


def split_prefixes(text: str) -> Prefixes:
    if " NCCL" not in text:  # no prefix: skip the per-line scan
        return Prefixes(["\n" + text], Counter(), nccl=False)
    if text.isascii():
        pieces = _split_ascii(b"\n" + text.encode("ascii"))
        counts = Counter({host.decode("ascii"): n for host, n in Counter(pieces[2::3]).items()})
        return Prefixes(pieces, counts, nccl=True)
    parts = _SPLIT.split("\n" + text)
    return Prefixes(parts, Counter(parts[2::3]), nccl=True)


def learn_prefix_hosts(prefixes: Prefixes, state: LogState) -> None:
    """hosts.learn_nccl_hosts for every line-leading prefix of the piece."""
    for host in prefixes.counts.keys() - state.hosts.keys():
        if not IPV4ISH.match(host) and not host.startswith("<"):
            state.learn_host(host)


def all_prefixes_learned(text: str, prefixes: Prefixes, hot: str, state: LogState) -> bool:
    """What hosts.find_nccl_leftovers decides on `text` (skip when True), given that every
    source-location prefix (`net_ib.cc:1696 NCCL`) sits in `hot`: the prefilter makes those
    lines hot, so the regex that counts them reads the hot lines only."""
    if not prefixes.nccl:
        return True
    bound = text.count("] NCCL") + len(NCCL_AFTER_DIGIT.findall(hot))
    hosts, users = state.hosts, state.users
    found = sum(n for host, n in prefixes.counts.items() if host in hosts and host not in users)
    return found >= bound
