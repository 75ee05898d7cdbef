"""People a phrase says stand there, whatever their names: no list has to know them.

    # Written by Aigerim Rostami, 2023          @author Nadia Nurlanova
    Ping from Dmitri Quintero: the eval job died again
    per Bartosz Szymańska's suggestion I lowered the batch size
    Best, Budi Pratama
    joao51 opened this issue on Mar 3 · 12 comments
    Oğuz Aslan approved these changes
    Logged in to hub.acme-ml.io as vanminh-v
    sn: Yılmaz                                  team-lead: Chiamaka Ogunleye
    "authors": [{"name": "Raghunandan Bhattacharya"}],

The phrase (a doc tag, `<verb> by`, `<message> from`, a sign-off, a code host's timeline verb,
an LDAP entry's attribute, a lead's key) says a person is named; the words are taken when they
are written as a name is (capitalised words, particles between) and none is a thing's, a
program's, a model's or an English word's shape (`Written by Mixed Precision`, `Ping from
Grafana Alerting:` and `Shared by Weights & Biases` stay). A login after such a phrase
(`... as vanminh-v`, `joao51 opened this issue`) is taken when no tool or bot is named so.
"""

from __future__ import annotations

import re

from bot.masking.addressed import named_by_shape
from bot.masking.buckets import GIVEN_NAMES
from bot.masking.edits import Edit
from bot.masking.keys import TECHNICAL_USERS, team_like
from bot.masking.names import FULL_NAME, NOT_A_PERSON, PRODUCT_WORDS, take_name, written_as_name
from bot.masking.owners import names_a_tool
from bot.masking.state import LogState, ascii_folded

# What a person does to a file, a message or a ticket, then `by` (git's and CI's own verbs are
# names.py's `_ACTED`): `# Written by ...`, `dashboard shared by ...`.
_DONE = r"(?:[Ww]ritten|[Ss]hared|[Pp]osted|[Ss]ent|[Uu]ploaded|[Cc]ontributed|[Pp]repared|[Ff]iled|[Rr]aised|[Ff]lagged|[Ll]abell?ed|[Aa]nnotated|[Mm]odified|[Ff]ixed)"
# What a person sends: `Ping from ...:`, `Message from ...`, `Heads-up from ...`.
_SENT = r"(?:[Pp]ing|[Mm]essage|[Nn]ote|DM|[Rr]eply|[Ee]-?mail|[Uu]pdate|[Hh]eads[- ]up|[Qq]uestion|[Rr]equest|[Ff]eedback|[Cc]omment|[Rr]eminder|[Ii]nvite)s?"
# A sign-off with its comma, the signer on the same line: `Best, Budi Pratama`.
_SIGN_OFF = r"(?:Best|Regards|Best regards|Kind regards|Warm regards|Many thanks|BR|Cheers|Thanks|Thx)"
# What a person's suggestion or work is called after the possessive: `Bartosz Szymańska's fix`.
_THEIRS = r"(?:suggestion|idea|fix|patch|PR|comment|review|change|changes|branch|notebook|run|runs|sweep|config|script|experiment|repro|advice|point|question|answer|message)"
# Keys of the person who leads or approves, beside names.py's role keys (`owner:`, `assignee:`).
_LEAD_KEYS = r"(?:(?:team|tech|project|eng|research|group)[-_ ]?lead|lead|manager|approver|sponsor|poc|dri|point[-_ ]of[-_ ]contact|escalation|pi)"

def _name_as(group: str) -> str:
    """names.py's FULL_NAME under another group's name (one group a phrase)."""
    return FULL_NAME.replace("?P<name>", f"?P<{group}>", 1)


# A word of the sentence a sign-off closes.
_PROSE_WORD = re.compile(r"(?<!\S)[a-z][a-z'’]+(?!\S)")
# A name ends where its word does (`Al-Farsi`, not `Al-`).
_WHOLE = r"(?![\w'’-])"
_NAMED = re.compile(
    r"(?<![\w@])@author[ \t]+" + _name_as("tag") + _WHOLE
    + r"|\b" + _DONE + r" by:?[ \t]+" + _name_as("done") + _WHOLE
    + r"|(?<![\w-])" + _SENT + r" from[ \t]+" + _name_as("sent") + r"(?=[ \t]*(?:[:,.!;(]|\r?$))"
    + r"|(?<![\w-])(?:[Pp]er|[Aa]s per|[Tt]hanks to|[Aa]ccording to)[ \t]+" + _name_as("per") + r"(?=['’]s\b)"
    + r"|(?<![\w@-])" + _name_as("theirs") + r"['’]s[ \t]+" + _THEIRS + r"\b"
    + r"|^[ \t]*" + _SIGN_OFF + r",[ \t]+" + _name_as("signed") + r"[ \t]*\r?$"
    + r"|(?i:(?<![\w-])[\"']?" + _LEAD_KEYS + r")[\"']?[ \t]*[:=][ \t]*(?P<q>[\"'])?" + _name_as("lead")
    + r"(?(q)(?P=q)|[ \t]*(?:[,;#]|\r?$))"
    # A one-line message signed at its end, after a sentence of three words or more (names.py
    # takes the signer a list knows after fewer: `Epoch 3 — Validation` signs nothing).
    + r"|(?<=\S)[ \t]+(?:--|—|–)[ \t]+" + _name_as("closing") + r"[ \t]*\r?$"
    # People copied in by name one after another, with no comma between (`cc Nadia Nurlanova Juhani Virtanen`).
    + r"|(?<![\w@-])(?:cc|CC|Cc):?[ \t]+" + _name_as("copied") + r"(?=[ \t]*(?:[,.;!]|\r?$))"
    # A list of people under an authors key, each a record with a `name`: a notebook's metadata.
    + r"|(?i:(?<![\w-])[\"']?(?:authors?|maintainers?|contributors?)[\"']?[ \t]*[:=][ \t]*\[?[ \t]*\{[ \t]*[\"']name[\"'][ \t]*:[ \t]*[\"'])"
    + _name_as("listed") + r"[\"']",
    re.M,
)
# An LDAP entry's (LDIF, `ldapsearch`) person attributes: the common name, the surname, GECOS.
# A surname may be one word (`sn: Yılmaz`) or a particle's (`sn: de la Cruz`).
_LDIF_PARTICLES = ("van", "von", "de", "del", "der", "den", "da", "dos", "du", "la", "le", "ter", "bin", "binti", "al")
_LDIF_NAME = re.compile(
    r"^(?:cn|sn|gecos|cn;lang-[a-z]{2}):[ \t]+(?P<name>(?:(?:" + "|".join(_LDIF_PARTICLES) + r")[ \t])*"
    + r"[^\W\d_][^\W\d_'’.-]*(?:['’.-][^\W\d_]+)*(?:[ \t][^\W\d_][^\W\d_'’.-]*(?:['’.-][^\W\d_]+)*){0,4})[ \t]*\r?$",
    re.M,
)
# An LDAP entry's login (`uid: hfischer`), at the line's start as LDIF writes it (a Kubernetes
# object's `uid:` is indented under its metadata, and a UUID).
_LDIF_UID = re.compile(r"^uid:[ \t]+(?P<login>[a-z][a-z0-9._-]{1,31})[ \t]*\r?$", re.M)
_UUID_LIKE = re.compile(r"[0-9a-f]{8}-")
# A code host's timeline names who acted at the line's start, by login or by name (GitHub:
# `joao51 opened this issue on Mar 3`, `Oğuz Aslan approved these changes`, `hfischer wants to
# merge 3 commits into main from hfischer/fix`), after the state badge when copied with it;
# GitLab's usernames may hold `_` and `.` too.
_COMMENTED_WHEN = r"(?= on | \d| [a-z]+ ago|\r?$)"  # (a lookahead: the gate drops it)
_TIMELINE_ACTS = (
    r"(?:opened this (?:issue|pull request)|commented" + _COMMENTED_WHEN + r"|approved these changes|requested changes"
    r"|requested a review|wants to merge|merged \d+ commits?|merged commit|closed this|reopened this|added \d+ commits?"
    r"|pushed \d+ commits?|force-pushed|self-assigned this|left a comment|mentioned this|linked a pull request|reviewed" + _COMMENTED_WHEN + ")"
)
_TIMELINE = re.compile(
    r"^[ \t]*(?:(?:Open|Closed|Merged|Draft)[ \t]+)?(?:@?(?P<login>[A-Za-z0-9](?:[A-Za-z0-9_.]|-(?=[A-Za-z0-9])){0,38})"
    r"|" + FULL_NAME + r")[ \t]+" + _TIMELINE_ACTS + r"(?![\w-])",
    re.M,
)
# `Logged in to <host> as <login>`, with no parenthesis after (people.py reads gh's with it).
_LOGGED_IN_TO = re.compile(r"Logged in to (?:<HOST-\d{1,9}>|[\w.:-]{1,253}) as (?P<login>[A-Za-z0-9][\w.-]{0,38}[A-Za-z0-9_])(?![\w-]|\.\w)")

# The line gate (bot/masking/gate.py): each shape's literal head, ASCII as the gate reads it.
# A name opens with a capital (`[A-Z?]`, `?` for an accented one as the gate reads it): a trigger
# without it fired on every `samples per second` and `steps run`, a fifth of an env dump's lines.
_CAPITAL = r"[ \t]+[A-Z?]"
# Not inside a longer word, as `(?<![\w-])` says (the gate has no look-behind): `api=` holds `pi=`.
_WORD_START = r"(?:^|[^A-Za-z0-9_-])"
PHRASED_TRIGGER = (
    r"@author" + _CAPITAL + "|" + _DONE + r" by:?" + _CAPITAL + "|" + _SENT + r" from" + _CAPITAL
    + r"|(?:[Pp]er|[Tt]hanks to|[Aa]ccording to)" + _CAPITAL + r".*['?]s\b"
    + r"|['?]s[ \t]+" + _THEIRS + r"|^[ \t]*" + _SIGN_OFF + r",[ \t]|[ \t](?:--|\?)[ \t]+[A-Z?]"
    + r"|(?:^|[^A-Za-z0-9_@-])(?:cc|CC|Cc):?" + _CAPITAL
    + r"|" + _WORD_START + r"[\x22']?(?i:" + _LEAD_KEYS + r")[\x22']?[ \t]*[:=]"
    + r"|(?i:authors?|maintainers?|contributors?)[\x22']?[ \t]*[:=][ \t]*\[?[ \t]*\{"
    + r"|^(?:cn|sn|gecos|uid|cn;lang-[a-z]{2}):[ \t]|[ \t]" + _TIMELINE_ACTS.replace(_COMMENTED_WHEN, "") + r"|Logged in to "
)


def person_by_shape(name: str) -> bool:
    """Words written as a person's name is, none a product's (see above). After a given name
    the list knows, a family name may end as an English word does (`Dewi Nasution`)."""
    words = name.split()
    if any(w.lower() in PRODUCT_WORDS for w in words):
        return False
    if len(words) > 1 and ascii_folded(words[0]) in GIVEN_NAMES:
        return all(written_as_name(w) and w.lower() not in NOT_A_PERSON and not names_a_tool(w.lower()) for w in words[1:])
    return named_by_shape(name)


def login_by_phrase(login: str) -> bool:
    """A login a phrase names, unless it is a tool's, a bot's or a team's."""
    lowered = login.lower()
    return not (lowered in TECHNICAL_USERS or names_a_tool(lowered) or team_like(lowered) or lowered.endswith(("bot", "[bot]")))


def find_phrased_people(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the names and logins a phrase says are a person's."""
    for m in _NAMED.finditer(text):
        group = next(g for g in ("tag", "done", "sent", "per", "theirs", "signed", "lead", "listed", "closing", "copied") if m.group(g))
        if group == "closing" and len(_PROSE_WORD.findall(text, text.rfind("\n", 0, m.start()) + 1, m.start())) < 3:
            continue
        if group == "copied" and len(m.group(group).split()) < 3:
            continue  # two words are names.py's greeting's
        if person_by_shape(m.group(group)):
            take_name(text, m.start(group), m.group(group), edits, state)
    for m in _LDIF_NAME.finditer(text):
        # (Capitalised as a person's entry is; a group's is often not: `cn: ml-team`.)
        if all(w[0].isupper() for w in m.group("name").split() if w.lower() not in _LDIF_PARTICLES) and person_by_shape(m.group("name")):
            take_name(text, m.start("name"), m.group("name"), edits, state)
    for m in _LDIF_UID.finditer(text):
        if login_by_phrase(m.group("login")) and _UUID_LIKE.match(m.group("login")) is None:
            edits.append((m.start("login"), m.end("login"), "user", m.group("login")))
            state.learn_user(m.group("login"))
    for m in _TIMELINE.finditer(text):
        if m.group("login"):
            if login_by_phrase(m.group("login")):
                edits.append((m.start("login"), m.end("login"), "user", m.group("login")))
                state.learn_user(m.group("login"))
        elif person_by_shape(m.group("name")):
            take_name(text, m.start("name"), m.group("name"), edits, state)
    for m in _LOGGED_IN_TO.finditer(text):
        if login_by_phrase(m.group("login")):
            edits.append((m.start("login"), m.end("login"), "user", m.group("login")))
            state.learn_user(m.group("login"))
