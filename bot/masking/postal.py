"""Postal addresses: a street and its house number, where a mail signature, a support ticket or
a shipping note gives one.

The street and number are what lead to a person's door; the postcode, city and country after
them stay (a place many people share, and what a time zone or a data-residency question reads).
Three shapes, each needing the house number and a street-type word, so a log's own capitalised
words and counts are not taken:
- English: the number, the street's name, its type (`221 Baker Street`, `1600 Amphitheatre
  Parkway`, `77 Massachusetts Ave`), then a comma, a unit or the line's end.
- German, Nordic and Dutch: one word ending in the street's type, then the number
  (`Lindenstraße 12a`, `Storgatan 4`, `Keizersgracht 123`).
- Romance languages: the type first (`12 Rue de la Roquette`, `Via Garibaldi 7`,
  `Calle de Alcalá 45`, `Avenida Paulista 1578`).
"""

from __future__ import annotations

import re

from bot.masking.edits import Edit

# A word of a street's name; not a Title Case phrase's small words (`12 Files In Place`).
_CAP = r"(?!(?:In|On|Of|The|To|And|For|At|By|From|With)\b)[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿß'’-]{1,24}\.?"
_EN_TYPES = (
    r"Street|St\.|Avenue|Ave\.?|Road|Rd\.|Boulevard|Blvd\.?|Lane|Drive|Parkway|Pkwy\.?|Court|Terrace|"
    r"Square|Highway|Crescent|Gardens|Way|Place|Close|Mews|Grove|Row|Circle|Trail"
)
# The English form also needs what follows an address and not a metric's or a product's name:
# a comma, the end of the line, a unit (`Suite 4`). `10 Root Mean Square Error`, `1 Google Drive
# folder` stay.
_EN_END = r"(?=[,;)]|\.(?:\s|$)|[ \t]*(?:\r?\n|$)|[ \t]+(?:Suite|Apt|Unit|Floor|#))"
_EN = rf"[0-9]{{1,5}}[A-Z]?(?: {_CAP}){{1,4}} (?:{_EN_TYPES}){_EN_END}"
_ONE_WORD_TYPES = r"straße|strasse|str\.|gasse|allee|platz|gatan|vägen|gata|gracht|straat|veien|chaussee"
_ONE_WORD = rf"[A-ZÄÖÜÅÆØ][a-zäöüßåæø-]{{1,30}}(?:{_ONE_WORD_TYPES}) [0-9]{{1,4}}[a-z]?"
_LEAD_TYPES = r"Rue|Avenue|Boulevard|Allée|Impasse|Quai|Via|Viale|Corso|Piazza|Calle|Avenida|Paseo|Plaza|Rua|Travessa|Carrer"
_PARTICLE = r"(?: (?:de la|de l'|des|du|de|del|della|delle|di|da|do|dos|das))?"
_LEAD = rf"(?P<num>[0-9]{{1,4}}(?: ?bis)?,? )?(?:{_LEAD_TYPES}){_PARTICLE}(?: {_CAP}){{1,3}}(?P<after>,? [0-9]{{1,4}}[a-z]?)?"
_ADDRESS_RX = re.compile(rf"(?<![\w/.-])(?:(?P<en>{_EN})|(?P<one>{_ONE_WORD})|(?P<lead>{_LEAD}))(?![\w-])")

# Line gate: each form's street-type word, as the pattern spells it (case counts: NCCL's
# `via P2P/IPC` on every channel line, `dist.` or `st.` inside code must not open the gate,
# or the row would run on every line of a log). A letter outside ASCII is any byte here.
POSTAL_TRIGGER = (
    r" (?:Street|St\.|Avenue|Ave|Road|Rd\.|Boulevard|Blvd|Lane|Drive|Parkway|Pkwy|Court|Terrace|Square|Highway|Crescent"
    r"|Gardens|Way|Place|Close|Mews|Grove|Row|Circle|Trail)"
    r"|(?:stra.e|strasse|str\.|gasse|allee|platz|gatan|v.gen|gata|gracht|straat|veien|chaussee) [0-9]"
    r"|(?:Rue|Avenue|Boulevard|All.e|Impasse|Quai|Via|Viale|Corso|Piazza|Calle|Avenida|Paseo|Plaza|Rua|Travessa|Carrer) "
)


def find_postal_addresses(text: str, edits: list[Edit]) -> None:
    """Mask a street and house number as <ADDRESS-n>; the postcode and city after it stay."""
    for m in _ADDRESS_RX.finditer(text):
        if m.group("lead") is not None and m.group("num") is None and m.group("after") is None:
            continue  # `Via Garibaldi` without a number names a street, not a door
        value = m.group(0).rstrip(",")
        edits.append((m.start(), m.start() + len(value), "address", value))
