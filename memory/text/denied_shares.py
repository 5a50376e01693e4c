"""A shared denial told in full: "My wife doesn't eat meat. I don't either." -> "I don't eat
meat", and "I'm not vegan. Neither is my wife." -> "My wife isn't vegan".

The speaker sharing what is not so ("I don't either", "Neither am I", "Me neither"), or
someone sharing the speaker's or another's ("my wife doesn't either", "Ana doesn't either"
after "Tom doesn't know"), states nothing on its
own; read with the denial before it, it is told in full (memory/text/ellipses.py reads
the sentences and calls on this). One whose verb is not the one denied, or one after no
denial this module can tell, tells nothing.
Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.no_longer import held_once
from tiermem.memory.text.relations import is_family, relation_of
from tiermem.memory.text.shared_words import AFTER, APOS, CLAUSE_BREAK, OPENING, SOMEONE, said_now

__all__ = ["NEG_ALONE", "NEG_CLOSING", "neg_filled"]

_I = re.IGNORECASE


def _neg_shared(someone: str) -> str:
    """The speaker sharing what is not so ("I don't either", "Neither am I", "Me neither"),
    or ``someone`` sharing it: ``neg`` is the verb said, any auxiliary, so that one this
    module cannot tell is dropped."""
    return (rf"(?:i\s+(?:(?P<neg>am|do|have|was|can|could|will|would|did)(?:\s+not|n{APOS}t)"
            rf"|can{APOS}t|cannot|won{APOS}t)"
            rf"|i{APOS}m\s+(?P<neg_be>not)|(?P<neg_me>me)"
            r")\s*,?\s+(?:either|neither)"
            r"|(?:neither|nor)\s+(?P<neg_inverted>am|do|have|was|can|could|will|would|did)\s+i"
            # someone of the speaker's, or someone named ("my wife doesn't either")
            rf"|(?P<neg_other>{someone})\s+(?P<neg_other_verb>is|was|does|has)"
            rf"(?:\s+not|n{APOS}t)\s*,?\s+either"
            rf"|(?:neither|nor)\s+(?P<neg_inv_verb>is|was|does|has)\s+(?P<neg_inv>{someone})")


_NEG_SHARED = _neg_shared(SOMEONE)
#: Joined to the denial it shares, "the DB" is someone too: "The API doesn't respond and
#: the DB doesn't either" says the DB is down; read as "... and the DB doesn't", it was lost.
#: A time after it ("neither does the DB today") is no part of who.
_NEG_SHARED_JOINED = _neg_shared(
    rf"{SOMEONE}|the\s+[\w'’-]+"
    r"(?:\s+(?!(?:today|tonight|now|yet|again|anymore|either)\b)[\w'’-]+)?")
NEG_ALONE = re.compile(rf"^\W*(?:(?:and|but)\s+)?{OPENING}(?:{_NEG_SHARED}){AFTER}", _I)
#: A comma or a spaced dash alone may join it too: "..., neither does my brother".
NEG_CLOSING = re.compile(rf"^(?P<before>.*?\w)\W*?(?:(?:,\s*|\s+)(?:and|but)\s+|\s*,\s*"
                          rf"|\s+[-–—]\s+)(?:{_NEG_SHARED_JOINED}){AFTER}", _I | re.DOTALL)
#: What the one before denies: "My wife isn't vegan", "Tom doesn't eat meat".
_NEG_STATED = re.compile(
    r"^(?!(?:i|we|you)\b)(?:my\s+)?[\w'’-]+(?:\s+[\w'’-]+){0,2}?\s+"
    rf"(?P<verb>is|was|does|has)(?:\s+not|n{APOS}t)\s+(?P<rest>\S.*?)(?:,?\s+either)?\W*$",
    _I | re.DOTALL)
#: A word saying whose: "his job" told of another would name the wrong owner; "my" and
#: "our" stay the speaker's whoever shares the denial, so they are not among them.
_WHOSE = re.compile(r"\b(?:his|him|her|hers|their|them|its)\b", _I)
#: The speaker's "my" and what it owns, which told of another who shares the denial is
#: theirs ("my job").
_MY = re.compile(r"\bmy(?=\s+(?P<owned>[\w'’-]+))", _I)
#: How the speaker denies each: "isn't" -> "I am not", "doesn't" -> "I don't".
_NEG_TOLD = {"is": "I am not", "was": "I was not", "does": "I don't", "has": "I haven't"}
_NEG_SAID = {"am": "is", "not": "is", "was": "was", "do": "does", "have": "has"}
#: Verbs "doesn't" cannot stand before: "I was tired, now I'm not" shares no "doesn't".
_NOT_PLAIN = frozenset({"was", "were", "had", "is", "are", "has", "can", "will"})
#: What the speaker denies, which someone else may share: "I don't eat meat", "I'm not vegan".
_NEG_STATED_OWN = re.compile(
    rf"^i(?:\s+(?P<verb>am|was|do|have)(?:\s+not|n{APOS}t)|{APOS}m\s+(?P<be>not))\s+"
    r"(?P<rest>\S.*?)(?:,?\s+either)?\W*$", _I | re.DOTALL)


def _neg_of_someone(clauses: list[str], who: str, said: str, now: str) -> list[str]:
    """Someone's "my wife doesn't either" (``who``, the verb ``said``) told in full from
    the denial among ``clauses``, the speaker's or another's: one sentence, or none."""
    for clause in clauses:
        denied = _NEG_STATED_OWN.match(clause)
        if denied is not None and _NEG_SAID[(denied["verb"] or "am").casefold()] == said:
            return [f"{who} {said}n't {_told_of(who, denied['rest'])}{now}"]
        # "Tom doesn't know. Ana doesn't either.": Ana doesn't know, which dropped was lost
        stated = _NEG_STATED.match(clause)
        if (stated is not None and stated["verb"].casefold() == said
                and _WHOSE.search(stated["rest"]) is None):
            return [f"{who} {said}n't {stated['rest']}{now}"]
        # "I smoked but now I don't and my wife doesn't either": she doesn't smoke
        ended = held_once(clause)
        if ended is not None and said == ("is" if ended.verb is None else "does"):
            rest = f" {ended.rest}" if ended.rest else ""
            if ended.verb is None:
                return [f"{who} isn't{rest}{now}"]
            if ended.plain is not None and ended.plain.casefold() not in _NOT_PLAIN:
                return [f"{who} doesn't {ended.plain}{rest}{now}"]
    return []


def _told_of(who: str, rest: str) -> str:
    """``rest`` of the speaker's denial, told of ``who`` sharing it: "I don't like my job.
    Tom doesn't either." is Tom's own job, as "I don't see my kids much" makes Tom's kids
    and pets his. One of the user's ("my wife") shares the home, the landlord and the
    neighbours, and anyone the user's people ("my boss", "my kids"), so those stay the
    speaker's, as do the user's people outside the family said of another ("my boss")."""
    if re.match(r"(?:my|our)\b", who, _I):
        return rest
    return _MY.sub(lambda mine: mine[0] if _of_the_users_circle(mine["owned"]) else f"{who}'s",
                   rest)


#: Relations each has their own of: "my dog" told of Tom is his dog.
_PETS = frozenset({"dog", "cat", "pet"})


def _of_the_users_circle(noun: str) -> bool:
    """Whether ``noun`` names one of the user's people outside the family ("boss",
    "dentist"), whom another may share; not kin or a pet, whom each has their own."""
    relation = relation_of(noun.rstrip("'’"))
    return relation is not None and not is_family(relation) and relation not in _PETS


def neg_filled(stated: str | None, match: re.Match[str]) -> list[str]:
    """The speaker's "I don't either" (``match``) read in full after ``stated``: one
    sentence, or none when ``stated`` denies nothing this module can tell, or another verb."""
    if stated is None:
        return []
    clauses = [part for part in CLAUSE_BREAK.split(stated.strip()) if part.strip()]
    now = said_now(match)
    if match["neg_other"] or match["neg_inv"]:
        who = match["neg_other"] or match["neg_inv"]
        said = (match["neg_other_verb"] or match["neg_inv_verb"]).casefold()
        return _neg_of_someone([*clauses[-1:], stated.strip()], who, said, now)
    said = (match["neg"] or match["neg_be"] or match["neg_inverted"] or "me").casefold()
    for clause in (clauses[-1], stated.strip()) if clauses else ():
        denied = _NEG_STATED.match(clause)
        if denied is None:
            continue
        verb = denied["verb"].casefold()
        if said == "me" or _NEG_SAID.get(said) == verb:
            return [f"{_NEG_TOLD[verb]} {denied['rest']}{now}"]
    return []
