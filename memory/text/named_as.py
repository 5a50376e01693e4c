"""Who a "he" or "she" is after a fact said a name was someone of the user's ("Ana is my
sister"): read as the relation, what is said of the pronoun may be said of the name.
Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["name_taken_back"]

_I = re.IGNORECASE


#: A name said to be someone of the user's ("Ana is my sister"), the relation its fact says.
_NAMED_AS = re.compile(r"^\W*(?P<name>(?-i:[A-Z][a-z'’-]+))\s+(?:is|was)\s+"
                       r"(?P<own>(?:my|our)\s+[a-z][\w-]*)\W*$", _I)


def name_taken_back(fact: str, person: str) -> str:
    """Who ``person`` ("My sister") is after ``fact``, taken back, said a name was them
    ("Ana is my sister"): the name, of whom the relation no longer holds. As the relation,
    "Ana is my sister. Scratch that, she is my cousin." stored "User's sister is User's
    cousin"."""
    said = _NAMED_AS.match(fact)
    if said is None or said["own"].casefold() != person.casefold():
        return person
    return said["name"]
