"""Whose a statement is: the user's, someone of the user's, or someone named.

A retraction ("My sister is not allergic to shellfish anymore") denies something of one
person only, so it retires only facts that may be that person's, and answers only a
question that may be about them. ``owner_of`` reads who a sentence in the user's words
("I'm ...", "My sister ...", "Priya is ...") or a stored fact ("User is ...", "User's
sister Ana ...") is about, from how it opens; ``owner_asked`` reads it from a question
("Am I ...?", "Is my sister ...?", "Is Priya ...?"); ``may_be_one`` says whether two
owners may be one person (memory/text/asked_owners.py tells with it whether a fact is
of another person than the one a question asks about, so that it is no answer about them).

An owner is the user, someone of the user's named by a relation ("sister", "boss",
"dog"; "my phone number" is the user's own), with their name when it follows ("my
brother Tom"), or someone or something named by capitalised words followed by a verb
("Marco Rossi is ...", "Acme is ...", "Tom smokes"). The speaker's belief ("I think my
wife is vegan", "User is pretty sure User's brother ...") is of the one the clause after
it is about, unless that clause speaks of the speaker too ("I think my boss said I'm
fired").
Anything else ("The database is ...", "We ...", "She ...") is unclear: None, which may be
anyone's. The words for someone of the user's, and which of them may be one person, are
memory/text/relations.py's, the words that end a subject memory/text/subject_words.py's.
Pure functions over strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import dropwhile, takewhile

from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.openings import strip_markers

# The words for someone of the user's live in their own module; re-exported, as callers
# import them here.
from tiermem.memory.text.relations import (
    may_be_kin,
    may_be_several,
    nouns_for,
    relation_of,
)
from tiermem.memory.text.subject_words import (
    HOW_OR_WHEN,
    MINE,
    NO_NAMES,
    SPEAKER,
    SUBJECT_ENDS,
    TAKING_IN,
)

__all__ = ["Owner", "may_be_kin", "may_be_one", "may_be_same_kin",
           "owner_asked", "owner_of", "relation_of", "same_kin", "statements_apart"]


@dataclass(frozen=True)
class Owner:
    """Whom a text is about: the user (``user``), with the relations that lead from the
    user to someone of theirs (``("sister",)``) and that one's ``name``; or, when not
    ``user``, someone ``name`` names. ``words``: the text's words, casefolded, by which
    it names others, which say nothing of who it is about."""

    user: bool
    relations: tuple[str, ...] = ()
    name: str | None = None
    words: frozenset[str] = field(default=frozenset(), compare=False)
    #: The name a fact says someone of the user's goes by ("User's dentist is Dr. Silva":
    #: "silva"), casefolded, titles left out: the user's own word of that name may be
    #: about that one ("I no longer see Dr. Silva").
    known_as: frozenset[str] = field(default=frozenset(), compare=False)
    #: Who of the one ``name`` names the text is about ("Tom's wife": "wife"), a person
    #: apart from them.
    kin: str | None = field(default=None, compare=False)
    #: The name that one goes by ("Anna's husband Tom": "tom"), casefolded.
    kin_name: str | None = field(default=None, compare=False)


_WORD = re.compile(r"[\w-]+(?:['’]\w*)?")
POSSESSIVE = re.compile(r"['’]s?$")
#: A sentence of the speaker's quoted whole that opens with someone of theirs.
_QUOTED_MINE = re.compile(r"^user:\s+my\b", re.IGNORECASE)
#: "Forget that ...", "Please forget about it: ...": what follows says whose.
_FORGET_LEAD = re.compile(r"^(?:please\s+)?forget\s+(?:about\s+)?(?:that|it)\b\W*", re.IGNORECASE)
#: Where a statement about someone of the user's (or the user) joins another in one
#: sentence: "..., and my gym is ...", "...; I ...", "... — my wife ..."; an en or em dash
#: needs no spaces ("Munich—my wife"), a hyphen does ("well-known"). The user named first
#: in a subject of several is none: "Me and my team use vim" is one statement, as is
#: "Nobody but me and my wife uses vim".
_STATEMENTS = re.compile(r"\s*(?:[;,]|\s[-–—]|(?<=\w)[–—])\s*(?:(?:and|but)\s+)?"
                         r"(?=(?:my|our|i|i'm|user|user's)\b)"
                         r"|(?<!^me)(?<!^i)(?<!^myself)(?<!\bbut\sme)(?<!\bexcept\sme)"
                         r"(?<!\bfor\sme)(?<!\bthan\sme)(?<!\bbesides\sme)(?<!\bapart\sfrom\sme)"
                         r"\s+(?:and|but)\s+"
                         r"(?=(?:my|our|i|i'm|user|user's)\b)", re.IGNORECASE)
#: Where a fact's subject ends, roughly: its first verb of being or having.
#: How far past "my" the noun for someone may come ("my older half sister").
MAX_SUBJECT_WORDS = 4
#: Verbs by which the user's own sentence has someone of theirs ("I don't have a dog
#: anymore" is about the user's dog as much as the user).
_HAVING = frozenset({"have", "has", "had", "own", "owns", "owned"})
#: What may stand between the verb and the name someone goes by, and titles before it.
_NAMING = frozenset({"named", "called"})
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "prof", "sir"})
#: Words by which the user says the name they go by themself: "User is called Tom", "I'm
#: named Tom", "My name is Tom"; not "Mine is named Rex", the user's pet.
_GOING_BY = _NAMING | {"name"}
_BEING = frozenset({"is", "am", "i'm", "was"})
_SELF = frozenset({"i", "i'm", "user", "name"})
#: The speaker's belief or hearsay before what they say of someone ("I think my wife is
#: vegan", quoted as "User: I think ..."; "User doesn't think User's wife is vegan"): the
#: clause after it says whose the statement is.
#: The user and others named first, and a belief of theirs: "Me and my wife think ...".
_SEVERAL_BELIEVE = re.compile(r"^(?:me|i|myself)\s+and\s+(?:[\w'’-]+\s+){1,3}?(?:think|believe"
                              r"|know|heard|suspect|guess|assume|are\s+sure)\s+", re.IGNORECASE)
_BELIEF = re.compile(
    r"^(?:user:\s+)?(?:i|user)(?:\s+(?:(?:do(?:es)?\s+not|do(?:es)?n['’]t|really|still"
    r"|just|also)\s+)?(?:think|believe|guess|suppose|reckon|suspect|know|assume|gather)"
    r"(?:e?s)?|\s+heard|(?:\s+am|\s+is|['’]m)\s+(?:pretty\s+|fairly\s+|quite\s+)?"
    r"(?:sure|certain))"
    r"\s+(?:that\s+)?(?=\w)", re.IGNORECASE)


def words_of(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD.findall(text)]


def _named(word: str) -> bool:
    return word[:1].isupper() and word.isalpha() and word.casefold() not in NO_NAMES


def _mine(after: list[str], words: frozenset[str]) -> Owner | None:
    """The owner "my" (or "User's") opens, from the words ``after`` it: someone of the
    user's, when a relation names them before the verb ("my sister's husband"), else the
    user ("my phone number"); None for several ("My wife and I ...")."""
    relations: list[str] = []
    name = None
    known_as: frozenset[str] = frozenset()
    last = 0
    for at, word in enumerate(after[:MAX_SUBJECT_WORDS + 2]):
        base = POSSESSIVE.sub("", word)
        if word.casefold() in SUBJECT_ENDS or word.casefold() in SPEAKER or _takes_in(after, at):
            if relations and word.casefold() in ("is", "was"):
                known_as = _name_given(after[at + 1:])
            break
        if word.casefold() in ("and", "or", "&"):
            return None
        relation = relation_of(base)
        if relation is not None and relations and not any(
                POSSESSIVE.search(word) for word in after[last:at]):
            # "My sister saw a dog": past the sister, a dog no one's is no one of hers;
            # "my sister's dog", "my son's adopted dog" and "my friend Tom's dog" say whose.
            break
        if relation is not None:
            relations.append(relation)
            name, last = None, at
        elif (relations and name is None and _named(base)
              and relation_of(POSSESSIVE.sub("", after[at - 1]))):
            # "my brother Tom"; a capital further on names where they go or what they
            # use ("My sister drives a Tesla"), not them.
            name = base.casefold()
    return Owner(True, tuple(relations), name, words, known_as)


def _takes_in(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` is taking one in by someone of the user's named before it
    ("sister adopted", "sister recently adopted"), where it ends the subject; before them,
    or after one whose it is, it describes them ("adopted son", "son's adopted dog")."""
    if words[at].casefold() not in TAKING_IN:
        return False
    named = [word for word in words[:at] if relation_of(POSSESSIVE.sub("", word))]
    return bool(named) and not POSSESSIVE.search(named[-1])


def _name_given(predicate: list[str]) -> frozenset[str]:
    """The name ``predicate`` ("Dr. Silva", "named Rex") is wholly, casefolded and
    without titles; empty when it says more than a name ("in Madrid", "a nurse")."""
    if predicate[:1] and predicate[0].casefold() in _NAMING:
        predicate = predicate[1:]
    if not predicate or not all(_named(word) for word in predicate):
        return frozenset()
    return frozenset(word.casefold() for word in predicate) - _TITLES


def owner_of(text: str) -> Owner | None:
    """Whom ``text``, a statement in the user's words or a stored fact, is about, from how
    it opens (module docstring); None when that is unclear."""
    opened = _FORGET_LEAD.sub("", strip_markers(text.strip()))
    words = words_of(opened)
    every = frozenset(w.casefold() for w in words_of(text))
    if not words:
        return None
    first = words[0].casefold()
    if first == "the" and len(words) > 1 and words[1].casefold() in ("user", "user's"):
        words, first = words[1:], words[1].casefold()
    quoted = _QUOTED_MINE.match(opened)
    if quoted is not None:
        # "User: My wife thinks I'm vegan" speaks of the wife and of the speaker: it may be
        # either's, so "Forget that my wife thinks ..." and "Am I vegan?" both find it.
        return None
    if first in SPEAKER and words[1:2] and words[1].casefold() == "and":
        # "Me and my wife ...": several, as "My wife and I ..." is; but what they think of
        # another is the other's: "Me and my wife think Anna uses vim".
        believed = _SEVERAL_BELIEVE.match(opened)
        told = owner_of(opened[believed.end():]) if believed else None
        if told is not None and not told.user:
            return Owner(False, told.relations, told.name, every, told.known_as)
        return None
    if first in SPEAKER:
        believed = _BELIEF.match(opened)
        clause = opened[believed.end():] if believed else ""
        told = owner_of(clause) if clause else None
        # "I think my wife is vegan" is of the wife; "I think my boss said I'm fired"
        # speaks of the speaker too, and stays theirs for "Am I fired?".
        if told is not None and not SPEAKER & {w.casefold() for w in words_of(clause)[1:]}:
            return Owner(told.user, told.relations, told.name, every, told.known_as)
        return Owner(True, words=every)
    if first in MINE:
        return _mine(words[1:], every)
    if first == "mine's":  # "Mine's a dog named Rex": the user's, as "Mine is" is
        return _mine(["is", *words[1:]], every)
    # "Today Tom works from home" is Tom's: a word of when opens it before the one named.
    words = list(dropwhile(lambda word: word.casefold() in HOW_OR_WHEN, words))
    name: list[str] = []
    for word in words[:3]:
        base = POSSESSIVE.sub("", word)
        if not _named(base):
            break
        name.append(base.casefold())
        if base != word:  # "Priya's team": Priya's
            after = words[len(name):len(name) + 1]
            kin = relation_of(after[0].casefold()) if after else None
            called = list(takewhile(_named, words[len(name) + 1:])) if kin else []
            return Owner(False, name=" ".join(name), words=every, kin=kin,
                         kin_name=" ".join(called).casefold() or None)
    if name and len(words) > len(name) and (words[len(name)].casefold() in SUBJECT_ENDS | TAKING_IN
                                            or _said_of_another(words, len(name))):
        return Owner(False, name=" ".join(name), words=every)
    return None


def _said_of_another(words: list[str], at: int) -> bool:
    """Whether ``words[at]``, after a name, may be a verb in the third person ("Tom smokes",
    "Ana drinks coffee"): the user's own withdrawal ("I don't smoke anymore") is no word
    of that one's, though no verb in ``SUBJECT_ENDS`` ends the subject. The shape is no
    proof: "Monday mornings", "Smoking hurts" open with no one, so when the user or
    someone by a first name is said after it ("Milk upsets User's stomach", "... stress
    Tom out") the fact may be theirs and stays unclear; a place or a thing ("Tom smokes
    in Berlin", "Ana drinks on Fridays") is no one to own it, nor one said with a doer
    known by a first name ("Tom smokes with Ana")."""
    if words[at:at + 1] and words[at].casefold() in HOW_OR_WHEN:  # "Tom rarely smokes"
        at += 1
    word = words[at] if at < len(words) else ""
    # "Tom played golf" was done by Tom too.
    done = word.endswith("ed") or (word.endswith("s") and not word.endswith("ss"))
    if not (word.isalpha() and word.islower() and done):
        return False
    by_first_name = is_first_name(words[0])
    return not any(later.casefold() in SPEAKER | MINE
                   or (not by_first_name and is_first_name(POSSESSIVE.sub("", later)))
                   for later in words[at + 1:])


def owner_asked(question: str) -> Owner | None:
    """Whom ``question`` asks about: someone of the user's it names ("Is my sister ...?"),
    else the user when it speaks in the first person, else the first one it names by
    capitalised words after its first ("Is Priya on call?"); None when unclear."""
    words = words_of(question.strip())
    every = frozenset(w.casefold() for w in words)
    for i, word in enumerate(words):
        if word.casefold() == "my":
            mine = _mine(words[i + 1:], every)
            if mine is not None and mine.relations:
                return mine
    if every & ((SPEAKER | MINE) - {"user", "user's"}):
        return Owner(True, words=every)
    name: list[str] = []
    for word in words[1:]:
        base = POSSESSIVE.sub("", word)
        if _named(base):
            name.append(base.casefold())
        elif name:
            break
    return Owner(False, name=" ".join(name), words=every) if name else None


def may_be_one(one: Owner | None, other: Owner | None) -> bool:
    """Whether two owners may be one person: unclear ones may be anyone; the user is no
    one of theirs, nor someone named whom the user's text does not name ("Priya is not
    allergic to shellfish anymore" is not about "User is allergic to shellfish"; "Sushi
    isn't my favourite anymore" may be about "User's favourite food is sushi"); two of
    the user's are one when the relations (``may_be_kin``: "kid" and "son", never "son"
    and "daughter") and any names they give agree, and the user's own text may be of one
    of theirs it names or says the user has (``_has_them``)."""
    if one is None or other is None:
        return True
    if one.user and other.user:
        if not may_be_kin(one.relations, other.relations):
            return _has_them(one, other) or _has_them(other, one)
        return one.name is None or other.name is None or one.name == other.name
    if not one.user and not other.user:
        return bool(set((one.name or "").split()) & set((other.name or "").split())
                    ) or _kin_called(one, other) or _kin_called(other, one)
    mine, named = (one, other) if one.user else (other, one)
    names = set((named.name or "").split())
    if mine.relations:  # "Ana" may be the sister; not when the sister is named otherwise
        return mine.name is None or mine.name in names
    # "User is named Tom" is the user's own name: "Tom has a cat" is someone else.
    return names <= mine.words and not _own_name(mine, set(), frozenset(names))


def same_kin(one: Owner | None, other: Owner | None) -> bool:
    """Whether two owners that may be one person by name are not told apart by kin:
    "Tom's wife" is not Tom, nor Tom's brother."""
    return (one is None or other is None or one.kin == other.kin
            or _kin_called(one, other) or _kin_called(other, one))


def _kin_called(kin: Owner, named: Owner) -> bool:
    """Whether ``kin`` ("Anna's husband Tom") is of the one ``named`` names alone ("Tom")."""
    return (kin.kin_name is not None and named.kin is None and named.name is not None
            and set(named.name.split()) <= set(kin.kin_name.split()))


def statements_apart(text: str) -> list[str]:
    """``text`` cut where a statement about the user or someone of theirs joins another
    ("I live in Munich, and my wife lives in Berlin"): each part opens with whose it is."""
    return [part for part in _STATEMENTS.split(text) if part.strip()]


def may_be_same_kin(one: str, other: str) -> bool:
    """Whether two facts about someone of the user's are of one person when nothing says
    they are not: relations that may be one (``may_be_kin``: "User's partner" and "User's
    boyfriend"), the same name or none (or, of one at a time, a name beside none: "User's
    wife Ana" is "User's wife"), and the same words besides, or fewer before a name
    ("User's brother Tom" is "User's older brother Tom"; "User's brother Tom also ..." is
    another value of his). "User's older brother" and "User's younger brother" are two,
    and "User's older brother" may not be "User's brother": another word may say another."""
    first, second = owner_of(one), owner_of(other)
    if first is None or second is None or not (first.relations and second.relations):
        return False  # relations are the user's alone: no one named, not the user
    if not may_be_one(first, second):
        return False
    (before, after), (other_before, other_after) = map(_described, (one, other), (first, second))
    if first.name != second.name:
        # "User's wife Ana" is "User's wife": of one at a time, a name adds no second one,
        # nor does a name in full ("User's wife Ana Silva")
        (before, after), (other_before, other_after) = (
            _described(one, first, whole_name=True), _described(other, second, whole_name=True))
        return (None in (first.name, second.name)
                and not any(map(may_be_several, first.relations + second.relations))
                and before | after == other_before | other_after)
    if first.name is None or after != other_after:
        return (before, after) == (other_before, other_after)
    return before <= other_before or other_before <= before


def _described(fact: str, owner: Owner, whole_name: bool = False
               ) -> tuple[set[str], set[str]]:
    """The words but relation and name by which ``fact``'s subject tells someone of the
    user's from others, before the name ("older") and after it ("Tom also lives"); with
    ``whole_name``, a capitalised word after the name is of it ("Silva" of "Ana Silva")."""
    said = words_of(fact)
    words = [POSSESSIVE.sub("", word).casefold() for word in said]
    described: tuple[set[str], set[str]] = (set(), set())
    in_name = False
    for at, word in enumerate(words[1:MAX_SUBJECT_WORDS + 2], start=1):
        if word in SUBJECT_ENDS or word in SPEAKER or _takes_in(said, at):
            break
        in_name = word == owner.name or (whole_name and in_name and said[at][:1].isupper())
        if relation_of(word) is None and not in_name:
            described[owner.name in words[1:at]].add(word)
    return described


def _has_them(own: Owner, kin: Owner) -> bool:
    """Whether ``own``, of the user themself, may be of the user's tie to ``kin``, one of
    the user's: it names them by the name ``kin`` says they go by ("I no longer see Dr.
    Silva" for "User's dentist is Dr. Silva"), or says the user has one ("I don't have a
    dog anymore" for "User's dog is named Rex"). Saying what else the user does ("I'm not
    allergic to shellfish anymore") says nothing of them."""
    if own.relations or len(kin.relations) != 1:
        return False
    nouns = nouns_for(kin.relations)
    if kin.known_as & own.words and not _own_name(own, nouns, kin.known_as):
        return True
    # "I don't have kids anymore" has no son either, and "I don't have a son anymore" no
    # kid that may be him.
    return bool(own.words & _HAVING) and bool(own.words & nouns)


def _own_name(own: Owner, nouns: set[str], known_as: frozenset[str]) -> bool:
    """Whether ``own``, of the user themself, says the name the user goes by, with no
    word (``nouns``) for someone of theirs: "User is called Tom" is not the son of "My son
    is called Tom", where "I named my son Tom" names him; nor is "User is Tom", which says
    nothing but that the user is the name (``known_as``) the son goes by."""
    words = own.words
    if words & nouns:
        return False
    rest = words - known_as
    return (bool(rest) and rest <= _BEING | _SELF) or bool(
        words & _GOING_BY and words & _BEING and words & _SELF)
