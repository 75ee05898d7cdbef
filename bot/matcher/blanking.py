"""Blanking: the lines of a settled flood never reach Python again.

Once `Scan._settle` has found that a further line of a flood's key (its coarse shape, rank and
the digits its patterns tell apart) would only add to counts and move `last_error_line`, every
later line of that key has that effect and nothing else. `Blanker` turns each such key into a
regex of the whole line, and before the prefilter scans the next piece of the log, one `re`
substitution per effect empties those lines in C (keeping each newline, so line numbers stand)
and says how many it emptied, which is all the counts need; the last one emptied of a flood
that moves `last_error_line` is found by a greedy search from the end, also in C. A retry loop
printed half a million times costs a substitution, not half a million calls into Python.

A line is emptied only when the prefilter would have reported exactly the literals the settled
line held: every digit inside an occurrence of a literal that holds digits (`[c10d]`, `loss
scale: 1.0`) is kept as it was, as are the rank's digits; the digits the plan's patterns tell
apart may only change within their class; any other digit is free. A line holding a literal
whose number is read where it stands (`nranks 16`, the world size) is never emptied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import hyperscan

from bot.dbcache import block_database
from bot.literals import DIGITS_AS_ZERO, hyperscan_literal

_DIGITS = frozenset(b"0123456789")


@dataclass(frozen=True)
class _Settled:
    """A settled line, kept until a piece is blanked. Every later line that reads as `raw`
    (ASCII, no CR, no newline) is emptied where it must be: its rank's digits
    `raw[rank[0]:rank[1]]`, at each of `marks` a digit that `shape` maps as it maps `raw`'s,
    and the digits of any literal with digits on it; its effect is one more count in each of
    `counted` (the same RuleHits twice: two counts), and, with `error`, `last_error_line`
    moved to it; `probes`: its plan has probes."""

    raw: bytes
    rank: tuple[int, int]
    marks: tuple[int, ...]
    shape: bytes | None
    counted: tuple[object, ...]
    error: bool
    probes: bool


@dataclass
class _Group:
    """The settled keys of one effect: the `RuleHits` a line adds to, whether it moves
    `last_error_line`, whether its plan has probes (then only while the facts are plain)."""

    counted: tuple[object, ...]
    error: bool
    probes: bool
    # The settled lines: each as regex atoms, one a byte, with its rank's digits as one atom
    # (`_RANK`), and the ranks settled with it. Compiled as one trie (`_compile`).
    lines: dict[tuple[bytes, ...], set[bytes]] = field(default_factory=dict)
    usable: bool = True  # False once the trie nests too deep to compile, or retired: its lines are read
    misses: int = 0  # pieces in a row in which its substitution did not pay (see `Blanker.blank`)
    retired_with: int = 0  # its settled lines when it was last retired (see `Blanker._take`)
    rx: re.Pattern[bytes] | None = None
    last: re.Pattern[bytes] | None = None


@dataclass
class Blanked:
    """What `Blanker.blank` did to a piece: the piece as the matcher reads it, and the line
    (1-based, counted from the piece's first line as 1) of the last line emptied that moves
    `last_error_line`, or 0."""

    chunk: bytes
    begin: int
    end: int
    emptied: int
    last_error: int


class Literals:
    """What blanking needs of a matcher's prefilter, built once per matcher: its literals that
    hold digits, the literals whose number is read off the line, and the probe keywords that
    can make the facts no longer plain."""

    def __init__(self, words: list[str], direct: list[str], unsettling: list[str]):
        # As they read with every digit as 0, in lower case (they are matched caseless).
        self.digit_words = tuple(
            sorted({w.lower().encode().translate(DIGITS_AS_ZERO) for w in words if w.isascii() and _has_digit(w)})
        )
        self.direct_words = tuple(w.lower().encode() for w in direct)
        self.unsettling = block_database(
            [(i, hyperscan_literal(w)) for i, w in enumerate(unsettling)],
            hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_SINGLEMATCH,
        )


def _has_digit(word: str) -> bool:
    return any(c in "0123456789" for c in word)


class Blanker:
    """The settled flood keys of one scan, and the substitutions that empty their lines."""

    def __init__(self, literals: Literals):
        self._digit_words = literals.digit_words
        self._direct_words = literals.direct_words
        self._flip = literals.unsettling
        self._scratch: hyperscan.Scratch | None = None
        self._groups: dict[tuple[tuple[int, ...], bool, bool], _Group] = {}
        self._pending: list[_Settled] = []
        self._dirty = False
        self.size = 0  # bytes of patterns held (the caller bounds it with its flood caches)

    def clear(self) -> None:
        self._groups.clear()
        self._pending.clear()
        self._dirty = False
        self.size = 0

    def retry(self) -> None:
        """Give each group retired for not paying another try (`blank`): a flood an evaluation
        or a checkpoint paused prints its settled lines again. The scan calls it as it samples
        the log again, every 32 MB or when the log changes shape."""
        for group in self._groups.values():
            if group.retired_with and not group.usable:
                group.usable, group.misses = True, 0
                self._dirty = True  # ranks settled while it was retired are not in its regex yet

    def __bool__(self) -> bool:
        return bool(self._groups or self._pending)

    def add(
        self,
        raw: bytes,
        rank: tuple[int, int],
        marks: tuple[int, ...],
        shape: bytes | None,
        counted: tuple[object, ...],
        error: bool,
        probes: bool,
    ) -> None:
        """Empty every later line that reads as `raw` (see `_Settled`). Kept as given until a piece
        is blanked: a scan fed in small pieces never pays for the regex."""
        self._pending.append(_Settled(raw, rank, marks, shape, counted, error, probes))
        self.size += len(raw) + 64

    def _take(self, settled: _Settled) -> None:
        raw, rank, marks, shape, counted, error, probes = (
            settled.raw, settled.rank, settled.marks, settled.shape, settled.counted, settled.error, settled.probes
        )
        low = raw.lower()
        coarse = low.translate(DIGITS_AS_ZERO)
        if any(w in low for w in self._direct_words):
            return
        pinned = set(range(*rank))
        for w in self._digit_words:
            at = coarse.find(w)
            while at >= 0:
                pinned.update(range(at, at + len(w)))
                at = coarse.find(w, at + 1)
        classes = {}
        for p in marks:
            if p not in pinned:
                image = shape or bytes(range(256))
                classes[p] = bytes(d for d in b"0123456789" if image[d] == image[raw[p]])
        key = (tuple(id(h) for h in counted), error, probes)
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group(counted, error, probes)
        rank_at, rank_to = rank
        atoms = _atoms(raw, pinned, classes)
        atoms[rank_at:rank_to] = [_RANK] if rank_to > rank_at else []
        ranks = group.lines.get(tuple(atoms))
        if ranks is None:
            ranks = group.lines[tuple(atoms)] = set()
            # A new line settled, not a known line for a new rank: the flood may have changed
            # shape (Megatron's iteration counter reached 100000, a column widened) rather than
            # moved on, so a group retired for not paying (`blank`) is tried again, once it
            # holds twice the lines it was retired with: NCCL's chatter settles a new line now
            # and then and mostly moves on, and a try costs a compile and a substitution a
            # piece (nccl-native: a try every few pieces cost it more than its lines read one
            # by one); doubling keeps the tries to a few, however long the log. A group in use
            # keeps its misses: a new line settled does not excuse the pieces it did not pay
            # in (nccl-native settled one a piece, and each kept a group that emptied ~700
            # lines a MB compiling and substituting, 5 ms a piece).
            if not group.usable and group.retired_with and len(group.lines) >= 2 * group.retired_with:
                group.usable, group.misses = True, 0
        if raw[rank_at:rank_to] not in ranks:
            ranks.add(raw[rank_at:rank_to])
            group.rx = None
            self._dirty = True

    def blank(self, chunk: bytes, begin: int, end: int, *, plain: bool) -> Blanked:
        """`chunk[begin:end]` (whole lines, `begin` at a line's start) with the lines of every
        settled key emptied, their counts added. `plain`: the facts are plain now; the lines of
        plans with probes are emptied only then, and only when no line of the piece could
        change that (`_may_unsettle`). The piece comes back as (chunk, begin, end) to read."""
        for pending in self._pending:
            self._take(pending)
        self._pending.clear()
        if self._dirty:
            for group in self._groups.values():
                if group.rx is None and group.usable:
                    compiled = _compile(group.lines)
                    if compiled is None:
                        group.usable = False
                    else:
                        group.rx, group.last = compiled
            self._dirty = False
        probes = plain and any(g.probes for g in self._groups.values()) and not self._may_unsettle(chunk, begin, end)
        groups = [g for g in self._groups.values() if g.usable and (probes or not g.probes)]
        if not groups:
            return Blanked(chunk, begin, end, 0, 0)
        # Each emptied line is matched with the newline before it: the piece's first line needs one.
        data = chunk[begin - 1 : end] if begin else b"\n" + chunk[:end]
        emptied = last_error = 0
        for group in groups:
            assert group.rx is not None and group.last is not None
            out, n = group.rx.subn(b"\n", data)
            # A substitution costs about 2 ms a megabyte; a line read one by one, about 2 us.
            # A group that empties less than a line a kilobyte two pieces running does not pay
            # for itself (NCCL's chatter settles per rank, then mostly moves on): it is retired
            # and its lines are read one by one again, which is always right.
            group.misses = group.misses + 1 if n < len(data) >> 10 else 0
            if group.misses >= 2:
                group.usable, group.retired_with = False, len(group.lines)
            if n and group.error:
                # Looked for only where there is one: a search that finds none tries every line.
                found = group.last.search(data)
                assert found is not None
                last_error = max(last_error, data.count(b"\n", 0, found.end()))
            data = out
            emptied += n
            for hits in group.counted:
                hits.count += n  # type: ignore[attr-defined]
        if not emptied:
            return Blanked(chunk, begin, end, 0, 0)
        return Blanked(data, 1, len(data), emptied, last_error)

    def _may_unsettle(self, chunk: bytes, begin: int, end: int) -> bool:
        """Could a line of `chunk[begin:end]` make the facts no longer plain (a pdsh host placed,
        a spawn block opened)? Only its probes' keywords can."""
        found: list[int] = []

        def hit(idx: int, _from: int, _to: int, _flags: int, _context: object) -> None:
            found.append(idx)

        if self._scratch is None:  # a scan runs in one thread at a time
            self._scratch = hyperscan.Scratch(self._flip)
        self._flip.scan(memoryview(chunk)[begin:end], match_event_handler=hit, scratch=self._scratch)
        return bool(found)


def _atoms(raw: bytes, pinned: set[int], classes: dict[int, bytes]) -> list[bytes]:
    """The regex atoms of `raw`, one a byte: text as it is, each digit free unless pinned or
    classed."""
    atoms = []
    for p, b in enumerate(raw):
        if b not in _DIGITS or p in pinned:
            atoms.append(_ESCAPED[b])
        else:
            cls = classes.get(p)
            atoms.append(_ANY_DIGIT if cls is None or len(cls) == 10 else b"[" + cls + b"]")
    return atoms


_ANY_DIGIT = b"[0-9]"
_ESCAPED = [re.escape(bytes((b,))) for b in range(256)]
# Branch points on one path through a trie beyond which its regex is not compiled (Python's
# regex parser recurses once per nested group).
_MAX_DEPTH = 100


_RANK = b"(?#rank)"


def _compile(lines: dict[tuple[bytes, ...], set[bytes]]) -> tuple[re.Pattern[bytes], re.Pattern[bytes]] | None:
    """The substitution (a newline and one of `lines`, up to the next newline) and the greedy
    search whose match ends just past the newline before the last such line; None when their
    trie nests deeper than _MAX_DEPTH.

    One trie of atoms: lines that share their text try each byte once, not once per line, and a
    line's ranks are a trie of their digits where its rank stands (ranks 0-1023 of one shape:
    one line's text and ten-way branches, not a thousand lines)."""
    trie: dict = {}
    for atoms, ranks in lines.items():
        node = trie
        for atom in atoms:
            if atom == _RANK:
                digits: dict = {}
                # In order: two lines settled for the same ranks spell them alike, and the trie
                # shares the text up to where the lines differ (a set's order is the hash seed's).
                for r in sorted(ranks):
                    _insert(digits, [re.escape(r[i : i + 1]) for i in range(len(r))])
                atom = _regex(digits)
            node = node.setdefault(atom, {})
        node[None] = {}
    if _depth(trie) > _MAX_DEPTH:
        return None
    body = _regex(trie) + b"(?=\n)"
    return re.compile(b"\n" + body), re.compile(b"(?s).*\n(?=" + body + b")")


def _insert(trie: dict, atoms: list[bytes]) -> None:
    node = trie
    for atom in atoms:
        node = node.setdefault(atom, {})
    node[None] = {}


def _depth(trie: dict) -> int:
    """The most branch points on one path from the root (without recursion: a path is a line)."""
    deepest = 0
    stack = [(trie, 0)]
    while stack:
        node, depth = stack.pop()
        depth += len(node) > 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in node.values())
    return deepest


def _counted(run: list[bytes]) -> bytes:
    """`run`'s atoms in a row, each run of one digit class spelled once with its count
    (`[0-9]{9}` for a timestamp's fraction): `re` steps through a pattern op by op, and a
    flood line is mostly digits that are free, so the substitution reads it about a quarter
    faster (c10d-retry's retry line: 3.5 -> 2.7 ms a megabyte)."""
    out = []
    i = 0
    while i < len(run):
        atom = run[i]
        j = i + 1
        if atom.startswith(b"["):
            while j < len(run) and run[j] == atom:
                j += 1
        out.append(atom if j - i == 1 else b"%s{%d}" % (atom, j - i))
        i = j
    return b"".join(out)


def _regex(node: dict) -> bytes:
    """The trie below `node` as one regex: a run without branches is its atoms in a row."""
    branches = []
    for atom, child in node.items():
        if atom is None:
            branches.append(b"")
            continue
        run = [atom]
        while len(child) == 1 and None not in child:
            (atom, child), = child.items()
            run.append(atom)
        branches.append(_counted(run) + (_regex(child) if child.keys() != {None} else b""))
    if len(branches) == 1:
        return branches[0]
    # The empty branch (a line that ends here) last: the others are longer, and a lookahead
    # for the newline follows.
    branches.sort(key=lambda b: b == b"")
    return b"(?:" + b"|".join(branches) + b")"
