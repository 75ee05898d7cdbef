"""Rule files: loading, validation and the in-memory rulebook.

A rule file is `rules/<category>/<id>.yaml`; `rules/README.md` documents every field. Loading
validates everything it can check without running the matcher and reports each problem as
`<file>: <field>: <problem>`, all of them at once, so a rule author fixes a file in one pass.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex
import yaml

from bot.dbcache import read_memo, write_memo

CATEGORIES = (
    "network",
    "distributed",
    "hardware",
    "scheduler",
    "memory",
    "gpu",
    "environment",
    "checkpoint",
    "storage",
    "numerics",
    "code",
    "compiler",
    "config",
    "inference",
    "data",
)
SEVERITIES = ("critical", "high", "medium", "low")
ROLES = ("root", "consequence", "wrapper")
# The follow-up questions every entry answers (issue 2); the Slack bot maps questions to these.
ANSWER_KEYS = (
    "hardware_or_software",
    "fix_time",
    "inference_impact",
    "cheapest_check",
    "next_checks",
    "recurrence",
    "monitor",
    "scale",
    "docs",
)
STACKS = ("pytorch", "hf_trainer", "deepspeed", "megatron", "vllm", "lightning", "accelerate")

# libyaml's parser when PyYAML was built with it: the same documents, ten times faster
# (0.7 s -> 0.06 s for the knowledge base, most of a CLI run's start-up).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TOP_FIELDS = (
    "id", "title", "category", "severity", "tags", "systems", "summary", "root_cause",
    "mechanism", "symptoms", "fix", "verify", "confirm", "answers", "code", "related",
    "references", "falsepositives", "match", "examples",
)  # fmt: skip
_REQUIRED = set(_TOP_FIELDS) - {"falsepositives", "code"}


class RuleError(Exception):
    """One or more rule files are invalid; `problems` holds one `<file>: <field>: <problem>` each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


# Longest continuation window a signature may ask for: a wrapped message, not a paragraph.
MAX_SPAN = 3


@dataclass(frozen=True)
class Signature:
    name: str
    pattern: str
    weight: float
    unless_pattern: str | None = None
    keywords: tuple[str, ...] = ()  # lower-case literals; empty means the rule's keywords
    # The signature may span this many consecutive lines of one rank (a message a rich
    # traceback or a launcher wrapped): the pattern is searched on them joined by "\n".
    lines: int = 1

    # Compiled on first use: a log brings a few dozen of the ~800 signatures a candidate line,
    # and compiling them all cost every start 0.12 s. Whether each compiles was proved when the
    # rule files were loaded (load_rulebook), so first use cannot fail.
    @functools.cached_property
    def compiled(self) -> regex.Pattern[str]:
        return regex.compile(self.pattern)

    @functools.cached_property
    def unless(self) -> regex.Pattern[str] | None:
        return None if self.unless_pattern is None else regex.compile(self.unless_pattern)


@dataclass(frozen=True)
class Symptom:
    line: str
    means: str


@dataclass(frozen=True)
class Fix:
    summary: str
    steps: tuple[str, ...]
    env: dict[str, str]
    commands: str
    config: str


@dataclass(frozen=True)
class Verify:
    command: str
    expect: str


@dataclass(frozen=True)
class Reference:
    title: str
    url: str


@dataclass(frozen=True)
class Example:
    name: str
    log: str
    why: str = ""
    initiating_rank: int | None = None
    collateral: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    category: str
    severity: str
    tags: tuple[str, ...]
    systems: tuple[str, ...]
    summary: str
    root_cause: str
    mechanism: str
    symptoms: tuple[Symptom, ...]
    fix: Fix
    verify: Verify
    confirm: tuple[str, ...]
    answers: dict[str, str]
    code: dict[str, str]
    related: tuple[str, ...]
    references: tuple[Reference, ...]
    falsepositives: tuple[str, ...]
    keywords: tuple[str, ...]
    signatures: tuple[Signature, ...]
    role: str
    collateral_of: tuple[str, ...]
    min_score: float
    examples: tuple[Example, ...]
    near_misses: tuple[Example, ...]
    path: Path = field(compare=False)
    # The ranks that print it were waiting for ranks that never came (a store-based barrier
    # counting arrivals): they are not where the failure began.
    waiting: bool = False


@dataclass(frozen=True)
class Rulebook:
    rules: tuple[Rule, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {r.id: r for r in self.rules})

    def get(self, rule_id: str) -> Rule | None:
        return self._by_id.get(rule_id)  # type: ignore[attr-defined]

    def __iter__(self):
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.rules]


def default_rules_dir() -> Path:
    """`$DENPEX_RULES_DIR`, else the knowledge base the wheel carries (`bot/_rules`), else the
    `rules/` folder next to the `bot` package (a source checkout or an editable install)."""
    env = os.environ.get("DENPEX_RULES_DIR")
    if env:
        return Path(env)
    package = Path(__file__).resolve().parents[1]
    bundled = package / "_rules"
    if bundled.is_dir():
        return bundled
    return package.parent / "rules"


class _Checker:
    """Collects problems for one file instead of stopping at the first."""

    def __init__(self, path: Path, problems: list[str], compile_patterns: bool = True):
        self.path = path
        self.problems = problems
        self.compile = compile_patterns

    def fail(self, where: str, problem: str) -> None:
        self.problems.append(f"{self.path}: {where}: {problem}")

    def text(self, data: dict[str, Any], key: str, where: str = "", required: bool = True) -> str:
        value = data.get(key)
        name = f"{where}{key}"
        if value is None:
            if required:
                self.fail(name, "missing")
            return ""
        if not isinstance(value, str) or not value.strip():
            self.fail(name, "must be a non-empty string")
            return ""
        return value.strip()

    def strings(self, data: dict[str, Any], key: str, where: str = "", min_len: int = 1) -> tuple[str, ...]:
        value = data.get(key)
        name = f"{where}{key}"
        if value is None:
            if min_len:
                self.fail(name, "missing")
            return ()
        if not isinstance(value, list):
            self.fail(name, f"must be a list of strings, got {type(value).__name__}")
            return ()
        bad = [(i, v) for i, v in enumerate(value) if not (isinstance(v, str) and v.strip())]
        for i, v in bad:
            # YAML turns `503` into a number and `a: b` into a mapping: say which item and how.
            self.fail(f"{name}[{i}]", f"must be a non-empty string, got {type(v).__name__} {v!r} (quote it)")
        if bad:
            return ()
        if len(value) < min_len:
            self.fail(name, f"needs at least {min_len} item(s), has {len(value)}")
        return tuple(v.strip() for v in value)

    def mapping(self, data: dict[str, Any], key: str, where: str = "", required: bool = True) -> dict[str, Any]:
        value = data.get(key)
        name = f"{where}{key}"
        if value is None:
            if required:
                self.fail(name, "missing")
            return {}
        if not isinstance(value, dict):
            self.fail(name, "must be a mapping")
            return {}
        return value

    def pattern(self, pattern: Any, where: str) -> str | None:
        """The pattern, when it is a regex that compiles (compiled here only if `self.compile`:
        files proved before, unchanged, need not be again)."""
        if not isinstance(pattern, str) or not pattern:
            self.fail(where, "must be a non-empty regex string")
            return None
        if self.compile:
            try:
                regex.compile(pattern)
            except regex.error as exc:
                self.fail(where, f"does not compile: {exc}")
                return None
        return pattern


def _examples(ck: _Checker, raw: Any, where: str, min_len: int) -> tuple[Example, ...]:
    if not isinstance(raw, list):
        ck.fail(where, "must be a list of {name, log} items")
        return ()
    if len(raw) < min_len:
        ck.fail(where, f"needs at least {min_len} example(s), has {len(raw)}")
    out = []
    for i, item in enumerate(raw):
        w = f"{where}[{i}]."
        if not isinstance(item, dict):
            ck.fail(w.rstrip("."), "must be a mapping with name and log")
            continue
        unknown = set(item) - {"name", "log", "why", "initiating_rank", "collateral"}
        if unknown:
            ck.fail(w.rstrip("."), f"unknown field(s): {', '.join(sorted(unknown))}")
        rank = item.get("initiating_rank")
        if rank is not None and not isinstance(rank, int):
            ck.fail(f"{w}initiating_rank", "must be an integer")
            rank = None
        out.append(
            Example(
                name=ck.text(item, "name", w),
                log=ck.text(item, "log", w),
                why=ck.text(item, "why", w, required=False),
                initiating_rank=rank,
                collateral=ck.strings(item, "collateral", w, min_len=0),
            )
        )
    return tuple(out)


def _signatures(ck: _Checker, match: dict[str, Any]) -> tuple[Signature, ...]:
    raw = match.get("signatures")
    if not isinstance(raw, list) or not raw:
        ck.fail("match.signatures", "must be a non-empty list")
        return ()
    out, names = [], set()
    for i, item in enumerate(raw):
        w = f"match.signatures[{i}]"
        if not isinstance(item, dict):
            ck.fail(w, "must be a mapping with name, pattern, weight")
            continue
        unknown = set(item) - {"name", "pattern", "weight", "unless", "keywords", "lines"}
        if unknown:
            ck.fail(w, f"unknown field(s): {', '.join(sorted(unknown))}")
        name = ck.text(item, "name", w + ".")
        if name in names:
            ck.fail(f"{w}.name", f"duplicate signature name {name!r}")
        names.add(name)
        pattern = ck.pattern(item.get("pattern"), f"{w}.pattern")
        weight = item.get("weight")
        if not isinstance(weight, int | float) or not 0 < weight <= 1:
            ck.fail(f"{w}.weight", "must be a number in (0, 1]")
            weight = 0.0
        unless = None
        if item.get("unless") is not None:
            unless = ck.pattern(item["unless"], f"{w}.unless")
        keywords = ck.strings(item, "keywords", w + ".", min_len=0)
        span = item.get("lines", 1)
        if not isinstance(span, int) or isinstance(span, bool) or not 1 <= span <= MAX_SPAN:
            ck.fail(f"{w}.lines", f"must be an integer from 1 to {MAX_SPAN}")
            span = 1
        if pattern is not None:
            out.append(
                Signature(
                    name=name,
                    pattern=pattern,
                    weight=float(weight),
                    unless_pattern=unless,
                    keywords=tuple(k.lower() for k in keywords),
                    lines=span,
                )
            )
    return tuple(out)


def parse_rule(path: Path, data: Any, problems: list[str], *, compile_patterns: bool = True) -> Rule | None:
    """Validate one parsed YAML document; append problems; return the Rule when usable.
    `compile_patterns=False` trusts that its regexes compile (proved on an earlier load)."""
    ck = _Checker(path, problems, compile_patterns)
    before = len(problems)
    if not isinstance(data, dict):
        ck.fail("(file)", "must be a YAML mapping")
        return None
    unknown = set(data) - set(_TOP_FIELDS)
    if unknown:
        ck.fail("(file)", f"unknown field(s): {', '.join(sorted(unknown))}")
    for key in sorted(_REQUIRED - set(data)):
        ck.fail(key, "missing")

    rule_id = ck.text(data, "id")
    if rule_id and rule_id != path.stem:
        ck.fail("id", f"{rule_id!r} differs from the file name {path.stem!r}")
    if rule_id and not regex.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rule_id):
        ck.fail("id", "must be lower-case words joined by '-'")
    category = ck.text(data, "category")
    if category and category not in CATEGORIES:
        ck.fail("category", f"{category!r} is not one of {', '.join(CATEGORIES)}")
    if category and path.parent.name != category:
        ck.fail("category", f"{category!r} but the file lives in {path.parent.name}/")
    severity = ck.text(data, "severity")
    if severity and severity not in SEVERITIES:
        ck.fail("severity", f"{severity!r} is not one of {', '.join(SEVERITIES)}")

    symptoms = []
    for i, item in enumerate(data.get("symptoms") or []):
        if not isinstance(item, dict):
            ck.fail(f"symptoms[{i}]", "must be a mapping with line and means")
            continue
        symptoms.append(
            Symptom(ck.text(item, "line", f"symptoms[{i}]."), ck.text(item, "means", f"symptoms[{i}]."))
        )
    if "symptoms" in data and not symptoms:
        ck.fail("symptoms", "needs at least one {line, means} item")

    fix_raw = ck.mapping(data, "fix")
    fix = Fix(
        summary=ck.text(fix_raw, "summary", "fix."),
        steps=ck.strings(fix_raw, "steps", "fix.", min_len=0),
        env={str(k): str(v) for k, v in ck.mapping(fix_raw, "env", "fix.", required=False).items()},
        commands=ck.text(fix_raw, "commands", "fix.", required=False),
        config=ck.text(fix_raw, "config", "fix.", required=False),
    )
    if fix_raw and not (fix.env or fix.commands or fix.config or fix.steps):
        ck.fail("fix", "needs env, commands, config or steps: say exactly what to change")
    verify_raw = ck.mapping(data, "verify")
    verify = Verify(ck.text(verify_raw, "command", "verify."), ck.text(verify_raw, "expect", "verify."))

    answers_raw = ck.mapping(data, "answers")
    answers = {}
    for key in ANSWER_KEYS:
        answers[key] = ck.text(answers_raw, key, "answers.")
    for key in sorted(set(answers_raw) - set(ANSWER_KEYS)):
        ck.fail(f"answers.{key}", f"unknown question key (known: {', '.join(ANSWER_KEYS)})")

    code_raw = ck.mapping(data, "code", required=False)
    code = {}
    for key, value in code_raw.items():
        if key not in STACKS:
            ck.fail(f"code.{key}", f"unknown stack (known: {', '.join(STACKS)})")
        elif not isinstance(value, str) or not value.strip():
            ck.fail(f"code.{key}", "must be a non-empty string")
        else:
            code[key] = value.rstrip()

    references = []
    for i, item in enumerate(data.get("references") or []):
        if not isinstance(item, dict):
            ck.fail(f"references[{i}]", "must be a mapping with title and url")
            continue
        url = ck.text(item, "url", f"references[{i}].")
        if url and not url.startswith(("https://", "http://")):
            ck.fail(f"references[{i}].url", "must be an http(s) URL")
        references.append(Reference(ck.text(item, "title", f"references[{i}]."), url))
    if "references" in data and not references:
        ck.fail("references", "needs at least one {title, url} item")

    match = ck.mapping(data, "match")
    unknown = set(match) - {"keywords", "signatures", "role", "collateral_of", "min_score", "waiting"}
    if unknown:
        ck.fail("match", f"unknown field(s): {', '.join(sorted(unknown))}")
    keywords = ck.strings(match, "keywords", "match.")
    signatures = _signatures(ck, match) if match else ()
    role = match.get("role", "root")
    if role not in ROLES:
        ck.fail("match.role", f"{role!r} is not one of {', '.join(ROLES)}")
    min_score = match.get("min_score", 0.25)
    if not isinstance(min_score, int | float) or not 0 < min_score <= 1:
        ck.fail("match.min_score", "must be a number in (0, 1]")
        min_score = 0.25
    waiting = match.get("waiting", False)
    if not isinstance(waiting, bool):
        ck.fail("match.waiting", "must be true or false")
        waiting = False

    examples_raw = ck.mapping(data, "examples")
    unknown = set(examples_raw) - {"match", "near_miss"}
    if unknown:
        ck.fail("examples", f"unknown field(s): {', '.join(sorted(unknown))}")
    examples = _examples(ck, examples_raw.get("match", []), "examples.match", 2)
    near = _examples(ck, examples_raw.get("near_miss", []), "examples.near_miss", 1)

    if len(problems) > before:
        return None
    return Rule(
        id=rule_id,
        title=ck.text(data, "title"),
        category=category,
        severity=severity,
        tags=ck.strings(data, "tags"),
        systems=ck.strings(data, "systems"),
        summary=ck.text(data, "summary"),
        root_cause=ck.text(data, "root_cause"),
        mechanism=ck.text(data, "mechanism"),
        symptoms=tuple(symptoms),
        fix=fix,
        verify=verify,
        confirm=ck.strings(data, "confirm"),
        answers=answers,
        code=code,
        related=ck.strings(data, "related", min_len=2),
        references=tuple(references),
        falsepositives=ck.strings(data, "falsepositives", min_len=0),
        keywords=tuple(k.lower() for k in keywords),
        signatures=signatures,
        role=role,
        collateral_of=ck.strings(match, "collateral_of", "match.", min_len=0),
        min_score=float(min_score),
        examples=examples,
        near_misses=near,
        path=path,
        waiting=waiting,
    )


def _cross_check(rules: list[Rule], problems: list[str], warnings: list[str] | None) -> None:
    seen: dict[str, Path] = {}
    for rule in rules:
        if rule.id in seen:
            problems.append(f"{rule.path}: id: duplicate of {seen[rule.id]}")
        seen[rule.id] = rule.path
    # While the knowledge base is being written, references to entries not written yet may be
    # downgraded to warnings (`denpex rules lint --allow-missing`); CI never does that.
    missing = warnings if warnings is not None else problems
    for rule in rules:
        for rid in rule.related:
            if rid not in seen:
                missing.append(f"{rule.path}: related: unknown id {rid!r}")
            elif rid == rule.id:
                problems.append(f"{rule.path}: related: lists itself")
        for rid in rule.collateral_of:
            if rid not in seen:
                missing.append(f"{rule.path}: match.collateral_of: unknown id {rid!r}")
        for ex in rule.examples + rule.near_misses:
            for rid in ex.collateral:
                if rid not in seen:
                    missing.append(f"{rule.path}: examples {ex.name!r}: collateral: unknown id {rid!r}")


def rule_files(rules_dir: Path) -> list[Path]:
    return sorted(p for p in rules_dir.glob("*/*.yaml") if p.is_file())


def load_rulebook(
    rules_dir: Path | None = None,
    *,
    files: Iterable[Path] | None = None,
    warnings: list[str] | None = None,
    proved: bool = True,
) -> Rulebook:
    """Load and validate every rule; raise RuleError listing every problem found.

    With a `warnings` list, references to ids that do not exist go there instead of failing.
    A set of files loaded without a problem before, byte for byte, is read from the memo that
    load kept (bot/dbcache.py): its YAML is not parsed again nor its regexes compiled, which
    was most of a start. Every other check runs each time. `proved=False` (`denpex rules
    lint`) proves everything afresh.
    """
    rules_dir = rules_dir or default_rules_dir()
    if files is None:
        if not rules_dir.is_dir():
            raise RuleError([f"{rules_dir}: (dir): rules folder not found (set DENPEX_RULES_DIR)"])
        files = rule_files(rules_dir)
    problems: list[str] = []
    texts: list[tuple[Path, str]] = []
    for path in files:
        try:
            texts.append((path, path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"{path}: (file): cannot be read as YAML: {exc}".replace("\n", " "))
    memo = f"rules-{_content_key(texts)}"
    known = read_memo(memo) if proved and not problems else None
    if not isinstance(known, dict):
        known = None
    rules: list[Rule] = []
    documents: dict[str, Any] = {}
    for path, text in texts:
        if known is not None and str(path) in known:
            data = known[str(path)]
        else:
            try:
                data = yaml.load(text, Loader=_YAML_LOADER)
            except yaml.YAMLError as exc:
                problems.append(f"{path}: (file): cannot be read as YAML: {exc}".replace("\n", " "))
                continue
        documents[str(path)] = data
        rule = parse_rule(path, data, problems, compile_patterns=known is None)
        if rule is not None:
            rules.append(rule)
    _cross_check(rules, problems, warnings)
    if problems:
        raise RuleError(problems)
    if known is None:
        _keep_proved(memo, documents)
    return Rulebook(tuple(rules))


def _content_key(texts: list[tuple[Path, str]]) -> str:
    """The files' names and bytes, and the regex engine that proved them."""
    h = hashlib.sha256(f"rulebook-1\0{regex.__version__}\0".encode())
    for path, text in texts:
        h.update(f"{path}\0{len(text)}\0".encode() + text.encode("utf-8"))
    return h.hexdigest()[:32]


def _keep_proved(memo: str, documents: dict[str, Any]) -> None:
    """Keep the parsed documents of files that loaded without a problem, when JSON holds them
    exactly (YAML dates or non-string keys would come back otherwise: then nothing is kept)."""
    try:
        if json.loads(json.dumps(documents)) != documents:
            return
    except (TypeError, ValueError):
        return
    write_memo(memo, documents)
