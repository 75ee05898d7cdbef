"""Markdown rendering of a report (`denpex diagnose --format markdown`): for tickets and wikis."""

from __future__ import annotations

from bot.report import Report, fix_script, ranks_text


def _fence(text: str, lang: str = "") -> str:
    body = text.rstrip().replace("```", "`\u200b``")
    return f"```{lang}\n{body}\n```"


def render_report(report: Report) -> str:
    d = report.diagnosis
    if not report.matched:
        if d.unmatched:
            return (
                "## No known failure matched\n\nThe most telling error line:\n\n"
                + _fence(d.unmatched)
                + f'\n\nTry `denpex lookup "{d.unmatched[:120]}"`.\n'
            )
        return "## No failure found\n\nNothing in this log looks like an error.\n"
    rule = report.root
    assert rule is not None
    out = [f"## {rule.title}", "", f"**Confidence:** {report.confidence} · `{rule.id}` · {rule.category} · severity {rule.severity}"]
    if d.initiating_rank is not None:
        out.append(f"**Initiating rank:** {d.initiating_rank}")
    for c in report.collateral:
        out.append(f"**Collateral:** {c.title}" + (f" (ranks {ranks_text(c.ranks)})" if c.ranks else ""))
    out += ["", rule.summary, "", "### Why", "", rule.root_cause, "", "### Fix", "", rule.fix.summary]
    if fix_script(rule):
        out += ["", _fence(fix_script(rule), "bash")]
    out += ["", "### Verify", "", _fence(rule.verify.command, "bash"), "", f"Expect: {rule.verify.expect}"]
    out += ["", "### Confirm it is this", ""] + [f"- [ ] {c}" for c in rule.confirm]
    if report.evidence:
        out += ["", "### Evidence", ""]
        lines = [f"{e.line}: {e.text.strip()}" for e in report.evidence]
        out.append(_fence("\n".join(lines)))
    if report.other_causes:
        out += ["", "### Also found", ""] + [f"- {r.title} (`{r.id}`)" for r in report.other_causes]
    if report.related:
        out += ["", "### Related", ""] + [f"- `{r.id}`: {r.title}" for r in report.related]
    return "\n".join(out) + "\n"
