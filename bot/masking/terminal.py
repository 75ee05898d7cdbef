"""Terminal control sequences are transparent to masking: detectors see the text without them.

Coloured output reaches pastes from CI logs (GitHub Actions keeps ANSI codes in raw logs),
`docker logs` of a container with a TTY, wandb and rich. A colour code glued to a value hides
it from the detectors: `\\x1b[35msk-proj-...` starts with the letter `m` as far as a word
boundary can tell, wandb's `Currently logged in as: \\x1b[33mhfischer\\x1b[0m` puts an escape
where the name should start, and a value parsed up to the next blank takes the reset code with
it (so the same secret gets two placeholders). Copied out of a notebook the escape character is
often lost and `[33mhfischer[0m` remains.

The same holds for a code written out as an escape (`\\u001b[33m` in a notebook's JSON, a repr's
`\\x1b[1m`): Slack shows the text with those taken out too (bot.slack.blocks.esc), so a value
they hid from the detectors would show bare there.

So the sequences are taken out, the clean text is masked, and each sequence is put back where
it stood: after the text before it, or, when that text was replaced, at the end of the
placeholder. Only CSI sequences are taken out (colours, erase-line, cursor moves): their bytes
are digits and punctuation and cannot carry a secret. OSC hyperlinks (`\\x1b]8;;file:///home/
alice/...`) stay in the text, where the detectors see their URL.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from bot.literals import LiteralSet
from bot.masking.placeholders import PLACEHOLDER_RX

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


def _codes_in(text: str) -> re.Pattern[str] | None:
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


def mask_through_terminal_codes(text: str, mask_clean: Callable[[str], str]) -> str:
    """`mask_clean(text)` with terminal control sequences out of the detectors' way."""
    rx = _codes_in(text)
    if rx is None:
        return mask_clean(text)
    clean = rx.sub("", text)
    masked = mask_clean(clean)
    source_lines = text.split("\n")
    masked_lines = masked.split("\n")
    if len(masked_lines) != len(source_lines):  # pragma: no cover - masking keeps every line
        return masked
    for i, line in enumerate(source_lines):
        if "[" in line:
            codes = _codes(rx, line)
            if codes:
                clean_line = rx.sub("", line)
                masked_lines[i] = _restore(clean_line, masked_lines[i], codes)
    return "\n".join(masked_lines)


def _codes(rx: re.Pattern[str], line: str) -> list[tuple[int, str]]:
    """(offset in the line without codes, code) for every code on the line, in order."""
    found: list[tuple[int, str]] = []
    removed = 0
    for m in rx.finditer(line):
        found.append((m.start() - removed, m.group()))
        removed += m.end() - m.start()
    return found


def _blocks(clean: str, masked: str) -> list[tuple[int, int, int]] | None:
    """(clean offset, masked offset, length) of the text masking kept, in order.

    The masked line is the clean one with spans replaced by placeholders (or blanked, for a
    PEM block's body): each piece between placeholders is found in the clean line after the
    previous one. None when a piece is not found (the codes are then dropped).
    """
    blocks: list[tuple[int, int, int]] = []
    cpos = mpos = 0
    for ph in (*PLACEHOLDER_RX.finditer(masked), None):
        end = len(masked) if ph is None else ph.start()
        piece = masked[mpos:end]
        if piece:
            at = clean.find(piece, cpos) if blocks or mpos else (0 if clean.startswith(piece) else -1)
            if ph is None and mpos:
                # The text after the last placeholder ends the line in both.
                at = len(clean) - len(piece) if clean.endswith(piece) and len(clean) - len(piece) >= cpos else -1
            if at < 0:
                return None
            blocks.append((at, mpos, len(piece)))
            cpos = at + len(piece)
        if ph is not None:
            mpos = ph.end()
    blocks.append((len(clean), len(masked), 0))
    return blocks


def _restore(clean: str, masked: str, codes: list[tuple[int, str]]) -> str:
    """Put the codes back into the masked line at the places they held in the clean one."""
    if clean == masked:
        positions = [pos for pos, _ in codes]
    else:
        blocks = _blocks(clean, masked)
        if blocks is None:
            return masked
        starts = [a for a, _, _ in blocks]
        positions = []
        for pos, _ in codes:
            # The last block starting at or before pos: inside it (or at its end) the offset
            # carries over; past its end, pos was in replaced text, and the code goes after the
            # replacement, where the next block starts.
            k = bisect_right(starts, pos) - 1
            a, b, size = blocks[k] if k >= 0 else (0, 0, 0)
            if pos <= a + size:
                positions.append(b + (pos - a))
            else:
                positions.append(blocks[k + 1][1])
    out: list[str] = []
    last = 0
    for (_, code), at in zip(codes, positions, strict=True):
        at = max(at, last)
        out.append(masked[last:at])
        out.append(code)
        last = at
    out.append(masked[last:])
    return "".join(out)
