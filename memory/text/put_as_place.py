"""Whether the words said before a capitalised word put it as a place or a firm ("at
Acme", "in Lisbon"), not as a person: memory/text/pronoun_subjects.py reads who a "he" or
a "she" may be with it.
Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.given_names import is_first_name

__all__ = ["IN_PLACE", "PLACED", "put_as_a_place", "reach"]

_I = re.IGNORECASE
#: How far before a name the words said right before it ("at", "I have") are looked for:
#: searched from the start, each name of a long message rescanned all before it.
_REACH = 40
PLACED = re.compile(r"(?:at|in|for|to|from|on|of|by|near|into|with)\s+$", _I)
#: What puts a firm or a place, never a person, after it: "at Acme", "in Lisbon". Not
#: "with", "for" or "to", which as often put a person ("I work with Zoltan"): read as a
#: place, Zoltan was no "he" and the one other named had his job retired instead.
IN_PLACE = re.compile(r"(?:at|in|near|into)\s+$", _I)
#: What puts a person after it at least as often as a firm: "I work with Oyelaran".
_ALONGSIDE = re.compile(r"with\s+$", _I)


def reach(found: re.Match[str]) -> int:
    """Where to look from for the words said right before ``found``."""
    return max(0, found.start() - _REACH)


def put_as_a_place(before: str, name: str) -> bool:
    """Whether ``before``, what a sentence says up to ``name``, puts it as a place or a
    firm ("at Acme", "for Globex"), not as a person: not after "with", nor a given name
    after "for" or "to". Read as places, "Oyelaran" of "I work with Oyelaran" and "Anna"
    of "I work for Anna" were no "he" or "she", and the one other named had their job
    retired in their stead."""
    if IN_PLACE.search(before) is not None:
        return True
    if PLACED.search(before) is None or _ALONGSIDE.search(before) is not None:
        return False
    return not is_first_name(name.split()[0])
