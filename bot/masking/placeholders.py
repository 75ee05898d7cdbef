"""Typed, numbered, per-log placeholders with a stable value -> placeholder mapping."""

from __future__ import annotations

import re

# Personal-data kinds print as `<IP-1>`; every other kind is a secret: `<SECRET:hf-token-1>`.
PERSONAL_LABELS = {
    "ip": "IP", "ipv6": "IPV6", "host": "HOST", "email": "EMAIL", "user": "USER",
    "mac": "MAC",  # MAC addresses, InfiniBand hardware addresses and port/node GUIDs
    "name": "NAME",  # people's names (git authors, GECOS, mail headers, chat)
    "account": "ACCOUNT",  # cloud account and subscription ids
    "serial": "SERIAL",  # hardware serial numbers (GPU boards, FRUs)
    "phone": "PHONE",  # labelled phone numbers (mail signatures, directories)
    "ssn": "SSN",  # US Social Security numbers (a quoted record)
    "card": "CARD",  # payment card numbers (Luhn-checked)
    "iban": "IBAN",  # bank account numbers (IBAN, mod-97 checked)
    "nino": "NINO",  # UK National Insurance numbers
    "address": "ADDRESS",  # postal addresses: the street and house number
}  # fmt: skip

# Personal kinds masked wherever a value recurs once a detector has found it. A cloud account
# id is an exact number or GUID: the one an ARN or `projects/<n>/` names is the same account
# bare on a line of its own (the metadata server's `numeric-project-id` answer). Addresses and
# names are not: a learned `10.0.0.1` would cut into `10.0.0.12`, and names have their own
# learning (state.py). Ten characters or more: a short number recurs by chance.
_RECURRING_PERSONAL = frozenset(("account",))
_MIN_RECURRING_ACCOUNT = 10

# Anything we ever emit. Detectors treat these as opaque so masking is idempotent.
PLACEHOLDER_RX = re.compile(r"<(?:SECRET:[a-z0-9-]{1,40}|IP|IPV6|HOST|EMAIL|USER|MAC|NAME|ACCOUNT|SERIAL|PHONE|SSN|CARD|IBAN|NINO|ADDRESS)-\d{1,9}>")


def has_placeholder(value: str) -> bool:
    """True when `value` already carries one of our placeholders."""
    return "<" in value and PLACEHOLDER_RX.search(value) is not None


class PlaceholderTable:
    """Maps each masked value to one placeholder, numbered per kind in order of first use.

    The map is keyed by value alone: a value keeps the placeholder (and kind) it got first,
    whatever syntax it shows up in later, so one secret never reads as two. Numbers come
    from a counter, never from a hash of the value: IPs and user names are low-entropy and a
    hash would be reversible by enumeration. The table lives exactly as long as its Masker.
    """

    __slots__ = ("_counts", "_next", "_seen")

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, str]] = {}  # value -> (placeholder, kind)
        self._next: dict[str, int] = {}
        self._counts: dict[str, int] = {}

    def put(self, kind: str, value: str) -> str:
        """Placeholder for `value` (first seen as `kind`), counting one masked occurrence."""
        seen = self._seen.get(value)
        if seen is None:
            number = self._next.get(kind, 0) + 1
            self._next[kind] = number
            label = PERSONAL_LABELS.get(kind)
            seen = (f"<{label}-{number}>" if label else f"<SECRET:{kind}-{number}>", kind)
            self._seen[value] = seen
        kind = seen[1]
        self._counts[kind] = self._counts.get(kind, 0) + 1
        return seen[0]

    def placeholder_of(self, value: str) -> str | None:
        """The placeholder `value` already has, or None (nothing is counted)."""
        seen = self._seen.get(value)
        return None if seen is None else seen[0]

    def put_many(self, kind: str, value: str, n: int) -> str:
        """Placeholder for `value` (first seen as `kind`), counting `n` masked occurrences."""
        placeholder = self.put(kind, value)
        if n > 1:
            kind = self._seen[value][1]
            self._counts[kind] += n - 1
        return placeholder

    def count(self, kind: str, n: int = 1) -> None:
        """Count `n` masked occurrences that reuse a placeholder already emitted."""
        self._counts[kind] = self._counts.get(kind, 0) + n

    def recurring(self) -> list[tuple[str, str]]:
        """(value, kind) of every value in the table to mask wherever it recurs: the secrets,
        and the cloud account ids long enough to be nothing else."""
        return [
            (value, kind)
            for value, (_, kind) in self._seen.items()
            if kind not in PERSONAL_LABELS or (kind in _RECURRING_PERSONAL and len(value) >= _MIN_RECURRING_ACCOUNT)
        ]

    @property
    def counts(self) -> dict[str, int]:
        return dict(self._counts)
