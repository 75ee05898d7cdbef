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
        return Answer("versions", "Affected systems and versions", _versions(rule, question))
    if topic == "constraints":
        return Answer("constraints", "If you cannot change the environment", _without_env(rule))
    return Answer("unknown", "What I can answer", QUESTIONS_HELP)


# "NCCL 2.21", "torch v2.4.1": the word before a version is the product it is a version of.
_VERSION = regex.compile(r"(?:\b([a-z][\w-]*)\s+)?v?(?<![\w.])(\d+\.\d+(?:\.\d+)*)(?![\w.])", regex.IGNORECASE)
_NOT_PRODUCTS = frozenset({"on", "in", "with", "for", "to", "version", "versions", "release", "from", "since", "is", "of"})


def _versions(rule: Rule, question: str) -> str:
    """Where the entry says it applies, and whether it names the version asked about (for
    the product asked about: NCCL 2.21 is not PyTorch 2.x)."""
    text = "Where the entry says it applies:\n" + "\n".join(f"• {s}" for s in rule.systems)
    asked = _VERSION.findall(question)
    if not asked:
        return text + "\nA version not named here is one the entry does not speak for."
    body = "\n".join([*rule.systems, rule.summary, rule.root_cause, rule.mechanism, rule.fix.summary,
                      *rule.fix.steps, *rule.answers.values(), *rule.falsepositives,
                      *(f"{s.line}: {s.means}" for s in rule.symptoms)])
    sentences = [x.strip() for x in regex.split(r"(?<=[.;])\s+|\n", body) if x.strip()]
    for word, version in asked:
        product = word if word and word.lower() not in _NOT_PRODUCTS else ""
        named = f"{product} {version}".strip()
        of_product = [x for x in sentences if not product or product.lower() in x.lower()]
        said = [x for x in of_product if regex.search(rf"(?<![\w.])v?{regex.escape(version)}(?!\d)", x)]
        major = version.split(".")[0]
        series = [x for x in rule.systems if product and regex.search(
            rf"\b{regex.escape(product)}\s+{major}\.x\b", x, regex.IGNORECASE)]
        if said:
            text += f"\nWhat the entry says about {named}:\n" + "\n".join(f"• {x[:300]}" for x in said[:3])
        elif series:
            text += (f"\nThe entry names no {named} in particular; it applies to {product} {major}.x as a whole "
                     f"({series[0][:200]}), {version} included.")
        else:
            text += f"\nThe entry does not mention {named}: it neither says that version is affected nor that it is fixed."
    return text


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
