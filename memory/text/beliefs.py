"""What a stored belief holds: "User: I think my sister lives in Madrid" -> "User's sister
lives in Madrid".

The speaker's belief about someone of theirs is stored quoted, in their words
(memory/text/person.py), so it sets no slot (memory/text/slots.py) and no plain statement
about the same attribute would end it: "My sister lives in Rome now" left "I think my
sister lives in Madrid" beside it. ``believed(fact)`` tells the clause believed as a fact of
its own, by which memory/text/updates.py reads what the belief is about. Only a belief held
("I think", "I believe", "I guess"...), not one denied ("I don't think ...") nor one whose
clause speaks of the speaker too ("I think my boss said I'm fired"). Pure functions over
strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.person import third_person

__all__ = ["believed"]

_BELIEF = re.compile(
    r"^(?P<speaker>[^\W\d_][\w .'’-]{0,40}?):\s+i\s+(?:really\s+|still\s+)?"
    r"(?:think|believe|guess|suppose|reckon|suspect|assume)\s+(?:that\s+)?"
    r"(?P<clause>my\s+\S.*)$", re.IGNORECASE | re.DOTALL)


def believed(fact: str) -> str | None:
    """The clause the stored belief ``fact`` holds, told of its speaker; None when ``fact``
    is no such belief (module docstring)."""
    match = _BELIEF.match(fact.strip())
    if match is None:
        return None
    speaker = match["speaker"]
    told = third_person(match["clause"], speaker)
    return None if told.startswith(f"{speaker}:") else told
