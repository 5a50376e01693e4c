"""What of a statement says a forgotten fact as the fact does, for ``says``
(memory/ops/fact_said.py): the concepts of its clauses but those saying the fact's relation
of something else (``of_the_fact``), and the fact's names it says as something else
(``named_otherwise``) or denies it is (``names_denied``), and the user's own name said as
theirs (``names_of_the_user``). Pure functions over strings.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tiermem.memory.text.longer_names import inside_longer_names
from tiermem.memory.text.moves import (
    left_unsaid,
    lived_before_moving,
    places_left,
    places_reached,
    says_a_move,
)
from tiermem.memory.text.plans import months_liked, without_times
from tiermem.memory.text.said_of import (
    clauses_in,
    located_apart,
    named_apart,
    named_where,
    names_in,
    places_its_names,
)
from tiermem.memory.text.wording import concepts

__all__ = ["named_otherwise", "names_denied", "names_of_the_user", "of_the_fact"]


def named_otherwise(part: str, names: set[str], left: set[str], timed: set[str],
                     liked: set[str], reached: set[str]) -> set[str]:
    """The fact's ``names`` that ``part`` says as something else than the fact does: a month
    said only as a time ("I married Jane in June" names no June) or as liked ("I love
    June"; ``liked`` in the whole message, not "I love June. She is my wife."), unless the
    fact says it as one (``timed``), and, of a fact naming the place a
    move ``left``, that place said as where a move went ("I moved from Berlin to Munich"
    left no Munich), or said but as lived in before a move naming none it left ("I visited
    Berlin, then moved to Munich" left no Berlin), and of one naming where a move
    ``reached``, that place said but as where it went ("I lived in Berlin, then moved to
    Munich" moved to no Berlin), and any name said only inside a longer one ("I live in
    New York" names no York)."""
    otherwise = (names & concepts(part)) - concepts(without_times(part)) - timed
    otherwise |= inside_longer_names(part, names)
    otherwise |= names & months_liked(part) & liked - timed
    if says_a_move(part):
        otherwise |= left - (lived_before_moving(part) - places_reached(part)) if left_unsaid(
            part) else left - places_left(part)
        otherwise |= reached - places_reached(part)
    return otherwise


#: A name denied where it is said: "isn't Tom", "is not named Rex", "wasn't called Rex".
_DENIED_NAME = re.compile(r"\b(?:is|was|are|were)(?:n['’]t|\s+not)\s+(?:(?:named|called)\s+)?"
                          r"(?P<name>[A-Z][\w'’-]*)")


def names_denied(part: str, names: set[str]) -> set[str]:
    """The fact's ``names`` that ``part`` says something is not, though what comes before
    the denial holds the fact's words: "My name isn't Tom", "My dog isn't named Rex" or
    "Tom's cat isn't named Rex" names no Tom or Rex as the fact does."""
    return names & _denied(part)


def _denied(part: str) -> set[str]:
    """The concepts of every name ``part`` says something is not: "Max" of "My dog isn't
    Max"."""
    return {word for denied in _DENIED_NAME.finditer(part) for word in concepts(denied["name"])}


#: What the user's own name comes right after: "I'm Tom", "my name is Tom", "call me Tom",
#: "Name: Tom", "I'm Dr. Tom".
_GOES_BY = re.compile(r"(?:\b(?:I\s+am|I['’]m|am|name\s+is|name['’]s|name\s+was|called|named"
                      r"|call(?:s|ed)?\s+me|go(?:es)?\s+by|this\s+is|it['’]s)"
                      r"(?:\s+(?:just|actually|also|still|the|Dr|Mrs?|Ms)\b\.?)?\s+"
                      r"|name\s*[:–—-]\s*|^\W*)$", re.IGNORECASE)
#: The user's own name said alone, "Tom here" or "Tom speaking", ending its clause: not
#: "Tom here is my boss", who is someone else.
_NAME_HERE = re.compile(r"\s+(?:here|speaking)\b(?!\s*[\w(])", re.IGNORECASE)
#: A name of one or more capital words: "Tom", "Tom Smith", "Tom's".
_CAPITALISED = re.compile(r"\b[A-Z][\w-]*(?:\s+(?!I\b)[A-Z][\w-]*)*(?:['’]s\b)?")


def names_of_the_user(part: str) -> set[str]:
    """The concepts of the names ``part`` gives the user as their own: "Tom" of "I'm Tom",
    "My name is Tom", "Name: Tom", "Tom here" or "Hi, Tom here", none of "I'm Tom's dad",
    "I named my son Tom", "Tom saw a cat", "Tom here is my boss" or "I moved to Munich
    with Tom"."""
    own: set[str] = set()
    for name in _CAPITALISED.finditer(part):
        if name[0].endswith(("'s", "’s")) or name[0] == "I":
            continue
        before = part[:name.start()].strip(" \"'“")
        here = _NAME_HERE.match(part, name.end()) is not None
        # Opening the part, the name is the user's only as "Tom." or "Tom here"; after a
        # greeting ("Hi, Tom here") only with "here" or "speaking".
        alone = here or not part[name.end():].strip(" .!\"'”")
        if (before and _GOES_BY.search(part, 0, name.start())) or (not before and alone) or (
                here and before.endswith(",")):
            own |= concepts(name[0])
    return own


def of_the_fact(part: str, fact: str, relation: set[str], names: set[str],
                 opens_sentence: bool, read: Callable[[str], set[str]],
                 placed: bool = False) -> set[str]:
    """The concepts of the clauses of ``part`` but those that say the fact's ``relation``
    of something they name instead of the fact's ``names``, or of a place of their own:
    "I live in Munich" or "I live near the river" of "User lives in Berlin" lends "live"
    neither to "and work in Berlin" nor to "I visited Berlin"; of a fact placing the user
    at its names, nor "I live alone" unless the part is ``placed`` after a lead-in naming
    them ("In Berlin, ..."), and "I live nowhere near Berlin" says neither; a move from a
    place goes on to the fact's (``_moved_on_to``) only as ``read`` says it is so."""
    placing = places_its_names(fact)
    kept: set[str] = set()
    clauses = clauses_in(part, names)
    for at, clause in enumerate(clauses):
        own = concepts(clause)
        if placing and own & names and named_apart(clause, fact, names):
            continue
        # "My dog isn't Max" names no other dog: it says the user's dog is none so named.
        named = names_in(clause, opens_sentence=opens_sentence and at == 0) - _denied(clause)
        # "..., a new flat in Berlin, where we've lived for years" says it of Berlin.
        where = named_where(clause, clauses[at - 1]) if at else set()
        elsewhere = bool((named | where) - names) or (
            not where and located_apart(clause, relation, placing=placing and not placed))
        # Only a move ``read`` as so goes on: "I'd love to move from Munich, where I
        # lived, to Berlin" moved nowhere, and "where I lived" is Munich's.
        elsewhere = elsewhere and not ((_moved_on_to(clause, clauses[at + 1:], names)
                                        or _moved_on_from(clause, clauses[:at],
                                                          names & places_left(fact)))
                                       and bool(read(clause) & relation))
        if not (names and own & relation and not own & names and elsewhere):
            kept |= own
    return kept


#: A move from a place: "I moved from Munich", "we relocated away from Munich".
_MOVED_FROM = re.compile(r"\b(?:mov|relocat|emigrat)(?:e|es|ed|ing)\s+(?:away\s+)?from\b",
                         re.IGNORECASE)


def _moved_on_from(clause: str, earlier: list[str], names: set[str]) -> bool:
    """Whether ``clause`` says a move naming no place it left, from a place of ``names``
    (those a fact's move left) the speaker said ``earlier`` in its statement they left or
    lived in: "I left Berlin and moved to Munich" moved from Berlin; "Anna left Berlin and
    I moved to Munich" did not."""
    return (bool(earlier) and says_a_move(clause) and not places_left(clause)
            and bool(names & lived_before_moving(" ".join([*earlier, clause]))))


def _moved_on_to(clause: str, later: list[str], names: set[str]) -> bool:
    """Whether ``clause`` says a move from a place that a clause ``later`` in its statement
    goes on with, to ``names`` (a fact's) alone: "I moved from Munich, where I lived, to
    Berlin" moved to Berlin; "I moved from Munich and visited Berlin" or "..., to be near
    Berlin" did not."""
    return _MOVED_FROM.search(clause) is not None and any(
        re.match(r"(?i:to|into)\s+[A-Z]", going)
        and names_in(going, opens_sentence=False) == names for going in later)
