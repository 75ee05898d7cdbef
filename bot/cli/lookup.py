"""`denpex lookup "error string"` and `denpex show ID`."""

from __future__ import annotations

import argparse
import sys

from bot.cli import UsageError
from bot.cli.term import COLOR_CHOICES, use_color, width


def lookup(args: argparse.Namespace) -> int:
    from bot.service import Denpex

    query = " ".join(args.query).strip()
    if not query:
        raise UsageError("give an error string to look up")
    app = Denpex()
    if app.too_general(query):
        from bot.render.text import TOO_GENERAL, TOO_GENERAL_EXAMPLE

        print(TOO_GENERAL.format(q=repr(str(app.mask_query(query))), example=f'denpex lookup "{TOO_GENERAL_EXAMPLE}"')
              + ", or diagnose the whole log: denpex diagnose train.log")
        return 0
    hits = app.lookup(query, limit=args.limit)
    if not hits:
        print("No entry matches that text. Try a shorter, more specific part of the error line.")
        return 0
    for hit in hits:
        how = "matches its signature" if hit.how == "signature" else "text match"
        print(f"{hit.rule.id}: {hit.rule.title}  ({how})")
        print(f"    {hit.rule.summary.splitlines()[0][:160]}")
    print(f"\nMore: denpex show {hits[0].rule.id}")
    return 0


def show(args: argparse.Namespace) -> int:
    from bot.render.text import render_entry
    from bot.service import Denpex

    app = Denpex()
    rule = app.entry(args.id)
    if rule is None:
        close = [i for i in app.rulebook.ids if args.id.lower() in i]
        hint = f" (did you mean {', '.join(close[:5])}?)" if close else " (denpex lookup searches by text)"
        raise UsageError(f"no entry with id {args.id!r}{hint}")
    sys.stdout.write(render_entry(rule, color=use_color(args.color, sys.stdout), width=width(sys.stdout)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lookup", help="find the entries for a pasted error string",
        description="Find the knowledge-base entries a pasted error line points at (quote it).",
        epilog='example: denpex lookup "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"',
    )
    p.add_argument("query", nargs="+", help="the error text (quote it, or it is joined with spaces)")
    p.add_argument("--limit", type=_limit, default=5, help=f"how many entries at most, 1 to {MAX_LIMIT} (default 5)")
    p.set_defaults(handler=lookup)
    q = sub.add_parser("show", help="print a whole entry", description="Print a whole entry: cause, fix, verification, answers, per-stack code.")
    q.add_argument("id", help="entry id, e.g. nccl-rocev2-gid-index (denpex lookup finds ids by text)")
    q.add_argument(
        "--color", choices=COLOR_CHOICES, default="auto",
        help="colour: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always, never",
    )
    q.set_defaults(handler=show)


MAX_LIMIT = 50


def _limit(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 1 <= n <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_LIMIT}, got {n}")
    return n
