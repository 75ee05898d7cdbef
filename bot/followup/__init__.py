"""Follow-up questions in a diagnosis thread.

`recognizer` says which topic a question is about; the answer then comes from the entry
(`entry_answers`), the masked diagnosis kept for the thread (`run_answers`), the whole
knowledge base (`kb_search`) or the workspace's history (`history_answers`).
"""

from bot.followup.entry_answers import QUESTIONS_HELP, Answer, answer

__all__ = ["QUESTIONS_HELP", "Answer", "answer"]
