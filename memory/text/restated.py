"""A request naming what to forget that says the thing again after "I mean", with what is
said of it ("Forget my PIN, I mean my PIN is old"), read as a remark on what goes; another
thing named so with a remark that its value is no longer right ("..., I mean my password is
old") is the one meant.
"""

from __future__ import annotations

import re

from tiermem.memory.text.forget_openings import FORGET_NAMED
from tiermem.memory.text.plan_values import value_told
from tiermem.memory.text.relations import relation_of

__all__ = ["BREAK", "restated"]

_I = re.IGNORECASE

#: A comma or semicolon, maybe with "and", "but" or "so", or one of those bare: where
#: what follows a request may be no more of it.
BREAK = r"(?:\s*[,;]\s*(?:(?:and|but|so)\s+)?|\s+(?:and|but|so)\s+)"
#: The thing a request named, said again after "I mean" with what is said of it ("...,
#: I mean my PIN is old").
_RESTATED = re.compile(rf"{BREAK}i\s+meant?\s+(?P<thing>(?:my|our|the)\s+[^,;]+?)\s+"
                       r"(?P<verb>is|are)\s+(?=\S)", _I)
#: What is said of it that names nothing and no one ("old", "out of date").
_SAID_OF_IT = re.compile(r"^(?!(?:my|our|his|her|their|its|a|an|the)\b)[a-z][a-z' -]*"
                         r"(?:[,;].*)?\W*$")

#: A remark that a thing's value is no longer right ("old", "out of date", "wrong").
_STALE = re.compile(r"^(?:(?:too|very|really|way)\s+)?(?:old|outdated|out\s+of\s+date|wrong"
                    r"|incorrect|expired|obsolete|stale|changed|no\s+longer\s+(?:valid|right"
                    r"|correct|used)|not\s+(?:right|correct|valid)(?:\s+any\s*more)?)"
                    r"(?:\s+now)?\W*$", _I)


def restated(request: str) -> str:
    """``request`` with what it names to forget, said again after "I mean", said as "it"
    ("Forget my PIN, it is old" of "Forget my PIN, I mean my PIN is old"): a remark on
    what goes, stored as "User: I mean my PIN is old", or a new value of it, as "it is"
    says one; "Forget my password, it is old" of "Forget my PIN, I mean my password is
    old"."""
    text = request.strip()
    opening = FORGET_NAMED.match(text)
    again = _RESTATED.search(text)
    if opening is None or again is None:
        return request
    if _bare(again["thing"]) != _bare(text[opening.end():again.start()]):
        # "Forget my PIN, I mean my password is old": the password is the one meant, as
        # "I meant my password" says, and "is old" a remark on it
        # of someone ("my brother is old"), it tells their age
        if (_STALE.match(text[again.end():]) is None or again["thing"][:3].casefold() == "the"
                or relation_of(again["thing"].split()[-1]) is not None):
            return request
        text = f"{text[:opening.end()]}{again['thing']}{text[again.start():]}"
        again = _RESTATED.search(text)
        assert again is not None
    pronoun = "they" if again["verb"].casefold() == "are" else "it"
    remark = f"{pronoun} {again['verb']} {text[again.end():]}"
    if value_told(remark) is not None:  # said again as it is now: "Maria" is no remark
        return f"{text[:again.start()]}, {pronoun} {again['verb']} now {text[again.end():]}"
    if not _SAID_OF_IT.match(text[again.end():]):
        return request  # "... is my cousin": more than a remark
    return f"{text[:again.start()]}, {remark}"


def _bare(thing: str) -> str:
    """``thing`` with no word of whose it is ("pin" of "my PIN", "the PIN")."""
    return re.sub(r"^(?:my|our|the)\s+", "", thing.strip(" .!").casefold())
