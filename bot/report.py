"""What a diagnosis reply says, independent of where it is shown.

The CLI's text and markdown and the Slack blocks all render this one structure, so the terminal
and the thread carry the same content.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.matcher.model import Diagnosis, Evidence
from bot.matcher.rulebook import Rule, Rulebook


@dataclass(frozen=True)
class CollateralLine:
    id: str
    title: str
    ranks: list[int]


@dataclass(frozen=True)
class Report:
    """A diagnosis joined with the entries it names."""

    diagnosis: Diagnosis
    root: Rule | None
    confidence: str | None
    collateral: list[CollateralLine]
    other_causes: list[Rule]
    related: list[Rule]
    evidence: list[Evidence]

    @property
    def matched(self) -> bool:
        return self.root is not None


def fix_script(rule: Rule) -> str:
    """The fix as one copy-pasteable block: exported variables, then the commands."""
    parts = []
    if rule.fix.env:
        parts.append("\n".join(f"export {k}={_shell_quote(v)}" for k, v in rule.fix.env.items()))
    if rule.fix.commands:
        parts.append(rule.fix.commands.rstrip())
    if not parts and rule.fix.config:
        parts.append(rule.fix.config.rstrip())
    return "\n".join(parts)


def _shell_quote(value: str) -> str:
    safe = all(c.isalnum() or c in "._-/:=,^+@%" for c in value)
    return value if safe and value else "'" + value.replace("'", "'\\''") + "'"


def ranks_text(ranks: list[int], limit: int = 12) -> str:
    """`0-2, 4-7` style: 1,000 ranks fit on one line."""
    if not ranks:
        return ""
    spans, start, prev = [], ranks[0], ranks[0]
    for r in ranks[1:]:
        if r == prev + 1:
            prev = r
            continue
        spans.append((start, prev))
        start = prev = r
    spans.append((start, prev))
    text = [f"{a}" if a == b else f"{a}-{b}" for a, b in spans]
    if len(text) > limit:
        return ", ".join(text[:limit]) + f", … ({len(ranks)} ranks)"
    return ", ".join(text)


def build_report(diagnosis: Diagnosis, book: Rulebook) -> Report:
    root = book.get(diagnosis.root.id) if diagnosis.root else None
    collateral = []
    for c in diagnosis.collateral:
        rule = book.get(c.id)
        collateral.append(CollateralLine(c.id, rule.title if rule else c.id, c.ranks))
    coll_ids = {c.id for c in diagnosis.collateral}
    others = [
        r
        for m in diagnosis.matches[1:]
        if m.id not in coll_ids and (r := book.get(m.id)) is not None
    ]
    related = [r for rid in (root.related if root else ()) if (r := book.get(rid)) is not None]
    return Report(
        diagnosis=diagnosis,
        root=root,
        confidence=diagnosis.root.confidence if diagnosis.root else None,
        collateral=collateral,
        other_causes=others,
        related=related,
        evidence=diagnosis.root.evidence if diagnosis.root else [],
    )
