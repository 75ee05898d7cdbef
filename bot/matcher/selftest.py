"""`denpex rules test`: every rule's own examples, run through the whole matcher.

A positive example must diagnose as its rule (root cause first), with the initiating rank and
collateral the example states; a near-miss must not produce that rule as a cause (collateral is fine). Each example runs
with and without the prefilter, which must agree (a keyword list that misses what a regex
matches is a bug in the rule). The matcher reads raw text, as `denpex diagnose` does (masking
is at the egress), so an example is checked exactly as a user's log would be.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.matcher.engine import Matcher
from bot.matcher.model import Diagnosis
from bot.matcher.rulebook import Example, Rule, Rulebook


@dataclass(frozen=True)
class ExampleResult:
    rule_id: str
    example: str
    kind: str  # match | near_miss
    ok: bool
    problem: str = ""


def _comparable(d: Diagnosis) -> dict:
    out = d.to_dict()
    out.pop("stats")
    return out


def _problem(d: Diagnosis, rule: Rule, ex: Example, kind: str) -> str:
    ids = [m.id for m in d.matches]
    if kind == "match":
        if not ids:
            return f"no match (unmatched line: {d.unmatched!r})"
        if ids[0] != rule.id:
            return f"root cause is {ids[0]!r}, expected {rule.id!r} (all: {ids})"
        if ex.initiating_rank is not None and d.initiating_rank != ex.initiating_rank:
            return f"initiating rank {d.initiating_rank}, expected {ex.initiating_rank}"
        coll = {c.id for c in d.collateral}
        lacking = [c for c in ex.collateral if c not in coll]
        if lacking:
            return f"expected collateral {lacking} not found (collateral: {sorted(coll)})"
    elif any(m.id == rule.id and m.role == "root" for m in d.matches):
        # A near-miss may show the rule as collateral of something else; it must never be
        # offered as a cause.
        return f"near-miss diagnosed as {rule.id!r} (matches: {ids})"
    return ""


def check_example(
    matcher: Matcher,
    naive: Matcher,
    rule: Rule,
    ex: Example,
    kind: str,
) -> ExampleResult:
    d = matcher.diagnose(ex.log)
    problem = _problem(d, rule, ex, kind)
    if not problem and _comparable(naive.diagnose(ex.log)) != _comparable(d):
        problem = "differs without the prefilter: a keyword is missing from match.keywords"
    return ExampleResult(rule.id, ex.name, kind, not problem, problem)


def run_examples(rulebook: Rulebook, only: set[str] | None = None) -> list[ExampleResult]:
    matcher = Matcher(rulebook)
    naive = Matcher(rulebook, prefilter=False)
    results = []
    for rule in rulebook:
        if only and rule.id not in only:
            continue
        for ex in rule.examples:
            results.append(check_example(matcher, naive, rule, ex, "match"))
        for ex in rule.near_misses:
            results.append(check_example(matcher, naive, rule, ex, "near_miss"))
    return results
