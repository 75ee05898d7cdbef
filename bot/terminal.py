"""Terminal control sequences in a log: the forms they take, and the text without them.

Coloured output reaches pastes from CI logs (GitHub Actions keeps ANSI codes in raw logs),
`docker logs` of a container with a TTY, wandb, rich, loguru and Ray's actor prefixes; a
notebook's output copied as text loses the escape byte and keeps `[33m...[0m`; a file that
stores output as strings writes the escape out (`\\u001b[33m` in a notebook's JSON, a repr's
`\\x1b[1m`). Every reader of log text that must see it as a terminal shows it uses these: the
matcher (a coloured exception is still the exception), Slack's rendering (bot.slack.blocks.esc)
and the masker (bot.masking.terminal, which takes the codes out of the detectors' way and puts
them back). Only CSI sequences count (colours, erase-line, cursor moves).
"""

from __future__ import annotations

import re

from bot.literals import LiteralSet

# CSI: ESC [ parameters intermediates final byte (ECMA-48).
_CSI = re.compile(r"\x1b\[[0-?]{0,32}[ -/]{0,4}[@-~]")
# SGR codes whose ESC was lost on the way (a notebook's output copied as text): only looked
# for in a text without ESC that holds a bare reset code `[0m`, the mark of such a paste.
# At least one digit: `[ml350.hpc]` is a bracketed host, not an empty code.
_BARE_SGR = re.compile(r"\[\d{1,3}(?:;\d{1,3}){0,4}m")


# CSI sequences written out as escapes, as a file that stores output as strings keeps them: a
# Jupyter notebook's traceback (`"\\u001b[0;31mOutOfMemoryError\\u001b[0m"` in its JSON), a
# Python repr, a shell script's `\\033[31m` or `\\e[31m`; and caret notation, `^[[31m`, as vim,
# `cat -v` and Emacs show ESC, whence it is copied.
_CSI_TAIL = r"\[[0-?]{0,32}[ -/]{0,4}[@-~]"
# `\e` and `\033` also begin a Windows path's folders (`C:\Users\x\e[1]\`, `D:\runs\e[lr=3e-4]\`,
# `\033[seed=1]\`), where any CSI tail would take `\e[1]` or `\e[l` out of the path: after those
# two only a colour code (SGR: numbers, then `m`) is one. `\u001b` and `\x1b` begin hardly any.
_BACKSLASH_CSI = re.compile(r"\\(?:(?:u001[bB]|x1[bB])" + _CSI_TAIL + r"|(?:033|e)" + _BARE_SGR.pattern + ")")
# `^[[:` is a POSIX class after a regex's anchor (`grep -E '^[[:digit:]]+'` in a shell trace), not
# ESC: hardly a terminal sequence starts its parameters with a colon.
_CARET_CSI = re.compile(r"\^\[(?!\[:)" + _CSI_TAIL)
_ESCAPED_CSI = re.compile(f"{_BACKSLASH_CSI.pattern}|{_CARET_CSI.pattern}")
# Either, for masking: a text may mix them (a log that quotes a repr of its own output).
_ANY_CSI = re.compile(f"{_CSI.pattern}|{_ESCAPED_CSI.pattern}")


def _holds_escaped(text: str) -> bool:
    """Does `text` hold a code written out as text? Each form looked for by its own literal
    start: one pattern for both would try every position (five times slower on a log of
    Windows paths)."""
    return (("\\" in text and _BACKSLASH_CSI.search(text) is not None)
            or ("^[[" in text and _CARET_CSI.search(text) is not None))


# What every code, in any form taken out here, holds: ESC, a bare reset, a backslash escape
# or caret notation. One literal scan for the four (`in` swept a piece once per literal: 1.7 ms
# a MB, on the one-byte text the detectors' scans read after it anyway).
_CODE_STARTS = ("\x1b", "[0m", "\\", "^[[")
_CODE_LITERALS = LiteralSet(_CODE_STARTS)


def may_hold_codes(text: str) -> bool:
    """False when `text` holds no code in any form taken out here: the rule. (A line, as the
    matcher asks, is read by `in`: a call into the literal scan costs more than four sweeps of
    a hundred bytes.)"""
    if len(text) < 4096:  # _CODE_STARTS, spelled out: a generator over them costs twice as much
        return "\x1b" in text or "[0m" in text or "\\" in text or "^[[" in text
    return bool(_CODE_LITERALS.present(text))


def without_terminal_codes(text: str) -> str:
    """The text as a terminal shows it, for a surface that cannot (Slack): CSI sequences out,
    written as escapes too, and, in a text whose ESC was lost, the bare colour codes a reset
    `[0m` marks."""
    if _holds_escaped(text):
        text = _ESCAPED_CSI.sub("", text)
    if "\x1b[" in text:
        return _CSI.sub("", text)
    if "[0m" in text:
        return _BARE_SGR.sub("", text)
    return text


def codes_in(text: str) -> re.Pattern[str] | None:
    """The codes to take out of `text` before masking: CSI sequences, real or written as
    escapes; else, in a text whose ESC was lost, bare colour codes; None when it holds none."""
    escaped = _holds_escaped(text)
    if "\x1b[" in text:
        # The alternation is a third slower than _CSI alone: only where both kinds are.
        return _ANY_CSI if escaped else _CSI
    if escaped:
        return _ESCAPED_CSI
    if "[0m" in text:
        return _BARE_SGR
    return None
