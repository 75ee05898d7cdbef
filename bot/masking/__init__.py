"""Masking at the egress: secrets and personal data out of everything that leaves the process.

    from bot.masking import mask, Masker, MaskedText, require_masked

    result = mask(log_text)          # MaskResult(text=MaskedText(...), counts={"hf-token": 1})
    masker = Masker()                # one log: learn from all of it, mask what leaves
    for piece in pieces:
        masker.learn(piece)          # raw bytes: names only (`/home/alice`, NCCL prefix hosts)
    line = masker.mask(evidence)     # MaskedText, with the log's learned names and numbering
    require_masked(line, "store")    # what every egress asks for; a plain str is refused

Policy: docs/MASKING.md (the kinds and what is kept); the detectors are declared in one
table, bot/masking/detectors.py, which the masker, the anchor gate and the tests read. Placeholders are typed and numbered per log (`<IP-1>`,
`<IPV6-1>`, `<HOST-2>`, `<EMAIL-1>`, `<USER-1>`, `<MAC-1>` for MAC addresses and port GUIDs,
`<NAME-1>` for people's names, `<ACCOUNT-1>` for cloud account ids, `<SECRET:hf-token-1>`);
the same value always gets the same placeholder within one log and different values never
share one. What is kept: keys and labels, ARN roles and resources, `brd` addresses, W&B team
entities, Kubernetes label keys, the line's structure (GECOS commas, `Name <address>`).
"""

from bot.masking.masked import MaskedText, UnmaskedTextError, require_all_masked, require_masked
from bot.masking.masker import Masker, MaskResult, mask

__all__ = [
    "MaskResult",
    "MaskedText",
    "Masker",
    "UnmaskedTextError",
    "mask",
    "require_all_masked",
    "require_masked",
]
