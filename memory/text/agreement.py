"""The verb that agrees with who shares what was said: "My kids too" after "I live in
Lisbon" is "My kids live in Lisbon", not "lives". Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["agreeing", "names_several"]

#: Words for several that end in no "s" ("my children"), or one said of two ("my wife
#: and kids"); a last word in "s" but not "ss", "is" or "us" is a plural ("my parents",
#: not "my boss"), unless it is a name ("my friend James").
_SEVERAL = re.compile(
    r"(?:\band\b.*|\b(?:children|grandchildren|people|folks|staff)"
    r"|\b(?-i:[a-z])[\w-]*[^\Wsiu]s)\W*$", re.IGNORECASE)
#: Each verb said of one and the one said of several.
_PLURAL = {"is": "are", "was": "were", "does": "do", "has": "have"}


def agreeing(verb: str, who: str) -> str:
    """``verb`` ("is", "was", "does", "has") as said of ``who``: the plural one when
    ``who`` names several ("my kids", "my wife and son"), else ``verb`` as given."""
    return _PLURAL.get(verb, verb) if names_several(who) else verb


def names_several(who: str) -> bool:
    """Whether ``who`` ("my kids", "User's wife and son") names more than one."""
    return _SEVERAL.search(who) is not None
