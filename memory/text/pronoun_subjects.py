"""Who "he" or "she" is when a statement opens with one: "He no longer works at Globex",
after "Tom works at Globex. I work at Globex.", is Tom's; "She works at Globex", after "I
met Tom's wife.", is hers.

Read as said, such a retraction is of no one known, so it retired whichever held fact
said the most of what it denies: the user's own job; and such a statement was stored as
"She works at Globex", which says of no one. ``with_pronouns_named`` reads the pronoun as
the one person the statements just before it name ("Tom", "My wife", "Tom's wife"), so
that the statement is theirs alone ("Tom no longer works at Globex"). When that is
unclear (no one named, several with nothing to tell them apart, a "she" after "my
brother", or one named only through a pronoun of their own, "his wife"), the statement
is left out: what it would retire nothing says, a fact retired in another's stead is
lost, and one stored of "he" names no one. A "they" is the several the statement before
it says ("The servers are down.", "I work with Tom and Ana."), or the several of the
user's named alone before it ("My parents retired."), or left out as a lone "he" is. A
question is left as asked.
Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.asked_of import with_asks_apart
from tiermem.memory.text.given_names import is_first_name, pronoun_of_name
from tiermem.memory.text.named_as import name_said_own, name_taken_back
from tiermem.memory.text.other_pronouns import other_pronoun_apart
from tiermem.memory.text.people_named import people_in, places_in
from tiermem.memory.text.pronoun_shares import share_beside_pronoun
from tiermem.memory.text.relations import names_several, pronoun_of_relation, relation_of
from tiermem.memory.text.said_alike import says_alike
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.several_before import each_of, others_beside, several_before
from tiermem.memory.text.statements import forgets_the_last, read_statement

__all__ = ["unnamed_pronouns", "with_pronouns_named"]

_I = re.IGNORECASE
#: A retraction's subject said as a pronoun: "He no longer ...", "She's not ...".
_PRONOUN = re.compile(r"^\s*(?P<pronoun>he|she|they)\b", _I)
#: "they" said before, as of the one a "they" after it goes on about ("Their name is Sam
#: and they work at Acme."): said as before, the statements stay of one subject.
_THEY_BEFORE = re.compile(r"\b(?:they|their|theirs|them|themselves)\b", _I)
#: What someone said or thought, and the subject of what they said when it is one of its
#: own: "He said the deploy is at 5pm", whose "the deploy" needs no "he" named.
_REPORTED = re.compile(
    r"\s+(?:said|says|say|thinks|thought|believes|reckons|claims|claimed|mentioned"
    r"|confirmed|reported|wrote|noted|told\s+me|tells\s+me)\s+(?:that\s+(?!is\b|was\b))?"
    r"(?!(?:he|she|him|her|his|hers|they|them|their|it|its|this|that|these|those|i|me|my"
    r"|we|us|our|you|your)\b)\w", _I)
#: The one a pronoun is, said in its own sentence: between commas after it ("He, Tom,
#: works at Globex") or last ("She is allergic to peanuts, my daughter."). Read as
#: naming no one, what was said of them was not stored.
_SAID_BETWEEN = re.compile(r"\s*,\s*(?P<who>[^,]+?)\s*,\s*(?P<rest>\S.*)$")
_SAID_LAST = re.compile(r"\s*,\s*(?P<who>(?:my|our)\s+[a-z][\w-]*|(?-i:[A-Z][a-z'’-]+))"
                        r"\s*(?P<end>[.!]*)\s*$", _I)
#: Who a pronoun is, said as all its sentence says: "He's my brother Tom", "She is Ana,
#: my wife". Read as naming no one, the relation and the name were not stored.
_INTRODUCED = re.compile(
    r"(?:\s+is\s+|['’]s\s+)(?:(?P<whose>my|our)\s+(?P<noun>[a-z][\w-]*)\s*,?\s*"
    r"(?P<name>(?-i:[A-Z][a-z'’-]+))|(?P<named>(?-i:[A-Z][a-z'’-]+))\s*,\s*"
    r"(?P<its_whose>my|our)\s+(?P<its_noun>[a-z][\w-]*))\s*(?P<end>[.!]*)\s*$", _I)
_OWN_ONE = re.compile(r"(?:my|our)\s", _I)


def with_pronouns_named(sentences: list[str], said_last: str | None) -> list[str]:
    """``sentences``, those of one message in order, with the "he" or "she" opening each
    statement said as the one person it may be of those named before it in them or in
    ``said_last``, the user's last message; a statement whose pronoun names no one clearly
    is left out."""
    return _named(sentences, said_last)[0]


def unnamed_pronouns(sentences: list[str], said_last: str | None) -> list[str]:
    """The pronouns ("He") of the statements ``with_pronouns_named`` leaves out."""
    return _named(sentences, said_last)[1]


def _named(sentences: list[str], said_last: str | None) -> tuple[list[str], list[str]]:
    before = split_sentences(said_last) if said_last else []
    told: list[str] = []
    unnamed: list[str] = []
    for said in with_asks_apart(sentences):
        parts = None if said.rstrip().endswith("?") else other_pronoun_apart(said)
        if parts is None:
            _read(said, before, told, unnamed)
            continue
        first, joint, later = parts
        told_from = len(told)
        _read(first, before, told, unnamed)
        after_first = len(told), len(unnamed)
        _read(later, before, told, unnamed)
        rest = _verb_spelt_out(later[len(later.split()[0]):])
        whom = told[-1][:-len(rest)].casefold() if len(told) > after_first[0] else ""
        if len(unnamed) > after_first[1] or (whom and told_from < after_first[0] and (
                whom in told[after_first[0] - 1].casefold())):
            # a "she" no one known may be, or one read as the "he" before: kept as said
            # with the part before, as it was
            del told[after_first[0]:], unnamed[after_first[1]:]
            if len(told) > told_from:
                told[-1] = f"{told[-1].rstrip('.!')}{joint}{later[:1].lower()}{later[1:]}"
    return told, unnamed


def _read(sentence: str, before: list[str], told: list[str], unnamed: list[str]) -> None:
    """``sentence`` read after ``before`` (the user's last message) and ``told`` (those
    of this one read so far): added to ``told`` as read, or its pronoun to ``unnamed``."""
    opened = _PRONOUN.match(sentence)
    if opened is None or sentence.rstrip().endswith("?"):
        told.append(sentence)
        return
    pronoun = opened["pronoun"].casefold()
    if pronoun == "they":
        told_of_them = _they_named(sentence, opened.end(), before, told)
        if told_of_them is None:
            unnamed.append(opened["pronoun"])
        else:
            told.append(told_of_them)
        return
    if (within := _named_within(sentence, opened.end(), pronoun)) is not None:
        told.append(within)
        return
    # One the sentence names beside its pronoun is someone else: after "Tom works at
    # Globex." the "she" of "She and Tom moved to Porto" was read as Tom.
    beside = {person.casefold() for person, _, _ in people_in(sentence)}
    # Right after "Scratch that", a name whose sex nothing says is no "she": "Tom is
    # tall. Scratch that, she's a doctor." stored "Tom is a doctor".
    not_them = places_in([*before, *told, sentence]) | beside
    taken_back = bool(told) and forgets_the_last(told[-1])
    person = _last_named([*before, *told], pronoun, not_them, taken_back)
    # unless it says again what the fact taken back said: "he works at Initech"
    if person is None and taken_back and len(said := [*before, *told]) > 1 and (
            (one := _last_named(said, pronoun, not_them)) is not None
            and says_alike(said[-2], one, sentence[opened.end():])):
        person = one
    if taken_back and person is not None and len(said := [*before, *told]) > 1:
        person = name_taken_back(said[-2], person)
    elif person is not None:  # "Ana is my sister. She is my cousin." is of Ana
        person = name_said_own([*before, *told], person, sentence, opened.end())
    if person is None and _says_of_its_own(sentence, opened.end()):
        # What was said is the fact; who said it is only by the way. Left out, "He
        # said the deploy is at 5pm." as a first message stored nothing of the deploy.
        told.append(sentence)
    elif person is None:
        unnamed.append(opened["pronoun"])
        if (share := share_beside_pronoun(sentence, opened.end())) is not None:
            told.append(share)
    else:
        told.append(f"{person}{_verb_spelt_out(sentence[opened.end():])}")


#: A verb run into the pronoun it follows ("She's a doctor", "They're away"): kept after
#: the one named, "User's wife's a doctor" read as her possession.
_RUN_IN = re.compile(r"^['’](?:(?P<has>s(?=\s+(?:been|got|gone)\b))|(?P<is>s)|(?P<are>re))\b",
                     _I)


def _verb_spelt_out(rest: str) -> str:
    """``rest``, what follows a pronoun, with a verb run into it said in full."""
    verb = _RUN_IN.match(rest)
    if verb is None:
        return rest
    return f" {verb.lastgroup}{rest[verb.end():]}"


def _they_named(sentence: str, said_from: int, said_last: list[str], told: list[str]
                ) -> str | None:
    """``sentence``, opened by "they" ending at ``said_from``, said of the several the
    statement right before it says ("The servers are down." makes "They restarted
    at 5pm" "The servers restarted at 5pm") or of the several of the user's named before
    it in ``said_last`` (the user's last message) or ``told`` ("My parents retired."
    makes "They moved to Porto" "My parents moved to Porto"), or as said when those say
    "they" themselves or when it reports what others said; None when it names no one, or
    several said in the same message may be them: stored as said, "They moved to Porto"
    with no one named before said of no one."""
    before = [*said_last, *told]
    # The several said right before come first: after a message whose "they" was read
    # as the servers, "I work with Tom and Ana. They are on call." kept "They are on call".
    # So in a report: "They said the deploy failed" kept as said named no one who said it.
    several = several_before(before[-1]) if before else None
    if (several is not None and not others_beside(told or said_last, several)
            and not _reports_of_one_of(sentence, said_from, several)):
        return f"{several}{_verb_spelt_out(sentence[said_from:])}"
    if _says_of_its_own(sentence, said_from):
        return sentence
    if several is not None:
        return None
    if any(_THEY_BEFORE.search(said) for said in before):
        return sentence
    # Anyone else named may be among them: after "My sister and my brothers visited." a
    # "they" is not the brothers alone.
    named = {person.casefold(): person for said in before for person, _, _ in people_in(said)}
    if len(named) != 1:
        return None
    [person] = named.values()
    return f"{person}{_verb_spelt_out(sentence[said_from:])}" if _of_several(person) else None


def _reports_of_one_of(sentence: str, said_from: int, several: str) -> bool:
    """Whether ``sentence`` reports what was said of one of ``several``, whom its "they"
    then hardly is: "They said Tom is out." after "I work with Tom and Ana." stored "Tom
    and Ana said Tom is out", Tom as the one who told it."""
    if not _says_of_its_own(sentence, said_from):
        return False
    said = {word.casefold() for word in re.findall(r"[\w-]+", sentence[said_from:])}
    return bool(each_of(several) & said)


def _of_several(person: str) -> bool:
    """Whether ``person`` ("My parents", "Our kids") names several of the user's."""
    whose, _, noun = person.casefold().rpartition(" ")
    if whose not in ("my", "our"):
        return False
    return noun.endswith("children") or (noun.endswith("s") and (
        relation_of(noun[:-1]) is not None
        or (noun.endswith("es") and relation_of(noun[:-2]) is not None)))


def _named_within(sentence: str, said_from: int, pronoun: str) -> str | None:
    """``sentence`` said of the one it names as its pronoun, which ends at ``said_from``
    ("He, Tom, works at Globex" is "Tom works at Globex"); None when it names no one so."""
    if (introduced := _introduced(sentence, said_from, pronoun)) is not None:
        return introduced
    if (between := _SAID_BETWEEN.match(sentence, said_from)) is not None:
        who, rest = between["who"], f" {between['rest']}"
    elif (last := _SAID_LAST.search(sentence, said_from)) is not None:
        who, rest = last["who"], f"{sentence[said_from:last.start()]}{last['end']}"
    else:
        return None
    if not _OWN_ONE.match(who) and not (who[:1].isupper() and is_first_name(who.split()[0])):
        return None  # "He moved to Porto, Portugal.", "She, however, ...": no one
    told = f"{who[:1].upper()}{who[1:]}{rest}"
    people = people_in(told)
    if not people or people[0][0].casefold() != who.casefold() or not people[0][1]:
        return None
    return told if people[0][2] in (None, pronoun) else None


def _introduced(sentence: str, said_from: int, pronoun: str) -> str | None:
    """``sentence`` said as who its pronoun is, when that is all it says: "He's my
    brother Tom" is "My brother is Tom"; None otherwise, or when the relation is not a
    ``pronoun`` ("She's my brother Tom")."""
    said = _INTRODUCED.match(sentence, said_from)
    if said is None:
        return None
    name = said["name"] or said["named"]
    whose, noun = said["whose"] or said["its_whose"], said["noun"] or said["its_noun"]
    relation = relation_of(noun.casefold())
    if relation is None or not is_first_name(name):
        return None
    if pronoun_of_relation(relation) not in (None, pronoun):
        return None
    if said["name"]:
        return f"{whose.capitalize()} {noun} is {name}{said['end']}"
    return f"{name} is {whose.casefold()} {noun}{said['end']}"


def _says_of_its_own(sentence: str, said_from: int) -> bool:
    """Whether ``sentence`` reports, from ``said_from``, what its pronoun said or thought
    of a subject it names itself; not a retraction, which by hearsay alone would retire
    a held fact ("He said Tom no longer works at Globex")."""
    return (_REPORTED.match(sentence, said_from) is not None
            and read_statement(sentence).change != "retraction")


def _last_named(sentences: list[str], pronoun: str, not_them: set[str],
                sexed: bool = False) -> str | None:
    """The one person ``pronoun`` may be among all those ``sentences`` name ("Tom", "My
    wife"), none of ``not_them`` (places, those named beside it); None when unclear, or
    when ``sexed`` and nothing says that one is a "he" or a "she". One left when another
    is of the other sex is the pronoun's as one named alone is: after "Keiko and Tom are
    my friends", Tom being a man leaves only Keiko a "she", as "I met Keiko" does."""
    # All of them, not those of the latest sentence naming anyone: after "Tom works at
    # Globex. Priya is on call." the "he" of "He no longer works at Globex" may be Tom,
    # and read as Priya it left Tom's job held and stored a change no one said of her.
    fits: dict[str, tuple[str, bool]] = {}
    sexes: dict[str, str | None] = {}
    for sentence in sentences:
        for person, own, sex in people_in(sentence):
            if person.casefold() in not_them or names_several(person):
                # nor "my friends" one: "Mark and Tom are my friends. She..." stored
                # "User's friends is a lawyer"
                continue
            # A name most often a man's is no "she" (a woman's no "he"), though it says too
            # little for ``sexed``: read as Tom, "Tom is tall. She's a doctor." stored
            # "Tom is a doctor".
            # nor is one whose name is said: "My boss is Tom. She ..." is not of the boss
            name = person.split()[0] if sex is not None else _name_said(sentence, person)
            if sex in (None, pronoun) and pronoun_of_name(name) in (None, pronoun):
                fits[person.casefold()], sexes[person.casefold()] = (person, own), sex
    if len(fits) != 1:
        return None
    [(person, own)] = fits.values()
    return person if own and not (sexed and sexes.get(person.casefold()) is None) else None


def _name_said(sentence: str, person: str) -> str:
    """The name ``sentence`` says ``person`` ("My boss") has ("My boss is Tom", "Tom is my
    boss"), else the first word of ``person``: one named ("Ana is Tom's wife") keeps
    their own, and a name owning something ("Tom's") is not theirs."""
    whom, first = re.escape(person), person.split()[0]
    if is_first_name(first):
        return first
    said = re.search(rf"(?i:{whom})\s+(?:is|was)\s+(?P<after>[A-Z][a-z]+)\b(?!['’]s\b)"
                     rf"|\b(?P<before>[A-Z][a-z]+)\s+(?:is|was)\s+(?i:{whom})\b", sentence)
    return first if said is None else said["after"] or said["before"]
