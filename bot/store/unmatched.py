"""Counting the failures no rule matched, by a normalised fingerprint of their salient line.

The fingerprint keeps the words and drops what differs between runs of the same failure
(numbers, hex, paths, addresses, quoted values, masking placeholders' numbering), so
`RuntimeError: foo failed at /a/b.py:12 rank 3` and the same error on another node count as
one: `RuntimeError: foo failed at <PATH> rank <N>`. Maintainers read the top of the list to
decide which rule to write next.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.masking.masked import MaskedText, require_masked
from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.config import StoreConfig

MAX_FINGERPRINT_CHARS = 300

# Placeholders left by masking, e.g. <IP-1>, <EMAIL_2>, <TOKEN>: kept, numbering dropped.
_PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*?)(?:[-_#]\d+)?>")
_PLACEHOLDER_TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*>")
_SENTINEL_BASE = 0xF0000  # Unicode plane 15, private use: never \\w, digit or quote
_SENTINELS = re.compile("[\\U000F0000-\\U000FFFFD]")

_HEXD = "[0-9a-fA-F]"
_PATH_CHAR = r"[\w.@+~-]"


Replacement = str | Callable[[re.Match[str]], str]


def _rule(pattern: str, replacement: Replacement) -> tuple[re.Pattern[str], Replacement]:
    return re.compile(pattern), replacement


_NETWORK_SUFFIX = re.compile(r"\.(?:local|lan|internal|com|net|org|io|svc|cluster)$")


def _host(match: re.Match[str]) -> str:
    host = match.group(1)
    if any(ch.isdigit() for ch in host) or _NETWORK_SUFFIX.search(host):
        return "<HOST>"
    return match.group(0)


# host:port where the host has a digit (node12:29500) or a network suffix (db.lan:5432);
# a module path with a line number (torch.distributed.api:699) keeps its words. The test is
# a function, not a regex, to keep matching linear on long lines.
_HOST_PORT = _rule(r"\b([A-Za-z][\w-]*(?:\.[\w-]+)*):\d{2,5}\b", _host)


# Applied in order, before quoted values are replaced (these may sit inside quotes). Each
# pattern sees the earlier replacements; no replacement holds a digit, slash or quote that a
# later pattern could take apart.
_BEFORE_QUOTES = [
    _rule(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+", "<URL>"),
    _rule(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b", "<EMAIL>"),
    _rule(rf"\b{_HEXD}{{8}}-{_HEXD}{{4}}-{_HEXD}{{4}}-{_HEXD}{{4}}-{_HEXD}{{12}}\b", "<UUID>"),
    _rule(
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?",
        "<TS>",
    ),
    _rule(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b", "<TS>"),
    _rule(r"(?:(?<![\w:])::ffff:)?\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b", "<IP>"),
    _rule(rf"(?<![\w:])(?:{_HEXD}{{1,4}}:){{7}}{_HEXD}{{1,4}}(?![\w:])", "<IP>"),
    # Compressed IPv6 (fe80::1); `c10::Error` is not one, the lookahead sees the word go on.
    _rule(
        rf"(?<![\w:])(?:{_HEXD}{{1,4}}:){{1,6}}:(?:{_HEXD}{{1,4}}:)*{_HEXD}{{1,4}}(?![\w:])",
        "<IP>",
    ),
    _HOST_PORT,
    # Paths: absolute or ~/./..-relative; relative with two or more separators; or with one
    # separator and a file extension. "I/O" and "and/or" are words, not paths.
    _rule(
        rf"(?<![\w/])(?:~|\.{{1,2}})?/(?:{_PATH_CHAR}+/)*{_PATH_CHAR}+/?(?::\d+){{0,2}}", "<PATH>"
    ),
    _rule(r"\b[A-Za-z]:\\(?:[^\\\s]+\\)*[^\\\s]*", "<PATH>"),
    _rule(rf"(?<![\w/]){_PATH_CHAR}+(?:/{_PATH_CHAR}+){{2,}}(?::\d+){{0,2}}", "<PATH>"),
    _rule(rf"(?<![\w/]){_PATH_CHAR}+/{_PATH_CHAR}*\.[A-Za-z]\w{{0,5}}(?::\d+){{0,2}}\b", "<PATH>"),
]
_QUOTED = re.compile(r"(?<![\w\"])\"[^\"\n]*\"|(?<![\w'])'[^'\n]*'(?!\w)|`[^`\n]*`")
_AFTER_QUOTES = [
    _rule(r"\b0[xX][0-9a-fA-F]+\b", "<HEX>"),
    _rule(rf"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F]){_HEXD}{{8,}}\b", "<HEX>"),
    # Numbers standing on their own (or leading a unit: 16GB) ...
    _rule(r"(?<![A-Za-z0-9.])\d+(?:\.\d+)*(?:[eE][-+]?\d+)?", "<N>"),
    # ... and trailing an identifier (rank3, node12, fp16); inner digits (Conv2d) stay.
    _rule(r"(?<=[A-Za-z_])\d+(?:\.\d+)*(?![A-Za-z0-9])", "<N>"),
    # Lists of numbers (tensor shapes, rank lists) vary in length, not in kind.
    _rule(r"<N>(?:\s*[,x×*]\s*<N>)+", "<N>"),
]
_WHITESPACE = re.compile(r"\s+")


def fingerprint(line: str) -> str:
    """Normalise a (masked) log line into the fingerprint unmatched failures are counted by.

    Fingerprinting a fingerprint gives it back unchanged.
    """
    # One pass can expose new matches (a placeholder now precedes a slash, a cut-off tail
    # ends in a digit), so repeat until nothing changes: then fingerprints are fixed points.
    text = line[: 4 * MAX_FINGERPRINT_CHARS]
    for _ in range(5):
        again = _one_pass(text)
        if again == text:
            break
        text = again
    return text


def _one_pass(line: str) -> str:
    # Placeholders already in the line (from masking, or from an earlier pass) are parked as
    # private-use characters that no rule below matches, then put back.
    line = _SENTINELS.sub("", line)
    placeholders: list[str] = []

    def park(match: re.Match[str]) -> str:
        placeholders.append(f"<{match.group(1)}>")
        return chr(_SENTINEL_BASE + len(placeholders) - 1)

    text = _normalise_text(_PLACEHOLDER.sub(park, line))
    text = _SENTINELS.sub(lambda m: placeholders[ord(m.group(0)) - _SENTINEL_BASE], text)
    text = _WHITESPACE.sub(" ", text).strip()
    return text[:MAX_FINGERPRINT_CHARS].rstrip()


def _normalise_text(text: str) -> str:
    for pattern, replacement in _BEFORE_QUOTES:
        text = pattern.sub(replacement, text)
    # A quoted placeholder (File "<PATH>") says more than <STR>; any other quoted value goes.
    text = _QUOTED.sub(
        lambda m: m.group(0) if _is_placeholder(m.group(0)[1:-1]) else "<STR>",
        text,
    )
    for pattern, replacement in _AFTER_QUOTES:
        text = pattern.sub(replacement, text)
    return text


def _is_placeholder(text: str) -> bool:
    return bool(_PLACEHOLDER_TOKEN.fullmatch(text) or _SENTINELS.fullmatch(text))


# Counts one occurrence of a fingerprint; past the cap, the rarest fingerprints are dropped,
# so a flood of one-off lines cannot grow Redis without bound.
# KEYS[1]  fingerprints by count (sorted set)
# ARGV[1]  fingerprint  ARGV[2] most fingerprints kept
# Returns the fingerprint's count afterwards (0 if it was itself dropped as the rarest).
_RECORD_LUA = """
local count = redis.call('ZINCRBY', KEYS[1], 1, ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
if excess > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
  if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
  end
end
return tonumber(count)
"""


class Unmatched:
    """Fingerprint counters: per workspace and across workspaces."""

    def __init__(self, client: RedisClient, config: StoreConfig) -> None:
        self._client = client
        self._config = config
        self._record = client.script(_RECORD_LUA)

    @guarded
    def record(self, team_id: str, salient_line: MaskedText) -> str:
        """Count the masked salient line of an unmatched log; return its fingerprint.

        A line that normalises to nothing is not counted and gives "". A plain str is refused
        (UnmaskedTextError): only masked text may reach Redis.
        """
        print_ = fingerprint(require_masked(salient_line, "unmatched counter"))
        if not print_:
            keys.check_team_id(team_id)
            return ""
        cap = self._config.unmatched_max
        # Two keys in two slots ({team} and {stats}): two single-key scripts, not one.
        self._record(keys=[keys.unmatched(team_id)], args=[print_, cap])
        self._record(keys=[keys.unmatched_all()], args=[print_, cap])
        return print_

    @guarded
    def top(self, n: int = 20, team_id: str | None = None) -> list[tuple[str, int]]:
        """The `n` most frequent fingerprints with their counts (ties alphabetical), across
        workspaces or for one workspace."""
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        key = keys.unmatched_all() if team_id is None else keys.unmatched(team_id)
        rows = self._client.redis.zrevrange(key, 0, n - 1, withscores=True)
        # Redis breaks ties in reverse byte order; alphabetical reads better.
        return sorted(((fp, int(score)) for fp, score in rows), key=lambda r: (-r[1], r[0]))
