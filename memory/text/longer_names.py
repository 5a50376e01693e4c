"""A name of a fact said in a message only as part of a longer one: "I live in New York"
names no York, and "I lived in New Berlin, then moved to Munich" left no Berlin. A
capitalised word right before the name, inside the sentence or one that opens place
names ("New", "Fort", "San", "St." with its stop), makes it another name; a word
opening the sentence ("In Berlin, ...", "Visited Berlin") or a name of the fact itself
("New York" of "User lives in New York") does not. Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.wording import concepts

__all__ = ["inside_longer_names"]

_WORD = re.compile(r"[\w'’-]+")
#: Words that open place names, capitalised even at the start of a sentence.
_PLACE_OPENERS = frozenset({
    "new", "old", "north", "south", "east", "west", "upper", "lower", "great", "little",
    "fort", "port", "mount", "lake", "san", "santa", "saint", "st", "los", "las",
})
#: Openers written short, with a stop before the rest of the name: "St. Petersburg".
_SHORT_OPENERS = frozenset({"st", "ft", "mt"})
#: Capitalised words that are no part of a name: the speaker and words of time.
_NOT_NAMES = frozenset({
    "i", "i'm", "i've", "i'd", "i'll", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday",
})


def inside_longer_names(text: str, names: set[str]) -> set[str]:
    """The ``names`` (a fact's, as concepts) that ``text`` says, but each time only as
    part of a longer name that holds a capitalised word the fact does not name."""
    said: set[str] = set()
    free: set[str] = set()
    words = list(_WORD.finditer(text))
    for at, match in enumerate(words):
        own = concepts(match.group()) & names
        if not own:
            continue
        said |= own
        if not (at and _opens_longer_name(text, words[at - 1], names)):
            free |= own
    return said - free


def _opens_longer_name(text: str, word: re.Match[str], names: set[str]) -> bool:
    """Whether ``word`` of ``text`` is part of a name the word after it
    closes, rather than a name of the fact, the speaker or a word opening the sentence."""
    token = word.group()
    folded = token.casefold()
    between = text[word.end():word.end() + (2 if folded in _SHORT_OPENERS else 1)]
    if not token[:1].isupper() or between.lstrip(".") != " " or folded in _NOT_NAMES:
        return False
    if concepts(token) & names:
        return False
    opens_sentence = not text[:word.start()].strip() or bool(
        re.search(r"[.!?]\s*$", text[:word.start()]))
    return folded in _PLACE_OPENERS or not opens_sentence
