"""Personal data: e-mail addresses and user names in paths, prompts and login banners."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain

import regex

from bot.literals import Words, lowered_in_place, one_byte
from bot.masking.buckets import GIVEN_NAMES
from bot.masking.edits import Edit
from bot.masking.guards import declare, holds
from bot.masking.hosts import (
    STORAGE_CONTAINER_SCHEMES,
    _matches_from,
    host_value_ok,
    is_public_host,
    learn_org_domain,
)
from bot.masking.keys import TECHNICAL_USERS, team_like
from bot.masking.lines import NEXT_LINE, LinePattern, line_end, line_start
from bot.masking.owners import family_login, given_login, login_like, names_a_tool, person_login
from bot.masking.publishers import personal_signal, unknown_account, word_handle
from bot.masking.state import LogState
from bot.masking.surnames import FAMILY_NAMES

# The literals this module tests a whole piece for, found by one scan (guards.py).
declare("%40", "IdentityFile", "HostName", " Project ", "[at]", "(at)", "[AT]", "(AT)")

# `regex` scans for the `@` literal first, so text without e-mails costs almost nothing.
# The local part starts with a letter or digit: `.@x.com` left after a masked address is not
# a second address on the next pass. A domain's labels hold no `_`, and a `-` after its last
# label starts no label unless a `.` follows: file and run names glue an address to their
# other parts that way (`jane.doe@acme.com_run3`, `run-jane.doe@acme.com-3`).
_EMAIL_RX = regex.compile(
    r"(?<![\w.%+-])[^\W_][\w.%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}"
    r"[A-Za-z]{2,24}(?![^\W_]|-[A-Za-z0-9-]*\.[A-Za-z0-9]|\.[A-Za-z0-9])"
)


# An address spelled out against scrapers in a signature or a chat: `hfischer [at] acme [dot] de`,
# `hannah.fischer(at)uni-kassel.de`. The `at` in brackets is what says so; the domain's dots may
# be spelled out too. Masked as the address it stands for, so the plain one shares its placeholder.
_OBFUSCATED_AT = r"[ \t]?[\[(](?:at|AT)[\])][ \t]?"
_OBFUSCATED_DOT = r"(?:[ \t]?[\[(](?:dot|DOT)[\])][ \t]?|\.)"
_EMAIL_OBFUSCATED_RX = re.compile(
    r"(?<![\w.%+-])(?P<local>[^\W_][\w.%+-]{0,63})" + _OBFUSCATED_AT
    + r"(?P<domain>[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:" + _OBFUSCATED_DOT + r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?){1,10})"
    r"(?![\w-])"
)
_SPELLED_DOT = re.compile(_OBFUSCATED_DOT)


def _find_obfuscated_emails(text: str, edits: list[Edit]) -> None:
    for m in _EMAIL_OBFUSCATED_RX.finditer(text):
        domain = _SPELLED_DOT.sub(".", m.group("domain"))
        if not re.search(r"\.[A-Za-z]{2,24}\Z", domain):
            continue  # `rank [at] 3`: no domain after it
        edits.append((m.start(), m.end(), "email", f"{m.group('local')}@{domain}"))


def find_emails(text: str, edits: list[Edit], state: LogState | None = None) -> None:
    """Mask e-mail addresses; `git@github.com` is an ssh endpoint, not a person.

    A `first.last` local part is a person's account name too: it is learned (with its DNS
    form, `first-last`, as it shows in Kubernetes namespaces and pod names).
    """
    if holds(text, "[at]") or holds(text, "(at)") or holds(text, "[AT]") or holds(text, "(AT)"):
        _find_obfuscated_emails(text, edits)
    if holds(text, "%40"):
        # URL-encoded in a URL path or query: `.../serviceAccounts/ml-sa%40proj.iam.gserviceaccount.com`.
        for m in _EMAIL_ENCODED_RX.finditer(text):
            edits.append((m.start(), m.end(), "email", m.group().replace("%40", "@")))
    if "@" not in text:
        return
    for m in _EMAIL_RX.finditer(text):
        addr = m.group()
        local, _, domain = addr.partition("@")
        if (local.lower() in TECHNICAL_USERS or local.lower() in _SERVICE_LOCALS) and is_public_host(domain):
            continue
        if text.startswith(_SSH_DENIED, m.end()):
            continue  # ssh's `user@host: Permission denied (...)`: an account at a machine
        start = m.start()
        # VS Code's Remote-SSH authority, `ssh-remote+hfischer@login01.acme.io`: a login at a
        # machine (`+` may stand in an address's local part, so the match holds the prefix).
        remote = local.lower().startswith(_VSCODE_REMOTE)
        if remote:
            start += len(_VSCODE_REMOTE)
            local = local[len(_VSCODE_REMOTE) :]
        # `git+ssh://git@git.acme.io/team/repo.git`: userinfo. (Guarded: a negative start
        # would read the end of the text.)
        in_url = m.start() >= 3 and text.startswith("://", m.start() - 3)
        # PBS's `qstat -f`: `Job_Owner = hfischer@login01.hpc.acme.edu`, the login on the host it
        # submitted from; HTCondor's job ClassAd: `User = "hfischer@submit.chtc.wisc.edu"`, the
        # login in its UID domain (`condor_q -l` prints `Owner = "hfischer"` beside it).
        job_owner = text.endswith(_JOB_OWNERS, max(0, m.start() - 12), m.start())
        if remote or in_url or job_owner or text.startswith((":/", ":~"), m.end()) or _SCP_PATH.match(text, m.end()) or _is_ssh_target(text, m.start()):
            # scp/rsync's `hfischer@login01.acme.io:/path`, git's `git@git.acme.io:team/repo.git`
            # and ssh's own target (`ssh -v hfischer@login01.acme.io`): an account at a
            # machine, not an address; the machine stays when it is a public service's.
            container = in_url and text.endswith(STORAGE_CONTAINER_SCHEMES, max(0, m.start() - 8), m.start() - 3)
            if local.lower() not in TECHNICAL_USERS and not container:
                edits.append((start, start + len(local), "user", local))
                if state is not None:
                    state.learn_user(local)
            if not is_public_host(domain):
                edits.append((m.end() - len(domain), m.end(), "host", domain))
                owner = _SCP_OWNER.match(text, m.end())
                if owner is not None and login_like(owner.group(1)):
                    # A private git host's `git@git.acme.io:hfischer/llm.git`: the repository
                    # lives under its owner's login (a group, `ml/`, is kept).
                    edits.append((owner.start(1), owner.end(1), "user", owner.group(1)))
                    if state is not None:
                        state.learn_user(owner.group(1))
            continue
        edits.append((m.start(), m.end(), "email", addr))
        if state is not None and local.lower() not in TECHNICAL_USERS and local.lower() not in _SERVICE_LOCALS:
            learn_org_domain(domain, state)
        # ... and so is a login on a family name (`hfischer@`, `carvalho36@`): the same person
        # in a later `ping hfischer` or an earlier `ls -l` row. (Not a team's or a role's box.)
        if state is not None and (_PERSONAL_LOCAL.match(local) or family_login(local.lower())):
            state.learn_user(local)
            first_last = _FIRST_LAST_LOCAL.match(local)
            if first_last is not None:
                # `hannah.fischer@` names Hannah Fischer: `Contact ... or Hannah Fischer`.
                state.learn_name(" ".join(part.capitalize() for part in first_last.groups()))


_VSCODE_REMOTE = "ssh-remote+"
_JOB_OWNERS = ("Job_Owner = ", 'User = "')
# git's scp-like remote: `git@git.acme.io:team/repo.git` (a path with no slash before it).
_SCP_PATH = re.compile(r":[A-Za-z0-9_.~-]{1,100}/")
_SCP_OWNER = re.compile(r"(?::|(?::\d{1,5})?/)([a-z][a-z0-9._-]{1,38}[a-z0-9])/[\w.-]{1,100}?\.git\b")
# The word before an address that makes it an ssh destination: the command itself, its jump
# host option, or another option's value (`ssh -i ~/.ssh/id -p 2222 hfischer@login01.acme.io`).
_SSH_TARGET_BEFORE = re.compile(
    r"(?:^|[\s;|&(`$])(?:ssh|scp|sftp|mosh|autossh|ssh-copy-id)(?:[ \t]+-[A-Za-z]+(?:[ \t]+(?!-)[^\s@]+)?|[ \t]+-[A-Za-z]*J[ \t]*\S+)*[ \t]+(?:-[A-Za-z]*J[ \t]*)?\Z",
    # (re.M: the search starts at the line's start, where a bare `^` matches only at the text's.)
    re.M,
)


def _is_ssh_target(text: str, start: int) -> bool:
    lead = line_start(text, start, 256)
    return _SSH_TARGET_BEFORE.search(text, lead, start) is not None


# Public services' own senders: `GitHub <noreply@github.com>` names no person.
_SERVICE_LOCALS = frozenset(("noreply", "no-reply", "notifications", "support", "security", "donotreply"))
_PERSONAL_LOCAL = re.compile(r"[^\W\d_]{2,}[._][^\W\d_][\w-]+\Z")
_FIRST_LAST_LOCAL = re.compile(r"([^\W\d_]{2,30})\.([^\W\d_]{2,30})\Z")
# OpenSSH (sshconnect2.c): fatal("%s@%s: Permission denied (%s).", server_user, host, authlist).
_SSH_DENIED = ": Permission denied ("
_EMAIL_ENCODED_RX = regex.compile(
    r"(?:(?<![\w.%+-])|(?<=%(?:2[Ff]|3[AaDd]|20|26|3[Ff])))[A-Za-z0-9][A-Za-z0-9._+-]{0,63}%40(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}"
    r"[A-Za-z]{2,24}(?![^\W_]|-[A-Za-z0-9-]*\.[A-Za-z0-9]|\.[A-Za-z0-9])"
)


# user@host in a shell prompt (`alice@node01:~$`, `[alice@node01 proj]$`), an ssh/scp target
# or an ssh password prompt. Other `a@b` (decorators, pip `pkg@ref`, docker digests) stay.
_USER_AT_HOST_RX = regex.compile(
    r"(?<![\w.@/+%-])(?P<user>[a-z_][a-z0-9_.-]{0,31})@(?P<host>\[[0-9A-Fa-f:.]{2,45}(?:%[\w.-]{1,16})?\]|[A-Za-z0-9][A-Za-z0-9.-]{0,252})"
    r"(?![\w.-]{0,64}@)(?=(?P<after>:[~/]|:?\s|\]|'s |:\s*$|$)|)"
)
# (A git branch may stand before the `%`, as vcs_info or a theme writes it: `~/llm (main) %`.)
_ZSH_TAIL = re.compile(r"[ \t]+[^\s%#$]{1,256}(?:[ \t]+(?:git:)?\([^\s()]{1,100}\))?[ \t]+[%#$](?:[ \t]|$)", re.M)
_MSYS_SYSTEMS = (" MINGW64 ", " MINGW32 ", " MSYS ", " UCRT64 ", " CLANG64 ", " CLANGARM64 ")
_TERMINAL_REPORTS = ("RemoteHost=", "]0;", "]2;")
# LNet's network types (socklnd, o2iblnd, gnilnd, kfilnd, efalnd), numbered or not.
_LNET_NETWORK = re.compile(r"(?:tcp|o2ib|gni|kfi|efa|ptl)\d{0,3}")
_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_KEY_COMMENT_TAIL = re.compile(r" \((?:ED25519|RSA|ECDSA|DSA|ED25519-SK|ECDSA-SK)\)")
_REMOTE_CMD = re.compile(r"\b(?:ssh|scp|rsync|sftp|mosh|pdsh|clush|ssh-copy-id)\b")


# JupyterHub logs each request's user at the client's address: `200 GET /hub/api/users
# (cull-idle@127.0.0.1) 10.47ms`. A person's login there is masked (`(bob@10.244.0.1)`); the
# hub's own services are not people: `jupyterhub`, `jupyterhub-idle-culler`, `cull-idle`.
_HUB_SERVICES = frozenset(("cull-idle", "idle-culler", "announcement", "binderhub", "grafana", "prometheus"))


def _hub_service(user: str, at_address: bool) -> bool:
    """Whether `user`, the account of a request at a bare address, is a JupyterHub service."""
    lower = user.lower()
    return at_address and (names_a_tool(lower) or lower.startswith("jupyterhub-") or lower in _HUB_SERVICES)


def find_user_at_host(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask both sides of `user@host` prompts and ssh targets, and learn the names."""
    if "@" not in text:
        return
    for m in _USER_AT_HOST_RX.finditer(text):
        if _LNET_NETWORK.fullmatch(m.group("host")):
            # A Lustre NID, `mds01@tcp:/scratch`, `oss12@o2ib1`: a server on an LNet network
            # (no account at a machine called `tcp`).
            server = m.group("user")
            if host_value_ok(server) and not server.isdigit():
                edits.append((m.start("user"), m.end("user"), "host", server))
                state.learn_host(server)
            continue
        after = m.group("after")
        # `alice@10.0.0.12:22`: an account at a machine's address, whatever follows it; an
        # IPv6 address is bracketed for scp and rsync (`scp f alice@[2a05:d014::7]:/data/`).
        bracketed = m.group("host").startswith("[")
        at_address = bracketed or _DOTTED_QUAD.fullmatch(m.group("host")) is not None
        start = m.start()
        # iTerm2's shell integration tells the terminal who and where the shell is, whatever
        # ends the sequence (`\x1b]1337;RemoteHost=hfischer@gpu-node-17\x07`, its `\x07` or
        # `\007` written out, or lost with the ESC); so does the window title a prompt sets
        # (`\x1b]0;hfischer@gpu-node-17: ~/llm\x07`, bash's `\u@\h: \w`).
        remote = text.endswith(_TERMINAL_REPORTS, max(0, start - 11), start)
        if after is None and not at_address and not remote:
            continue
        lead = line_start(text, start, 256)
        prompt = remote or at_address or after.startswith((":~", ":/", "]", "'s")) or (
            start > lead and text[start - 1] == "["
        )
        if not prompt:
            # zsh's default prompt: `hannah@gpu-node-07 ~/llm % python train.py`.
            prompt = after[:1] in " \t" and _ZSH_TAIL.match(text, m.end("host")) is not None
        if not prompt:
            prompt = _REMOTE_CMD.search(text, lead, start) is not None or text.startswith(_SSH_DENIED, m.end("host"))
        if not prompt:
            # nvitop's process panel titles itself with who runs it, where:
            # `│ Processes:                              hfischer@gpu-node-17 │`.
            prompt = text.startswith(" Processes:", lead + 1) or text.startswith("Processes:", lead)
        if not prompt:
            # Git Bash's (MSYS2's) prompt: `hfischer@DESKTOP-7QK2L9M MINGW64 ~/llm (main)`.
            prompt = text.startswith(_MSYS_SYSTEMS, m.end("host"))
        if not prompt:
            # PBS names a job's owner as the account at the submitting host: `Job_Owner = hfischer@login07`.
            prompt = text.endswith("Job_Owner = ", lead, start)
        if not prompt:
            # An ssh key's comment, as `ssh-add -l` and `ssh-keygen -l` print it after the
            # fingerprint: `256 SHA256:kD8L... hfischer@gpu37 (ED25519)`.
            prompt = _KEY_COMMENT_TAIL.match(text, m.end("host")) is not None
        if not prompt:
            continue
        user, host = m.group("user"), m.group("host").rstrip(".")
        if user.lower() not in TECHNICAL_USERS and not user.isdigit() and not _hub_service(user, at_address):
            edits.append((m.start("user"), m.end("user"), "user", user))
            state.learn_user(user)
        # Dotted hosts are left to the address and FQDN passes, which know public names.
        # (A bracketed address is the IPv6 pass's.)
        if not bracketed and "." not in host and host_value_ok(host) and host.lower() != "sha256":
            edits.append((m.start("host"), m.end("host"), "host", host))
            state.learn_host(host)


# The directory after a home-like segment is a user name: /home/alice, /Users/alice,
# /scratch/alice, /gpfs/.../home/alice, C:\Users\alice (also JSON-escaped backslashes).
# Letters are Unicode letters: an ASCII-only name class stopped at `ü` and left `/home/<USER-1>üller`.
_USER_TAIL = r"(?P<user>[^\W\d][\w.-]{0,31})(?![\w-])"
# One pattern per segment, each led by its literal, run only when the anchor scan saw it.
_HOME_SEGMENTS = ("home", "user", "scratch", "jusers", "u", "people", "staff", "fsx", "members", "students")
# Top directories of shared file systems whose directories are their users' (Lustre, Meta's
# /checkpoint/<user>, a node's /localscratch/<user>, Snellius' /scratch-shared/<user>).
_USER_ROOTS = ("lustre", "checkpoint", "localscratch", "scratch-shared")
# Storage roots that hold data sets and projects as often as users: a directory there is a
# user's only with a person's shape, a home's contents under it, or as a user's elsewhere.
_STORAGE_ROOTS = ("data", "work", "projects", "storage", "raid", "efs", "ceph", "beegfs", "weka", "vast", "nas", "ssd",
                  # A training cluster's checkpoint volume, a directory per user or per run
                  # (`/checkpoints/okonkwoc/run-12`, `/ckpt/llama-7b/`).
                  "checkpoints", "ckpt", "ckpts",
                  # /mnt holds mounts (`/mnt/nvme`, `/mnt/efs`) and, on shared boxes, a directory per user
                  # (`/mnt/hfischer/miniconda3/...`): the same rule as any storage root.
                  "mnt")
_HOME_RXS = {f"/{seg}/": (seg, re.compile(f"/{seg}/" + _USER_TAIL)) for seg in _HOME_SEGMENTS}
# Their anchor words end before the slash: the anchor scan reports no overlapping words, and
# `/lustre/` would hide the `/scratch/` of `/lustre/scratch/hfischer` (`/data/home/...` too).
_HOME_RXS.update({f"/{seg}": (seg, re.compile(f"/{seg}/" + _USER_TAIL)) for seg in (*_USER_ROOTS, *_STORAGE_ROOTS)})
# Second and third home file systems: /home2/hfischer.
_HOME_RXS.update({f"/home{n}/": ("home", re.compile(f"/home{n}/" + _USER_TAIL)) for n in range(1, 5)})
_HOME_RXS["/users/"] = ("users", re.compile("/[Uu]sers/" + _USER_TAIL))
# Windows names a local account's profile for its full name, spaces and all
# (`C:\Users\Hannah Fischer\AppData`): words up to the next backslash (not `All Users`,
# `Default User`, which are Windows' own).
_HOME_RXS["\\users\\"] = ("Users", re.compile(
    r"\\{1,2}Users\\{1,2}(?!(?:All|Default) Users?\\)"
    r"(?:(?P<spaced>[^\W\d][\w.-]{0,31}(?: [^\W\d][\w.'-]{0,31}){1,2})(?=\\)|" + _USER_TAIL + ")"
))
# NERSC-style sharded homes: /global/homes/a/alice, /pscratch/sd/a/alice.
_HOME_RXS["/homes/"] = ("homes", re.compile(r"/homes/(?:[a-z]/(?=[a-z]))?" + _USER_TAIL))
_HOME_RXS["/sd/"] = ("sd", re.compile(r"/sd/[a-z]/" + _USER_TAIL))
# HPC centres keep a user's directory under the project's: OLCF's
# /gpfs/alpine/proj-shared/csc123/<user> (and world-shared), PSC's
# /ocean/projects/cis230045p/<user>, ALCF's /lus/eagle/projects/<Project>/<user>.
_HOME_RXS["-shared/"] = ("scratch", re.compile(r"/(?:proj|world)-shared/[a-z]{2,4}\d{2,4}/" + _USER_TAIL))
_HOME_RXS["/ocean/projects/"] = ("scratch", re.compile(r"/ocean/projects/[a-z]{3}\d{6}p/" + _USER_TAIL))
_HOME_RXS["/lus/"] = ("scratch", re.compile(r"/lus/[a-z]{2,12}/projects/[\w.-]{1,64}/" + _USER_TAIL))
# A mail spool is named for its account: MAIL=/var/mail/hfischer, /var/spool/mail/hfischer.
_HOME_RXS["/var/mail/"] = ("mail", re.compile(r"/var/mail/" + _USER_TAIL))
_HOME_RXS["/spool/mail/"] = ("mail", re.compile(r"/spool/mail/" + _USER_TAIL))
# Experiment trackers whose run URLs carry the user's entity or workspace (find_named_users).
_TRACKER_URLS = ("wandb.ai/", "comet.com/", "comet.ml/", "neptune.ai/")
# The Alliance's allocation prefixes: default, resource allocation competition, research
# platforms and portals, contributed systems (the login after them is the PI's).
# (The University of Chicago's RCC names them `pi-<the PI's CNetID>`: `--account=pi-hfischer`.)
_ALLIANCE_ACCOUNTS = ("def-", "rrg-", "rpp-", "ctb-", "pi-")
# Numbers an employer or a university gives a person (an optional letter or two, then digits).
# (A badge's number too, and `#` for the number: `Employee #: 4471923`, `Badge ID: B-77120`.)
_PERSONAL_NUMBER_WORDS = ("emp_", "emp-", "employee", "student", "staff", "matric", "badge")
_PERSONAL_NUMBER_RX = re.compile(
    r"(?i:(?<![a-z])(?:emp|employee|student|staff|matric(?:ulation)?|badge)(?:[_ -]?(?:id|no|num|number|nr|#))?)"
    r"(?:[_-]|[ \t]*[:=][ \t]*[\x22']?)(?P<user>[A-Za-z]{0,2}-?\d{5,10})(?!\w)"
)


def _find_personal_numbers(text: str, present: set[str], edits: list[Edit], state: LogState) -> None:
    """An employee's or a student's number, in a directory named for it or under its key:
    `/work/projects/emp_E345608/`, `EMPLOYEE_ID=E345608`, `student_id: s2145678`.

    Tried only where a key word starts (`str.find` on the lowered text): the case-insensitive
    alternation tried at every position cost a tenth of the people stage on a log of paths."""
    words = [w for w in _PERSONAL_NUMBER_WORDS if w in present]
    if not words:
        return
    lowered = lowered_in_place(text)
    for word in words:
        pos = lowered.find(word)
        while pos != -1:
            m = _PERSONAL_NUMBER_RX.match(text, pos)
            if m is not None:
                edits.append((m.start("user"), m.end("user"), "user", m.group("user")))
                state.learn_user(m.group("user"))
            pos = lowered.find(word, pos + 1)


# (Any of the verbs a scheduler's or a tracker's record says a person acted with: `Submitted by
# hfischer on 2024-03-12`, `requested by hannah.fischer`.)
_ACTED_BY_WORDS = ("triggered by ", "submitted by ", "requested by ", "launched by ", "created by ", "approved by ")
# The anchor words of the model and data set keys of the Hub owners' rows (`_HF_OWNER_RXS`) (one row, any of its words).
_MODEL_KEY_WORDS = ("model=", "model:", "model'", 'model"', "model_id", "model_name", "tokenizer=", "tokenizer:", "tokenizer'",
                    'tokenizer"', "tokenizer_name", "dataset_name", "dataset_path")  # fmt: skip
PEOPLE_WORDS = (*_HOME_RXS, *_ALLIANCE_ACCOUNTS, *_PERSONAL_NUMBER_WORDS, "pts/", " mb | ", "gpu-mem", "sudo[", "matching defaults entries for ",
                " may run the following commands on ", " is not in the sudoers file", "sorry, user ", "http/", "jobnumber ",
                "disconnected from ", "connection closed by ", "close session: ", "postponed ", "attempts exceeded for ", "starting session: ",
                " not allowed because ", "password changed for ", "user logged ", "adding user ", " is slow to start", "euser = ",
                "ssh:notty", "uid: (", " has expired (account expired)", "-o user=", "/screen/s-", "no crontab for ", ": no such user",
                "invalid user: ", "unknown user", "already exists", "new user: name=", "new group: name=", "group added to /etc/group: name=",
                "group added to /etc/gshadow: name=", "usermod[", "(to ", "su for ", "su[", ") cmd (", ") mail (", *(f"{p} logname" for p in "$#%>"), "queuename", "_actor", "denied to ", "whoami", "echo $user", "ogged in as", *_TRACKER_URLS, "for user ", "uid=", "userid=", "sudo: ", "invalid user ", "password for ",
                "publickey for ", "keyboard-interactive/pam for ", "none for ", "hostbased for ", "gssapi-with-mic for ", "gssapi-keyex for ", "authenticating to ", "ogged in to ", "] <", "merge pull request #",
                "echo $logname", "echo $gitlab_user_login", "echo $github_actor", "quotas for usr ", "@20", "of user ", " seconds to start", "su - ", " commits into ", " commit into ", "started by ", "getlogin()", "getuser()", "<user ", ", user <", "linkedin.com/in/", '", user "',
                " commented ", " requested changes", "~", "chown ", "crontabs/", "/dev/", 'actor"', "github.actor", "by (", "(by ", " (@", *_ACTED_BY_WORDS, "user/group: ", "users:", "huggingface.co", "hf.co", "following files to ", "uploading to ", "from_pretrained(", "is not a local folder", "name_or_path", "hub_model_id", "pretrained=", "repo_id", "load_dataset(", "exist on the hub", "vllm serve ", *_MODEL_KEY_WORDS, "--model", "_download(", "upload ", "download ", "models--", "datasets--", "spaces--", "can't load ", "push_to_hub(", "github.com", "githubusercontent.com", "gist.github.com", "entity", 'forbidden: user "', " with user '", "ssh-remote")  # fmt: skip
_TRIGGERED_BY_LOGIN = re.compile(
    r"\b(?:[Tt]riggered|[Ss]ubmitted|[Rr]equested|[Ll]aunched|[Cc]reated|[Aa]pproved) by (?:\(@?(?P<quoted>[A-Za-z0-9][\w.-]{0,38})\)"
    r"|(?P<user>[a-z][a-z0-9._-]{1,37}[a-z0-9])(?=[ \t](?:on|via|at|in|for|from)\b|[.,;)](?!\w)|[ \t]*\r?$))",
    re.M,
)
# What a CI run says started it when no person did (`triggered by (schedule)`, `(by cron)`).
_CI_CAUSES = frozenset(
    ("schedule", "scheduler", "cron", "push", "webhook", "api", "timer", "system", "automation", "trigger", "manual",
     "upstream", "merge", "tag", "pr", "pipeline", "workflow", "github-actions", "dependabot", "renovate", "bot", "ci")
)  # fmt: skip
_HOME_SKIP = frozenset(
    (
        "shared", "public", "guest", "default", "all", "admin", "root", "ubuntu", "user", "users",
        "runner", "jovyan", "ec2-user", "coder", "vscode", "node", "app", "worker", "docker",
        "vsts", "trainer", "ray", "opc", "azureuser", "centos", "debian", "work", "data", "datasets", "tmp", "temp", "local",
        "cache", "slurm", "job", "jobs", "projects", "project", "group", "groups", "scratch",
        "home", "models", "checkpoints", "logs", "bin", "lib", "share", "src", "nobody",
        "localadmin", "proj", "train", "training", "eval", "test", "tests", "exp", "exps",
        "experiments", "runs", "run", "venv", "envs", "conda", "ckpt", "ckpts", "weights", "cache_dir",
        "log", "nobackup", "dist", "build", "pretrain", "finetune", "artifacts", "tmpdir", "hub", "miniconda3", "anaconda3", "hf", "huggingface", "wandb", "outputs", "output", "results", "code", "repos",
        # Where an organisation files its teams and their people (`/lustre/orgs/acme/nlp/...`).
        "orgs", "org", "teams", "team", "members", "students", "staff", "people", "portfolios", "labs", "common",
        # A shared Hub cache (`HF_HOME=/scratch/hf-cache`): what a home holds, named for no one.
        "hf-cache", "hf_cache", "hf-home", "hf_home",
        # A web API's actions on its users collection (`hub.docker.com/v2/users/login`, `/api/users/me`).
        "login", "logout", "me", "self", "current", "signup", "sign_in", "sign_up", "register", "search",
    )
)
_LEARN_SEGMENTS = frozenset(("home", "Users", "homes", "jusers", "users", "mail", "members", "students"))
# Directories that hold one directory per person, at any depth of a tree:
# `/lustre/fs1/portfolios/nlp/users/hfischer`, `/nfs/vision/members/hfischer`. Their anchor
# words end in a slash, so one right after another's (`/fsx/users/hfischer`,
# `/scratch/users/...`) is not seen by the anchor scan: the outer one reads it (_home_user).
_COLLECTIONS = frozenset(("users", "members", "people", "homes", "students", "staff", "user"))
# A Lustre mount's top directories are its users' (`/lustre/hfischer/runs`), beside a few
# file-system and project names: `fsw`, `lfs01`, `ost3` are no one's.
_LUSTRE_SKIP = re.compile(r"(?:fsw|(?:l?fs|vol|ost|mdt|fs)\d{0,3}|orion|atlas|alpine|nvme|ssd|hdd)\Z")
# `/data/` holds data sets as often as users (`/data/imagenet`, `/data/c4`): its directory is
# a user's only when it has a person's shape (`hannah.fischer`) or holds what a person keeps
# in a home (`/data/hfischer/miniconda3/envs/...`, `/data/hfischer/.cache/huggingface`).
_DATA_PERSON = re.compile(r"[^\W\d_]{2,30}\.(?P<last>[^\W\d_]{2,30})\Z")
# ... but not a file or a data set named with an extension or a language (`train.bin`, `wiki.en`).
_NOT_SURNAMES = frozenset(
    ("txt", "json", "jsonl", "bin", "tar", "gz", "tgz", "zip", "csv", "tsv", "parquet", "arrow", "pt", "pth",
     "ckpt", "npy", "npz", "h", "hdf", "log", "yaml", "yml", "py", "sh", "md", "safetensors", "model", "idx", "xml",
     "html", "db", "sqlite", "lock", "cfg", "ini", "conf", "out", "err", "tok", "tokens", "raw", "bpe", "vocab",
     "en", "de", "fr", "zh", "es", "ja", "ru", "it", "pl", "nl", "pt", "ko", "ar", "cs", "fi", "tr", "backup", "old",
     "bak", "tmp", "orig", "new", "local", "d", "img", "iso", "sif", "sqsh", "squashfs", "simg", "whl", "deb", "rpm",
     # pip's vendored libraries (`site-packages/numpy.libs/`), a bare repository (`llm.git`).
     "libs", "git", "ipynb",
     # fairseq's and others' model directories by size: `roberta.large`, `bart.base`, `xlmr.xl`.
     "base", "large", "small", "tiny", "medium", "mini", "xl", "xxl", "huge", "giant")
)  # fmt: skip

_DATA_HOME_NEXT = re.compile(
    r"/(?:\.[A-Za-z][\w-]{0,30}|(?:mini|ana)conda3|mambaforge|miniforge3|micromamba|envs|venvs?|hf[-_]?(?:home|cache))(?![\w.-])"
)


def _person_dir(user: str) -> bool:
    """Is the directory name `user` a person's (`hannah.fischer`), not a file (`train.bin`)?"""
    m = _DATA_PERSON.match(user)
    return m is not None and m.group("last").lower() not in _NOT_SURNAMES


def find_home_users(text: str, present: set[str], edits: list[Edit], state: LogState) -> None:
    """Mask the user name in home, scratch and cluster paths; keep the rest of the path.

    `present` holds the anchor words seen in this chunk (anchors.find_anchors).
    """
    for word, (seg, rx) in _HOME_RXS.items():
        if word in present:
            for m in rx.finditer(text):
                _home_user(text, m, seg, edits, state)


# The directory below a storage root's first: a group's members (`/projects/ml/ueriksen/`).
_MEMBER_DIR = re.compile(r"/(?P<user>[^\W\d][\w.-]{0,31})(?![\w-])")
# Any directory below it, a person's a few groups down (`/lustre/orgs/acme/nlp/llm/hannah.fischer/runs`).
_DEEP_DIR = re.compile(r"/(?P<user>[^\W\d][\w.-]{0,31})(?=/)|/[\w.-]{1,64}(?=/)")
# How many directories below a storage root's first are read for a person's: an organisation,
# a team, a project.
_DEEP_LEVELS = 4


def _deep_person(name: str) -> bool:
    """A directory name that is a person's wherever it sits: a login on a family name the list
    knows (`ueriksen`, `carvalho36`), on a given name (`dmitri`, `oisino`, `leila93`), or a
    given and a family name (`hannah.fischer`)."""
    return family_login(name.lower()) or given_login(name.lower()) or _person_dir(name)


def _deep_user(text: str, pos: int) -> re.Match[str] | None:
    """The first person's directory in the few below `pos` (a directory's end), if any."""
    for _ in range(_DEEP_LEVELS):
        below = _DEEP_DIR.match(text, pos)
        if below is None:
            return None
        if below.group("user") is not None and _deep_person(below.group("user")):
            return below
        pos = below.end()
    return None


# A run of base64 letters with no blank in it, long as a key's, one of its `/`-cut pieces a
# random mix of cases and digits (a path's pieces are words).
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{60,}={0,2}\Z")
_RANDOM_PIECE = re.compile(r"(?=[^/]*[a-z])(?=[^/]*[A-Z])(?=[^/]*\d)[A-Za-z0-9+]{20,}")


def _in_base64_run(text: str, pos: int) -> bool:
    """Whether `pos` lies inside a blank-free run of base64 letters (an ssh public key's body)."""
    lo, hi = max(0, pos - 400), min(len(text), pos + 400)
    start = max(text.rfind(" ", lo, pos), text.rfind("\n", lo, pos), text.rfind("\t", lo, pos)) + 1
    ends = [i for i in (text.find(" ", pos, hi), text.find("\n", pos, hi), text.find("\t", pos, hi)) if i != -1]
    end = min(ends) if ends else hi
    run = text[max(start, lo) : end]
    return _BASE64_RUN.match(run) is not None and _RANDOM_PIECE.search(run) is not None


def _home_user(text: str, m: re.Match[str], seg: str, edits: list[Edit], state: LogState) -> None:
    if seg == "Users" and m.group("spaced"):
        edits.append((m.start("spaced"), m.end("spaced"), "user", m.group("spaced")))
        state.learn_user(m.group("spaced"))
        return
    user = m.group("user")
    if user.lower() in _COLLECTIONS:
        # `/fsx/users/hfischer`: the directory in the collection is the person's.
        inner = _MEMBER_DIR.match(text, m.end("user"))
        name = None if inner is None else inner.group("user")
        if name is not None and name.lower() not in _HOME_SKIP and name.lower() not in TECHNICAL_USERS:
            edits.append((inner.start("user"), inner.end("user"), "user", name))
            state.learn_user(name)
        return
    if seg in _USER_ROOTS or seg in _STORAGE_ROOTS:
        # A login built on a family name (`carvalho36`, `ueriksen`) is a person's at any depth
        # of the tree, at the root's top or a group's below it; a data set (`xsum`) is no such login.
        if family_login(user.lower()) or (seg in _STORAGE_ROOTS and given_login(user.lower())):
            edits.append((m.start("user"), m.end("user"), "user", user))
            state.learn_user(user)
            return
        member = _deep_user(text, m.end("user"))
        if member is not None:
            edits.append((member.start("user"), member.end("user"), "user", member.group("user")))
            state.learn_user(member.group("user"))
    if user.lower() in _HOME_SKIP or user.startswith(("slurm", "job", "tmp")):
        return
    if seg not in _LEARN_SEGMENTS and not any("a" <= c <= "z" for c in user):
        return  # `/scratch/ABC123`: a job or project directory
    if seg == "u" and "://" in text[max(0, m.start() - 200) : m.start()]:
        return  # /u/ in a web URL path is not a home directory
    if seg == "u" and _in_base64_run(text, m.start()):
        return  # `...Dt9//u/C8JF...` inside an ssh public key's or a certificate's base64
    if seg in _USER_ROOTS and _LUSTRE_SKIP.match(user.lower()):
        return
    if seg in _STORAGE_ROOTS and not (
        _person_dir(user) or _DATA_HOME_NEXT.match(text, m.end("user")) or user in state.path_users
    ):
        return
    if (
        (seg in _USER_ROOTS or seg in _STORAGE_ROOTS)
        and text[m.start() - 1 : m.start()].isalnum()
        and not text.endswith("/mnt", max(0, m.start() - 4), m.start())
    ):
        return  # `/gpfs/data/...` is a directory of another tree: the top level or under /mnt only
    edits.append((m.start("user"), m.end("user"), "user", user))
    if seg in _LEARN_SEGMENTS or _person_dir(user):
        # A `first.last` directory is a person's wherever it sits (a project is rarely named
        # so): learned with its DNS form, which a namespace or a pod name may show.
        state.learn_user(user)
        if seg == "home" and user in state.users and len(state.home_users) < 4096:
            state.home_users.setdefault(user, None)
    elif (
        seg == "scratch" or seg in _USER_ROOTS or (seg in _STORAGE_ROOTS and _DATA_HOME_NEXT.match(text, m.end("user")))
    ) and len(state.path_users) < 4096:
        # (`/mnt/hfischer/miniconda3/...` makes `/mnt/hfischer/repos` a user's directory too.)
        state.path_users.setdefault(user, None)


# `wandb: Currently logged in as: alice (acme-ml)`; HF's `Logged in as alice`. With no team
# entity wandb ends the sentence right after the login (`... as: alice. Use `wandb login
# --relogin` ...`): the full stop is no part of it.
_LOGGED_IN_RX = re.compile(
    r"ogged in as(?<=[Ll]ogged in as):?[ \t]+(?P<user>[A-Za-z0-9_](?:[\w.-]{0,62}[\w-])?)"
    r"(?:[ \t]+\((?P<entity>[\w.-]{1,64})\))?"
)
# W&B run URLs carry the entity: https://wandb.ai/<entity>/<project>/runs/<id>; Comet's and
# Neptune's the workspace, the user name unless a team was made
# (`COMET INFO: Experiment is live on comet.com https://www.comet.com/<workspace>/<project>/<key>`).
_TRACKER_URL_RX = re.compile(r"(?:wandb\.ai|comet\.com|comet\.ml|app\.neptune\.ai)/(?P<user>[A-Za-z0-9_][\w.-]{0,63})/")
_TRACKER_PATHS = frozenset(
    ("site", "authorize", "home", "settings", "login", "signup", "quickstart", "developers", "fully-connected", "api", "support",
     "docs", "account-settings", "api-key", "o", "blog", "pricing")
)
# Database errors name the account: FATAL: password authentication failed for user "alice";
# PAM, Slurm and sudo leave it bare: `session opened for user bob(uid=1000)`,
# `failed for user bob (uid=10234)`, `... for user bob from 10.0.0.7`.
_FOR_USER_RX = re.compile(
    r"""for user (?:["'](?P<user>[A-Za-z_][\w.@-]{0,63})["']"""
    r"""|(?P<bare>[^\W\d][\w.-]{0,31})(?=\s?\(uid[= ]|\s+from\s|[,;]|: \d{1,2} \(|\s*$))""",
    re.MULTILINE,
)
# PostgreSQL's refusals name the account after the client's address (libpq prints the server's
# FATAL as it is): `no pg_hba.conf entry for host "10.0.0.7", user "alice", database "runs", SSL off`,
# `pg_hba.conf rejects connection for host ...`, `... for replication connection from host ...`.
# Masked, not learned: a database account is often named after its service (commands.py).
_PG_HBA_USER_RX = re.compile(r'host "[^"\n]{1,255}", user "(?P<user>[A-Za-z_][\w.@-]{0,63})"')
# sshd: `Invalid user bob from 10.0.0.7`, `Accepted publickey for bob from 10.0.0.7 port 22`.
_SSHD_USER_RX = re.compile(
    r"(?:[Ii]nvalid user|(?:Accepted|Failed) (?:password|publickey|keyboard-interactive/pam|none|hostbased|gssapi-with-mic|gssapi-keyex)"
    r" for(?: invalid user)?) (?P<user>[^\W\d][\w.-]{0,31}) from "
)
# Account names where the tools print them: `id` (`uid=1001(hfischer)`), Slurm's scontrol
# (`UserId=hfischer(1001)`), sudo's log line (`sudo: hfischer : TTY=pts/0 ; ...`), `ls -l`
# owner columns. (literal or "" for any text, pattern with a `user` group)
_WHOAMI_LINE = LinePattern(
    r"[^\n]{0,64}[$#%>] (?:whoami|id -un|logname|huggingface-cli whoami|hf (?:auth )?whoami)[ \t]*" + NEXT_LINE
    + r"(?:user:[ \t]+)?(?P<user>[^\W\d][\w.-]{0,31})[ \t]*\r?$",
    re.M,
)
_SUDO_LINE = re.compile(r"sudo(?:\[\d{1,10}\])?: {1,8}(?P<user>[^\W\d][\w.-]{0,31}) : (?=TTY=|PWD=|user NOT|\d+ incorrect)")
# cron's syslog line: `CRON[48400]: (hfischer) CMD (/home/hfischer/bin/sync.sh)` (one pattern
# for its two anchor words).
_CRON_LINE = re.compile(r"\((?P<user>[^\W\d][\w.-]{0,31})\) (?:CMD|MAIL|RELOAD|REPLACE|LIST|BEGIN EDIT|END EDIT) \(")
_ACCOUNT_POSITIONS: list[tuple[str, re.Pattern[str] | LinePattern]] = [
    ("uid=", re.compile(r"\buid=\d{1,10}\((?P<user>[^\W\d][\w.-]{0,31})\)")),
    # VS Code's Remote-SSH authority, plain in its log (`ssh-remote+hfischer@gpu07`) and
    # URL-encoded in a `vscode-remote://` URI (`ssh-remote%2Bhfischer%40gpu07`).
    ("ssh-remote", re.compile(r"\bssh-remote(?:\+|%2[Bb])(?P<user>[^\W\d][\w.-]{0,31})(?:@|%40)")),
    # An LDAP DN: `uid=hfischer,ou=people,dc=acme,dc=io`.
    ("uid=", re.compile(r"\buid=(?P<user>[^\W\d][\w.-]{0,31}),(?:ou|cn|dc)=")),
    # who / last / w: `hfischer pts/0        2024-05-06 10:42 (10.1.2.3)`.
    ("pts/", LinePattern(r"(?P<user>[^\W\d][\w.-]{0,31}) {1,16}pts/\d{1,4} ")),
    # gpustat: `[0] NVIDIA A100-SXM4-80GB | 65°C, 100 % | 70123 / 81920 MB | hfischer(70120M)`,
    # with `-c` and `-p` the command and the pid after the login: `hfischer:python/48213(70120M)`.
    (" mb | ", re.compile(r"(?<![\w.-])(?P<user>[^\W\d][\w.-]{0,31})(?::[^\s/()]{1,64})?(?:/\d{1,10})?\(\d{1,7}M\)")),
    # nvitop's process table, under its `GPU     PID      USER  GPU-MEM %SM ...` header: the
    # process type between the PID and the USER, a login longer than 7 cut to `hfisch+`
    # (`│   0  205220 C hfisch+   497MiB   0 ...`; `|` in its ASCII mode).
    ("gpu-mem", re.compile(r"[│|] {1,4}\d{1,2} {1,8}\d{1,10} (?:C|G|C\+G|X) {1,8}(?P<user>[^\W\d][\w.-]{0,31}?)\+? {1,9}"
                           r"(?:\d[\d.]{0,8}[KMGT]i?B|N/A)")),
    # Kubernetes RBAC's refusal names the account: `pods is forbidden: User "hfischer" cannot list
    # resource "pods" in API group "" in the namespace "ml"` (a service account,
    # `system:serviceaccount:ml:trainer`, is the cluster's and does not match).
    ('forbidden: user "', re.compile(r'is forbidden: User "(?P<user>[^\W\d][\w.-]{0,62})" cannot ')),
    ("userid=", re.compile(r"\bUserId=(?P<user>[^\W\d][\w.-]{0,31})\(\d{1,10}\)")),
    # (journald and syslog print sudo's pid: `sudo[48301]:  hfischer : 3 incorrect password attempts ; ...`.)
    *((word, _SUDO_LINE) for word in ("sudo: ", "sudo[")),
    # Lustre's `lfs quota -u hfischer /lustre`: `Disk quotas for usr hfischer (uid 31337):`.
    ("quotas for usr ", re.compile(r"[Qq]uotas for usr (?P<user>[^\W\d][\w.-]{0,31}) \(uid \d{1,10}\)")),
    # systemd and logind name a login session's owner: `Started session-42.scope - Session 42
    # of User hfischer.`, `New session 42 of user hfischer.`, `Removed slice User Slice of hfischer`.
    ("of user ", re.compile(r"[Ss]ession [\w-]{1,16} of [Uu]ser (?P<user>[^\W\d][\w.-]{0,31}?)\.?(?![\w.-])")),
    # JupyterHub: `User hfischer took 3.204 seconds to start`, `User hfischer server took ...`.
    (" seconds to start", re.compile(r"\bUser (?P<user>[^\W\d][\w.-]{0,31})(?: server)? took \d{1,6}\.\d{1,6} seconds to start")),
    # `su - hfischer` at a prompt or in a trace.
    ("su - ", re.compile(r"(?:^|[$#>+] )su - (?P<user>[^\W\d][\w.-]{0,31})[ \t]*$", re.M)),
    # A Python prompt asking for the login: `>>> getpass.getuser()` / `'hfischer'`, and W&B's
    # `wandb.Api().viewer` repr, `<User hfischer>`.
    *((word, LinePattern(r"[^\n]{0,64}(?:>>>|In \[\d{1,5}\]:) (?:os\.getlogin|getpass\.getuser)\(\)[ \t]*" + NEXT_LINE
                         + r"(?:Out\[\d{1,5}\]: )?'(?P<user>[^\W\d][\w.-]{0,31})'[ \t]*\r?$", re.M))
      for word in ("getlogin()", "getuser()")),
    ("<user ", re.compile(r"<User (?P<user>[^\W\d][\w.-]{0,31})>")),
    # LSF's `bjobs -l` / `bhist -l` header: `Job <48213>, User <hfischer>, Project <default>,`
    # (since LSF 10 with the job's name between: `Job <48213>, Job Name <ft>, User <hfischer>,`).
    (", user <", re.compile(r"Job <\d[\d\[\]]{0,24}>,(?: Job Name <[^>\n]{0,256}>,)? User <(?P<user>[^\W\d][\w.-]{0,31})>")),
    # A mail signature's LinkedIn profile: https://www.linkedin.com/in/hannah-fischer-4257/.
    ("linkedin.com/in/", re.compile(r"linkedin\.com/in/(?P<user>[^\W\d_][\w-]{2,99})")),
    # GitHub's pull request header (gh pr view, the web page pasted): `Open • hfischer wants to
    # merge 3 commits into main from hfischer/fix-nccl`, `hfischer merged 3 commits into main`.
    *((word, re.compile(r"(?<![\w-])(?P<user>[A-Za-z0-9][A-Za-z0-9-]{0,38}) (?:wants to merge|merged) \d{1,6}" + word))
      for word in (" commits into ", " commit into ")),
    # Slurm stamps who set a node's reason: `Reason=Kill task failed [hfischer@2026-12-04T10:11:12]`
    # (scontrol show node, sinfo -R / -l).
    ("@20", re.compile(r"\[(?P<user>[^\W\d][\w.-]{0,31})@20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\]")),
    # `sudo -l`: `Matching Defaults entries for hfischer on gpu-node-17:`, `User hfischer may run
    # the following commands on gpu-node-17:`; its refusals: `hfischer is not in the sudoers
    # file.`, `Sorry, user hfischer may not run sudo on gpu-node-17.`.
    ("matching defaults entries for ", re.compile(r"Matching Defaults entries for (?P<user>[^\W\d][\w.-]{0,31}) on ")),
    (" may run the following commands on ", re.compile(r"User (?P<user>[^\W\d][\w.-]{0,31}) may run the following commands on ")),
    (" is not in the sudoers file", LinePattern(r"(?:[^\n]{0,64}: )?(?P<user>[^\W\d][\w.-]{0,31}) is not in the sudoers file", re.M)),
    ("sorry, user ", re.compile(r"Sorry, user (?P<user>[^\W\d][\w.-]{0,31}) (?:may not run sudo|is not allowed to execute) ")),
    # A web server's access log (Common and Combined Log Format) names the authenticated user
    # after the client's address: `10.0.3.4 - hfischer [03/Nov/2026:08:14:01 +0000] "GET /api/...`.
    ("http/", re.compile(r" - (?P<user>[^\W\d][\w.-]{0,63}) \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] \"")),
    # sshd's other lines that name the account (auth.log, `journalctl -u ssh`): `Disconnected from
    # user hfischer 10.0.0.7 port 52344`, `Connection closed by authenticating user hfischer ...
    # [preauth]`, `Postponed publickey for hfischer from ...`, `maximum authentication attempts
    # exceeded for hfischer from ...`, `Starting session: shell on pts/4 for hfischer from ...`,
    # `Close session: user hfischer from ...`, `User hfischer from 10.0.0.7 not allowed because
    # not listed in AllowUsers`; passwd's `pam_unix(passwd:chauthtok): password changed for hfischer`.
    *((word, re.compile(re.escape(word[:1].upper() + word[1:]) + r"(?:authenticating |invalid )?user (?P<user>[^\W\d][\w.-]{0,31}) (?:\d|<IP|from |port )"))
      for word in ("disconnected from ", "connection closed by ", "close session: ")),
    ("postponed ", re.compile(r"Postponed [\w-]{1,32} for (?:invalid user )?(?P<user>[^\W\d][\w.-]{0,31}) from ")),
    ("attempts exceeded for ", re.compile(r"attempts exceeded for (?:invalid user )?(?P<user>[^\W\d][\w.-]{0,31}) from ")),
    ("starting session: ", re.compile(r"Starting session: [\w-]{1,16}(?: on [\w/]{1,16})? for (?P<user>[^\W\d][\w.-]{0,31}) from ")),
    (" not allowed because ", re.compile(r"User (?P<user>[^\W\d][\w.-]{0,31}) from \S{1,64} not allowed because ")),
    ("password changed for ", re.compile(r"password changed for (?P<user>[^\W\d][\w.-]{0,31})(?![\w.-])")),
    # JupyterHub's own log: `User logged in: hfischer`, `User logged out: hfischer`, `Adding user
    # hfischer to proxy /user/hfischer/ => ...`, `User hfischer is slow to start (timeout=10)`.
    ("user logged ", re.compile(r"User logged (?:in|out): (?P<user>[^\W\d][\w.-]{0,63})[ \t]*\r?$", re.M)),
    ("adding user ", re.compile(r"Adding user (?P<user>[^\W\d][\w.-]{0,63}) to proxy ")),
    (" is slow to start", re.compile(r"User (?P<user>[^\W\d][\w.-]{0,63}) is slow to start")),
    # lastb (and last) list a login over ssh that never got a terminal: `hfischer  ssh:notty  10.0.0.7 ...`.
    ("ssh:notty", LinePattern(r"(?P<user>[^\W\d][\w.-]{0,31}) {1,16}ssh:notty ")),
    # stat: `Access: (0644/-rw-r--r--)  Uid: (41203/hfischer)   Gid: ( 5000/   mlgrp)`.
    ("uid: (", re.compile(r"Uid: \( {0,9}\d{1,10}/ {0,16}(?P<user>[^\W\d][\w.-]{0,31})\)")),
    # pam_unix's refusal of an expired account: `account hfischer has expired (account expired)`.
    (" has expired (account expired)", re.compile(r"account (?P<user>[^\W\d][\w.-]{0,31}) has expired \(account expired\)")),
    # `ps -o user= -p 48213`, the login alone on the next line.
    ("-o user=", LinePattern(r"[^\n]{0,64}[$#%>] ps [^\n]{0,200}-o user= [^\n]{0,200}" + NEXT_LINE + r"(?P<user>[^\W\d][\w.-]{0,31})[ \t]*\r?$", re.M)),
    # The account in a tool's refusal or state: screen's `No Sockets found in
    # /run/screen/S-hfischer.`, `no crontab for hfischer`, coreutils' `id: ‘hfischer’: no such
    # user` and `chown: invalid user: ‘hfischer:ml’`, `sudo: unknown user hfischer`, shadow's
    # `useradd: user 'hfischer' already exists`.
    ("/screen/s-", re.compile(r"/screen/S-(?P<user>[^\W\d][\w.-]{0,31}?)\.?(?![\w.-])")),
    ("no crontab for ", re.compile(r"no crontab for (?P<user>[^\W\d][\w.-]{0,31}?)\.?(?![\w.-])")),
    (": no such user", re.compile(r"[‘'](?P<user>[^\W\d][\w.-]{0,31})[’']: no such user")),
    ("invalid user: ", re.compile(r"invalid user: [‘'](?P<user>[^\W\d][\w.-]{0,31})[:.’']")),
    ("unknown user", re.compile(r"sudo: unknown user:? (?P<user>[^\W\d][\w.-]{0,31})")),
    ("already exists", re.compile(r"(?:useradd|usermod|userdel|passwd|chage): user '(?P<user>[^\W\d][\w.-]{0,31})' (?:already exists|does not exist)")),
    # shadow's syslog lines: `useradd[4811]: new user: name=hfischer, UID=...`, `new group:
    # name=hfischer, GID=...`, `group added to /etc/group: name=hfischer`, usermod's `add
    # 'hfischer' to group 'docker'` (`to shadow group`).
    *((word, re.compile(re.escape(word) + r"(?P<user>[^\W\d][\w.-]{0,31}),"))
      for word in ("new user: name=", "new group: name=", "group added to /etc/group: name=", "group added to /etc/gshadow: name=")),
    ("usermod[", re.compile(r"usermod\[\d{1,10}\]: (?:add|delete) '(?P<user>[^\W\d][\w.-]{0,31})' (?:to|from) (?:shadow )?group '")),
    # su's log: `(to root) hfischer on pts/4` (`FAILED SU (to root) ...`), `Successful su for root
    # by hfischer`, `+ /dev/pts/4 hfischer:root`.
    ("(to ", re.compile(r"\(to [\w.-]{1,32}\) (?P<user>[^\W\d][\w.-]{0,31}) on ")),
    ("su for ", re.compile(r"su for [\w.-]{1,32} by (?P<user>[^\W\d][\w.-]{0,31})")),
    ("su[", re.compile(r"su\[\d{1,10}\]: [+-] (?:/dev/)?[\w/]{1,32} (?P<user>[^\W\d][\w.-]{0,31}):[\w.-]")),
    *((word, _CRON_LINE) for word in (") cmd (", ") mail (")),
    # Grid Engine's `qstat -f` lists each queue instance, its jobs' rows under it: ` 482130 0.50500
    # train.sh   hfischer     r     11/03/2026 08:14:02     4` (the priority's five decimals).
    ("queuename", LinePattern(r" {0,8}\d{1,10} \d\.\d{5} \S{1,10} {1,8}(?P<user>[^\W\d][\w.-]{0,31}) {1,16}[a-zA-Z]{1,5} {1,8}\d\d/\d\d/\d{4} ", re.M)),
    # PBS's `qstat -f`: `euser = hfischer`, the account the job runs as.
    ("euser = ", re.compile(r"euser = (?P<user>[^\W\d][\w.-]{0,31})[ \t]*\r?$", re.M)),
    # Grid Engine's accounting record (`qacct -j`): `owner        hfischer` among its padded keys.
    ("jobnumber ", LinePattern(r"owner {2,16}(?P<user>[^\W\d][\w.-]{0,31})[ \t]*\r?$", re.M)),
    # seff's summary of a Slurm job: `User/Group: hfischer/ml-team`.
    ("user/group: ", re.compile(r"User/Group: (?P<user>[^\W\d][\w.-]{0,31})/")),
    # The Digital Research Alliance of Canada names allocations for their principal
    # investigator: `--account=def-hfischer`, `rrg-hfischer_gpu` in sacct's Account column,
    # `/project/def-hfischer/` (default, competition and sponsored allocations).
    *((word, re.compile(r"(?<![\w-])" + word + r"(?P<user>[a-z][a-z0-9]{1,31})(?:_[a-z]{3})?(?![\w-])"))
      for word in _ALLIANCE_ACCOUNTS),
    # sudo's prompt: `[sudo] password for hfischer: `.
    ("password for ", re.compile(r"\[sudo\] password for (?P<user>[^\W\d][\w.-]{0,31}):")),
    # `$ whoami`, `$ id -un`, `$ echo $USER` and the account name alone on the next line;
    # `huggingface-cli whoami` / `hf auth whoami` print the Hub login the same way (then `orgs:`),
    # since huggingface_hub 0.25 after a label: `print(ANSI.bold("user: "), info["name"])`.
    # (`logname` after a prompt's character only: every env dump prints `LOGNAME=`.)
    *((word, _WHOAMI_LINE) for word in ("whoami", *(f"{p} logname" for p in "$#%>"))),
    ("echo $user", LinePattern(r"[^\n]{0,64}[$#%>] echo \$\{?USER\}?[ \t]*" + NEXT_LINE + r"(?P<user>[^\W\d][\w.-]{0,31})[ \t]*\r?$", re.M)),
    # The CI login echoed the same way: `$ echo $GITLAB_USER_LOGIN`, then the login alone.
    *((word, LinePattern(r"[^\n]{0,64}[$#%>] echo \$\{?" + word[6:].upper() + r"\}?[ \t]*" + NEXT_LINE
                         + r"(?P<user>[^\W\d][\w.-]{0,38})[ \t]*\r?$", re.M))
      for word in ("echo $logname", "echo $gitlab_user_login", "echo $github_actor")),
    # GitHub CLI's `gh auth status`: `  ✓ Logged in to github.com account hfischer (keyring)`
    # (before gh 2.40: `✓ Logged in to github.com as hfischer (oauth_token)`).
    ("ogged in to ", re.compile(r"Logged in to [\w.-]{1,253} (?:account|as) (?P<user>[A-Za-z0-9][\w-]{0,38}) \(")),
    # `ssh -v`: `debug1: Authenticating to gpu-node-17.cluster.internal:22 as 'hfischer'`.
    ("authenticating to ", re.compile(r"Authenticating to \S{1,256} as '(?P<user>[^\W\d][\w.-]{0,31})'")),
    # `curl -v` names the account it sends: `* Server auth using Basic with user 'hfischer'`
    # (`Proxy auth ...` for a proxy's); an e-mail there is left to the e-mail row.
    (" with user '", re.compile(r"auth using \w{1,16} with user '(?P<user>[^\W\d][\w.-]{0,63})'")),
    # An IRC-style chat log pasted in a thread: `[10:44] <hfischer> still failing on dgx06`.
    ("] <", LinePattern(r"\[\d{1,2}:\d{2}(?::\d{2})?\] <[@+%~&]?(?P<user>[^\W\d][\w.-]{0,31})> ", re.M)),
    # GitHub Actions' environment: `GITHUB_ACTOR=hfischer`, `GITHUB_TRIGGERING_ACTOR=...`
    # (a login: letters, digits, hyphens, and `_shortcode` on Enterprise Managed Users; dots
    # where Gitea's and Forgejo's Actions set it, their logins being `hannah.fischer`;
    # `dependabot[bot]` is an app, not a person).
    ("_actor", re.compile(
        r"\bGITHUB_(?:TRIGGERING_)?ACTOR[\"']?[ \t]*[=:][ \t]*[\"']?(?P<user>[A-Za-z0-9](?:[\w.-]{0,38}[\w-])?)(?![\w\[-]|\.\w)"
    )),
    # ... and its `github` context as a workflow dumps it (`${{ toJson(github) }}`: `"actor":
    # "hfischer"`, `"triggering_actor": ...`), or a step prints it (`github.actor: hfischer`).
    # (A GitHub login: letters, digits and hyphens; `"actor": "policy_net"` is a model's part.
    # The automaton reports `_actor"` as `_actor`: the key with its prefix has its own row.)
    ('actor"', re.compile(r"\"actor\":[ \t]*\"(?P<user>[A-Za-z0-9][A-Za-z0-9-]{0,38})\"")),
    ("_actor", re.compile(r"\"triggering_actor\":[ \t]*\"(?P<user>[A-Za-z0-9][A-Za-z0-9-]{0,38})\"")),
    ("github.actor", re.compile(r"\bgithub\.(?:triggering_)?actor[ \t]*[=:][ \t]*[\"']?(?P<user>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,38}[A-Za-z0-9-])?)(?![\w\[-]|\.\w)")),
    # Who a CI run names in parentheses: `triggered by (hfischer)`, `(by @hfischer)`, a display
    # name and its login, `Hannah Fischer (@hfischer)`.
    ("by (", re.compile(r"\b(?:[Tt]riggered|[Ss]tarted|[Rr]equested|[Qq]ueued|[Rr]un|[Dd]eployed|[Cc]ancell?ed|[Aa]pproved"
                        r"|[Rr]e-?run|[Mm]erged|[Pp]ushed|[Cc]reated) by \(@?(?P<user>[A-Za-z0-9][\w.-]{0,38})\)")),
    ("(by ", re.compile(r"\(by @?(?P<user>[A-Za-z0-9][\w.-]{0,38})\)")),
    (" (@", re.compile(r"\b[A-Z][a-z]{1,30} [A-Z][a-z'-]{1,40} \(@(?P<user>[A-Za-z0-9][\w.-]{0,38})\)")),
    # Another user's home as the shell spells it (`cp ~hfischer/ckpt .`), an owner handed
    # over (`chown -R hfischer:users /data/x`), a user's crontab, `fuser -v`'s USER column.
    # (Each led by its literal, so `re` skips to it: a lookbehind first would try every position.)
    ("~", re.compile(r"~(?<![\w~/.:-]~)(?P<user>[a-z_][a-z0-9_.-]{1,31})(?=/)")),
    ("chown ", re.compile(r"chown (?<![\w-]chown )(?:-[A-Za-z]{1,4} )*(?P<user>[a-z_][a-z0-9_.-]{0,31})(?=:[a-z_]|[ \t]+/)")),
    ("crontabs/", re.compile(r"/var/spool/cron/(?:crontabs/)?(?P<user>[a-z_][a-z0-9_.-]{0,31})(?![\w.-])")),
    ("/dev/", re.compile(r"/dev/[\w/]{1,64}:[ \t]+(?P<user>[a-z_][a-z0-9_.-]{0,31})[ \t]+\d{1,9} [Fcerfm.]{5} ")),
    # GitHub's pull request page pasted: `hfischer commented 3 hours ago`, `... commented on
    # Dec 4, 2026`, `hfischer requested changes` / `approved these changes`.
    # (The login opens its line there: read from line starts, which `re` skips to in C.)
    *((word, LinePattern(
        r"[ \t]*@?(?P<user>[A-Za-z0-9][A-Za-z0-9-]{0,38}) (?:commented (?:\d{1,3} \w{3,7} ago|on [A-Z][a-z]{2} \d)|requested changes)",
        re.M, gate=r" commented | requested changes",
    )) for word in (" commented ", " requested changes")),
    # git push over HTTPS: `remote: Permission to acme/llm.git denied to hfischer.`
    # (`... denied to deploy key` names a key, not an account).
    ("denied to ", re.compile(r"Permission to \S{1,256} denied to (?P<user>[A-Za-z0-9][\w-]{0,38})(?![\w-]| key)")),
]
# ~/.ssh/config: `Host gpu-cluster` / `    HostName login01...` / `    User hfischer`.
_SSH_CONFIG_USER = LinePattern(r"[ \t]+User[ \t]+(?P<user>[^\W\d][\w.-]{0,31})[ \t]*\r?$", re.M)
_GROUP_ROW = LinePattern(
    r"[ \t]*[A-Za-z_][\w.-]{0,31}:[x*!]?:\d{1,10}:"
    r"(?P<members>[^\W\d][\w.-]{0,31}(?:,[^\W\d][\w.-]{0,31}){0,255})[ \t]*\r?$",
    re.M,
    gate=r":[x*!]?:\d{1,10}:[^\W\d]",
)
# A kubeconfig's first user entry (`kubectl config view`): `users:` / `- name: hfischer`, the
# login its contexts name with a bare `user: hfischer` (masked in place there), or with the
# cluster after it, `- name: hfischer@gpu-prod`. Cloud-made entries (`gke_acme-ml_us-central1_gpu`,
# `arn:aws:eks:...`, `clusterUser_rg_aks`) read as no login, and the names kubeadm, kubelogin's
# guides and local clusters write are no person's.
_KUBECONFIG_USER_RX = re.compile(
    r"users:[ \t]*\r?\n[ \t]*- name: (?P<user>[a-z][a-z0-9._-]{1,38}[a-z0-9])(?=@[\w.-]{1,64}[ \t]*\r?$|[ \t]*\r?$)", re.M
)
# A W&B entity set where a run is configured (`WANDB_ENTITY=hfischer`, Hydra's `entity: hfischer`
# under `wandb:`, `wandb.init(entity="hfischer")`, `--entity hfischer`) with nothing else in the
# log naming the person: a user's when it reads as a person's login (a team's, `acme-ml`, kept).
_ENTITY_RX = re.compile(
    r"(?:(?:WANDB_ENTITY|(?<![\w-])entity)[\"']?[ \t]*[=:][ \t]*[\"']?|--entity[ \t]+)"
    r"(?P<user>[A-Za-z0-9][\w.-]{0,62}[A-Za-z0-9])(?![\w.-])"
)
# Every match starts at one of these words. The pattern opens with an alternation and a
# lookbehind, so `re` would try it at every position of the text (an env dump printed by every
# task holds `WANDB_ENTITY=` on each: 30 ms a MB); it is tried where one of them starts only.
_ENTITY_STARTS = Words(["WANDB_ENTITY", "entity", "--entity"], caseless=False, fixed=True)


def _entity_matches(text: str) -> Iterator[re.Match[str]]:
    """`_ENTITY_RX.finditer(text)`, trying the pattern only where a match can start."""
    return _matches_from(_ENTITY_RX, text, sorted(chain.from_iterable(_ENTITY_STARTS.starts(one_byte(text)))))
_KUBECONFIG_STOCK_USERS = frozenset(
    ("oidc", "kubernetes-admin", "cluster-admin", "minikube", "docker-desktop", "microk8s", "kind-kind", "k3s", "kubelogin",
     "developer", "deployer", "viewer", "readonly", "ci-bot", "service-account", "azure-user", "token-user", "exec-user")
)  # fmt: skip
# The owner of a repository on the Hugging Face Hub in its URL (`https://huggingface.co/hfischer/
# llama-sft`, `/datasets/hfischer/...`): a user's name when it reads as a person's login, an
# organisation's otherwise (`meta-llama`, `mistralai`, `google`, `TheBloke` are kept).
# (Each led by its literal, so `re` skips to it.)
# The Hub's API spells the same repository under `/api/models/` (huggingface_hub's `Repository Not
# Found for url: https://huggingface.co/api/models/hfischer/llama-sft/revision/main.`).
_HF_OWNER = r"/(?:api/(?:models|datasets|spaces)/|datasets/|spaces/)?(?P<user>[A-Za-z0-9][\w.-]{1,95})/"
# (The anchor words stop before the `/`: the engine reports words that do not overlap, and a
# word holding it hid the `/home/` of `huggingface.co/home/alice/`.)
_OwnerRows = tuple[tuple[str | tuple[str, ...], re.Pattern[str]], ...]
# Places only a Hub repository's id can stand: its URL, the API's and the tools' messages about
# one, the cache's directory, a push. Models everyone loads are a publisher's, and a team pushes
# under its company's organisation (`acme/llama-ft`): an owner there is a person's when the lists
# know no publisher of that name and the name itself says so (a login's shape, owners.py's, or
# publishers.personal_signal: a number, initials and a family name).
_HF_OWNER_RXS: _OwnerRows = (
    ("huggingface.co", re.compile(r"huggingface\.co" + _HF_OWNER)),
    ("hf.co", re.compile(r"hf\.co" + _HF_OWNER)),
    # A push names the repository alone (huggingface_hub's `push_to_hub`, diffusers', ...):
    # `Uploading the following files to hfischer/llama-sft: model.safetensors,README.md`.
    ("following files to ", re.compile(r"Uploading the following files to (?P<user>[A-Za-z0-9][\w.-]{1,95})/")),
    ("hub_model_id", re.compile(r"hub_model_id[\"']?[ \t]*[=: \t][ \t]*[\"']?(?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    ("push_to_hub(", re.compile(r"push_to_hub\([ \t]*(?:repo_id=)?[\"'](?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    # transformers' `OSError: hfischer/llama-sft is not a local folder and is not a valid model
    # identifier`.
    ("is not a local folder", re.compile(r"(?P<user>[A-Za-z0-9][\w.-]{1,95})/[\w.-]{1,96} is not a local folder")),
    # huggingface_hub's and datasets' calls and their errors: `repo_id="hfischer/llama-sft"`,
    # `Dataset 'hfischer/chats' doesn't exist on the Hub`, and the CLI's `huggingface-cli upload
    # hfischer/llama-sft ./out` (`hf download ...`), `snapshot_download(`.
    ("repo_id", re.compile(r"(?<![\w-])repo_id[\"']?[ \t]*[=:][ \t]*[\"'](?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    ("_download(", re.compile(r"(?:snapshot|hf_hub)_download\([ \t]*[\"'](?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    ("exist on the hub", re.compile(r"Dataset '(?P<user>[A-Za-z0-9][\w.-]{1,95})/[\w.-]{1,96}' doesn't exist on the Hub")),
    (("upload ", "download "), re.compile(r"(?<![\w-])(?:huggingface-cli|hf) (?:upload|download)(?:[ \t]+--[\w-]{1,30}(?:[ \t]+(?!-)\S{1,40})?)*[ \t]+(?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    # The cache names a repository's directory `models--<owner>--<name>` (`datasets--`, `spaces--`):
    # `~/.cache/huggingface/hub/models--hfischer--llama-sft/snapshots/<sha>/` (an owner holds no `--`).
    *((kind + "--", re.compile(kind + r"--(?<![\w-]" + kind + r"--)(?P<user>[A-Za-z0-9](?:[\w.]|-(?!-)){0,94}?)--(?=[A-Za-z0-9])"))
      for kind in ("models", "datasets", "spaces")),
)
# Places a repository id shares with a local path (`from_pretrained("outputs/final")`, `model:
# checkpoints/best`): an owner there is a person's unless a publisher's, a group's or a run
# directory's (publishers.LOCAL_DIRS, `exp3`, `run_12`).
_HF_PATH_OWNER_RXS: _OwnerRows = (
    # A training script's own upload line names the repository the same way: `Uploading to hfischer/llama-sft`.
    ("uploading to ", re.compile(r"[Uu]ploading to (?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    # A repository id where a script loads or names one: `from_pretrained("hfischer/llama-sft")`,
    # `model_name_or_path: hfischer/...`, lm-eval's `pretrained=hfischer/...`.
    ("from_pretrained(", re.compile(r"from_pretrained\([ \t]*[\"'](?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    ("name_or_path", re.compile(r"name_or_path[\"']?[ \t]*[=:][ \t]*[\"']?(?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    ("pretrained=", re.compile(r"(?<![\w-])pretrained=(?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    # Where a serving or training tool names its model or data set: vLLM's `vllm serve hfischer/...`
    # and engine config `model='hfischer/...'`, `--model`, `base_model:` (axolotl), `load_dataset(`.
    ("vllm serve ", re.compile(r"vllm serve[ \t]+(?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    (_MODEL_KEY_WORDS, re.compile(
        r"(?<![\w-])(?:model|tokenizer|base_model|model_id|model_name|tokenizer_name|dataset_name|dataset_path)[\"']?[ \t]*[=:][ \t]*[\"']?"
        r"(?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9][\w.-]{0,95}(?:[\"',\s)]|$))"
    )),
    ("--model", re.compile(r"--(?:model|tokenizer|model_id|model_name|base_model|dataset_name)[= ][\"']?(?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    ("load_dataset(", re.compile(r"load_dataset\([ \t]*[\"'](?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9])")),
    # transformers' `OSError: Can't load tokenizer for 'hfischer/llama-sft'. If you were trying ...`
    # (`config`, `the model`, `feature extractor`, `image processor`, `processor` alike).
    ("can't load ", re.compile(r"Can't load [a-z ]{1,24} for '(?P<user>[A-Za-z0-9][\w.-]{1,95})/(?=[A-Za-z0-9][\w.-]{0,95}')")),
)
# GitHub: the owner of a repository a log clones, installs or links (`git clone
# https://github.com/hfischer/llm.git`, `git+https://github.com/hfischer/llm.git@main`,
# `git@github.com:hfischer/llm.git`, a warning's `github.com/<org>/<repo>/issues/123`), judged as
# a Hub repository's owner where a model is loaded: projects' organisations are kept.
# (Each led by its literal, so `re` skips to it: a lookbehind first would try every position.)
_GITHUB_RX = re.compile(r"github\.com(?<![\w.-]github\.com)[/:](?P<user>[A-Za-z0-9][A-Za-z0-9-]{0,38})/(?=[\w.-])")
_GITHUB_RAW_RX = re.compile(r"raw\.githubusercontent\.com/(?P<user>[A-Za-z0-9][A-Za-z0-9-]{0,38})/(?=[\w.-])")
# A gist is always its author's: `gist.github.com/hfischer/0a1b...`.
_GIST_RX = re.compile(r"gist\.github\.com/(?P<user>[A-Za-z0-9][A-Za-z0-9-]{0,38})/(?=[0-9a-f])")
# GitHub's own pages at the top of its URLs: no account.
_GITHUB_PAGES = frozenset(
    ("settings", "orgs", "login", "logout", "join", "apps", "features", "marketplace", "sponsors", "user-attachments",
     "notifications", "pulls", "issues", "topics", "collections", "enterprises", "site", "about", "pricing", "security",
     "advisories", "explore", "search", "new", "codespaces", "customer-stories", "readme", "trending", "account",
     "organizations", "repos", "users", "contact", "support", "team", "home", "git-guides", "assets")
)  # fmt: skip
_LOCAL_RUN_DIR = re.compile(r"(?:exp|run|ckpt|checkpoint|output|out|model|step|epoch|trial|seed|version|v|iter|stage|fold)[-_]?\d*\Z", re.I)


def _hub_account(name: str, handles: bool = True) -> bool:
    """A repository's owner: a person's when no publisher's and its name says so (`handles`:
    a handle of words alone, `silent-owl`, says so too)."""
    return (
        unknown_account(name)
        and not team_like(name)
        and (_hub_owner(name.lower()) or personal_signal(name, GIVEN_NAMES, FAMILY_NAMES) or (handles and word_handle(name)))
    )


# A person's page on the Hub, its URL ending at the owner (`See https://huggingface.co/hfischer
# for the model card`, `hf.co/hfischer.`): where no repository follows, the Hub's own pages
# (`/docs`, `/pricing`) and the models published before owners (`huggingface.co/gpt2`,
# `/bert-base-uncased`) stand too.
# (Each host's pattern led by its own literal, `re`'s fast search skipping to it: an alternation
# of the two has no literal prefix and was tried at every position of a piece that names the Hub
# once, a quarter-second of ray-train's 30 MB where its warnings link the Hub's docs.)
_HF_PROFILE_OWNER = r"(?P<user>[A-Za-z0-9][\w.-]{0,94}?)(?=[\s\"'<>)\]},;]|[.:!?](?:\s|\Z)|\Z|[?#])"
_HF_PROFILE_RXS = (
    ("huggingface.co", re.compile(r"huggingface\.co/" + _HF_PROFILE_OWNER)),
    ("hf.co", re.compile(r"hf\.co/(?<![\w.-]hf\.co/)" + _HF_PROFILE_OWNER)),
)
_CANONICAL_MODEL = re.compile(r"(?:albert|bert|camembert|ctrl|distil\w*|flaubert|gpt2|openai-gpt|roberta|t5|transfo-xl|xlm|xlnet)(?:[-.]\w+)*\Z", re.I)


_HUB_PAGES = frozenset(
    ("docs", "pricing", "join", "login", "logout", "papers", "blog", "spaces", "models", "datasets", "collections", "posts",
     "learn", "chat", "tasks", "enterprise", "organizations", "welcome", "inference-endpoints", "inference-api", "support",
     "terms-of-service", "privacy", "changelog", "storage", "settings", "new", "new-space", "new-dataset", "notifications",
     "search", "pro", "hub", "api", "languages", "licenses", "code-of-conduct", "content-guidelines", "brand", "jobs", "about")
)  # fmt: skip


def _hub_profile(name: str) -> bool:
    """A profile URL's owner: a person's as a repository's owner is, not a model without one,
    nor one of the Hub's own pages."""
    return name.lower() not in _HUB_PAGES and _CANONICAL_MODEL.match(name) is None and _hub_account(name)


def _hub_path_account(name: str) -> bool:
    """An owner where a local path may stand too: not a run's directory either, nor a handle of
    words alone, which a directory is named as often (`sft-output/checkpoint-100`)."""
    return _hub_account(name, handles=False) and _LOCAL_RUN_DIR.match(name) is None


def _gist_author(name: str) -> bool:
    """A gist's author: a person's account unless a publisher's (a gist has no organisation)."""
    return unknown_account(name)


def _github_account(name: str) -> bool:
    return name.lower() not in _GITHUB_PAGES and _hub_account(name)


_JENKINS_CAUSE_RX = re.compile(
    r"Started by (?:user|(?:GitHub|GitLab|Bitbucket) push by|upstream project \S{1,200} build number \d{1,9} by user) "
    r"(?P<user>[^\W\d][\w.'’ -]{0,62}?)[ \t]*\r?$",
    re.M,
)
_MERGE_PR_RX = re.compile(r"Merge pull request #\d{1,9} from (?P<user>[A-Za-z0-9][A-Za-z0-9-]{0,38})/")
_SSHD_WORDS = ("invalid user ", "password for ", "publickey for ", "keyboard-interactive/pam for ",
               "none for ", "hostbased for ", "gssapi-with-mic for ", "gssapi-keyex for ")  # fmt: skip


# `ls -l`: `-rw-r--r-- 1 hfischer ml-team 4823 Dec  4 10:42 train.py` (the owner, then the group;
# a group spelled as the owner is the user's private group, `grant grant`, and goes too).
_LS_OWNER = LinePattern(
    r"[-dlcbps][rwxsStT-]{9}[.+@]? {1,4}\d{1,6} (?P<user>[^\W\d][\w.-]{0,31}) {1,16}(?P<group>[^\W\d][\w.-]{0,31}) {1,16}\d",
    gate=r"[-dlcbps][rwxsStT-]{9}[.+@]? {1,4}\d",
)
# The line gate of find_file_owners (bot/masking/gate.py): the mode's permissions and the link
# count's first digit (`?`: a non-ASCII digit as the gate reads it). Found by `re`, the mode's
# first character (`-`, `d`, `l`, ...) stopped the scan everywhere: 0.05 s per 10 MB of any
# log. (Without that character: with it, Hyperscan takes 15 ms more to build the gate.)
LS_OWNER_TRIGGER = r"[rwxsStT-]{9}[.+@]? {1,4}[0-9?]"


def find_file_owners(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask the owners `ls -l` lists, and learn them."""
    for m in _LS_OWNER.finditer(text):
        name = m.group("user")
        if name.lower() not in TECHNICAL_USERS and name.lower() not in _HOME_SKIP:
            edits.append((m.start("user"), m.end("user"), "user", name))
            if m.group("group") == name:
                edits.append((m.start("group"), m.end("group"), "user", name))
            state.learn_user(name)


# What an organisation's Hub name ends with after a word that is also a given name (`allenai`).
# Tails that make a name a group's or a product's on the Hub, whatever its head reads as.
_ORG_WORD_TAILS = ("nlp", "ware", "labs", "research", "community")
_ORG_TAILS = ("ai", "ml", "nlp", "lab", "labs", "hq", "org", "inc", "io", "tech", "dev", "bot", "ops", "research")


def _hub_owner(name: str) -> bool:
    """A Hub namespace that is a person's: a login as person_login reads one, or a given name
    the list knows with the first letters of the family name after it, as the Hub's sign-up
    suggests (`hannahfis`, `yusufdem`); not an organisation's tail (`allenai`)."""
    if name.endswith(_ORG_WORD_TAILS):
        return False  # a group's name (`hkunlp`, `llmware`), whatever its head
    if person_login(name):
        return True
    given, underscore, family = name.partition("_")
    if underscore and given.isalpha() and family.isalpha() and name.islower() and (given in GIVEN_NAMES or family in FAMILY_NAMES):
        # `leila_ngata`, `seo_yamada`: a given and a family name joined as a login, one of them
        # known (not a data set's words, `super_glue`, `cnn_dailymail`).
        return not (names_a_tool(given) or names_a_tool(family) or team_like(name))
    stem = name.rstrip("0123456789")
    if 1 <= len(name) - len(stem) <= 3 and len(stem) >= 6 and stem.isalpha() and person_login(stem):
        return True  # an initial and a family name no list knows, numbered (`mbrandstetter85`)
    return (
        name.isalpha()
        and name.islower()
        and any(
            name[:cut] in GIVEN_NAMES and 2 <= len(name) - cut <= 4 and name[cut:] not in _ORG_TAILS
            for cut in range(4, len(name) - 1)
        )
        and not names_a_tool(name)
        and not team_like(name)
    )


def _personal_entity(name: str) -> bool:
    name = name.lower()
    return person_login(name) and not team_like(name)


def _kubeconfig_user(name: str) -> bool:
    """A kubeconfig's user entry is the login it authenticates as, unless a tool named it."""
    name = name.lower()
    return person_login(name) or (login_like(name) and name not in _KUBECONFIG_STOCK_USERS)


def find_named_users(text: str, present: set[str], edits: list[Edit], state: LogState) -> None:
    """Mask user names that banners and errors spell out, and learn them."""
    if "ogged in as" in present:
        for m in _LOGGED_IN_RX.finditer(text):
            user = m.group("user")
            for group in ("user", "entity"):
                name = m.group(group)
                if not name or name.lower() in TECHNICAL_USERS:
                    continue
                if group == "entity" and user.lower() not in name.lower():
                    # `(acme-ml)`: a team entity names no person (W&B's personal entity is
                    # the user name); kept here and in this log's wandb.ai/<entity>/ URLs.
                    state.teams.setdefault(name, None)
                    continue
                edits.append((m.start(group), m.end(group), "user", name))
                state.learn_user(name)
    if any(url in present for url in _TRACKER_URLS):
        for m in _TRACKER_URL_RX.finditer(text):
            name = m.group("user")
            if name.lower() not in _TRACKER_PATHS and name not in state.teams and not team_like(name):
                edits.append((m.start("user"), m.end("user"), "user", name))
                state.learn_user(name)
    if '", user "' in present:
        for m in _PG_HBA_USER_RX.finditer(text):
            if m.group("user").lower() not in TECHNICAL_USERS:
                edits.append((m.start("user"), m.end("user"), "user", m.group("user")))
    if "for user " in present:
        for m in _FOR_USER_RX.finditer(text):
            group = "user" if m.group("user") is not None else "bare"
            name = m.group(group)
            # (`password authentication failed for user "mlflow"`: a service's own account.)
            if name.lower() not in TECHNICAL_USERS and "@" not in name and not names_a_tool(name.lower()):
                edits.append((m.start(group), m.end(group), "user", name))
                if group == "bare":
                    state.learn_user(name)  # an account name, as in a home path
    done: set[int] = set()  # (a pattern some rows share, `sudo: ` and `sudo[`, runs once)
    for literal, rx in _ACCOUNT_POSITIONS:
        if (literal and literal not in present) or id(rx) in done:
            continue
        done.add(id(rx))
        for m in rx.finditer(text):
            name = m.group("user")
            if name.lower() not in TECHNICAL_USERS and name.lower() not in _HOME_SKIP and name.lower() not in _CI_CAUSES:
                edits.append((m.start("user"), m.end("user"), "user", name))
                state.learn_user(name)
    _find_personal_numbers(text, present, edits, state)
    # `triggered by hfischer on push`: a word in small letters there is a login only when it
    # reads as a person's on its own (`triggered by push`, `triggered by the scheduler` are not).
    if any(word in present for word in _ACTED_BY_WORDS):
        # (The automaton reports `triggered by (` as this word, not as `by (`: the login in
        # parentheses is read here too.)
        for m in _TRIGGERED_BY_LOGIN.finditer(text):
            group = "user" if m.group("user") is not None else "quoted"
            name = m.group(group)
            if person_login(name) if group == "user" else name.lower() not in _CI_CAUSES and name.lower() not in TECHNICAL_USERS:
                edits.append((m.start(group), m.end(group), "user", name))
                state.learn_user(name)
    # Where only the login's shape says it is a person's (a kubeconfig's user entry, a Hub
    # repository's owner).
    for literal, matches, judge in (
        ("users:", _KUBECONFIG_USER_RX.finditer, _kubeconfig_user),
        *((literal, rx.finditer, _hub_account) for literal, rx in _HF_OWNER_RXS),
        *((literal, rx.finditer, _hub_path_account) for literal, rx in _HF_PATH_OWNER_RXS),
        *((literal, rx.finditer, _hub_profile) for literal, rx in _HF_PROFILE_RXS),
        ("github.com", _GITHUB_RX.finditer, _github_account),
        ("githubusercontent.com", _GITHUB_RAW_RX.finditer, _github_account),
        ("gist.github.com", _GIST_RX.finditer, _gist_author),
        ("entity", _entity_matches, _personal_entity),
    ):
        if literal in present if isinstance(literal, str) else not present.isdisjoint(literal):
            for m in matches(text):
                name = m.group("user")
                if name in state.teams:
                    continue  # (a W&B team the log named: `acme-ml`)
                if judge(name):
                    edits.append((m.start("user"), m.end("user"), "user", name))
                    state.learn_user(name)
    # (dstack's run plan lists ` Project   main` / ` User   hfischer` in the same layout.)
    if holds(text, "IdentityFile") or holds(text, "HostName") or holds(text, " Project "):
        for m in _SSH_CONFIG_USER.finditer(text):
            name = m.group("user")
            if name.lower() not in TECHNICAL_USERS:
                edits.append((m.start("user"), m.end("user"), "user", name))
                state.learn_user(name)
    if ":x:" in present:
        # `getent group` / /etc/group rows list their members: `ml-research:x:5000:hfischer,bsmith`.
        for m in _GROUP_ROW.finditer(text):
            pos = m.start("members")
            for name in m.group("members").split(","):
                if name.lower() not in TECHNICAL_USERS and name.lower() not in _HOME_SKIP:
                    edits.append((pos, pos + len(name), "user", name))
                    state.learn_user(name)
                pos += len(name) + 1
    if "merge pull request #" in present:
        # GitHub's merge commit: `Merge pull request #412 from hfischer/fix-nccl`. The head
        # repository's owner is the author's fork, or the organisation itself for a branch
        # of the same repository: masked in place, not learned (`acme` is in every URL).
        for m in _MERGE_PR_RX.finditer(text):
            edits.append((m.start("user"), m.end("user"), "user", m.group("user")))
    if "started by " in present:
        # Jenkins' console log: `Started by user Hannah Fischer` (the user's display name, or
        # their login), `Started by GitHub push by hfischer`.
        for m in _JENKINS_CAUSE_RX.finditer(text):
            name = m.group("user").strip()
            if not name or name.lower() in TECHNICAL_USERS or name.lower() in ("anonymous", "timer", "scm"):
                continue
            if " " in name:
                edits.append((m.start("user"), m.start("user") + len(name), "name", name))
                state.learn_name(name)
            else:
                edits.append((m.start("user"), m.start("user") + len(name), "user", name))
                state.learn_user(name)
    if any(w in present for w in _SSHD_WORDS):
        for m in _SSHD_USER_RX.finditer(text):
            name = m.group("user")
            if name.lower() not in TECHNICAL_USERS:
                edits.append((m.start("user"), m.end("user"), "user", name))
                state.learn_user(name)


# One-word chat mentions in a pasted thread: `@hannah can you look`, `cc @hfischer @bob.smith`.
# Not after a word, quote or path character (`pkg@1.2`, `user@host`, `"@timestamp"`,
# `$@`; after `:` only behind a launcher's `[rank3]:` or MPI's `[1,3]<stdout>:`), not before `(`,
# `/` or `:` (`@torch.no_grad()`, `npm i @types/node`, `@app.route(`).
_MENTION_RX = re.compile(r"@(?<![\w@.\"'`/+$%&=\\<>-]@)(?<![^\]>]:@)(?P<user>[A-Za-z][\w.-]{0,38}[A-Za-z0-9_])(?![\w@(/:<-]|\.\w)")
# Slack's broadcasts, doc-comment tags and decorators named in prose are nobody.
NOT_MENTIONS = frozenset(
    (
        "here", "channel", "everyone", "all", "param", "return", "returns", "raise", "raises",
        "throws", "type", "rtype", "see", "since", "deprecated", "override", "author", "version",
        "example", "note", "todo", "property", "staticmethod", "classmethod", "dataclass",
        "abstractmethod", "overload", "cache", "cached_property", "lru_cache", "wraps", "jit",
        "njit", "echo", "timestamp", "import", "media", "latest", "next", "types", "main",
        "master", "dev", "stable", "nightly", "beta", "head", "none", "null", "fixture",
        "contextmanager", "final", "remote", "compile", "no_grad", "inference_mode",
        # Java and Kotlin annotations in pasted stack traces and sources.
        "test", "before", "after", "beforeeach", "aftereach", "autowired", "inject", "component",
        "bean", "entity", "nullable", "nonnull", "suppresswarnings", "functionalinterface", "jvmstatic",
    )
)
# `@torch.compile` in prose is a decorator; a dotted Slack handle is `first.last`.
_MODULE_HEADS = frozenset(
    ("torch", "tf", "jax", "nn", "functools", "pytest", "app", "router", "dataclasses", "typing", "abc", "contextlib",
     "click", "ray", "hydra", "triton", "numba", "cuda", "mark", "unittest", "mock", "patch", "staticmethod", "self", "np")
)  # fmt: skip


# (A family name's particles between: `@Marloes von Falkenhausen`, `@Lucía de los Ángeles`.)
_FULL_NAME_AFTER = regex.compile(
    r"[ \t](?:(?:van|von|de|del|della|der|den|da|di|dos|das|du|la|le|los|las|ter|ten|bin|binti|ibn|al|zu)[ \t]){0,3}"
    r"\p{Lu}[\w'’-]{1,40}(?![\w'’-])"
)


# Slack's mention as its API and a copied message's source write it: the member's id (`U`, or
# `W` for an Enterprise Grid member), with the display name after a bar when it has one:
# `<@U024BE7LH>`, `<@W0123ABCD|hannah>`. The id names one person as surely as the handle.
_SLACK_MEMBER_RX = re.compile(r"<@(?P<id>[UW][A-Z0-9]{8,12})(?:\|(?P<user>[\w.-]{1,80}))?>")


def find_mentions(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask one-word `@handle` mentions of people, and learn the handle as a user name."""
    if "@" not in text:
        return
    if "<@" in text:
        for m in _SLACK_MEMBER_RX.finditer(text):
            edits.append((m.start("id"), m.end("id"), "user", m.group("id")))
            state.learn_user(m.group("id"))
            if m.group("user"):
                edits.append((m.start("user"), m.end("user"), "user", m.group("user")))
                state.learn_user(m.group("user"))
    for m in _MENTION_RX.finditer(text):
        user = m.group("user")
        lowered = user.lower()
        if lowered in NOT_MENTIONS or lowered in TECHNICAL_USERS or lowered.split(".", 1)[0] in _MODULE_HEADS:
            continue
        if user[0].isupper() and _FULL_NAME_AFTER.match(text, m.end()):
            continue  # `@Hannah Fischer`: the names pass masks the whole name
        start = m.start()
        lead = line_start(text, start, 256)
        if not text[lead:start].strip():
            # First on its line: a decorator when nothing (or a comment) follows it.
            rest = text[m.end() : line_end(text, m.end(), 256)].strip()
            if not rest or rest.startswith("#"):
                continue
        edits.append((m.start("user"), m.end("user"), "user", user))
        state.learn_user(user)


# Phone numbers where a signature or a directory labels them: `Mobile: +49 151 2345 6789`,
# `Tel.: +44 20 7946 0958`, `Phone: (415) 555-0132`, `Telefon:`, LDAP's `telephoneNumber:`. Unlabelled
# digit runs stay (timestamps, ids, tensor sizes look the same). Seven to fifteen digits
# (E.164), so `ext. 4321` (an extension) is no phone number.
_PHONE_RX = re.compile(
    r"(?i)(?<![a-z])(?:(?:tele)?(?:phone|fon)(?:_?number)?|mobile|mob|tel|cell|fax|whatsapp|ext"
    # A form's or a ticket's `Contact number:`, `Callback number:` (the label word alone is common).
    r"|(?:contact|call-?back|emergency)(?=[ \t]+(?:number|no\.|#)))\b\.?(?:[ \t]*(?:no\.?|number|nr\.?|#))?[ \t]*[:.]?[ \t]*"
    r"(?P<p>\+?\(?\d{1,4}\)?(?:[ .-]?\(?\d{1,5}\)?){1,6})(?![\w.-]?\d)"
)
# In prose a number is asked to be called (`call me on +44 20 7946 0958`, `reach me at (415)
# 555-0132`, `my number is +91 98765 43210`): there it must read as a phone number, with a country code, an area code in
# parentheses or the North American 3-3-4 grouping, since `call` and `text` are common words before other numbers.
_PROSE_PHONE_RX = re.compile(
    r"(?i)(?<![a-z])(?:(?:call|ring|reach|text|sms|escalate)(?:[ \t]+(?:me|us|him|her|them|to))?(?:[ \t]+(?:at|on|via))?|number is)[ \t]*:?[ \t]*[\x22']?"
    # (Whom to call, by the given name: `escalate to Arjun 98450 21763`, `ring Dana on ...`.)
    # (The names stage may have masked the name already: `escalate to <NAME-1> 98450 21763`.)
    r"(?:(?-i:[A-Z][a-z]{1,20}|<NAME-\d{1,9}>)[ \t]+(?:(?:at|on)[ \t]+)?)?"
    # (`reach me at <EMAIL-1> or +44 20 7946 0958`: an address offered first, the number second.)
    r"(?:(?:<EMAIL-\d{1,9}>|[\w.+-]{1,64}@[\w.-]{1,255})[ \t]*(?:,|or|/|\|)[ \t]*)?"
    r"(?P<p>(?:\+\d{1,3}[ .-]?\(?\d{1,5}\)?|\(\d{2,5}\))(?:[ .-]?\d{2,5}){1,5}"
    # or as India writes a mobile number at home, ten digits from 6 to 9 (`98450 21763`, `09845021763`),
    r"|0?[6-9]\d{4} ?\d{5}(?<!0000)"  # (not a round count: `call 6000000000 steps`)
    # or as North Americans write one, no country code, offered (`reach me at 415-555-0132`, not
    # `reach 250-500-1000 steps`).
    r"|(?:(?<=at |on |is |or |me |us )|(?<=: ))[2-9]\d{2}(?P<sep>[-.])\d{3}(?P=sep)\d{4})(?![\w.-]?\d)"
)
# (`number is`, not `number`: Megatron prints `number of skipped iterations` on every
# iteration line, and the row's line gate would let each of them through.)
_PROSE_STARTS = ("call", "ring", "reach", "text", "sms", "escalate", "number is")
# A signature's contact line puts the number after a bar, unlabelled:
# `hannah.fischer@acme.io | +49 89 1234 5678` (with its country code), or as North Americans
# write one with its area code in parentheses, `| (415) 555-0142` (a table's `| 12 |` is neither).
_BAR_PHONE_RX = re.compile(
    r"\|[ \t]*(?P<p>\+\d{1,3}[ .-]?\(?\d{1,5}\)?(?:[ .-]?\d{2,5}){1,5}|\([2-9]\d{2}\)[ .-]?\d{3}[ .-]\d{4})(?![\w.-]?\d)"
)
# finger's `Office:` line: the room, then the office phone after a comma
# (`Office: Room 4.12, +49 89 1234 5678`); the room stays.
_OFFICE_PHONE_RX = re.compile(r"Office:[ \t]*[^\n,:]{0,64},[ \t]*(?P<p>\+?\(?\d{1,4}\)?(?:[ .-]?\(?\d{1,5}\)?){1,6})(?![\w.-]?\d)")
_LABEL_NUMBER_WORDS = ("contact number", "callback number", "call-back number", "emergency number", "contact no.", "contact #")
PHONE_WORDS = ("phone", "fon", "mobile", "mob", "tel", "cell", "fax", "whatsapp", "ext", *_PROSE_STARTS, "| +", "| (", "office:", *_LABEL_NUMBER_WORDS)
# Where a label can start: `tel` also starts `telephone`/`telefon`, `mob` also `mobile`.
_PHONE_STARTS = ("phone", "fon", "mob", "tel", "cell", "fax", "whatsapp", "ext", "contact", "callback", "call-back", "emergency")


def find_phones(text: str, edits: list[Edit]) -> None:
    """Mask labelled phone numbers as <PHONE-n>.

    The pattern is tried only where a label word starts (`str.find` on the lowered text):
    a case-insensitive alternation tried at every position would cost more than the rest of
    the line gate's rows together, and `ext`, `tel` are inside many words (`context`, `Intel`).
    """
    lowered = lowered_in_place(text)
    starts = (
        *((w, _PHONE_RX) for w in _PHONE_STARTS), *((w, _PROSE_PHONE_RX) for w in _PROSE_STARTS), ("|", _BAR_PHONE_RX),
        ("office:", _OFFICE_PHONE_RX),
    )
    for word, rx in starts:
        pos = lowered.find(word)
        while pos != -1:
            m = rx.match(text, pos)
            if m is not None:
                number = m.group("p").rstrip(" .-")
                if 7 <= sum(c.isdigit() for c in number) <= 15:
                    edits.append((m.start("p"), m.start("p") + len(number), "phone", number))
            pos = lowered.find(word, pos + 1)


# A number in international format standing as a value, with no label to say it is a phone's:
# an alert config's `to: "+44 20 7946 0958"`, a YAML list's `- +61 491 570 156`, a JSON
# `"recipients": ["+14155550132"]`. The `+`, the country code and nine to fifteen digits (E.164)
# in all make it a phone number; a count or an offset (`+3600`, `+05:30`) is shorter or split,
# and a signed count printed whole (`{:+d}`, `+123456789`) is shorter than E.164's compact
# form of a national number (eleven digits or more, `+14155550132`). After a blank alone (an
# on-call rota's `Primary:   Aoife Mbeki  +353 87 555 0142`) the number must be written as people
# write one: the country code, then two groups or more (`+44 7700 900123`, `+1-646-555-0142`).
# In parentheses after whose it is: `on-call this week: Dana (+44 20 7946 0958)`.
_VALUE_PHONE_RX = re.compile(
    r"(?:(?<=[:=\[,\x22'(])|(?<=- )|(?<=[ \t]))[ \t]{0,4}[\x22']?(?P<p>\+[1-9]\d{0,2}(?:[ .-]?\(?\d{1,5}\)?){1,6})"
    r"(?=[\x22',\]\\)]|\s|$)",
)
# A number after a blank: the country code, then groups of digits, each after one separator.
_SPACED_PHONE = re.compile(r"\+[1-9]\d{0,2}(?:[ -]\(?\d{1,8}\)?){2,5}\Z")
# Its line gate (bot/masking/gate.py): a `+` and a digit after a value's opening or a blank.
VALUE_PHONE_TRIGGER = r"(?:[:=\[,\x22' \t(]|- )[ \t]{0,4}[\x22']?\+[1-9][0-9]"


def find_value_phones(text: str, edits: list[Edit]) -> None:
    """Mask international-format phone numbers that stand as values, as <PHONE-n>."""
    for m in _VALUE_PHONE_RX.finditer(text):
        number = m.group("p").rstrip(" .-")
        if number.endswith(")") and number.count(")") > number.count("("):
            number = number[:-1]  # the parenthesis the number was written in, `(+44 20 7946 0958)`
        digits = sum(c.isdigit() for c in number)
        if text[m.start() - 1] in " \t" and text[m.start() - 2 : m.start()] != "- " and not _SPACED_PHONE.match(number):
            continue
        if (9 if len(number) > digits + 1 else 11) <= digits <= 15:
            edits.append((m.start("p"), m.start("p") + len(number), "phone", number))



# Mobile numbers as a country writes them at home, no `+` and no label: the trunk `0` and the
# mobile range say what they are. The UK's `07xxx xxxxxx` (eleven digits), Germany's `015x`,
# `016x`, `017x` then seven or eight digits (`0151 23456789`, `0170-1234567`, `0170/2309 8072`),
# France's `06`/`07` in pairs (`06 12 34 56 78`, `07.12.34.56.78`, `0612345678`). None is
# grouped as a date, a version, a size or a count is; a number inside a longer run of numbers
# (numpy's token ids) is none of them. India's ten digits (`98765 43210`, `9876543210`) are a
# byte count or a token id as often, and open no literal for the line gate (a digit pattern
# read on every line cost the addresses stage a third of its gate): only where prose offers one
# (_PROSE_PHONE_RX, `escalate to Arjun 98450 21763`) or a label does.
_NATIONAL_PHONE_RX = re.compile(
    r"(?<![\w.+/:-])(?<![0-9][ ,])(?P<p>"
    r"07[1-9][0-9]{2}(?: ?[0-9]{6}| [0-9]{3} [0-9]{3})"
    r"|01[5-7][0-9](?:[ /-][0-9]{3,4} ?[0-9]{4}|[0-9]{7,8})"
    r"|0[67](?P<fr>[ .]?)[0-9]{2}(?P=fr)[0-9]{2}(?P=fr)[0-9]{2}(?P=fr)[0-9]{2}"
    r")(?![\w/:-]|[.,][0-9]|[ ,][0-9])"
)
# Its line gate (bot/masking/gate.py): the shapes above, loosely, from their left edge.
_NOT_IN_NUMBER = r"(?:^|[^0-9A-Za-z_.+/:-])"  # (the lookbehind above as the gate's engine reads it: none)
NATIONAL_PHONE_TRIGGER = _NOT_IN_NUMBER + r"(?:07[1-9][0-9]{2} ?[0-9]{3}|01[5-7][0-9][ /-]?[0-9]{3}|0[67][ .]?[0-9]{2}[ .]?[0-9]{2})"


def find_national_phones(text: str, edits: list[Edit]) -> None:
    """Mask mobile numbers in a country's own format (UK, Germany, France), as <PHONE-n>."""
    for m in _NATIONAL_PHONE_RX.finditer(text):
        if "00000" in m.group("p"):
            continue  # a zero-padded count or id (`0700000123`), not a subscriber's number
        edits.append((m.start("p"), m.end("p"), "phone", m.group("p")))


# A North American number needs no label to be one: the 3-3-4 grouping with an area code and
# an exchange as the numbering plan allows them (no 0 or 1 first, no 9 second), written as
# people write it (`415-555-0134`, `(415) 555-0134`, `415.555.0134`, `+1 415 555 0134`,
# `1-800-555-0134`). Dates, versions, ids and shapes are grouped otherwise (`2024-03-12`,
# `12.4.127`, `8.9.2.26`); a number inside a longer run (`-4155550134-`, `v415.555.0134`) is
# no phone number.
_NANP_RX = re.compile(
    r"(?<![\w.+/-])(?P<p>"
    r"\([2-9][0-8][0-9]\)[ ]?[2-9][0-9]{2}[-. ][0-9]{4}"
    r"|\+1[ ]?\([2-9][0-8][0-9]\)[ ]?[2-9][0-9]{2}[-. ][0-9]{4}"
    r"|\+?1(?P<s1>[-. ])[2-9][0-8][0-9](?P=s1)[2-9][0-9]{2}(?P=s1)[0-9]{4}"
    r"|[2-9][0-8][0-9](?P<s2>[-.])[2-9][0-9]{2}(?P=s2)[0-9]{4}"
    r")(?![\w-]|\.[0-9])"
)
# Its line gate (bot/masking/gate.py): the area code, the exchange and the line number.
NANP_PHONE_TRIGGER = r"[2-9][0-8][0-9](?:[-. ]|\) ?)[2-9][0-9]{2}[-. ][0-9]{4}"


def find_nanp_phones(text: str, edits: list[Edit]) -> None:
    """Mask North American phone numbers written without a label, as <PHONE-n>."""
    for m in _NANP_RX.finditer(text):
        groups = [int(g) for g in re.findall(r"[0-9]+", m.group("p"))[-3:]]
        if m.group("s2") and (all(g % 8 == 0 for g in groups) or all(g % 10 == 0 for g in groups)):
            # Layer widths and round counts, not a number to call: `hidden 256-512-1024`,
            # `384.768.1536`, `250-500-1000 steps` (one phone number in a thousand is this round).
            continue
        edits.append((m.start("p"), m.end("p"), "phone", m.group("p")))
