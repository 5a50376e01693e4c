"""What "it" names when a change opens with it: "Actually it's on Monday", after "The
meeting is on Friday", is the meeting's day.

Stored as said, "It's on Monday" names nothing a later question can find, and leaves the
Friday it corrects held as current. ``named_for_it`` reads "it" as the one thing the
user's last statement named, and only when the reading is a new value of what that
statement said of it (a day for a day): "Actually it's raining" says nothing of the
meeting, and with two things named ("The meeting is on Friday and the party is on
Saturday") which one "it" is, nothing says; both are left as said. Nor is a bare hour or
day said "now" or "today" ("It's 6pm now", "It's Monday today"): that is the clock or the
calendar, not the meeting's new time. Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.clauses import clauses_of
from tiermem.memory.text.extract import extract_facts
from tiermem.memory.text.identifiers import says_when
from tiermem.memory.text.slots import ATTRIBUTE
from tiermem.memory.text.updates import replaces

__all__ = ["named_for_it"]

#: "It's ..." or "It is ...": the value said of a thing the sentence does not name.
_IT_IS = re.compile(r"it(?:['’]s|\s+is)\s+(?P<value>\S.*)", re.IGNORECASE)
#: What a time said of a thing opens with ("on Monday", "at 6pm"); a time said without one
#: ("6pm", "Monday") after "it's" may be what the clock or the calendar says.
_PREPOSITION = re.compile(r"(?:on|at|in|from|until|till|by|to|for|before|after|around)\b",
                          re.IGNORECASE)
#: A day said to be today's: "It's Monday today".
_TODAY = re.compile(r"\s(?:today|tonight)$", re.IGNORECASE)
#: A thing named by its noun ("The meeting"), not a person or one of the user's.
_THING = re.compile(r"the\s+\S.*", re.IGNORECASE)


def named_for_it(text: str, said_last: str | None, change: str | None) -> str:
    """``text`` ("It's on Monday.") with "it" read as the one thing ``said_last``, the
    user's last statement, named ("The meeting is on Monday."), when ``text`` is said as
    a change (``change``, its cue) and so read it gives that thing a new value of what
    ``said_last`` said of it; ``text`` otherwise."""
    opened = _IT_IS.fullmatch(text.strip())
    if opened is None or change is None or not said_last:
        return text
    value = opened["value"].strip(" .")
    if (says_when(value) and _PREPOSITION.match(value) is None
            and (change == "now" or _TODAY.search(value) is not None)):
        return text  # "It's 6pm now" tells the time of day, not the meeting's
    said = [(match["subject"], part) for fact in extract_facts(said_last)
            for part in clauses_of(fact.text)
            if (match := ATTRIBUTE.match(part.strip())) is not None]
    things = {subject.casefold() for subject, _ in said if _THING.fullmatch(subject)}
    if len(things) != 1 or len(said) != 1:
        return text
    subject, old = said[0]
    named = f"{subject[:1].upper()}{subject[1:]} is {opened['value']}"
    return named if replaces(named.rstrip(" ."), old, change) else text
