"""Statements that say nothing yet: a heading, and a sentence cut off before its point.

Fact extraction (memory/text/extract.py) asks these before it stores a sentence, so
"My name is" never stands in core beside "My name is Dana". Pure functions over
strings, like the rest of memory/text.

``is_heading(sentence)``: the sentence ends with a colon ("Notes from the meeting:",
"The root cause was:"); what it introduces follows on the next lines, which are read on
their own. "note: X" and "remember: X" carry their fact after the colon and so do not
end with one.

``stops_short(text)``: the sentence ends with a word that still waits for what it
says, and nothing in it accounts for that:

- the word is a verb of being or having, or a modal ("My name is", "Alice has",
  "We would"), "not", an article or a possessive ("I am allergic to the"), a
  preposition that needs an object (to, of, from, with, at, for, by, into, onto,
  than, about), or a conjunction (and, or, but, because, nor);
- and nothing before it leaves that word where it belongs: a question word or
  "that", "than", "as", "if", "whether" ("I know where it is", "taller than I
  am"), a subject pronoun after the first word ("She is the one I talk to"),
  or, before a closing preposition, a "to" that opens an infinitive ("someone to
  talk to").

Words that also name things are not in the list ("in May", "of my own free will",
"a must", "for the time being"), nor are prepositions that stand as adverbs ("the
results are in", "the lights are on").
"""

from __future__ import annotations

import re

from tiermem.memory.text.sentences import CLOSERS

__all__ = ["is_heading", "stops_short"]

#: Prepositions waiting for their object.
_PREPOSITIONS = frozenset({"to", "of", "from", "with", "at", "for", "by", "into", "onto", "than",
                           "about"})
_DANGLING = frozenset({
    # verbs of being and having, modals: waiting for what they say
    "is", "are", "was", "were", "am", "be", "been", "has", "have", "had", "would", "could",
    "should", "shall", "not",
    # articles and possessives: waiting for their noun
    "a", "an", "the", "my", "your", "our", "their",
    # conjunctions: waiting for their second half
    "and", "or", "but", "because", "nor",
}) | _PREPOSITIONS
#: Words that let a clause end on a verb or preposition ("I know where it is").
_CLAUSE_OPENERS = frozenset({
    "what", "where", "who", "whom", "whose", "which", "when", "why", "how", "whatever",
    "wherever", "whoever", "that", "than", "as", "if", "whether",
})
_PRONOUNS = frozenset({"i", "you", "we", "they", "he", "she", "it"})
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def is_heading(sentence: str) -> bool:
    """Whether ``sentence`` introduces what follows (it ends with a colon) rather than
    stating something."""
    return sentence.strip().rstrip(CLOSERS + " ").endswith((":", "："))


def stops_short(text: str) -> bool:
    """Whether ``text`` stops before saying what it is about (module docstring)."""
    words = [w.casefold() for w in _WORD.findall(text)]
    if not words or words[-1] not in _DANGLING:
        return False
    before = words[:-1]
    if any(w in _CLAUSE_OPENERS for w in before) or any(w in _PRONOUNS for w in before[1:]):
        return False
    # "someone to talk to": an infinitive's "to" leaves its preposition at the end.
    return words[-1] not in _PREPOSITIONS or "to" not in before
