"""The one type of log-derived text that may leave the process.

`MaskedText` is a `str` that went through the masker. Only `bot.masking.Masker` makes one
(the constructor demands a token private to this package), so a value of this type is masked
by construction, and every egress — the store, the Slack layer, the CLI's default output —
asks for it with `require_masked`, which refuses a plain `str`. Anything computed from a
`MaskedText` (a slice, a concatenation, an f-string) is a plain `str` again: derived text has
to be masked, or carried whole, to leave.
"""

from __future__ import annotations

from typing import Any

_SEAL = object()  # held by bot.masking only: Masker and the store's read-back path


class MaskedText(str):
    """Text the masker produced. `MaskedText("...")` from outside the masker raises TypeError."""

    __slots__ = ()

    def __new__(cls, text: str, seal: object = None) -> MaskedText:
        if seal is not _SEAL:
            raise TypeError("MaskedText is made only by bot.masking.Masker: mask the text instead")
        return super().__new__(cls, text)

    # Immutable like str: a copy is the same value (dataclasses.asdict deep-copies fields).
    def __copy__(self) -> MaskedText:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> MaskedText:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (MaskedText.restored, (str(self),))

    @classmethod
    def restored(cls, text: str) -> MaskedText:
        """Text read back from our own store, which accepted it only as MaskedText."""
        return cls(text, _SEAL)


def seal(text: str) -> MaskedText:
    """For the masker: mark `text` as its output."""
    return MaskedText(text, _SEAL)


class UnmaskedTextError(TypeError):
    """Log-derived text reached an egress without going through the masker."""


def require_masked(value: Any, where: str) -> MaskedText:
    """`value` itself, if it is MaskedText; else UnmaskedTextError naming the egress."""
    if isinstance(value, MaskedText):
        return value
    raise UnmaskedTextError(
        f"{where}: got {type(value).__name__}, not MaskedText: log text must pass through "
        "bot.masking.Masker before it leaves the process"
    )


def require_all_masked(values: Any, where: str) -> list[MaskedText]:
    """Every item of `values` as MaskedText (see require_masked)."""
    return [require_masked(v, where) for v in values]
