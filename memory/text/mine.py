"""Whether a statement opens with the user's one of what was just named ("Mine is Rex."
after "Everyone I know has a dog."), and what kind a name is given to ("a cat named Rex"),
for reading whose a fact of the user's is and of what (memory/text/asserted.py,
memory/ops/fact_said.py). Pure functions over strings.
"""

from __future__ import annotations

import re
from itertools import pairwise

from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.relations import relation_of
from tiermem.memory.text.subject_words import SCARCELY, SUBJECT_ENDS
from tiermem.memory.text.wording import concepts

__all__ = ["kinds_had", "kinds_met", "kinds_named", "kinds_owned", "opens_with_mine",
           "same_kind"]


#: The user's one of what was just named: "mine is Rex", "Ours is called Max"; not one
#: said to be a kind of its own ("Mine is a cat" after "Everyone has a dog"), nor said
#: not to be one ("Mine isn't a dog": of no kind named, it may be no pet at all).
_MINE = re.compile(r"\s*(?:mine|ours)\b(?!(?:\s+(?:is|was)(?:n['’]t|\s+not)?|['’]s(?:\s+not)?)"
                   r"\s+(?:a|an)\b)", re.IGNORECASE)


#: Words for one of a kind that name it otherwise, young or not: a puppy or a mutt is a
#: dog, a kitten a cat. Only words that are never of another kind: no breeds.
_KIND_OF = {"puppy": "dog", "pup": "dog", "mutt": "dog", "hound": "dog", "kitten": "cat",
            "kitty": "cat"}
#: The relations that are pets, not people.
_PETS = frozenset({"dog", "cat", "pet"})
#: Words for any kind: "User has a pet named Rex" may be a dog or a cat.
_ANY_KIND = frozenset({"pet", "animal"})
#: "Mine" said to be one of what was just named in another word: "Mine is a puppy".
_MINE_YOUNG = re.compile(r"\s*(?:mine|ours)(?:\s+(?:is|was)|['’]s)\s+an?\s+(?:[a-z]+\s+)?"
                         rf"(?P<young>{'|'.join(_KIND_OF)})\b", re.IGNORECASE)
#: "Mine" said not to be of a kind: of the one just named ("Mine isn't a dog"), it may be
#: no pet at all; of another ("Mine isn't a puppy anymore"), it is still the user's one.
_MINE_NOT = re.compile(r"\s*(?:mine|ours)(?:\s+(?:is|was)(?:n['’]t|\s+not)|['’]s\s+not)\s+an?\s+"
                       r"(?P<kind>[a-z]+(?:\s+[a-z]+){0,2})", re.IGNORECASE)


def opens_with_mine(statement: str, before: str = "") -> bool:
    """Whether ``statement`` opens with the user's one of what was just named ("Mine is
    Rex"), whoever that was said of, and says it is no other kind ("Mine is a cat"), but
    maybe one of it in another word (a puppy or a mutt, of a dog named ``before``), nor
    not that kind ("Mine isn't a dog"; "Mine isn't a puppy" still is one)."""
    denied = _MINE_NOT.match(statement)
    if denied is not None:
        return not concepts(denied["kind"]) & concepts(before)
    young = _MINE_YOUNG.match(statement)
    return _MINE.match(statement) is not None or (
        young is not None and concepts(_KIND_OF[young["young"].casefold()]) <= concepts(before))


#: A name given to one of a kind: "a cat named Rex", "My cat is called Rex", "User's dog is
#: named Rex", "a dog that is named Rex", "a neighbour's dog named Rex" (``whose``).
_NAMED_KIND = re.compile(r"\b(?i:an?|the|my|our|user['’]s)\s+(?:(?P<whose>[a-z]+['’]s)\s+"
                         r"|[a-z]+\s+)?"
                         r"(?!(?:is|was|that|which|who)\b)(?P<kind>[a-z]+)\s+"
                         r"(?:(?:that|which|who)\s+)?(?:(?i:is|was)\s+)?(?:named|called)\s+"
                         r"(?P<name>[A-Z][\w'’-]*)")


def kinds_named(text: str) -> dict[str, str]:
    """The kind of what ``text`` gives each name to, by the name's concept: "cat" for Rex
    of "I have a cat named Rex"."""
    return {name: match["kind"] for match in _NAMED_KIND.finditer(text)
            for name in concepts(match["name"])}


#: The user's own, said before a name given to a kind: "my", "mine is", "I have", "we
#: adopted", "I alone has" (``only_the_user``'s "Nobody but me has"), "Tom and I both
#: have" or "Me and Tom both have"; not "I know a guy with" nor "I saw".
_OWNED = re.compile(r"\b(?:my|our|mine|ours|user['’]s)\b|\b(?:i|we)(?:['’]ve)?\s+"
                    r"(?:also\s+|just\s+|alone\s+|both\s+)?(?:have|has|had|got|own|owned"
                    r"|adopted|rescued|keep|kept|bought)\b"
                    r"|\bme\s+and\s+[\w'’-]+\s+(?:both\s+)?(?:have|own|keep)\b", re.IGNORECASE)
#: Words between someone of the user's and their having that say they have none: "my
#: sister never got", "my sister almost adopted"; "my sister still has" has one.
_NOT_HAVING = "|".join(sorted(SUBJECT_ENDS - {"still", "now"} | {"almost", "nearly"} | SCARCELY))
#: Someone of the user's having, or the user's own: "my sister adopted", "my sister has",
#: "my adopted son has".
_KIN_OWNED = re.compile(r"\b(?:my|our|user['’]s)\s+(?:(?!(?:" + _NOT_HAVING + r")\s)[\w'’-]+\s+)"
                        r"{1,3}?(?:has|had|got|owns|owned|adopted|rescued|keeps|kept|bought)\b|"
                        + _OWNED.pattern, re.IGNORECASE)


#: What says one of a kind new to the talk, right before the kind: "a ", "another old ";
#: or someone else's (``whose``): "a neighbour's ", "my sister's ".
_ONE_OF_A = re.compile(r"\b(?:(?:an?|another|some)\s+(?:(?P<whose>[a-z]+['’]s)\s+)?"
                       r"(?:[a-z]+\s+)?|(?!user)(?P<others>[a-z]+['’]s)\s+)$", re.IGNORECASE)


#: Another's having, said before a name given to a kind: "Tom has", "he adopted".
_HAS = re.compile(r"\b(?:has|have|had|owns|owned|got|adopted|rescued|keeps|kept|bought)\b",
                  re.IGNORECASE)


def kinds_owned(text: str, of_another: bool = False) -> dict[str, str]:
    """``kinds_named`` of ``text`` but only those it says are the user's: a cat of "I have
    a cat named Rex" or "Mine is a cat named Rex", none of "I saw a cat named Rex" nor of
    "I walked my neighbour's dog named Rex", the neighbour's; or, ``of_another``
    (``text`` is of someone else), theirs: a cat of "Tom has a cat named Rex". One only
    with what is had is not had: "Tom has a friend with a cat named Rex"."""
    having = _HAS if of_another else _OWNED
    return {name: match["kind"] for match in _NAMED_KIND.finditer(text)
            if not match["whose"] and having.search(text, 0, match.end())
            and not _got_for_another(text, match.start("kind"))
            and not _with_another(text, match.start("kind"), having, someone=True)
            for name in concepts(match["name"])}


def kinds_met(text: str, kinds: set[str]) -> set[str]:
    """The ``kinds`` (words for a pet's kind, a fact's) that ``text`` says of one met but
    not the user's, as concepts: "dog" of "I saw a dog." or "I walked a neighbour's dog.",
    which a name said after it ("His name is Rex.") gives to no dog of the user's, nor of
    "I have a friend with a dog."; none of "I have a dog." nor of "The dog is Rex."."""
    met: set[str] = set()
    kept: set[str] = set()
    for word in re.finditer(r"[a-z]+", text, re.IGNORECASE):
        folded = word.group().casefold()
        if folded not in kinds and _KIND_OF.get(folded) not in kinds:
            continue
        one = _ONE_OF_A.search(text, 0, word.start())
        # "I saw a dog and I have a dog", "Everyone has a dog, mine is Rex": one the user
        # has keeps the kind said.
        # "I have a friend with a dog": the dog is the friend's.
        seen = one is not None and bool(one["whose"] or one["others"]
                                        or not _OWNED.search(text)
                                        or _with_another(text, word.start()))
        (met if seen else kept).update(concepts(f"{folded} {_KIND_OF.get(folded, '')}"))
    return met - kept


def kinds_had(text: str, kinds: set[str], of_kin: bool = False,
              in_its_word: bool = False) -> set[str]:
    """The ``kinds`` (words for a pet's kind, a fact's) that ``text`` says the user has in
    another word for one of them, as concepts: "dog" of "We adopted a puppy.", whose name
    said after it ("His name is Rex.") is then the user's dog's; none of "I saw a puppy."
    nor of "I walked my neighbour's puppy."; ``of_kin``, also one someone of the user's
    has: "My sister adopted a puppy."; ``in_its_word``, in that word too ("a dog")."""
    had: set[str] = set()
    owning = _KIN_OWNED if of_kin else _OWNED
    for word in re.finditer(r"[a-z]+", text, re.IGNORECASE):
        folded = word.group().casefold()
        kind = _KIND_OF.get(folded, folded if in_its_word else None)
        if kind not in kinds or not _had_right_there(text, word.start(), owning):
            continue
        one = _ONE_OF_A.search(text, 0, word.start())
        if one is None or not (one["whose"] or one["others"]):
            had |= concepts(kind)
    return had


#: Words that put someone or something else between the user's having and the kind:
#: "I have a neighbour with a puppy", "I have a photo of a puppy", "I have a friend and
#: she got a puppy", "My neighbour has a puppy".
_NOT_THE_ONE_HAD = frozenset({
    "with", "of", "for", "about", "from", "to", "at", "in", "on", "by", "like", "as",
    "than", "near", "who", "that", "which", "whose", "i", "he", "she", "they", "we", "you",
    "it", "has", "have", "had", "got", "gets", "owns", "adopted", "keeps", "bought",
    "rescued", "is", "was", "are", "were", "saw", "met", "walked"})


def _had_right_there(text: str, at: int, owning: re.Pattern[str] = _OWNED) -> bool:
    """Whether the user's having ("my", "we adopted") is said of the word at ``at`` itself,
    with only a few words describing it between ("We adopted a cute little puppy", "I have
    a cat and a puppy"), not of someone or something the puppy is only with."""
    owned = [match.end() for match in owning.finditer(text, 0, at)]
    if not owned:
        return False
    said_between = re.findall(r"[\w'’]+", text[owned[-1]:at])
    between = [word.casefold() for word in said_between]
    return len(between) <= 6 and not _given_to(said_between) and not _got_for_another(
        text, at) and not any(
        word in _NOT_THE_ONE_HAD or word.endswith(("'s", "’s")) for word in between)


#: Whom the one had is got for, right after it: "a dog named Rex for her son".
_GIVEN_FOR = re.compile(r"[a-z]+(?:\s+(?:named|called)\s+[\w'’-]+)?\s+for\s+"
                        r"(?P<whom>[\w'’]+(?:\s+[\w'’]+)?)", re.IGNORECASE)


#: The speaker getting what they then have: "I got", "we just adopted".
_SPEAKER_GETS = re.compile(r"\b(?:I|we)\s+(?:\w+\s+)?(?:got|get|bought|adopted|rescued)\b",
                           re.IGNORECASE)
#: The speaker as whom something is got for: "for me", "for us", "for myself".
_THE_SPEAKER = frozenset({"me", "us", "myself", "ourselves"})
#: Someone got it for along with the speaker, who has it too: "for Mom and me".
_AND_THE_SPEAKER = re.compile(r"(?:[\w'’]+\s+){1,3}and\s+(?:me|us|myself)\b", re.IGNORECASE)


def _got_for_another(text: str, at: int) -> bool:
    """Whether the kind at ``at`` is said to be got for someone, who has it then: "a dog
    named Rex for her son", "a puppy for Tom", "for Mom", "My sister got a dog for me";
    not "a dog for her birthday", "for Christmas", "for Mother's Day", nor "I got a dog
    for us" or "for Mom and me", which the speaker has too."""
    given_for = _GIVEN_FOR.match(text, at)
    if given_for is None:
        return False
    first, *rest = given_for["whom"].split()
    if first.casefold() in _THE_SPEAKER or _AND_THE_SPEAKER.match(text, given_for.start("whom")):
        return _SPEAKER_GETS.search(text, 0, at) is None
    if first[:1].isupper() and first != "I":
        # A capital word is someone only as a first name or a kin word ("for Mom"): "for
        # May" is a time to come. "for Tom's birthday" or "for Mom's birthday" is a gift
        # to them, as "for Tom's son" is to the son, but "for Mother's Day" to no one.
        # "for Mothers Day" or "for Kids Day", typed without the apostrophe, is a day;
        # "for Mom's sake" a reason to get it, no gift.
        if rest[:1] and rest[0].casefold() in {"day", "sake"}:
            return False
        possessive = first.endswith(("'s", "’s"))
        whom = first[:-2] if possessive else first
        return (is_first_name(whom) or relation_of(whom.casefold()) not in (None, *_PETS)
                or (possessive and _given_to([word.casefold() for word in rest])))
    return _given_to([first, *rest])


#: Who may be given what is had, right after the having: "I got him a puppy".
_RECEIVING = frozenset({"me", "us", "him", "them", "you"})
#: What says one of a kind after whom it is given to: "got her a puppy", not "her puppy".
_ONE_GIVEN = frozenset({"a", "an", "another", "some"})


def _given_to(between: list[str]) -> bool:
    """Whether the words ``between`` a having and the kind name whom it is given to, who
    has it then: "My sister got Tom a dog", "... bought her son a dog", "... got her a
    dog"; not "... adopted her puppy" nor "We adopted a German puppy"."""
    if not between:
        return False
    first, after = between[0], [word.casefold() for word in between[1:2]]
    return ((first[:1].isupper() and first != "I") or first.casefold() in _RECEIVING
            or (first.casefold() == "her" and bool(after) and after[0] in _ONE_GIVEN)
            or any(relation_of(word.casefold()) not in (None, *_PETS) for word in between))


def _with_another(text: str, at: int, owning: re.Pattern[str] = _OWNED,
                  someone: bool = False) -> bool:
    """Whether what the user (or, by ``owning``, another) has, said last before the word at
    ``at``, is someone or something that word is only with: "I have a friend with a dog",
    not "I have a dog"; of ``someone``, a person only, as "a cat with a red collar named
    Rex" may name the cat."""
    owned = [match.end() for match in owning.finditer(text, 0, at)]
    between = re.findall(r"[\w'’]+", text[owned[-1]:at].casefold()) if owned else []
    return any(word == "with" and not (someone and relation_of(before) in (None, *_PETS))
               for before, word in pairwise(between))


def same_kind(one: str, other: str) -> bool:
    """Whether a word for a kind may be of the same kind as another: a puppy is a dog, and
    a pet may be either; a cat is no dog."""
    kinds = [_KIND_OF.get(word.casefold(), word.casefold()) for word in (one, other)]
    return bool(_ANY_KIND.intersection(kinds)) or concepts(kinds[0]) == concepts(kinds[1])
