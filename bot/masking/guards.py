"""The literals detectors test a whole piece for before they read it (`"-----BEGIN" in text`,
`"IdentityFile" in text`), found by one scan.

Each such `in` swept the piece once: 0.3-0.9 ms a MB each, a dozen of them on every piece of
every log that holds none (`denpex mask`'s rows that run on every line). A module declares
the literals it tests (`declare`, at import) and asks `holds(text, literal)`, which answers
exactly as `literal in text` does; the literals of every module are looked for at once, by the
literal engine (`bot.literals.LiteralSet`), once per text: a stage's rows read the very same
text.
"""

from __future__ import annotations

from bot.literals import LiteralSet, last_text_memo

_DECLARED: dict[str, None] = {}
_SET: list[LiteralSet] = []  # built at the first question, from every declaration made by then


def declare(*literals: str) -> tuple[str, ...]:
    """Declare literals a detector will ask `holds` about (ASCII, without `?`); at import."""
    if _SET:
        raise RuntimeError("guard literals are declared at import, before the first question")
    _DECLARED.update(dict.fromkeys(literals))
    return literals


@last_text_memo
def _present(text: str) -> set[str]:
    if not _SET:
        _SET.append(LiteralSet(_DECLARED))
    return _SET[0].present(text)


def declared() -> tuple[str, ...]:
    """Every literal declared so far."""
    return tuple(_DECLARED)


def holds(text: str, literal: str) -> bool:
    """`literal in text`, for a declared literal."""
    if literal not in _DECLARED:
        raise ValueError(f"{literal!r} is not a declared guard literal")
    return literal in _present(text)
