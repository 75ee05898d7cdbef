"""Credentials passed as short command-line options, where the option letter is ambiguous
elsewhere (`-p` is a port for docker run) and only the command makes it a password."""

from __future__ import annotations

import re

from bot.literals import lowered_in_place
from bot.masking.edits import Edit
from bot.masking.keys import TECHNICAL_USERS, exempt_value
from bot.masking.lines import LinePattern, line_end, line_start
from bot.masking.state import LogState
from bot.masking.vendor import kind_of_value

_ARG = r"""(?P<v>'[^'\n]{1,512}'|"[^"\n]{1,512}"|[^\s'"`-][^\s`]{0,511})"""
_MYSQL_P = re.compile(r"(?<=\s)-p(?=[^\s-])" + _ARG)
# word that must occur in the line -> (option pattern, kind)
_RULES: dict[str, tuple[re.Pattern[str], str]] = {
    # mysql -u root -pS3cret (no space: with a space mysql prompts and takes a database name)
    "mysql": (_MYSQL_P, "password"),
    "mariadb": (_MYSQL_P, "password"),
    "sshpass": (re.compile(r"(?<=\s)-p[ \t]*" + _ARG), "password"),
    "redis-cli": (re.compile(r"(?<=\s)-a[ \t]+" + _ARG), "password"),
    # docker/podman/helm/nerdctl/oras login -u user -p secret
    "login": (re.compile(r"(?<=\s)-p[ \t]+" + _ARG), "password"),
    # `echo "S3cret" | docker login -u x --password-stdin registry`
    "password-stdin": (
        re.compile(r"echo[ \t]+(?:-n[ \t]+)?" + r"""(?P<v>'[^'\n]{1,512}'|"[^"\n]{1,512}"|[^\s'"`|$][^\s`|]{0,511})[ \t]*\|[^\n]{0,256}--password-stdin"""),
        "password",
    ),
    # `echo "S3cret" | sudo -S apt-get ...`: sudo -S reads the password from stdin.
    "sudo": (
        re.compile(r"echo[ \t]+(?:-n[ \t]+)?" + r"""(?P<v>'[^'\n]{1,512}'|"[^"\n]{1,512}"|[^\s'"`|$][^\s`|]{0,511})[ \t]*\|[ \t]*sudo[ \t]+(?:-[A-Za-z]{1,6}[ \t]+){0,4}-[A-Za-z]{0,5}S"""),
        "password",
    ),
    # GitHub Actions' workflow command that registers a secret (`echo "::add-mask::$TOKEN"` in
    # a `set -x` trace, or the command itself in a step's debug log): its value is one.
    "::add-mask::": (re.compile(r"::add-mask::(?P<v>[^\s'\"`]{1,512})"), "secret"),
    # Password options of the commands that take one as `-p` (twine's upload; MongoDB's shell
    # and tools: `mongosh "mongodb://h" -u ml -p <pw>`, `mongodump -u ml -p <pw>`).
    **dict.fromkeys(("twine", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"),
                    (re.compile(r"(?<=\s)-p[ \t]+" + _ARG), "password")),
    # A password given positionally after its user: `htpasswd -b[c] FILE USER PASSWORD`,
    # `rabbitmqctl add_user USER PASSWORD` / `change_password USER PASSWORD`.
    "htpasswd": (re.compile(r"htpasswd[ \t]+-[A-Za-z]{0,5}b[A-Za-z]{0,5}[ \t]+\S+[ \t]+\S+[ \t]+" + _ARG), "password"),
    "add_user": (re.compile(r"add_user[ \t]+\S+[ \t]+" + _ARG), "password"),
    "change_password": (re.compile(r"change_password[ \t]+\S+[ \t]+" + _ARG), "password"),
    # A secret store's value, whatever its name: `gh secret set NAME --body <value>` (`-b`),
    # `az keyvault secret set ... --value <value>`, an SSM SecureString's
    # `aws ssm put-parameter ... --value <value> --type SecureString`.
    "secret set": (re.compile(r"secret set[ \t][^\n]{0,256}?(?<=\s)(?:--body|-b|--value)(?:[ \t]+|=)" + _ARG), "secret"),
    "put-parameter": (re.compile(r"put-parameter(?=[^\n]{0,512}SecureString)[^\n]{0,256}?--value(?:[ \t]+|=)" + _ARG), "secret"),
    # Poetry's repository credentials: `poetry config http-basic.<repo> <user> <password>`,
    # `poetry config pypi-token.<repo> <token>`.
    "http-basic.": (re.compile(r"http-basic\.[\w.-]{1,64}[ \t]+\S+[ \t]+" + _ARG), "password"),
    "pypi-token.": (re.compile(r"pypi-token\.[\w.-]{1,64}[ \t]+" + _ARG), "secret"),
    # MinIO's client: `mc alias set ALIAS URL ACCESSKEY SECRETKEY` (older: `mc config host add`).
    "mc alias set": (re.compile(r"mc alias set(?:[ \t]+--?[\w-]+(?:[ \t]+|=)[^\s-]\S*)*[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+" + _ARG), "secret"),
    "mc config host add": (re.compile(r"mc config host add[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+" + _ARG), "secret"),
    # wandb login <key>
    "wandb login": (
        re.compile(
            # One way to parse each option (`-{1,2}` then a word character), so a line of
            # options with no key after them fails in linear time.
            r"wandb login(?:[ \t]+-{1,2}\w[\w-]{0,40}(?:=\S{1,256})?){0,20}[ \t]+"
            r"(?P<v>[0-9a-f]{40}|local-[0-9a-f]{40}|wandb_v1_\w{20,200}|[A-Za-z0-9_-]{32,128})(?![\w-])"
        ),
        "wandb-key",
    ),
}
_LOGIN_USER = re.compile(r"(?<=\s)-u[ \t]+" + _ARG)
_CURL_USER = re.compile(r"(?<=\s)-u[ \t]*" + _ARG)
# sudo takes its flags bundled: `sudo -iu hfischer`, `sudo -Hu hfischer`.
_SUDO_USER = re.compile(r"(?<=\s)-[A-Za-z]{0,4}u[ \t]+" + _ARG)


def _unquote(m: re.Match[str]) -> tuple[int, int, str]:
    value = m.group("v")
    start, end = m.start("v"), m.end("v")
    if value[:1] in "'\"" and value[-1:] == value[:1] and len(value) >= 2:
        return start + 1, end - 1, value[1:-1]
    return start, end, value


_PG_USER = re.compile(r"(?<=\s)-U[ \t]*" + _ARG)

# word that must occur in the line -> its `-u user[:password]` option (`-U user` for PostgreSQL)
_USER_RULES = {
    "login": _LOGIN_USER, "curl": _CURL_USER, "wget": _CURL_USER, "mysql": _LOGIN_USER,
    "mariadb": _LOGIN_USER, "psql": _PG_USER, "pg_dump": _PG_USER, "pg_restore": _PG_USER,
    # Slurm's per-user views and sudo's target account: `squeue -u hfischer`, `sudo -u hfischer`.
    "squeue": _LOGIN_USER, "sacct": _LOGIN_USER, "scancel": _LOGIN_USER, "sshare": _LOGIN_USER, "sprio": _LOGIN_USER,
    "sudo": _SUDO_USER,
    # Lustre's per-user quota: `lfs quota -u hfischer /lustre` (`-g` is a group, `-p` a project).
    "lfs quota": _LOGIN_USER,
    # `aws sts assume-role --role-session-name hfischer`: people name the session after
    # themselves, and CloudTrail files the session under that name.
    "role-session-name": re.compile(r"--role-session-name(?:[ \t]+|=)" + _ARG),
}  # fmt: skip
# A database client's login is the database's account (`mysql -u optuna`), often named after
# the service it stores for: masked where it is given, but not learned, or every
# `optuna.exceptions` module path in the traceback below it would go too.
_NOT_LEARNED = frozenset(("mysql", "mariadb", "psql", "pg_dump", "pg_restore"))
COMMAND_WORDS = tuple(dict.fromkeys((*_RULES, *_USER_RULES)))


def find_command_credentials(
    text: str, hits: list[tuple[str, int, int]], edits: list[Edit], state: LogState
) -> None:
    """Mask `-p`/`-a`/`-u` option values of commands that take credentials that way."""
    scanned: dict[str, int] = {}  # per word: text before this was already scanned
    for word, pos, _ in hits:
        if word not in _RULES and word not in _USER_RULES:
            continue
        start = max(line_start(text, pos), scanned.get(word, 0))
        end = line_end(text, pos)
        if start >= end:
            continue
        scanned[word] = end
        rule = _RULES.get(word)
        if rule is not None:
            rx, kind = rule
            for m in rx.finditer(text, start, end):
                vstart, vend, value = _unquote(m)
                if value and not exempt_value(value):
                    edits.append((vstart, vend, kind_of_value(value) or kind, value))
        user_rx = _USER_RULES.get(word)
        if user_rx is not None:
            for m in user_rx.finditer(text, start, end):
                vstart, _, value = _unquote(m)
                user, colon, password = value.partition(":")
                if user and user.lower() not in TECHNICAL_USERS and not exempt_value(user):
                    edits.append((vstart, vstart + len(user), "user", user))
                    if word not in _NOT_LEARNED:
                        state.learn_user(user)
                if colon and password and not exempt_value(password):
                    pstart = vstart + len(user) + 1
                    edits.append((pstart, pstart + len(password), kind_of_value(password) or "password", password))


# PostgreSQL's password file (~/.pgpass, PGPASSFILE), as `cat` shows it: one
# `hostname:port:database:username:password` row per line, the first four fields a value or
# `*`, the password the rest of the line (libpq reads it so; `\:` and `\\` escape). The row
# has no key word, so it is read only where a line runs to its end in that shape, and only
# in a text that names the file or holds the default port or a wildcard field.
# (Not `pgpass` alone: as an anchor word it would hide `password` inside `PGPASSWORD`.)
PGPASS_WORDS = (".pgpass", "pgpassfile", ":5432:", ":*:")
_PGPASS_ROW = LinePattern(
    r"(?P<host>[A-Za-z0-9*][\w.*-]{0,252}):(?P<port>\d{1,5}|\*):(?P<db>[^:\s]{1,63}):"
    r"(?P<user>(?:\\.|[^:\s\\]){1,63}):(?P<pw>[^\s][^\n\r]{0,511}?)[ \t]*\r?$",
    re.M,
)


def find_pgpass(text: str, present: set[str], edits: list[Edit], state: LogState) -> None:
    """Mask the password (and the account name) of `.pgpass` rows.

    A row on the default port or with a wildcard field is one wherever it stands; another
    only in the run of rows right under a line naming the file (`$ cat ~/.pgpass`).
    """
    if not any(w in present for w in PGPASS_WORDS):
        return
    # Ends of the lines a row may follow: those naming the file, then each row taken.
    follows: set[int] = set()
    if ".pgpass" in present or "pgpassfile" in present:
        lowered = lowered_in_place(text)
        for word in (".pgpass", "pgpassfile"):
            pos = lowered.find(word)
            while pos != -1:
                follows.add(line_end(text, pos, len(text)))
                pos = lowered.find(word, pos + 1)
    for m in _PGPASS_ROW.finditer(text):
        start = line_start(text, m.start("host"), len(text))
        if m.group("port") not in ("5432", "*") and start - 1 not in follows:
            continue
        if m.group("port") == "*" and m.group("db").isdigit() and m.group("user").isdigit():
            continue  # a passwd row of SSSD or NIS (`hfischer:*:1868401105:1868400513:...`): uid and gid
        follows.add(line_end(text, m.start("host"), len(text)))
        user = m.group("user")
        if user != "*" and user.lower() not in TECHNICAL_USERS:
            edits.append((m.start("user"), m.end("user"), "user", user))
            state.learn_user(user)
        edits.append((m.start("pw"), m.end("pw"), "password", m.group("pw")))
