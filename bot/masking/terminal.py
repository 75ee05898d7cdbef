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
from collections.abc import Callable
from itertools import compress, count
from operator import ne

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
    clean_lines = clean.split("\n")
    masked_lines = masked.split("\n")
    if len(masked_lines) != len(source_lines):  # pragma: no cover - masking keeps every line
        return masked
    # Codes hold no line end, so a line held codes where it differs from its clean self; of
    # those, one masking left alone is its source line again. Only a line with codes that
    # masking changed is put back piece by piece: the lines are compared in C (`map`), not
    # read code by code in Python (a loguru line holds a dozen codes and is seldom masked).
    for i in compress(count(), map(ne, source_lines, clean_lines)):
        clean_line = clean_lines[i]
        masked_line = masked_lines[i]
        masked_lines[i] = source_lines[i] if masked_line == clean_line else _restore(rx, source_lines[i], clean_line, masked_line)
    return "\n".join(masked_lines)


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


def _restore(rx: re.Pattern[str], source: str, clean: str, masked: str) -> str:
    """Put the codes of the `source` line back into its masked line at the places they held
    in the clean one (the source without its codes)."""
    blocks = _blocks(clean, masked)
    if blocks is None:
        return masked
    # The source line cut at its codes: the code between two parts stands in the clean line
    # at the length of the parts before it. (Cut by the pattern in C: read match by match,
    # the codes cost a loguru log more than masking it.)
    parts = rx.split(source)
    out: list[str] = []
    pos = last = k = 0
    for part, code in zip(parts[:-1], rx.findall(source), strict=True):
        pos += len(part)
        # The last block starting at or before pos (the codes come in order, so the walk only
        # goes on): inside it (or at its end) the offset carries over; past its end, pos was
        # in replaced text, and the code goes after the replacement, where the next block
        # starts. Before the first block, the code goes where that block starts.
        while k < len(blocks) and blocks[k][0] <= pos:
            k += 1
        a, b, size = blocks[k - 1] if k else (0, 0, 0)
        at = b + (pos - a) if pos <= a + size else blocks[k][1]
        at = max(at, last)
        out.append(masked[last:at])
        out.append(code)
        last = at
    out.append(masked[last:])
    return "".join(out)
