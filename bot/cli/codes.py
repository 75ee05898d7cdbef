"""`denpex codes create`: mint single-use evaluation codes.

The codes are printed once, one a line, and nothing else goes to stdout, so the output can be
piped straight into whatever hands them out; Redis keeps only their hashes.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime, timedelta

from bot.cli import UsageError, require_extra

# The plans a code can switch to (`bot.store.Plan` less FREE), named here so that the parser
# does not import Redis: tests/cli/test_extras.py keeps the two in step.
PAID_PLANS = ("scale",)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `codes create` to the `denpex` command line."""
    parser = subparsers.add_parser("codes", help="Create evaluation codes for paid plans.")
    actions = parser.add_subparsers(dest="codes_action", metavar="ACTION")
    actions.required = True
    create = actions.add_parser(
        "create",
        help="Print new single-use codes, once.",
        description="Print new single-use evaluation codes, one a line. They are shown only "
        "now; Redis (REDIS_URL) keeps only their hashes.",
    )
    create.add_argument(
        "--plan",
        required=True,
        choices=PAID_PLANS,
        help="plan the code switches a workspace to",
    )
    create.add_argument(
        "--days", required=True, type=int, help="how long the plan lasts from redemption"
    )
    create.add_argument("--count", type=int, default=1, help="how many codes (default 1)")
    create.add_argument(
        "--valid-days",
        type=int,
        default=None,
        help="how long the codes can be redeemed (default DENPEX_CODE_VALID_DAYS or 30)",
    )
    create.set_defaults(handler=create_codes)


def create_codes(args: argparse.Namespace) -> int:
    """Create the codes and print each on its own line; a summary goes to stderr."""
    for name in ("days", "count", "valid_days"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be 1 or more, got {value}")
    require_extra("slack", "codes")
    from bot.store import Store, StoreConfigError, StoreUnavailable

    try:
        store = Store.from_env()
    except StoreConfigError as exc:
        raise UsageError(str(exc)) from None
    try:
        with store:
            codes = store.codes.create(args.plan, args.days, args.count, args.valid_days)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except StoreUnavailable as exc:
        print(f"denpex: {exc}", file=sys.stderr)
        return 1
    for code in codes:
        print(code)
    sys.stdout.flush()
    valid_days = args.valid_days or store.config.code_valid_days
    redeem_by = (datetime.now(UTC) + timedelta(days=valid_days)).date().isoformat()
    print(
        f"denpex: {len(codes)} {args.plan} code(s): the plan lasts {args.days} days from "
        f"redemption; redeem by {redeem_by} (UTC). They are not shown again.",
        file=sys.stderr,
    )
    return 0
