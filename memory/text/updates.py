"""What a statement changes: new values, corrections and retractions of earlier facts.

Rule-based, like memory/text/extract.py, whose facts it compares; everything here is
a pure function over strings. How one sentence reads as a change (a retraction, an
update or correction with its cue, or a plain statement: ``read_statement``,
``as_news``, ``own_clauses``) is memory/text/statements.py's, re-exported here. This
module answers what such a statement changes among the facts held:

``subject_of(fact)`` (memory/text/subjects.py, re-exported here) names who or what a fact
is about. ``slot_of(fact)`` (memory/text/slots.py, re-exported here) names the single-valued
attribute a fact sets, when that is clear. One of the user's named in two ways that may be
one person ("User's partner", "User's boyfriend"; "User's brother Tom", "User's older
brother Tom") is one person to ``replaces``.

``replaces(new, old, change)`` says whether a new fact supersedes an old one (one of a
joint subject, "Tom and User work at Globex", sets the slot of each of them:
``member_slots``, and a value of one of them ends it when the others' share can stand
alone: memory/text/joint_shares.py):
one says the other with "not" or "no longer" ("User is not vegetarian", "User doesn't like
tea": memory/text/negations.py); or they set the same
slot (a belief, "User: I think my sister lives in Madrid", the slot of what it holds:
memory/text/beliefs.py), and for an "X is V" slot the values look alike (a name or code such as
"Ana" or "eu-west-1", "a ..." or plain words, or two plans, "Pro" and "free", two
things of one noun, "the SRE team" and "the platform team", or a reading and a level,
"2%" and "high"; a time ends only a time, so "The deploy is stable now" leaves "... is at
5pm", and a day a day however said, "Friday" ending "on Thursday", but a time ends
"postponed", which waited for it): "The database is
overloaded" is
one more fact about a database on PostgreSQL 15, not a new value of it; plain words said of
a person or pet by the noun for them, "User's sister is pregnant", are one more of the
states they are in, "vegan" too, unless said with a change cue (with one, a lasting
state ends only one of its kind, the user's too: "User is vegetarian" ends "User is
vegan", and "tired" leaves "pregnant", which leaves "vegan":
memory/text/lasting_states.py); a
person's name, what they are ("a nurse") and a state or an age never replace each other
("User's partner is vegan" or "User's son is 5" leaves "... is Tom";
memory/text/kin_values.py), and an age, a height or a weight ends only one of the same
measure; a second name said plainly of one of those the user may have several of
("User's brother is Sam" after "... is Tom") is another of them; and with a change cue a
new name still leaves a state: "The database is PostgreSQL 16 now" leaves
"overloaded", nor does a state replace a thing's name (memory/text/identifiers.py): "The
primary database is down now" (or "down until 5pm now", or a kind, "a replica now")
leaves "db-01", as "My new car is red" leaves "... is a Golf" and "My new friend is Tom"
Ana, one of several, though "my new" names
another secret, whose value ends the one held whatever it looks like ("My new password is
swordfish" ends "hunter2", as one said plainly does, "My password is swordfish", unless
it says how the secret is, "strong" or "expired"); with a change cue, a slot said in general
is the slot the old fact said for a time, "The on-call rotation this week is ...", but
not the other way round); or the statement carried a change cue, the two are about the
same subject ("Customer Acme is now on the Pro plan" leaves Globex's plan) and share at least two
concepts, which is at least half of the smaller one's, one of them not a word of the
subject ("prefers aisle seats on flights" replaces "prefers window seats on flights",
"Customer Acme is now on the Pro plan" replaces "Customer Acme is on the Team plan",
sharing "plan", but leaves "Customer Acme uses SSO", which shares only the customer's
name). A thing's move replaces where
or when it was, to a value of the same look ("The meeting moved to Friday" replaces "The
meeting is on Thursday", "The incident moved to sev2" replaces "The incident is sev1";
"The team moved to the new office" leaves "The team is great"). The user's move said
undone in the same fact ("User moved to Berlin but User is back") leaves their home, but
ends the move it takes back ("User moved to Berlin"; memory/text/moves.py).

One named beside whose they are ("Anna's husband Tom") is the one the name alone or the
relation named anew names (memory/text/appositions.py).

What a retraction retires, and what a fact listing several items still says without
the denied ones, is memory/text/retractions.py's.

``said_in_full(new, old)``: a held name in full says the shorter one ("User's brother is
Tom Smith" says "... is Tom"), which then adds no second brother; a marriage with the
partner named says it without ("User is married to Ana" says "User is married").

``stated_beside(fact, held)`` is what an extracted fact states beside the facts ``held``:
a greeting's introduction ("Hi, I'm Nervous") names the speaker only when no other name
of theirs is held, and is otherwise read as no introduction ("User is Nervous",
short-lived), so that only "My name is X" and "Call me X" change a name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.appositions import as_namings, named_anew, one_more_named
from tiermem.memory.text.beliefs import believed
from tiermem.memory.text.extract import ExtractedFact, normalize_fact
from tiermem.memory.text.identifiers import (
    at_other_times,
    count_beside_state,
    counts_alike,
    due_again,
    ends_the_time,
    keeps_the_day,
    of_one_kind,
    says_when,
    sets_the_time,
    with_new_day,
    with_new_hour,
)
from tiermem.memory.text.joint_shares import shares_kept
from tiermem.memory.text.kin_values import another_of_several, measure_of, of_someone
from tiermem.memory.text.lasting_states import (
    diet_changed,
    job_changed,
    lasting_beside_state,
    marriage_changed,
    partner_left_out,
)
from tiermem.memory.text.moves import moved_from, takes_back, undoes_a_move
from tiermem.memory.text.negations import negation_of
from tiermem.memory.text.owners import may_be_same_kin
from tiermem.memory.text.relations import may_be_one_partner

# Which attribute a fact sets lives in its own module; re-exported, as callers import it here.
from tiermem.memory.text.slots import (
    ATTRIBUTE,
    VERB_SLOT,
    member_slots,
    role_of,
    slot_of,
)

# How a sentence reads as a change lives in its own module; re-exported, as callers import
# it here.
from tiermem.memory.text.statements import Statement, as_news, own_clauses, read_statement

# Who a fact is about lives in its own module; re-exported, as callers import it here.
from tiermem.memory.text.subjects import SUBJECT_VERB, same_subject, subject_concepts, subject_of
from tiermem.memory.text.value_looks import (
    name_beside_state,
    names_over_state,
    new_one_beside,
    new_one_named,
    secret_length,
    secret_told_anew,
    value_kind,
)
from tiermem.memory.text.wording import concepts

__all__ = ["SUBJECT_VERB", "Statement", "as_news", "own_clauses", "read_statement", "replaces",
           "role_of", "said_in_full", "slot_of", "stated_beside", "subject_of",
           "with_the_time_kept"]

_I = re.IGNORECASE
_APOS = "['’]"


# ---------------------------------------------------------------------------
# Which old facts a statement changes

_MIN_SHARED = 2


def _own_concepts(fact: str) -> set[str]:
    return concepts(fact) - {"user"}



#: A time an old fact's subject was said to hold for ("The on-call rotation this week is ...").
_TIMED_SUBJECT = re.compile(
    r"^(?P<subject>[\w' .-]{2,60}?)\s+(?:right\s+now|currently|at\s+the\s+moment|for\s+now"
    r"|today|tonight|this\s+(?:week|month|morning|afternoon|evening))(?=\s+(?:is|are)\s)", _I)


def _general_slot(new_slot: str | None, old: str, change: str | None) -> bool:
    """Whether ``new`` (its slot ``new_slot``), said as a change, sets in general what
    ``old`` set for a time ("The on-call rotation this week is Alice then Bob", then "...
    is actually Bob then Carol"). Never the other way: what holds today or this week
    leaves what holds in general ("The standup today is at 10am" keeps "... at 9am")."""
    timed = _TIMED_SUBJECT.match(old.strip())
    return (change is not None and new_slot is not None and timed is not None
            and slot_of(timed["subject"] + old.strip()[timed.end():]) == new_slot)


def _kin_slot(new_slot: str | None, old_slot: str | None, new: str, old: str,
              change: str | None) -> bool:
    """Whether two slots are one attribute of one of the user's, named in two ways that
    may be one person ("User's partner works at Globex" after "User's boyfriend works at
    Acme"; "User's brother Tom" after "User's older brother Tom"); or whom the user is
    with, named anew as a change ("My partner is Sam now" after "My boyfriend is Tom" or
    "My wife is Ana"): said plainly, "My partner is Sam" may be a partner at work, and
    "My partner is vegan now" names no one."""
    if new_slot is None or old_slot is None or role_of(new_slot) != role_of(old_slot):
        return False
    if role_of(new_slot) == "partner":
        return (change is not None and value_kind(new) == value_kind(old) == "name"
                and may_be_one_partner(new_slot.rpartition("/")[2], old_slot.rpartition("/")[2]))
    return may_be_same_kin(new, old)


def replaces(new: str, old: str, change: str | None) -> bool:
    """Whether the new fact ``new`` supersedes ``old`` (``change``: the statement's cue).

    Without a change cue an attribute ("my sister is ...") changes only to a value of the
    same look: "Ana" replaces "Anna", but "pregnant" is one more fact about her, beside
    "Ana" or "vegan", and "Sam" is a second brother beside "Tom" (the state of a thing,
    "The incident is resolved", still ends "The incident is ongoing"). With one,
    facts about different subjects do only when the new one gives the old one's
    predicate to another subject ("Alice now leads the payments team") or names the old
    one's subject ("Alice is now the on-call engineer"): "Customer Acme is now on the Pro
    plan" leaves Globex's plan. Facts about one subject share its words whatever they say
    of it, so those words alone never make a new value ("Customer Acme uses SSO" stays)."""
    if one_more_named(new, old):
        return False  # "Ana is User's team lead now" is one more beside Tom
    new, old = as_namings(new, old)  # "Tom is User's boss": the boss's name
    if normalize_fact(new) == normalize_fact(old):
        return False
    if negation_of(new, old) or moved_from(new, old) or named_anew(new, old, change, replaces):
        return True
    if change is not None and diet_changed(new, old):
        return True  # said plainly, "I'm vegetarian" may only add to "vegan": both stay
    if job_changed(new, old) or marriage_changed(new, old, change is not None):
        return True  # "unemployed" beside "works at Acme", said plainly too, contradicts it
    new_slot, old_slot = slot_of(new), slot_of(old)
    if old_slot is not None and old_slot in member_slots(new):
        new_slot = old_slot  # "Tom and User work at Globex" ends "Tom works at Initech"
    elif new_slot is not None and new_slot in member_slots(old) and shares_kept(new, old):
        # "Tom works at Acme" ends "Tom and Anna work at Globex", Anna's share kept apart;
        # "Tom and his wife ..." has no share that names her alone, so it stays.
        old_slot = new_slot
    if old_slot is None and (belief := believed(old)) is not None and believed(new) is None:
        # "My sister lives in Rome now" ends "User: I think my sister lives in Madrid"
        return new_slot is not None and new_slot == slot_of(belief)
    if _general_slot(new_slot, old, change) or _kin_slot(new_slot, old_slot, new, old, change):
        old_slot = new_slot
    if new_slot is not None and new_slot == old_slot:
        if new_one_beside(new, old, new_slot, change):
            return False  # "My new friend is Tom" is one more, and "My new job is hard" new
        if secret_length(new, old, new_slot):
            return False  # "My password is 12 characters long" leaves "hunter2"
        if change is None and secret_told_anew(new, old, new_slot):
            return True  # "My password is swordfish" ends "hunter2": one is held at a time
        if any(VERB_SLOT.match(fact.strip()) for fact in (new, old)):
            # "moved to Berlin but is back": the home stays, the move to Berlin does not
            return not undoes_a_move(new) or takes_back(new, old)
        if of_someone(new) and (measures := {measure_of(new), measure_of(old)}) != {None}:
            # "6 feet" ends "5'11\"", but says how tall Leo is, not how old ("5") or who
            return len(measures) == 1
        values = [m["value"] if (m := ATTRIBUTE.match(fact.strip())) else "" for fact in (new, old)]
        if not of_someone(new) and of_one_kind(values[0], values[1], new_slot.rpartition("/")[2]):
            return True  # "free" ends "Pro", and "the platform team" "the SRE team"
        # "The deploy is stable now" says how it went, not when it is; "postponed now" or
        # "delayed to 8pm now" says it is no longer when it was, whatever its words hold.
        if ends_the_time(values[0], values[1]) or sets_the_time(values[0], values[1]):
            return True  # "at 5pm" after "postponed" is when it was put off to
        if change is not None and due_again(values[0], values[1]):
            return True  # "at 5pm now" after "cancelled": said plainly, it may be the old time
        if says_when(values[0]) != says_when(values[1]):
            return False
        if at_other_times(values[0], values[1]):
            return False  # "closed on Sunday now" says nothing of "busy in the evening"
        if keeps_the_day(values[0], values[1]):
            return False  # "at noon now" leaves "on Friday": the meeting is at noon on Friday
        if with_new_hour(values[0], values[1]) is not None:
            return True  # "at 5pm" moves "on Friday at 3pm" within its day, as "at noon" does
        if counts_alike(values[0], values[1]):
            return True  # "five nodes" ends "3 nodes", and "an hour" "45 minutes"
        if count_beside_state(values[0], values[1]):
            return False  # "The cluster is degraded now" says how it is, not its size
        if says_when(values[0]) and says_when(values[1]):
            return True  # "Friday" ends "on Thursday", and "Monday at 3pm" "on Friday"
        if not new_one_named(new, old, new_slot, change) and name_beside_state(new, old):
            # "The primary database is down now" says how db-01 is, as "My new car is red"
            # says how the new car is, beside the Golf; but "my new password" ends the
            # one held, and its value is no state of it ("swordfish")
            return False
        kinds = {value_kind(new), value_kind(old)}
        same_look = len(kinds) == 1
        if change is None:
            # "pregnant" after "vegan": a person is in many states at once, and only a
            # cue says one of them ended; a second brother named is one more brother.
            return same_look and not ((value_kind(new) == "plain" and of_someone(new))
                                      or another_of_several(new, old))
        if lasting_beside_state(new, old, of_someone(new)):
            return False  # "tired now" leaves "pregnant": only its own kind ends one
        if not same_look and of_someone(new):
            # "My partner is vegan now" says how Tom is, not who; "My sister is pregnant
            # now", how the nurse is, not what she does
            return False
        return same_look or not names_over_state(new, old)
    if change is None or (new_slot is not None and old_slot is not None):
        return False
    if not same_subject(new, old):
        return False
    new_concepts, old_concepts = _own_concepts(new), _own_concepts(old)
    shared = new_concepts & old_concepts
    # Any two facts about "Customer Acme" share its words; only what they say of it tells
    # a new plan (shared "plan") from another attribute ("uses SSO") that still holds.
    return (len(shared) >= _MIN_SHARED
            and 2 * len(shared) >= min(len(new_concepts), len(old_concepts))
            and bool(shared - subject_concepts(new, old)))


def with_the_time_kept(new: str, old: str) -> str | None:
    """``new`` as the fact it makes of ``old``, when it moves a thing ``old`` says is due
    on a day at an hour ("The meeting is on Friday at 3pm") to another hour of that day
    ("The meeting is at noon", "... in the morning"): "The meeting is on Friday at noon";
    or to another day, which keeps the hour ("The meeting is on Monday": "... on Monday at
    3pm"). None otherwise."""
    if slot_of(new) is None or slot_of(new) != slot_of(old):
        return None
    said = [ATTRIBUTE.match(fact.strip()) for fact in (new, old)]
    if said[0] is None or said[1] is None:
        return None
    moved = (with_new_hour(said[0]["value"], said[1]["value"])
             or with_new_day(said[0]["value"], said[1]["value"]))
    return None if moved is None else old.strip()[:said[1].start("value")] + moved


def said_in_full(new: str, old: str) -> bool:
    """Whether ``old`` says ``new`` with the name in full: "User's brother is Tom Smith"
    says "User's brother is Tom", so the short name, said plainly, is no second brother
    and no new name; stored instead of the full one, it would lose the surname. So does
    "User is married to Ana" say "User is married" (``partner_left_out``)."""
    if partner_left_out(new, old):
        return True
    slot = slot_of(new)
    if slot is None or slot_of(old) != slot:
        return False
    names = [m["value"].strip(" .") if (m := ATTRIBUTE.match(fact.strip())) else ""
             for fact in (new, old)]
    if not all(name[:1].isupper() for name in names):
        return False  # an age or a state, not a name
    short, full = (name.casefold().split() for name in names)
    return len(full) > len(short) and full[:len(short)] == short


def stated_beside(fact: ExtractedFact, held: Iterable[str]) -> ExtractedFact:
    """``fact``, or, for an introduction ("Hi, I'm Nervous"), its plain reading ("User is
    Nervous") when one of the statements ``held`` gives the speaker another name: a greeting
    can be followed by what the speaker is as well as by who, so it never changes a name."""
    slot, key = slot_of(fact.text), normalize_fact(fact.text)
    if fact.plain is None or slot is None:
        return fact
    if any(slot_of(old) == slot and normalize_fact(old) != key for old in held):
        return fact.plain
    return fact
