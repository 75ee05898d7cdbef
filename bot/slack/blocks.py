"""Block Kit for every message the bot posts, always within Slack's limits.

Limits (SLACK.md): 50 blocks a message, 3,000 characters a section, 150 a header, a total
block-text budget of about 12k characters; every message also carries a plain-text fallback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.followup import QUESTIONS_HELP, Answer
from bot.followup.topics import Topic
from bot.masking.masked import MaskedText, require_all_masked, require_masked
from bot.matcher.rulebook import ANSWER_KEYS, Rule
from bot.render.text import ANSWER_TITLES, STACK_TITLES, TOO_GENERAL, TOO_GENERAL_EXAMPLE
from bot.report import Report, fix_script, ranks_text
from bot.store import Plan
from bot.terminal import without_terminal_codes

MAX_BLOCKS = 50
SECTION_CHARS = 3000
HEADER_CHARS = 150
BUDGET_CHARS = 11_000
FALLBACK_CHARS = 3_500
MAX_RELATED_BUTTONS = 5
_CONF_EMOJI = {"high": ":red_circle:", "medium": ":large_orange_circle:", "low": ":white_circle:"}

Blocks = list[dict[str, Any]]


# Control characters Slack would show as boxes or drop unevenly (a bell, a backspace, a bare
# ESC, a carriage return from a progress bar): line feeds and tabs are the only ones kept.
# Bidirectional embeddings, overrides and isolates too: U+202E shows `train\u202egol.exe` as
# `trainexe.log`, and in a quoted log line they reorder what a reader sees (Trojan Source).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def esc(text: str) -> str:
    """Escape for mrkdwn (blocks and the top-level `text` alike): `<IP-1>` placeholders must
    show, and `<!channel>`, `<@U123>`, `<https://x|y>` from a log or a user must stay inert.
    Terminal colour codes from a captured log, and other control characters, are dropped:
    Slack cannot render them (the masker keeps them in the masked text itself, bot.masking.terminal)."""
    text = _CONTROL.sub("", without_terminal_codes(text))
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_ZWSP = "\u200b"


_BACKTICK_RUN = re.compile(r"`{2,}")


def defuse_backticks(text: str) -> str:
    """Text for inside a ``` block: no two backticks touch, and none touches the fences, so
    whatever a line holds (```, ````) it can neither close the block nor open one. A lone
    backtick inside (a shell command's `...`) stays as it is."""
    if "`" not in text:
        return text
    text = _BACKTICK_RUN.sub(lambda m: _ZWSP.join(m.group()), text)
    if text.startswith("`"):
        text = _ZWSP + text
    if text.endswith("`"):
        text += _ZWSP
    return text


def inline_code(text: str) -> str:
    """`text` as an inline code span, escaped; its own backticks (which would end the span)
    become look-alike grave accents."""
    return "`" + esc(text).replace("`", "\u02cb") + "`"


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def code(text: str, limit: int = SECTION_CHARS - 200) -> str:
    body = defuse_backticks(esc(text.rstrip()))
    return "```" + cut(body, limit) + "```"


def section(text: str) -> dict[str, Any]:
    if len(text) > SECTION_CHARS:
        # Never leave a code fence open when cutting.
        cut = text[: SECTION_CHARS - 5]
        if cut.count("```") % 2:
            cut = cut[: SECTION_CHARS - 8] + "…```"
        else:
            cut += "…"
        text = cut
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def header(text: str) -> dict[str, Any]:
    return {"type": "header", "text": {"type": "plain_text", "text": cut(text, HEADER_CHARS), "emoji": True}}


def context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": cut(text, SECTION_CHARS)}]}


def button(text: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    b: dict[str, Any] = {
        "type": "button",
        "text": {"type": "plain_text", "text": cut(text, 75), "emoji": True},
        "action_id": action_id,
        "value": value[:2000],
    }
    if style:
        b["style"] = style
    return b


def fit(blocks: Blocks) -> Blocks:
    """Keep the message within the block count and the total text budget, dropping from the end
    but always keeping trailing action rows (buttons) that fit."""
    out: Blocks = []
    used = 0
    for b in blocks:
        size = len(str(b))
        if len(out) >= MAX_BLOCKS or used + size > BUDGET_CHARS:
            if b["type"] == "actions" and len(out) < MAX_BLOCKS and used + size <= BUDGET_CHARS + 2000:
                out.append(b)
                used += size
            continue
        out.append(b)
        used += size
    return out


def diagnosis_message(report: Report) -> tuple[str, Blocks]:
    """The threaded reply for a diagnosed log: (fallback text, blocks). Log-derived text must
    be MaskedText (bot.service masks it): a plain str is refused, not posted."""
    d = report.diagnosis
    require_all_masked((e.text for m in d.matches for e in m.evidence), "Slack reply")
    if d.unmatched is not None:
        require_masked(d.unmatched, "Slack reply")
    if not report.matched:
        return _noting_truncation(d, unmatched_message(report))
    rule = report.root
    assert rule is not None
    conf = report.confidence or "low"
    blocks: Blocks = [
        header(f"{rule.title}"),
        context(f"{_CONF_EMOJI[conf]} *{conf} confidence* · `{rule.id}` · {rule.category} · severity {rule.severity}"),
        section(esc(rule.summary)),
        section("*Root cause*\n" + esc(rule.root_cause)),
    ]
    fix = "*Fix*\n" + esc(rule.fix.summary)
    script = fix_script(rule)
    if script:
        fix += "\n" + code(script, 2400)
    blocks.append(section(fix))
    blocks.append(section("*Verify*\n" + code(rule.verify.command, 1500) + "\nExpect: " + esc(rule.verify.expect)))
    blocks.append(section("*How to confirm it is this*\n" + "\n".join(f"• {esc(c)}" for c in rule.confirm)))
    where = []
    if d.initiating_rank is not None:
        where.append(f"*Initiating rank:* {d.initiating_rank}")
    for c in report.collateral:
        ranks = f" on ranks {ranks_text(c.ranks)}" if c.ranks else ""
        where.append(f"*Collateral:* {esc(c.title)}{ranks}")
    if where:
        blocks.append(section("\n".join(where)))
    if report.evidence:
        lines = []
        for e in report.evidence[:5]:
            rank = f" rank {e.rank}" if e.rank is not None else ""
            lines.append(f"line {e.line}{rank}: {e.text.strip()[:300]}")
        blocks.append(section("*Evidence*\n" + code("\n".join(lines), 2400)))
    if report.other_causes:
        blocks.append(context("Also found: " + ", ".join(f"{esc(r.title)} (`{r.id}`)" for r in report.other_causes[:5])))
    blocks += entry_buttons(rule, report.related)
    blocks.append(context(
        f"Ask in this thread: _which rank failed first? · show me the line · how do I confirm this? · is this hardware? · what's the DeepSpeed version of the fix?_"
        f"  ·  {d.stats.lines:,} lines in {d.stats.elapsed_ms} ms"
    ))
    fallback = f"Root cause: {rule.title} ({conf} confidence). Fix: {rule.fix.summary}"
    if d.initiating_rank is not None:
        fallback += f" Initiating rank: {d.initiating_rank}."
    return _noting_truncation(d, (cut(esc(fallback), FALLBACK_CHARS), fit(blocks)))


TRUNCATED_NOTE = (":warning: *This log ends early:* the compressed file was cut off before its end, "
                  "so the failure may be in the part that is missing. Upload the whole file to be sure.")


def _noting_truncation(d: Any, message: tuple[str, Blocks]) -> tuple[str, Blocks]:
    """The reply with a warning under its headline when the upload was cut short."""
    if not getattr(d.stats, "truncated", False):
        return message
    text, blocks = message
    at = 1 if blocks and blocks[0].get("type") == "header" else 0
    return text, fit([*blocks[:at], context(TRUNCATED_NOTE), *blocks[at:]])


def entry_buttons(rule: Rule, related: list[Rule]) -> Blocks:
    rows: Blocks = []
    if related:
        rows.append(section("*Related entries*"))
        rows.append({
            "type": "actions",
            "block_id": "denpex_related",
            "elements": [button(r.title, f"denpex_related_{i}", r.id) for i, r in enumerate(related[:MAX_RELATED_BUTTONS])],
        })
    rows.append({
        "type": "actions",
        "block_id": "denpex_feedback",
        "elements": [
            button(":white_check_mark: Right diagnosis", "denpex_feedback_right", rule.id, "primary"),
            button(":x: Wrong diagnosis", "denpex_feedback_wrong", rule.id, "danger"),
            button("Full entry", "denpex_full_entry", rule.id),
        ],
    })
    return rows


def unmatched_message(report: Report) -> tuple[str, Blocks]:
    d = report.diagnosis
    if d.unmatched:
        line = d.unmatched.strip()
        blocks = [
            section("*No known failure matched this log.*\nThe most telling error line:\n" + code(line, 1500)),
            # A line that only says something broke ("RuntimeError: CUDA error") looks up as
            # too general: the lines above it, sent too, are what can name the failure.
            context(f"Look it up with {inline_code('/denpex ' + line[:150])}, send more of the log (the lines above "
                    "this one, or the whole file), or ask the team to add an entry. "
                    f"{d.stats.lines:,} lines in {d.stats.elapsed_ms} ms"),
        ]
        return cut(esc(f"No known failure matched. Most telling line: {line}"), FALLBACK_CHARS), blocks
    blocks = [section("*No failure found:* nothing in this log looks like an error.")]
    return "No failure found: nothing in this log looks like an error.", blocks


def entry_message(rule: Rule, related: list[Rule], full: bool = True) -> tuple[str, Blocks]:
    """A whole entry (the "Full entry" button, a related-entry click, `/denpex show`)."""
    blocks: Blocks = [
        header(rule.title),
        context(f"`{rule.id}` · {rule.category} · severity {rule.severity} · {esc(', '.join(rule.tags))}"),
        section(esc(rule.summary)),
        section("*Root cause*\n" + esc(rule.root_cause)),
    ]
    if full:
        blocks.append(section("*Mechanism*\n" + esc(rule.mechanism)))
        blocks.append(section("*Symptoms*\n" + "\n".join(f"• {inline_code(s.line[:200])}: {esc(s.means)}" for s in rule.symptoms)))
    fix = "*Fix*\n" + esc(rule.fix.summary)
    if rule.fix.steps:
        fix += "\n" + "\n".join(f"{i}. {esc(s)}" for i, s in enumerate(rule.fix.steps, 1))
    if fix_script(rule):
        fix += "\n" + code(fix_script(rule), 1800)
    blocks.append(section(fix))
    blocks.append(section("*Verify*\n" + code(rule.verify.command, 1500) + "\nExpect: " + esc(rule.verify.expect)))
    blocks.append(section("*How to confirm it is this*\n" + "\n".join(f"• {esc(c)}" for c in rule.confirm)))
    if full:
        for key in ANSWER_KEYS:
            blocks.append(section(f"*{ANSWER_TITLES[key]}*\n{esc(rule.answers[key])}"))
        for stack, snippet in rule.code.items():
            blocks.append(section(f"*{STACK_TITLES[stack]}*\n" + code(snippet, 2500)))
        if rule.references:
            blocks.append(section("*References*\n" + "\n".join(f"• <{r.url}|{esc(r.title)}>" for r in rule.references)))
    blocks += [b for b in entry_buttons(rule, related) if b.get("block_id") != "denpex_feedback"]
    return cut(esc(f"{rule.title}: {rule.summary}"), FALLBACK_CHARS), fit(blocks)


def answer_message(ans: Answer, rule: Rule | None, also: list[Topic] | None = None,
                   question: MaskedText | None = None) -> tuple[str, Blocks]:
    """A follow-up's answer (`rule` None in the thread of an unmatched log); `also`: topics
    close enough to the question to offer as buttons."""
    text = _mrkdwn_with_code(ans.text)
    about = f" ({esc(rule.title)})" if rule is not None else ""
    blocks = [section(f"*{esc(ans.title)}*{about}\n{text}")]
    if ans.topic == "unknown":
        blocks = [section(esc(QUESTIONS_HELP))]
    if also and question is not None:
        blocks += [context("Or did you mean:"), topic_buttons(also, question)]
    return cut(esc(f"{ans.title}: {ans.text}"), FALLBACK_CHARS), fit(blocks)


FOLLOWUP_ACTION = "denpex_followup_"


def topic_buttons(topics: list[Topic], question: MaskedText) -> dict[str, Any]:
    """One button per topic; the value carries the (masked) question, for a knowledge-base search."""
    require_masked(question, "follow-up buttons")
    return {"type": "actions", "block_id": "denpex_followup_topics", "elements": [
        button(t.label, f"{FOLLOWUP_ACTION}{t.name}", _topic_value(t.name, question)) for t in topics
    ]}  # fmt: skip


def _topic_value(topic: str, question: str) -> str:
    """The button's value as JSON within Slack's 2,000 characters (escapes make JSON longer
    than the text: cut the question until it fits, never the JSON)."""
    q = question[:600]
    while len(value := json.dumps({"t": topic, "q": q})) > 2000:
        q = q[: len(q) * 3 // 4]
    return value


def choices_message(topics: list[Topic], question: MaskedText) -> tuple[str, Blocks]:
    """An unrecognised question: the closest topics as buttons, and what can be asked; no guess."""
    labels = " · ".join(t.label for t in topics)
    blocks = [
        section("*I'm not sure what you are asking.* The closest questions I can answer about this run:"),
        topic_buttons(topics, question),
        context(esc(QUESTIONS_HELP)),
    ]
    return esc(f"Not sure what you are asking. Closest: {labels}. {QUESTIONS_HELP}")[:FALLBACK_CHARS], fit(blocks)


def _mrkdwn_with_code(text: str) -> str:
    """Escape prose but keep ``` fences as code blocks."""
    parts = text.split("```")
    out = []
    for i, part in enumerate(parts):
        out.append(esc(part) if i % 2 == 0 else "```" + esc(part.strip("\n")) + "```")
    return "".join(out)


def lookup_message(query: MaskedText, hits: list[Any]) -> tuple[str, Blocks]:
    """The answer to `/denpex <error>`; the echoed query must be masked (people paste secrets)."""
    require_masked(query, "lookup reply")
    if not hits:
        text = f"No entry matches {inline_code(query[:200])}. Try a shorter, more specific part of the error line."
        return esc(f"No entry matches {query[:200]}"), [section(text)]
    blocks: Blocks = [section(f"*Entries for* {inline_code(query[:200])}")]
    for hit in hits:
        how = "matches its signature" if hit.how == "signature" else "text match"
        blocks.append({
            "type": "section",
            "text": {"type": "mrkdwn", "text": cut(f"*{esc(hit.rule.title)}* (`{hit.rule.id}`, {how})\n{esc(hit.rule.summary)}", SECTION_CHARS)},
            "accessory": button("Show", f"denpex_show_{hit.rule.id}"[:255], hit.rule.id),
        })
    return esc(f"Entries for {query[:200]}: " + ", ".join(h.rule.id for h in hits)), fit(blocks)


def too_general_message(query: MaskedText) -> tuple[str, Blocks]:
    """The answer to `/denpex <words naming no failure>`: what to look up or send instead."""
    require_masked(query, "lookup reply")
    text = TOO_GENERAL.format(q=inline_code(query[:200]), example=inline_code("/denpex " + TOO_GENERAL_EXAMPLE))
    text = ":mag: " + text + ", or paste the log (or upload the file) in a channel I'm in, or in a DM to me, for a diagnosis."
    return esc(f"{query[:200]} names no failure in particular: look up the error line itself, or send me the log."), [section(text)]


def _when(dt: datetime, now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    delta = max(0, int((dt - now).total_seconds()))
    return f"{dt:%Y-%m-%d %H:%M} UTC (in {delta // 3600} h {delta % 3600 // 60} min)"


def quota_exceeded_message(status: Any) -> tuple[str, Blocks]:
    # Only the free plan has a higher one to go to: a Scale workspace told to redeem a code
    # for the Scale plan it is on would redeem nothing it lacks.
    more = ("To raise the limit, redeem an evaluation code: `/denpex redeem <code>` (scale plan: 50 a day)."
            if status.plan == Plan.FREE.value else
            f"That is the *{status.plan}* plan's daily limit: logs sent before then are not diagnosed, and "
            "`/denpex <error string>` lookups and questions in diagnosis threads still answer.")
    text = (
        f"*Daily limit reached:* this workspace has used {status.used} of {status.daily_limit} diagnoses "
        f"today on the *{status.plan}* plan. The count resets at {_when(status.resets_at)}.\n" + more
    )
    return f"Daily limit reached ({status.used}/{status.daily_limit}); resets at {status.resets_at:%H:%M} UTC.", [section(esc(text))]


def quota_text(status: Any) -> str:
    expiry = f" until {status.plan_expires_at:%Y-%m-%d}" if getattr(status, "plan_expires_at", None) else ""
    return (
        f"Plan: *{status.plan}*{expiry}. Used today: {status.used} of {status.daily_limit}; "
        f"{status.remaining} left. Resets at {_when(status.resets_at)}."
    )


def unavailable_message() -> tuple[str, Blocks]:
    text = ":warning: Denpex is temporarily unavailable (its state store does not answer). Nothing was charged; please try again in a minute."
    return text, [section(text)]


def internal_error_message() -> tuple[str, Blocks]:
    text = (":warning: Denpex hit an internal error answering this, and has logged it for its admins. "
            "Please try again; if it fails the same way, `/denpex <error line>` still looks an error up.")
    return text, [section(text)]


def thread_expired_message(ttl_s: int) -> tuple[str, Blocks]:
    """A button of a diagnosis thread whose context is gone: what happened, and what to do."""
    kept = f"{ttl_s // 86400} days" if ttl_s >= 2 * 86400 else f"{max(1, ttl_s // 3600)} hours" if ttl_s >= 7200 else f"{ttl_s} seconds"
    text = (f":hourglass: This diagnosis has expired: Denpex keeps a thread's diagnosis for {kept}, so it can no longer "
            "answer questions about this run. Paste the log again (or upload the file) for a fresh diagnosis; "
            "`/denpex <error line>` looks an error up.")
    return text, [section(text)]


def other_command_message(command: str) -> tuple[str, Blocks]:
    """A slash command of ours that is not `/denpex` (one a workspace configured, then renamed)."""
    typed = f"`{esc(command[:40]).replace('`', '')}`" if command else "That command"
    text = (f"{typed} is not a Denpex command: Denpex answers `/denpex` (`/denpex help` lists what it does). "
            "Your workspace may still have an old command pointed at the app; an admin can remove it.")
    return text, [section(text)]


# What a person in a workspace with no installation (uninstalled, or an install that never
# finished) sees for a command or a click, in place of Bolt's "for some unknown reason".
NOT_INSTALLED_TEXT = (":warning: Denpex is not installed in this workspace (it was removed, or its install did not "
                      "finish), so it cannot answer here. A workspace admin can add it again from Denpex's install page.")


def unknown_shortcut_view(callback_id: str) -> dict[str, Any]:
    """The modal for a shortcut (global or on a message) the app config names and the bot does
    not define: Slack shows nothing for an acknowledged shortcut, so the person would be left
    wondering whether it ran."""
    named = inline_code(callback_id[:60]) if callback_id else "This shortcut"
    text = (f"Denpex has no shortcut {named}, so it did nothing. To diagnose a failed run, paste its log "
            "(or upload the log file) in a channel Denpex is in, or in a DM with Denpex: it answers in the thread. "
            f"{inline_code('/denpex <error text>')} looks an error up; {inline_code('/denpex help')} lists the rest. "
            "An admin may remove the shortcut from the app's settings.")
    return {"type": "modal", "title": {"type": "plain_text", "text": "Denpex"},
            "close": {"type": "plain_text", "text": "Close"}, "blocks": [section(text)]}


# Why a file was not read, by what it is (bot.slack.files.what_it_is): a zip is not a
# screenshot, and telling its sender the bot "can't read the text in a screenshot" leaves them
# wondering what was wrong with their archive.
_NOT_READ_BECAUSE = (
    (("an archive",), "I don't open archives"),
    (("an image", "a video", "a recording"), "I can't read the text in a screenshot or a recording"),
    (("a PDF", "a document"), "I can't read the text in a document"),
)
_SEND_INSTEAD = ("paste the error as text (in a code block), "
                 "or upload the log file itself (`.log`, `.txt`, `.out`, `.err`, or `.gz` of one).")


def not_a_log_advice(kinds: Sequence[str]) -> str:
    """Why files of these kinds ("an archive", "an image", ...) were not read, and what to send instead."""
    why = [reason for named, reason in _NOT_READ_BECAUSE if any(k in named for k in kinds)]
    if not why:  # only files Slack does not let the app open: nothing about their kind to say
        return _SEND_INSTEAD[0].upper() + _SEND_INSTEAD[1:]
    return "; ".join(why) + ": " + _SEND_INSTEAD


def not_a_log_message(unread: list[str], kinds: Sequence[str] = ("a document",)) -> tuple[str, Blocks]:
    """Files not read, sent with no log, each said in a phrase ("x.png is an image, not a log
    file I read"), and what to send instead, for files of `kinds`. The phrases carry the user's
    file names (masked): escaped like any problem."""
    named = "; ".join(unread)
    text = esc(f":information_source: {cut(named, SECTION_CHARS - 400)}. ") + not_a_log_advice(kinds)
    return text, [section(text)]


def error_message(problem: str) -> tuple[str, Blocks]:
    """A problem in words; it may quote a file name or a user's text, so it is escaped in the
    blocks and in the fallback `text` alike (nothing in it becomes a mention or a link)."""
    text = esc(f":warning: {problem}")
    return text, [section(text)]


# Plain words with `<placeholders>`: escaped where they are sent (esc), or Slack would read
# `<code>` as a link and show "code".
HELP_TEXT = (
    "*Denpex* diagnoses failed training runs.\n"
    "• Paste a log (or upload a `.log`, `.txt`, `.out`, `.err` or `.gz` file) in a channel I'm in: I reply in the thread.\n"
    "• `/denpex <error string>`: look an error up\n"
    "• `/denpex show <id>`: a whole entry\n"
    "• `/denpex quota`: this workspace's plan and today's usage\n"
    "• `/denpex redeem <code>`: switch on an evaluation plan\n"
    "• `/denpex alerts connect`: alerts from `denpex watch` in this channel, the moment a job's first rank fails (Scale plan); `/denpex alerts revoke`\n"
    "• In a diagnosis thread, ask: which rank failed first? · show me the line · why isn't it the watchdog timeout? · how do I confirm this? · is this hardware? · what does <an error> mean? · has this happened before?\n"
    "Secrets and personal data are masked out of everything I post or keep; the log itself is never stored."
)


def help_message() -> tuple[str, Blocks]:
    return "Denpex help", [section(esc(HELP_TEXT))]


_SLACK_ID = re.compile(r"[A-Z0-9]{2,40}")


def conversation_link(channel: str, *, app_id: str | None = None, team: str | None = None) -> str:
    """Where a diagnosis was made, as a link Slack opens. A DM id (`D…`) is not a channel:
    `<#D…>` renders as a broken channel link. A DM the bot saw is the user's DM with the bot,
    which Slack's `app_redirect?app=<app id>&team=<team>` opens (its deep-linking reference);
    without the app id it is named, not linked. Channels, private ones and group DMs, are `<#…>`."""
    if not channel.startswith("D"):
        return f"<#{channel}>"
    if not app_id or not _SLACK_ID.fullmatch(app_id):
        return "your DM with Denpex"
    on_team = f"&team={team}" if team and _SLACK_ID.fullmatch(team) else ""
    return f"<https://slack.com/app_redirect?app={app_id}{on_team}|your DM with Denpex>"


def _plan_home_text(status: Any) -> str:
    """The Home tab's word on the plan: a free workspace is told how to evaluate Scale; one on
    Scale is told what it has and until when (a code to redeem is what it already did)."""
    if status.plan == Plan.FREE.value:
        return esc("*Evaluation codes*\nRedeem one with `/denpex redeem <code>`: the scale plan gives 50 diagnoses a day for 14 days.")
    until = f" until {status.plan_expires_at:%Y-%m-%d %H:%M} UTC" if status.plan_expires_at else ""
    return esc(f"*Plan*\nThis workspace is on the *{status.plan}* plan{until}: {status.daily_limit} diagnoses a day, "
               "a longer list of recent diagnoses, and `denpex watch` alerts in the channels connected with "
               "`/denpex alerts connect`.")


def home_view(status: Any | None, history: list[dict[str, Any]] | None = None, *, app_id: str | None = None,
              team: str | None = None) -> dict[str, Any]:
    """The Home tab; `app_id` and `team` (the workspace) make a DM diagnosis's link open the DM."""
    blocks: Blocks = [header("Denpex"), section("Paste a training log in a channel I'm in, or upload the log file: I reply in the thread with the root cause and the fix.")]
    if status is None:
        blocks.append(section(":warning: Usage is temporarily unavailable."))
    else:
        blocks.append(section("*This workspace*\n" + quota_text(status)))
        blocks.append(section(_plan_home_text(status)))
    if history:
        lines = []
        for h in history:
            rank = f" · rank {h['initiating_rank']}" if h.get("initiating_rank") is not None else ""
            where = conversation_link(h.get("channel", ""), app_id=app_id, team=team)
            lines.append(f"• {esc(h.get('when', ''))} {where} {esc(h.get('title', ''))} ({h.get('confidence', '')}{rank})")
        blocks.append(section("*Recent diagnoses*\n" + "\n".join(lines)))
    blocks.append(section(esc(HELP_TEXT)))
    return {"type": "home", "blocks": fit(blocks)}
