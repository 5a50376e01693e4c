"""What a joint fact still says of those a change leaves out: after "User works at Acme
now", "Tom and User work at Globex" still says Tom works at Globex.

A change of one member's value ends the joint fact (memory/text/updates.py,
``replaces``), as it no longer holds of all of them; dropped whole, it would take with it
what it said of the others, though the user said nothing new of them. ``shares_kept``
gives each of them that share as a fact of its own. A member named only through a
pronoun ("Tom and his wife") gets none: "His wife works at Globex" alone would name no one.
Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.slots import member_slots, slot_of

__all__ = ["shares_kept"]

#: Two people and the verb both are the subject of, in the plural.
_JOINT = re.compile(
    r"^(?P<first>[\w' .-]{1,60}?)\s+and\s+(?P<second>[\w' .-]{1,60}?)\s+(?P<verb>"
    r"live\s+in|reside\s+in|are\s+living\s+in|are\s+based\s+in|work\s+(?:at|for|as)"
    r"|are\s+working\s+(?:at|for)|(?:have\s+)?(?:moved|relocated)\s+(?:back\s+)?to)"
    r"\s+(?P<value>\S.*)$",
    re.IGNORECASE,
)
#: The plural words of those verbs and the ones said of one person.
_SINGULAR = {"live": "lives", "reside": "resides", "are": "is", "work": "works",
             "have": "has"}
#: Owners who are no one without the sentence before them.
_UNNAMED = re.compile(r"(?:he|she|they|his|her|their|its|the|a|an)\b", re.IGNORECASE)


def shares_kept(new: str, old: str) -> list[str]:
    """What the joint fact ``old`` ("Tom and User work at Globex"), which ``new`` ("User
    works at Acme") ends, says of each member ``new`` does not set a value for ("Tom works
    at Globex"); none when ``old`` is of one subject or ``new`` is of every member."""
    joint = _JOINT.match(old.strip())
    slots = member_slots(old)
    if joint is None or len(slots) != 2:
        return []
    changed = set(member_slots(new)) or {slot_of(new) or ""}
    verb = re.sub(r"^\w+", lambda word: _SINGULAR.get(word[0].casefold(), word[0]),
                  joint["verb"])
    kept = []
    for owner, slot in zip((joint["first"], joint["second"]), slots, strict=True):
        if slot in changed:
            continue
        if _UNNAMED.match(owner):
            return []  # "His wife works at Globex" would say whose wife nowhere
        kept.append(f"{owner[:1].upper()}{owner[1:]} {verb} {joint['value'].rstrip()}")
    return kept
