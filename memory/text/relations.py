"""The words for someone of the user's, and which of them may name one person.

A relation is what a noun for someone of the user's names ("sister"; "mum" is "mother",
"kids" "child"). A word for several, or one that says no sex, takes in others ("kid" the
son and the daughter, "partner" the boyfriend and the girlfriend), who are never one
another. memory/text/owners.py reads whose a statement is with these; pure functions over
strings.
"""

from __future__ import annotations

__all__ = ["held_one_at_a_time", "is_family", "may_be_kin", "may_be_one_partner",
           "may_be_several", "names_several", "nouns_for", "of_a_couple", "pronoun_of_relation",
           "relation_of", "relations_named"]

#: Each noun for someone of the user's, by the relation it names.
_RELATION_GROUPS = {
    "wife": "wife", "husband": "husband", "spouse": "spouse", "partner": "partner",
    "boyfriend": "boyfriend", "girlfriend": "girlfriend", "fiance": "partner",
    "fiancé": "partner", "fiancee": "partner", "fiancée": "partner",
    "son": "son", "daughter": "daughter", "kid": "child", "child": "child",
    "children": "child", "baby": "child", "sister": "sister", "brother": "brother",
    "sibling": "sibling", "mother": "mother", "mom": "mother", "mum": "mother",
    "mommy": "mother", "mummy": "mother", "father": "father", "dad": "father",
    "daddy": "father", "parent": "parent", "grandmother": "grandmother",
    "grandma": "grandmother", "granny": "grandmother", "grandfather": "grandfather",
    "grandpa": "grandfather", "grandparent": "grandparent", "grandson": "grandson",
    "granddaughter": "granddaughter", "grandchild": "grandchild",
    "grandchildren": "grandchild",
    "aunt": "aunt", "auntie": "aunt", "uncle": "uncle", "cousin": "cousin", "niece": "niece",
    "nephew": "nephew", "friend": "friend", "roommate": "roommate", "flatmate": "roommate",
    "housemate": "roommate", "neighbour": "neighbour", "neighbor": "neighbour",
    "boss": "boss", "manager": "manager", "colleague": "colleague", "coworker": "colleague",
    "co-worker": "colleague", "teammate": "colleague", "mentor": "mentor",
    "doctor": "doctor", "dentist": "dentist", "therapist": "therapist",
    "landlord": "landlord", "landlady": "landlord", "dog": "dog", "cat": "cat", "pet": "pet",
    "puppy": "dog", "kitten": "cat",
}
#: Someone of the user's, by the noun for them, as one of several too ("my sisters").
_RELATIONS = {**_RELATION_GROUPS,
              **{word + ("es" if word.endswith("s") else "s"): group
                 for word, group in _RELATION_GROUPS.items() if not word.endswith("ren")}}
#: Relations a word for several, or one that says no sex, takes in: "my kid" may be the
#: son or the daughter, who are never one another.
_GROUPS = {
    "child": frozenset({"son", "daughter"}),
    "grandchild": frozenset({"grandson", "granddaughter"}),
    "partner": frozenset({"boyfriend", "girlfriend"}),
    "parent": frozenset({"mother", "father"}),
    "sibling": frozenset({"sister", "brother"}),
    "grandparent": frozenset({"grandmother", "grandfather"}),
    "spouse": frozenset({"wife", "husband"}),
    "pet": frozenset({"dog", "cat"}),
}
#: Words for whom the user is with, each with those it may be said of: "partner" of a
#: spouse too, though ``may_be_kin`` takes in only the boyfriend and the girlfriend (one's
#: partner at work may be no spouse; one's partner now, said as news, is).
_COUPLE = {"partner": frozenset({"boyfriend", "girlfriend", "spouse", "wife", "husband"}),
           "spouse": frozenset({"wife", "husband"}), "boyfriend": frozenset(),
           "girlfriend": frozenset(), "wife": frozenset(), "husband": frozenset()}
#: Relations one may have several of at once: a second brother named is another brother.
#: Whom the user is with, a mother or a father, a boss or a dentist is one at a time, so a
#: second name for them is a new one or the first respelt.
_SEVERAL = frozenset({
    "child", "son", "daughter", "sister", "brother", "sibling", "parent", "grandmother",
    "grandfather", "grandparent", "grandchild", "grandson", "granddaughter", "aunt", "uncle",
    "cousin", "niece", "nephew", "friend", "roommate", "neighbour", "colleague", "mentor",
    "dog", "cat", "pet",
})
#: Words for who or what the user has one of at a time that name no one of the user's
#: people: a new employer (accountant, vet, insurer, stepfather) is the user's only one.
_ONE_AT_A_TIME = frozenset({
    "employer", "supervisor", "accountant", "lawyer", "attorney", "solicitor", "vet",
    "physio", "physiotherapist", "insurer", "stepdad", "stepfather", "stepmom", "stepmum",
    "stepmother"})
#: "my family", "my relatives": anyone related to the user.
_FAMILY_WORDS = frozenset({"family", "families", "relative", "relatives", "folks", "kin"})
_FAMILY = frozenset({
    "wife", "husband", "spouse", "partner", "boyfriend", "girlfriend", "child", "son",
    "daughter", "sister", "brother", "sibling", "mother", "father", "parent", "grandmother",
    "grandfather", "grandparent", "grandchild", "grandson", "granddaughter", "aunt", "uncle",
    "cousin", "niece", "nephew",
})


def relation_of(noun: str) -> str | None:
    """The relation a noun for someone names ("sister", "mum" -> "mother", "kids" ->
    "child"), or None for a noun that names no one ("name", "database")."""
    return _RELATIONS.get(noun.casefold())


#: Relations one of whom is a man, or a woman: a "she" is never the brother.
_HIS = frozenset({"husband", "boyfriend", "son", "brother", "father", "grandfather",
                  "grandson", "uncle", "nephew"})
_HERS = frozenset({"wife", "girlfriend", "daughter", "sister", "mother", "grandmother",
                   "granddaughter", "aunt", "niece"})


def pronoun_of_relation(relation: str | None) -> str | None:
    """"he" or "she" for a relation one of whom is a man or a woman ("brother", "wife");
    None for one that says no sex ("friend", "kid") or none."""
    return "he" if relation in _HIS else "she" if relation in _HERS else None


def relations_named(words: list[str]) -> set[str | None]:
    """The relations ``words`` (a question's, casefolded, possessives cut) name, each with
    those its word takes in: "my parents" are the mother and the father, "my family" every
    relative, so "Where do my parents live?" is answered by the mother's address and "Is
    anyone in my family allergic to peanuts?" by the son's allergy; "my mother" is one of
    the parents a fact may name."""
    named = {relation_of(word) for word in words}
    if _FAMILY_WORDS.intersection(words):
        named |= _FAMILY
    for group, members in _GROUPS.items():
        if group in named:
            named |= members
        elif named & members:
            named.add(group)  # "my sister" is one of "User's siblings", not the brother
    return named


def may_be_kin(one: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Whether two chains of relations from the user may lead to one person: as long, each
    step the same or a word that takes in the other's ("my kid" may be "User's son")."""
    return len(one) == len(other) and all(
        mine == theirs or theirs in _GROUPS.get(mine, ()) or mine in _GROUPS.get(theirs, ())
        for mine, theirs in zip(one, other, strict=True))


def nouns_for(relations: tuple[str, ...]) -> set[str]:
    """The nouns that may name the one ``relations`` lead to ("son", "kid", "kids" for
    ``("son",)``)."""
    return {word for word, group in _RELATIONS.items() if may_be_kin((group,), relations)}


def of_a_couple(noun: str) -> bool:
    """Whether ``noun`` names whom the user is with ("boyfriend", "wife", "fiancée")."""
    return relation_of(noun) in _COUPLE


def may_be_one_partner(noun: str, other: str) -> bool:
    """Whether two nouns for whom the user is with may name one person, one taking in the
    other ("partner" and "boyfriend", "partner" and "wife"; not "wife" and "husband")."""
    one, two = relation_of(noun) or "", relation_of(other) or ""
    return two in _COUPLE.get(one, ()) or one in _COUPLE.get(two, ())


def may_be_several(noun: str) -> bool:
    """Whether the user may have several of those ``noun`` names at once ("brother",
    "friends", "kid"; not "wife", "mother" or "boss")."""
    return relation_of(noun) in _SEVERAL


def names_several(said: str) -> bool:
    """Whether ``said`` ("My friends", "My kids", "children") ends in a plural noun for
    someone of the user's, which no "he" or "she" stands for."""
    noun = said.casefold().split()[-1]
    return noun == "children" or (noun.endswith("s") and relation_of(noun) is not None
                                  and relation_of(noun[:-1]) is not None)


def held_one_at_a_time(noun: str) -> bool:
    """Whether ``noun`` names one the user has only one of at a time ("boss", "wife",
    "landlord", "employer"); not one of several ("friend"), nor a word this module does not
    know ("client", "team lead"), of which a second named may be one more."""
    word = noun.casefold()
    return word in _ONE_AT_A_TIME or (relation_of(word) is not None and not may_be_several(word))


def is_family(relation: str) -> bool:
    """Whether ``relation`` is kin or whom the user is with ("wife", "mother"), who stay the
    same person; a boss, a doctor or a landlord may be another one next year."""
    return relation in _FAMILY
