"""The `denpex` command line: one module per command group, each with `register(subparsers)`.

Exit codes: 0 success (whether or not a log matched), 2 bad input or usage, 1 unexpected failure.
Command modules import their heavy dependencies (the matcher, Redis, Slack) inside their
handlers, so `denpex --help` is quick and a login-node install without the `slack` extra works.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
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
    "bot.cli.watch",
    "bot.cli.completion",
)

# What each optional extra brings, by the module it installs.
EXTRAS = {
    "slack": ("slack_bolt", "slack_sdk", "redis", "waitress", "cryptography"),
}

EPILOG = """\
examples:
  denpex diagnose train.log                 the root cause, the fix, the initiating rank
  denpex diagnose logs/                     a folder of per-rank logs, read as one run
  denpex diagnose 'slurm-1234_*.out'        several files (or a glob) as one run
  kubectl logs trainer-0 | denpex diagnose -
  denpex diagnose train.log.zst --format json
  denpex lookup "NCCL WARN NET/IB : Got completion with error 12"
  denpex show cuda-oom
  denpex watch -- torchrun --nproc-per-node 8 train.py   alert the moment a rank fails
  eval "$(denpex completion bash)"         shell completion (bash; zsh likewise)

exit codes:
  0  done (whether or not a known failure matched)
  1  unexpected failure, or a check failed (rules lint/test, Redis away)
  2  bad input or usage, with one line on stderr saying why
  130 interrupted
"""


class UsageError(Exception):
    """Bad input or usage: printed as one line on stderr, exit code 2."""


def require_extra(extra: str, command: str) -> None:
    """One clear line (a UsageError) when `command` needs an extra that is not installed."""
    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"`denpex {command}` needs the {extra} extra ({', '.join(missing)} not installed): "
            f"pip install 'denpex[{extra}]'"
        )


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("denpex")
    except PackageNotFoundError:  # pragma: no cover - a bare source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="denpex",
        description="Diagnose failed ML training runs from their logs: the root cause, the exact "
        "fix, how to confirm it, and the rank that started it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"denpex {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def rule_error_line(exc: Exception) -> str:
    """A RuleError (broken rules, a missing rules folder) as one line."""
    problems = getattr(exc, "problems", None) or [str(exc)]
    more = f" (and {len(problems) - 1} more: run `denpex rules lint`)" if len(problems) > 1 else ""
    return f"the rules do not load: {problems[0]}{more}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from bot.matcher.rulebook import RuleError

    try:
        return int(args.handler(args) or 0)
    except UsageError as exc:
        print(f"denpex: {exc}", file=sys.stderr)
        return 2
    except RuleError as exc:
        print(f"denpex: {rule_error_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `denpex diagnose big.log | head` is normal use, not a failure.
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
