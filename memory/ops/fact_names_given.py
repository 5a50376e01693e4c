"""The names a statement gives, read for whether it says a forgotten fact (``says`` in
fact_said.py): the kind a name is given to, the name a relation of the user's is put
beside, the name others call the user, and a statement without names given to others of
a kind.
"""

from __future__ import annotations

import re

from tiermem.memory.text.mine import kinds_named, same_kind
from tiermem.memory.text.owners import relation_of
from tiermem.memory.text.subject_words import SCARCELY
from tiermem.memory.text.wording import concepts

#: A statement that is only someone of the user's: "my wife" of "I love June, my wife.".
_ONLY_MINE = re.compile(r"\s*(?:my|our)\s+(?P<relation>[\w'’-]+)\s*[.!]?\s*", re.IGNORECASE)
#: The name a statement ends with: "I love June".
_NAME_LAST = re.compile(r"\b([A-Z][\w'’-]*)\s*$")


#: A word of those said to call the user something, none that denies, doubts, wishes or
#: stops it: "Nobody", "Barely anyone", "don't", "I wish they", "stopped".
_CALLER = (r"(?:(?!(?:i|nobody|no|none|noone|not|never|[a-z]*n['’]t|cannot|rarely|seldom"
           r"|wish|want|wants|would|should|could|will|may|might|if|when|whether|please"
           r"|stop|stops|stopped|stopping|quit|quits|quitting|" + "|".join(sorted(SCARCELY)) +
           r")\b)[\w'’-]+\s+){1,4}?call(?:s|ed|ing)?\s+me")
_NAME = r"(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)*"
#: Others giving the user a name: "Everyone calls me Tom", "My friends call me Tom",
#: "People have always called me Tom", "People keep calling me Tom", "Tom is what everyone
#: calls me"; not "Nobody calls me Tom", "Barely anyone calls me Tom", "Don't call me
#: Tom", "Stop calling me Tom" nor "I wish they called me Tom", nor "Everyone calls me
#: Tom's dad".
_CALLED_ME = re.compile(
    rf"\W*(?:{_CALLER}\s+(?P<name>{_NAME})(?![\w'’])(?:\s+too)?"
    rf"|(?P<named>{_NAME})(?:\s+is|['’]s)\s+what\s+{_CALLER})\s*[.!,]?\s*", re.IGNORECASE)


def called_by_others(part: str) -> set[str]:
    """The concepts of the name others are said to call the user in ``part``: "Tom" of
    "Everyone calls me Tom."."""
    called = _CALLED_ME.fullmatch(part)
    return concepts(called["name"] or called["named"]) if called else set()


def kinds_alike(part: str, kinds: dict[str, str]) -> set[str]:
    """The concepts of the kinds ``part`` gives a fact's names to that may be the fact's
    own ``kinds``: "cat" of "I have a cat that is named Rex" for "User has a pet named
    Rex"."""
    return {word for name, kind in kinds_named(part).items()
            if name in kinds and same_kind(kind, kinds[name]) for word in concepts(kind)}


def apposed_name(part: str, before: str) -> set[str]:
    """The concepts of the name ``before`` ends with when ``part`` only says who that is
    to the user: "I love June, my wife." names the user's wife June."""
    only = _ONLY_MINE.fullmatch(part)
    name = _NAME_LAST.search(before) if only and relation_of(only["relation"]) else None
    return concepts(name.group(1)) if name else set()


def without_others_named(part: str, named_kinds: dict[str, str], names: set[str]) -> str:
    """``part`` without where it gives one of a kind (``named_kinds``, its own) a name
    that is none of a fact's ``names``: "Tom saw a cat" of "Tom saw a cat named Rex"."""
    for kind in set(named_kinds.values()):
        part = re.sub(rf"\b(?P<kind>{re.escape(kind)})\s+(?:(?:that|which|who)\s+)?"
                      r"(?:(?:is|was)\s+)?(?:named|called)\s+(?P<name>[A-Z][\w'’-]*)",
                      lambda naming: (naming[0] if concepts(naming["name"]) & names
                                      else naming["kind"]), part)
    return part
