"""Key/value pairs in every syntax a log carries them in.

Env dumps and shell traces (`export HF_TOKEN=...`, `+ PGPASSWORD=...`), CLI flags
(`--hf_token=x`, `--password x`), JSON and Python reprs (`"api_key": "x"`, `{'token': 'x'}`,
JSON-escaped `\\"password\\": \\"x\\"`), YAML (`password: x`), HTTP headers
(`Authorization: Bearer x`), URL query parameters (`?X-Amz-Signature=...&sig=...`, also
URL-encoded `token%3Dx`), connection strings (`AccountKey=...;`), `.netrc`
(`machine h login u password p`).

The scan starts from words a sensitive key name contains (`pass`, `token`, `key`, ...),
found by one automaton scan of the lowered text (anchors.py): lines with none of them cost
nothing. From each word the key is extended both ways, classified (cached per key name), and
only then is a separator and value parsed. Non-sensitive keys do not consume their value, so
`--from-literal=password=x` and `DSN=...;Password=x` still reach the inner pair.
"""

from __future__ import annotations

import base64
import binascii
import re

from bot.launchers import LINE_PREFIX
from bot.masking.edits import Edit
from bot.masking.guards import declare, holds
from bot.masking.hosts import host_value_ok
from bot.masking.keys import (
    OWNER_KEYS,
    QUERY_KEY_KINDS,
    QUERY_KEY_WORDS,
    REDIS_PASSWORD_KEYS,
    KeyInfo,
    Role,
    exempt_value,
    looks_like_code,
    looks_like_path,
    looks_like_secret,
    split_words,
    username_ok,
)
from bot.masking.lines import NEXT_LINE, annotated_values, line_end, line_start, starts_line
from bot.masking.owners import login_like, names_a_tool
from bot.masking.placeholders import PLACEHOLDER_RX
from bot.masking.state import LogState
from bot.masking.vendor import kind_of_value

# The literals this module tests a whole piece for, found by one scan (guards.py).
declare("Basic ")
# The calls that name an environment variable first and give its value next.
_ENV_CALL_GUARDS = declare("getenv(", "environ.", "setenv(", "Setenv(", "putenv(", "EnvironmentVariable(")

# Every sensitive key name contains one of these (lowercase) words.
KEY_WORDS = (
    "pass", "pwd", "secret", "token", "key", "auth", "cred", "sig", "user", "login", "logname",
    "host", "addr", "nodename", "nodelist", "endpoint",
    # A bare `node` key, by its separator: `node` alone is in every NCCL init line (`nNodes 2`).
    'node"', "node:", "entity", "author", "committer", "bearer",
    "_pw",  # `ldap_bind_pw`, `SMTP_PW`: `pw` alone is inside too many words to be an anchor
    "runner_name", "runner_description", "computername", "employee", "agent_name",
    # ODBC's login in a connection string (`...;Uid=hfischer;Pwd=...`), by its separator: `uid`
    # alone is inside every `uuid` and `guid`.
    "uid=",
    # Who owns or started a thing (keys.OWNER_KEYS): `"owner":`, `created_by:`, `assignee:`.
    "owner", "ed_by", "ed-by", "assignee", "submitter", "requester",  # (`submitted-by:` as an annotation)
    # An OAuth redirect's authorization code and CSRF state (`/callback?state=...&code=...`),
    # by their query separators: `code` and `state` alone are in every exit code and job state.
    *QUERY_KEY_WORDS,
)
_SEPARATED_WORDS = frozenset(('node"', "node:", "uid="))
# Anchor hits that can sit inside a key: ours, and longer words that swallow one (`SSHPASS`).
_IN_KEYS = frozenset((*KEY_WORDS, "sshpass"))
_KEY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
_KEY_REST = re.compile(r"[\w.\-]{0,96}")
# How far on each side of an anchor word a key that said nothing is remembered by (_PairScanner.scan).
_AROUND = 6
# After the key: an optional closing quote (`"key":`, `os.environ["KEY"] =`), the separator.
_SEP = re.compile(r"""(?:\\?["']\]?)?[ \t]*(?:=>|:=|=|:(?![:/])|%3[Dd])[ \t]*""")
# Name/value lists: Kubernetes `- name: DB_PASSWORD` + `value: ...` on the next line, and
# JSON `{"name": "DB_PASSWORD", "value": "..."}` (ECS task definitions, docker inspect).
_NAMED_VALUE = re.compile(
    r"""(?:["']?[ \t]*""" + NEXT_LINE + r"""[ \t]*|["']?[ \t]*,[ \t]*)["']?[Vv]alue["']?[ \t]*:[ \t]*"""
)
# The next item of a redis-cli reply list, quoted: `2) "<value>"`.
_REDIS_REPLY_VALUE = re.compile(r'"[ \t]*' + NEXT_LINE + r'[ \t]*\d{1,4}\) "(?P<v>[^"\n]{1,4096})"')
# An XML element's text up to its closing tag, whose name _pair_at checks.
_XML_ELEMENT_VALUE = re.compile(r">(?P<v>[^<\s]{1,4096})</")
_NAME_BEFORE = re.compile(r"""["']?[Nn]ame["']?[ \t]*:[ \t]*["']?\Z""")
_WS_SEP = re.compile(r"[ \t]+(?=[^\s-])")
# (An escaped quote's value a terminal's width cut open ends at the line's end, as a quote's
# does: the wrapped run joined again reads it whole, from the same start.)
_VALUE = re.compile(
    r"""\\"(?P<esc>(?:[^"\\\n]|\\[^"\n]){1,4096}?)(?:\\"|(?=\r?\n)|\Z)
      |[bB]?"(?P<dq>(?:[^"\\\n│┃║]|\\.){1,4096})(?:"|(?=[\r\n│┃║])|\Z)
      |[bB]?'(?P<sq>[^'\n│┃║]{1,4096})(?:'|(?=[\r\n│┃║])|\Z)
      |`(?P<bq>[^`\n]{1,4096})`
      |(?P<bare>[^\s"'`])""",
    re.VERBOSE,
)
# A value alone on the line after its key (optionally after a YAML `|`/`>-` indicator), that
# line behind a launcher's prefixes when the rank printed it.
_NEXT_LINE_VALUE = re.compile(
    r"""(?:[ \t]*[|>][+-]?)?[ \t]*"""
    + NEXT_LINE
    # The object or list may close on the value's line: `{"password":` / `   "x"}`.
    + r"""[ \t]{0,64}["']?(?P<v>[^\s"',{}\[\]#-][^\s"',{}\[\]]{7,4095})(?<!:)["']?[ \t]*[}\]]{0,8},?[ \t]*(?=\r?\n|\Z)"""
)
# A flag that is one item of an argument list, its value the next item (or a key that is a
# call's first argument, its value the second: _FIRST_ARGUMENT): a quoted item of a
# JSON or Python list (`"Cmd": [..., "--api-key",` / `"<value>"` in `docker inspect`,
# `Command '['python', 'train.py', '--hub_token', '<value>']'` in a CalledProcessError), or
# an unquoted item alone on its line, the value alone on the next (`kubectl describe pod`'s
# `Args:` column, a pod spec's `- --db-password` / `- <value>`). A next item that is a flag
# is no value.
_QUOTED_NEXT_ITEM = re.compile(
    r"""(?P<q>["'])[ \t]*,[ \t]*(?:""" + NEXT_LINE + r"""[ \t]*)?(?P=q)(?P<v>(?!-)[^"'\s]{1,4096}|-[^-"'\s][^"'\s]{15,4095})(?P=q)"""
)
_LINE_NEXT_ITEM = re.compile(
    r"[ \t]*" + NEXT_LINE + r"[ \t]*(?:-[ \t]+)?(?P<v>[^\s\"'#-][^\s]{0,4095})[ \t]*(?=\r?\n|\Z)"
)
# openssl's options that take a pass phrase argument (`-passin pass:x`, `-passout pass:x`).
_OPENSSL_PASS_OPTION = re.compile(r"(?<![\w-])-pass(?:in|out|word)?[ \t]+\Z")
# A tuple of whole numbers, a tensor's shape as xformers lists its inputs (`No operator found for
# \`memory_efficient_attention_forward\` with inputs:` / `key : shape=(2, 498, 8, 32) (torch.float16)`):
# no secret, though its key is `key`.
_SHAPE_TUPLE = re.compile(r"(?:shape=)?\([ \t]*\d+(?:[ \t]*,[ \t]*\d+)*[ \t]*,?[ \t]*\)(?=[\s,;]|\Z)")
# A POSIX ACL entry's permissions, as getfacl prints them after a named user (`user:alice:r-x`).
_ACL_PERMS = re.compile(r"[r-][w-][xXsStT-]")
# A package manager's `config set KEY VALUE` (npm, pnpm, yarn): the key may follow a
# registry's path (`//registry.npmjs.org/:_authToken`).
_CONFIG_SET = re.compile(r"(?<![\w-])config[ \t]+set[ \t]+(?:--?[\w-]+[ \t]+)*(?:[^\s:]{0,200}:)?\Z")
# A key quoted as a call's first argument, its value the second: Spark's
# `spark.conf.set("fs.s3a.secret.key", "<value>")` and `.config(...)`, a tuple's `("password", ...)`;
# or as the second after a section's name, its value the third: configparser's
# `config.set('wandb', 'api_key', '<value>')`.
_FIRST_ARGUMENT = re.compile(r"""\([ \t]*(?:(?P<s>["'])[^"'\r\n]{0,128}(?P=s)[ \t]*,[ \t]*)?["']\Z""")
# A further argument after the value: the "key" was a section's name, the "value" the key
# (`config.set("credentials", "aws_secret_access_key", ...)`).
_NEXT_ARGUMENT = re.compile(r"""[ \t]*,[ \t]*[fbr]?["']""")
_ITEM_LEAD = re.compile(LINE_PREFIX + r"[ \t]*(?:-[ \t]+)?\Z")
# An exception's class named for a credential (`InvalidAPIKey`, `ExpiredTokenError`), CamelCase
# as Python classes are, and its message: words with blanks between them, which no secret has.
# The name must say it is an error (its first or last word): a CamelCase key may hold a
# passphrase of words (`DbPassword: Correct horse battery staple`).
_EXCEPTION_CLASS = re.compile(r"[A-Z][a-z]{1,20}(?:[A-Z]{2,5}|[A-Z][a-z]{1,20}){1,5}\Z")
_EXCEPTION_WORD = re.compile(
    r"(?:Invalid|Expired|Missing|Bad|Wrong|Incorrect|Unauthori[sz]ed|Revoked|Unknown|NoSuch|Malformed)[A-Z]"
    r"|[a-zA-Z](?:Error|Exception|Failure|Denied|Expired|Invalid|NotFound|Mismatch)\Z"
)
_MESSAGE = re.compile(r"[\"']?[A-Z][a-z]{0,20}(?: [A-Za-z][A-Za-z']{0,20}){2}(?![^\s.,:;!?'\"])")
# W&B's run config.yaml: the key's `desc:` line, then its `value:` (a nested mapping's
# `value:` ends its line and is left to the keys under it).
_DESCRIBED_VALUE = re.compile(
    r"[ \t]*" + NEXT_LINE + r"[ \t]+desc:[^\r\n]{0,512}" + NEXT_LINE + r"[ \t]+value:[ \t]+(?P<v>[^\s#][^\r\n]{0,4095})"
)
# A command whose output is one secret's value, alone on the next line: `echo $WANDB_API_KEY`,
# `printenv DB_PASSWORD` (also in a `set -x` trace), and the decoding of a Kubernetes Secret's
# key as Helm charts' notes print it: `kubectl get secret grafana -o
# jsonpath="{.data.admin-password}" | base64 --decode ; echo` (without the decoding the line
# below is the same secret in base64). (What stands before the key, what may follow it.)
_PRINTS_BEFORE = re.compile(r"(?:(?<![\w-])echo[ \t]+(?:-n[ \t]+)?[\"']?\$\{?|(?<![\w-])printenv[ \t]+|jsonpath=[\"']?\{)\Z")
_PRINTS_AFTER = re.compile(
    r"\}?[\"']?[ \t]*(?=\r?\n)|\}[\"']?[^\n|]{0,128}\|[ \t]*base64[ \t]+(?:-d|--decode|-D)(?![\w-])[^\n|]{0,64}(?=\r?\n)"
)
_PRINTED_VALUE = re.compile(NEXT_LINE + r"[ \t]{0,8}(?P<v>[^\s$#>][^\s]{3,4095})[ \t]*(?=\r?\n|\Z)")
# A URL-encoded JSON pair's separator and value: `%22%3A%20%22<value>%22` (the key's own `%22`
# first); the value's own escapes (`%2B`) are part of it, its encoded quote ends it.
_ENCODED_JSON_VALUE = re.compile(r"%22%3[Aa](?:%20|\+)*%22(?P<v>(?:[^%\s\"'&]|%(?!22)[0-9A-Fa-f]{2}){1,4096})%22")
# The options `aws configure get KEY` takes after its key: `--profile prod`, `--region=x`.
_GET_OPTIONS = re.compile(r"(?:[ \t]+--[\w-]+(?:[ \t=]+(?!-)[^\s]+)?)*")
_YAML_BLOCK = frozenset(("|", "|-", "|+", ">", ">-", ">+"))
_EOL_VALUE = re.compile(r"[^\r\n]{1,4096}")
# A bare value runs to a blank or quote; `&`, `;` and `,` end it only before another pair.
# An escaped line break ends it too: http.client's debug line `send: b'...\r\nHost: h\r\n
# X-Api-Key: k\r\n...'` holds a request's headers on one line, and a value that ran on would
# swallow the next header's key and its secret. So does one before an assignment: `env`'s
# output captured into one JSON string (`"stdout": "HF_TOKEN=hf_...\\nCUDA_VISIBLE_DEVICES=0,1"`).
_BARE_RUN = re.compile(r"(?:[^\s\"'`&;,\\]|\\(?!r\\n|n[A-Za-z][\w-]{0,63}:[ \t]|n[A-Za-z_]\w{0,63}=))*")
_PAIR_AHEAD = re.compile(r"(?:&amp;|[&;,])[\w.\-]{1,64}(?:=|%3[Dd])")
_BARE_MAX = 4096
_LINE_LEAD = re.compile(LINE_PREFIX + r"[ \t]*(?:(?:export|set|setenv|declare -x|ENV|\+|-)[ \t]+)?\Z")
_NEXT_PAIR = re.compile(r"(?:&amp;|[&;,]|%26)[\w.\-]{1,64}(?:=|%3[Dd])")
_ESCAPE_TAIL = re.compile(r"(?:\\[nrt])+\Z")
_HTML_ENTITY_TAIL = re.compile(r"&[a-z]{2,6};\Z")  # Slack escapes <, > and & in pasted text
_NETRC_MACHINE = re.compile(r"(?<![\w-])machine[ \t]")
_NETRC_KEYS = frozenset(("password", "passwd", "login", "account"))
# Signature V4 schemes name the algorithm (`AWS4-HMAC-SHA256 Credential=..., Signature=...`):
# kept like `Bearer`, their Credential= and Signature= parts are masked as pairs.
_SCHEMES = re.compile(
    r"(?P<scheme>Bearer|bearer|BEARER|Basic|basic|Token|token|Bot|JWT|SSWS|OAuth|Apikey|ApiKey"
    r"|AWS4-HMAC-SHA256|GOOG4-(?:RSA|HMAC)-SHA256)[ \t]+"
)
# The scheme at a line's end, its credential on the next line: a terminal's width cut the
# header right after `Basic` (`'Authorization': 'Basic` / ` dXNlcjpw...='}`).
_SCHEME_AT_CUT = re.compile(r"(?P<scheme>Bearer|bearer|BEARER|Basic|basic|Token|token)\r?\n[ \t]*(?=[A-Za-z0-9._~+/=-]{8})")
_CRED = re.compile(r"""[^\s"'\\,;]{4,8192}""")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{4,}={0,2}\Z")
_FULL_NAME_NEXT = re.compile(r"[ \t][A-Z][a-z'’-]")


def _decodes_to_pair(value: str) -> bool:
    """Docker `auth` and HTTP Basic carry base64 of `user:password`."""
    if not _BASE64.match(value) or len(value) % 4:
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    return ":" in decoded and decoded.isprintable()


# A quote inside a bare value is part of it when a value character follows: env and printenv
# print values raw (`DB_PASSWORD=pz"b\LGV`, a generated password's symbols), while a quote
# that closes the text around the pair is followed by a blank, punctuation or the line end
# (`["DB_PASSWORD=x","HOME=/root"]`, `'PW=x'}`).
_AFTER_CLOSING_QUOTE = frozenset(" \t\r\n,;)]}>&\"'`")


def _bare_end(text: str, pos: int) -> int:
    """End of a bare value: each character is looked at once, whatever the input."""
    limit = min(len(text), pos + _BARE_MAX)
    end = pos
    while True:
        end = _BARE_RUN.match(text, end, limit).end()  # type: ignore[union-attr]
        if end >= limit:
            return end
        ch = text[end]
        if ch in "\"'`":
            if end > pos and end + 1 < limit and text[end + 1] not in _AFTER_CLOSING_QUOTE:
                end += 1
                continue
            return end
        if ch not in "&;," or _PAIR_AHEAD.match(text, end):
            return end
        end += 1


def _trim_bare(value: str) -> str:
    """Cut a bare value at the next pair or at closing punctuation that belongs to the text."""
    m = _NEXT_PAIR.search(value)
    if m:
        value = value[: m.start()]
    value = _ESCAPE_TAIL.sub("", value)
    while value and value[-1] in ",;.:\\" and not _HTML_ENTITY_TAIL.search(value):
        value = value[:-1]
    for opener, closer in (("(", ")"), ("[", "]"), ("{", "}"), ("<", ">")):
        while value.endswith(closer) and value.count(closer) > value.count(opener):
            value = value[:-1]
    return value


def _ends_placeholder(text: str, end: int) -> bool:
    lt = text.rfind("<", max(0, end - 48), end)
    if lt == -1:
        return False
    m = PLACEHOLDER_RX.match(text, lt)
    return m is not None and m.end() == end


def _lone_secret(text: str, pos: int) -> bool:
    m = _LONE_VALUE.match(text, pos)
    return m is not None and looks_like_secret(m.group().strip())


class _PairScanner:
    """One scan of one chunk; collects edits and learned names."""

    def __init__(self, text: str, edits: list[Edit], state: LogState) -> None:
        self.text = text
        self.edits = edits
        self.state = state
        # End of the last value parsed: words inside it belong to that value. Skipping them
        # keeps `token=token=token=...` linear instead of re-parsing the value from each word.
        self.parsed_until = -1

    def scan(self, hits: list[tuple[str, int, int]]) -> None:
        # Any anchor word may sit inside a key (`SSHPASS`, `WANDB_API_KEY`), so every hit is
        # tried as part of one; a key reached from several words is parsed once.
        seen: set[int] = set()
        # The few characters around a hit whose key said nothing, when the key lies within
        # them: the same characters around the same word make the same key, which says
        # nothing again. Most hits are words inside ordinary words (`host` in `localhost`,
        # `sig` in `assign`, `addr` in `address`), printed on every line of a retry flood.
        said_nothing: set[tuple[str, int, str]] = set()
        text = self.text
        key_rest = _KEY_REST.match
        for word, pos, word_end in hits:
            if pos < self.parsed_until or word not in _IN_KEYS:
                continue
            around_start, around_end = (pos - _AROUND if pos > _AROUND else 0), word_end + _AROUND
            around = (word, pos - around_start, text[around_start:around_end])
            if around in said_nothing:
                continue
            if word in _SEPARATED_WORDS:
                word_end = pos + len(word) - 1  # the key ends before its quote or colon
            lo = pos - 96 if pos > 96 else 0
            if word in QUERY_KEY_WORDS:
                if text[pos] not in "?&" or text.startswith("%", pos + len(word)):
                    # A non-ASCII character the anchor scan read as `?`; or URL-encoded JSON
                    # (`state=%7B%22api_key%22...`), whose own pairs are read inside it.
                    continue
                start = run_start = pos + 1  # the key starts after the query's separator
                word_end -= 1
            else:
                start = run_start = lo + len(text[lo:pos].rstrip(_KEY_CHARS))
            if start in seen:
                continue
            seen.add(start)
            if start and text[start - 1] == "%" and text[start : start + 2].isalnum():
                start += 2  # URL-encoded: `%3Ftoken%3D...` names the key `token`
            elif start and text[start - 1] == "\\" and text.startswith("u0026", start):
                start += 5  # JSON-escaped `&` (Go's encoder): `\u0026sig=...` names the key `sig`
            elif start and text[start - 1] == "\\" and text[start] in "nrt":
                start += 1  # an escaped line break: http.client's `\r\nauthorization: ...` names `authorization`
            key_end = key_rest(text, word_end).end()
            key = text[start:key_end]
            # A jsonpath (`{.data.api-key}`) names its key last.
            if word in QUERY_KEY_WORDS:
                kind = QUERY_KEY_KINDS.get(key.lower())
                info = None if kind is None else KeyInfo(Role.GENERIC, kind)
            else:
                info = self.state.key_info(key.rpartition(".")[2] if key[:1] == "." else key.lstrip("-"))  # most keys repeat, most say nothing
            if info is not None:
                self._pair_at(start, key_end, key, info)
            elif run_start > around_start and key_end < around_end:
                # (A character that ends the key stands on each side within them, so the `%`
                # before an encoded key is one of them too.)
                said_nothing.add(around)

    def _pair_at(self, start: int, key_end: int, key: str, info: KeyInfo) -> None:
        text = self.text
        if start and text[start - 1] == "<" and PLACEHOLDER_RX.match(text, start - 1):
            return  # `<SECRET:token-1>` is ours, not a `SECRET: ...` pair
        if text.startswith("://", start - 3):
            return  # `https://__token__:pypi-...@host`: URL userinfo, the URL pass owns it
        if start and text[start - 1] == ">" and _ends_placeholder(text, start):
            # `<SECRET:hf-token-1>-api-key x`: on the first pass this key ran into the masked
            # word (`hf_...x-api-key`) and said nothing; it must say nothing now either.
            return
        core = key.lstrip("-")
        sep = _SEP.match(text, key_end)
        if sep is None and _NAME_BEFORE.search(text, max(0, start - 16), start):
            sep = _NAMED_VALUE.match(text, key_end)
        if (sep is not None and _EXCEPTION_CLASS.match(name := key.rpartition(".")[2]) and _EXCEPTION_WORD.search(name)
                and _MESSAGE.match(text, sep.end())):
            return  # `InvalidAPIKey: The API key provided is invalid`: a raised class and its message
        if sep is None and text.startswith("%22", key_end) and self._encoded_json_value(key_end, info, core):
            return
        if sep is None and start and text[start - 1] == "<" and text.startswith(">", key_end):
            # An XML element: STS's `<SecretAccessKey>...</SecretAccessKey>` in botocore's
            # `Response body: b'...'`, Maven's `<password>`. A plain `key` (a plist's
            # `<key>Name</key>`) names, it holds no value.
            m = _XML_ELEMENT_VALUE.match(text, key_end)
            if m is not None and info.role is Role.SECRET and text.startswith(key + ">", m.end("v") + 2):
                self._take(m, info, core)
            return
        if sep is None and text[max(0, start - 14) : start].endswith("configure get "):
            # `aws configure get aws_secret_access_key` prints the value alone on the next line,
            # also with its options after the key (`--profile prod`).
            self._next_line_value(_GET_OPTIONS.match(text, key_end).end(), info, core)
            return
        if sep is None and info.role in (Role.SECRET, Role.GENERIC) and self._printed_value(start, key_end, info, core):
            return
        if sep is None and core in REDIS_PASSWORD_KEYS and text.endswith(') "', max(0, start - 3), start):
            # redis-cli's `CONFIG GET requirepass` reply: `1) "requirepass"`, the value below.
            m = _REDIS_REPLY_VALUE.match(text, key_end)
            if m is not None:
                self._take(m, info, core)
            return
        if (
            sep is None
            and (key.startswith("-") or _FIRST_ARGUMENT.search(text, max(0, start - 144), start) is not None)
            and self._list_item_value(start, key_end, info, core)
        ):
            return
        if sep is None:
            if not self._whitespace_pair(start, key, core, info):
                return
            sep = _WS_SEP.match(text, key_end)
            if sep is None:
                return
        value_start = sep.end()
        if info.role is not Role.USER and info.role is not Role.HOST and self._login_pair(value_start):
            return
        if info.role is Role.AUTHZ:
            self._authorization(value_start, self._in_prose(value_start, core))
            return
        m = _VALUE.match(text, value_start)
        if m is None:
            if sep.group().rstrip().endswith(":") and self._described_value(value_start, info, core):
                return
            # `"SecretAccessKey":` or YAML `aws_secret_access_key: >-` with the value on the
            # next line: a JSON or YAML pretty-printer split the pair. An assignment that ends
            # its line (`AWS_SECRET_ACCESS_KEY=` in `env`) is an empty variable: the next line
            # is the next variable, not its value.
            if info.role is not Role.GENERIC and "=" not in sep.group() and "%3" not in sep.group():
                self._next_line_value(value_start, info, core)
            return
        group = m.lastgroup or "bare"
        vstart, vend = m.start(group), m.end(group)
        value = m.group(group)
        if group in ("dq", "sq") and text[vend : vend + 1] not in ("'", '"'):
            # A quote a box's frame or the line's end cut open (rich's `locals` panel folds
            # a long value): the value ends at its last letter, the padding and bars stay.
            value = value.rstrip()
            vend = vstart + len(value)
        if info.role is not Role.USER and info.role is not Role.HOST and self._holds_pairs(vstart):
            # `AZURE_STORAGE_SAS_TOKEN="sv=2022-11-02&...&sig=x"`, `--sas-token "?sv=..."`,
            # `GOOGLE_CREDENTIALS={"type": ...}`: the value is pairs; its secret ones (`sig=`,
            # `"private_key":`) are masked as pairs, and what says which version, which
            # permissions, which account, stays.
            return
        if group == "bare":
            if self._line_value(start, sep.group(), info):
                eol = _EOL_VALUE.match(text, value_start)
                value = eol.group().rstrip() if eol is not None else value
            else:
                value = text[vstart : _bare_end(text, vstart)]
            continued = value == "\\"
            value = _trim_bare(value)
            vend = vstart + len(value)
            if (value in _YAML_BLOCK or continued) and info.role is not Role.GENERIC:
                # `key: >-` and the value below it; a shell line continued after `KEY=\`.
                self._next_line_value(vend + continued, info, core)
                return
        self.parsed_until = vend
        if value:
            self._value(info, core, value, vstart, vend)

    def _login_pair(self, pos: int) -> bool:
        """requests' and jira's `auth=('hfischer', '<password>')`, `basic_auth=(...)`,
        `auth=HTTPBasicAuth('hfischer', '<password>')`: a login and its password, the login
        masked as the user (or left to the e-mail pass), the second item as the password.
        True when the value had that shape."""
        m = _LOGIN_PAIR.match(self.text, pos)
        if m is None:
            return False
        self._user("user", m.group("user"), m.start("user"))
        password = m.group("v")
        self.parsed_until = m.end()
        if not exempt_value(password) and not looks_like_code(password):
            self.edits.append((m.start("v"), m.end("v"), kind_of_value(password) or "password", password))
        return True

    def _list_item_value(self, start: int, key_end: int, info: KeyInfo, core: str) -> bool:
        """A flag that is an item of an argument list, its value the next item (_QUOTED_NEXT_ITEM,
        _LINE_NEXT_ITEM). True when the flag had a value there."""
        text = self.text
        if start and text[start - 1] in "\"'":
            m = _QUOTED_NEXT_ITEM.match(text, key_end)
            if m is None or m.group("q") != text[start - 1]:
                return False
        else:
            lead = line_start(text, start, 64)
            if (lead and text[lead - 1] != "\n") or _ITEM_LEAD.match(text, lead, start) is None:
                return False
            m = _LINE_NEXT_ITEM.match(text, key_end)
            if m is None:
                return False
        if m.group("v").startswith("-") and not looks_like_secret(m.group("v")):
            return False  # the next option (`'-v'`, `'-output-dir'`), not a value: a token may start with `-`
        if text[start] != "-" and _NEXT_ARGUMENT.match(text, m.end()) is not None:
            return False  # a section's name, then its key: the value is the argument after
        self._take(m, info, core)
        return True

    def _take(self, m: re.Match[str], info: KeyInfo, core: str) -> None:
        """The value in `m`'s group `v`: parsed up to its end, masked as its key says."""
        self.parsed_until = m.end("v")
        self._value(info, core, m.group("v"), m.start("v"), m.end("v"))

    def _holds_pairs(self, vstart: int) -> bool:
        """The value starts a JSON object, a query string whose signature is a pair of its own,
        or a pair whose key says what it holds (botocore's `credentials: aws_access_key_id=...`:
        the inner key is the diagnostic fact, and it masks its own value)."""
        text = self.text
        if text.startswith(("{\"", "{'", "{ \""), vstart):
            return True
        inner = _INNER_KEY.match(text, vstart)
        if inner is not None and self.state.key_info(inner.group(1)) is not None:
            return True
        m = _SIGNED_QUERY.match(text, vstart)
        return m is not None and _QUERY_SIGNATURE.search(m.group()) is not None

    def _described_value(self, pos: int, info: KeyInfo, core: str) -> bool:
        """W&B's run `config.yaml`: each key holds a `desc:` line, then its `value:` line
        (`hub_token:` / `  desc: null` / `  value: hf_...`). True when the key had that shape."""
        m = _DESCRIBED_VALUE.match(self.text, pos)
        if m is None:
            return False
        value = m.group("v").rstrip()
        if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0]:
            value = value[1:-1]
        vstart = m.start("v") + (m.group("v")[:1] in "\"'")
        self.parsed_until = vstart + len(value)
        self._value(info, core, value, vstart, vstart + len(value))
        return True

    def _encoded_json_value(self, pos: int, info: KeyInfo, core: str) -> bool:
        """A JSON pair URL-encoded into a query (`state=%7B%22wandb_key%22%3A%20%22<value>%22`):
        the value runs to its encoded closing quote. True when the pair had that shape."""
        m = _ENCODED_JSON_VALUE.match(self.text, pos)
        if m is None:
            return False
        self._take(m, info, core)
        return True

    def _next_line_value(self, pos: int, info: KeyInfo, core: str) -> None:
        m = _NEXT_LINE_VALUE.match(self.text, pos)
        if m is not None:
            self._take(m, info, core)

    def _printed_value(self, start: int, key_end: int, info: KeyInfo, core: str) -> bool:
        """`echo $KEY`, `printenv KEY`, `kubectl get secret ... {.data.key} | base64 -d`: the
        value on the next line. True when the command was one of these."""
        text = self.text
        lead = max(line_start(text, start, 128), start - 128)
        if not _PRINTS_BEFORE.search(text, lead, start):
            return False
        rest = _PRINTS_AFTER.match(text, key_end)
        if rest is None:
            return False
        if text[start - 1] == "{" and info.role is Role.GENERIC:
            info = KeyInfo(Role.SECRET, info.kind)  # a key of a Secret's data: a secret whatever its shape
        m = _PRINTED_VALUE.match(text, rest.end())
        if m is not None:
            self._take(m, info, core)
        return True

    def _whitespace_pair(self, start: int, key: str, core: str, info: KeyInfo) -> bool:
        """`--password x`, netrc's `password x`, `aws configure set aws_secret_access_key x`,
        `dvc remote modify NAME password x`, csh's `setenv KEY x`, fish's `set -gx KEY x`,
        and an env table's `KEY<blanks>x`."""
        if key.startswith("--"):
            return True
        text = self.text
        lead_start = line_start(text, start, 64)
        if _SHELL_SET.search(text, lead_start, start):
            return True
        if _REMOTE_MODIFY.search(text, max(line_start(text, start, 128), start - 128), start):
            return True  # DVC's remote settings: `dvc remote modify --local storage password x`
        if (
            info.role is Role.SECRET
            and lead_start == start
            and (start == 0 or text[start - 1] == "\n")
            and key.isupper()
            and _lone_secret(text, start + len(key))
        ):
            # A two-column listing of variables (`COMET_API_KEY<TAB>value`): an upper-case
            # name first on its line and one random-looking word after it, nothing more
            # (a table's `TOKEN   TYPE` or `SECRET   Opaque` row is no pair).
            return True
        if core in REDIS_PASSWORD_KEYS and (
            starts_line(text, start) or text[max(0, start - 11) : start].upper().endswith("CONFIG SET ")
        ):
            return True  # redis.conf's `requirepass <pw>` line; redis-cli's `CONFIG SET requirepass <pw>`
        if key.startswith("-"):
            # `-password x`, but not `-pS3cretPass`: a short option with its value glued on
            # (mysql) is no key, and the word after it is the database name.
            return _ONE_CASE_FLAG.match(core) is not None
        if core in _NETRC_KEYS:
            # .netrc: `machine h login u password p` on one line, or `login`/`password` lines
            # under a `machine` line. Prose ("Login Succeeded", "password via the CLI") is not.
            # (Blanks may be tabs: `machine<TAB>api.wandb.ai` is as valid to netrc's parser.)
            line = text[line_start(text, start, 256) : line_end(text, start, 256)]
            if _NETRC_MACHINE.search(line):
                return True
            return starts_line(text, start) and _NETRC_MACHINE.search(text, max(0, start - 256), start) is not None
        if _CONFIG_SET.search(text, max(line_start(text, start, 256), start - 256), start):
            return True  # `npm config set //registry.npmjs.org/:_authToken <value>`, `yarn config set npmAuthToken <value>`
        return text[max(line_start(text, start, 16), start - 16) : start].endswith("configure set ")

    def _line_value(self, start: int, sep: str, info: KeyInfo) -> bool:
        """A YAML/netrc-style `password: two words` owns the rest of its line."""
        if info.role is not Role.SECRET or "=" in sep or self.text.startswith("-", start):
            # A flag's value is one word (`--password x --db-url y`): its line holds more flags.
            return False
        lead_start = line_start(self.text, start, 64)
        if lead_start and self.text[lead_start - 1] != "\n":
            return False
        return _LINE_LEAD.match(self.text, lead_start, start) is not None

    def _value(self, info: KeyInfo, core: str, value: str, vstart: int, vend: int) -> None:
        if info.role is Role.USER:
            self._user(core, value, vstart)
            return
        if info.role is Role.HOST:
            # `host:`/`Hostname:` also occur in prose ("host: unreachable"): there a host
            # must look like one (digit, dash or dot); MASTER_ADDR and friends take any name.
            if core.lower() == "node":
                # `node:` also holds a rank, a count or a Node.js version (`node: 20`): only a
                # numbered machine name is taken (`"node": "gn334"`), learned as `host:`'s is.
                m = _NUMBERED_NODE.match(value)
                if m is not None:
                    self._hosts(m.group(), vstart, strict=True)
                return
            strict = (core.lower() in ("host", "hostname") and not core.isupper()) or core.lower() == "ci_runner_description"
            self._hosts(value, vstart, strict=strict)
            return
        if exempt_value(value) or looks_like_code(value) or looks_like_path(value) or "://" in value:
            return
        if core.lower() == "pwd" and (value.startswith(("/", "~", "\\", "$")) or _DRIVE.match(value)):
            return  # the shell's working directory (`PWD=/home/...`), not ODBC's `PWD=<password>`
        if value.startswith("--"):
            return  # `password= --password-stdin`: an empty value, then the next option
        if value in ("{", "[", "(", "{}", "[]"):
            return  # `"Credentials": {`: the key opens an object, its values are parsed on their own
        if _SHAPE_TUPLE.match(self.text, vstart) is not None:
            return  # xformers' inputs: `key : shape=(2, 498, 8, 32) (torch.float16)`, a tensor's shape
        lowered_value = value.lower()
        if lowered_value == core.lower() or lowered_value == core.rsplit("_", 1)[-1].lower():
            return  # `token=token`, `password=password` in shown source
        if info.kind != "password" and _CONSTANT.match(value) and self.state.key_info(value) is not None:
            return  # `api_key=NGC_KEY` in a traceback's source line: a constant's name, itself a key's
        if info.role is Role.SECRET and self._in_prose(vstart, core):
            info = KeyInfo(Role.GENERIC, info.kind)  # "failed to read secret: permission denied"
        if info.role is Role.GENERIC:
            if info.kind == "auth" and _decodes_to_pair(value):
                self.edits.append((vstart, vend, "docker-auth", value))
                return
            if not looks_like_secret(value):
                return
        elif core.lower() in ("token", "sig") and value.isdigit() and len(value) < 8:
            return  # a token id or a signal number
        kind = kind_of_value(value) or info.kind
        if kind in ("token", "key", "api-key") and len(value) == 40 and self._wandb_line(vstart):
            kind = "wandb-key"
        self.edits.append((vstart, vend, kind, value))

    def _in_prose(self, vstart: int, core: str) -> bool:
        """`fetch anonymous token: unexpected status`: a lowercase word inside a sentence.

        A config line (`password: x` at the start of a line), a quoted JSON key, a flag or
        an env name keeps masking whatever the value; only this case gets the shape gate.
        """
        if not core.isalpha() or not core.islower():
            return False
        text = self.text
        key_start = text.rfind(core, max(0, vstart - 64), vstart)
        if key_start <= 0 or text[key_start - 1] != " " or text[key_start + len(core)] != ":":
            return False
        if _OPENSSL_PASS_OPTION.search(text, max(0, key_start - 16), key_start):
            return False  # openssl's pass phrase argument: `-passout pass:<value>`
        return not starts_line(text, key_start)

    def _wandb_line(self, pos: int) -> bool:
        line = self.text[line_start(self.text, pos, 512) : line_end(self.text, pos, 512)]
        return "wandb" in line or "WANDB" in line or "Wandb" in line

    def _user(self, core: str, value: str, vstart: int) -> None:
        if value.startswith("arn:"):
            return  # an ARN (`User: arn:aws:sts::...`): the cloud pass owns it
        if "@" in value:
            user, _, cluster = value.partition("@")
            if "." in cluster or not cluster:
                return  # an e-mail: its pass owns it
            # kubeconfig names a user for its cluster: `user: hfischer@gpu-prod`, the same
            # `hfischer@gpu-prod` as the context's and the user entry's `name:` (learned).
            if username_ok(user):
                self.edits.append((vstart, vstart + len(user), "user", user))
                self.state.learn_user(user)
            return
        user, colon, password = value.partition(":")
        if colon and core.lower() in ("user", "u"):
            # curl/wget `--user alice:secret` (getfacl's `user:alice:r-x` entry ends in its
            # permissions, no password)
            if password and not exempt_value(password) and _ACL_PERMS.fullmatch(password) is None:
                pstart = vstart + len(user) + 1
                self.edits.append((pstart, pstart + len(password), "password", password))
            value = user
        owner = "_".join(split_words(core)) in OWNER_KEYS
        if owner and _FULL_NAME_NEXT.match(self.text, vstart + len(value)):
            return  # `owner: Hannah Fischer`: a person's name, the names pass masks it whole
        if owner and not login_like(value):
            return  # `"owner": "ml-platform"`, `airflow`: a team's or a tool's, kept like a team entity
        if not owner and core.isupper() and names_a_tool(value.lower()):
            return  # `POSTGRES_USER=mlflow`: a service's own account, kept as libpq's refusal keeps it
        if username_ok(value):
            self.edits.append((vstart, vstart + len(value), "user", value))
            if owner or core.isupper() or self._answers_whoami(vstart):
                # USER=, LOGNAME=, SLURM_JOB_USER= name the account running the job, an owner
                # key whose thing it is, `hf auth whoami`'s `user:  hfischer` the Hub login.
                # Other user keys (a DB login, a registry user) are masked where they stand only.
                self.state.learn_user(value)

    def _answers_whoami(self, vstart: int) -> bool:
        """Whether the value's line is the answer to a `whoami` on the line before it."""
        start = line_start(self.text, vstart, 128)
        return start > 0 and self.text[line_start(self.text, start - 1, 256) : start].rstrip().endswith("whoami")

    def _hosts(self, value: str, vstart: int, strict: bool) -> None:
        if "://" in value or "@" in value:
            return
        offset = 0
        for item in re.split(r"([,\s]+)", value):
            host = item.split(":", 1)[0] if item.count(":") == 1 else item
            if strict and not any(c.isdigit() or c in "-." for c in host):
                host = ""
            if host and host_value_ok(host):
                self.edits.append((vstart + offset, vstart + offset + len(host), "host", host))
                # A numbered name under `host:` (`"host": "nid0051"`, a JSON log's field) is a
                # machine wherever it recurs (`Node: nid0051/...`); a prose word is not learned.
                if not strict or any(c.isdigit() for c in host):
                    self.state.learn_host(host)
            offset += len(item)

    def _authorization(self, pos: int, in_prose: bool) -> None:
        text = self.text
        if pos < len(text) and text[pos] in "\"'\\":
            pos += 2 if text.startswith('\\"', pos) else 1
        scheme = _SCHEMES.match(text, pos) or _SCHEME_AT_CUT.match(text, pos)
        if scheme is not None:
            pos = scheme.end()
        m = _CRED.match(text, pos)
        if m is None:
            return
        self.parsed_until = m.end()
        cred = _trim_bare(m.group())
        if not cred or exempt_value(cred) or looks_like_code(cred) or cred.startswith("Credential="):
            return
        if in_prose and scheme is None and not looks_like_secret(cred):
            return  # containerd's `may require authorization: server message: ...`: the sentence goes on
        basic = scheme is not None and scheme.group("scheme").lower() == "basic"
        kind = "basic-auth" if basic else kind_of_value(cred) or "token"
        self.edits.append((pos, pos + len(cred), kind, cred))


# Whole, with its domain when it has one (`gpu-h100-19.int.corp.com`): never the name's head.
_NUMBERED_NODE = re.compile(r"[A-Za-z]{2}[A-Za-z0-9-]{0,40}\d{2,6}(?:\.[A-Za-z][A-Za-z0-9-]{0,62}){0,8}(?![\w.-])")
# Shells that set a variable without `=`: csh/tcsh `setenv NAME value` (HPC login scripts),
# fish `set -x NAME value` / `set -gx NAME value`.
_SHELL_SET = re.compile(r"(?:^|(?<=[\s;+(]))(?:setenv|set[ \t]+-[gUxl]{1,4})[ \t]+\Z")
# A query string (`sv=...&sig=...`, `?sp=r&...`), and the signature parameter it must hold to be
# left to its own pairs.
_SIGNED_QUERY = re.compile(r"\??[\w.%-]{1,64}=[^\s\"'`&]{0,4096}(?:&[\w.%-]{1,64}=[^\s\"'`&]{0,4096}){1,64}")
_QUERY_SIGNATURE = re.compile(r"(?:\A\??|&)(?:sig|signature|x-amz-signature|x-goog-signature)=[^&]", re.IGNORECASE)
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
# A (login, password) tuple as Python's HTTP clients take it: `auth=('hfischer', 'pw')`, also
# wrapped in the auth class that carries it (`HTTPBasicAuth(...)`, aiohttp's `BasicAuth(...)`).
_LOGIN_PAIR = re.compile(
    r"""(?:(?:requests\.auth\.|aiohttp\.|httpx\.)?(?:HTTP(?:Basic|Digest|Proxy)Auth|BasicAuth|DigestAuth))?"""
    r"""\([ \t]*(?P<q1>["'])(?P<user>[^"'\s]{1,256})(?P=q1)[ \t]*,[ \t]*(?P<q2>["'])(?P<v>[^"'\r\n]{1,4096})(?P=q2)[ \t]*\)"""
)
_REMOTE_MODIFY = re.compile(r"(?<![\w-])remote[ \t]+modify(?:[ \t]+-[-\w]+)*[ \t]+[\w.-]+[ \t]+\Z")
# A constant's or an environment variable's name (`NGC_API_KEY`), as source code passes one.
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\Z")
# A value that is itself a `key=value` pair.
_INNER_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]{0,63})=(?![=\s])")
_LONE_VALUE = re.compile(r"[ \t]+[^\s]+[ \t]*(?=\r?\n|\Z)")
_ONE_CASE_FLAG = re.compile(r"(?:[a-z][a-z_-]*|[A-Z][A-Z_-]*)\Z")
_STANDALONE_AUTH = re.compile(r"(?P<scheme>[Bb]earer|BEARER|Basic)[ \t]+(?P<cred>[A-Za-z0-9._~+/=-]{8,8192})")


def _standalone_auth(text: str, has_bearer: bool, edits: list[Edit]) -> None:
    """`Bearer x` outside a header line (curl -H, Python dict reprs, error text)."""
    if not has_bearer and not holds(text, "Basic "):
        return
    pos = 0
    while (m := _STANDALONE_AUTH.search(text, pos)) is not None:
        # Go on from the credential, not past it: `Bearer /x/Bearer hf_...` holds a second
        # scheme inside the first match, which a pass over masked text would find.
        pos = m.start("cred")
        cred = _trim_bare(m.group("cred"))
        if m.group("scheme") == "Basic":
            if not _decodes_to_pair(cred):
                continue
            kind = "basic-auth"
        else:
            if exempt_value(cred) or (not looks_like_secret(cred) and kind_of_value(cred) is None):
                continue
            kind = kind_of_value(cred) or "token"
        start = m.start("cred")
        edits.append((start, start + len(cred), kind, cred))


# A secret's fallback in source a traceback shows: `os.getenv("MISTRAL_API_KEY", "<key>")`,
# `os.environ.get('HF_TOKEN', '<token>')`, and a secret set by a call the same way: Go's
# `os.Setenv`, C's `setenv`, pytest's `monkeypatch.setenv`, `os.putenv`, PowerShell's
# `[Environment]::SetEnvironmentVariable("NAME", "value", "User")`: the name, then the value,
# as a pair.
_ENV_DEFAULT = re.compile(
    r"""(?:getenv|environ\.get|environ\.setdefault|[sS]etenv|putenv|SetEnvironmentVariable)\([ \t]*(?P<q>["'])(?P<key>[\w.-]{1,96})(?P=q)[ \t]*,[ \t]*"""
    r"""(?P<vq>["'])(?P<value>[^"'\n]{1,4096})(?P=vq)"""
)


def _env_defaults(scanner: _PairScanner, text: str) -> None:
    for m in _ENV_DEFAULT.finditer(text):
        key = m.group("key")
        info = scanner.state.key_info(key)
        if info is not None and info.role in (Role.SECRET, Role.GENERIC):
            scanner._value(info, key, m.group("value"), m.start("value"), m.end("value"))


def _annotated_values(scanner: _PairScanner, text: str) -> None:
    """The values loguru prints under a traceback's variables, judged by the variables' names."""
    for name, m in annotated_values(text):
        info = scanner.state.key_info(name)
        if info is not None and info.role in (Role.SECRET, Role.GENERIC):
            scanner._value(info, name, m.group("v"), m.start("v"), m.end("v"))


def find_pairs(text: str, hits: list[tuple[str, int, int]], edits: list[Edit], state: LogState) -> None:
    """Append edits for the values of sensitive keys, and learn user and host names.

    `hits` are the anchor words found in the lowered text (anchors.find_anchors).
    """
    scanner = _PairScanner(text, edits, state)
    scanner.scan(hits)
    if any(holds(text, guard) for guard in _ENV_CALL_GUARDS):
        _env_defaults(scanner, text)
    if "└ " in text:  # (not a guard literal: those are ASCII; an ASCII text answers at once)
        _annotated_values(scanner, text)
    _standalone_auth(text, any(word == "bearer" for word, _, _ in hits), edits)
