"""What a sentence in the user's words says is so, for telling whether it states a fact.

"I'd love to live in Berlin", "I'm planning to move to Berlin", "If I lived in Berlin",
"I almost moved to Berlin" and "I don't live in Berlin" share every word that matters with
"User lives in Berlin", yet none says the user lives there: a wish, a plan, a condition, a
near thing or a denial comes before what they say. "I moved away from Berlin" names the
city the user left. ``asserted_concepts`` keeps the concepts (memory/text/wording.py) of the
parts of a sentence that say what they say is so; ``hedged`` tells a fact that is itself
worded so ("User wants to move to Berlin", "User doesn't eat meat"), whose statements say
it with those very words.

"I used to live in Berlin" is said to be so: it states the residence the fact names, only
earlier, and a note that it was forgotten shows nothing the sentence does not. Pure
functions over strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.wording import concepts

__all__ = ["asserted_concepts", "hedged"]

#: Words by which what follows is wished, planned, supposed, nearly done or denied.
_NOT_SO = frozenset({
    "want", "wants", "wanted", "wanting", "wanna", "hope", "hopes", "hoped", "hoping",
    "wish", "wishes", "wished", "wishing", "dream", "dreams", "dreamed", "dreamt", "dreaming",
    "plan", "plans", "planned", "planning", "intend", "intends", "intended", "intending",
    "consider", "considers", "considered", "considering", "thinking", "try", "tries",
    "tried", "trying", "supposed", "gonna", "would", "could", "might", "should", "will",
    "shall", "must", "almost", "nearly", "if", "unless", "whether", "maybe", "perhaps",
    "someday", "not", "never", "no", "cannot", "nor", "neither",
})
#: "may" in lower case; "May" may be the month.
_MAY = "may"
_WORD = re.compile(r"[\w-]+(?:'\w+)?")
#: Where one part of a sentence ends and another, which may say otherwise, begins.
_PARTS = re.compile(r"\s*[,;:()\u2013\u2014]\s*|\s+(?:but|although|though|whereas)\s+",
                    re.IGNORECASE)
_MOVING = re.compile(r"\b(?:mov(?:e|es|ed|ing)|relocat(?:e|es|ed|ing)|emigrat(?:e|es|ed|ing))\b",
                     re.IGNORECASE)
#: The place one moved from, up to where the sentence goes on: "away from Berlin (in 2020)".
_LEFT = re.compile(r"\b(?:away\s+from|out\s+of|from)\s+.*?(?=\s+(?:to|into|in|on|at|since|after"
                   r"|before|when|because|and)\b|$)", re.IGNORECASE)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.replace("’", "'"))


def _not_so(word: str) -> bool:
    folded = word.casefold()
    return (folded in _NOT_SO or word == _MAY or folded.endswith(("n't", "'d", "'ll"))
            or folded == "going")


def _without_places_left(part: str) -> str:
    return _LEFT.sub("", part) if _MOVING.search(part) else part


def hedged(fact: str) -> bool:
    """Whether ``fact`` is itself a wish, plan, condition or denial, or names a place moved
    away from: its statements say so in its own words, so they are read whole."""
    return any(_not_so(word) for word in _words(fact)) or _without_places_left(fact) != fact


def _says_so(words: list[str], wanted: set[str]) -> bool:
    """Whether none of ``words`` before the first that holds one of ``wanted`` (a fact's
    concepts) says it is not so: "I'd love to live in Berlin" does not, "I live in Berlin
    and would never leave" does."""
    for word in words:
        if concepts(word) & wanted:
            return True
        if _not_so(word):
            return False
    return True


def asserted_concepts(sentence: str, wanted: Iterable[str]) -> set[str]:
    """The concepts of the parts of ``sentence`` (cut at commas, semicolons, "but" ...)
    that say so what they say of ``wanted``, a fact's concepts: not one a wish, plan,
    condition, near thing or denial opens before its first word of the fact; and not the
    place a part moving away from it names ("I moved from Berlin to Paris": Paris)."""
    wanted = set(wanted)
    said: set[str] = set()
    for part in _PARTS.split(sentence):
        kept = _without_places_left(part)
        if _says_so(_words(kept), wanted):
            said |= concepts(kept)
    return said
