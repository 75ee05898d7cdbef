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
alice/...`) stay in the text, where the detectors see their URL. The forms the codes take are
bot/terminal.py's, shared with the matcher and Slack's rendering.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from bot.masking.placeholders import PLACEHOLDER_RX
from bot.terminal import codes_in


def mask_through_terminal_codes(text: str, mask_clean: Callable[[str], str]) -> str:
    """`mask_clean(text)` with terminal control sequences out of the detectors' way."""
    rx = codes_in(text)
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
