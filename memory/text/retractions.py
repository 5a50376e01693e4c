"""What a retraction ("I'm not allergic to shellfish anymore") retires among stored facts.

``retracted(denied, facts, about)`` picks, among the facts that may be of the one the
retraction is about (``about``: memory/text/owners.py; "My sister is not allergic to
shellfish anymore" leaves the user's allergies), those holding the most of what it denies
(at least 60%), and among those the ones with the least else besides (all of them for a
request that names what to forget). Given what was ``said``, a name inside a fact ("Pine"
of "3 Pine St.") meets a word of it only when the two are the same word, singular or
plural (a street's name, "Glass" of "5 Glass St.", only the same word): by stem, "Pine"
would be the "pin" of "Forget my PIN". ``still_held(fact,
denied)`` is what such a fact listing several items still says without the denied ones;
a quote of the speaker's words ("User: I changed my password, it's strong") is never cut.
``named_in_its_words(fact, request)`` is whether a request to forget names a fact told
with it ("PIN" of "User's PIN is 1234"), not news it leaves ("address" of "User moved to
Faro").
``denied`` is the concepts (memory/text/wording.py) a retraction read by
memory/text/statements.py says are no longer true. Pure functions over strings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tiermem.memory.search.lexical import query_terms
from tiermem.memory.text.joint_shares import of_no_member
from tiermem.memory.text.owners import Owner, may_be_one, owner_of, same_kin
from tiermem.memory.text.wording import concepts, stem

__all__ = [
    "named_in_its_words",
    "reporting_denied",
    "retracted",
    "still_held",
    "workplace_denied",
    "workplaces_held",
]

_I = re.IGNORECASE
_APOS = "['’]"
#: The share of what a retraction denies that a fact must hold to be retired by it.
_MIN_DENIED_SHARE = 0.6
#: A sentence of the user's quoted whole, of someone of theirs: "User: My wife thinks I'm
#: vegan"; ``verb`` says what of them it tells.
_QUOTED_OF_SOMEONE = re.compile(r"^user:\s+my\s+[\w'’-]+\s+(?P<verb>[\w'’-]+)", _I)


#: A fact naming whom someone reports to ("User's manager is Priya"): that person is whom
#: they work for, so "I no longer work for Priya" denies it.
_REPORTS_TO = re.compile(
    rf"{_APOS}s\s+(?:(?:line|direct)\s+)?(?:manager|boss|supervisor)\s+(?:is|was)\b", _I)
#: What such a fact holds, and a withdrawal of working for or reporting to someone denies,
#: beside their words. No word yields it: "work" alone would let "I no longer work with
#: Priya on the migration" retire Priya as the manager.
_REPORTING = "reports to"
_WORKS_FOR = re.compile(r"\b(?:work(?:s|ed|ing)?\s+(?:for|under)|report(?:s|ed|ing)?\s+to)\b",
                        _I)


#: What a fact of where someone works holds, and leaving a workplace denies, beside its
#: words: "User works at Globex", "... works as a nurse at ...", not "User works in Paris",
#: which "I left Paris" (a city left, not a job) leaves.
_WORKPLACE = "works at"
#: The workplace a fact names, up to where it is: "Globex" of "works for Globex in Paris",
#: whose job "I left Paris" leaves as it leaves "works in Paris".
_WORKS_AT = re.compile(r"\bwork(?:s|ed|ing)?(?:\s+[\w'’-]+){0,4}?\s+(?:at|for)\s+"
                       r"(?P<place>.+?)(?=\s+(?:in|from|near)\b|[,;]|\.?$)", _I)


#: A job left without naming where ("I left my job"): it ends whatever workplace is held.
_ANY_JOB = re.compile(r"^my\s+(?:old\s+)?job$", _I)
_ANY_WORKPLACE = "any workplace"


def workplaces_held(facts: Sequence[str]) -> frozenset[str]:
    """The concepts of every workplace ``facts`` name ("Initech" of "User's wife works at
    Initech"): a name known to be an employer, not a city."""
    return frozenset(concept for fact in facts for work in _WORKS_AT.finditer(fact)
                     for concept in concepts(work["place"]))


def workplace_denied(place: str) -> frozenset[str]:
    """What leaving ``place`` ("Globex", "my job at Acme", "my job") denies: working there."""
    if _ANY_JOB.match(place.strip()):
        return frozenset({_WORKPLACE, _ANY_WORKPLACE})
    return frozenset(concepts(place) | {_WORKPLACE})


def reporting_denied(sentence: str) -> frozenset[str]:
    """What a withdrawal ``sentence`` denies of whom someone reports to: that concept when it
    speaks of working for (or under) or reporting to someone, nothing otherwise."""
    return frozenset({_REPORTING}) if _WORKS_FOR.search(sentence) else frozenset()


#: A name inside a fact: a capitalized word after its first, whole (not the "Pine" of
#: "Pine-3"); "PIN" and "SSN", in capitals, are things, not names.
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+(?!\w|[-./:_]\w)")


def _singular(word: str) -> str:
    """``word`` without a plural ending: "Car Keys" in a fact is the "car key" of a request
    to forget, and "the Lakers" its "Laker games", while "Pine" stays apart from "pin"."""
    if word.endswith(_SIBILANT_PLURALS):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


_SIBILANT_PLURALS = ("sses", "xes", "zes", "ches", "shes")
#: What follows a street's name in an address ("St.", "Road").
_STREET = re.compile(r"\s+(?:st|street|rd|road|ave|avenue|lane|ln|blvd|boulevard|drive|dr|way"
                     r"|court|ct|place|pl|terrace|close|crescent)\b", _I)


def _unstemmed_names(fact: str, said: str | None) -> tuple[str, set[str]]:
    """``fact`` without the names ``said`` does not hold word for word, and those names,
    each whole: stemmed, a street's "Pine" met "Forget my PIN" and a shop's "Home" an
    address."""
    if said is None:
        return fact, set()
    typed = {word.casefold() for word in re.findall(r"\w+", said)}
    words = {_singular(word) for word in typed}
    # ... or, typed as a street too, its singular: "Forget King Road" is "5 Kings Road"
    as_streets = {_singular(found[0].casefold()) for found in re.finditer(r"\w+", said)
                  if _STREET.match(said, found.end())}
    # a street's name meets only itself: "Glass" of "5 Glass St." is no glass, and
    # "Forget my glasses" took the address
    streets = {match.start() for match in _NAME.finditer(fact)
               if _STREET.match(fact, match.end())}
    names = [match for match in _NAME.finditer(fact)
             if (match[0].casefold() not in typed
                 and _singular(match[0].casefold()) not in as_streets
                 if match.start() in streets
                 else _singular(match[0].casefold()) not in words)]
    for match in reversed(names):
        fact = fact[:match.start()] + fact[match.end():]
    # a stopword capitalized ("The" of a title) stays out, as it does in concepts()
    return fact, {match[0].casefold() + (" street" if match.start() in streets else "")
                  for match in names if concepts(match[0])}


def _own_concepts(fact: str, denied: frozenset[str], said: str | None = None) -> set[str]:
    unnamed, names = _unstemmed_names(fact, said)
    own = (concepts(unnamed) | names) - {"user"}
    if _WORKPLACE in denied and any(_ANY_WORKPLACE in denied or concepts(work["place"]) & denied
                                    for work in _WORKS_AT.finditer(fact)):
        own |= {_WORKPLACE, _ANY_WORKPLACE} & denied
    return own | {_REPORTING} if _REPORTS_TO.search(fact) else own


def retracted(denied: frozenset[str], facts: Sequence[str], about: Owner | None = None,
              every: bool = False, said: str | None = None) -> list[str]:
    """The facts a retraction denying ``denied`` of ``about`` retires (none if nothing
    matches well); with ``every``, each that holds enough of it, as a request naming what
    to forget ("Forget my sister") asks for all of them, not the best match alone. With
    ``said``, the words of the request, a name in a fact counts only as the same word."""
    if not denied:
        return []
    scored = []
    for fact in facts:
        owner = owner_of(fact)
        if (not may_be_one(about, owner) or not same_kin(about, owner)
                or of_no_member(about, fact)):
            continue  # someone else's: the words it shares say nothing of theirs
        if (about is not None and about.name and not about.user and owner is not None
                and owner.user and not owner.relations
                and not denied - concepts(about.name) <= _own_concepts(fact, denied)):
            continue  # "Tom no longer works at Acme" denies nothing of "User works with Tom"
        quoted = _QUOTED_OF_SOMEONE.match(fact.strip())
        if (quoted is not None and about is not None and (about.relations or about.name)
                and not concepts(quoted["verb"]) <= denied):
            continue  # "My wife isn't vegan" denies nothing of what she thinks the user is
        own = _own_concepts(fact, denied, said)
        held = len(denied & own)
        if own and held >= _MIN_DENIED_SHARE * len(denied):
            scored.append(((held / len(denied), held / len(own)), fact))
    if not scored:
        return []
    if every:
        return [fact for _, fact in scored]
    best = max(score for score, _ in scored)
    return [fact for score, fact in scored if score == best]


#: An item of a list is a few words ("green tea"), with no verb or clause of its own.
_MAX_ITEM_WORDS = 4
_NOT_AN_ITEM = re.compile(
    rf"\b(?:is|are|was|were|has|have|had|does|do|did|which|who|that|works?|lives?"
    # a verb of liking: "jazz and hate country music" is two statements, not two things
    r"|likes?|loves?|hates?|prefers?|enjoys?|dislikes?|adores?|detests?|stand"
    # a subject of its own: "Oslo, and they own a cabin" is a clause after the place
    r"|i|we|they|he|she"
    rf"|[a-z]+n{_APOS}t)\b", _I)
#: A fact that quotes the speaker's words ("User: I changed my password, it's strong").
_QUOTE = re.compile(r"^[^\W\d_][\w-]*:\s")
#: Where a list of items is joined: "peanuts, shellfish and eggs".
_POSSESSIVE = re.compile(rf"{_APOS}s$")
_ITEM_JOIN = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", _I)


#: The words of a move: news of where one lives, no name of the address it leaves.
_MOVE = re.compile(r"\b(?:mov|relocat)\w*", _I)


def named_in_its_words(fact: str, request: str, news: bool = False) -> bool:
    """Whether ``request`` names what ``fact`` says: by a concept of them both, a move
    aside ("Forget where I live" names "User's address is 5 Pine Street", "Forget my
    address" not "User moved to Faro"); of ``news`` (a fact told as a change: "I live in
    Faro now"), by a word of its own alone ("Forget my PIN" of "User's PIN is 5678")."""
    if news:
        return bool({stem(word) for word in query_terms(fact)}
                    & {stem(word) for word in query_terms(request)})
    return bool(concepts(_MOVE.sub(" ", fact)) & concepts(_MOVE.sub(" ", request)))


def still_held(fact: str, denied: frozenset[str]) -> str | None:
    """What ``fact`` still says once a retraction denying ``denied`` takes its items out:
    "User is allergic to peanuts and shellfish" less shellfish is "User is allergic to
    peanuts". None when it lists nothing else, or the retraction denies the rest too, or
    it quotes the speaker: cut, "User: I changed my password, it's strong" less the password
    was "User: I changed my it's strong", words never said, so the quote goes whole."""
    if _QUOTE.match(fact.strip()):
        return None
    pieces = _ITEM_JOIN.split(fact.strip())
    if len(pieces) < 2:
        return None
    head_words = pieces[0].split()
    # The first item is the first piece's last content words; the words before are the head,
    # at least a subject and its verb ("User likes").
    cut = len(head_words)
    while cut > 2 and concepts(head_words[cut - 1]) and concepts(head_words[cut - 1]) <= denied:
        cut -= 1
    if cut == len(head_words):  # the first item is not denied: it ends the first piece
        cut -= 1
    if cut < 2:
        return None  # the join is in the subject ("User's wife and User moved to Porto")
    head = " ".join(head_words[:cut])
    items = [" ".join(head_words[cut:]), *pieces[1:]]
    subject = re.compile(rf"\b{re.escape(_POSSESSIVE.sub('', head_words[0]))}\b", _I)
    if any(len(item.split()) > _MAX_ITEM_WORDS or _NOT_AN_ITEM.search(item)
           or subject.search(item) for item in items):
        # not a list of items ("lives in Porto, Portugal and works at Acme"), or one whose
        # subject is said again ("User's wife Ana and User moved"): a clause of its own
        return None
    kept = [item for item in items if not concepts(item) or not concepts(item) <= denied]
    if len(kept) in (0, len(items)) or not head:
        return None
    listed = kept[0] if len(kept) == 1 else ", ".join(kept[:-1]) + " and " + kept[-1]
    return f"{head} {listed}"
