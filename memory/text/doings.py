"""Someone's doing told of the speaker instead: after "My wife jogs every morning", "I do
too" says "I jog every morning". memory/text/ellipses.py reads the "too"; this module turns
a doing said with any verb in -s into the speaker's own, and leaves one it cannot turn
with certainty (a verb whose plain form its ending leaves unsure, a doing said of a person)
untold. Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.relations import relation_of

#: Someone's doing said with any verb ("My wife jogs every morning", "Tom cycles to work"),
#: which "I do too" may share: the subject one of the user's by a noun for them (not "my
#: two", whose next word is a noun), or a name; an adverb may stand before the verb.
_VERB_PHRASE = (r"\s+(?P<adverb>(?:always|often|usually|sometimes|also|still|really|regularly)"
                r"\s+)?(?P<verb>(?-i:[a-z]+)(?<![su'’])s)\b(?P<rest>(?:\s+\S.*?)?)\W*$")
_DOES = re.compile(
    r"^(?:my\s+(?P<noun>[\w-]+)|(?!(?:my|the|a|an|this|that|these|those|our|your|his|her"
    r"|their|its?|some|every|each|no|all)\b)(?-i:[A-Z][a-z]+))" + _VERB_PHRASE,
    re.IGNORECASE | re.DOTALL)
#: A thing's doing ("The API works", "The login page loads"), which another thing or "it"
#: may deny, but no person takes over.
_THING_DOES = re.compile(r"^(?:(?:the|this|that|our)\s+(?:[\w-]+\s+)??[\w-]+|it)" + _VERB_PHRASE,
                         re.IGNORECASE | re.DOTALL)
#: Words the speaker would say of another person, or of themselves: told of the speaker
#: they would point elsewhere ("My wife loves me" is no "I love me", "Tom loves himself" no
#: "I love himself").
PERSONAL = re.compile(r"\b(?:i|me|my|mine|myself|he|him|his|himself|she|her|hers|herself|they"
                      r"|them|their|theirs|themselves|we|us|our|ours|ourselves|it|its|itself)\b",
                      re.IGNORECASE)
#: Verbs in -s whose plain form no rule below gives ("aches" is no "ach"; "uses" is "use").
_PLAIN = {"goes": "go", "does": "do", "uses": "use"}
_UNSURE = frozenset({"aches", "caches", "dies", "lies", "ties", "is", "was", "has"})


def _plain_verb(verb: str) -> str | None:
    """The plain form of ``verb`` in -s ("jogs" -> "jog", "teaches" -> "teach", "studies"
    -> "study"), or None when its ending leaves it unsure ("focuses", "canoes")."""
    word = verb.casefold()
    if word in _PLAIN or word in _UNSURE:
        return _PLAIN.get(word)
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith(("oes", "zzes")) or word.endswith(("uses", "ases", "ises")):
        return None
    return word[:-1]


def third_person_verb(verb: str) -> str:
    """``verb`` as said of one other than the speaker: "smoke" -> "smokes"."""
    if verb.casefold() in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[verb.casefold()]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{verb}es"
    return f"{verb[:-1]}ies" if re.search(r"[^aeiou]y$", verb, re.IGNORECASE) else f"{verb}s"


#: A quoted plain verb of the speaker's, as a verb the head table (memory/text/person.py)
#: does not rewrite is stored ("User: I smoke", "User: I do smoke"); not one the
#: head table or its negation reads ("I am", "I don't"), nor a helping verb ("I can swim").
_QUOTED_VERB = re.compile(
    r"^(?P<who>[\w'’ ]{1,40}):\s+i\s+(?:do\s+)?"
    r"(?!(?:am|was|were|have|had|do|did|not|never|can|could|will|would|shall|should|may"
    r"|might|must|used|think|guess|believe|mean|meant)\b)"
    r"(?P<verb>[a-z]+)(?P<rest>(?:\s.*)?)$", re.IGNORECASE)


def unquoted(fact: str) -> str:
    """A quoted plain verb said in the third person ("User: I smoke" -> "User smokes");
    any other fact as it is."""
    quoted = _QUOTED_VERB.match(fact.strip())
    if quoted is None:
        return fact
    return f"{quoted['who']} {third_person_verb(quoted['verb'])}{quoted['rest']}"


def doing_of(stated: str, *, of_a_thing: bool = False) -> tuple[str, str] | None:
    """The adverb (or "") and the doing in the plain form of ``stated``, someone's doing
    with a verb this module does not list ("Tom often cycles to work" -> ("often ", "cycle
    to work")), or with ``of_a_thing`` a thing's too ("The API works" -> ("", "work"));
    None when it is not one, or says more of a person than the speaker could take over."""
    match = _DOES.match(stated.strip()) or (
        _THING_DOES.match(stated.strip()) if of_a_thing else None)
    noun = None if match is None else match.groupdict().get("noun")
    if match is None or (noun is not None and relation_of(noun) is None):
        return None
    verb = _plain_verb(match["verb"])
    if verb is None or PERSONAL.search(match["rest"]):
        return None
    return match["adverb"] or "", f"{verb}{match['rest']}"


def does_in_full(stated: str) -> str | None:
    """What "I do too" says after ``stated`` (``doing_of``): "My wife jogs" -> "I jog"."""
    doing = doing_of(stated)
    return None if doing is None else f"I {doing[0]}{doing[1]}"
