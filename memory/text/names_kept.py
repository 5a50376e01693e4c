"""The name of someone of the user's, kept when a fact about them changes without it: "My
wife works at Acme now" after "User's wife Ana works at Globex" is "User's wife Ana works
at Acme", not a fact that drops the only place her name was held. Pure functions over
strings, for the offline policy's statements (agent/offline_statements.py).
"""

from __future__ import annotations

import re

from tiermem.memory.text.owners import owner_of
from tiermem.memory.text.relations import may_be_several

__all__ = ["with_the_name_kept"]


def with_the_name_kept(new: str, old: str) -> str | None:
    """``new``, which changes ``old``, with the name ``old`` gives the one of the user's
    both are about ("User's wife Ana", "User's mother Ana Silva"); None when ``new`` names
    them itself, ``old`` names no one, or one of several may be another ("my brother")."""
    changed, held = owner_of(new), owner_of(old)
    if (changed is None or held is None or changed.name is not None or held.name is None
            or not changed.relations or changed.relations != held.relations
            or any(map(may_be_several, changed.relations))):
        return None
    named = re.match(rf"^(?P<who>.*?)\s+(?P<name>{re.escape(held.name)}"
                     r"(?:\s+(?-i:[A-Z])[\w'’-]*)*)\b", old.strip(), re.IGNORECASE)
    if named is None or not new.startswith(f"{named['who']} "):
        return None
    return f"{named['who']} {named['name']}{new[len(named['who']):]}"
