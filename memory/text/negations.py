"""Whether one fact says another with "not" ("User is not vegetarian" of "User is
vegetarian", "User doesn't live in Lisbon" of "User lives in Lisbon"), which it replaces:
memory/text/updates.py's ``replaces``.

A verb the head table does not rewrite is quoted when affirmed ("User: I smoke") but
denied in the third person ("User doesn't smoke"): the quote is read as "User smokes"
here, so either ends the other, and ``as_denied`` words the quote that ends a denial as
the denial did ("User smokes").
"""

from __future__ import annotations

import re

from tiermem.memory.text.causes import without_cause
from tiermem.memory.text.doings import third_person_verb, unquoted
from tiermem.memory.text.extract import normalize_fact

__all__ = ["as_denied", "negation_of"]

_I = re.IGNORECASE
_APOS = "['’]"

_NEGATION = re.compile(rf"\s+not\b|n{_APOS}t\b|\s+no\s+longer\b", _I)
_STILL_OR_NOT = re.compile(r",?\s+(?:any\s?more|any\s+longer)\b", _I)


#: A verb denied with "do" ("User doesn't live in Lisbon"), which says it bare.
_DO_NOT = re.compile(rf"\b(?P<do>do|does)(?:\s+not\b|n{_APOS}t\b)\s+(?P<verb>[a-z]+)\b", _I)


def _said_without_do(fact: str) -> str:
    """``fact`` with a verb denied with "do" said as when affirmed, the "not" left in:
    "User doesn't live in Lisbon" -> "User lives not in Lisbon", whose words are those of
    "User lives in Lisbon" and "not"."""
    def affirmed(said: re.Match[str]) -> str:
        verb = said["verb"]
        return f"{verb} not" if said["do"].casefold() == "do" else f"{third_person_verb(verb)} not"
    return _DO_NOT.sub(affirmed, fact)


def as_denied(new: str, old: str) -> str | None:
    """``new``, a quoted verb that ends the denial ``old`` ("User: I smoke" after "User
    doesn't smoke"), worded in the third person as ``old`` was ("User smokes"); None
    when it is no such quote."""
    if unquoted(new) == new or not _DO_NOT.search(old) or not negation_of(new, old):
        return None
    return unquoted(new)


def negation_of(new: str, old: str) -> bool:
    """Whether one fact says the other with "not" ("User is not vegetarian", "User
    doesn't live in Lisbon"). A cause given is no part of it: "User doesn't work at Globex
    because User moved" says "User works at Globex" with "not"."""
    new, old = (_said_without_do(unquoted(without_cause(fact) or fact)) for fact in (new, old))
    plain_new, plain_old = (normalize_fact(_STILL_OR_NOT.sub("", _NEGATION.sub("", t)))
                            for t in (new, old))
    return plain_new == plain_old and bool(_NEGATION.search(new)) != bool(_NEGATION.search(old))
