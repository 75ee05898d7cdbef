"""`denpex stats feedback|unmatched`: what users think of the rules, and what no rule caught."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.cli import UsageError, require_extra

if TYPE_CHECKING:
    from bot.store import Store


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `stats feedback` and `stats unmatched` to the `denpex` command line."""
    parser = subparsers.add_parser("stats", help="Feedback votes and unmatched failures.")
    actions = parser.add_subparsers(dest="stats_action", metavar="ACTION")
    actions.required = True
    feedback = actions.add_parser("feedback", help="Right/wrong votes per rule, across workspaces.")
    feedback.set_defaults(handler=show_feedback)
    unmatched = actions.add_parser(
        "unmatched", help="Most frequent failures no rule matched, by fingerprint."
    )
    unmatched.add_argument("--top", type=int, default=20, help="how many rows (default 20)")
    unmatched.set_defaults(handler=show_unmatched)


def show_feedback(args: argparse.Namespace) -> int:
    """Print one row per rule: votes right and wrong, share right, workspaces voting."""
    store = _open_store()
    from bot.store import StoreUnavailable

    try:
        with store:
            rows = store.feedback.summary()
    except StoreUnavailable as exc:
        print(f"denpex: {exc}", file=sys.stderr)
        return 1
    if not rows:
        print("No feedback votes yet.")
        return 0
    table = [
        [
            row.rule_id,
            str(row.right),
            str(row.wrong),
            f"{100 * row.right / (row.right + row.wrong):.0f}%",
            str(len(row.teams)),
        ]
        for row in rows
    ]
    _print_table(["RULE", "RIGHT", "WRONG", "RIGHT%", "WORKSPACES"], table, numeric={1, 2, 3, 4})
    return 0


def show_unmatched(args: argparse.Namespace) -> int:
    """Print the most frequent unmatched fingerprints with their counts."""
    if args.top < 1:
        raise UsageError(f"--top must be 1 or more, got {args.top}")
    store = _open_store()
    from bot.store import StoreUnavailable

    try:
        with store:
            rows = store.unmatched.top(args.top)
    except StoreUnavailable as exc:
        print(f"denpex: {exc}", file=sys.stderr)
        return 1
    if not rows:
        print("No unmatched failures recorded yet.")
        return 0
    _print_table(["COUNT", "FINGERPRINT"], [[str(c), fp] for fp, c in rows], numeric={0})
    return 0


def _open_store() -> Store:
    require_extra("slack", "stats")
    from bot.store import Store, StoreConfigError

    try:
        return Store.from_env()
    except StoreConfigError as exc:
        raise UsageError(str(exc)) from None


def _print_table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: set[int]) -> None:
    """Columns padded to their widest cell; numbers right-aligned; the last column unpadded."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = []
        for i, cell in enumerate(row):
            if i == len(row) - 1 and i not in numeric:
                cells.append(cell)
            elif i in numeric:
                cells.append(cell.rjust(widths[i]))
            else:
                cells.append(cell.ljust(widths[i]))
        print("  ".join(cells).rstrip())
