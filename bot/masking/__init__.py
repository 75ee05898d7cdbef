"""Masking at ingress: secrets and personal data out of a log before anything else reads it.

    from bot.masking import mask, Masker, MaskResult

    result = mask(log_text)          # MaskResult(text=..., counts={"hf-token": 1, "ip": 3})
    masker = Masker()                # a log read in pieces (whole lines each)
    for piece in pieces:
        out.write(masker.mask(piece))
    masker.counts

Policy: /work/shared/MASKING.md. Placeholders are typed and numbered per log (`<IP-1>`,
`<HOST-2>`, `<EMAIL-1>`, `<USER-1>`, `<SECRET:hf-token-1>`); the same value always gets the
same placeholder within one log and different values never share one.
"""

from bot.masking.masker import Masker, MaskResult, mask

__all__ = ["MaskResult", "Masker", "mask"]
