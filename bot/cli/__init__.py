"""The `denpex` command line: one module per command group, each with `register(subparsers)`.

Exit codes: 0 success (whether or not a log matched), 2 bad input or usage, 1 unexpected failure.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Command groups, in the order `denpex --help` lists them. Each module defines
# `register(subparsers: argparse._SubParsersAction) -> None`.
COMMAND_MODULES = (
    "bot.cli.diagnose",
    "bot.cli.lookup",
    "bot.cli.rules",
    "bot.cli.serve",
    "bot.cli.codes",
    "bot.cli.stats",
    "bot.cli.mask",
)


class UsageError(Exception):
    """Bad input or usage: printed as one line on stderr, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="denpex",
        description="Diagnose failed ML training runs from their logs.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except UsageError as exc:
        print(f"denpex: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `denpex diagnose big.log | head` is normal use, not a failure.
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
