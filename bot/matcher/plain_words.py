"""Words of plain English that name no failure: the lookup's index and queries skip them.

A lookup lists text hits by the words a query shares with an entry. Shared function words
("while", "after", "again") and the filler people type around an error ("please help, it
crashed during the night") matched whole entries whose titles or summaries happen to use them:
`/denpex frobnicator exploded while reticulating splines` listed five unrelated entries on the
word "while". Only words that can tell one failure from another are left to score. Words that
carry meaning in error lines stay out of this list: "out" (out of memory), "cannot", "off",
"down", "world" (world size), "lost", "killed".
"""

from __future__ import annotations

# English function words (three letters or more: the lookup's words are never shorter).
_FUNCTION_WORDS = (
    "the", "and", "for", "with", "this", "that", "was", "are", "not", "but", "you", "your", "has",
    "have", "from", "when", "into", "all", "any", "can", "about", "above", "after", "again",
    "against", "also", "among", "another", "anyone", "anything", "around", "because", "been",
    "before", "being", "below", "between", "both", "could", "did", "does", "doing", "don", "doesn",
    "didn", "during", "each", "either", "else", "even", "ever", "every", "everything", "few", "had",
    "hadn", "hasn", "haven", "having", "her", "here", "hers", "him", "his", "how", "however", "isn",
    "its", "itself", "just", "least", "less", "more", "most", "much", "must", "myself", "neither",
    "never", "nor", "now", "once", "only", "other", "our", "ours", "ourselves", "over", "own",
    "same", "she", "should", "shouldn", "since", "some", "someone", "something", "still", "such",
    "than", "then", "there", "these", "they", "them", "their", "theirs", "those", "though",
    "through", "too", "under", "until", "upon", "very", "wasn", "were", "weren", "what", "whatever",
    "whenever", "where", "whether", "which", "while", "who", "whom", "whose", "why", "will",
    "within", "without", "won", "would", "wouldn", "yet", "yours", "yourself",
)
# Greetings and small talk: no error line holds them. Skipped like the rest, but a lookup
# counts them among the words an entry must share most of: "hello world" shares only "world"
# (world size) with any entry, half of what was typed, and lists nothing.
GREETINGS = frozenset((
    "hello", "hey", "thanks", "thank", "morning", "night", "tonight", "everyone", "cheers", "welcome",
))
# What people type around an error in chat.
_CHAT_FILLER = (
    "please", "help", "guys", "anyone", "idea", "ideas", "weird",
    "strange", "happened", "happens", "happening", "know", "knows", "going", "got", "get", "gets",
    "getting", "seems", "seem", "look", "looks", "looking", "today", "yesterday",
    "week", "again", "keeps", "kept", "sure", "maybe", "really", "went",
)
PLAIN_WORDS = frozenset(_FUNCTION_WORDS + _CHAT_FILLER) | GREETINGS
