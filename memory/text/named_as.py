"""Who a "he" or "she" is after a fact said a name was someone of the user's ("Ana is my
sister"): read as the relation, what is said of the pronoun may be said of the name.
Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["name_said_own", "name_taken_back", "said_as_owned"]

_I = re.IGNORECASE


#: A name said to be someone of the user's ("Ana is my sister"), the relation its fact says.
_NAMED_AS = re.compile(r"^\W*(?P<name>(?-i:[A-Z][a-z'’-]+))\s+(?P<verb>is|was)\s+"
                       r"(?P<own>(?:my|our)\s+[a-z][\w-]*)\W*$", _I)
#: The same said the other way round ("My sister is Ana").
_OWN_IS = re.compile(r"^\W*(?P<own>(?:my|our)\s+[a-z][\w-]*)\s+(?:is|was)\s+"
                     r"(?P<name>(?-i:[A-Z][a-z'’-]+))\W*$", _I)
#: Another of the user's said to be the pronoun's ("... is also my cousin", "...'s my boss").
#: Where one fact joins another ("Ana is my sister and Tom is my brother", "..., Tom is ...").
_JOINED = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?=[A-Z]|(?:my|our)\s)|[.!;]\s*$")
_SAID_OWN = re.compile(r"(?:\s+is|['’]s)\s+(?:also\s+)?(?:my|our)\s+[a-z]", _I)


def said_as_owned(fact: str) -> str | None:
    """``fact`` ("Ana is my sister") said the other way round ("my sister is Ana"), with the
    name as the value; None for any other fact."""
    said = _NAMED_AS.match(fact)
    return None if said is None else f"{said['own']} {said['verb']} {said['name']}"


def name_taken_back(fact: str, person: str) -> str:
    """Who ``person`` ("My sister") is after ``fact``, taken back, said a name was them
    ("Ana is my sister"): the name, of whom the relation no longer holds. As the relation,
    "Ana is my sister. Scratch that, she is my cousin." stored "User's sister is User's
    cousin"."""
    return next((said["name"] for part in _JOINED.split(fact.strip())
                 if (said := _NAMED_AS.match(part)) is not None
                 and said["own"].casefold() == person.casefold()), person)


def name_said_own(said: list[str], person: str, sentence: str, after: int) -> str | None:
    """Who ``person`` ("My sister"), a pronoun ``sentence`` opens and goes on from ``after``
    to say is another of the user's ("She is my cousin"), is: the name ``said`` (statements
    before it) gave them, if any ("Ana is my sister", "My sister is Ana"). As the relation,
    "Ana is my sister. She is my cousin." stored "User's sister is User's cousin". None
    when ``said`` gave the relation two names ("Ana is my sister and Eva is my sister"):
    the pronoun is either, and said of the relation it was said of both."""
    # each of facts joined by "and" ("Ana is my sister and Tom is my brother"): read whole,
    # none named the sister, and "She is my colleague" was said of the relation
    names = {named["name"] for fact in said for part in _JOINED.split(fact.strip())
             if (named := _NAMED_AS.match(part) or _OWN_IS.match(part)) is not None
             and named["own"].casefold() == person.casefold()}
    if len(names) > 1:
        return None
    return names.pop() if names and _SAID_OWN.match(sentence, after) else person
