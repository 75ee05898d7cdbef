"""`denpex watch -- CMD...` / `denpex watch FILE...`: name the cause while the job is dying.

Runs the job as a child (or follows the log files a job writes), matches its output as it is
written, and when a root cause is found, and again when the job ends with a failure, prints an
alert on stderr and, with `--to URL --token T` (or DENPEX_ALERT_URL / DENPEX_ALERT_TOKEN),
sends the masked alert to the bot, which posts it to the connected channel.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
from typing import TYPE_CHECKING

from bot.cli import UsageError

if TYPE_CHECKING:
    from bot.watch.child import StderrGate
    from bot.watch.client import AlertClient
    from bot.watch.session import WatchSession

ENV_URL = "DENPEX_ALERT_URL"
ENV_TOKEN = "DENPEX_ALERT_TOKEN"
ENV_JOB = "DENPEX_JOB_ID"
# Where a job id can come from on a cluster, in this order; else one is made up per run.
JOB_ENV = (ENV_JOB, "SLURM_JOB_ID", "TORCHELASTIC_RUN_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID")
FLUSH_WAIT_S = 20.0


def job_id(given: str | None) -> str:
    from bot.watch.protocol import JOB_ID

    for value in (given, *(os.environ.get(name) for name in JOB_ENV)):
        if value:
            if not JOB_ID.fullmatch(value):
                raise UsageError(f"job id {value[:70]!r}: use 1-64 letters, digits or . _ : -")
            return value
    return "watch-" + secrets.token_hex(6)


def run(args: argparse.Namespace) -> int:
    target = list(args.target)
    command = bool(target) and target[0] == "--"
    if command:
        target = target[1:]
    if not target:
        raise UsageError("nothing to watch: `denpex watch -- CMD ARGS...` runs a job, `denpex watch FILE...` follows logs")
    if not command and target[0].startswith("-"):
        raise UsageError(f"unknown option {target[0]!r}; put the job after `--`: denpex watch -- {' '.join(target)}")
    if not command and not os.path.exists(target[0]) and shutil.which(target[0]):
        # `denpex watch torchrun ...` would wait for a log file named `torchrun` forever.
        raise UsageError(f"{target[0]!r} is a program, not a log file: to run the job, "
                         f"put it after `--`: denpex watch -- {' '.join(target)[:200]}")
    url = args.to or os.environ.get(ENV_URL)
    token = args.token or os.environ.get(ENV_TOKEN)
    if bool(url) != bool(token):
        missing = "--token (or DENPEX_ALERT_TOKEN)" if url else "--to (or DENPEX_ALERT_URL)"
        raise UsageError(f"alerts to the bot need both the URL and the token: {missing} is missing")
    if token and not token.startswith("dpx1."):
        raise UsageError("that is not a Denpex ingest token (they start with dpx1.): get one with /denpex alerts connect")
    job = job_id(args.job)

    from bot.service import Denpex
    from bot.watch.child import StderrGate, exit_like, run_child
    from bot.watch.client import AlertClient
    from bot.watch.session import WatchSession

    gate = StderrGate()
    say = (lambda _text: None) if args.quiet else gate.say
    client = AlertClient(url, token, gate.say) if url and token else None
    session = WatchSession(Denpex(), job, say, client.send if client else None)
    if command:
        env = dict(os.environ)
        # A Python job whose output is a pipe buffers it in 8 KB blocks: lines would reach us
        # (and the terminal) late. The user's own setting wins.
        env.setdefault("PYTHONUNBUFFERED", "1")
        forwarded: list[int] = []
        try:
            status = run_child(target, gate, session.take, env=env, forwarded=forwarded)
        except (FileNotFoundError, PermissionError) as exc:
            raise UsageError(f"cannot run {target[0]!r}: {exc.strerror}") from None
        _finish(session, gate, client, args.flush_wait, status, stopped=bool(forwarded))
        return exit_like(status)
    from bot.watch.follow import follow_files

    with contextlib.suppress(KeyboardInterrupt):
        follow_files(target, session, gate, idle_exit_s=args.exit_after_idle)
    _finish(session, gate, client, args.flush_wait, None)
    return 0


def _finish(session: WatchSession, gate: StderrGate, client: AlertClient | None, flush_wait: float,
            status: int | None, stopped: bool = False) -> None:
    """The job is over: its final alert, what stderr still holds, then the delivery's last
    words (the client may report undelivered alerts, which go out through the gate again)."""
    session.end(status, stopped=stopped)
    gate.close()
    if client:
        client.close(flush_wait)
        gate.close()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "watch",
        help="run a job (denpex watch -- CMD) or follow its logs, and alert the moment a rank fails",
        description="Run a training job as a child (`denpex watch -- torchrun ... train.py`), passing its "
        "output through unchanged, or follow the log files a job writes (`denpex watch logs/`); match the "
        "log as it is written and alert on stderr, and to the bot's channel with --to/--token, as soon as a "
        "root cause is known, minutes before the other ranks' watchdogs fire. Only masked text is sent.",
        epilog=f"environment: {ENV_URL}, {ENV_TOKEN} (instead of --to/--token), {ENV_JOB} or SLURM_JOB_ID "
        "(the job id: one alert per root cause per job). exit code: the job's own.",
    )
    p.add_argument("--to", metavar="URL", help=f"the bot's base URL (or ${ENV_URL})")
    p.add_argument("--token", help=f"the channel's ingest token from /denpex alerts connect (or ${ENV_TOKEN}; "
                   "the variable keeps it out of `ps`)")
    p.add_argument("--job", help="the job's id (default $DENPEX_JOB_ID, $SLURM_JOB_ID, ... or a new one)")
    p.add_argument("-q", "--quiet", action="store_true", help="no alerts on stderr (only delivery problems)")
    p.add_argument("--flush-wait", type=float, default=FLUSH_WAIT_S, metavar="S",
                   help=f"at the end, wait this long for alerts to reach the bot (default {FLUSH_WAIT_S:.0f})")
    p.add_argument("--exit-after-idle", type=float, default=None, metavar="S",
                   help="FILE mode: stop when no file has grown for this long (default: run until Ctrl-C)")
    p.add_argument("target", nargs=argparse.REMAINDER, metavar="-- CMD | FILE",
                   help="`-- CMD ARGS...` to run a job, or log files / folders / globs to follow")
    p.set_defaults(handler=run)
