"""The new one of a thing named to forget, told beside the request ("Forget my PIN, my new
PIN is 4321", "..., the new one is 4321"), said as the thing itself ("My PIN is 4321."): the
old one goes, so the new one is the thing. What kind a value is, is
memory/text/plan_values.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_openings import THANKS
from tiermem.memory.text.named_lists import things_listed
from tiermem.memory.text.plan_values import no_email, value_kind
from tiermem.memory.text.relations import relation_of
from tiermem.memory.text.secret_names import names_a_secret

__all__ = ["as_one_listed", "as_the_one_named"]

_I = re.IGNORECASE
_APOS = "['’]"
#: A word before "address" that makes it one to reach by wire, whose value is a code
#: ("bob@example.com", "10.0.0.7"), not a place.
_NOT_A_PLACE = re.compile(r"^(?:e-?mail|mail|ip|ipv[46]|mac|web|wallet)$", _I)


#: The verb a new one is told with, now or to come ("is", "will be", "is going to be").
_VERB = r"(?:is\s+going\s+to\s+be|(?:will|shall|should)\s+be|is|=)"
#: A place said of a thing where it is ("in York", "at 9 Elm Road"), as its new value.
_PLACED = re.compile(r"^(?:in|at|near)\s+(?=[A-Z\d])")
#: What is a place, whose new one may be told by where it is ("my address", "my office").
_A_PLACE = re.compile(r"^(?:address|home|house|flat|apartment|office|workplace|gym|school"
                      r"|studio|shop|store|clinic|surgery|base)$", _I)
#: A statement of the new one of a thing ("my new PIN is 4321", "and our new code: 55").
#: Its value may hold any word or comma ("9 Elm Road, Leeds", "Marks and Spencer"); the
#: old one told after it ("... 4321 and my old one was 1234", "... 4321 my old one was
#: 1234"), which is to go, and a courtesy (", thanks", stored in the PIN) are left out.
#: "The new one" or "the new PIN" is of the thing named as "my new PIN" is, and "'s" is "is".
_NEW_ONE_OF = re.compile(r"^\W*(?:(?:and|but|so)\s+)?(?P<owner>my|our|the)\s+new\s+(?P<thing>\w.*?)"
                         rf"(?P<value>(?:\s+{_VERB}\s+|:\s*|{_APOS}s\s+)[^\s,;.!?](?:.*?[^\s,;.!?])?)"
                         r"(?:(?:,?\s+(?:and|but)|[,;])\s+(?:my|our|the)\s+(?:old|previous|former)"
                         r"\b.*?"
                         # with no word between ("4321 my old one was 1234"): in lower case,
                         # as "5 The Old Mill Lane" may be the value
                         r"|\s+(?-i:(?:my|our|the)\s+(?:old|previous|former))\s+\w+\s+(?:was|were)\b.*?"
                         # a statement of its own after a comma ("..., I live in Leeds now")
                         r"|[,;]\s+(?P<more>(?:i|we|my|our|it|he|she|they|you)\b.*?))?"
                         rf"(?:\.?,?\s+(?:please|pls|{THANKS}))*\W*$", _I)


def as_the_one_named(named: str, said: str) -> str:
    """``said`` without its "new" when it tells the new one of the thing ``named`` to
    forget ("My PIN is 4321." of "my new PIN is 4321" beside "Forget my PIN"): the old one
    goes, so the new one is the PIN, and kept as "User's new PIN" it stood apart from it.
    A statement after it is said apart. Any other ``said`` is returned as it is."""
    new = _NEW_ONE_OF.match(said.strip())
    if new is None or not _names_the_one(new, named) or said.rstrip().endswith("?"):
        return said  # asked ("The new one is 4321?"): no new one told
    more = f" {new['more'][:1].upper()}{new['more'][1:]}." if new["more"] else ""
    value = re.sub(rf"^{_APOS}s\s+", " is ", new["value"])
    if no_email(named, re.sub(rf"^\s*(?:{_VERB}|:)\s*", "", value)):
        # "my new email is 4321" beside "Forget my email" is no email told: said as the
        # email, "User's email is 4321" was stored, as "the new one is 4321" is not
        return more.strip()
    return f"{named[:1].upper()}{named[1:]}{value}.{more}"


def _names_the_one(new: re.Match[str], named: str) -> bool:
    """Whether the new one ``new`` tells of is the thing ``named``: "my new PIN" of "my
    PIN", or, with a value that is one, "the new one", "my new one" or "the new number" of
    "my phone number"; read as said, "The new one is 4321" was stored, and after a comma
    the request matched nothing and the PIN stayed."""
    if f"{new['owner']} {new['thing']}".casefold() == named.casefold():
        return True
    thing, words = new["thing"].casefold().split(), named.casefold().split()[1:]
    return ((thing == ["one"] or (new["owner"].casefold() == "the"
                                  and words[-len(thing):] == thing))
            and _fits(words, re.sub(rf"^\s*(?:{_VERB}|:|{_APOS}s)\s*", "", new["value"])))


def _fits(words: list[str], value: str) -> bool:
    """Whether ``value`` may be the new one of the thing named in ``words`` ("pin"): not
    another's ("Tom's"), a code of a secret's, a name of someone's; "Forget my PIN, the new
    one is Tom's" stored "User's PIN is Tom's", and "... is Eva" "User's PIN is Eva"."""
    placed = _PLACED.match(value)
    kind = value_kind(value[placed.end():] if placed else value)
    if kind is None or re.search(rf"{_APOS}s?$", value) or no_email(" ".join(words), value):
        return False
    if placed is not None:
        # "the new one is in York" places a place ("User's address is in York" was lost
        # without a word), but no email address, phone or one of the user's
        return kind == "name" and _A_PLACE.match(words[-1]) is not None and not (
            _NOT_A_PLACE.match(" ".join(words[-2:-1])))
    if any(names_a_secret(words, at) for at in range(len(words))):
        return kind == "code"
    if words[-1:] == ["address"] and not _NOT_A_PLACE.match(" ".join(words[-2:-1])):
        # a place holds a name after its number: "User's address is 4321" was stored
        return kind == "name"
    return kind == "name" or not words or relation_of(words[-1]) is None


def as_one_listed(named: Iterable[str], said: str) -> str:
    """``said`` as ``as_the_one_named`` tells it of the first of the things ``named`` (each
    all a request names, or a list: "my PIN and my password") it tells the new one of:
    "Forget my PIN and my password, my new PIN is 4321" was read as naming neither."""
    for whole in named:
        for thing in things_listed(whole) or [whole]:
            if (told := as_the_one_named(thing, said)) != said:
                return told
    return said
