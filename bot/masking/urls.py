"""Credentials in URLs of any scheme: `scheme://user:password@host`.

Only the userinfo goes; scheme, host (masked later by the host and address passes if it is
an organisation's), port, path and harmless query parameters stay, so
`redis://:<SECRET:password-1>@<IP-2>:6379/0` still says what was refused.
Credential query parameters (`sig=`, `X-Amz-Signature=`) are key/value pairs: see pairs.py.
"""

from __future__ import annotations

import re

from bot.masking.edits import Edit
from bot.masking.hosts import STORAGE_CONTAINER_SCHEMES, host_value_ok
from bot.masking.keys import TECHNICAL_USERS, exempt_value
from bot.masking.owners import login_like, names_a_tool, person_login
from bot.masking.state import LogState
from bot.masking.vendor import char_classes, entropy, kind_of_value

# The authority after `://`, up to the path, query, fragment or the end of the token. Matched
# in a look-ahead so that an authority running into the next `://` does not hide that one.
# `#` and `?` are kept inside: a password pasted unencoded can hold one
# (`redis://:Tundra#9@host`, `https://hfischer:Sunflower1994?@nexus.acme.io`), and without an
# `@` after it nothing is taken.
# Up to 2048: an AWS CodeArtifact token as the password (`https://aws:<token>@acme-...
# codeartifact...amazonaws.com/pypi/...`, pip's index URL) is a thousand characters and more.
_AUTHORITY = re.compile(r"://(?=(?P<auth>[^\s/\"'<>\\`]{1,2048}))")
# The line gate of find_url_credentials (bot/masking/gate.py): a userinfo's `@` stands after
# its `://` on the same line (the authority holds no blank, let alone a newline).
URL_CREDENTIALS_TRIGGER = r"://.*@"


def _looks_like_token(value: str) -> bool:
    return len(value) >= 20 and char_classes(value) >= 2 and entropy(value) >= 3.0


# A login with a number after four letters or more (`delacroix93`): how clusters number people.
_NUMBERED_LOGIN = re.compile(r"[a-z]{4,20}\d{1,3}")
_DOTTED_LOGIN = re.compile(r"[a-z]{3,20}\.[a-z]{3,30}")


def _personal_url_user(user: str) -> bool:
    """Whether a URL's user (lowercase) reads as a person's login, not a service's."""
    if names_a_tool(user.rstrip("0123456789")):
        return False
    if _DOTTED_LOGIN.fullmatch(user):
        return not any(names_a_tool(part) for part in user.split("."))  # `bastian.whitlock`
    return person_login(user) or (_NUMBERED_LOGIN.fullmatch(user) is not None and login_like(user))


def find_url_credentials(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask user and password in URL userinfo; learn the user name."""
    if "://" not in text or "@" not in text:
        return
    for m in _AUTHORITY.finditer(text):
        auth = m.group("auth")
        at = auth.rfind("@")  # passwords pasted unencoded may contain '@': take the last
        if at <= 0:
            continue
        if "#" in auth[:at] and auth.find("#") < auth.find(":"):
            continue  # `http://host#frag@x`: a fragment, no userinfo
        if "?" in auth[:at] and not 0 <= auth.find(":") < auth.find("?"):
            continue  # `https://host?to=hannah@acme.io`: a query, no userinfo
        base = m.start("auth")
        userinfo = auth[:at]
        user, colon, password = userinfo.partition(":")
        if not colon and text.endswith(STORAGE_CONTAINER_SCHEMES, max(0, m.start() - 6), m.start()):
            continue  # `abfss://raw@acmelake.dfs.core.windows.net/`: a storage container's name, no login
        if user:
            kind = kind_of_value(user)
            if kind is not None or (not colon and _looks_like_token(user)):
                edits.append((base, base + len(user), kind or "token", user))
            elif user.lower() not in TECHNICAL_USERS and not exempt_value(user):
                # Masked where it stands, learned only when it reads as a person's login: URL
                # users are mostly service accounts (`trainer`, `mlflow`) whose names are also
                # ordinary words in the log. A person's own (`https://delacroix93:...@mlflow...`)
                # names their experiments and runs too (`'delacroix93-bert-ablation'`).
                edits.append((base, base + len(user), "user", user))
                if _personal_url_user(user.lower()):
                    state.learn_user(user)
        if colon and password and not exempt_value(password) and password.lower() not in TECHNICAL_USERS:
            pstart = base + len(user) + 1
            edits.append((pstart, pstart + len(password), kind_of_value(password) or "password", password))


# A URL's host that is one bare label with a digit (`http://trn-052:8888/lab?token=...`) names
# a machine of the organisation; dotted hosts are left to the FQDN and address passes.
_URL_AUTH = re.compile(r"://(?P<auth>[^\s/?#\"'`\\]{1,512})")
# The line gate of find_url_hosts: its URLs, each on one line with the owner path after it.
URL_HOSTS_TRIGGER = "://"
_BARE_HOST = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,62}")
# A URL's dotted host is read as a host whatever its suffix: the host a URL's userinfo logs in
# to (`postgresql://<USER-1>:<SECRET:password-1>@db01.initech.de:5432`), or one of three labels
# or more (`https://mlflow.initech.de`), is the organisation's own service unless a public one.
# (Outside a URL, country-code suffixes are too ambiguous to read: `newstest2014.en-de.de`.)
_DOTTED_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63}){1,16}")


def find_url_hosts(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask a bare machine name in a URL's host position, and learn it."""
    if "://" not in text:
        return
    # A log repeats its few URLs on every node: each dotted host is judged once per piece.
    judged: dict[str, bool] = {}
    for m in _URL_AUTH.finditer(text):
        auth = m.group("auth")
        start = auth.rfind("@") + 1  # after the userinfo (masked or not)
        dotted = _DOTTED_HOST.match(auth, start)
        if dotted is not None and (dotted.end() == len(auth) or auth[dotted.end()] in ":>)],;"):
            name = dotted.group()
            ok = judged.get(name)
            if ok is None:
                ok = judged[name] = (
                    name[0].isalpha()
                    and any(c.isalpha() for c in name.rsplit(".", 1)[-1])
                    and host_value_ok(name)
                )
            if ok and (start or name.count(".") >= 2):
                begin = m.start("auth") + start
                edits.append((begin, begin + len(name), "host", name))
                # Learned, as a bare host is: curl names it again bare (`* Connected to <name>
                # (<IP-1>) port 443`), where no pass reads a country-suffixed name as a host.
                state.learn_host(name)
                _repository_owner(text, m.end("auth"), name, edits, state)
                continue
        host = _BARE_HOST.match(auth, start)
        if host is None or (host.end() != len(auth) and auth[host.end()] not in ":>)],;"):
            continue
        name = host.group()
        if any(c.isdigit() for c in name) and host_value_ok(name):
            begin = m.start("auth") + start
            edits.append((begin, begin + len(name), "host", name))
            state.learn_host(name)


# A repository on the organisation's git host is filed under its owner:
# `https://gitlab.acme.de/hfischer/llm.git`, `https://git.acme.io/hfischer/llm` (a forge's host).
_REPO_PATH = re.compile(r"/([a-z][a-z0-9._-]{1,38}[a-z0-9])/[\w.-]{1,100}?(?P<git>\.git)?(?=[/\s\"'`]|$)")
_FORGE_LABELS = frozenset(("git", "gitlab", "gitea", "forgejo", "bitbucket", "code", "scm", "repo", "repos", "source"))


def _repository_owner(text: str, at: int, host: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) the owner in a private git host's repository URL when it reads as a
    login; a group (`ml/`) and other services' paths are kept."""
    path = _REPO_PATH.match(text, at)
    if path is None or (path.group("git") is None and host.split(".", 1)[0].lower() not in _FORGE_LABELS):
        return
    owner = path.group(1)
    if login_like(owner):
        edits.append((path.start(1), path.end(1), "user", owner))
        state.learn_user(owner)
