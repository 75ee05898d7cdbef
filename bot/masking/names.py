"""People's names: git trailers, mail headers, GECOS fields, finger, pasted chat threads.

A name is masked as `<NAME-n>` and the line keeps its structure: `Author: <NAME-1> <<EMAIL-1>>`,
`hfischer:x:1001:1001:<NAME-1>,,,:/home/<USER-1>:/bin/bash`. A name found once is learned
and masked wherever it recurs in the log (`Hannah Fischer` in a mail body after the header).

Each shape is a row of `_SHAPES` (a literal the line must hold, a pattern with a `name`
group); the `Name <address>` shape is found from its address, so it covers `Author:`,
`Signed-off-by:`, `Co-authored-by:`, `From:`/`To:`/`Cc:` and any other trailer at once.
"""

from __future__ import annotations

import re

import regex

from bot.literals import LiteralSet
from bot.masking.buckets import GIVEN_NAMES
from bot.masking.edits import Edit
from bot.masking.keys import TECHNICAL_USERS, team_like
from bot.masking.lines import NEXT_LINE, LinePattern, annotated_values
from bot.masking.people import NATIONAL_PHONE_TRIGGER, NOT_MENTIONS
from bot.masking.state import CJK_LETTER, LogState, ascii_folded
from bot.masking.surnames import FAMILY_NAMES

# The keys that hold a person's name; each holds the anchor word `_name` or `user.name`.
_KEY_NAME_LITERALS = ("AUTHOR_NAME", "author_name", "COMMITTER_NAME", "committer_name", "user.name", "GITLAB_USER_NAME")

# Keys of a person's given, family or display name (JSON, YAML, env), spelled as the tools do.
_PERSON_KEY_LITERALS = ("givenName", "surname", "displayName", "given_name", "family_name", "first_name", "last_name",
                        "full_name", "display_name", "real_name", "realName", "fullName")  # fmt: skip

# One word of a name: a letter, then letters, apostrophes, dots and hyphens (O'Brien, J.,
# Jean-Luc, Müller).
_WORD = r"[^\W\d_][\w'’.-]{0,40}"
# Lowercase words that belong inside a name (`Ludwig van Beethoven`, `Ana de la Cruz`).
_PARTICLES = frozenset(("van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "la", "le", "bin", "al", "ter", "y",
                        "dos", "das", "do", "des", "ten", "zu", "los", "las", "ibn", "bint", "binti", "vom", "zum", "zur", "dei", "degli"))  # fmt: skip
# A capital that opens a word of a name, accented ones too (`Ó Súilleabháin`, `Łukasz`, `Øvergaard`):
# Latin-1's capitals and Latin Extended-A (its small letters are turned away by `_plausible`),
# and Greek and Cyrillic capitals: `owner: Νίκος Παπαδόπουλος`, `Дмитрий Иванов` are names too.
# Vietnamese letters too (Latin Extended Additional, `ơ`/`ư`): `Thảo Nguyễn`, `Hương Lê`.
_CAP = r"[A-ZÀ-ÖØ-ÞĀ-žƠƯẠ-ỸΆΈ-ΫЀ-Я]"
# The letters after it in a capitalised word: small letters, accented ones too (`Gráinne`,
# `Wiśniewska`, `Παπαδόπουλος`, `Иванов`), apostrophes and hyphens.
_LOW = r"[a-zß-öø-ÿĀ-žơưạ-ỹά-ώа-џ'’-]"
# A family name's word: capitalised again after an apostrophe or a hyphen (`O'Sullivan`, `El-Amin`).
_FAMILY_WORD = _CAP + r"(?:" + _LOW + r"|(?<=['’-])" + _CAP + r"){1,40}"
_PARTICLE_RX = "|".join(sorted(_PARTICLES, key=len, reverse=True))
# A name written in Chinese, Japanese or Korean characters (`李雷`, `田中美咲`, `김민준`): no
# capital, no blank between family and given name; two to five characters stand for a full
# name, one or two for a given name a greeting uses (`Hi 芳,`).
_CJK = CJK_LETTER
# (An Irish family name opens with a short word written capitalised: `Tomás Ó Briain`, `Aoife Ní Bhriain`.)
_IRISH_PARTICLE = r"(?:Ó|Ní|Nic|Uí|Ua|Mac)"
# A signature's first line puts the name before the sender's title, set off by bars:
# `Hannah Fischer | PhD Candidate | Machine Learning Group`.
_TITLE_WORDS = (r"(?:PhD|Ph\.D\.|Doctoral|Postdoc|Postdoctoral|Research|Senior|Staff|Principal|Lead|Student|Professor|Prof\.|"
                r"Engineer|Scientist|Intern|Head|Director|Manager|Software|ML|Machine|Data|Associate|Assistant|MSc|Master|Visiting)\b")
# (Found by the bar and the title's word: a table's ` | ` alone costs every Tune status table a scan.)
_SIGNATURE_LITERALS = tuple(
    f" | {w}"
    for w in ("PhD", "Ph.D.", "Doctoral", "Postdoc", "Research", "Senior", "Staff", "Principal", "Lead", "Student", "Professor",
              "Prof.", "Engineer", "Scientist", "Intern", "Head", "Director", "Manager", "Software", "ML", "Machine", "Data",
              "Associate", "Assistant", "MSc", "Master", "Visiting")
)  # fmt: skip
_SIGNATURE_NAME = (
    r"(?:" + _CAP + _LOW + r"{1,30}(?:[ \t](?:" + _IRISH_PARTICLE + r"[ \t])?" + _FAMILY_WORD + r"){1,3}|" + _CJK + r"{2,5})"
)
# Senders and authors that are services, not people.
_NOT_PEOPLE = frozenset(
    (
        "github", "gitlab", "github actions", "dependabot", "renovate", "jenkins", "slurm", "root",
        "noreply", "no-reply", "mailer-daemon", "cron daemon", "cron", "admin", "bot", "ci",
        "buildkite", "the", "support", "hpc support", "weights & biases", "hugging face",
        "not committed yet", "dependabot[bot]", "github-actions[bot]", "renovate[bot]",
        # git blame --porcelain's address lines: `author-mail <hannah@acme.io>`.
        "author-mail", "committer-mail",
    )
)

# `Hannah Fischer <hannah@acme.com>` after the e-mail pass: `Hannah Fischer <<EMAIL-1>>`, or
# an address the e-mail pass kept (`GitHub <noreply@github.com>`).
# Found from the `<` (a literal scan); the blank before it is checked after.
_ADDRESS = re.compile(r"<(?<=[ \t]<)(?:<EMAIL-\d{1,9}>|[^\s<>@]{1,64}@[^\s<>]{1,255})>")
_NAME_BEFORE = regex.compile(r"(?r)(?<![\w@.])\"?(?P<name>" + _WORD + r"(?:[ \t]" + _WORD + r"){0,5})\"?\Z")

# A Slack header's clock ends its line: `10:42 AM`, `[10:42 AM]`.
_CHAT_LITERALS = ("AM\n", "PM\n", "am\n", "pm\n", "AM\r", "PM\r", "AM]", "PM]", "am]", "pm]")
_TEAMS_LITERALS = ("AM] ", "PM] ", "am] ", "pm] ")
_EVENT_WORDS = frozenset(
    ("job", "jobs", "run", "training", "build", "deploy", "deployment", "alert", "status", "update", "report",
     "failed", "failure", "error", "errors", "warning", "started", "finished", "completed", "resumed", "stopped",
     "done", "success", "succeeded", "summary", "info", "notice", "critical", "node", "cluster", "checkpoint")
)  # fmt: skip
_CLOSING_LITERALS = ("Cheers", "Thanks", "Thank you", "egards", "Best", "the best")
# Capitalised words after a greeting that greet nobody (`Thanks All`, `Hi Team`, `cc Infra`).
_NOT_GREETED = frozenset(
    ("all", "team", "everyone", "everybody", "folks", "guys", "there", "again", "so", "much", "for", "you", "both",
     "in", "me", "us", "the", "anyone", "someone", "infra", "ops", "support", "and", "but", "this", "that", "what",
     "it", "we", "they", "a", "an", "to", "please", "ok", "okay", "yes", "no", "sir", "madam", "world", "google")
)  # fmt: skip
# (literals of which the text must hold one, pattern with a `name` group, optional `user` group)
_SHAPES: list[tuple[tuple[str, ...], re.Pattern[str] | LinePattern]] = [
    # getent passwd / /etc/passwd: user:x:uid:gid:GECOS:home:shell (GECOS: name,room,phone,...);
    # SSSD, NIS and LDAP rows show `*` where the password was (`hfischer:*:1868401105:...`).
    ((":x:", ":*:"), LinePattern(
        r"[ \t]*(?P<user>[^\W\d][\w.-]{0,31}):[x*!]?:(?P<uid>\d{1,10}):\d{1,10}:"
        r"(?P<name>[^:,\n]{1,128})(?P<rest>,[^:\n]{0,128})?:/[^:\n]{0,256}:[^:\n]{0,256}$",
        re.M,
    )),
    # finger: `Login: hfischer          Name: Hannah Fischer`
    (("Name: ",), re.compile(r"Login:[ \t]+(?P<user>[a-z_][a-z0-9_.-]{0,31})[ \t]+Name:[ \t]+(?P<name>[^\n]{1,128}?)[ \t]*$", re.M)),
    # GIT_AUTHOR_NAME="Hannah Fischer", git config user.name "Hannah Fischer", author_name: ...,
    # GitLab CI's predefined GITLAB_USER_NAME (the pipeline's triggering user's full name).
    (_KEY_NAME_LITERALS, re.compile(
        r"(?i:\b(?:git_)?(?:author|committer)_name|\buser\.name|\bgitlab_user_name)[\"']?(?:[ \t]*[=:][ \t]*|[ \t]+)(?P<q>[\"']?)"
        # (An apostrophe between letters is the name's: `user.name=Ciarán O'Sullivan`.)
        r"(?P<name>[^\W\d_](?:[^\"'\n=]|(?<=[^\W\d_])'(?=[^\W\d_])){0,80}?)(?P=q)[ \t]*(?=[\",;]|'(?![^\W\d_])|\r?$)",
        re.M,
    )),
    # `git config user.name` asked at a prompt prints the name alone on the next line.
    (("user.name",), LinePattern(
        r"[^\n]{0,64}[$#%>] git config (?:--global |--local |--system |--get )?user\.name[ \t]*" + NEXT_LINE
        + r"(?P<name>[^\W\d_][^\"'\n=<>]{0,80}?)[ \t]*\r?$",
        re.M,
    )),
    # A directory's or an identity provider's name fields: Microsoft Graph's user object as
    # `az ad signed-in-user show` prints it ("givenName", "surname", "displayName"), OIDC
    # claims (given_name, family_name), `first_name:` / `last_name:` in a config or a record.
    (_PERSON_KEY_LITERALS, re.compile(
        r"(?<![\w-])[\"']?(?:givenName|surname|displayName|realName|fullName|(?:given|family|first|last|full|display|real)_name)[\"']?[ \t]*[=:][ \t]*"
        r"(?P<quote>[\"']?)(?P<name>[^\W\d_][^\"'\n=,;{}]{0,80}?)(?P=quote)[ \t]*(?=[,;}]|\r?$)",
        re.M,
    )),
    # Pasted chat: `@Hannah Fischer can you look`, Slack's `Hannah Fischer  10:42 AM` header.
    # (Four words for a Spanish name: `@Juan Carlos Pérez Gómez`.)
    # (A family name's particles too: `@Marloes von Falkenhausen`.)
    (("@",), re.compile(r"@(?<![\w@.<]@)(?P<name>" + _CAP + r"[\w'’-]{1,40}(?:[ \t](?:" + _CAP + r"[\w'’-]{1,40}|(?:" + _PARTICLE_RX + r")(?=[ \t](?:(?:" + _PARTICLE_RX + r")[ \t])?" + _CAP + r"))){1,4})(?![\w'’-])")),
    # git blame: `^025441e (Hannah Fischer 2026-12-04 03:05:28 +0000 1) import torch`, with
    # `-f` the file before the parenthesis; names are padded to the widest author.
    # These rows hold nothing but the name where it stands (`(?P<whole>)`): a name that is not
    # a name whole (`Hannah Fischer torch.OutOfMemoryError ... GiB`) is not taken in part.
    ((":",), LinePattern(
        r"\^?[0-9a-f]{7,40}(?: [^\s()]{1,256})? \((?P<whole>)(?P<name>[^\W\d_][^()\n]{0,127}?) {1,128}"
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} {1,8}\d{1,7}\)",
        # (From the clock's last colon: a gate from ` (` backtracked over every parenthesis.)
        gate=r":\d\d [+-]\d{4} {1,8}\d{1,7}\)",
    )),
    # git blame --porcelain (and --line-porcelain): `author Hannah Fischer` above `author-mail <...>`,
    # `committer ...` above `committer-mail`.
    (("author-mail", "committer-mail"), LinePattern(
        r"[ \t]*(?P<role>author|committer) (?P<whole>)(?P<name>[^\W\d_][^\n<>]{0,127}?)[ \t]*\r?\n[ \t]*(?P=role)-mail ", re.M,
        gate=r"(?:author|committer)-mail ",
    )),
    # git shortlog: `Hannah Fischer (12):` above its indented subjects; `-s`: `    42\tHannah Fischer`.
    (("):",), LinePattern(r"(?P<whole>)(?P<name>[^\W\d_][^()\n:]{0,127}?) \(\d{1,7}\):\r?\n {6}\S", gate=r" \(\d{1,7}\):\r?\n")),
    (("\t",), LinePattern(r" {0,9}\d{1,9}\t(?P<whole>)(?P<name>[^\W\d_][^\t\n<>]{0,127}?)(?= <|\r?$)", re.M)),
    # Microsoft Teams copies a message as `[10:42 AM] Hannah Fischer` (or `Fischer, Hannah`)
    # above its text.
    # (Copied with its date too: `[12/4/2026 10:41 AM] Brandt, Lukas:`.)
    (_TEAMS_LITERALS, LinePattern(
        r"[ \t]*\[(?:\d{1,2}/\d{1,2}/\d{2,4},?[ \t])?\d{1,2}:\d{2}[ \t\u202f]?[AaPp][Mm]\][ \t]+"
        # (A family name's particles too: `Bram ter Horst`, `dos Santos, Rodrigo`.)
        r"(?P<name>(?:(?:" + _PARTICLE_RX + r")[ \t])?" + _FAMILY_WORD + r"(?:,?[ \t](?:" + _FAMILY_WORD + r"|" + _CAP + r"|(?:" + _PARTICLE_RX + r")(?=[ \t]" + _CAP + r"))){1,4}):?[ \t]*\r?$",
        re.M,
    )),
    # A mail's sender as Outlook and Exchange copy it, the display name alone on its header
    # line: `From: Hope Tuilagi` (or the directory's `From: Tuilagi, Hope`) above `Sent: ...`.
    (("From: ",), LinePattern(
        r"[ \t]*From:[ \t]+(?P<whole>)(?P<mailfrom>)(?P<name>" + _CAP + _LOW + r"{1,40},?(?:[ \t]" + _CAP + _LOW + r"{0,40}){1,3})[ \t]*\r?$",
        re.M,
    )),
    # A git trailer naming a person without an address: `Reviewed-by: Omar Haddad`.
    (("-by:",), LinePattern(
        r"[ \t]*(?:Signed-off|Reviewed|Acked|Tested|Reported|Suggested|Co-authored|Co-developed|Helped|Approved|Requested)-by:"
        r"[ \t]+(?P<whole>)(?P<name>" + _CAP + r"[\w'’.-]{1,40}(?:[ \t]" + _CAP + r"[\w'’.-]{0,40}){1,3})[ \t]*\r?$",
        re.M,
    )),
    (_SIGNATURE_LITERALS, LinePattern(
        r"[ \t]*(?P<whole>)(?P<name>" + _SIGNATURE_NAME + r")[ \t]+\|[ \t]+" + _TITLE_WORDS,
        gate=r"[ \t]\|[ \t]+" + _TITLE_WORDS,
    )),
    # A closing word above the sender's name ends a message in a thread: `Cheers,` / `Hannah Fischer`.
    (_CLOSING_LITERALS, LinePattern(
        # (`Best` alone only with its comma: `Best` is a word a log prints on a line.)
        r"[ \t]*(?:(?:Cheers|Thanks|Thank you|Many thanks|Best regards|Kind regards|Regards|Warm regards)[,!.]?|(?:Best|Best wishes|All the best)[,!])[ \t]*\r?\n"
        # (An Irish family name opens with a one-letter word: `Gráinne Ó Súilleabháin`.)
        r"[ \t]*(?P<whole>)(?P<name>" + _CAP + _LOW + r"{1,30}(?:[ \t]" + _CAP + _LOW + r"{0,40}){0,3}|" + _CJK + r"{2,5})[ \t]*\r?$",
        re.M,
        gate=r"(?:Cheers|Thanks|Thank you|regards|Regards|Best|wishes|the best)[,!.]?[ \t]*\r?\n[ \t]*(?:" + _CAP + _LOW + "|" + _CJK + ")",
    )),
    (_CHAT_LITERALS, LinePattern(
        # Family names in several words ride along: `Ana de la Cruz`, `Rafael Ó Súilleabháin`.
        # A directory's `Family, Given` order too (`Fischer, Hannah  10:41 AM`), as Teams copies it.
        r"[ \t]*(?P<name>" + _CAP + r"[\w'’.-]{1,40}(?:,?[ \t](?:" + _CAP + r"[\w'’.-]{0,40}|(?:" + _PARTICLE_RX + r")(?=[ \t]))){1,4}"
        r"|" + _CJK + r"{2,5})"
        # Pronouns and a status emoji may sit between the name and the clock:
        # `Hannah Fischer (she/her)  :palm_tree: 10:41 AM`.
        r"(?:[ \t]+\([^()\n]{1,20}\))?(?:[ \t]+:[a-z0-9_+-]{1,40}:)?[ \t]{1,8}(?:\[?\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[AaPp][Mm])?\]?)[ \t]*$",
        re.M,
    )),
]  # fmt: skip
# The literals `find_names` tests, looked for in one scan (the eleven `in` sweeps cost more
# than the shapes' own scans on a log that holds none). The chat and Teams clocks are decided
# by `present` alone; a key of a name is tested here too when `present` holds `_name`.
_LITERALS = LiteralSet(
    literal for literals, _ in _SHAPES if literals not in (_CHAT_LITERALS, _TEAMS_LITERALS) for literal in literals
)
# Learning sees the lines that can teach a name: these words, and `@`.
# Learning also reads `git shortlog -s` rows (`    42\tHannah Fischer`), by teaching-only words
# (bot/masking/masker.py) that the per-piece anchor scan does not pay for.
SHORTLOG_WORDS = tuple(f"{d}\t" for d in range(10))
_CLOCK_WORDS = (" am\n", " pm\n", " am\r", " pm\r", " am]", " pm]")
NAME_WORDS = ("author:", "-by:", "_name", "user.name", "from:", "login:", ":x:", ":*:", "givenname", "surname", "displayname", *_CLOCK_WORDS)


# A word that makes a display name a system's, not a person's (`Slurm Workload Manager`).
_SYSTEM_WORDS = frozenset(
    ("manager", "workload", "daemon", "service", "system", "notifications", "notification", "alerts", "alert",
     "bot", "team", "support", "admin", "administrator", "scheduler", "monitor", "robot", "noreply", "mailer",
     # Distributions' and projects' maintainers (`Maintainer: Ubuntu Developers <...>` in `apt show`).
     "developers", "maintainers", "contributors", "authors", "foundation", "community",
     # Bodies and systems that approve or review: `Approved by Change Advisory Board`.
     "board", "committee", "council", "integration", "pipeline", "automation")
)  # fmt: skip


# Words of a model's, a product's or a company's name, and of a directory's groups and service
# accounts, that no person's name is made of (`— Mixtral Instruct`, `thanks Claude Sonnet`,
# `displayName: Build Agent`, `cn: Domain Users`). (Not a model's family that is a given name
# too: `Claude`, `Gemma`, `Phi` sign messages.)
PRODUCT_WORDS = frozenset(
    ("mistral", "mixtral", "llama", "gemini", "qwen", "sonnet", "opus", "haiku", "instruct", "turbo", "large", "guard",
     "pro", "flash", "ultra", "mini", "nano", "tesla", "quadro", "geforce", "rtx", "titan", "hugging", "face",
     "lightning", "diffusion", "stable", "corporation", "agent", "build", "runner", "copilot", "chat", "assistant",
     "coder", "embed", "domain", "users", "admins", "group", "groups", "account", "accounts", "service", "studio",
     "overflow", "cloud", "hub", "spaces", "endpoints")
)  # fmt: skip

# The capitals a name has inside: after an apostrophe or a hyphen (`O'Neill`, `Müller-Lüdenscheidt`)
# and after a prefix (`McCarthy`, `MacLeod`, `DeShawn`, `LaToya`); a program's camel case
# (`PyTorch`, `MergeBot`) is none of these.
_NAME_PARTS = re.compile(r"['’-]|" + "|".join(f"(?<=^{p})(?=[A-Z])" for p in ("Mc", "Mac", "De", "Di", "Da", "La", "Le", "Du")))


def written_as_name(word: str) -> bool:
    """A word capitalised as a name's is, not as a program's (see above)."""
    # (No capital after the first, rather than small letters only: Arabic's have no case.)
    return not any(c.isupper() for part in _NAME_PARTS.split(word) for c in part[1:])


# A system word run into a product's name (`Prometheus Alertmanager <alertmanager@...>`,
# `Kube Scheduler`, `Node Exporter`): no family name ends so.
_SYSTEM_ENDS = ("manager", "monitor", "notifier", "exporter", "scheduler", "daemon")


# Words that open a sentence before an address and name nobody.
_PROSE_OPENERS = frozenset(
    ("contact", "email", "e-mail", "mail", "ask", "ping", "cc", "write", "reply", "please", "thanks", "hi", "hello",
     "dear", "to", "from", "or", "and", "via", "see", "am", "pm")
)  # fmt: skip


def _capital(word: str) -> bool:
    """A word opening with a capital, or with a letter of a script without case (Arabic,
    Hebrew, Devanagari, Thai): `محمد العتيبي` is written as a name is."""
    first = word[0]
    return first.isupper() or (first.isalpha() and not first.islower())


def _plausible(name: str) -> str:
    """The name with leading prose words dropped, or "" when nothing name-like is left."""
    words = name.split()
    if len(words) > 1 and not any(_capital(w) for w in words):
        return ""  # prose before an address (`contact the admin team <ops@...>`)
    # `please ask Hannah Fischer <...>`: a name starts at a capitalised word, and not at a
    # verb or greeting opening the sentence (`Contact <ops@acme.io>`, `Ping Hannah <...>`).
    while words and ((not _capital(words[0]) and len(words) > 1) or words[0].lower() in _PROSE_OPENERS):
        words.pop(0)
    # (A particle is written small; capitalised it is a family name: Vietnamese `Khánh Do`, `Hương Le`.)
    while len(words) > 1 and words[-1] in _PARTICLES:
        words.pop()
    if any(not _capital(w) and w.lower() not in _PARTICLES for w in words[1:]):
        # A lowercase word inside: prose (`on behalf of Hannah`); keep the capitalised tail.
        i = max(i for i, w in enumerate(words) if not _capital(w) and w.lower() not in _PARTICLES)
        words = words[i + 1 :]
    full = " ".join(words)
    if not words or full.lower() in _NOT_PEOPLE or full.lower() in TECHNICAL_USERS:
        return ""
    if len(words) > 1 and any(w.lower() in _SYSTEM_WORDS or w.lower().endswith(_SYSTEM_ENDS) for w in words):
        return ""
    if len(words) > 1 and any(w.lower() in PRODUCT_WORDS or not written_as_name(w) for w in words if _capital(w)):
        return ""  # `PyTorch MergeBot`, `Mixtral Instruct`, `Build Agent`
    return full


# Discord copies a message under its sender and the time it was sent: `Olamide Bakare — Today
# at 2:14 PM`, `olamide.bakare — 12/04/2026 2:14 PM` (the display name, or the login Discord's
# usernames are: lowercase letters, digits, `_` and `.`). A bot's name carries its `BOT`/`APP` tag.
_DISCORD_HEADER = re.compile(
    # (Not our own placeholder: masked text masks to itself.)
    r"^[ \t]*(?P<who>[^\s—<>][^\n—<>]{0,60}?)[ \t]+—[ \t]+(?:Today at|Yesterday at|\d{1,2}/\d{1,2}/\d{2,4},?)[ \t]+"
    r"\d{1,2}:\d{2}(?:[ \t\u202f]?[AaPp][Mm])?[ \t]*\r?$",
    re.M,
)
_DISCORD_LOGIN = re.compile(r"[a-z0-9_][a-z0-9_.]{1,31}\Z")


def _find_discord_senders(text: str, edits: list[Edit], state: LogState) -> None:
    for m in _DISCORD_HEADER.finditer(text):
        who = m.group("who")
        words = who.split()
        if words[-1] in ("BOT", "APP") or any(w.lower() in _EVENT_WORDS or w.lower() in _SYSTEM_WORDS for w in words):
            continue
        if _DISCORD_LOGIN.match(who):
            if who not in TECHNICAL_USERS and who not in _NOT_PEOPLE and not who.isdigit():
                edits.append((m.start("who"), m.end("who"), "user", who))
                state.learn_user(who)
        elif _plausible(who) == who:
            take_name(text, m.start("who"), who, edits, state)


def take_name(text: str, start: int, name: str, edits: list[Edit], state: LogState) -> None:
    edits.append((start, start + len(name), "name", name))
    state.learn_name(name)


def find_names(text: str, present: set[str], edits: list[Edit], state: LogState) -> None:
    """Mask people's names and learn them.

    `present` holds the anchor words seen in this chunk (anchors.find_anchors): the chat
    header's clock (` am\n`, ` pm]`, any case) is one of them.
    """
    if "<" in text:
        for m in _ADDRESS.finditer(text):
            lo = max(0, m.start() - 200)
            if text[m.start() - 2 : m.start() - 1] == '"':
                # `"Fischer, Hannah" <addr>`: the quoted display name, commas and all.
                open_quote = text.rfind('"', max(0, m.start() - 130), m.start() - 2)
                quoted = text[open_quote + 1 : m.start() - 2] if open_quote != -1 else ""
                if quoted.strip() and "\n" not in quoted and _plausible(quoted.replace(",", " ")):
                    take_name(text, open_quote + 1, quoted, edits, state)
                    continue
            back = _NAME_BEFORE.search(text, lo, m.start() - 1)
            if back is None:
                continue
            raw = back.group("name")
            if " via " in raw:
                # `Hannah Fischer via Slack <notifications@slack.com>`: a service relays her.
                raw = raw[: raw.index(" via ")]
            name = _plausible(raw)
            if name:
                take_name(text, back.start("name") + raw.rindex(name), name, edits, state)
    if " — " in text:
        _find_discord_senders(text, edits, state)
    found = _LITERALS.present(text)
    for literals, rx in _SHAPES:
        if literals is _CHAT_LITERALS:
            # The chat header can also be the text's last line, with no newline after it.
            if not any(w in present for w in _CLOCK_WORDS) and text.rstrip(" \t]")[-2:].upper() not in ("AM", "PM"):
                continue
        elif literals is _KEY_NAME_LITERALS and "_name" not in present and "user.name" not in present:
            continue  # the anchor scan already looked: no key of a name here
        elif literals is _TEAMS_LITERALS:
            if " am]" not in present and " pm]" not in present:
                continue  # Teams' `10:42 AM]` holds the clock word the anchor scan looked for
        elif not any(literal in found for literal in literals):
            continue
        for m in rx.finditer(text):
            groups = m.groupdict()
            if groups.get("uid") is not None and not _personal_account(m):
                continue
            raw = m.group("name").strip()
            if "whole" in groups and _plausible(raw) != raw:
                continue
            if "mailfrom" in groups and any(w.strip(",").lower() in NOT_A_PERSON for w in raw.split()):
                continue  # `From: Data Platform`: a team's mailbox
            if literals == ("@",) and raw.split()[0].lower() in NOT_MENTIONS:
                continue  # `@Autowired Trainer t`: an annotation before a type
            if literals is _SIGNATURE_LITERALS and _thing_words(raw.split()):
                continue  # `Training Loss | Research notes`: a table's header, not a signature
            if literals in (_TEAMS_LITERALS, _CHAT_LITERALS) and any(w.strip(",").lower() in _EVENT_WORDS for w in raw.split()):
                continue  # `[10:42 AM] Job Failed`, Slack's `Job Failed  10:41 AM`: a bot's event, not a sender
            name = raw if groups.get("rest") is not None or "user" in groups or "q" in groups else _plausible(raw)
            if not name or name.lower() in _NOT_PEOPLE:
                continue
            start = m.start("name") + m.group("name").index(name)
            take_name(text, start, name, edits, state)
            if groups.get("user") and groups["user"].lower() not in TECHNICAL_USERS:
                edits.append((m.start("user"), m.end("user"), "user", m.group("user")))
                state.learn_user(m.group("user"))
            rest = groups.get("rest")
            if rest:
                # The GECOS fields after the name: the office (a room, kept: it names a place,
                # not a person), the work and home phone numbers (masked as phone numbers), and
                # anything else (masked: it can hold a second name or a note about the person).
                pos = m.start("rest")
                for index, field in enumerate(rest.split(",")[1:]):
                    pos += 1
                    if _GECOS_PHONE.match(field) and 7 <= sum(c.isdigit() for c in field) <= 15:
                        edits.append((pos, pos + len(field), "phone", field))
                    elif field.strip() and index > 0 and not _EXTENSION.match(field):
                        edits.append((pos, pos + len(field), "name", field))
                    pos += len(field)


# A phone number in a GECOS field: `+49 89 1234 5678`, `(415) 555-0132`, `555.0132`.
_GECOS_PHONE = re.compile(r"[ \t]*\+?[0-9 ().\-/]{7,24}\Z")
_EXTENSION = re.compile(r"[ \t]*(?:x|ext\.?[ \t]*)?\d{1,6}[ \t]*\Z")  # `x4567`: no number outside the building


# `nobody` and the (uid_t)-1 / -2 sentinels; every other uid from 1000 up is a login's. LDAP
# and SSSD hand out uids far above 65535 (an AD-mapped SSSD uid is ten digits: 1868401105).
_NOT_PERSONAL_UIDS = frozenset((65534, 65535, 4294967294, 4294967295))


def _personal_account(m: re.Match[str]) -> bool:
    """A passwd row of a person: a regular uid (1000 and up, not `nobody`), a name-like GECOS."""
    uid = int(m.group("uid"))
    name = m.group("name").strip()
    return (
        uid >= 1000
        and uid not in _NOT_PERSONAL_UIDS
        and bool(name)
        and name.lower() != m.group("user").lower()
        and any(c.isalpha() for c in name)
    )


# The person a record or a config puts in charge (`oncall: Hannah Fischer`, `"owner": "Hannah
# Fischer"`, a tracker's `Assignee:`), and who a CI run or a ticket says acted (`triggered by
# Hannah Fischer`, `Approved by Hannah Fischer`): a name of two to four capitalised words.
# (A login under these keys is a user name: bot/masking/pairs.py.)
# A service desk's ticket names the people by label (ServiceNow's `Caller:` and `Assigned to:`).
ROLE_WORDS = ("owner", "author", "oncall", "on-call", "on_call", "on call", "maintainer", "contact", "assignee", "reporter",
              "reviewer", "requester", "submitter", "ed_by", "assigned to", "assigned_to", "caller")  # fmt: skip
# Words in small letters after the capital, accented ones too (`Jürgen`, `Súilleabháin`); a
# name written in CJK characters (`鈴木翔太`, `王伟`), two to five of them.
_SMALL = r"(?:[^\W\d_A-Z]|['’-])"
FULL_NAME = (
    # (A double-barrelled family name capitalises both halves: `Müller-Lüdenscheidt`.)
    # (An apostrophe or Mc may capitalise a family name inside: `O'Connor`, `McDonald`.)
    # (A given name of two joined by a hyphen capitalises both: `Jean-Luc`, `Anne-Marie`.)
    r"(?P<name>" + _CAP + _SMALL + r"{1,40}(?:(?<=-)" + _CAP + _SMALL + r"{1,40})?(?:[ \t](?:" + _CAP + _SMALL + r"{0,40}(?:(?<=['’])" + _CAP + _SMALL + r"{1,40}|(?<=Mc)" + _CAP + _SMALL + r"{1,40}|(?<=Mac)" + _CAP + _SMALL + r"{1,40})?(?:-" + _CAP + _SMALL + r"{1,40})?"
    r"|(?:" + _PARTICLE_RX + r")(?=[ \t]))){1,3}"
    r"|" + _CJK + r"{2,5}(?![\w]))"
)
_ROLE_KEY_NAME = re.compile(
    # (A Python module's dunder: `__author__ = "Hannah Fischer"`, `__maintainer__`.)
    # (A rota may say when before its colon, as for the given name alone: `on-call this week: Noemi Moretti`.)
    r"(?i:(?<![\w-])[\"']?(?:owner|author|__author__|__maintainer__|on[-_ ]?call(?:[ \t]+[a-z]{2,10}){0,3}|maintainer|contact|assignee|reporter|reviewer|requester|submitter|assigned[ _]to|caller"
    r"|(?:created|submitted|requested|triggered|launched|started|approved|reviewed|merged|owned)_by)[\"']?[ \t]*[:=][ \t]*)"
    r"(?P<q>[\"'])?" + FULL_NAME + r"(?(q)(?P=q)|(?![\w'’-]|[ \t][A-Z]))"
)
# An on-call rota names the person by the given name alone (`on-call: Dana`, `# oncall this week:
# Dana`): one capitalised word there is a person, not a team (`on-call: Platform`).
_ON_CALL_NAME = re.compile(
    r"(?i:(?<![\w-])on[-_ ]?call(?:[ \t]+[a-z]{2,10}){0,3})[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?P<name>" + _CAP + _SMALL + r"{1,40})(?![\w'’@.-]|[ \t]" + _CAP + r")"
)
_ACTED = (
    r"(?:[Tt]riggered|[Ss]tarted|[Rr]equested|[Aa]pproved|[Mm]erged|[Rr]eviewed|[Ss]ubmitted|[Cc]reated|[Oo]pened"
    r"|[Cc]losed|[Rr]eported|[Aa]ssigned|[Cc]ancell?ed|[Aa]borted|[Pp]ushed|[Aa]uthored|[Dd]eployed|[Ll]aunched"
    r"|[Rr]estarted|[Ee]dited|[Uu]pdated|[Ss]cheduled|[Mm]aintained|[Oo]wned|[Rr]esolved|[Dd]rained|[Rr]ebooted)"
    # (GitLab's pipeline header says when between: `triggered 2 hours ago by Hannah Fischer`.)
    r"(?: (?:\d{1,3}|an?) (?:second|minute|hour|day|week|month)s? ago)?"
    # (A ticket's field: `Reported by: Hannah Fischer`.)
    r" by:? "
)
# A person addressed by title in a shipping note or a ticket (`ship it to Mrs. Genoveva
# Throckmorton`, `Dr Amara Okonkwo approved`): the title says a person follows, so a family name
# alone after it is one too. Titles only, capitalised as written; a street's `Dr` after its name
# (`Mulberry Dr, Boise`) has no capitalised word after it on the same side of the comma.
_TITLES = r"(?:Mrs|Mr|Ms|Mx|Dr|Prof)"
_TITLED_NAME = re.compile(
    r"(?<![\w.])" + _TITLES + r"\.?[ \t]"
    r"(?P<name>" + _CAP + _SMALL + r"{1,40}(?:[ \t]" + _CAP + _SMALL + r"{1,40}(?:-" + _CAP + _SMALL + r"{1,40})?){0,3})"
    r"(?![\w'’@.-]|[ \t][A-Z])"
)
# Its line gate: a title, its dot or a blank, and a capital.
TITLED_NAME_TRIGGER = r"(?:^|[^\w.])" + _TITLES + r"\.?[ \t][A-Z]"
_ACTED_BY = re.compile(r"\b" + _ACTED + FULL_NAME + r"(?![\w'’-]|[ \t][A-Z])")
# The line gate of the `<verb> by` names (bot/masking/gate.py): the verb and its `by`, not any
# `ed by ` (a watchdog's `detected by`, on every line of a NCCL timeout's flood).
ACTED_BY_TRIGGER = _ACTED
# Capitalised words that name a thing, not a person: `Triggered by Pull Request`.
_THING_WORDS = frozenset(
    ("pull", "request", "push", "merge", "schedule", "scheduled", "cron", "webhook", "api", "upstream", "timer", "user",
     "controller", "workflow", "pipeline", "job", "event", "policy", "rule", "automation", "actions", "action", "app",
     "github", "gitlab", "jenkins", "slurm", "kubernetes", "node", "cluster", "health", "check", "watchdog", "oom",
     "killer", "signal", "the", "a", "an", "this", "that", "our", "your", "default", "unknown", "release", "merge",
     "platform", "platforms", "data", "infrastructure", "infra", "engineering", "operations", "ops", "research",
     "group", "developers", "maintainers", "contributors", "authors", "foundation", "community", "project",
     "corporation", "inc", "ltd", "llc", "gmbh", "labs", "lab", "department", "dept", "center", "centre", "desk",
     "helpdesk", "it", "on-call", "oncall", "rotation", "queue", "channel")
)  # fmt: skip
# A thing's, a system's, or a word that greets nobody: no person's name, wherever it stands.
_NO_PERSON = _THING_WORDS | _SYSTEM_WORDS | _NOT_GREETED


# Endings of English words a rota's value may be instead (`Weekends`, `Required`, `Emergency`);
# a given name the list knows passes whatever its ending (`Ahmed`, `Emily`, `Thomas`).
_ENGLISH_ENDS = ("ed", "ing", "day", "days", "s", "ly", "tion", "sion", "ment", "cy", "able", "ible", "ary", "ory", "ive",
                 "al", "ness", "ity", "ure", "ent", "ant", "er", "or", "ist", "ise", "ize", "ic", "ful", "less", "end", "ends")  # fmt: skip
# What a rota says when it names no one.
_NOBODY = frozenset(("none", "nobody", "tbd", "tba", "n/a", "unassigned", "vacant", "everyone", "all", "team", "me", "you",
                     "yes", "no", "true", "false", "off", "on", "primary", "secondary", "backup", "weekly", "daily", "pager",
                     "pagerduty", "opsgenie", "slack", "rotation", "schedule"))  # fmt: skip
# Words that never name a person, for a reader elsewhere (addressed.py): things, systems, events,
# and the placeholders a rota writes for nobody.
NOT_A_PERSON = _NO_PERSON | _EVENT_WORDS | _NOBODY


# The login a role line gives in parentheses after the name: `owner: Hannah Fischer (hfischer)`.
_LOGIN_AFTER_NAME = re.compile(r"[ \t]{1,4}\(@?(?P<login>[a-z][a-z0-9._-]{1,31})\)")
_PRONOUNS = frozenset(("he", "she", "they", "him", "her", "them", "xe", "ze", "it"))


# Microsoft's products, written after `MS`/`Ms` as a title is before a name (`exported to Ms Word`).
_MS_PRODUCTS = frozenset(("word", "excel", "office", "teams", "outlook", "access", "project", "paint", "edge", "windows",
                          "sql", "dos", "azure", "visio", "onenote", "powerpoint", "sharepoint", "exchange", "forms",
                          "planner", "publisher", "store", "defender", "intune", "onedrive", "copilot", "graph"))  # fmt: skip


# A tracker's fields copied from its side panel, the label and the value apart by blanks
# instead of a colon (Linear's and Jira's `Assignee    Hannah Fischer`).
_PANEL_FIELD = re.compile(
    r"^[ \t]*(?:Assignee|Reporter|Assigned to|Owner|Reviewer|Requester|Caller)(?:[ \t]{2,}|\t)[ \t]*" + FULL_NAME + r"[ \t]*\r?$", re.M
)
# A tracker's history and activity name who did what at the line's start: Jira's `Hannah Fischer
# changed the Assignee to ...`, `... made changes - 04/Dec/26`, Linear's `... changed status from Todo`.
_TRACKER_ACTS = r"(?:changed (?:the|status|priority)|made changes|created the|added (?:a|the)|assigned (?:this|the|to)|moved (?:this|from)|closed this|reopened this|self-assigned this|removed the|set (?:the|status)|logged work|commented on)"
_TRACKER_ACTOR = re.compile(r"^[ \t]*" + FULL_NAME + r"[ \t]+" + _TRACKER_ACTS + r"(?![\w-])", re.M)
TRACKER_ACTOR_TRIGGER = r"[A-Za-z?] " + _TRACKER_ACTS
# A CI run's actor given by login with the full name after it: GitLab's `triggered by
# hfischer (Hannah Fischer)`.
_ACTED_BY_LOGIN = re.compile(r"\b" + _ACTED + r"(?P<login>[a-z][a-z0-9._-]{1,38})[ \t]+\(" + FULL_NAME + r"\)")


def find_role_names(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the names under role keys and after `<verb> by`, and learn them."""
    for m in _ACTED_BY_LOGIN.finditer(text):
        raw, user = m.group("name"), m.group("login")
        if _plausible(raw) != raw or any(w.lower() in _NO_PERSON for w in raw.split()) or user in TECHNICAL_USERS:
            continue
        take_name(text, m.start("name"), raw, edits, state)
        edits.append((m.start("login"), m.end("login"), "user", user))
        state.learn_user(user)
    for rx in (_PANEL_FIELD, _TRACKER_ACTOR):
        for m in rx.finditer(text):
            raw = m.group("name")
            if _plausible(raw) == raw and not any(w.lower() in _NO_PERSON or w.lower() in _EVENT_WORDS for w in raw.split()):
                take_name(text, m.start("name"), raw, edits, state)
    for rx in (_ROLE_KEY_NAME, _ACTED_BY, _TITLED_NAME):
        for m in rx.finditer(text):
            raw = m.group("name")
            if any(w.lower() in _THING_WORDS or w.lower() in _SYSTEM_WORDS for w in raw.split()):
                continue
            if rx is _TITLED_NAME and raw.lower() in _MS_PRODUCTS:
                continue  # `Ms Word`: Microsoft's product, no Ms Word
            if _plausible(raw) != raw:
                continue
            take_name(text, m.start("name"), raw, edits, state)
            login = _LOGIN_AFTER_NAME.match(text, m.end())
            if login is not None:
                user = login.group("login")
                if user not in _PRONOUNS and user not in NOT_A_PERSON and user not in TECHNICAL_USERS and not team_like(user):
                    edits.append((login.start("login"), login.end("login"), "user", user))
                    state.learn_user(user)
    for m in _ON_CALL_NAME.finditer(text):
        raw = m.group("name")
        lowered = raw.lower()
        if lowered in _NO_PERSON or lowered in _NOBODY:
            continue
        if lowered not in GIVEN_NAMES and lowered.endswith(_ENGLISH_ENDS):
            continue  # `on-call: Monday`, `Disabled`, `Rotating`, `Escalation`: a word, not a name
        take_name(text, m.start("name"), raw, edits, state)


# A record quoted in a log names its person under a bare `name` key (a data sample a PII
# filter prints, `name=Hannah Fischer ssn=...`; an alert config's `name: Hannah Fischer`). The
# key names layers, optimizers and jobs as often, so only a given name the list knows, then a
# capitalised family name, is a person there.
_KEYED_NAME = re.compile(
    r"(?<![\w.-])name[\"']?[ \t]*[:=][ \t]*[\"']?(?P<name>(?P<given>" + _CAP + r"[a-z]{2,20})[ \t]" + _CAP + _LOW + r"{1,40})"
    r"(?![\w'’@.-]|[ \t]" + _CAP + ")"
)
# Its line gate (bot/masking/gate.py): the key, a capitalised word, a blank and a capital.
KEYED_NAME_TRIGGER = r"(?:^|[^a-zA-Z0-9_.-])name[\x22']?[ \t]*[:=][ \t]*[\x22']?[A-Z][a-z]{2,20}[ \t]"


def find_keyed_names(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) a given and a family name under a bare `name` key."""
    for m in _KEYED_NAME.finditer(text):
        if m.group("given").lower() not in GIVEN_NAMES:
            continue
        family = m.group("name").split()[-1].lower()
        if family in _NO_PERSON:
            continue
        take_name(text, m.start("name"), m.group("name"), edits, state)


# A variable that holds a person's name (`author`, `run_owner`, `full_name`), as loguru shows
# its value under a traceback's source line: `└ 'Hannah Fischer'`.
_NAME_VARIABLE = re.compile(
    r"(?i:(?:\A|_)(?:owner|author|maintainer|contact|assignee|reporter|reviewer|requester|submitter|caller|committer)(?:_name)?"
    r"|(?:\A|_)(?:full|display|real)_?name)\Z"
)
_WHOLE_NAME = re.compile(FULL_NAME + r"\Z")


def find_annotated_names(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) a person's name loguru prints under a variable that holds one."""
    for variable, m in annotated_values(text):
        raw = m.group("v")
        if _NAME_VARIABLE.search(variable) is None or _WHOLE_NAME.match(raw) is None:
            continue
        if any(w.lower() in _THING_WORDS or w.lower() in _SYSTEM_WORDS for w in raw.split()) or _plausible(raw) != raw:
            continue
        take_name(text, m.start("v"), raw, edits, state)


# A thread's greetings and sign-offs name people by their given name: `ping Dana`, `Dear Dana,`, `Thanks
# Lukas!`, `cc Priya`, `-- Dana`. Words that greet nobody (`Thanks All`) are `_NOT_GREETED`.
_GREETS = r"(?:[Pp]ing|[Tt]hanks|[Tt]hank you|[Tt]hx|[Cc][Cc]:?|[Hh]ey|[Hh]i|[Hh]ello|[Dd]ear|(?:[Gg]ood )?[Mm]orning|[Gg]ood (?:afternoon|evening))"
_GREETING = re.compile(
    # (A sign-off puts a comma after its thanks: `Thanks, Evander`.)
    r"(?<![\w@])(?:" + _GREETS + r"|[Tt]hanks,|[Cc]heers,|[Tt]hank you,|[Tt]hx,)[ \t]+"
    r"(?P<name>" + _CAP + _LOW + r"{2,20}(?:[ \t]" + _FAMILY_WORD + r")?|" + _CJK + r"{1,5}(?!" + _CJK + r"))"
    # Two people greeted at once: `Hi Olivia and Marcus,`.
    # (The second with a family name too: `cc Aino Havili and Tahmina Tuilagi`.)
    r"(?:[ \t](?:and|&)[ \t](?P<also>" + _CAP + _LOW + r"{2,20}(?:[ \t]" + _FAMILY_WORD + r")?))?(?=[!,.:;?)]|[ \t]|\r?$)"
    r"|^[ \t]*(?:--|—|–)[ \t]?(?P<signed>" + _CAP + _LOW + r"{1,30}(?:[ \t]" + _CAP + _LOW + r"{0,40}){0,2})[ \t]*\r?$"
    # A one-line message signed at its end: `the job on gn036 died again — Priya Volkov`.
    r"|(?<=\S)[ \t]+(?:--|—|–)[ \t]+(?P<closing>" + _CAP + _LOW + r"{2,20}(?:[ \t]" + _FAMILY_WORD + r")?)[ \t]*\r?$"
    # A message that opens by addressing someone: `Hannah, can you look at this?` (a given name
    # the list knows: `Note, ...` and `Traceback, ...` open lines too).
    # (A given name of two words, `Juan Carlos, ...`, `Maria Jose, ...`, both known.)
    r"|^[ \t]*(?P<addressed>" + _CAP + _LOW + r"{2,20}(?:[ \t]" + _CAP + _LOW + r"{2,20})?),[ \t]"
    # Who is on call, marked after the name: `Hyun-woo (on-call) is looking at it`.
    r"|(?<![\w@'’-])(?P<oncall>" + _CAP + r"[a-zß-öø-ÿ]{1,20}(?:-(?:[a-z]{2,12}|" + _CAP + r"[a-zß-öø-ÿ]{1,20}))?(?:[ \t]" + _FAMILY_WORD + r")?)[ \t]+\((?i:on[- ]?call)\)",
    re.M,
)
# The gate of find_greeted_names (bot/masking/gate.py): the greeting word and a capital, `--`, or
# a capitalised word and a comma opening the line (`?`: an accented capital as the gate reads it, `Łukasz`).
GREETING_TRIGGER = r"[ \t](?:--|\?)[ \t]+[A-Z?]|\([Oo][Nn][- ]?[Cc][Aa][Ll][Ll]\)|" + _GREETS + r"[ \t]+[A-Z?]|(?:[Tt]hanks|[Cc]heers|[Tt]hank you|[Tt]hx),[ \t]+[A-Z?]|^[ \t]*(?:--|\?)[ \t]?[A-Z?]|^[ \t]*[A-Z?][a-z?'-]{2,40}(?: [A-Z?][a-z?'-]{2,20})?,[ \t]"


# Endings of English words that open a metric's or a chart's name (`cc: Training Loss dashboard`).
_ENGLISH_WORD_ENDS = ("ing", "tion", "sion", "ment", "ness", "ity", "ics")


def _thing_words(words: list[str]) -> bool:
    """Capitalised words a greeting or a copy line puts before a thing, not a person: a word
    shaped as English (`Training`, `Validation`) no list knows as a given name, or a thing's
    word after it (`Eval Loss`, `Platform Team`)."""
    first = ascii_folded(words[0])
    if first not in GIVEN_NAMES and len(first) > 5 and first.endswith(_ENGLISH_WORD_ENDS):
        return True
    return any(w.lower() in _NO_PERSON or w.lower() in _METRIC_WORDS or w.lower() in PRODUCT_WORDS for w in words[1:])


# Words that end a metric's name (`Training Loss`, `Eval Accuracy`): no family name.
_METRIC_WORDS = frozenset(("loss", "accuracy", "acc", "perplexity", "throughput", "latency", "score", "rate", "norm",
                           "curve", "curves", "chart", "charts", "dashboard", "plot", "plots", "metrics", "metric"))  # fmt: skip


def find_greeted_names(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the given names a thread greets, pings and signs with."""
    for m in _GREETING.finditer(text):
        group = next(g for g in ("name", "signed", "closing", "addressed", "oncall") if m.group(g))
        raw = m.group(group)
        words = raw.split()
        if group == "closing":
            # (A dash also sets off a step's or a metric's label: `Epoch 3 — Validation`; the
            # signer's given name is one the list knows, or the family name after it is.)
            known = ascii_folded(words[0]) in GIVEN_NAMES or (len(words) == 2 and ascii_folded(words[1]) in FAMILY_NAMES)
            if not known or words[0].lower() in _NOT_GREETED or _thing_words(words):
                continue
            if _plausible(raw) != raw:
                continue
        elif group == "addressed":
            if any(ascii_folded(w) not in GIVEN_NAMES for w in words):
                continue
        elif group == "oncall":
            if any(w.lower() in NOT_A_PERSON or w.lower() in _SYSTEM_WORDS for w in words) or words[0].lower() in NOT_MENTIONS:
                continue  # `Platform (on-call)`, `Team (on-call)`
        elif group == "name":
            if words[0].lower() in _NOT_GREETED or words[0].lower() in NOT_MENTIONS or _thing_words(words):
                continue
            if len(words) > 1 and (words[1].lower() in _NOT_GREETED or words[1].lower() in _SYSTEM_WORDS):
                raw = words[0]  # `Thanks Dana For ...`: the given name alone
        elif _plausible(raw) != raw:
            continue
        take_name(text, m.start(group), raw, edits, state)
        also = m.group("also")
        if also and also.split()[0].lower() not in _NOT_GREETED:
            also_words = also.split()
            if len(also_words) > 1 and (also_words[1].lower() in _NOT_GREETED or also_words[1].lower() in _SYSTEM_WORDS):
                also = also_words[0]  # `cc Dana and Priya For ...`: the given name alone
            take_name(text, m.start("also"), also, edits, state)


# A contact line names a person beside the number or the address to reach them by, often by
# the given name alone: `on-call this week: Dana (415-555-0134)`, `# backup: Hannah Fischer
# phone: ...`, `email Priya or call ...`. On a line holding a phone or an e-mail word (or a
# North American number), a capitalised given name the list knows is masked, with the
# capitalised word after it when there is one (her family name).
CONTACT_WORDS = ("phone", "mobile", "tel:", "tel.", "cell", "email", "e-mail", "on-call", "oncall", "pager", "whatsapp")
# (The given name with its accents, `Joaquín`, looked up without them; a family name of two
# words after a short first, `Ní Bhriain`, `Ó Ceallaigh`, `Mac Giolla`, and one capitalised
# again after an apostrophe or a hyphen, `O'Sullivan`, `El-Amin`.)
_CONTACT_NAME = re.compile(
    r"(?<![\w@./<'’-])(?P<name>" + _CAP + _LOW + r"{2,20})"
    r"(?:[ \t](?P<family>(?:" + _CAP + _LOW + r"{0,2}[ \t])?" + _FAMILY_WORD + r"))?"
    r"(?![\w@.>'’-])"
)
# A number on the line, North American, international (`+44 20 7946 0958`) or a national
# mobile one (people.py); CONTACT_TRIGGER
# is the same shapes as the line gate reads them.
_NUMBER_SHAPES = (
    r"[2-9][0-8][0-9](?:[-. ]|\) ?)[2-9][0-9]{2}[-. ][0-9]{4}",
    r"\+[1-9][0-9]{0,2}[ .-]?\(?[0-9]{1,5}\)?[ .-]?[0-9]{3,5}[ .-]?[0-9]{3,5}",
    NATIONAL_PHONE_TRIGGER,  # (and national mobile numbers: `Rufbereitschaft Jonas Weber: 0151 2345678`)
)
CONTACT_TRIGGER = "|".join(_NUMBER_SHAPES)
_NUMBER_ON_LINE = re.compile(CONTACT_TRIGGER)


def _contact_line(line: str) -> bool:
    lowered = line.lower()
    return any(word in lowered for word in CONTACT_WORDS) or _NUMBER_ON_LINE.search(line) is not None


# Two capitalised words right before the number itself are the person it reaches, whether the
# list knows the given name or not (`astreinte : Farah Tamminen 06 12 34 56 78`).
_NAME_BEFORE_NUMBER = re.compile(
    r"(?<![\w@./<'’-])(?P<name>" + _CAP + _LOW + r"{1,20}[ \t]" + _CAP + _LOW + r"{1,40})[ \t]*[:(,-]?[ \t]*"
    r"(?=\+?\(?[0-9][0-9 ./()-]{6,20}[0-9](?![\w.-]?[0-9]))"
)


# An on-call rota's one name with the number in parentheses after it, whether the list knows
# the name or not (`on-call this week: Matthias (+49 89 8204 8112)`).
_ONCALL_NAME = re.compile(
    r"(?i:on-call|oncall|on call)[^:\n]{0,30}:[ \t]*(?P<name>" + _CAP + _LOW + r"{2,20})[ \t]*"
    r"\((?=\+?[0-9][0-9 ./-]{6,20}[0-9]\))"
)


# What else a number is announced by (`Pager Duty:`, `Support Hotline`, `Office Line`).
_LINE_WORDS = frozenset(("duty", "hotline", "helpline", "number", "office", "line", "team", "support", "service", "desk",
                         "code", "version", "id", "no", "ticket", "case", "order", "invoice", "account"))  # fmt: skip


def find_contact_names(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the given names, and the family names after them, on contact lines."""
    checked: dict[int, bool] = {}  # line start -> is it a contact line

    def on_contact_line(pos: int) -> bool:
        lead = text.rfind("\n", 0, pos) + 1
        if lead not in checked:
            end = text.find("\n", pos)
            checked[lead] = _contact_line(text[lead : len(text) if end == -1 else end])
        return checked[lead]

    for m in _NAME_BEFORE_NUMBER.finditer(text):
        words = m.group("name").lower().split()
        if any(w in _NO_PERSON or w in _EVENT_WORDS or w in _NOBODY or w in _LINE_WORDS for w in words):
            continue
        if on_contact_line(m.start()):
            take_name(text, m.start("name"), m.group("name"), edits, state)
    for m in _ONCALL_NAME.finditer(text):
        word = m.group("name").lower()
        if not any(word in words for words in (_NO_PERSON, _NOBODY, _EVENT_WORDS, _LINE_WORDS)):
            take_name(text, m.start("name"), m.group("name"), edits, state)
    pos = 0
    while (m := _CONTACT_NAME.search(text, pos)) is not None:
        pos = m.end()
        family = m.group("family")
        if (
            ascii_folded(m.group("name")) not in GIVEN_NAMES
            and family
            and ascii_folded(family.split()[-1]).replace("'", "") in FAMILY_NAMES
            and not any(m.group("name").lower() in words for words in (_NO_PERSON, _NOBODY, _EVENT_WORDS, _LINE_WORDS))
            and on_contact_line(m.start())
        ):
            # A given name the list leaves out as a word (`Grace`, `Hunter`) before a family
            # name it knows: `Secondary: Grace Okafor, mobile ...`.
            take_name(text, m.start(), m.group(), edits, state)
            continue
        if ascii_folded(m.group("name")) not in GIVEN_NAMES:
            if m.group("family"):
                pos = m.start("family")  # `Rufbereitschaft Jonas Weber`: the given name is the second word
            continue
        if not on_contact_line(m.start()):
            continue
        if family and family.lower() not in _NO_PERSON:
            take_name(text, m.start(), m.group(), edits, state)
        else:
            take_name(text, m.start(), m.group("name"), edits, state)


# `git log --format='%an <%ae>'` (or `--pretty=format:'%h %an %s'`, `git show -s --format=%an`)
# prints each commit's author on a line of its own shape: no `Author:` label says where the
# name is, only the format the command line gave. The command is read back into a pattern of
# the lines it prints (its placeholders; literal text as written), and the author's and the
# committer's names are taken from the lines below it that match, up to a line that does not
# (the next prompt, a blank line, other output).
_GIT_FORMAT_COMMAND = re.compile(
    r"\bgit(?:[ \t]+-[Cc][ \t]+\S+)*[ \t]+(?:log|show|rev-list|whatchanged)\b[^\n]*?[ \t]--(?:pretty|format)[= ]"
    r"(?:t?format:)?(?:'(?P<sq>[^'\n]{1,300})'|\"(?P<dq>[^\"\n]{1,300})\"|(?P<bare>[^\s'\"|;]{1,300}))"
    r"(?P<rest>[^\n]*)"
)
# A placeholder of git's pretty formats: `%an`, `%h`, `%x09`, `%C(auto)`, `%<(20,trunc)`, `%%`.
_GIT_PLACEHOLDER = re.compile(r"%(?:[<>]{1,2}\|?\(\d{1,3}(?:,\w{1,6})?\)|C\([^)]{0,40}\)|C(?:red|green|blue|reset)|x[0-9a-fA-F]{2}|[acg][a-zA-Z]|[a-zA-Z%+-]|\([^)]{0,80}\))")
_GIT_NAME_CODES = frozenset(("an", "aN", "cn", "cN"))
_GIT_HASH_CODES = frozenset(("H", "h", "T", "t", "P", "p"))
# A name as git prints it: its first word any (`hfischer`, `Hannah`), the rest capitalised or
# particles, so a subject after it (`%an %s`: `Hannah Fischer fix OOM`) is not taken with it.
# (A bot's account carries its `[bot]`: `dependabot[bot]`, no one's name.)
_GIT_NAME = (
    r"[^\W\d_][\w'’.-]{0,40}(?:\[bot\]|(?:[ \t](?:(?:" + _IRISH_PARTICLE + r"[ \t])?" + _FAMILY_WORD + r"|(?:" + _PARTICLE_RX + r")(?=[ \t](?:" + _CAP
    + r"|(?:" + _PARTICLE_RX + r")[ \t])))){0,5})"
)
# Words a commit's subject opens with, capitalised (`Hannah Fischer Fix OOM in ...`): where a
# name read from `%an %s` ends.
_SUBJECT_VERBS = frozenset(
    ("fix", "fixes", "fixed", "add", "adds", "added", "bump", "update", "updates", "merge", "revert", "remove", "refactor",
     "use", "make", "support", "improve", "move", "rename", "set", "handle", "allow", "enable", "disable", "change",
     "clean", "cleanup", "drop", "implement", "initial", "wip", "docs", "doc", "test", "tests", "release", "prepare",
     "upgrade", "pin", "switch", "replace", "increase", "reduce", "lower", "raise", "skip", "log", "save", "load",
     "run", "try", "avoid", "ensure", "port", "sync", "tune", "train", "start", "stop", "retry", "resume", "reset",
     "restore", "create", "delete", "introduce", "expose", "split", "simplify", "speed", "chore", "feat", "style")
)  # fmt: skip
# The most lines read under one command: a log's page.
_GIT_FORMAT_LINES = 400


def _git_format_line(fmt: str) -> re.Pattern[str] | None:
    """The pattern of one line `fmt` prints, its names in groups `n0`, `n1`, ...; None when it
    prints no name or spans lines (`%n`)."""
    parts: list[str] = []
    names = 0
    pos = 0
    for m in _GIT_PLACEHOLDER.finditer(fmt):
        parts.append(_git_literal(fmt[pos : m.start()]))
        pos = m.end()
        code = m.group()[1:]
        if code == "n":
            return None
        if code in _GIT_NAME_CODES:
            parts.append(rf"[ \t]*(?P<n{names}>{_GIT_NAME})[ \t]*")
            names += 1
        elif code in _GIT_HASH_CODES:
            parts.append(r"[0-9a-f]{4,64}(?: [0-9a-f]{4,64})*")
        elif code == "%":
            parts.append("%")
        elif code.startswith("x"):
            parts.append(re.escape(chr(int(code[1:], 16))) if code[1:] != "20" else "[ \t]+")
        elif code.startswith(("C", "<", ">")):
            parts.append("[ \t]*")  # a colour (not in a pipe's output) or padding
        else:
            parts.append(r"[^\n]*?")
    parts.append(_git_literal(fmt[pos:]))
    if not names:
        return None
    return re.compile(r"[ \t]*(?:[*|\\/][ \t]*)*(?:\d{1,9}[ \t]+)?" + "".join(parts) + r"[ \t]*\Z")


def _before_subject(name: str) -> str:
    """The name without the subject's first words a free-text field after it left on it."""
    words = name.split()
    for i, word in enumerate(words[1:], 1):
        lowered = word.lower()
        if lowered in _SUBJECT_VERBS or lowered in _NO_PERSON or lowered in _EVENT_WORDS:
            return " ".join(words[:i])
    return name


def _git_literal(text: str) -> str:
    return "".join(r"[ \t]+" if c in " \t" else re.escape(c) for c in text).replace(r"[ \t]+[ \t]+", r"[ \t]+")


def find_git_format_names(text: str, present: set[str], edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the author and committer names under a `git log --format=...` command."""
    if "--format" not in present and "--pretty" not in present:
        return
    for m in _GIT_FORMAT_COMMAND.finditer(text):
        fmt = m.group("sq") or m.group("dq") or m.group("bare")
        line_rx = _git_format_line(fmt)
        if line_rx is None:
            continue
        pos = m.end() + 1
        for _ in range(_GIT_FORMAT_LINES):
            if pos >= len(text):
                break
            end = text.find("\n", pos)
            end = len(text) if end == -1 else end
            line = text[pos:end].rstrip("\r")
            row = line_rx.match(line) if line.strip() else None
            if row is None:
                break
            for group, raw in row.groupdict().items():
                name = _before_subject((raw or "").strip())
                if name and _plausible(name) == name and not name.endswith("[bot]"):
                    take_name(text, pos + row.start(group) + raw.index(name), name, edits, state)
            pos = end + 1
