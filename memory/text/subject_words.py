"""The words by which memory/text/owners.py tells where a statement's subject ends and
whom it opens with: the verbs, negations and modals that end a subject ("My sister *is*
..."), taking one in, which ends it after the one who does it ("My sister *adopted* ..."),
the speaker's own words ("I", "me"), the user's "my", and capitalised words that name no
one ("The", "She"). Plain word sets, casefolded.
"""

from __future__ import annotations

__all__ = ["HOW_OR_WHEN", "MINE", "NO_NAMES", "SCARCELY", "SPEAKER", "SUBJECT_ENDS",
           "TAKING_IN"]

#: Words that end a subject: a verb of being, having or doing, a negation, a modal.
SUBJECT_ENDS = frozenset({
    "is", "isn't", "are", "aren't", "was", "wasn't", "were", "weren't", "am", "has", "hasn't",
    "have", "haven't", "had", "hadn't", "does", "doesn't", "do", "don't", "did", "didn't",
    "can", "can't", "cannot", "will", "won't", "would", "should", "no", "not", "never",
    "quit", "stopped", "still", "now", "moved", "lives", "works", "uses", "likes", "loves",
    "hates", "prefers", "needs", "wants", "owns", "goes", "went", "attends", "attended",
})
#: Taking one in, which ends a subject only after the one who does it ("My sister adopted
#: a puppy" is the sister's, no relation "puppy"): before them it describes them ("my
#: adopted son").
TAKING_IN = frozenset({"adopted", "rescued", "bought", "got"})
SPEAKER = frozenset({"i", "i'm", "i've", "i'd", "i'll", "user", "me", "myself"})
MINE = frozenset({"my", "user's", "mine"})
#: Words of how often or when one does something, between the doer and the verb ("Tom
#: rarely smokes") or opening a sentence whose doer goes unsaid ("Recently started
#: smoking", the user's).
HOW_OR_WHEN = frozenset({
    "often", "rarely", "seldom", "sometimes", "usually", "always", "never", "still", "also",
    "occasionally", "regularly", "mostly", "hardly", "recently", "lately", "finally", "just",
    "yesterday", "today", "tonight", "now", "then", "again", "once", "suddenly", "eventually",
    "apparently", "actually", "already", "newly",
})
#: Words of next to none or next to never, which as good as deny what they come before:
#: "Barely anyone calls me Tom", "My sister scarcely adopted a puppy".
SCARCELY = frozenset({"hardly", "barely", "scarcely"})
#: Capitalised words that name no one: they open a sentence or stand for someone unsaid.
NO_NAMES = HOW_OR_WHEN | frozenset({
    "the", "a", "an", "this", "that", "these", "those", "it", "he", "she", "they", "we",
    "you", "our", "ours", "your", "his", "her", "their", "its", "there", "here", "my", "i",
    "what", "who", "whom", "whose", "when", "where", "which", "why", "how", "is", "are",
    "am", "was", "were", "do", "does", "did", "has", "have", "had", "can", "will", "should",
    "could", "would", "please", "not", "no",
})
