"""Secrets a person names in a sentence: `I pasted my token <value> earlier`, `the password is <value>`.

A thread says what a value is in words rather than by a key: a possessive or article (or
`with`: an SDK's `Could not authenticate with key '<value>'`), an optional qualifier,
a secret word, then the value (after `is`/`was`, `:` or `=`, or directly).
Only a value with letters and digits mixed, or both cases and a symbol (`fSDkgb.ApaQBmx`), is
taken: `my token expired` names no secret.
"""

from __future__ import annotations

import re

from bot.masking.edits import Edit
from bot.masking.state import LogState
from bot.masking.vendor import PREFIX_TOKEN_HEADS, find_vendor_tokens

_PROSE_SECRET = re.compile(
    r"(?<![\w-])(?:[Mm]y|[Oo]ur|[Tt]he|[Yy]our|[Hh]is|[Hh]er|[Tt]heir|[Aa]n?|[Oo]ld|[Nn]ew|[Ww]ith)[ \t]+"
    r"(?:[A-Za-z&]{2,12}[ \t]+)?(?P<word>token|password|passwd|key|secret|PAT|pat)[ \t]+"
    r"(?:(?:is|was)[ \t]+|[=:][ \t]*)?[`'\"]?(?P<v>[A-Za-z0-9][A-Za-z0-9+/=_.!#%^*@$&~-]{7,199})"
)
# The gate of find_prose_secrets (bot/masking/gate.py): the article, any word, the secret word.
PROSE_SECRET_TRIGGER = r"(?:[Mm]y|[Oo]ur|[Tt]he|[Yy]our|[Hh]is|[Hh]er|[Tt]heir|[Aa]n?|[Oo]ld|[Nn]ew|[Ww]ith)[ \t]+(?:[A-Za-z&]+[ \t]+)?(?:token|passw|key|secret|PAT|pat)"
_TRAIL = "`'\".,;:!?)"
# A lower-case name joined by `_` or `.` is a config key or a parameter, not a secret
# (`the key fp16_master_weights is missing`, `the new key encoder.layer1.weight`).
_IDENTIFIER = re.compile(r"[a-z0-9]+(?:[._][a-z0-9]+)+\Z")
# A key described, not given: `the key is Ed25519-based`, `the new key is RSA4096-only` (a
# named algorithm with its size, then an adjective). Only after `key`: a password can be
# spelled that way (`Winter2024-secure`).
_KEY_ADJECTIVE = re.compile(r"[A-Za-z]{1,10}\d{1,5}(?:-[a-z]{3,12})+\Z")


def _secret_like(value: str) -> bool:
    letters = any(c.isalpha() for c in value)
    if any(c.isdigit() for c in value):
        return letters
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(not c.isalnum() for c in value)


def find_prose_secrets(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask a secret a sentence names, and learn it so it goes wherever it recurs."""
    for m in _PROSE_SECRET.finditer(text):
        value = m.group("v").rstrip(_TRAIL)
        if len(value) < 8 or not _secret_like(value):
            continue
        if value.startswith("<") or "://" in value or value.count(".") > 2 or _IDENTIFIER.match(value):
            continue  # a placeholder, a URL, a dotted version or host, an identifier
        if m.group("word") == "key" and _KEY_ADJECTIVE.match(value):
            continue
        known: list[Edit] = []
        find_vendor_tokens(value, known)
        if known or value.startswith(PREFIX_TOKEN_HEADS):
            continue  # a vendor's key by its prefix (`ntn_...`): its own row names the kind
        kind = "password" if m.group("word").startswith("pass") else "token"
        edits.append((m.start("v"), m.start("v") + len(value), kind, value))
        state.secrets.setdefault(value, kind)


# Codes a label names: a licence server's or a trial's `evaluation code: 7KQ2M9XJ4H`, an
# installer's `Activation code = A44D-LW7H-JH2G`, a service's recovery or backup codes. The
# label word, then `code` (one word with it or apart), then the value: six digits or more, or
# digits and letters, but no lower-case name with a word in it (`evaluation code: gpt4o-mini`
# names the code that evaluated); `exit code: 1`, `access code expired` name none.
CODE_WORDS = (
    "activation", "evaluation", "licence", "license", "registration", "redeem", "redemption", "recovery",
    "backup", "invite", "invitation", "verification", "voucher", "coupon", "promo", "access code",
    "access_code", "access-code", "accesscode",
)  # fmt: skip
_LABELLED_CODE = re.compile(
    r"(?i:(?<![\w-])(?:activation|evaluation|licen[cs]e|registration|redeem|redemption|recovery|backup|invite"
    r"|invitation|verification|voucher|coupon|promo|access)[ \t_-]?codes?)"
    r"(?:[ \t]+(?:is|was)[ \t]+|[ \t]*[:=][ \t]*|[ \t]+)[`'\"]?(?P<v>[A-Za-z0-9][A-Za-z0-9-]{5,63})(?![\w-])"
)
_DIGITS = re.compile(r"[0-9]")
_WORD_PART = re.compile(r"(?:^|-)[a-z]{3,}(?:-|$)")


def _code_like(value: str) -> bool:
    if value.isdigit():
        return len(value) >= 6
    if _DIGITS.search(value) is None:
        return False
    return not (value.islower() and _WORD_PART.search(value))


def find_labelled_codes(text: str, edits: list[Edit]) -> None:
    """Mask the value after a code's label (CODE_WORDS)."""
    for m in _LABELLED_CODE.finditer(text):
        value = m.group("v")
        if _code_like(value):
            edits.append((m.start("v"), m.end("v"), "access-code", value))
