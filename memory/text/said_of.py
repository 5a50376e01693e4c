"""What each statement of a sentence in the user's words is said of, for telling whether
it states a fact.

"I live in Munich and Ana lives in Berlin" joins a statement of the user's to one of
Ana's: read whole, it holds every word of "User lives in Berlin". ``statements_of_each``
cuts a sentence where a statement of the user, someone of theirs
(``owners.statements_apart``) or someone named ("..., and Ana lives ...") opens, so each
is read as of whom it opens with. Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.owners import owner_of, statements_apart

__all__ = ["statements_of_each"]

#: Where a clause may end and another begin: "I live in Munich and work in Berlin".
_CLAUSE_BREAK = re.compile(r"\s*[,;]\s*(?:(?:and|but|or)\s+)?|\s+(?:and|but|or|while|whereas)\s+",
                           re.IGNORECASE)


def statements_of_each(sentence: str) -> list[str]:
    """``sentence`` cut where a statement of the user or someone of theirs opens
    (``statements_apart``), and where one of someone named does: "I live in Munich and
    Ana lives in Berlin" is "I live in Munich" and "Ana lives in Berlin"."""
    return [piece for part in statements_apart(sentence) for piece in _apart_from_named(part)]


def _apart_from_named(part: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for joint in _CLAUSE_BREAK.finditer(part):
        after = part[joint.end():]
        # A name followed by a verb or "'s" ("Ana lives", "Ana's son", "Acme is hiring")
        # opens a statement of theirs, not the user's; "Ana and I" stays the user's.
        owner = owner_of(after)
        if owner is not None and not owner.user and joint.start() > start:
            pieces.append(part[start:joint.start()])
            start = joint.end()
    pieces.append(part[start:])
    return [piece for piece in pieces if piece.strip()]

