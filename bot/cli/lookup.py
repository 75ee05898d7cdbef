"""`denpex lookup "error string"` and `denpex show ID`."""

from __future__ import annotations

import argparse
import os
import sys

from bot.cli import UsageError


def lookup(args: argparse.Namespace) -> int:
    from bot.service import Denpex

    query = " ".join(args.query).strip()
    if not query:
        raise UsageError("give an error string to look up")
    hits = Denpex().lookup(query, limit=args.limit)
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
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    sys.stdout.write(render_entry(rule, color=color))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lookup", help="find the entries for a pasted error string")
    p.add_argument("query", nargs="+", help="the error text")
    p.add_argument("--limit", type=int, default=5)
    p.set_defaults(handler=lookup)
    q = sub.add_parser("show", help="print a whole entry")
    q.add_argument("id", help="entry id, e.g. nccl-rocev2-gid-index")
    q.set_defaults(handler=show)
