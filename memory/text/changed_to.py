"""A statement that a thing of the speaker's was changed to a value ("I changed my PIN to
4321", "My PIN has changed to 4321"), said as what it now is ("my PIN is 4321"). "My X
changed to" reads so only of a code or a number ("4321", "5 Elm St.", "BA123", "Flat 2, 5
Elm St.", "1200 euros", "7 out of 10") or an email address ("a@b.com"), not a time ("My
flight changed to 6pm") or a count of things ("My opinion changed to 2 things"), or of a
secret, to a word of any look ("My password changed to swordfish"): "My mind changed to
yes" and "My life changed to the better in 2020" are kept as said. When it changed
("yesterday") is no part of the value, and an abbreviation keeps its dot ("5 Elm St.").
Of a thing a fact holds a value of the same kind of ("User's job is teacher"), "My job
changed to nurse" is said as "I changed my job to nurse" (``changed_of_held``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.plan_values import held_of, value_kind
from tiermem.memory.text.secret_names import names_a_secret
from tiermem.memory.text.sentences import strip_terminator

__all__ = ["changed_of_held", "changed_to"]

_I = re.IGNORECASE
_APOS = "['’]"
_CHANGED_MY = re.compile(
    rf"^(?:i(?:\s+have|{_APOS}ve)?\s+(?:changed|updated|switched)\s+my\s+(?P<attribute>.+?)"
    rf"|my\s+(?P<changed>[^,;]+?)(?:\s+(?:has|was|got)|{_APOS}s)?\s+(?:been\s+)?"
    r"(?:changed|updated))\s+to\s+(?P<value>.+)$",
    _I,
)
#: A value that opens with a code or a number ("4321", "5 Elm St."), or with the part of a
#: place a number names ("Flat 2, 5 Elm St.", "Apt 4B, ...", "Room 204"), and a time ("6pm").
_CODE = re.compile(r"^(?:(?:flat|apt|apartment|unit|suite|room|no|floor|building|block"
                   r"|house)\.?\s+)?[^\s\d]*\d", _I)
#: An email address, a value of its own look ("a@b.com").
_EMAIL = re.compile(r"^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$")
#: A number of things no unit measures ("2 things", "3 ones"): no value held.
_THINGS = re.compile(r"^\d[\d,.]*\s+(?:things|ones|stuff)\b", _I)
_TIME = re.compile(r"\d\s*(?:am|pm)\b|\d:\d", _I)
#: When the change was made, closing the value ("4321 yesterday").
_WHEN = re.compile(r"\s+(?:yesterday|today|this\s+(?:morning|week|month)|last\s+(?:night|week"
                   r"|month)|earlier(?:\s+today)?|recently)\W*$", _I)


def changed_to(text: str) -> str | None:
    """``text`` ("I changed my PIN to 4321.") said as what the thing now is ("my PIN is
    4321"), or None when it tells no such change."""
    changed = _CHANGED_MY.match(text.rstrip(".!"))
    if changed is None:
        return None
    value = strip_terminator(_WHEN.sub("", text[changed.start("value"):]))
    if _THINGS.match(value):
        return None  # "I changed my opinion to 2 things": no value held
    if (thing := changed["changed"]) is None:
        return f"my {changed['attribute']} is {value}"
    words = thing.split()
    if _EMAIL.match(value):
        return f"my {thing} is {value}"
    if (_CODE.match(value) is None or _TIME.search(value)) and not (
            names_a_secret(words, len(words) - 1) and len(value.split()) == 1):
        return None  # "My flight changed to 6pm", "My PIN changed to something else"
    return f"my {thing} is {value}"


def changed_of_held(text: str, held: Iterable[str]) -> str | None:
    """``text`` ("My job changed to nurse.") said as "I changed my job to nurse." when a
    fact ``held`` gives the thing a value of the same kind ("User's job is teacher"): the
    value replaces that one, whatever its look; else None."""
    changed = _CHANGED_MY.match(text.rstrip(".!"))
    if changed is None or (thing := changed["changed"]) is None:
        return None
    value = strip_terminator(_WHEN.sub("", text[changed.start("value"):]))
    if _THINGS.match(value) or value_kind(value) not in {
            kind for _, kind in held_of(f"my {thing}", held)}:
        return None  # "My email changed to gmail" of "User's email is x@y.com": no address
    return f"I changed my {thing} to {value}."
