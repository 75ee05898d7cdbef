"""Build small, valid rulebooks in a temp folder, so matcher behaviour is tested apart from the KB."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bot.matcher import Matcher, load_rulebook

ANSWERS = (
    "hardware_or_software", "fix_time", "inference_impact", "cheapest_check", "next_checks",
    "recurrence", "monitor", "scale", "docs",
)  # fmt: skip


def rule_doc(rule_id: str, category: str, match: dict[str, Any], related: list[str], **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": rule_id,
        "title": f"Title of {rule_id}",
        "category": category,
        "severity": "high",
        "tags": ["test"],
        "systems": ["tests"],
        "summary": f"Summary of {rule_id}.",
        "root_cause": f"Root cause of {rule_id}.",
        "mechanism": "Mechanism.",
        "symptoms": [{"line": "a line", "means": "a meaning"}],
        "fix": {"summary": "Do the thing.", "env": {"FIX_VAR": "1"}, "commands": "run --fixed"},
        "verify": {"command": "verify-it", "expect": "it works"},
        "confirm": ["check one"],
        "answers": {k: f"{k} answer for {rule_id}" for k in ANSWERS},
        "code": {"pytorch": "torch.fix()"},
        "related": related,
        "references": [{"title": "docs", "url": "https://example.org/docs"}],
        "match": match,
        "examples": {
            "match": [{"name": "one", "log": "x\n"}, {"name": "two", "log": "y\n"}],
            "near_miss": [{"name": "three", "log": "z\n", "why": "because"}],
        },
    }
    doc.update(extra)
    return doc


def write_rules(tmp: Path, docs: list[dict[str, Any]]) -> Path:
    for doc in docs:
        folder = tmp / doc["category"]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{doc['id']}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return tmp


def sig(name: str, pattern: str, weight: float, **kw: Any) -> dict[str, Any]:
    return {"name": name, "pattern": pattern, "weight": weight, **kw}


def standard_book(tmp: Path, prefilter: bool = True) -> Matcher:
    """Five rules that exercise roles: a specific cause, a consequence, a wrapper, a collateral."""
    docs = [
        rule_doc("oom", "memory", {
            "keywords": ["out of memory"],
            "signatures": [sig("oom", r"CUDA out of memory", 0.9)],
        }, ["timeout", "wrapper"]),
        rule_doc("blas", "gpu", {
            "keywords": ["cublas_status"],
            "signatures": [sig("blas", r"CUBLAS_STATUS_\w+", 0.85)],
            "collateral_of": ["oom"],
        }, ["oom", "timeout"]),
        rule_doc("timeout", "network", {
            "keywords": ["watchdog caught"],
            "signatures": [sig("wd", r"Watchdog caught collective operation timeout", 0.7)],
            "role": "consequence",
        }, ["oom", "wrapper"]),
        rule_doc("wrapper", "distributed", {
            "keywords": ["childfailederror"],
            "signatures": [sig("cfe", r"ChildFailedError", 0.6)],
            "role": "wrapper",
        }, ["oom", "timeout"]),
        rule_doc("generic", "code", {
            "keywords": ["something odd"],
            "signatures": [sig("odd", r"something odd happened", 0.3)],
        }, ["oom", "timeout"]),
    ]
    return Matcher(load_rulebook(write_rules(tmp, docs)), prefilter=prefilter)
