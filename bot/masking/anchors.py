"""One literal scan for every word the secret passes start from.

The key/value, command-line and context passes each start from words (`token`, `pass`,
`mysql`, `wandb`, ...). Finding them with one Hyperscan database (`bot.literals.Words`, the
engine the matcher's prefilter uses too) costs one linear pass instead of one `str.find`
sweep per word.
"""

from __future__ import annotations

from bot.literals import Words, one_byte
from bot.masking.detectors import ANCHOR_WORDS, Hit

# The anchor words of every row of the detectors table. Words found after the first stage
# also gate later stages: replacing values with placeholders never creates one of these
# words, so "absent" stays true.
WORDS: tuple[str, ...] = ANCHOR_WORDS

# Words only ever used as a chunk-level gate (`word in present`), never by position. `]:`
# closes every torchrun `[rank8]:` line prefix, so as a hit it would cost a tuple per line;
# `in` on the text answers the gate in C. No other word can overlap `]` or a leading `:`,
# so leaving it out of the automaton changes no other hit.
GATE_ONLY = ("]:",)
_SCANNED = tuple(w for w in WORDS if w not in GATE_ONLY)

_WORDS = Words(_SCANNED, fixed=True)



def find_anchors(text: str) -> list[Hit]:
    """Every anchor word in `text` but the GATE_ONLY ones, case-insensitively, in text order."""
    # One byte per character: non-ASCII characters become `?`, which no anchor word contains,
    # so byte offsets are character offsets (str.lower could turn one character into two;
    # the engine folds ASCII case itself).
    data = one_byte(text)
    return [(_SCANNED[i], start, end) for i, start, end in _WORDS.find(data)]


def present_words(text: str, hits: list[Hit]) -> set[str]:
    """The anchor words that occur in `text`, GATE_ONLY ones included."""
    present = {word for word, _, _ in hits}
    present.update(word for word in GATE_ONLY if word in text)
    return present
