"""A thing called off and then back on is due when it was before: "The meeting is on
Friday", "... cancelled now", "... back on now" leaves the meeting on Friday.

The cancellation retired the time it was due at (memory/text/identifiers.py,
``ends_the_time``), and "back on" says no time of its own, so on its own it would leave the
meeting with none. ``time_resumed`` finds the time the user's recent messages, replayed
in order, left it due at, so it is held again beside "back on"; one they forgot, denied or
corrected since is no such time. "Back on at 5pm" says only the hour: ``at_the_time_said``
moves that time to it, keeping its day, as "at 5pm now" would. A time said longer ago
than those messages reach stays in archival only, marked superseded: guessing one from
there could bring back a time the user had since changed. Pure functions over strings.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from tiermem.memory.text.identifiers import (
    due_again,
    keeps_the_day,
    retimes,
    says_when,
    with_new_day,
    with_new_hour,
)
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.slots import ATTRIBUTE, slot_of
from tiermem.memory.text.statements import forgets_the_last, read_statement
from tiermem.memory.text.updates import with_the_time_kept

__all__ = ["at_the_time_said", "brought_back_with", "takes_back_a_cancellation",
           "time_resumed"]

#: A state that takes back a cancellation ("back on", "on again"), and the time it is due
#: at now when one is said with it ("back on at 5pm").
_BACK_ON = re.compile(r"(?:back\s+on|on\s+again|happening\s+again|going\s+ahead\s+after\s+all"
                      r"|no\s+longer\s+cancell?ed|un-?cancell?ed)(?:\s+again)?"
                      r"(?:\s+(?P<when>\S.*))?", re.IGNORECASE)


def _value(fact: str) -> str | None:
    said = ATTRIBUTE.match(fact.strip())
    return said["value"].strip(" .") if said else None


def takes_back_a_cancellation(new: str, ended: Sequence[str]) -> bool:
    """Whether ``new`` ("The meeting is back on", or a time that ended the cancellation,
    "... at 5pm now") takes back a cancellation among ``ended`` ("The meeting is
    cancelled") of the same thing."""
    value, slot = _value(new), slot_of(new)
    back_on = _BACK_ON.fullmatch(value) if value is not None else None
    if value is None or slot is None:
        return False
    if back_on is None:
        # a time that ended one ("at 5pm now") puts the thing back on at that time; one
        # that ended a postponement is just the time it was put off to
        return any((old_value := _value(old)) is not None and due_again(value, old_value)
                   and slot_of(old) == slot for old in ended)
    return ((back_on["when"] is None or says_when(back_on["when"]))
            and any((old_value := _value(old)) is not None and retimes(old_value)
                    and slot_of(old) == slot for old in ended))


def brought_back_with(told: Collection[str], stated: Collection[str]) -> list[str]:
    """The facts of ``stated`` saying when a thing is due that a "back on" among ``told``
    brought back with it ("The meeting is at 3pm" beside "The meeting is back on"): the
    user said no such time then, so taking "back on" back takes it back too, or it would
    stay beside the cancellation held again."""
    resumed = {slot for fact in told if (value := _value(fact)) is not None
               and _BACK_ON.fullmatch(value) and (slot := slot_of(fact)) is not None}
    return [fact for fact in dict.fromkeys(stated) if slot_of(fact) in resumed
            and (value := _value(fact)) is not None and says_when(value)
            and not _BACK_ON.fullmatch(value)]


def _cancellations(slot: str, held: Collection[str]) -> set[str]:
    return {fact for fact in held if (value := _value(fact)) is not None and retimes(value)
            and not says_when(value) and slot_of(fact) == slot}


def _takes_back(messages: Sequence[str]) -> bool:
    return any(forgets_the_last(sentence) for said in messages
               for sentence in split_sentences(said))


def time_resumed(new: str, held_after: Sequence[Collection[str]],
                 stated: Sequence[Collection[str]] | None = None,
                 messages: Sequence[str] | None = None) -> str | None:
    """The fact saying when the thing ``new`` says is back on is due ("The meeting is on
    Friday"), as the user's recent messages left it: ``held_after`` is the facts held after
    each of them, oldest first, as replayed, and ``stated`` those each stated (when not
    given, a cancellation held and not before it is one stated; ``messages``, the
    messages themselves, each "Forget that." among them taking back the one before).
    None when they said none, or when the last one said ended otherwise than by a
    cancellation (forgotten, denied, corrected), even while one called the thing off
    before."""
    slot = slot_of(new)
    if slot is None:
        return None
    due: str | None = None
    called_off: set[str] = set()
    # Cancellations a time said ended ("at 4pm now"): held again by a message taking
    # that time back ("Forget that."), they are no calling off anew.
    ended_by_a_time: set[str] = set()
    for at, held in enumerate(held_after):
        times = [fact for fact in held
                 if (value := _value(fact)) is not None and says_when(value)
                 and slot_of(fact) == slot and read_statement(fact).change != "retraction"]
        calling_off = _cancellations(slot, held)
        newly = (_cancellations(slot, stated[at]) if stated is not None
                 else calling_off - called_off)
        if times:
            # "on Monday" said plainly while called off moves the time the cancellation
            # ended ("on Friday at 3pm") to that day, keeping its hour, as it would have
            # moved the time held.
            moved = (with_the_time_kept(times[-1], due)
                     if due is not None and calling_off else None)
            due = moved or times[-1]
            ended_by_a_time |= called_off - calling_off
        elif due is not None and not (
                newly - ended_by_a_time if _takes_back(messages[at:at + 1] if messages else [])
                else newly):
            # Gone with nothing calling the thing off anew, as "at 4pm" said while it was
            # called off (or "at 4pm now", which put it back on), then "Forget that.": the
            # user took that time back.
            due = None
        called_off = calling_off
    return due


def at_the_time_said(new: str, resumed: str) -> tuple[str, str]:
    """``new`` ("The meeting is back on at 5pm") and the time ``resumed`` it is due at
    again ("The meeting is on Friday at 3pm"), as two facts: "back on" alone, and that
    time moved to the one ``new`` says, as a time said alone would move it ("... on
    Friday at 5pm"). Left together, "back on at 5pm" would stay when the hour changed
    again, and the day would be lost. A time alone ("The meeting is at 5pm") is that
    moved time twice, as it says no "back on". Both as they are when ``new`` says no
    time."""
    value = _value(new)
    back_on = _BACK_ON.fullmatch(value) if value is not None else None
    said = ATTRIBUTE.match(resumed.strip())
    when = back_on["when"] if back_on is not None else value
    if when is None or said is None or not says_when(when):
        return new, resumed
    due = said["value"].strip(" .")
    moved = (with_new_hour(when.strip(" ."), due) or with_new_day(when.strip(" ."), due)
             or (f"{due} {when.strip(' .')}" if keeps_the_day(when.strip(" ."), due)
                 else when.strip(" .")))
    timed = resumed.strip()[:said.start("value")] + moved
    if back_on is None:
        return timed, timed  # "on Monday now" said no "back on": the time alone is held
    alone = new.strip()[:new.strip().rindex(back_on["when"])].rstrip()
    return alone, timed
