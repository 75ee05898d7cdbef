"""Follow-up questions in a diagnosis thread, answered from the entry that was diagnosed.

Recognition is by phrase: a small, explicit table of the ways people ask each question. An
unrecognised question gets the list of questions that can be answered, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from bot.matcher.rulebook import Rule
from bot.render.text import ANSWER_TITLES, STACK_TITLES
from bot.report import fix_script

# Order matters: the first topic whose pattern matches wins ("how do I confirm the fix" is
# about confirming, "what's the DeepSpeed version of the fix" is about code for a stack).
_TOPICS: tuple[tuple[str, str], ...] = (
    ("code", r"\b(?:code|snippet|example|version of the fix|how (?:do|would) i (?:do|write) (?:it|this|that) in)\b"
             r"|\b(?:pytorch|torch|trainer|hf|hugging ?face|transformers|deepspeed|megatron|vllm|lightning|accelerate)\b"),
    ("hardware_or_software", r"\bhardware\b|\bsoftware\b|\bbroken (?:gpu|node|card|nic)\b|\brma\b|\bfaulty\b"),
    ("fix_time", r"\bhow long\b|\bhow much time\b|\btake(?:s)? to fix\b|\beta\b|\bquick fix\b"),
    ("inference_impact", r"\binference\b|\bserving\b|\bonly (?:in )?training\b"),
    ("recurrence", r"\bcome back\b|\brecur|\bhappen again\b|\bagain\b|\bprevent\b|\bpermanent"),
    ("monitor", r"\bmonitor|\balert|\bfingerprint\b|\bdashboard\b|\bdetect (?:it|this)\b|\bwatch for\b"),
    ("scale", r"\bscale\b|\bscaling\b|\b\d{2,}\s*(?:gpus?|nodes?|ranks?)\b|\bmore (?:gpus|nodes)\b|\blarger\b|\bbigger cluster"),
    ("docs", r"\bdocs?\b|\bdocumentation\b|\breference|\blink|\bofficial\b|\bread more\b"),
    ("next_checks", r"\bnot (?:it|this|that)\b|\bdidn'?t (?:work|help)\b|\bstill\b|\bnext\b|\belse\b|\bwhat now\b"),
    ("cheapest_check", r"\bcheap|\bquick(?:est)? (?:way|check|test)\b|\bfast(?:est)? way\b"),
    ("confirm", r"\bconfirm|\bverify|\bsure\b|\bcheck\b|\bprove|\btest (?:it|this|that)\b"),
    ("related", r"\brelated\b|\bsimilar\b|\bsee also\b|\bother (?:causes|entries)\b|\blook-?alike"),
    ("why", r"\bwhy\b|\bcause|\bexplain|\bwhat happened\b|\bmechanism\b|\bhow did\b|\bwhat does (?:it|this) mean\b"),
    ("fix", r"\bfix|\bsolve|\bresolve|\bworkaround\b|\bwhat (?:do|should) i do\b|\bhow do i\b|\bchange\b|\bsolution\b"),
)
_COMPILED = tuple((name, regex.compile(p, regex.IGNORECASE)) for name, p in _TOPICS)
_STACK_WORDS = (
    ("deepspeed", r"deepspeed|zero-?[123]?\b"),
    ("megatron", r"megatron"),
    ("vllm", r"vllm"),
    ("hf_trainer", r"\btrainer\b|hugging ?face|\bhf\b|transformers"),
    ("lightning", r"lightning"),
    ("accelerate", r"accelerate"),
    ("pytorch", r"pytorch|\btorch\b|torchrun|\bddp\b|\bfsdp\b"),
)

QUESTIONS_HELP = (
    "I can answer, about this diagnosis: how do I fix it · how do I confirm it · why did it happen · "
    "is it hardware or software · how long does the fix take · does it affect inference · "
    "will it come back · what should I monitor · how does it scale · where are the docs · "
    "what's the <PyTorch|HF Trainer|DeepSpeed|Megatron|vLLM> version of the fix · what's related · "
    "what if it's not this."
)


@dataclass(frozen=True)
class Answer:
    topic: str  # an answers key, or fix / confirm / why / code / related / unknown
    title: str
    text: str  # plain text with ``` fences for code


def classify(question: str) -> str:
    for name, pattern in _COMPILED:
        if pattern.search(question):
            return name
    return "unknown"


def _stack(question: str) -> str | None:
    for stack, pattern in _STACK_WORDS:
        if regex.search(pattern, question, regex.IGNORECASE):
            return stack
    return None


def answer(question: str, rule: Rule, related_titles: dict[str, str] | None = None) -> Answer:
    """Answer one follow-up question about `rule`, from the entry's own text."""
    topic = classify(question)
    if topic == "code":
        stack = _stack(question)
        if stack and stack in rule.code:
            return Answer("code", f"{STACK_TITLES[stack]}: {rule.title}", f"```\n{rule.code[stack]}\n```")
        if rule.code:
            if stack:
                lead = f"The fix does not differ for {STACK_TITLES[stack]}; here is what this entry has:\n"
            else:
                lead = ""
            body = "\n".join(f"{STACK_TITLES[k]}:\n```\n{v}\n```" for k, v in rule.code.items())
            return Answer("code", f"Code: {rule.title}", lead + body)
        topic = "fix"
    if topic in ANSWER_TITLES:
        return Answer(topic, ANSWER_TITLES[topic], rule.answers[topic])
    if topic == "fix":
        script = fix_script(rule)
        steps = "\n".join(f"{i}. {s}" for i, s in enumerate(rule.fix.steps, 1))
        text = rule.fix.summary + ("\n" + steps if steps else "") + (f"\n```\n{script}\n```" if script else "")
        return Answer("fix", "The fix", text)
    if topic == "confirm":
        text = "\n".join(f"• {c}" for c in rule.confirm)
        text += f"\nVerify the fix:\n```\n{rule.verify.command}\n```\nExpect: {rule.verify.expect}"
        return Answer("confirm", "How to confirm", text)
    if topic == "why":
        return Answer("why", "Why it happened", rule.root_cause + "\n\n" + rule.mechanism)
    if topic == "related":
        titles = related_titles or {}
        text = "\n".join(f"• {rid}: {titles.get(rid, '')}".rstrip(": ") for rid in rule.related)
        return Answer("related", "Related entries", text)
    return Answer("unknown", "What I can answer", QUESTIONS_HELP)
