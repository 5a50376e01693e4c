"""Whether what is said of "he" or "she" is of the kind a fact just taken back said of a
name: after "Tom works at Globex. Scratch that," the "he works at Initech" says again what
Tom's job is, so the "he" is Tom though a name says too little of sex, as "he's short" after
"Tom is tall." does, while "she's a doctor" after it says another kind of thing and may be of
anyone (and a "she" is never Tom: memory/text/given_names.py knows whose a name most often
is).
Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["says_alike"]

_I = re.IGNORECASE
#: A verb and the small word tying it to what it says, if any: "works at", "is a", "lives
#: in", "likes" (tea), "is" (tall); not one denying it ("is not"), nor one saying of a name
#: or a person ("she's Ana", "is my sister", "likes him"), who may be another.
_KIND = re.compile(r"\s*(?P<verb>[a-z]+)\s+(?:(?P<tie>an?|the|at|in|on|for|from|with|as)\s+)?"
                   r"(?!(?:not|no|never|my|your|our|his|her|him|its|their|them|me|us)\b)"
                   r"(?-i:[a-z])", _I)
#: A verb run into its pronoun, said in full: "'s a doctor" -> "is a doctor".
_RUN_IN = re.compile(r"^['’]s\b", _I)


def says_alike(fact: str, person: str, said: str) -> bool:
    """Whether ``fact`` opens with ``person`` and says of them by the verb and tie word
    that ``said``, what follows a pronoun ("'s a doctor", " works at Initech"), says."""
    if not fact.casefold().startswith(person.casefold()):
        return False
    before = _KIND.match(fact[len(person):])
    after = _KIND.match(_RUN_IN.sub("is", said.lstrip()))
    return (before is not None and after is not None
            and _kind(before) == _kind(after))


def _kind(said: re.Match[str]) -> tuple[str, str]:
    tie = (said["tie"] or "").casefold()
    return said["verb"].casefold(), "a" if tie == "an" else tie
