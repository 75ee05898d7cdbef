"""National id numbers and payment card numbers: personal data a log prints only by accident.

A training log shows them when a data sample, a validation error or a pasted support thread
quotes a record (`ValueError: could not convert 'SSN 123-45-6789'`, a CSV row in a tokenizer
warning). They identify a person outright, so they go whatever surrounds them.

Shapes, and why they cannot be taken for the numbers a log is full of:
- US Social Security numbers as `AAA-GG-SSSS`, the way every form and record prints them,
  unlabelled; with a label (`SSN: 123456789`, `social security number 123 45 6789`) also
  without dashes. A date is 4-2-2, a phone number 3-3-4, so 3-2-4 with dashes is its own
  shape; numbers the SSA never issues (area 000, 666 or 9xx, group 00, serial 0000) stay.
- IBANs (a bank account, as a payout record or an invoice prints it): the country's two
  letters, two check digits and the account, compact (`DE89370400440532013000`) or in groups of
  four (`DE89 3704 0044 0532 0130 00`), exactly as long as that country's IBANs are and with
  the ISO 13616 check (the number mod 97 is 1), so an upper-case hash or id is not taken.
- Payment card numbers (13-19 digits) whose last digit is the Luhn check digit and whose
  first digits are a card network's (Visa 4, Mastercard 51-55 and 2221-2720, Amex 34/37,
  Discover 6011/65, JCB 35, Diners 36/38): unlabelled only when written in dashed or spaced
  groups of four (Amex 4-6-5), the way people write them, and not inside a longer run of
  numbers (numpy prints an array of 4-digit token ids with single spaces); contiguous digits
  only after a card label (`card`, `credit`, `cc`, `pan`).
- UK National Insurance numbers: two letters (the ones HMRC allocates: never D, F, I, Q, U, V,
  nor O second), six digits and a suffix A to D. Unlabelled when spaced as HMRC prints them
  (`QQ 12 34 56 C`); compact (`QQ123456C`, the shape of many part numbers and ids) only after
  a label (`NINO`, `NI number`, `NI no.`, `national insurance`).
"""

from __future__ import annotations

import re

from bot.masking.edits import Edit

# Line gate: the shapes (ASCII digits only, as gate.py asks) and the labels. `cc` and `pan`
# are in the trigger with what follows them, not anchor words: as bare substrings they are on
# every `accuracy`, `success` and `expand` line of a training log. An IBAN's part asks what
# `_IBAN_RX` needs: no word character before, then 11 more or two spaced groups of 4 (two
# capitals, two digits and any 8 let in botocore's DEBUG lines, their upper-case hex request
# ids and base64 headers: most of such a log went through every regex below).
IDENTITY_TRIGGER = (
    r"[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{4}[ -][0-9]{4,6}[ -][0-9]{4,5}"
    r"|(?:^|[^0-9A-Za-z_/:\n-])[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{11}| [A-Z0-9]{4} [A-Z0-9]{4})"
    r"|(?i:\b(?:cc|pan)(?:[ _-]?n[ou]|[\x22' \t:=#]*[0-9]))"
    r"|[A-Z]{2} [0-9]{2} [0-9]{2} [0-9]{2} [A-D]|(?i:\bni(?:no|[ _-]?(?:number|num|no)))"
)
IDENTITY_WORDS = ("ssn", "social security", "card", "credit", "insurance")

_NOT_AROUND_BEFORE = r"(?<![\w.:/-])(?<![0-9][ ,])"
_NOT_AROUND_AFTER = r"(?![\w/:-]|[.,][0-9]|[ ,][0-9])"

_SSN_RX = re.compile(_NOT_AROUND_BEFORE + r"(?P<v>[0-9]{3}-[0-9]{2}-[0-9]{4})" + _NOT_AROUND_AFTER)
_LABELLED_SSN_RX = re.compile(
    r"(?i)\b(?:ssn|social[ \t]+security(?:[ \t]+(?:number|no\.?|#))?)[\x22']?[ \t]*[:=#]?[ \t]*[\x22']?"
    r"(?P<v>[0-9]{3}[ -]?[0-9]{2}[ -]?[0-9]{4})(?![0-9])"
)
_GROUPED_CARD_RX = re.compile(
    _NOT_AROUND_BEFORE
    + r"(?P<v>[0-9]{4}(?P<sep>[ -])[0-9]{4}(?P=sep)[0-9]{4}(?P=sep)[0-9]{1,7}|3[47][0-9]{2}(?P<asep>[ -])[0-9]{6}(?P=asep)[0-9]{5})"
    + _NOT_AROUND_AFTER
)
_LABELLED_CARD_RX = re.compile(
    r"(?i)\b(?:(?:credit|debit|payment)?[ _-]?card(?:[ _-]?(?:number|no\.?|#))?|cc(?:[ _-]?(?:number|num|no))?|pan)"
    r"[\x22']?[ \t]*[:=#]?[ \t]*[\x22']?(?P<v>[0-9]{13,19})(?![0-9])"
)
_NINO = r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
_SPACED_NINO_RX = re.compile(r"(?<![\w/:-])(?P<v>" + _NINO + r" [0-9]{2} [0-9]{2} [0-9]{2} [A-D])(?![\w/:-])")
_LABELLED_NINO_RX = re.compile(
    r"(?i:\b(?:nino|ni[ _-]?(?:number|num|no\.?)|national[ _-]insurance(?:[ _-]?(?:number|no\.?))?))"
    r"[\x22']?[ \t]*[:=#]?[ \t]*[\x22']?(?P<v>" + _NINO + r" ?[0-9]{2} ?[0-9]{2} ?[0-9]{2} ?[A-D])(?![\w/:-])"
)
_SEPARATORS = re.compile(r"[ -]")
# Each IBAN country's length (ISO 13616 registry), for the countries a log is likely to show.
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AT": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "CH": 21, "CY": 28, "CZ": 24, "DE": 22,
    "DK": 18, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GI": 23, "GL": 18, "GR": 27,
    "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LI": 21,
    "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PT": 25, "QA": 29,
    "RO": 24, "RS": 22, "SA": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TN": 24, "TR": 26, "UA": 29, "XK": 20,
}  # fmt: skip
_IBAN_RX = re.compile(
    r"(?<![\w/:-])(?P<v>[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?))(?![\w/:-]| [A-Z0-9]{1,4}\b)"
)
_CARD_NETWORK_RX = re.compile(r"4|5[1-5]|2(?:22[1-9]|2[3-9][0-9]|[3-6][0-9]{2}|7[01][0-9]|720)|3[47568]|6011|65")


def _ssn_issued(digits: str) -> bool:
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def _luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _is_card(digits: str) -> bool:
    return 13 <= len(digits) <= 19 and _CARD_NETWORK_RX.match(digits) is not None and _luhn_valid(digits)


def _is_iban(compact: str) -> bool:
    if _IBAN_LENGTHS.get(compact[:2]) != len(compact):
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def find_identity_numbers(text: str, edits: list[Edit]) -> None:
    """Mask US Social Security numbers as <SSN-n>, payment card numbers as <CARD-n>, IBANs
    as <IBAN-n> and UK National Insurance numbers as <NINO-n>."""
    for rx in (_LABELLED_NINO_RX, _SPACED_NINO_RX):
        for m in rx.finditer(text):
            # Keyed compact: `QQ 12 34 56 C` and `QQ123456C` are one number, one placeholder.
            edits.append((m.start("v"), m.end("v"), "nino", m.group("v").replace(" ", "")))
    for m in _IBAN_RX.finditer(text):
        compact = m.group("v").replace(" ", "")
        if _is_iban(compact):
            # Keyed compact: the grouped and the compact form are one account, one placeholder.
            edits.append((m.start("v"), m.end("v"), "iban", compact))
    for rx in (_LABELLED_SSN_RX, _SSN_RX):
        for m in rx.finditer(text):
            digits = _SEPARATORS.sub("", m.group("v"))
            if _ssn_issued(digits):
                # Keyed by its digits: `123-45-6789` and `123 45 6789` are one number, one placeholder.
                edits.append((m.start("v"), m.end("v"), "ssn", digits))
    for rx in (_LABELLED_CARD_RX, _GROUPED_CARD_RX):
        for m in rx.finditer(text):
            digits = _SEPARATORS.sub("", m.group("v"))
            if _is_card(digits):
                edits.append((m.start("v"), m.end("v"), "card", digits))
