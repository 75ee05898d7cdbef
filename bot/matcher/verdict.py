"""From hits to a diagnosis: which rule is the root cause, which are collateral, which rank began.

The order of decisions follows how an on-call engineer reads a multi-rank log:
1. A rule whose `collateral_of` names another rule that fired is a consequence of it
   (a cuBLAS failure right after an OOM is the OOM).
2. Consequences (watchdog timeouts, peers closing sockets) and wrappers (`ChildFailedError`)
   never win over a specific cause present in the same log.
3. Among the remaining candidates: the more certain first, then the first to happen.
4. The initiating rank is where the root cause happened first: by timestamp, else by the
   rank torchelastic names as the first observed failure, else by line order. When only
   consequences fired (every rank timed out), it is the rank the timeouts point at (torchelastic's
   first failure, the one rank missing from them, the lowest collective sequence number), or
   none: a rank that merely timed out like the others did not begin it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.matcher.model import Collateral, Confidence, Diagnosis, Evidence, Match, Stats
from bot.matcher.salient import LogFacts

if TYPE_CHECKING:
    from bot.matcher.engine import Hit, RuleHits

MAX_EVIDENCE = 5
EVIDENCE_CHARS = 500
_ROLE_ORDER = {"root": 0, "consequence": 1, "wrapper": 2}
_CONF_ORDER = {"high": 0, "medium": 1, "low": 2}


def confidence_of(score: float) -> Confidence:
    if score >= 0.8:
        return "high"
    if score >= 0.5:
        return "medium"
    return "low"


def _first(hits: list[Hit]) -> Hit:
    """The earliest hit: by timestamp when all carry one of one kind, else by line."""
    kinds = {h.ts_kind for h in hits}
    if len(kinds) == 1 and None not in kinds:
        return min(hits, key=lambda h: (h.ts_value, h.line))
    return min(hits, key=lambda h: h.line)


def _first_rank(rh: RuleHits) -> int | None:
    firsts = list(rh.first_by_rank.values())
    return _first(firsts).rank if firsts else None


def _initiating_rank(root: RuleHits, facts: LogFacts, all_hits: list[RuleHits]) -> int | None:
    ranks = set(root.first_by_rank)
    firsts = list(root.first_by_rank.values())
    timed = len({h.ts_kind for h in firsts}) == 1 and firsts[0].ts_kind is not None
    if root.rule.role == "root" and ranks:
        if timed or len(ranks) == 1:
            return _first_rank(root)
        if facts.elastic_rank in ranks:
            return facts.elastic_rank
        return _first_rank(root)
    # The root is itself a consequence or a wrapper: look for the rank that behaved differently.
    if facts.elastic_rank is not None:
        return facts.elastic_rank
    timeout_ranks = set()
    for rh in all_hits:
        if rh.rule.role == "consequence":
            timeout_ranks.update(rh.first_by_rank)
    known = facts.known_ranks() | timeout_ranks
    missing = known - timeout_ranks
    if len(timeout_ranks) >= 2 and len(missing) == 1:
        return missing.pop()
    seqs = facts.seq_by_rank
    if len(seqs) >= 2:
        low = min(seqs.values())
        lowest = [r for r, s in seqs.items() if s == low]
        if len(lowest) == 1 and len(set(seqs.values())) > 1:
            return lowest[0]
    # Every rank that shows up timed out (or was torn down) alike: the one that began it left no
    # trace here. The first such line in the log is a victim, not the initiator.
    return None


def _evidence(rh: RuleHits, prefer_rank: int | None) -> list[Evidence]:
    """A few lines that show the failure: every signature once, the initiating rank first."""
    chosen: list[Hit] = []
    seen_sig: set[str] = set()
    seen_text: set[str] = set()
    ordered = sorted(rh.hits, key=lambda h: (h.rank != prefer_rank, h.line))
    for pass_ in (0, 1):
        for h in ordered:
            if len(chosen) >= MAX_EVIDENCE:
                break
            key = h.text.strip()
            if key in seen_text or (pass_ == 0 and h.signature in seen_sig):
                continue
            seen_sig.add(h.signature)
            seen_text.add(key)
            chosen.append(h)
    chosen.sort(key=lambda h: h.line)
    return [
        Evidence(line=h.line, rank=h.rank, text=h.text[:EVIDENCE_CHARS], host=h.host, timestamp=h.ts_text)
        for h in chosen
    ]


def _match(rh: RuleHits, role: str, conf: Confidence, prefer_rank: int | None) -> Match:
    return Match(
        id=rh.rule.id,
        title=rh.rule.title,
        category=rh.rule.category,
        confidence=conf,
        score=rh.score,
        role=role,  # type: ignore[arg-type]
        ranks=sorted(rh.first_by_rank),
        evidence=_evidence(rh, prefer_rank),
        signatures=sorted(rh.signatures),
    )


def decide(rule_hits: list[RuleHits], facts: LogFacts, stats: Stats) -> Diagnosis:
    fired = [rh for rh in rule_hits if rh.score >= rh.rule.min_score]
    if not fired:
        return Diagnosis(
            matches=[], initiating_rank=None, collateral=[],
            unmatched=facts.salient_line(), stats=stats,
        )  # fmt: skip
    fired_ids = {rh.rule.id for rh in fired}
    collateral = {rh.rule.id for rh in fired if fired_ids.intersection(rh.rule.collateral_of)}
    specific = [rh for rh in fired if rh.rule.role == "root" and rh.rule.id not in collateral]
    if specific:
        collateral.update(rh.rule.id for rh in fired if rh.rule.role != "root")
    candidates = [rh for rh in fired if rh.rule.id not in collateral] or fired

    def rank_key(rh: RuleHits):
        first = _first(rh.hits)
        return (
            _ROLE_ORDER[rh.rule.role],
            _CONF_ORDER[confidence_of(rh.score)],
            first.ts_value if first.ts_value is not None else float("inf"),
            first.line,
            -rh.score,
        )

    # Timestamps of different formats do not compare: order by time only within one kind.
    kinds = {_first(rh.hits).ts_kind for rh in candidates}
    if len(kinds) != 1 or None in kinds:
        def rank_key(rh: RuleHits):
            return (_ROLE_ORDER[rh.rule.role], _CONF_ORDER[confidence_of(rh.score)], _first(rh.hits).line, -rh.score)

    candidates.sort(key=rank_key)
    root = candidates[0]
    init_rank = _initiating_rank(root, facts, fired)
    root_conf = confidence_of(root.score)
    if root.rule.role != "root" and root_conf == "high":
        # Only a consequence or a wrapper fired: the class is right, the cause may be elsewhere.
        root_conf = "medium"

    matches = [_match(root, "root", root_conf, init_rank)]
    others = [rh for rh in candidates[1:] if rh.rule.id not in collateral]
    for rh in others:
        matches.append(_match(rh, "root", confidence_of(rh.score), init_rank))
    coll = sorted(
        (rh for rh in fired if rh is not root and rh.rule.id in collateral), key=lambda rh: _first(rh.hits).line
    )
    for rh in coll:
        matches.append(_match(rh, "collateral", confidence_of(rh.score), init_rank))
    return Diagnosis(
        matches=matches,
        initiating_rank=init_rank,
        collateral=[Collateral(id=rh.rule.id, ranks=sorted(rh.first_by_rank)) for rh in coll],
        unmatched=None,
        stats=stats,
    )
