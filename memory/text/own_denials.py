"""What the speaker denies of themselves: "I'm not vegan", "I don't live in Lisbon".

agent/offline_statements.py reads a denial joined to another statement of the speaker's
("I'm not vegan, I'm vegetarian") apart from it only when the denial is the speaker's
own. A bare withdrawal ("I don't anymore", "I'm not anymore") names nothing: it ends the
last thing the speaker just said, when that is of themselves ("I smoke") and fits the
verb ("I don't" a doing, "I'm not" a being); of another ("My email is ..."), it ends
nothing, not even what was said of the speaker before it, but after another's doing
("Tom smokes, but I don't anymore") it ends the speaker's same doing ("User: I smoke"),
which kept, said the user still smokes. Pure functions over strings; the regular
expressions are compiled once at import.
"""

from __future__ import annotations

import re

from tiermem.memory.text.doings import doing_of

__all__ = ["denies_of_self", "withdrawn", "withdraws_bare"]

_OWN_DENIAL = re.compile(r"^i(?:['’]m\s+not|\s+(?:am|do|does|was)\s+not"
                         r"|\s+(?:don|doesn|wasn)['’]?t)\b", re.IGNORECASE)


def denies_of_self(clause: str) -> bool:
    """Whether ``clause`` opens with the speaker denying something of themselves ("I'm
    not vegan", "I don't live in Lisbon")."""
    return _OWN_DENIAL.match(clause) is not None

#: "I don't anymore", "Actually, I'm not any longer": a withdrawal that names nothing.
_BARE_WITHDRAWAL = re.compile(
    r"^(?:(?:actually|well|oh|so|sorry|but|and|ok|okay)\W+)*"
    r"i(?:(?P<doing>\s+don['’]?t|\s+do\s+not)|['’]m\s+not|\s+am\s+not)"
    r"\s+(?:any\s?more|any\s+longer)\W*$", re.IGNORECASE)
#: A fact of what the user is ("User is vegan", "User: I'm on call"), not does.
_BEING = re.compile(r"^User(?:\s+is\b|:\s+I(?:['’]m|\s+am)\b)")
#: A fact of the user alone ("User smokes", "User: I smoke"), not "User's dog" nor "User
#: and Tom".
_OF_THE_USER = re.compile(r"^User(?::\s+I\b|\s+(?!and\b)(?-i:[a-z]))")


def withdraws_bare(clause: str) -> bool:
    """Whether ``clause`` is a withdrawal that names nothing ("I don't anymore")."""
    return _BARE_WITHDRAWAL.match(clause.strip()) is not None


def withdrawn(sentence: str, told: list[str]) -> list[str]:
    """The last fact of ``told`` (what the speaker just said, in order) when the bare
    withdrawal ``sentence`` ends it: "User smokes" for "I don't anymore"; none when
    ``sentence`` names something or that fact is not one it fits (module docstring)."""
    found = _BARE_WITHDRAWAL.match(sentence.strip())
    if found is None:
        return []
    doing = found["doing"] is not None
    return [fact for fact in told[-1:] if _OF_THE_USER.match(fact)
            and (_BEING.match(fact) is None) == doing] or (
        _same_doing_of_the_user(told[-1]) if told and doing else [])


def _same_doing_of_the_user(fact: str) -> list[str]:
    """How the user's own doing of what ``fact`` says one named does would be held: "User:
    I smoke" and "User smokes" for "Tom smokes"; none for any other fact."""
    named, _, doing_said = fact.strip().partition(" ")
    doing = doing_of(fact)
    if doing is None or not named.isalpha():
        return []
    return [f"User: I {doing[0]}{doing[1]}", f"User {doing_said}"]
