"""`denpex rules lint` and `denpex rules test`."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bot.cli import UsageError
from bot.matcher.required import gate_is_proven, unsupported_reason
from bot.matcher.rulebook import Rulebook, RuleError, default_rules_dir, load_rulebook
from bot.matcher.selftest import run_examples


def _load(args: argparse.Namespace):
    warnings: list[str] | None = [] if args.allow_missing else None
    rules_dir = Path(args.rules_dir) if args.rules_dir else default_rules_dir()
    if not rules_dir.is_dir():
        raise UsageError(f"rules folder not found: {rules_dir}")
    try:
        book = load_rulebook(rules_dir, warnings=warnings, proved=False)
    except RuleError as exc:
        problems = once_per_file(exc.problems)
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"{len(problems)} problem(s) in {rules_dir}", file=sys.stderr)
        return None
    for w in warnings or []:
        print(f"warning: {w}", file=sys.stderr)
    return book


_UNKNOWN_ID = re.compile(r": unknown id '([^']+)'$")


def once_per_file(problems: list[str]) -> list[str]:
    """A rejected file is reported for what is wrong with it, not once more for every entry that
    refers to its id (`related: unknown id 'x'` when x.yaml itself failed to load)."""
    rejected = {Path(p.split(": ", 1)[0]).stem for p in problems if not _UNKNOWN_ID.search(p)}
    return [p for p in problems if not ((m := _UNKNOWN_ID.search(p)) and m.group(1) in rejected)]


def lint(args: argparse.Namespace) -> int:
    book = _load(args)
    if book is None:
        return 1
    rules_dir = Path(args.rules_dir) if args.rules_dir else default_rules_dir()
    problems = gate_problems(book, rules_dir)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in {rules_dir}", file=sys.stderr)
        return 1
    print(f"{len(book)} rules OK")
    return 0


def gate_problems(book: Rulebook, rules_dir: Path) -> list[str]:
    """A line per signature that could match a line holding none of its rule's keywords. The
    matcher runs a signature only on lines holding a keyword, so such a signature would miss a
    line silently: the lint refuses it until a keyword every match holds is declared (a
    signature's own `keywords`), or the regex is written so the derivation can read it."""
    problems = []
    for rule in book:
        gate = frozenset(k for k in (*rule.keywords, *(k for s in rule.signatures for k in s.keywords)) if k)
        for i, sig in enumerate(rule.signatures):
            where = f"{rules_dir / rule.category / rule.id}.yaml: match.signatures[{i}] ({sig.name})"
            reason = unsupported_reason(sig.pattern)
            if reason is not None:
                problems.append(f"{where}: the regex is outside the syntax the keyword proof reads ({reason})")
            elif not gate_is_proven(sig.pattern, gate, first_line=sig.lines > 1):
                problems.append(f"{where}: a line holding none of the rule's keywords could match; add a keyword every "
                                "match holds to the signature's `keywords`")
    return problems


def test(args: argparse.Namespace) -> int:
    book = _load(args)
    if book is None:
        return 1
    only = set(args.only) if args.only else None
    if only and (unknown := only - set(book.ids)):
        raise UsageError(f"no rule with id {', '.join(sorted(unknown))}")
    results = run_examples(book, only)
    failed = [r for r in results if not r.ok]
    for r in failed:
        print(f"FAIL {r.rule_id} [{r.kind}] {r.example}: {r.problem}")
    if args.verbose:
        for r in results:
            if r.ok:
                print(f"ok   {r.rule_id} [{r.kind}] {r.example}")
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="check the knowledge base")
    rsub = p.add_subparsers(dest="rules_command", metavar="ACTION")
    rsub.required = True
    for name, fn, helptext in (
        ("lint", lint, "validate every rule file (schema, regexes, references, duplicates)"),
        ("test", test, "run every rule's examples and near-misses through the matcher"),
    ):
        q = rsub.add_parser(name, help=helptext)
        q.add_argument("--rules-dir", help="rules folder (default: $DENPEX_RULES_DIR, else the knowledge base installed with denpex)")
        q.add_argument(
            "--allow-missing",
            action="store_true",
            help="report references to ids that do not exist yet as warnings (while writing entries)",
        )
        if name == "test":
            q.add_argument("--only", nargs="+", metavar="ID", help="test only these rules")
            q.add_argument("-v", "--verbose", action="store_true", help="list passing examples too")
        q.set_defaults(handler=fn)
