"""Someone named beside whose they are, in a fact: "User's boss Ana works at Acme", "Anna's
husband Tom works at Globex".

memory/text/updates.py asks whether a new fact supersedes an old one by its subject; one
named so has two: the relation ("User's boss") and the name ("Ana"). ``apposition`` splits
such a fact, so that "Tom works at Initech now" is read against "Tom works at Globex", and
"User's boss is Tom" against "User's boss is Ana". Pure functions over strings; the regular
expressions are compiled once at import.

A job moved by the name alone keeps whose they are: "Tom works at Initech now" after
"Anna's husband Tom works at Globex" is "Anna's husband Tom works at Initech"
(``with_the_relation_kept``). A relation named anew retires the fact of the one it named
before (``named_anew``), as "User's boss is Tom" retires "User's boss is Ana": "User's boss
Ana works at Acme" no longer says who the boss is. What it said of Ana still holds of her,
and is kept told of her name alone, "Ana works at Acme" (``kept_of_the_name``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tiermem.memory.text.relations import held_one_at_a_time

__all__ = ["Apposition", "apposition", "as_naming", "as_namings", "kept_of_the_name",
           "named_anew", "naming", "one_more_named", "with_the_relation_kept"]

#: A capitalised name of one word, as the extractor keeps it ("Ana", "O'Neil").
_NAME = r"(?-i:[A-Z])[a-z]+(?:['’-](?-i:[A-Z])?[a-z]+)?"
#: "User's boss Ana works at Acme": whose, one or two words of relation, the name (one or
#: two words, "Ana Lima", as a naming gives it), then what is said of them, opening with a
#: word in lower case (a verb, not more of the name).
#: "User's wife and User live in Porto" is a joint subject, no one named beside whose.
_APPOSITION = re.compile(
    rf"^(?P<relation>(?:User|{_NAME})['’]s\s+[a-z-]+(?:\s+(?!(?:and|or)\b)[a-z-]+)?)"
    rf"\s+(?P<name>(?!User\b){_NAME}(?:\s+{_NAME})?)"
    r"\s+(?P<said>(?-i:[a-z])[\w'’-]*\s+\S.*)$")
#: "User's boss is Tom": a relation's name given, and nothing more.
_NAMING = re.compile(
    rf"^(?P<relation>(?:User|{_NAME})['’]s\s+[a-z-]+(?:\s+[a-z-]+)?)\s+is\s+"
    rf"(?P<name>{_NAME}(?:\s+{_NAME})?)\W*$")
#: The same said the other way round: "Tom is User's boss", "Tom is User's new boss".
_NAMED_AS = re.compile(
    rf"^(?P<name>(?!User\b){_NAME}(?:\s+{_NAME})?)\s+is\s+"
    rf"(?P<relation>(?:User|{_NAME})['’]s\s+[a-z-]+(?:\s+[a-z-]+)?)\W*$")


@dataclass(frozen=True)
class Apposition:
    """A fact about someone named beside whose they are: ``relation`` ("User's boss"),
    ``name`` ("Ana") and ``said``, what it says of them ("works at Acme")."""

    relation: str
    name: str
    said: str

    @property
    def of_the_name(self) -> str:
        """The fact told of the name alone: "Ana works at Acme"."""
        return f"{self.name} {self.said}"

    @property
    def naming(self) -> str:
        """What it says the relation is called: "User's boss is Ana"."""
        return f"{self.relation} is {self.name}"


def apposition(fact: str) -> Apposition | None:
    """``fact`` split as one about someone named beside whose they are; None otherwise."""
    found = _APPOSITION.match(fact.strip())
    if found is None:
        return None
    return Apposition(found["relation"], found["name"], found["said"])


def as_naming(fact: str) -> str:
    """``fact`` told as the naming it is when said the other way round ("User's boss is
    Tom" for "Tom is User's boss"), so that it is read against "User's boss is Ana";
    ``fact`` otherwise."""
    found = _NAMED_AS.match(fact.strip())
    return fact if found is None else f"{found['relation']} is {found['name']}"


def as_namings(new: str, old: str) -> tuple[str, str]:
    """``new`` and ``old``, each ``as_naming`` tells it, where that reads the one against
    the other: "Tom is User's boss" against "User's boss is Ana" or "Ana is User's boss".
    As said when ``new`` may be one more of several ("Tom is User's friend now" keeps "Ana
    is User's friend", "Globex is User's client now" keeps Acme: only a relation known to
    be held by one at a time, memory/text/relations.py's, names one anew) or ``old`` is
    said so of another relation ("Tom is User's ex-boss" against "Tom is User's boss", read
    of Tom)."""
    said, held = _NAMED_AS.match(new.strip()), _NAMED_AS.match(old.strip())
    named = naming(new)
    if named is None or not held_one_at_a_time(named[0].split()[-1]):
        return new, old
    if held is not None and held["relation"].casefold() != named[0].casefold():
        return new, old
    return (new if said is None else as_naming(new)), as_naming(old)


def one_more_named(new: str, old: str) -> bool:
    """Whether ``new``, said the other way round, names one more in the relation ``old``
    names another in, not one held by one at a time: "Ana is User's team lead" beside "Tom
    is User's team lead", whose words alone would read as a new one."""
    named, held = naming(new), naming(old)
    return (_NAMED_AS.match(new.strip()) is not None and named is not None and held is not None
            and named[0].casefold() == held[0].casefold() and named[1] != held[1]
            and not held_one_at_a_time(named[0].split()[-1]))


def naming(fact: str) -> tuple[str, str] | None:
    """(relation, name) of a fact that only names a relation ("User's boss is Tom", or "Tom
    is User's boss"); None otherwise."""
    found = _NAMING.match(as_naming(fact).strip())
    return None if found is None else (found["relation"], found["name"])


def named_anew(new: str, old: str, change: str | None,
               replaces: Callable[[str, str, str | None], bool]) -> bool:
    """Whether ``new`` supersedes ``old`` (as ``replaces``, memory/text/updates.py's, reads
    them told of the name alone or of the relation's name), one of them about someone
    named beside whose they are: "Tom works at Initech now" moves the job of "Anna's husband
    Tom", and "User's boss is Tom" names another boss than "User's boss Ana"."""
    held, said = apposition(old), apposition(new)
    if held is not None and said is None:
        named = naming(new)
        if named is not None and named[0].casefold() == held.relation.casefold():
            return named[1] != held.name and replaces(new, held.naming, change)
        return new.startswith(f"{held.name} ") and replaces(new, held.of_the_name, change)
    return (said is not None and held is None and old.startswith(f"{said.name} ")
            and replaces(said.of_the_name, old, change))


def kept_of_the_name(new: str, old: str) -> list[str]:
    """What ``old`` ("User's boss Ana works at Acme"), which ``new`` retires by naming
    another in that relation ("User's boss is Tom"), still says of the one it named, told of
    the name alone ("Ana works at Acme"): a new boss does not change where Ana works. None
    for any other pair."""
    held, named = apposition(old), naming(new)
    if (held is None or named is None or named[1] == held.name
            or named[0].casefold() != held.relation.casefold()):
        return []
    return [held.of_the_name]


def with_the_relation_kept(new: str, replaced: Sequence[str]) -> str | None:
    """``new``, told of a name alone ("Tom works at Initech"), with whose they are as the
    first of the facts ``replaced`` to name them so gives it ("Anna's husband Tom works at
    Initech"); None when none does or ``new`` says it itself."""
    if apposition(new) is not None:
        return None
    for old in replaced:
        held = apposition(old)
        if held is not None and new.startswith(f"{held.name} "):
            return f"{held.relation} {new}"
    return None
