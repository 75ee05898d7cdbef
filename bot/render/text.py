"""Terminal rendering: what a person reads after `denpex diagnose` (colour only when asked or on a tty)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from bot.matcher.model import Evidence
from bot.matcher.rulebook import ANSWER_KEYS, Rule
from bot.report import Report, fix_script, ranks_text

_COLORS = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
# Confidence is not an alarm: red is for errors, and a high-confidence answer is good news.
_CONF_STYLE = {"high": ("bold", "green"), "medium": ("yellow",), "low": ("dim",)}
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


TRUNCATED_NOTICE = "Note: the log ends early (the compressed file is cut off before its end): the failure may be in the lost tail."
ELLIPSIS = "…"
# The answer to a lookup that names no failure in particular ("training failed", "cuda error"):
# what to look up instead (each edge adds how to have the whole log diagnosed there). `{q}` is
# the query and `{example}` a lookup of a real error line, as the edge shows them.
TOO_GENERAL = ("{q} does not say which failure it is, and dozens of entries would fit it, so none is listed. "
               "Look up the error line itself, the last line of the traceback (e.g. {example})")
TOO_GENERAL_EXAMPLE = "torch.OutOfMemoryError: CUDA out of memory"
DEFAULT_WIDTH = 96


class _Style:
    def __init__(self, color: bool):
        self.color = color

    def __call__(self, text: str, *names: str) -> str:
        if not self.color or not names:
            return text
        codes = ";".join(_COLORS[n] for n in names)
        return f"\033[{codes}m{text}\033[0m"


def plural(n: int, word: str) -> str:
    """`1 line`, `2 lines`, `1,024 bytes`."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _wrap_at(text: str, indent: str = "  ", width: int = DEFAULT_WIDTH) -> str:
    return "\n".join(
        textwrap.fill(p, width=width, initial_indent=indent, subsequent_indent=indent)
        for p in text.strip().split("\n\n")
    )


def _block(text: str, indent: str = "    ") -> str:
    return "\n".join(indent + line for line in text.rstrip().splitlines())


def cut(text: str, room: int) -> str:
    """`text` in at most `room` characters: cut at the last blank before the limit (a word is not
    split when one ends near it) and marked with an ellipsis, never cut silently."""
    text = " ".join(text.split()) if "\t" in text else text.strip()
    if len(text) <= room:
        return text
    room = max(room, 8)
    head = text[: room - 1]
    blank = head.rfind(" ")
    if blank >= room * 2 // 3:
        head = head[:blank]
    return head.rstrip() + ELLIPSIS


def _default_locate(e: Evidence) -> tuple[str, str]:
    return f"line {e.line}", e.text


def render_report(
    report: Report,
    color: bool = False,
    width: int | None = None,
    locate: Callable[[Evidence], tuple[str, str]] | None = None,
    truncated_files: list[str] | None = None,
    files: int | None = None,
) -> str:
    """The report for a terminal, in the order it is read at 3 a.m.: what it is and where it
    started, the lines that show it, the commands that fix it; then why, and how to confirm.

    `locate` turns an evidence line into its label and text (`rank_3.log:412` for a run of
    several files); `truncated_files` names the files that ended early; `files` counts them."""
    s = _Style(color)
    width = width or DEFAULT_WIDTH
    locate = locate or _default_locate
    d = report.diagnosis
    out: list[str] = []
    if truncated_files:
        out.append(s(f"Note: the log ends early in {', '.join(truncated_files)} (cut off before its end): the failure may be in the lost tail.", "bold", "yellow"))
    elif d.stats.truncated:
        out.append(s(TRUNCATED_NOTICE, "bold", "yellow"))
    if not report.matched:
        if d.unmatched:
            out.append(s("No known failure matched this log.", "bold"))
            where = f" (rank {d.initiating_rank}, the first to fail)" if d.initiating_rank is not None else ""
            out.append(f"The most telling error line{where}:")
            out.append("    " + cut(d.unmatched, width - 4))
            if report.collateral:
                # What fired only reports this error (torchrun's ChildFailedError): named, not the cause.
                around = "; ".join(c.title + (f" on ranks {ranks_text(c.ranks)}" if c.ranks else "") for c in report.collateral)
                out.append(f"Reported around it: {around}.")
            out.append(f'Try: denpex lookup "{cut(d.unmatched, 120)}"')
        else:
            out.append(s("No failure found: nothing in this log looks like an error.", "bold", "green"))
        out.append(s(_stats(report, files), "dim"))
        return "\n".join(out) + "\n"
    rule = report.root
    assert rule is not None
    conf = report.confidence or "low"
    out.append(s(f"Root cause: {rule.title}", "bold") + "  " + s(f"[{conf} confidence]", *_CONF_STYLE[conf]))
    out.append(s(f"{rule.id} · {rule.category} · severity {rule.severity}", "dim"))
    if d.initiating_rank is not None:
        out.append(s(f"Initiating rank: {d.initiating_rank}", "bold"))
    for c in report.collateral:
        out.append(_wrap_at(f"Collateral: {c.title}" + (f" on {'rank' if len(c.ranks) == 1 else 'ranks'} {ranks_text(c.ranks)}" if c.ranks else ""), "", width))
    if report.evidence:
        out.append("")
        out.append(s("Evidence", "bold", "cyan"))
        for e in report.evidence:
            where, line_text = locate(e)
            label = f"  {where}" + (f" rank {e.rank}" if e.rank is not None else "") + ":"
            out.append(s(label, "dim") + " " + cut(line_text, width - len(label) - 1))
    out.append("")
    out.append(s("Fix", "bold", "cyan"))
    out.append(_wrap_at(rule.fix.summary, width=width))
    script = fix_script(rule)
    if script:
        out.append(_block(script))
    out.append("")
    out.append(s("Why", "bold", "cyan"))
    out.append(_wrap_at(rule.summary, width=width))
    out.append("")
    out.append(_wrap_at(rule.root_cause, width=width))
    out.append("")
    out.append(s("Verify", "bold", "cyan"))
    out.append(_block(rule.verify.command))
    out.append(_wrap_at("Expect: " + rule.verify.expect, width=width))
    out.append("")
    out.append(s("Confirm it is this", "bold", "cyan"))
    out.extend(textwrap.fill(item, width=width, initial_indent="  [ ] ", subsequent_indent="      ") for item in rule.confirm)
    if report.other_causes:
        out.append("")
        out.append(s("Also found", "bold", "cyan"))
        out.extend(f"  {r.title} ({r.id})" for r in report.other_causes)
    if report.related:
        out.append("")
        out.append(s("Related", "bold", "cyan"))
        out.extend(f"  {r.id}: {r.title}" for r in report.related)
    out.append("")
    out.append(s(f"More: denpex show {rule.id}   ·   " + _stats(report, files), "dim"))
    return "\n".join(out) + "\n"


def _stats(report: Report, files: int | None = None) -> str:
    st = report.diagnosis.stats
    extra = f", {plural(st.regex_timeouts, 'regex timeout')}" if st.regex_timeouts else ""
    where = f" in {plural(files, 'file')}" if files else ""
    return f"{plural(st.lines, 'line')}, {plural(st.bytes, 'byte')}{where}, read in {st.elapsed_ms:,} ms{extra}"


def render_entry(rule: Rule, color: bool = False, width: int | None = None) -> str:
    """The whole entry, for `denpex show ID`."""
    s = _Style(color)
    width = width or DEFAULT_WIDTH

    def wrap(text: str, indent: str = "  ") -> str:
        return _wrap_at(text, indent, width)

    out = [s(rule.title, "bold"), s(f"{rule.id} · {rule.category} · severity {rule.severity} · {', '.join(rule.tags)}", "dim"), ""]
    out.append(wrap(rule.summary))
    sections = [("Affects", "\n".join(f"- {x}" for x in rule.systems)), ("Root cause", rule.root_cause), ("Mechanism", rule.mechanism)]
    for title, body in sections:
        out += ["", s(title, "bold", "cyan"), wrap(body) if title != "Affects" else _block(body, "  ")]
    out += ["", s("Symptoms", "bold", "cyan")]
    for sym in rule.symptoms:
        out.append(_block(sym.line))
        out.append(wrap(sym.means, "      "))
    out += ["", s("Fix", "bold", "cyan"), wrap(rule.fix.summary)]
    out.extend(f"  {i}. {step}" for i, step in enumerate(rule.fix.steps, 1))
    if fix_script(rule):
        out.append(_block(fix_script(rule)))
    if rule.fix.config and rule.fix.config not in fix_script(rule):
        out += ["  Config:", _block(rule.fix.config)]
    out += ["", s("Verify", "bold", "cyan"), _block(rule.verify.command), wrap("Expect: " + rule.verify.expect)]
    out += ["", s("Confirm it is this", "bold", "cyan")] + [f"  [ ] {c}" for c in rule.confirm]
    for key in ANSWER_KEYS:
        out += ["", s(ANSWER_TITLES[key], "bold", "cyan"), wrap(rule.answers[key])]
    for stack, code in rule.code.items():
        out += ["", s(f"Code: {STACK_TITLES[stack]}", "bold", "cyan"), _block(code)]
    if rule.falsepositives:
        out += ["", s("Not this entry when", "bold", "cyan")] + [f"  - {x}" for x in rule.falsepositives]
    out += ["", s("Related", "bold", "cyan")] + [f"  {r}" for r in rule.related]
    out += ["", s("References", "bold", "cyan")] + [f"  {r.title}\n    {r.url}" for r in rule.references]
    return "\n".join(out) + "\n"
