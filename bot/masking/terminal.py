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
from itertools import accumulate, compress, count
from operator import ne

from bot.masking.placeholders import PLACEHOLDER_RX
from bot.terminal import codes_in

# The code patterns of bot.terminal and our placeholders, each in a group: a split keeps them.
_CUTS: dict[str, re.Pattern[str]] = {}
_PLACEHOLDER_CUT = re.compile(f"({PLACEHOLDER_RX.pattern})")


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
    changed: list[int] = []
    for i in compress(count(), map(ne, source_lines, clean_lines)):
        if masked_lines[i] == clean_lines[i]:
            masked_lines[i] = source_lines[i]
        else:
            changed.append(i)
    if changed:
        # The changed lines are put back together, as one text of those lines: a Ray log masks
        # the address in every line's coloured prefix, and one call per line cost more than
        # the work. Neither codes nor placeholders hold a line end, so the lines come back
        # one for one; a line whose pieces are not found is put back alone.
        joined = _restore(
            rx,
            "\n".join([source_lines[i] for i in changed]),
            "\n".join([clean_lines[i] for i in changed]),
            "\n".join([masked_lines[i] for i in changed]),
        )
        if joined is not None:
            for i, line in zip(changed, joined.split("\n"), strict=True):
                masked_lines[i] = line
        else:
            for i in changed:
                line = _restore(rx, source_lines[i], clean_lines[i], masked_lines[i])
                if line is not None:
                    masked_lines[i] = line
    return "\n".join(masked_lines)


def _restore(rx: re.Pattern[str], source: str, clean: str, masked: str) -> str | None:
    """Put the codes of the `source` line (or lines, joined) back into its masked line at the
    places they held in the clean one (the source without its codes).

    The masked line is the clean one with spans replaced by placeholders (or blanked, for a
    PEM block's body): each piece between placeholders is found in the clean line after the
    previous one (the first starts the line in both, the last ends it). A code in a kept piece
    (or at its end) keeps its offset in it; a code in replaced text goes after the replacement,
    where the next piece starts. None when a piece is not found (its caller drops the codes).
    """
    # The source line cut at its codes: a code stands in the clean line at the length of the
    # parts before it. (Cut by the patterns in C, the masked line too, one split each whose
    # group keeps what it cuts at: text, code, text, ... Read match by match, a Ray log's
    # codes cost a third of masking it.)
    cut = _CUTS.get(rx.pattern)
    if cut is None:
        cut = _CUTS[rx.pattern] = re.compile(f"({rx.pattern})")
    parts = cut.split(source)
    codes = parts[1::2]
    offsets = list(accumulate(map(len, parts[0:-1:2])))
    offsets.append(len(clean) + 1)  # past every piece: ends the loop over codes below
    parts = _PLACEHOLDER_CUT.split(masked)
    pieces = parts[0::2]
    placeholders = parts[1::2]
    placeholders.append("")
    out: list[str] = []
    append = out.append
    i = last = cpos = mpos = 0
    # The kept piece before (clean offset, masked offset, end in the clean text): the line's
    # start until one is found.
    ka = kb = kend = 0
    final = len(pieces) - 1
    find = clean.find
    for j, piece in enumerate(pieces):
        if not piece:
            mpos += len(placeholders[j])
            continue
        size = len(piece)
        if not j:
            at = 0 if clean.startswith(piece) else -1
        elif j == final:
            at = len(clean) - size
            if at < cpos or not clean.endswith(piece):
                at = -1
        else:
            at = find(piece, cpos)
        if at < 0:
            return None
        # The codes before this piece: in the one before (or at its end), or in replaced text.
        while offsets[i] < at:
            offset = offsets[i]
            place = kb + offset - ka if offset <= kend else mpos
            if place > last:
                append(masked[last:place])
                last = place
            append(codes[i])
            i += 1
        ka, kb = at, mpos
        cpos = kend = at + size
        mpos += size + len(placeholders[j])
    # The lines' ends: the codes after the last piece's go by it.
    mpos = len(masked)
    for offset, code in zip(offsets[i:-1], codes[i:], strict=True):
        place = kb + offset - ka if offset <= kend else mpos
        if place > last:
            append(masked[last:place])
            last = place
        append(code)
    append(masked[last:])
    return "".join(out)
