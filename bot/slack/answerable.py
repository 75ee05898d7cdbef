"""Would the bot answer this message? Judged from the message alone, for when the store is
down and cannot say (whether a burst is open, whether the thread is a diagnosis's).

A Redis outage must not make the bot talk where it never talks: told "temporarily
unavailable" are the messages it would have answered (a log, a file, a mention, a DM, prose
naming an error an entry matches, a question a follow-up would answer); chatter is not, or
every message in every channel it is in would get the notice for as long as the outage lasts.
"""

from __future__ import annotations

from typing import Any

import regex

from bot.followup.recognizer import recognise
from bot.followup.topics import UNKNOWN
from bot.ingest import InputError
from bot.service import Denpex
from bot.slack import logdetect


def answerable(denpex: Denpex, keywords: tuple[str, ...], event: dict[str, Any], text: str, *,
               mentioned: bool, direct: bool) -> bool:
    """True when the message is one the bot answers whatever the store holds, or might
    (a recognised question in a thread, which may be a diagnosis's)."""
    if mentioned or direct:
        return True
    if any(isinstance(f, dict) and f.get("id") for f in event.get("files") or []):
        return True
    strength = logdetect.strength(text, keywords)
    if strength == "strong":
        return True
    clean = logdetect.clean(text)
    if strength == "weak" and _matches(denpex, clean):
        return True
    thread_ts = event.get("thread_ts")
    return bool(thread_ts and thread_ts != event.get("ts") and clean.strip() and recognise(clean).topic != UNKNOWN)


# Slack's emoji codes (`:+1:`, `:pray:`, `:skin-tone-2:`) and what is left when nothing is.
_EMOJI = regex.compile(r":[a-z0-9_+'-]+:")
_WORD = regex.compile(r"[\p{L}\p{N}]")


def wordless(clean_text: str) -> bool:
    """A reply holding no words: only emoji, punctuation, an empty code block, invisible
    characters. In a diagnosis thread it is a reaction typed as a message, not a question."""
    return not _WORD.search(_EMOJI.sub(" ", clean_text))


def between_people(raw_text: str) -> bool:
    """A thread reply (Slack's markup, not mentioning the bot) that is not for the bot: one
    addressed to a colleague (`<@U...>`), wordless, or chatter ("thanks", "ok, trying that").
    A diagnosis thread is where the team talks it over; the bot answers questions and whoever
    mentions it, and does not interject "not sure what you are asking" after every message."""
    if "<@" in raw_text:
        return True
    clean = logdetect.clean(raw_text)
    # A question mark keeps it a question, however chatty its words ("ok, trying it now: how
    # do I verify it?") or however few (a lone "?" under the answer): better the closest
    # topics as buttons than silence.
    if "?" in _EMOJI.sub(" ", clean):
        return False
    return wordless(clean) or recognise(clean).chatter


def _matches(denpex: Denpex, text: str) -> bool:
    """Prose naming an error is answered only when an entry matches it (bot.delivery, quiet)."""
    try:
        return denpex.diagnose_text(text).report.matched
    except InputError:  # nothing a diagnosis can read
        return False
