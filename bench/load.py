"""Load test: two bot replicas in HTTP mode against a Redis Cluster and a Slack stand-in, on
loopback, while a primary is killed, nodes restart and Slack answers 429s.

    python bench/load.py --seconds 60 --rate 200            # prints a table, writes bench/RESULTS.md
    python bench/load.py --seconds 20 --rate 200 --no-write # a shorter look
    python bench/load.py --redis single --no-faults         # one redis-server, nothing broken

A few hundred signed requests a second of mixed kinds (pasted logs, Slack's re-sends of them to
the other replica, chatter, follow-ups in diagnosed threads, irrelevant events, `/denpex quota`,
App Home, uploads) go open-loop, at fixed times, round-robin over the replicas, for a bounded
time; then the run drains and stops by itself. Reported: ack latency (Slack allows 3 s), time
to reply, replies exactly once / lost / doubled, quota counts against diagnoses posted, errors.

Faults (with --redis cluster, unless --no-faults), at fixed points of the run: at 25% the
primary serving the most workspaces is SIGKILLed and its replica promoted; at 40% the stand-in
answers the next posts with 429 (Retry-After: 1); at 50% the killed node restarts (it rejoins
as a replica); at 70% a replica of another primary restarts. Reported with them: how long the
failover window was, how long it made requests wait, and what users were told meanwhile.

Everything listens on 127.0.0.1 and is started (and stopped) by this script: a Redis Cluster
of three primaries and three replicas (or one redis-server), the Slack stand-in
(tests/slack/fake_slack.py, in its own process), the bots.
"""

from __future__ import annotations

import argparse
import bisect
import http.client
import json
import multiprocessing as mp
import os
import platform
import queue
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.slack.conftest import sign, start_bot, stop_bot  # noqa: E402
from tests.slack.fake_slack import FakeFile, FakeSlack  # noqa: E402
from tests.store.conftest import REDIS_SERVER, LocalCluster, PrivateRedis  # noqa: E402

SAMPLE = (ROOT / "tests" / "data" / "samples" / "rank3-oom-8-ranks.log").read_text()
MAX_SECONDS, MAX_RATE = 300, 2000
DRAIN_QUIET_S, DRAIN_MAX_S = 3.0, 90.0
ACK_LIMIT_S = 3.0
KINDS = {  # kind: weight
    "paste": 35, "retry": 10, "chatter": 20, "followup": 10, "ignored": 10, "command": 5, "home": 5, "upload": 5,
}  # fmt: skip
RESULTS_BEGIN, RESULTS_END = "<!-- load.py:begin -->", "<!-- load.py:end -->"


# --- the Slack stand-in, in a process of its own (so it does not share a GIL with the load) ---

def _classify(call: Any) -> str:
    text = json.dumps(call.params.get("blocks") or []) + (call.params.get("text") or "")
    if "denpex_feedback_right" in text:
        return "diagnosis"
    if "Daily limit reached" in text:
        return "quota"
    if "temporarily unavailable" in text:
        return "unavailable"
    if "No known failure" in text:
        return "unmatched"
    if "I could not read" in text or ":warning:" in text:
        return "error"
    return "other"


class _Refusals(list):
    """A method's queue of scripted failures that notes which recorded call each one refused.

    FakeSlack pops a failure just before it records the call, under its lock, so the call
    refused is the next one recorded.
    """

    def __init__(self, fake: FakeSlack, refused: set[int]) -> None:
        super().__init__()
        self._fake, self._refused = fake, refused

    def pop(self, index: Any = -1) -> Any:
        item = super().pop(index)
        self._refused.add(len(self._fake.calls))
        return item


def fake_slack_process(conn: Any) -> None:
    """Serve the stand-in; answer the parent's requests over `conn` until told to stop."""
    fake = FakeSlack().start()
    refused: set[int] = set()
    fake.failures["chat.postMessage"] = _Refusals(fake, refused)
    conn.send(fake.api_url)
    while True:
        cmd, arg = conn.recv()
        if cmd == "add_file":
            conn.send(fake.add_file(FakeFile(**arg)))
        elif cmd == "fail":  # the next `times` calls of `method` are answered `status`
            fake.fail(arg["method"], arg["status"], times=arg["times"], retry_after=arg.get("retry_after"))
            conn.send("ok")
        elif cmd == "calls":
            with fake.lock:
                calls = list(fake.calls)
                gone = set(refused)
            conn.send([
                (c.method, c.params.get("channel"), c.params.get("thread_ts"), c.params.get("timestamp"),
                 c.params.get("name"), _classify(c) if c.method == "chat.postMessage" else "", c.at, i in gone)
                for i, c in enumerate(calls)
            ])  # fmt: skip
        elif cmd == "stop":
            fake.stop()
            conn.send("stopped")
            return


class Stand:
    """The parent's handle on the stand-in process."""

    def __init__(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=fake_slack_process, args=(child,), daemon=True)
        self.proc.start()
        self.api_url = self.conn.recv()
        self.lock = threading.Lock()

    def ask(self, cmd: str, arg: Any = None) -> Any:
        with self.lock:
            self.conn.send((cmd, arg))
            return self.conn.recv()

    def stop(self) -> None:
        try:
            self.ask("stop")
        finally:
            self.proc.join(5)
            if self.proc.is_alive():
                self.proc.kill()


# --- the load -----------------------------------------------------------------------------

@dataclass
class Sent:
    kind: str
    team: str
    channel: str
    ts: str  # the message ts (threads) or ""
    thread: str  # the thread a reply should land in, or ""
    replica: int
    scheduled: float
    sent_at: float = 0.0  # time.time() when the request went out
    lag_s: float = 0.0  # how late the generator sent it (open loop: should stay near 0)
    ack_s: float | None = None
    status: int | None = None
    error: str | None = None
    body_text: str = ""
    expects_thread: str | None = None  # follow-ups: the thread they ask in


@dataclass
class Plan:
    """What the generator sends, decided up front from a seeded RNG."""

    rate: float
    seconds: float
    teams: int
    seed: int
    items: list[tuple[float, Sent, bytes, str, dict[str, str]]] = field(default_factory=list)


def _event_body(team: str, event: dict[str, Any], event_id: str) -> bytes:
    return json.dumps({
        "token": "legacy", "team_id": team, "api_app_id": "A0DENPEX", "type": "event_callback",
        "event_id": event_id, "event_time": int(time.time()), "event": event,
        "authorizations": [{"team_id": team, "user_id": "UBOT0001", "is_bot": True}],
    }).encode()  # fmt: skip


def _message(team: str, channel: str, user: str, text: str, ts: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "channel": channel, "user": user, "text": text, "ts": ts,
            "channel_type": "channel", "team": team, **extra}


def build_plan(args: argparse.Namespace, stand: Stand) -> Plan:
    rng = random.Random(args.seed)
    plan = Plan(args.rate, args.seconds, args.teams, args.seed)
    total = int(args.rate * args.seconds)
    kinds, weights = zip(*KINDS.items(), strict=True)
    pastes: list[tuple[float, Sent, bytes]] = []
    paste_times: list[float] = []
    upload_obj = stand.ask("add_file", {"id": "FLOAD0001", "name": "train.log", "content": SAMPLE.encode()})
    base_ts = 1_800_000_000
    for i in range(total):
        at = i / args.rate
        kind = rng.choices(kinds, weights)[0]
        t = rng.randrange(args.teams)
        team, channel, user = f"TLOAD{t:03d}", f"CLOAD{t:03d}", f"U{i:07d}"
        ts = f"{base_ts + i}.{i % 1_000_000:06d}"
        replica = i % 2
        headers: dict[str, str] = {}
        ctype = "application/json"
        sent = Sent(kind, team, channel, ts, "", replica, at)
        if kind == "retry" and pastes:
            # Slack re-sends an event it thinks was not acked: same body, to the other replica.
            _, p_sent, p_body = pastes[rng.randrange(max(0, len(pastes) - 50), len(pastes))]
            sent = Sent("retry", p_sent.team, p_sent.channel, p_sent.ts, "", 1 - p_sent.replica, at)
            body = p_body
            headers = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
        elif kind == "followup" and (ready := bisect.bisect_right(paste_times, at - 3)):
            # A question in the thread of a log pasted at least 3 s before (answered by then).
            _, p_sent, _ = pastes[rng.randrange(max(0, ready - 300), ready)]
            ev = _message(p_sent.team, p_sent.channel, user, "how do I confirm this?", ts, thread_ts=p_sent.ts)
            body = _event_body(p_sent.team, ev, f"EvL{i:08d}")
            sent = Sent("followup", p_sent.team, p_sent.channel, ts, p_sent.ts, replica, at, expects_thread=p_sent.ts)
        elif kind in ("paste", "retry", "followup"):
            kind = "paste"
            body = _event_body(team, _message(team, channel, user, SAMPLE, ts), f"EvL{i:08d}")
            sent = Sent("paste", team, channel, ts, ts, replica, at)
            pastes.append((at, sent, body))
            paste_times.append(at)
        elif kind == "chatter":
            body = _event_body(team, _message(team, channel, user, f"standup at {i % 12 + 1} o'clock, bring snacks", ts), f"EvL{i:08d}")
        elif kind == "ignored":
            event = rng.choice([
                {"type": "reaction_added", "user": user, "reaction": "eyes", "item": {"type": "message", "channel": channel, "ts": ts}},
                {**_message(team, channel, user, "edited", ts), "subtype": "message_changed"},
                {"type": "member_joined_channel", "user": user, "channel": channel},
            ])  # fmt: skip
            body = _event_body(team, event, f"EvL{i:08d}")
        elif kind == "command":
            form = {"token": "legacy", "team_id": team, "team_domain": "load", "channel_id": channel, "channel_name": "load",
                    "user_id": user, "user_name": "u", "command": "/denpex", "text": "quota", "api_app_id": "A0DENPEX",
                    "response_url": "http://127.0.0.1:9/unused", "trigger_id": f"{i}.1.2"}  # fmt: skip
            from urllib.parse import urlencode

            body, ctype = urlencode(form).encode(), "application/x-www-form-urlencoded"
        elif kind == "home":
            body = _event_body(team, {"type": "app_home_opened", "user": user, "channel": f"D{i:07d}", "tab": "home"}, f"EvL{i:08d}")
        else:  # upload
            ev = _message(team, channel, user, "", ts, subtype="file_share", files=[upload_obj])
            body = _event_body(team, ev, f"EvL{i:08d}")
            sent = Sent("upload", team, channel, ts, ts, replica, at)
        sent.kind = kind
        plan.items.append((at, sent, body, ctype, headers))
    return plan


def run_load(plan: Plan, urls: list[str], workers: int) -> list[Sent]:
    """Send every planned request at its time (open loop); return them with their outcomes."""
    work: queue.Queue = queue.Queue()
    done: list[Sent] = []
    done_lock = threading.Lock()
    hosts = [u.removeprefix("http://").split(":") for u in urls]

    def worker() -> None:
        conns: dict[int, http.client.HTTPConnection] = {}
        while True:
            item = work.get()
            if item is None:
                return
            sent, body, ctype, extra = item
            h = {"Content-Type": ctype, **sign(body), **extra}
            for attempt in range(2):
                conn = conns.get(sent.replica)
                if conn is None:
                    host, port = hosts[sent.replica]
                    conn = conns[sent.replica] = http.client.HTTPConnection(host, int(port), timeout=30)
                try:
                    sent.sent_at = time.time()
                    t0 = time.perf_counter()
                    sent.lag_s = t0 - sent.scheduled
                    conn.request("POST", "/slack/events", body=body, headers=h)
                    resp = conn.getresponse()
                    payload = resp.read()
                    sent.ack_s = time.perf_counter() - t0
                    sent.status = resp.status
                    if sent.kind == "command":
                        sent.body_text = payload.decode("utf-8", "replace")[:300]
                    break
                except (OSError, http.client.HTTPException) as exc:
                    conn.close()
                    conns.pop(sent.replica, None)
                    if attempt:  # a kept-alive connection the server closed: retried once
                        sent.error = f"{type(exc).__name__}: {exc}"
            with done_lock:
                done.append(sent)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    start = time.perf_counter()
    for at, sent, body, ctype, headers in plan.items:
        delay = start + at - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        sent.scheduled = start + at
        work.put((sent, body, ctype, headers))
    for _ in threads:
        work.put(None)
    for t in threads:
        t.join(60)
    return done


def drain(stand: Stand) -> list[tuple]:
    """Wait until the bots have been quiet for a while (bounded); the stand-in's call record."""
    deadline = time.monotonic() + DRAIN_MAX_S
    last_n, quiet_since = -1, time.monotonic()
    while time.monotonic() < deadline:
        calls = stand.ask("calls")
        if len(calls) != last_n:
            last_n, quiet_since = len(calls), time.monotonic()
        elif time.monotonic() - quiet_since >= DRAIN_QUIET_S:
            return calls
        time.sleep(0.5)
    return stand.ask("calls")


# --- faults --------------------------------------------------------------------------------

THROTTLED_POSTS = 40  # posts answered 429 (Retry-After: 1) in the burst


@dataclass
class Faults:
    """What was broken when (time.time() stamps), filled in by the fault thread."""

    victim: int = 0  # port of the killed primary
    heir: int = 0  # its replica, promoted
    victim_teams: set[str] = field(default_factory=set)
    killed_at: float = 0.0
    promoted_at: float = 0.0
    rejoined_at: float = 0.0  # the killed node back, as a replica
    replica_restarted: int = 0
    replica_back_at: float = 0.0
    throttled_at: float = 0.0
    log: list[str] = field(default_factory=list)


def _team_slot(team: str) -> int:
    from redis.crc import key_slot

    from bot.store import keys

    return key_slot(keys.plan(team).encode())


def run_faults(cluster: LocalCluster, stand: Stand, teams: list[str], seconds: float, t0: float, faults: Faults) -> None:
    """Break things at fixed points of the run (fractions of `seconds` after wall time t0)."""

    def at(fraction: float) -> None:
        delay = t0 + fraction * seconds - time.time()
        if delay > 0:
            time.sleep(delay)

    def note(what: str) -> None:
        faults.log.append(f"{time.time() - t0:5.1f} s: {what}")

    by_primary: dict[int, set[str]] = defaultdict(set)
    for team in teams:
        by_primary[cluster.primary_of_slot(_team_slot(team)).port].add(team)
    victim_port = max(by_primary, key=lambda port: len(by_primary[port]))
    victim = cluster.node(victim_port)
    heir = cluster.replica_of(victim)
    faults.victim, faults.heir, faults.victim_teams = victim.port, heir.port, by_primary[victim_port]

    at(0.25)
    victim.kill()
    faults.killed_at = time.time()
    note(f"SIGKILL primary :{victim.port} ({len(faults.victim_teams)} of {len(teams)} workspaces' slots)")
    while time.time() - faults.killed_at < 60:
        try:
            info = cluster.topology().get(heir.port, {})
        except RuntimeError:
            info = {}
        if info.get("role") == "primary" and info.get("slots"):
            faults.promoted_at = time.time()
            note(f"replica :{heir.port} promoted, {faults.promoted_at - faults.killed_at:.2f} s after the kill")
            break
        time.sleep(0.02)
    at(0.40)
    stand.ask("fail", {"method": "chat.postMessage", "status": 429, "times": THROTTLED_POSTS, "retry_after": 1})
    faults.throttled_at = time.time()
    note(f"Slack stand-in answers the next {THROTTLED_POSTS} posts with 429, Retry-After: 1")
    at(0.50)
    victim.start()
    cluster.wait_ready(timeout=60)
    faults.rejoined_at = time.time()
    note(f"killed node :{victim.port} restarted; rejoined as a replica of :{heir.port}")
    at(0.70)
    other = next(n for n in cluster.nodes
                 if n.port not in (victim.port, heir.port) and cluster.topology()[n.port]["role"] == "replica")  # fmt: skip
    other.stop()
    faults.replica_restarted = other.port
    note(f"replica :{other.port} stopped (SIGTERM)")
    time.sleep(1.0)
    other.start()
    cluster.wait_ready(timeout=60)
    faults.replica_back_at = time.time()
    note(f"replica :{other.port} restarted and in sync")


# --- accounting ----------------------------------------------------------------------------

def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def account(sent: list[Sent], calls: list[tuple], charged: dict[str, int], bot_logs: list[Path],
            faults: Faults | None = None) -> dict[str, Any]:
    posts: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    refused = 0
    for method, channel, thread_ts, _ts, _name, kind, at, was_refused in calls:
        if method == "chat.postMessage":
            if was_refused:  # answered 429: nothing was posted
                refused += 1
                continue
            posts[(channel, thread_ts)].append((kind, at))
    by_kind = Counter(s.kind for s in sent)
    threads = [s for s in sent if s.kind in ("paste", "upload")]
    followups = Counter((s.channel, s.expects_thread) for s in sent if s.kind == "followup")
    exactly_once = lost = doubled = lost_followups = 0
    reply_s: list[float] = []
    odd: list[str] = []  # what went wrong with each log not answered exactly once
    for s in threads:
        got = posts.get((s.channel, s.ts), [])
        replies = sorted((p for p in got if p[0] != "other"), key=lambda p: p[1])
        # The diagnosis (or quota, or "unavailable" message) itself; a later "unavailable" in
        # a diagnosed thread answers a follow-up asked while Redis was away.
        diagnosed = any(k == "diagnosis" for k, _ in got)
        primary = replies[:1] + [p for p in replies[1:] if not (diagnosed and p[0] == "unavailable")]
        answers = [p for p in got if p[0] == "other"] + [p for p in replies[1:] if diagnosed and p[0] == "unavailable"]
        want_answers = followups.get((s.channel, s.ts), 0) if diagnosed else 0
        if len(primary) == 1 and len(answers) == want_answers:
            exactly_once += 1
        else:
            if not primary:
                verdict = "lost"
                lost += 1
            elif len(primary) > 1 or len(answers) > want_answers:
                verdict = "doubled"
                doubled += 1
            else:  # the log was answered once, a follow-up in its thread was not
                verdict = "follow-up unanswered"
                lost_followups += 1
            since = f"{s.sent_at - faults.killed_at:+.2f} s from the kill" if faults else ""
            odd.append(f"{verdict}: {s.kind} {s.team} {s.channel} {s.ts} sent {since} via replica {s.replica}, "
                       f"status {s.status}; posts {[k for k, _ in got]}, follow-ups asked {want_answers}")  # fmt: skip
        if primary:
            reply_s.append(min(at for _, at in primary) - s.sent_at)
    answered_followups = sum(len([p for p in posts.get((s.channel, s.ts), []) if p[0] == "other"]) for s in threads)
    followups_unavailable = sum(
        len([p for p in posts.get((s.channel, s.ts), []) if p[0] == "unavailable"]) for s in threads
        if any(k == "diagnosis" for k, _ in posts.get((s.channel, s.ts), [])))  # fmt: skip
    expected_followups = sum(n for (ch, th), n in followups.items()
                             if any(k == "diagnosis" for k, _ in posts.get((ch, th), [])))  # fmt: skip
    thread_keys = {(s.channel, s.ts) for s in threads}
    stray = sum(len(v) for k, v in posts.items() if k not in thread_keys)
    diagnoses_by_team: Counter[str] = Counter()
    for s in threads:
        if any(k == "diagnosis" for k, _ in posts.get((s.channel, s.ts), [])):
            diagnoses_by_team[s.team] += 1
    teams = sorted({s.team for s in sent})
    quota_exact = sum(1 for t in teams if charged.get(t, 0) == diagnoses_by_team.get(t, 0))
    acks = [s.ack_s for s in sent if s.ack_s is not None]
    # As Slack would see it: from when the request was due (any queueing here included).
    slack_acks = [s.lag_s + s.ack_s for s in sent if s.ack_s is not None]
    lags = [s.lag_s for s in sent if s.sent_at]
    non_2xx = Counter(s.status for s in sent if s.status is not None and not 200 <= s.status < 300)
    transport = Counter(s.error.split(":")[0] for s in sent if s.error)
    commands_ok = sum(1 for s in sent if s.kind == "command" and s.status == 200 and " of " in s.body_text)
    homes = sum(1 for c in calls if c[0] == "views.publish")
    tracebacks = sum(p.read_text(errors="replace").count("Traceback") for p in bot_logs if p.exists())
    kinds = Counter(k for v in posts.values() for k, _ in v)
    window = _failover(sent, posts, threads, charged, diagnoses_by_team, faults) if faults else {}
    return {
        "refused_posts": refused, "window": window, "odd": odd, "followups_unavailable": followups_unavailable,
        "stray": [f"{k}: {[kind for kind, _ in v]}" for k, v in posts.items() if k not in thread_keys],
        "stray_kinds": Counter(kind for k, v in posts.items() if k not in thread_keys for kind, _ in v),
        "sent": len(sent), "by_kind": by_kind, "acks": acks, "slack_acks": slack_acks,
        "ack_over_3s": sum(a > ACK_LIMIT_S for a in slack_acks),
        "reply_s": reply_s, "threads": len(threads), "exactly_once": exactly_once, "lost": lost, "doubled": doubled,
        "lost_followups": lost_followups,
        "followups_expected": expected_followups, "followups_answered": answered_followups, "stray_posts": stray,
        "diagnoses": sum(diagnoses_by_team.values()), "charged": sum(charged.values()), "teams": len(teams),
        "quota_exact_teams": quota_exact, "non_2xx": non_2xx, "transport": transport, "commands_ok": commands_ok,
        "homes_expected": by_kind.get("home", 0), "homes_published": homes, "tracebacks": tracebacks,
        "post_kinds": kinds, "lags": lags,
    }  # fmt: skip


def _failover(sent: list[Sent], posts: dict[tuple[str, str], list[tuple[str, float]]], threads: list[Sent],
              charged: dict[str, int], diagnoses: Counter[str], faults: Faults) -> dict[str, Any]:
    """What the killed primary cost: who waited, who was told "unavailable", and when."""
    start, end = faults.killed_at, faults.promoted_at or faults.killed_at
    during = [s for s in sent if s.sent_at and start <= s.sent_at <= end and s.ack_s is not None]
    victims = [s for s in during if s.team in faults.victim_teams]
    others = [s for s in during if s.team not in faults.victim_teams]
    unavailable = [(s, at) for s in threads for kind, at in posts.get((s.channel, s.ts), []) if kind == "unavailable"]
    first_ok = min((at for s in threads if s.team in faults.victim_teams and s.sent_at > start
                    for kind, at in posts.get((s.channel, s.ts), []) if kind == "diagnosis"), default=0.0)  # fmt: skip
    off = {t: charged.get(t, 0) - diagnoses.get(t, 0) for t in faults.victim_teams | set(charged)}
    return {
        "window_s": end - start if faults.promoted_at else float("nan"),
        "victim_acks": [s.ack_s for s in victims], "other_acks": [s.ack_s for s in others],
        "victim_requests": len(victims),
        "unavailable": len(unavailable),
        "unavailable_sent": [s.sent_at - start for s, _ in unavailable],
        "first_diagnosis_after_kill_s": first_ok - start if first_ok else float("nan"),
        "quota_off": {t: d for t, d in off.items() if d},
    }


def _unavailable_text() -> str:
    from bot.slack.blocks import unavailable_message

    return unavailable_message()[0]


def table(r: dict[str, Any], args: argparse.Namespace, wall_s: float) -> list[str]:
    ms = lambda v: f"{v * 1000:.0f} ms"  # noqa: E731
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(r["by_kind"].items(), key=lambda kv: -kv[1]))
    post_kinds = ", ".join(f"{k} {n}" for k, n in sorted(r["post_kinds"].items(), key=lambda kv: -kv[1]))
    errors = dict(r["non_2xx"]) or "none"
    transport = dict(r["transport"]) or "none"
    rows = [
        ("requests sent", f"{r['sent']:,} in {wall_s:.1f} s ({r['sent'] / max(wall_s, 1e-9):.0f}/s; target {args.rate:g}/s): {kinds}"),
        ("generator lag p50 / p99", f"{ms(pct(r['lags'], 50))} / {ms(pct(r['lags'], 99))} (how late requests left; near 0 = the rate was really offered)"),
        ("ack latency p50 / p99 / max", f"{ms(pct(r['acks'], 50))} / {ms(pct(r['acks'], 99))} / {ms(max(r['acks'], default=0))} (request sent to response)"),
        ("ack as Slack sees it p50 / p99 / max", f"{ms(pct(r['slack_acks'], 50))} / {ms(pct(r['slack_acks'], 99))} / {ms(max(r['slack_acks'], default=0))} (from when it was due, queueing included); over 3 s: {r['ack_over_3s']}"),
        ("time to reply p50 / p99 / max", f"{ms(pct(r['reply_s'], 50))} / {ms(pct(r['reply_s'], 99))} / {ms(max(r['reply_s'], default=0))} (logs and uploads, send to post)"),
        ("logs answered exactly once", f"{r['exactly_once']:,} of {r['threads']:,} (no reply {r['lost']}, doubled {r['doubled']}, "
                                       f"answered once but a follow-up in the thread was not {r['lost_followups']})"),
        ("follow-ups answered", f"{r['followups_answered']:,} of {r['followups_expected']:,} asked in diagnosed threads"
                                + (f", {r['followups_unavailable']} more told \"temporarily unavailable\"" if r["followups_unavailable"] else "")),
        ("posts where none was due", f"{r['stray_posts']} (chatter, re-sends, ignored events)"
                                     + (f": {', '.join(f'{k} {n}' for k, n in r['stray_kinds'].items())}" if r["stray_posts"] else "")),
        ("quota", f"{r['charged']:,} charged = {r['diagnoses']:,} diagnoses posted: exact in {r['quota_exact_teams']} of {r['teams']} workspaces"),
        ("what was posted", post_kinds),
        ("/denpex quota answered", f"{r['commands_ok']} of {r['by_kind'].get('command', 0)}"),
        ("App Home published", f"{r['homes_published']} of {r['homes_expected']}"),
        ("errors", f"non-2xx acks: {errors}; transport: {transport}; tracebacks in bot logs: {r['tracebacks']}"),
    ]  # fmt: skip
    w = r["window"]
    if w:
        sent_at = w["unavailable_sent"]
        told = (f"{w['unavailable']} logs, sent {min(sent_at):.1f} s to {max(sent_at):.1f} s after the kill"
                if sent_at else "none")  # fmt: skip
        rows += [
            ("failover window", f"{w['window_s']:.2f} s from SIGKILL of the primary to its replica serving the slots; "
                                f"first diagnosis for one of its workspaces {w['first_diagnosis_after_kill_s']:.2f} s after the kill"),
            ("acks in the window p50 / p99 / max", f"its workspaces ({w['victim_requests']} requests): {ms(pct(w['victim_acks'], 50))} / "
                                                   f"{ms(pct(w['victim_acks'], 99))} / {ms(max(w['victim_acks'], default=0))}; "
                                                   f"others: {ms(pct(w['other_acks'], 50))} / {ms(pct(w['other_acks'], 99))} / "
                                                   f"{ms(max(w['other_acks'], default=0))}"),
            ("told \"temporarily unavailable\"", f"{told}: “{_unavailable_text()}”"),
            ("Slack 429s", f"{r['refused_posts']} posts answered 429 (Retry-After: 1) and retried by the bot"),
            ("charges off by workspace", ", ".join(f"{t} {d:+d}" for t, d in sorted(w["quota_off"].items())) or "none"),
        ]  # fmt: skip
    out = ["| measure | result |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in rows]
    return out


def machine() -> str:
    cpus = os.cpu_count()
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"Python {platform.python_version()}, {platform.system()} {platform.release()}, {cpus} CPU(s) {model}".strip()


def write_results(path: Path, lines: list[str]) -> None:
    """Replace this script's section of RESULTS.md (between its markers), or append it."""
    section = "\n".join([RESULTS_BEGIN, *lines, RESULTS_END])
    text = path.read_text() if path.exists() else ""
    if RESULTS_BEGIN in text and RESULTS_END in text:
        head, rest = text.split(RESULTS_BEGIN, 1)
        _, tail = rest.split(RESULTS_END, 1)
        text = head + section + tail
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section + "\n"
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help=f"how long to send (max {MAX_SECONDS})")
    ap.add_argument("--rate", type=float, default=200.0, help=f"requests a second (max {MAX_RATE})")
    ap.add_argument("--teams", type=int, default=20, help="workspaces the load is spread over")
    ap.add_argument("--daily-limit", type=int, default=0, help="diagnoses a day per workspace (default: ~75%% of what each gets, so some hit it)")
    # Each sending thread keeps one connection open to each replica, and waitress accepts
    # 100 at a time: more threads than that wait for a connection, not for the bot.
    ap.add_argument("--workers", type=int, default=96, help="sending threads (at most ~100: waitress's connection limit)")
    ap.add_argument("--redis", choices=("cluster", "single"), default="cluster",
                    help="a Redis Cluster of 3 primaries + 3 replicas (default), or one redis-server")
    ap.add_argument("--no-faults", action="store_true", help="kill nothing, throttle nothing")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--results", default=str(ROOT / "bench" / "RESULTS.md"))
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    if not 0 < args.seconds <= MAX_SECONDS or not 0 < args.rate <= MAX_RATE or args.teams < 1:
        ap.error(f"--seconds in (0, {MAX_SECONDS}], --rate in (0, {MAX_RATE}], --teams >= 1")
    if not os.path.exists(REDIS_SERVER):
        ap.error("redis-server is not installed (apt-get install redis-server)")
    with_faults = args.redis == "cluster" and not args.no_faults
    per_team = args.rate * args.seconds * (KINDS["paste"] + KINDS["upload"]) / sum(KINDS.values()) / args.teams
    limit = args.daily_limit or max(1, int(per_team * 0.75))

    from bot.store import Store, StoreConfig

    load_before = os.getloadavg()[0]
    workdir = Path(tempfile.mkdtemp(prefix="denpex-load-"))
    cluster = LocalCluster(workdir) if args.redis == "cluster" else None
    redis_server = None if cluster else PrivateRedis(workdir)
    stand: Stand | None = None
    bots = []
    faults = Faults() if with_faults else None
    breaker: threading.Thread | None = None
    try:
        if cluster:
            cluster.start()
            redis_url = cluster.url
        else:
            redis_server.start()  # type: ignore[union-attr]
            redis_url = redis_server.url  # type: ignore[union-attr]
        stand = Stand()
        # Production timeouts (the test harness's own are short, for fault tests).
        env = {"DENPEX_FREE_DAILY": str(limit), "DENPEX_DOWNLOAD_TIMEOUT_S": "20"}
        bots = [start_bot(stand, redis_url, env) for _ in range(2)]  # type: ignore[arg-type]
        plan = build_plan(args, stand)
        print(f"{len(plan.items):,} requests over {args.seconds:g} s to 2 replicas; {args.teams} workspaces, "
              f"free plan {limit} diagnoses/day each; Redis: {args.redis}{', with faults' if faults else ''}", flush=True)  # fmt: skip
        if faults is not None and cluster is not None:
            teams = sorted({s.team for _, s, *_ in plan.items})
            breaker = threading.Thread(target=run_faults, args=(cluster, stand, teams, args.seconds, time.time(), faults),
                                       daemon=True)  # fmt: skip
            breaker.start()
        t0 = time.perf_counter()
        sent = run_load(plan, [b.url for b in bots], args.workers)
        wall = time.perf_counter() - t0
        if breaker is not None:
            breaker.join(120)
        calls = drain(stand)
        with Store(StoreConfig(url=redis_url, retry_window_s=10)) as store:
            charged = {t: store.quotas.status(t).used for t in {s.team for s in sent}}
        result = account(sent, calls, charged, [b.log_path for b in bots], faults)  # type: ignore[attr-defined]
    finally:
        for b in bots:
            stop_bot(b)
        if stand is not None:
            stand.stop()
        if cluster:
            cluster.stop()
        if redis_server:
            redis_server.stop()
        shutil.rmtree(workdir, ignore_errors=True)  # the nodes' configs and logs
    load_after = os.getloadavg()[0]
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = f"python bench/load.py --seconds {args.seconds:g} --rate {args.rate:g}" + (
        " --redis single" if args.redis == "single" else "") + (" --no-faults" if args.no_faults else "")  # fmt: skip
    where = ("a Redis Cluster of three primaries and three replicas (cluster-node-timeout 1 s, "
             "cluster-require-full-coverage no; REDIS_URL=redis+cluster://...)") if cluster else "one redis-server"  # fmt: skip
    lines = [
        "## Slack bot under load (bench/load.py)",
        "",
        f"`{command}` on {when}; {machine()};",
        f"load average {load_before:.1f} when it started and {load_after:.1f} when it ended (other work on the machine",
        "competes for the cores; the generator lag row shows how much the load generator itself was starved).",
        f"Two bot replicas (`denpex serve --http`, waitress) on {where}, the Slack stand-in in its own",
        f"process, the load generator in a third: all on one machine, loopback. {args.teams} workspaces on a",
        f"free plan of {limit} diagnoses a day each, so some run out mid-test. Each pasted log is the 60-line",
        "8-rank sample (6 KB); a re-send is the same event (same `event_id`) sent to the other replica.",
        "",
    ]  # fmt: skip
    if faults is not None:
        lines += ["Faults during the run (seconds after the first request):", "",
                  *[f"- {entry}" for entry in faults.log], ""]  # fmt: skip
    lines += [*table(result, args, wall), ""]
    print("\n".join(lines))
    for line in [*result["odd"], *(f"stray post: {x}" for x in result["stray"])]:
        print(line)
    if not args.no_write:
        write_results(Path(args.results), lines)
        print(f"wrote {args.results}")
    bad = result["lost"] or result["doubled"] or result["lost_followups"] or result["stray_posts"] or result["quota_exact_teams"] != result["teams"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
