"""Terminal rendering: what a person reads after `denpex diagnose` (colour only on a tty)."""

from __future__ import annotations

import textwrap

from bot.matcher.rulebook import ANSWER_KEYS, Rule
from bot.report import Report, fix_script, ranks_text

_COLORS = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
_CONF_COLOR = {"high": "red", "medium": "yellow", "low": "dim"}
ANSWER_TITLES = {
    "hardware_or_software": "Hardware or software?",
    "fix_time": "How long does the fix take?",
    "inference_impact": "Does it affect inference?",
    "cheapest_check": "Cheapest way to confirm",
    "next_checks": "If it is not this, check next",
    "recurrence": "Will it come back?",
    "monitor": "Fingerprint to monitor",
    "scale": "From 1 to 1,000 GPUs",
    "docs": "Official documentation",
}
STACK_TITLES = {
    "pytorch": "PyTorch",
    "hf_trainer": "Hugging Face Trainer",
    "deepspeed": "DeepSpeed",
    "megatron": "Megatron-LM",
    "vllm": "vLLM",
    "lightning": "Lightning",
    "accelerate": "Accelerate",
}


TRUNCATED_NOTICE = "Note: the log ends early (the .gz is cut off before its end): the failure may be in the lost tail."


class _Style:
    def __init__(self, color: bool):
        self.color = color

    def __call__(self, text: str, *names: str) -> str:
        if not self.color or not names:
            return text
        codes = ";".join(_COLORS[n] for n in names)
        return f"\033[{codes}m{text}\033[0m"


def _wrap(text: str, indent: str = "  ") -> str:
    return "\n".join(
        textwrap.fill(p, width=96, initial_indent=indent, subsequent_indent=indent)
        for p in text.strip().split("\n\n")
    )


def _block(text: str, indent: str = "    ") -> str:
    return "\n".join(indent + line for line in text.rstrip().splitlines())


def render_report(report: Report, color: bool = False) -> str:
    s = _Style(color)
    d = report.diagnosis
    out: list[str] = []
    if d.stats.truncated:
        out.append(s(TRUNCATED_NOTICE, "bold", "yellow"))
    if not report.matched:
        if d.unmatched:
            out.append(s("No known failure matched this log.", "bold"))
            out.append("The most telling error line:")
            out.append(_block(d.unmatched))
            out.append(f'Try: denpex lookup "{d.unmatched[:120]}"')
        else:
            out.append(s("No failure found: nothing in this log looks like an error.", "bold", "green"))
        out.append(s(_stats(report), "dim"))
        return "\n".join(out) + "\n"
    rule = report.root
    assert rule is not None
    conf = report.confidence or "low"
    out.append(s(f"Root cause: {rule.title}", "bold") + "  " + s(f"[{conf} confidence]", _CONF_COLOR[conf]))
    out.append(s(f"{rule.id} · {rule.category} · severity {rule.severity}", "dim"))
    where = []
    if d.initiating_rank is not None:
        where.append(f"initiating rank {d.initiating_rank}")
    for c in report.collateral:
        where.append(f"collateral: {c.title}" + (f" on ranks {ranks_text(c.ranks)}" if c.ranks else ""))
    if where:
        out.append(_wrap("; ".join(where) + "."))
    out.append("")
    out.append(_wrap(rule.summary))
    out.append("")
    out.append(s("Why", "bold", "cyan"))
    out.append(_wrap(rule.root_cause))
    out.append("")
    out.append(s("Fix", "bold", "cyan"))
    out.append(_wrap(rule.fix.summary))
    script = fix_script(rule)
    if script:
        out.append(_block(script))
    out.append("")
    out.append(s("Verify", "bold", "cyan"))
    out.append(_block(rule.verify.command))
    out.append(_wrap("Expect: " + rule.verify.expect))
    out.append("")
    out.append(s("Confirm it is this", "bold", "cyan"))
    out.extend(f"  [ ] {item}" for item in rule.confirm)
    if report.evidence:
        out.append("")
        out.append(s("Evidence", "bold", "cyan"))
        for e in report.evidence:
            rank = f" rank {e.rank}" if e.rank is not None else ""
            out.append(s(f"  line {e.line}{rank}:", "dim") + " " + e.text.strip())
    if report.other_causes:
        out.append("")
        out.append(s("Also found", "bold", "cyan"))
        out.extend(f"  {r.title} ({r.id})" for r in report.other_causes)
    if report.related:
        out.append("")
        out.append(s("Related", "bold", "cyan"))
        out.extend(f"  {r.id}: {r.title}" for r in report.related)
    out.append("")
    out.append(s(f"More: denpex show {rule.id}   ·   " + _stats(report), "dim"))
    return "\n".join(out) + "\n"


def _stats(report: Report) -> str:
    st = report.diagnosis.stats
    extra = f", {st.regex_timeouts} regex timeouts" if st.regex_timeouts else ""
    return f"{st.lines:,} lines, {st.bytes:,} bytes in {st.elapsed_ms} ms{extra}"


def render_entry(rule: Rule, color: bool = False) -> str:
    """The whole entry, for `denpex show ID`."""
    s = _Style(color)
    out = [s(rule.title, "bold"), s(f"{rule.id} · {rule.category} · severity {rule.severity} · {', '.join(rule.tags)}", "dim"), ""]
    out.append(_wrap(rule.summary))
    sections = [("Affects", "\n".join(f"- {x}" for x in rule.systems)), ("Root cause", rule.root_cause), ("Mechanism", rule.mechanism)]
    for title, body in sections:
        out += ["", s(title, "bold", "cyan"), _wrap(body) if title != "Affects" else _block(body, "  ")]
    out += ["", s("Symptoms", "bold", "cyan")]
    for sym in rule.symptoms:
        out.append(_block(sym.line))
        out.append(_wrap(sym.means, "      "))
    out += ["", s("Fix", "bold", "cyan"), _wrap(rule.fix.summary)]
    out.extend(f"  {i}. {step}" for i, step in enumerate(rule.fix.steps, 1))
    if fix_script(rule):
        out.append(_block(fix_script(rule)))
    if rule.fix.config and rule.fix.config not in fix_script(rule):
        out += ["  Config:", _block(rule.fix.config)]
    out += ["", s("Verify", "bold", "cyan"), _block(rule.verify.command), _wrap("Expect: " + rule.verify.expect)]
    out += ["", s("Confirm it is this", "bold", "cyan")] + [f"  [ ] {c}" for c in rule.confirm]
    for key in ANSWER_KEYS:
        out += ["", s(ANSWER_TITLES[key], "bold", "cyan"), _wrap(rule.answers[key])]
    for stack, code in rule.code.items():
        out += ["", s(f"Code: {STACK_TITLES[stack]}", "bold", "cyan"), _block(code)]
    if rule.falsepositives:
        out += ["", s("Not this entry when", "bold", "cyan")] + [f"  - {x}" for x in rule.falsepositives]
    out += ["", s("Related", "bold", "cyan")] + [f"  {r}" for r in rule.related]
    out += ["", s("References", "bold", "cyan")] + [f"  {r.title}\n    {r.url}" for r in rule.references]
    return "\n".join(out) + "\n"
