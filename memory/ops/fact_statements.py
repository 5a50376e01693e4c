"""How the forgotten-fact note cuts a sentence into the statements of each one it is of
(``statements_of_someone``), and who stands beside the user in a joint subject
(``beside_me``): "Tom and I both have a dog" is one statement, of Tom and the user.
"""

from __future__ import annotations

import re

from tiermem.memory.text.owners import owner_of
from tiermem.memory.text.plans import is_time_alone
from tiermem.memory.text.said_of import statements_of_each
from tiermem.memory.text.wording import concepts

__all__ = ["beside_me", "statements_of_someone", "the_users_alone"]


def statements_of_someone(sentence: str) -> list[str]:
    """``statements_of_each``, but a lead-in that is only a time to come stays with the
    statement it opens ("Next month, I'm moving to Berlin": apart, the plan would lose its
    time). Any other lead-in stays apart: "Sadly, my son is allergic to peanuts" is of the
    son, and "Honestly, I'm fine, but my son is ..." says nothing of the user's allergy.
    Someone named before "and I" is one subject with the user, as after "Me and": "Tom
    and I both have a dog" is Tom's too."""
    parts = [piece for whole in statements_of_each(sentence) for piece in _after_for_me(whole)]
    if len(parts) > 1 and is_time_alone(parts[0]):
        return [f"{parts[0]}, {parts[1]}", *parts[2:]]
    joint = _NAMED_AND_ME.match(sentence)
    if len(parts) > 1 and joint and parts[0].strip() == joint["named"]:
        return [f"{parts[0]} and {parts[1]}", *parts[2:]]
    return parts


#: A subject of someone named and the user: "Tom and I ...", "Anna Silva and me ...".
_NAMED_AND_ME = re.compile(r"\s*(?P<named>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})"
                           r"\s+and\s+(?:I|me)\b")
#: The same, with the user first: "Me and Tom ...".
_ME_AND_NAMED = re.compile(r"\s*(?:I|[Mm]e)\s+and\s+"
                           r"(?P<named>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})\b")


def beside_me(part: str) -> set[str]:
    """The concepts of the names of others in a subject ``part`` opens with beside the
    user: "Tom" of "Tom and I have a dog named Rex", who is not the user."""
    joint = _NAMED_AND_ME.match(part) or _ME_AND_NAMED.match(part)
    return concepts(joint["named"]) if joint else set()


#: The user's own, said apart from anyone beside them: "my dog", "mine is Rex".
_USERS_ALONE = re.compile(r"\b(?:my|mine)\b", re.IGNORECASE)
#: Where another's own opens after the user's: "... and his is Max", "Tom's is Max".
_ANOTHERS_OWN = re.compile(r"\b(?:(?i:his|hers|her|their|theirs)\b|[A-Z][\w-]*['’]s\b)")
#: Naming words the other's own may lean on without saying them again: "mine is named
#: Rex and his is Max" names Tom's dog Max.
_NAMING = frozenset(concepts("named called name"))


def the_users_alone(part: str) -> set[str]:
    """The concepts a subject of someone named beside the user (``part``) says only after
    the user's own and before another's: "dog" and "Rex" of "Tom and I walked my dog
    Rex", which is no dog of Tom's, and "Rex" of "..., mine is named Rex and his is Max",
    where Max is still Tom's; none of "Tom and I both have a dog named Rex"."""
    own = _USERS_ALONE.search(part)
    if own is None or not beside_me(part):
        return set()
    theirs = _ANOTHERS_OWN.search(part, own.end())
    end = theirs.start() if theirs else len(part)
    return (concepts(part[own.start():end]) - concepts(part[:own.start()])
            - concepts(part[end:]) - _NAMING)


#: "... for me and my wife ...", where someone of the user's may open a statement of
#: their own ("Vim is too hard for me and my wife uses vim"); not "except for me and ...".
_FOR_ME_AND = re.compile(r"(?<=\bfor\sme)(?<!\bexcept\sfor\sme)\s+and\s+(?=(?:my|our)\b)",
                         re.IGNORECASE)


def _after_for_me(part: str) -> list[str]:
    """``part`` cut where, after "for me and", someone of the user's says more than who
    they are: "Vim is too hard for me" and "my wife uses vim" are apart; "I booked a table
    for me and my wife" stays whole."""
    joint = _FOR_ME_AND.search(part)
    if joint is None:
        return [part]
    rest = part[joint.end():]
    own = owner_of(rest)
    if own is None or not own.relations or len(rest.split()) < 3:
        return [part]
    return [part[:joint.start()], *_after_for_me(rest)]
