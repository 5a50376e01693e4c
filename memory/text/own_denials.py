"""What the speaker denies of themselves: "I'm not vegan", "I don't live in Lisbon".

agent/offline_statements.py reads a denial joined to another statement of the speaker's
("I'm not vegan, I'm vegetarian") apart from it only when the denial is the speaker's
own. Pure functions over strings; the regular expression is compiled once at import.
"""

from __future__ import annotations

import re

__all__ = ["denies_of_self"]

_OWN_DENIAL = re.compile(r"^i(?:['’]m\s+not|\s+(?:am|do|does|was)\s+not"
                         r"|\s+(?:don|doesn|wasn)['’]?t)\b", re.IGNORECASE)


def denies_of_self(clause: str) -> bool:
    """Whether ``clause`` opens with the speaker denying something of themselves ("I'm
    not vegan", "I don't live in Lisbon")."""
    return _OWN_DENIAL.match(clause) is not None
