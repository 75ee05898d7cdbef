"""Literal prefilter: one Aho-Corasick pass over a chunk finds the lines worth a regex.

Keywords are matched case-insensitively on ASCII-lowercased bytes, so byte offsets in the
lowered chunk are offsets in the original chunk too (bytes.lower() never changes a length).
"""

from __future__ import annotations

from collections.abc import Iterator

import ahocorasick_rs


class Prefilter:
    """Maps each keyword to the owners (rules or built-in probes) interested in it."""

    def __init__(self, keywords: dict[str, set[str]]):
        words = sorted(k for k in keywords if k)
        self._words = words
        self._owners = [frozenset(keywords[w]) for w in words]
        self._automaton = ahocorasick_rs.BytesAhoCorasick([w.encode("utf-8") for w in words])

    def candidate_lines(self, chunk: bytes) -> Iterator[tuple[int, int, frozenset[str]]]:
        """(line start, line end, owners) for each line holding a keyword, in order.

        `line end` excludes the newline. Owners of every keyword on the line are merged.
        """
        if not self._words:
            return
        low = chunk.lower()
        hits = self._automaton.find_matches_as_indexes(low, overlapping=True)
        if not hits:
            return
        owners = self._owners
        cur_start, cur_end, cur = -1, -1, set()
        for idx, start, _end in hits:
            # Keywords hold no newline and hits come in order of their end, so the hits
            # of one line are contiguous.
            if start < cur_end:
                cur.update(owners[idx])
                continue
            if cur_start >= 0:
                yield cur_start, cur_end, frozenset(cur)
            cur_start = chunk.rfind(b"\n", 0, start) + 1
            cur_end = chunk.find(b"\n", start)
            if cur_end < 0:
                cur_end = len(chunk)
            cur = set(owners[idx])
        if cur_start >= 0:
            yield cur_start, cur_end, frozenset(cur)
