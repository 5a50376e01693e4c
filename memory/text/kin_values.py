"""What the value of an "X is V" fact says of one of the user's people (or pets).

A person keeps their name through every state, age and height: "User's son is 5" (or
"5'11\"") says how old (or tall) Leo is, not who he is, and one may have several
brothers, so "User's brother is Sam" after "... is Tom" is a second brother, while "Anna"
respelt "Ana", or "Tom" said in full "Tom Smith", is still the one.
``memory/text/updates.py``'s ``replaces`` asks these questions. Pure functions over
strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.owners import relation_of
from tiermem.memory.text.relations import may_be_several
from tiermem.memory.text.slots import ATTRIBUTE

__all__ = ["another_of_several", "measure_of", "of_someone", "subject_words"]

_APOS = "['’]"


def subject_words(fact: str) -> list[str]:
    """The words of an "X is V" fact's subject, but a name after its last noun ("User's
    sister" of "User's sister Ana is vegan")."""
    match = ATTRIBUTE.match(fact.strip())
    words = re.findall(r"[\w'’-]+", match["subject"]) if match else []
    while len(words) > 1 and words[-1][:1].isupper():
        words.pop()  # the name after the noun: "sister Ana"
    return words


def of_someone(fact: str) -> bool:
    """Whether an "X is V" fact is said of a person, or a pet, by the noun for them
    ("User's sister", "User's sister Ana", "Our manager"), not of a thing of theirs
    ("User's phone", "User's sister's car")."""
    words = subject_words(fact)
    return bool(words) and relation_of(re.sub(rf"{_APOS}s?$", "", words[-1])) is not None


def another_of_several(new: str, old: str) -> bool:
    """Whether ``new`` names another of the user's beside the one ``old`` names, by a noun
    for those one may have several of: "User's brother is Sam" (or "User's brother's name
    is Sam") after "... Tom" is a second brother. The name respelt ("Ana" for "Anna": one
    letter more or fewer) or said in full ("Tom Smith" for "Tom") is still the one."""
    words = subject_words(new)
    if len(words) > 1 and words[-1].casefold() == "name":
        words.pop()
    if not words or not may_be_several(re.sub(rf"{_APOS}s?$", "", words[-1])):
        return False
    names = [match["value"].strip(" .") if (match := ATTRIBUTE.match(fact.strip())) else ""
             for fact in (new, old)]
    if not all(name[:1].isupper() for name in names):
        return False  # an age or a code, not who they are
    return not _one_name(*(name.casefold() for name in names))


def _one_name(new: str, old: str) -> bool:
    """Whether ``new`` is the name ``old`` written otherwise: in full, or respelt."""
    if new.split()[:len(old.split())] == old.split():
        return True
    short, long = sorted((new, old), key=len)
    return len(long) == len(short) + 1 and any(
        long[:at] + long[at + 1:] == short for at in range(len(long)))


_AGE = re.compile(r"\d{1,3}(?:\s+(?:years?|months?)(?:\s+old)?)?\.?")
#: A height or a weight, read as an age is: how tall or heavy someone is, not who ("5'11\"",
#: "6 ft 2", "180 cm", "1.8m tall", "30 kg").
_HEIGHT = re.compile(
    r"(?:\d{1,2}\s?(?:['’]|ft|feet|foot)(?:\s?\d{1,2}\s?(?:\"|”|''|’’|in|inches)?)?"
    r"|\d{1,3}(?:\.\d{1,2})?\s?(?:cm|m|metres?|meters?))(?:\s+(?:tall|high))?\.?", re.IGNORECASE)
_WEIGHT = re.compile(r"\d{1,3}(?:\.\d{1,2})?\s?(?:kg|kilos?|lbs?|pounds|stone|st)(?:\s+heavy)?\.?",
                     re.IGNORECASE)
_MEASURES = (("age", _AGE), ("height", _HEIGHT), ("weight", _WEIGHT))
#: A time said after an age or a height, which a model may keep in the fact: "... is
#: 5'11\" now" is as tall as "... is 5'11\"".
_SAID_WHEN = re.compile(r"\s+(?:now|already|today|these\s+days|at\s+the\s+moment)\.?$",
                        re.IGNORECASE)


def measure_of(fact: str) -> str | None:
    """Which measure of someone an "X is V" fact gives, "age" ("User's son is 5"), "height"
    ("... is 5'11\" now", "... is 6 feet") or "weight" ("... is 30 kg"), or None: a new
    value ends only the old one of the same measure, as "6 feet" ends "5'11\"" but not "5"."""
    match = ATTRIBUTE.match(fact.strip())
    value = _SAID_WHEN.sub("", match["value"].strip()) if match else ""
    return next((name for name, pattern in _MEASURES if pattern.fullmatch(value)), None)

