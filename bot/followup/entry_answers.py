"""Follow-up questions answered from the text of the entry that was diagnosed.

The topic comes from bot.followup.recognizer; this module only words the entry's own
answer to it (a code question is also read for the stack it names).
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from bot.matcher.rulebook import Rule
from bot.render.text import ANSWER_TITLES, STACK_TITLES
from bot.report import fix_script

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
    "I can answer, about this run: which rank failed first (and how I told) · show me the lines · why not "
    "the other errors · what else could it be · which ranks and hosts · when did it happen · has this "
    "happened before; about any entry: what does <an error> mean; "
    "about this diagnosis: how do I fix it · how do I confirm it · why did it happen · "
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


def _stack(question: str) -> str | None:
    for stack, pattern in _STACK_WORDS:
        if regex.search(pattern, question, regex.IGNORECASE):
            return stack
    return None


def answer(topic: str, question: str, rule: Rule, related_titles: dict[str, str] | None = None) -> Answer:
    """Answer a follow-up of `topic` (an entry topic of bot.followup.topics) from `rule`'s text."""
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
    if topic == "versions":
        text = "Where the entry says it applies:\n" + "\n".join(f"• {s}" for s in rule.systems)
        text += "\nA version not named here is one the entry does not speak for."
        return Answer("versions", "Affected systems and versions", text)
    if topic == "constraints":
        return Answer("constraints", "If you cannot change the environment", _without_env(rule))
    return Answer("unknown", "What I can answer", QUESTIONS_HELP)


def _without_env(rule: Rule) -> str:
    """The parts of the fix that are not environment variables."""
    out = []
    if rule.fix.env:
        out.append("The fix sets " + ", ".join(f"`{k}`" for k in rule.fix.env)
                   + "; where the environment is out of reach, the same often goes in the launcher or the code:")
    if rule.fix.steps:
        out.append("\n".join(f"{i}. {s}" for i, s in enumerate(rule.fix.steps, 1)))
    if rule.fix.config:
        out.append(f"```\n{rule.fix.config.rstrip()}\n```")
    if rule.code:
        out.append("In code, per stack: " + ", ".join(STACK_TITLES[k] for k in rule.code) + " (ask for one).")
    return "\n".join(out) or rule.fix.summary
