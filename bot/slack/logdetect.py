"""Does a Slack message look like a log? The bot must not chatter in busy channels.

`strong`: a traceback, rank-prefixed lines, error lines, a long code block: reply even when
no entry matches (say so and quote the salient line). `weak`: only a knowledge-base keyword
in prose ("anyone seen out of memory today?"): reply only if an entry really matches.
"""

from __future__ import annotations

import regex

from bot.spaces import ascii_spaces_text

_MENTION = regex.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_LINK = regex.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")
# What Slack puts before a bare domain or address it turns into a link (`foo.com/x` becomes
# `<http://foo.com/x|foo.com/x>`, `a@b.com` becomes `<mailto:a@b.com|a@b.com>`).
_ADDED_SCHEMES = ("http://", "https://", "mailto:")
_STRONG = (
    regex.compile(r"Traceback \(most recent call last\)"),
    regex.compile(r"(?m)^\s*(?:\[(?:rank|default)\d+\]:|\[\d+,\d+\]<std(?:out|err)>:|\d{1,5}: \S)"),
    regex.compile(r"(?m)^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception):"),
    regex.compile(r"\bNCCL (?:WARN|ERROR)\b|\bslurmstepd: error\b|\bNVRM: Xid\b"),
    regex.compile(r"(?m)^\S+:\d+:\d+ \[\d+\] NCCL "),
)
_CODE_BLOCK = regex.compile(r"```(.*?)```", regex.DOTALL)


def mentions(text: str, user_id: str | None) -> bool:
    """Does Slack's message text mention `user_id`? As `<@U123>`, or with the name Slack
    knew it by, `<@U123|denpex>` (the user-link form of Slack's formatting reference)."""
    if not user_id or not text:
        return False
    return any(m.group(1) == user_id for m in _MENTION.finditer(text))


def unescape(text: str) -> str:
    """Undo exactly what Slack escapes in message text (`&`, `<`, `>`), nothing more: the
    result is the log as typed, to be matched, and is escaped again on its way out
    (bot.slack.blocks.esc), so `&lt;!channel&gt;` in a log never comes back a live mention."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _as_typed(link: regex.Match) -> str:
    """A link Slack made of what was typed: the typed text when the label is the address less
    the scheme Slack added (the log never said `mailto:`); otherwise the address itself."""
    url, label = link.group(1), link.group(2)
    if label and any(url == scheme + label for scheme in _ADDED_SCHEMES):
        return label
    return url


def clean(text: str) -> str:
    """Slack's message markup back to the log text: entities, links, mentions, code fences;
    and no-break spaces (what Slack's composer, or a web page the log was copied from, puts
    for runs of spaces) back to spaces, as the log wrote them (bot.spaces: the same list an
    upload's bytes go through)."""
    text = ascii_spaces_text(_MENTION.sub("", text))
    text = _LINK.sub(_as_typed, text)
    text = unescape(text)
    return "\n".join(line for line in text.splitlines() if line.strip() != "```").replace("```", "\n")


def strength(raw_text: str, keywords: tuple[str, ...]) -> str | None:
    """"strong", "weak" or None for a message's raw Slack text."""
    if not raw_text or not raw_text.strip():
        return None
    for block in _CODE_BLOCK.findall(raw_text):
        if block.count("\n") >= 4:
            return "strong"
    text = clean(raw_text)
    if any(p.search(text) for p in _STRONG):
        return "strong"
    low = text.lower()
    if any(k in low for k in keywords):
        return "weak"
    return None
