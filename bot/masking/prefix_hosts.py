"""NCCL line prefixes (`[rank8]:host:pid:tid [dev] NCCL`) of a whole piece, found in one pass.

On a training log nearly every line is one. One pass (the C scanner in _prefix_split.c, or the
regex it mirrors) gives where each line-leading prefix's host stands and which host it is, which
serves the three jobs that need every line: learning the hosts (hosts.learn_nccl_hosts),
deciding whether the leftover scan can be skipped (hosts.find_nccl_leftovers), and putting each
learned host's placeholder in place (learned.mask_learned_names) with one copy of the text
instead of a regex match per line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

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

try:
    # The same split as a C scanner (setup.py builds it where a compiler is): the regex spends
    # most of its time matching, a quarter of a microsecond a line; the scanner, nanoseconds,
    # and it puts the placeholders in with one copy of the text.
    from bot.masking import _prefix_split as _native
except ImportError:  # not built here: the regex it mirrors gives the same answers
    _native = None


@dataclass
class Prefixes:
    """`text`'s line-leading NCCL prefixes: where each host stands, and which host it is."""

    text: str
    # (newline, host start, host end) per prefix, packed as Py_ssize_t, offsets into "\n" + text:
    # what the scanner's replace_hosts reads. Empty when the regex made the split instead.
    spans: bytes
    hosts: list[str]
    counts: Counter[str]  # host -> number of prefixes naming it
    nccl: bool  # the text holds " NCCL" at all
    # `_SPLIT.split("\n" + text)`, [before, lead, host, ..., before] (hosts are items 2, 5, ...):
    # made up front by the regex, on demand from the scanner (only the rare paths need it).
    split: list[str] | None = None

    @property
    def parts(self) -> list[str]:
        if self.split is None:
            self.split = _native.split("\n" + self.text)  # type: ignore[union-attr]
        return self.split

    def text_with(self, placeholders: dict[str, str]) -> str:
        """The text, each prefix host that `placeholders` names replaced by its placeholder."""
        if self.spans:
            out = _native.replace_hosts(self.text, self.spans, self.hosts, placeholders)  # type: ignore[union-attr]
            if out is not None:
                return out
        parts = self.parts.copy()
        hosts = parts[2::3]
        parts[2::3] = list(map(placeholders.get, hosts, hosts))
        return "".join(parts)[1:]


def split_prefixes(text: str) -> Prefixes:
    if " NCCL" not in text:  # no prefix: skip the per-line scan
        return Prefixes(text, b"", [], Counter(), nccl=False, split=["\n" + text])
    if _native is not None:
        spans, hosts = _native.scan(text)
        return Prefixes(text, spans, hosts, Counter(hosts), nccl=True)
    parts = _SPLIT.split("\n" + text)
    hosts = parts[2::3]
    return Prefixes(text, b"", hosts, Counter(hosts), nccl=True, split=parts)


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
