"""Whether a sentence asks rather than states, for fact extraction.

memory/text/extract.py stores no question as a fact; this module decides what is one, from
its end ("?") or its first two words. Pure functions over strings; the regular expressions
are compiled once at import.
"""

from __future__ import annotations

import re

from tiermem.memory.text.openings import strip_markers
from tiermem.memory.text.sentences import CLOSERS

__all__ = ["is_question"]

_WH_WORDS = frozenset({"who", "whom", "whose", "what", "when", "where", "which", "why", "how"})
# "what's" typed without its apostrophe; like "what's", the fused "s" is the verb.
_WH_CONTRACTED = frozenset({"whats", "wheres", "whos", "hows", "whens", "whys"})
_AUX_WORDS = frozenset(
    {"do", "does", "did", "is", "are", "was", "were", "am", "can", "could", "should",
     "would", "will", "shall", "has"}
)
_NEGATED_AUX = {"don't": "do", "doesn't": "does", "didn't": "did", "isn't": "is",
                "aren't": "are", "wasn't": "was", "weren't": "were", "can't": "can",
                "couldn't": "could", "shouldn't": "should", "wouldn't": "would",
                "won't": "will", "haven't": "have", "hasn't": "has", "hadn't": "had"}
# "have", "has" and "had" also open statements that drop their subject ("Had a great day",
# "Had my car serviced") and requests ("Have a look at the logs", "Have someone check it"),
# so "have" and "had" ask only before a personal pronoun. "has" opens no request, so it asks
# like "is" does, but not before "a"/"an".
_PERFECT_SUBJECTS = {
    "have": frozenset({"i", "you", "we", "they", "u", "ya", "y'all"}),
    "had": frozenset({"i", "you", "we", "they", "he", "she", "u", "ya", "y'all"}),
}
#: A past participle after "has ...": what a question with "has" asks about.
_PARTICIPLE = re.compile(
    r"^\W*\S+\s+\S+(?:\s+\S+)*?\s+(?:\w+(?:ed|en)|been|done|gone|run|begun|come|set|put|got"
    r"|seen|made|left|sent|built|paid|sold|told|kept|found|held|brought|bought|said)\b",
    re.IGNORECASE)
_SUBJECTS = frozenset(
    {"i", "you", "we", "they", "he", "she", "it", "this", "that", "these", "those", "there",
     "the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "anyone",
     "anybody", "someone", "somebody", "everyone", "everybody", "anything", "something",
     "any", "all", "u", "ya", "y'all"}
)
_LEADING_WORDS = re.compile(r"([^\W\d_]+(?:'[^\W\d_]+)?)(?:\W+([^\W\d_]+(?:'[^\W\d_]+)?))?")


def is_question(sentence: str) -> bool:
    """True if ``sentence`` asks rather than states.

    It ends with "?", or opens (after words like "so", "hey,") with a
    question word followed by something other than a subject ("What is the
    region", not "What I need is coffee" nor "When I'm off, I ski"), or with an
    auxiliary followed by a subject ("Is the api up", not "Do not deploy on
    Fridays"). "have" and "had" ask only before a personal pronoun ("have we paged
    Bob", not "Have a look at the logs" or "Had a great day"), "has" before a subject
    other than "a"/"an" ("has the deploy finished").
    """
    text = sentence.strip().rstrip(CLOSERS + " ")
    if not text:
        return False
    if text.endswith(("?", "？")):
        return True
    original = strip_markers(text)
    match = _LEADING_WORDS.match(original.replace("’", "'"))
    if match is None:
        return False
    first = match.group(1).casefold()
    nxt_raw = match.group(2)
    nxt = nxt_raw.casefold() if nxt_raw else None
    base, _, clitic = first.partition("'")
    if first in _WH_CONTRACTED:
        return True
    if base in _WH_WORDS:
        if clitic:  # "where's", "how's": the clitic is the verb
            return True
        if nxt is None:
            return True
        if base == "how" and nxt == "to":  # a heading: "How to roll back: ..."
            return False
        # "When I'm not traveling, I live in Berlin": a subject with its verb joined on,
        # but "y'all" is a subject whole.
        return nxt not in _SUBJECTS and nxt.partition("'")[0] not in _SUBJECTS
    aux = _NEGATED_AUX.get(first, first if not clitic else None)
    if aux in _PERFECT_SUBJECTS and nxt is not None:
        # "Had I known (,) I would have stayed" inverts a condition; it asks nothing.
        return nxt in _PERFECT_SUBJECTS[aux] and not (aux == "had" and nxt == "i")
    if aux == "has" and (nxt in ("a", "an") or not _PARTICIPLE.search(original)):
        # "Has a dog named Rex", "Has the best coffee in town": the subject dropped. A
        # question asks whether something has been done ("has the deploy finished").
        return False
    if aux in _AUX_WORDS and nxt is not None and nxt != "not":
        # A capitalised name also fills the subject slot: "Is Alice on call".
        return nxt in _SUBJECTS or (nxt_raw is not None and nxt_raw[0].isupper())
    return False
