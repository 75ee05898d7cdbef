"""learned.mask_learned_names for a piece already split around its NCCL prefix hosts.

A learned host in a line-leading NCCL prefix is always a whole-word match of the learned-name
regex: a `:` follows it; a `:`, blank or newline precedes it; no name holds those. So those
occurrences get their placeholders by one list operation over the split, and only the rest of
the text is searched, with NameScanner (a callback per occurrence, none per line). No match can
span two parts of the split, since parts meet at such characters.

The regex pass numbers new names in order of first appearance; so does this, from the
occurrences' positions.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from itertools import accumulate

from bot.masking.name_scan import Found, TooManyNames
from bot.masking.prefix_hosts import Prefixes
from bot.masking.state import LogState


def mask_learned_names_fast(prefixes: Prefixes, state: LogState) -> str | None:
    """The piece `prefixes` splits, with every learned name masked; None when names occur
    too often for a callback each (then learned.mask_learned_names is the cheaper way)."""
    users, hosts = state.users, state.hosts
    if not users and not hosts:
        return prefixes.text_with({})
    state.name_scanner.update({*users, *hosts})
    learned = {name: n for name, n in prefixes.counts.items() if name in hosts or name in users}
    placeholder_of = state.table.placeholder_of
    placeholders = {name: placeholder_of(name) for name in learned}
    try:
        if None in placeholders.values():
            return _with_new_prefix_hosts(prefixes, learned, state)
        return _with_known_prefix_hosts(prefixes, learned, placeholders, state)  # type: ignore[arg-type]
    except TooManyNames:
        return None


def _with_known_prefix_hosts(
    prefixes: Prefixes, learned: dict[str, int], placeholders: dict[str, str], state: LogState
) -> str:
    """Every learned prefix host has its placeholder: put them in, then search the result
    (placeholders are opaque to the search, as they are to the regex)."""
    text = prefixes.text_with(placeholders)
    found = state.name_scanner.find(text, cap=len(text) // 8 + 64)
    first = {}
    for start, _, name in found:
        first.setdefault(name, start)
    totals = Counter(learned)
    totals.update(name for _, _, name in found)
    _put(totals, first, state)
    return _replace(text, found, state) if found else text


def _with_new_prefix_hosts(prefixes: Prefixes, learned: dict[str, int], state: LogState) -> str:
    """Some prefix host is new: search the parts with the learned prefix hosts blanked, and
    order names by (part index, offset) to number the new ones."""
    parts = prefixes.parts
    hosts = prefixes.hosts
    blank = dict.fromkeys(learned, "")
    searched = parts.copy()
    searched[2::3] = list(map(blank.get, hosts, hosts))
    joined = "".join(searched)
    by_part = _by_part(searched, state.name_scanner.find(joined, cap=len(joined) // 8 + 64))
    first: dict[str, tuple[int, int]] = {}
    totals = Counter(learned)
    for i in sorted(by_part):
        for start, _, name in by_part[i]:
            totals[name] += 1
            first.setdefault(name, (i, start))
    # Index of each prefix host's first occurrence: reversed, the first one is set last.
    first_host = dict(zip(reversed(hosts), range(len(hosts) - 1, -1, -1), strict=True))
    for name in learned:
        at = (3 * first_host[name] + 2, 0)
        if name not in first or at < first[name]:
            first[name] = at
    _put(totals, first, state)
    placeholder_of = state.table.placeholder_of
    placeholders = {name: placeholder_of(name) for name in learned}
    out = parts.copy()
    out[2::3] = list(map(placeholders.get, hosts, hosts))
    for i, found in by_part.items():
        out[i] = _replace(searched[i], found, state)
    return "".join(out)[1:]


def _by_part(parts: list[str], found: list[Found]) -> dict[int, list[Found]]:
    """Matches in the joined parts, grouped by part, offsets within the part."""
    if not found:
        return {}
    ends = list(accumulate(map(len, parts)))
    grouped: dict[int, list[Found]] = {}
    for start, end, name in found:
        i = bisect_right(ends, start)
        base = ends[i - 1] if i else 0
        grouped.setdefault(i, []).append((start - base, end - base, name))
    return grouped


def _put(totals: Counter[str], first: dict, state: LogState) -> None:
    """put_many each name once with all its occurrences: new names first, in order of first
    appearance (that numbers them as the regex pass does); the others only count."""
    table, users = state.table, state.users
    new = sorted((name for name in totals if table.placeholder_of(name) is None), key=first.__getitem__)
    for name in new:
        table.put_many("user" if name in users else "host", name, totals.pop(name))
    for name, n in totals.items():
        table.put_many("user" if name in users else "host", name, n)


def _replace(text: str, found: list[Found], state: LogState) -> str:
    placeholder_of = state.table.placeholder_of
    out: list[str] = []
    pos = 0
    for start, end, name in found:
        out.append(text[pos:start])
        out.append(placeholder_of(name) or name)
        pos = end
    out.append(text[pos:])
    return "".join(out)
