"""Markdown rendering of a report (`denpex diagnose --format markdown`): for tickets and wikis.

The same order as the terminal: what it is and where it started, the evidence (line and rank),
the fix; then why and how to confirm.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.matcher.model import Evidence
from bot.matcher.verdict import EVIDENCE_CHARS
from bot.report import Report, fix_script, ranks_text


def _fence(text: str, lang: str = "") -> str:
    body = text.rstrip().replace("```", "`\u200b``")
    return f"```{lang}\n{body}\n```"


def _default_locate(e: Evidence) -> tuple[str, str]:
    return f"line {e.line}", e.text


def render_report(
    report: Report,
    locate: Callable[[Evidence], tuple[str, str]] | None = None,
    truncated_files: list[str] | None = None,
    files: int | None = None,
) -> str:
    locate = locate or _default_locate
    d = report.diagnosis
    out: list[str] = []
    if truncated_files:
        out += [f"> **Note:** the log ends early in {', '.join(truncated_files)} (cut off before its end): the failure may be in the lost tail.", ""]
    elif d.stats.truncated:
        out += ["> **Note:** the log ends early (the compressed file is cut off before its end): the failure may be in the lost tail.", ""]
    if not report.matched:
        if d.unmatched:
            return "\n".join(out) + (
                "## No known failure matched\n\nThe most telling error line:\n\n"
                + _fence(d.unmatched)
                + f'\n\nTry `denpex lookup "{d.unmatched[:120]}"`.\n'
            )
        return "\n".join(out) + "## No failure found\n\nNothing in this log looks like an error.\n"
    rule = report.root
    assert rule is not None
    out += [f"## {rule.title}", "", f"**Confidence:** {report.confidence} · `{rule.id}` · {rule.category} · severity {rule.severity}"]
    if d.initiating_rank is not None:
        out.append(f"**Initiating rank:** {d.initiating_rank}")
    for c in report.collateral:
        out.append(f"**Collateral:** {c.title}" + (f" ({'rank' if len(c.ranks) == 1 else 'ranks'} {ranks_text(c.ranks)})" if c.ranks else ""))
    if report.evidence:
        out += ["", "### Evidence", ""]
        lines = []
        for e in report.evidence:
            where, text = locate(e)
            rank = f" rank {e.rank}" if e.rank is not None else ""
            # The matcher keeps EVIDENCE_CHARS of a line: say so where it cut.
            more = "…" if len(e.text) >= EVIDENCE_CHARS else ""
            lines.append(f"{where}{rank}: {text.strip()}{more}")
        out.append(_fence("\n".join(lines)))
    out += ["", "### Fix", "", rule.fix.summary]
    if fix_script(rule):
        out += ["", _fence(fix_script(rule), "bash")]
    out += ["", "### Why", "", rule.summary, "", rule.root_cause]
    out += ["", "### Verify", "", _fence(rule.verify.command, "bash"), "", f"Expect: {rule.verify.expect}"]
    out += ["", "### Confirm it is this", ""] + [f"- [ ] {c}" for c in rule.confirm]
    if report.other_causes:
        out += ["", "### Also found", ""] + [f"- {r.title} (`{r.id}`)" for r in report.other_causes]
    if report.related:
        out += ["", "### Related", ""] + [f"- `{r.id}`: {r.title}" for r in report.related]
    if files:
        out += ["", f"_Read as one run: {files} files._"]
    return "\n".join(out) + "\n"
