"""Block Kit for an alert from `denpex watch`: the cause, where it began, the time left, the fix.

Log-derived text (evidence, host, the unmatched line) must be MaskedText: the endpoint masks
what the node sent once more (masking masked text changes nothing) before it gets here.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.masking.masked import MaskedText, require_all_masked, require_masked
from bot.matcher.rulebook import Rule
from bot.report import fix_script, ranks_text
from bot.slack.blocks import (
    FALLBACK_CHARS,
    Blocks,
    code,
    context,
    entry_buttons,
    esc,
    fit,
    header,
    inline_code,
    section,
)
from bot.watch.alerting import countdown_text
from bot.watch.protocol import Alert


@dataclass(frozen=True)
class MaskedAlert:
    """An alert whose text fields went through the masker on the bot's side."""

    alert: Alert
    evidence: list[tuple[int, int | None, MaskedText]]
    host: MaskedText | None
    unmatched: MaskedText | None


def _ended(alert: Alert) -> str:
    if alert.exit is None:
        return ""
    return f"signal {alert.exit.signal}" if alert.exit.signal else f"exit code {alert.exit.code}"


def alert_message(masked: MaskedAlert, rule: Rule | None, collateral_titles: dict[str, str],
                  related: list[Rule] | None = None) -> tuple[str, Blocks]:
    alert = masked.alert
    require_all_masked((t for _, _, t in masked.evidence), "Slack alert")
    if masked.host is not None:
        require_masked(masked.host, "Slack alert")
    if masked.unmatched is not None:
        require_masked(masked.unmatched, "Slack alert")
    final = alert.kind == "final"
    survived = final and alert.exit is not None and alert.exit.code == 0
    where = ""
    if alert.initiating_rank is not None:
        where = f"rank {alert.initiating_rank}" + (f" on {masked.host}" if masked.host else "")
    if rule is not None:
        title = rule.title
        lead = ":white_check_mark: Job ended well after:" if survived else (":x: Job failed:" if final else ":rotating_light:")
    else:
        title = "No known failure matched" if masked.unmatched else "No failure found in the log"
        lead = ":white_check_mark: Job ended well:" if survived else ":x: Job failed:"
    blocks: Blocks = [header(f"{lead} {title}")]
    facts = [f"Job {inline_code(alert.job)}"]
    if where:
        facts.append(f"initiating {esc(where)}")
    if alert.confidence:
        facts.append(f"{alert.confidence} confidence")
    if rule is not None:
        facts.append(inline_code(rule.id))
    if final:
        # The signal is the watcher's own word for it: text from outside, escaped like the rest.
        facts.append(f"the job ended with {esc(_ended(alert))}")
    blocks.append(context(" · ".join(facts)))
    if alert.countdown and not final:
        blocks.append(section(f":hourglass_flowing_sand: *{esc(countdown_text(alert.countdown))}*"))
    if rule is not None:
        blocks.append(section("*Root cause*\n" + esc(rule.root_cause)))
        fix = "*Fix*\n" + esc(rule.fix.summary)
        script = fix_script(rule)
        if script:
            fix += "\n" + code(script, 1800)
        blocks.append(section(fix))
    elif masked.unmatched:
        blocks.append(section("*The most telling error line*\n" + code(masked.unmatched.strip(), 1500)))
    if masked.evidence:
        lines = [f"line {n}{f' rank {r}' if r is not None else ''}: {t.strip()[:300]}" for n, r, t in masked.evidence]
        blocks.append(section("*Evidence*\n" + code("\n".join(lines), 2400)))
    coll = [f"{esc(collateral_titles.get(cid, cid))}" + (f" on ranks {ranks_text(ranks)}" if ranks else "")
            for cid, ranks in alert.collateral]
    if coll:
        blocks.append(section("*Collateral:* " + "; ".join(coll)))
    if rule is not None:
        # The same buttons as a diagnosis (feedback, the full entry, related entries).
        blocks += entry_buttons(rule, related or [])
    blocks.append(context("Ask in this thread: _how do I confirm this? · is this hardware? · will it come back?_"))
    fallback = f"{'Job failed' if final and not survived else 'Alert'}: {title}"
    if where:
        fallback += f" (initiating {where})"
    if alert.countdown and not final:
        fallback += ". " + countdown_text(alert.countdown)
    return esc(fallback)[:FALLBACK_CHARS], fit(blocks)
