"""Whom a forgotten fact is of and what it names, for ``says`` (memory/ops/fact_said.py):
the fact's concepts, names and the concepts that set it apart (``reading``), and what a
statement says of the one the fact is of (``of_whom``), None when it is someone else's.
Pure functions over strings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Set

from tiermem.memory.text.asserted import is_others
from tiermem.memory.text.extract import is_question
from tiermem.memory.text.mine import kinds_had, same_kind
from tiermem.memory.text.others_clauses import opens_as_the_user
from tiermem.memory.text.owners import Owner, may_be_kin, may_be_one, owner_of, relation_of
from tiermem.memory.text.said_of import said_of_each
from tiermem.memory.text.wording import concepts

__all__ = ["of_whom", "pet_named", "reading"]

#: A word of a fact that names something (after its first, the subject): a capital or a digit.
_NAME = re.compile(r"(?<=\s)[\w'’.-]*(?:[A-Z]|\d)[\w'’.-]*")

#: Concepts a statement may word otherwise, or share with one about something else: light
#: verbs, how often or when, and the unit of an amount whose number is said. "I take
#: vitamins daily." shares "take" and "daily" with "User takes propranolol daily" and
#: says nothing of propranolol.
_GENERIC = frozenset(concepts(
    "take takes took taken go goes went gone going use uses used make makes made keep keeps"
    " kept work works worked daily weekly monthly yearly every day days week weeks morning"
    " mornings evening evenings night nights usually always often sometimes regularly"
    " currently still really lot mg milligram milligrams ml gram grams tablet tablets pill"
    " pills capsule capsules dose doses attend attends attended named called"))
def reading(fact: str) -> tuple[set[str], set[str], set[str], Owner | None, set[str]]:
    """What ``says`` and ``holds_part_of`` test a sentence for: the fact's concepts but its
    subject's, its names and numbers, those that set it apart, whose it is, and the
    concepts of the relation its subject names."""
    head = fact.split(maxsplit=1)[0] if fact.strip() else ""
    wanted = concepts(fact) - concepts(head)
    names = concepts(" ".join(_NAME.findall(fact))) - concepts(head)
    whose = owner_of(fact)
    # A relation the sentence's own subject names is said, in whatever word: "My mom has
    # dementia" says "User's mother has dementia".
    kin = concepts(" ".join(w for w in re.findall(r"[\w'’-]+", fact)
                            if whose and relation_of(re.sub(r"['’]s$", "", w)) in whose.relations))
    return wanted, names, wanted - _GENERIC, whose, kin


#: Others said to leave the user out: "Everyone but me uses vim" says the user does not,
#: nor "Everyone in my team but me ..." or "All my friends but me ...": which others are
#: meant may come between.
_ALL_BUT_ME = re.compile(r"\b(?:every(?:one|body)|all|the\s+rest)(?:\s+[\w'’]+){0,4}?"
                         r"\s+(?:but|except(?:\s+for)?|apart\s+from|besides|other\s+than)"
                         r"\s+(?:me|myself)\b", re.IGNORECASE)

#: Relations of the user's that are animals, never someone a fact of another names.
_PETS = frozenset({"dog", "cat", "pet"})
#: The user's own said beside another's kin: "Tom's son is Rex and mine is Max", "... my
#: son is Max"; the word after "my" must be one for the kin ("my dog Max" is no son).
_USERS_OWN = re.compile(r"\b(?:mine\b|my\s+(?P<kin>[\w'’-]+))", re.IGNORECASE)

#: What is said to be another's: "Rex is theirs", "The dog was hers".
_ANOTHERS_OWN = re.compile(r"\b(?:is|are|was|were)\s+(?:theirs|hers|his)\b(?!\s+[a-z])",
                           re.IGNORECASE)

#: A statement of the user with others, or of no one: "We adopted ...", "Our dog ...",
#: "There is a dog ...".
_OURS_OR_NO_ONES = re.compile(r"^\W*(?:we|we['’](?:re|ve|d|ll)|our|ours"
                              r"|there\s+(?:is|are|was|were)|there['’]s)\b", re.IGNORECASE)

#: The mark of whose a word says: "Tom's".
_POSSESSIVE = re.compile(r"['’]s$")

#: Words by which a statement of no one named may still be of someone said before.
_POINTING_BACK = frozenset({"he", "she", "him", "his", "her", "hers", "they", "them", "their"})


def _of_the_user_not_named(sentence: str, own: Owner | None, named: Owner) -> bool:
    """Whether ``sentence`` is of the user's own, or of the user with others, or of no one,
    and never names the one ``named`` (a fact's subject): after "I met Tom.", "My wife is
    called Jane." and "Our dog is named Rex." say nothing of Tom; "We both have a dog"
    may be of him, as "There is a dog at his place", and "My brother Tom ..." is."""
    # "at Tom's place" names Tom.
    words = set(re.findall(r"[\w-]+", sentence.casefold()))
    if set((named.name or "").split()) & words:
        return False
    if own is not None:
        return own.user and bool(own.relations)
    # "There is a dog named Rex at his place" points back to him.
    return (_OURS_OR_NO_ONES.match(sentence) is not None and not said_of_each(sentence)
            and not words & _POINTING_BACK)


def _only_their_kins(sentence: str, named: Owner) -> bool:
    """Whether ``sentence`` names the one ``named`` (a fact's subject, of no kin of theirs)
    only as whose someone else is: "Tom's sister has a dog named Rex" or "There is a dog
    named Rex at Tom's sister's place" says nothing of Tom's dog; "at Tom's place" may,
    and of "Tom's sister's dog is named Rex" she is the one."""
    if named.kin is not None or not named.name or any(
            _POSSESSIVE.search(word) for word in named.words):
        return False
    words = [word.casefold() for word in re.findall(r"[\w'’-]+", sentence)]
    mentions = [(word, after) for word, after in zip(words, [*words[1:], ""], strict=True)
                if _POSSESSIVE.sub("", word) in named.name.split()]
    return bool(mentions) and all(
        word != _POSSESSIVE.sub("", word)
        and relation_of(_POSSESSIVE.sub("", after)) not in (None, *_PETS)
        for word, after in mentions)


def _keeps_their_pet(sentence: str, own: Owner | None, whose: Owner | None) -> bool:
    """Whether ``sentence``, of someone of the user's (``own``), says they have a pet of
    the kind that the fact ``whose`` is of, theirs: "My sister adopted a dog named Rex."
    (or "... a puppy.") for "User's sister's dog is named Rex"; not "... saw a dog", nor
    "... doesn't have a dog", nor the user's own: "My sister got my dog Rex a toy"."""
    if own is None or whose is None or not (own.user and own.relations and whose.relations):
        return False
    pet = whose.relations[-1]
    if pet not in _PETS or own.relations != whose.relations[:-1]:
        return False
    kinds = set(_PETS) if pet == "pet" else {pet}
    # ``of_kin`` also counts the user's own having ("my dog"), which is no pet of hers.
    return bool(kinds_had(sentence, kinds, of_kin=True, in_its_word=True)
                - kinds_had(sentence, kinds, in_its_word=True))


#: The name a statement gives the one it opens with: "... is named Rex", "... is Rex".
_IS_NAMED = re.compile(r"\b(?:is|was)\s+(?:(?:named|called)\s+)?(?P<name>[A-Z][\w'’-]*)\s*[.!]?$")


def pet_named(statement: str, kinds: dict[str, str]) -> dict[str, str]:
    """The name ``statement`` gives the pet it opens with, by the kind of it that a fact
    gives that name (``kinds``): {"rex": "cat"} of "Tom's cat is named Rex." or "My
    sister's cat is called Rex." for "Tom has a pet named Rex"; none for a dog Rex."""
    own, named = owner_of(statement), _IS_NAMED.search(statement.strip())
    if own is None or named is None:
        return {}
    pet = own.kin if not own.user else (own.relations or ("",))[-1]
    return {name: pet for name in concepts(named["name"])
            if pet in _PETS and name in kinds and same_kind(pet, kinds[name])}


def _of_their_pet(own: Owner | None, whose: Owner | None, had: Set[str]) -> bool:
    """Whether ``own``, a statement's, is of a pet of the one of the user's a fact ``whose``
    is of, of a kind the fact has (``had``): "My sister's dog is named Rex" for "User's
    sister has a dog named Rex"; not "My sister's son ...", nor a cat for her dog, nor
    what is not the pet's name ("My sister's dog isn't named Rex")."""
    if own is None or whose is None or not (own.user and whose.user and whose.relations
                                            and own.known_as):
        return False
    *theirs, pet = own.relations or ("",)
    return (tuple(theirs) == whose.relations and pet in _PETS
            and any(same_kind(pet, kind) for kind in had))


def of_whom(sentence: str, whose: Owner | None, kin: set[str],
             read: Callable[[str], set[str]] = concepts,
             had: Set[str] = frozenset()) -> set[str] | None:
    """The concepts ``sentence`` says (``read``: ``asserted_concepts``, those said to be so)
    of the one ``whose`` the fact is; None of a question or of someone else, as the user's
    own pet of a kind ``had`` (the fact's but its names): "My dog" is no pet of Tom's."""
    own = owner_of(sentence)
    anothers: set[str] = set()
    if _keeps_their_pet(sentence, own, whose) or _of_their_pet(own, whose, had):
        own = whose
    if (own is not None and own.user and whose is not None and not whose.user
            and _PETS.issuperset(own.relations)
            and any(same_kind(pet, kind) for pet in own.relations for kind in had)):
        return None
    if whose is not None and not whose.user and (_of_the_user_not_named(sentence, own, whose)
                                                 or _only_their_kins(sentence, whose)):
        return None
    if own is None and opens_as_the_user(sentence):
        # "As someone who uses vim daily" is the user's, not "Tom uses vim".
        own = Owner(user=True, words=frozenset(re.findall(r"[\w'’-]+", sentence.casefold())))
    if own is not None and not own.user and is_others(own.name or ""):
        # "Everyone has a dog, mine is Rex": others, no one named Everyone; ``read``
        # tells what of it is the user's.
        own = None
    if (whose is not None and whose.user and whose.relations and own is not None
            and not own.user and own.kin):
        # "Tom's son is Rex" is Tom's son, not the user's, whatever either is named;
        # "... and mine is Max" goes on to the user's own, the kin word serving both.
        users_own = next((mine for mine in _USERS_OWN.finditer(sentence)
                          if mine["kin"] is None or may_be_kin(
                              (relation_of(mine["kin"].casefold()) or "",), whose.relations)),
                         None)
        if users_own is None:
            return None
        anothers = (concepts(sentence[:users_own.start()])
                    - concepts(sentence[users_own.start():])
                    - concepts(" ".join(whose.relations)))
        own = None
    if is_question(sentence) or not may_be_one(whose, own) or (
            whose is not None and whose.user and not whose.relations
            and (_ALL_BUT_ME.search(sentence) or _ANOTHERS_OWN.search(sentence))):
        return None
    said = read(sentence) - anothers
    # "My kid" says the son's relation as "My mom" says the mother's: a word that takes
    # one in may be them (never the daughter's word for the son).
    if own is not None and whose is not None and may_be_kin(own.relations, whose.relations):
        said |= kin
    return said


