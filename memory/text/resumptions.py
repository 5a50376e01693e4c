"""A thing called off and then back on is due when it was before: "The meeting is on
Friday", "... cancelled now", "... back on now" leaves the meeting on Friday.

The cancellation retired the time it was due at (memory/text/identifiers.py,
``ends_the_time``), and "back on" says no time of its own, so on its own it would leave the
meeting with none. ``time_resumed`` finds the time the user last said for it among their
recent messages, so it is held again beside "back on". A time said longer
ago than those messages reach stays in archival only, marked superseded: guessing one
from there could bring back a time the user had since changed. Pure functions over
strings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tiermem.memory.text.extract import extract_facts
from tiermem.memory.text.identifiers import retimes, says_when
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.slots import ATTRIBUTE, slot_of
from tiermem.memory.text.statements import read_statement
from tiermem.memory.text.updates import with_the_time_kept

__all__ = ["time_resumed"]

#: A state that takes back a cancellation without saying when ("back on", "on again").
_BACK_ON = re.compile(r"(?:back\s+on|on\s+again|happening\s+again|going\s+ahead\s+after\s+all"
                      r"|no\s+longer\s+cancell?ed|un-?cancell?ed)(?:\s+again)?", re.IGNORECASE)


def _value(fact: str) -> str | None:
    said = ATTRIBUTE.match(fact.strip())
    return said["value"].strip(" .") if said else None


def _resumes(new: str, old: str) -> bool:
    """Whether ``new`` ("The meeting is back on") takes back the cancellation ``old``
    ("The meeting is cancelled") of the same thing."""
    values = [_value(new), _value(old)]
    return (values[0] is not None and values[1] is not None
            and _BACK_ON.fullmatch(values[0]) is not None and retimes(values[1])
            and slot_of(new) is not None and slot_of(new) == slot_of(old))


def time_resumed(new: str, ended: Sequence[str], recent: Sequence[str]) -> str | None:
    """The fact saying when the thing ``new`` says is back on is due ("The meeting is on
    Friday"), when ``new`` takes back a cancellation among ``ended`` and the user's
    ``recent`` messages (newest first) said a time for it; None otherwise."""
    if not any(_resumes(new, old) for old in ended):
        return None
    slot = slot_of(new)
    due: str | None = None
    for message in reversed(recent):
        # Oldest first, as said: a later time moves an earlier one, and an hour alone
        # ("at 5pm now") keeps the day held ("on Friday at 3pm").
        for sentence in split_sentences(message):
            statement = read_statement(sentence)
            if statement.change == "retraction" or not statement.text:
                continue
            for fact in extract_facts(statement.text):
                value = _value(fact.text)
                if value is None or not says_when(value) or slot_of(fact.text) != slot:
                    continue
                due = fact.text if due is None else with_the_time_kept(fact.text, due) or fact.text
    return due
