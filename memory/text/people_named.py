"""Who and where a sentence names, as memory/text/pronoun_subjects.py reads them to tell
whom a "he", "she" or "they" is: each person ("Tom", "My wife", "Tom's wife"), with "he"
or "she" when their relation says which, and the capitalised words put as places ("at
Acme"), which are no one. Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.put_as_place import IN_PLACE, PLACED, put_as_a_place, reach
from tiermem.memory.text.relations import pronoun_of_relation, relation_of

__all__ = ["people_in", "places_in"]

_I = re.IGNORECASE
#: Someone of the user's ("my wife") or of another's ("his wife"), or a name ("Tom
#: Smith"): a run of capitalised words that no preposition puts as a place or a firm.
_NOT_A_NAME = re.compile(
    r"(?:i|i['’]\w+|he|she|it|we|they|you|my|our|the|a|an|this|that|and|but|so|also|then"
    r"|yes|no|ok|okay|hi|hello|actually|sorry|please|ask|well|now|today|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday"
    # A question's opening word: read as a name ("Where does Tom work?") or run into
    # the one after it ("Does Tom"), it left Tom not the one person named.
    r"|what|where|when|who|whom|whose|why|how|which|is|are|was|were|does|do|did|has"
    r"|have|can|could|would|should)", _I)
_PERSON = re.compile(
    r"(?<![\w'’])(?P<whose>my|our|his|her|an?)\s+(?P<noun>[a-z][\w-]*)"
    rf"|(?<![\w'’])(?!{_NOT_A_NAME.pattern}\b)"
    r"(?P<name>(?-i:[A-Z][a-z'’-]+)(?:\s+(?-i:[A-Z][a-z'’-]+))*)", _I)
#: What goes on after a word that opens a sentence when it is its subject's name ("Tom
#: works", "Tom also got a job", "Tom and his wife"), and not when it is no one ("Nice
#: weather."). A name missed here leaves the pronoun to another one named, whose facts
#: it then retires.
_SUBJECT_GOES_ON = re.compile(
    r"\s+(?:(?:also|still|now|just|already|recently|finally|never|really|too)\s+)?"
    r"(?:and|is|was|has|had|does|did|can|could|will|would|got|left|quit|went|came|took"
    r"|became|began|made|lost|met|said|told|found|isn['’]t|wasn['’]t|doesn['’]t"
    r"|didn['’]t|won['’]t|no\s+longer|(?-i:[a-z]+(?:s|ed)))\b", _I)
#: A name said alone ("Tom?", "Tom!") names them, if a first name: read as no one, the
#: "he" of "Tom? He works at Globex." was no one and what he does was not stored.
_NAME_ALONE = re.compile(r"\s*[?!]+\s*$")
#: All a sentence says after its opening word when it only calls it something ("Berlin is
#: great."): said as much of a city or a band as of a person, so a word no list knows as a
#: first name is no "he" by it, and "He no longer works at Globex" stored a city's job.
_ONLY_CALLED = re.compile(r"\s+(?:is|was)\s+(?:(?:so|very|really|quite|pretty|truly)\s+)?"
                          r"[a-z][\w-]*(?:\s+too)?[\s.!]*$", _I)
#: What joins a relation of the user's and a name said as the same person: "My boss is
#: Ana", "Ana is my boss", "my boss, Ana". Read as two, the "she" after them named no one
#: and what she was said to do was not stored.
_SAME_ONE = re.compile(r"\s+(?:is|was)\s+|\s*,?\s*", _I)
#: The user saying they have someone, before "a daughter".
_HAVE = re.compile(r"\bi(?:\s+(?:also\s+)?(?:have|had)|['’]ve)\s+(?:got\s+)?$", _I)
#: A name's owner mark and the noun after it: "Tom's wife", whose "she" is not Tom.
_OWNED_BY_NAME = re.compile(r"['’]s?\s+(?P<noun>[a-z][\w-]*)", _I)


def places_in(sentences: list[str]) -> set[str]:
    """The capitalised words ``sentences`` put after "at" or "in" ("at Acme"), casefolded,
    but first names: elsewhere, as in "Acme hired me.", they are still no one, and read
    as "he", "He no longer works at Acme" retired the user's own job there."""
    return {found["name"].casefold() for sentence in sentences
            for found in _PERSON.finditer(sentence)
            if found["name"] is not None and not is_first_name(found["name"].split()[0])
            and IN_PLACE.search(sentence, reach(found), found.start()) is not None}


def people_in(sentence: str) -> list[tuple[str, bool, str | None]]:
    """Each person ``sentence`` names: how to say them opening a sentence, whether that
    names them alone (not "his wife"), and "he" or "she" when their relation says which."""
    people: list[tuple[str, bool, str | None]] = []
    # Where the last name, or relation of the user's, appended ends: one said right
    # before another as the same person is not a second person.
    name_ended = own_ended = -1
    for found in _PERSON.finditer(sentence):
        if found["noun"] is not None:
            relation = relation_of(found["noun"].casefold())
            if relation is None:
                continue
            sex = pronoun_of_relation(relation)
            whose = found["whose"].casefold()
            if whose in ("a", "an"):
                if _HAVE.search(sentence, reach(found), found.start()) is None:
                    continue  # "I met a nurse": no one of the user's
                whose = "my"  # "I have a daughter. She is 5.": she is the user's
            said = f"{whose[:1].upper()}{whose[1:]} {found['noun']}"
            own = whose in ("my", "our")
            if own and _same_one(sentence, name_ended, found.start()):
                people.pop()  # "Ana is my boss": said as the relation, as facts say her
            people.append((said, own, sex))
            own_ended, name_ended = (found.end() if own else -1), -1
            continue
        if _same_one(sentence, own_ended, found.start()):
            continue  # "My boss is Ana"
        if (owned := _someone_of_a_name(sentence, found)) is not None:
            people.append(owned)
        elif (_NOT_A_NAME.fullmatch(found["name"].split()[0]) is None
              and not put_as_a_place(sentence[reach(found):found.start()], found["name"])
              and (sentence[:found.start()].strip()
                   or _SUBJECT_GOES_ON.match(sentence, found.end())
                   or (_NAME_ALONE.match(sentence, found.end())
                       and is_first_name(found["name"].split()[0])))
              and (is_first_name(found["name"].split()[0])
                   or not _ONLY_CALLED.match(sentence, found.end()))):
            people.append((found["name"], True, None))
            name_ended, own_ended = found.end(), -1
    return people


def _same_one(sentence: str, ended: int, start: int) -> bool:
    """Whether what ``sentence`` says from ``ended`` to ``start`` says the one named before
    and the one after are the same person ("is", a comma); False with no one before."""
    return ended >= 0 and _SAME_ONE.fullmatch(sentence, ended, start) is not None


def _someone_of_a_name(sentence: str, found: re.Match[str]
                       ) -> tuple[str, bool, str | None] | None:
    """The person "Tom's wife" names where ``found`` is "Tom's" before a relation, with
    "he" or "she" as the relation says; None for anything else ("Tom's", a shop). Left
    unread, "Tom's wife" named no one, so after "Tom works at Globex. Tom's wife works at
    Globex." the "she" of "She no longer works at Globex" was read as Tom and his job was
    retired in hers."""
    name = found["name"]
    mark = name[-2:] if name[-2:] in ("'s", "’s") else name[-1:] if name[-1:] in "'’" else ""
    owned = _OWNED_BY_NAME.match(sentence, found.end() - len(mark)) if mark else None
    relation = None if owned is None else relation_of(owned["noun"].casefold())
    if owned is None or relation is None or PLACED.search(sentence, reach(found),
                                                           found.start()):
        return None
    sex = pronoun_of_relation(relation)
    return f"{name} {owned['noun']}", True, sex
