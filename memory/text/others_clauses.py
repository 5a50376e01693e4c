"""Clauses of a user's sentence that say something of someone else: "I visited Anna, who
lives in Berlin" tells where Anna lives, "I know a guy who works at Acme" (or "that
work", a verb after someone in any form) where he works, and "Nobody but me knows Anna
uses vim" what Anna uses. Read whole, each holds every word
of a fact of the user alone ("User lives in Berlin"), yet none says it of the user; nor
"I know a guy who has a dog named Rex" a dog of the user's.
``without_others_clauses`` cuts them out. A clause of whom the user is ("I'm an engineer
who works at Acme", "I, who live in Berlin, ...", "As a person who uses vim, ...", "the
company that I work at", what the user tells: "I told my mom that honestly I use vim"),
of the fact's own thing ("My dog, who is named Rex") or of no
one named before it ("That is why I use vim", "I love it, that is why ...") stays.

"Nobody except me uses vim" names others only to leave them out: it says the user alone
uses vim, as "Only I use vim" does (``only_the_user``), and "As someone who uses vim,
..." is the user's own (``opens_as_the_user``). Pure functions over strings.
"""

from __future__ import annotations

import re
from collections.abc import Set

from tiermem.memory.text.relations import relation_of
from tiermem.memory.text.wording import concepts

__all__ = ["is_no_one_but_me", "only_the_user", "opens_as_the_user", "others_clauses",
           "without_others_clauses"]

#: "who" or "that" opening a clause about the one named before it, and the word after.
_RELATIVE = re.compile(r"\b(who|that)\s+(?:(?:also|still|now|really|currently|usually|always"
                       r"|often)\s+)?([\w'’-]+)", re.IGNORECASE)
#: What the speaker knows, thinks, heard or feels of someone named after it: "knows Anna
#: uses", "noticed Tom uses", "cares that Tom uses".
_BELIEF_OF_ANOTHER = re.compile(
    r"\b(?:(?i:knows?|knew|thinks?|thought|believes?|believed|heard|says|said|told\s+me"
    r"|noticed|realized|learned|remember(?:s|ed)?|forgot|guess|hope|doubt|bet)\s+"
    r"(?i:that\s+)?|(?i:that)\s+)"
    r"(?!I\b)(?P<whom>[A-Z][\w'’-]*|(?i:he|she|they))\s+(?P<verb>[\w'’-]+)")
#: The user, or what the user says they are, right before "who": "I'm a developer who",
#: "I, who", and a lead-in the user is: "As a person who", "Being someone who".
_USER_BEFORE = re.compile(r"(?:\b(?:i['’]?m|i\s+am|i\s+was|we['’]re|we\s+are|we\s+were)"
                          r"(?:\s+[\w'’-]+){0,3}|\b(?:me|i|we)\s*,|^\s*(?:as|being)\s+"
                          r"(?:a|an|someone|somebody)(?:\s+[\w'’-]+){0,2})\s*$", re.IGNORECASE)
#: The word a clause opened at the end of a text is about: "dog" of "My dog, who".
_ANTECEDENT = re.compile(r"([\w'’-]+)\W*$")
_USERS = frozenset({"i", "i'm", "i've", "i'd", "i'll", "we", "we're", "we've", "me", "my",
                    "our", "us"})
#: Words after "that" that say it opens no clause of its own ("that his", "that this").
_NO_VERB = frozenset({"his", "this", "us", "its", "yours", "hers", "ours", "theirs", "less"})
#: Words for a person that name no relation of the user's.
_SOMEONE = frozenset({"guy", "guys", "person", "man", "woman", "lady", "girl", "boy",
                      "someone", "somebody", "people", "folks"})
#: Words after "that" that open what is told, not a clause of the one before it.
_NO_BARE_VERB = frozenset({"the", "a", "an", "he", "she", "they", "it", "there", "these",
                           "those", "my", "our", "your", "her", "their", "you", "if", "when"})
#: No one but the user: "Nobody except me", "No one other than me".
_NO_ONE_BUT_ME = re.compile(r"\b(?:nobody|no\s+one|no-one)\s+(?:but|except(?:\s+for)?|other\s+than"
                            r"|besides|apart\s+from|save)\s+(?:me|myself)\b", re.IGNORECASE)
#: A "that" whose clause has a subject of its own a few words on: "that honestly I use
#: vim", "that since 2020, we live": what is told, not a clause of the one before it.
_TOLD = re.compile(r"that\s+(?:[\w'’-]+,?\s+){0,2}?(?:i|we|he|she|they)\b", re.IGNORECASE)
#: Where a clause about someone else ends: a stop, or the user speaking again.
_CLAUSE_END = re.compile(r"[,;:.!?]|\s+(?:and|but|so)\s+(?:i|we|my)\b", re.IGNORECASE)


def without_others_clauses(text: str, *, own: Set[str] = frozenset()) -> str:
    """``text`` without the clauses it says of someone else: one opened by "who" or "that"
    after someone not the user nor a thing ``own`` names (concepts of a fact: "I have a
    dog that is named Rex" is of the user's dog), or what is known, thought or felt of
    someone named but ``own``'s ("I'm glad that Anna married me")."""
    kept, at = [], 0
    for start, end in _spans_of_others(text, own):
        kept.append(text[at:start])
        at = end
    return "".join(kept) + text[at:]


def others_clauses(text: str, *, own: Set[str] = frozenset()) -> list[str]:
    """The clauses ``without_others_clauses`` cuts out of ``text``: "who works at Acme" of
    "I met Tom, who works at Acme, and I work there too", the place the user's "there"
    may point back to."""
    return [text[start:end] for start, end in _spans_of_others(text, own)]


def _spans_of_others(text: str, own: Set[str]) -> list[tuple[int, int]]:
    cuts = [match.start() for match in _RELATIVE.finditer(text)
            if _of_another(text, match.group(1), match.group(2), match.start(), own)]
    cuts += [match.start("whom") for match in _BELIEF_OF_ANOTHER.finditer(text)
             if _verb_like(match.group("verb")) and not concepts(match.group("whom")) & own]
    spans: list[tuple[int, int]] = []
    for start in sorted(cuts):
        if spans and start < spans[-1][1]:
            continue
        end = _CLAUSE_END.search(text, start)
        spans.append((start, end.start() if end else len(text)))
    return spans


def _of_another(text: str, opener: str, following: str, start: int,
                own: Set[str]) -> bool:
    """Whether the clause ``opener`` ("who"/"that") opens at ``start`` is of someone else:
    not the user after it ("who I met") nor before it ("I'm someone who"), nor of a thing
    ``own`` names or of nothing named before it ("That is why I use vim"), and, after
    "that", a verb ("a guy that works", not "that vim plugin")."""
    word = following.casefold().replace("’", "'")
    before = text[:start]
    antecedent = _ANTECEDENT.search(before)
    if (word in _USERS or antecedent is None or _USER_BEFORE.search(before)
            or concepts(antecedent.group(1)) & own):
        return False
    # "that" after a comma opens no clause about the word before it: "I love it, that is
    # why I live in Berlin".
    if opener.casefold() == "that" and before.rstrip().endswith(","):
        return False
    # "a friend that live in Berlin": after someone, "that" opens their clause whatever
    # form its verb is written in.
    return (opener.casefold() == "who" or _verb_like(following)
            or (_is_someone(antecedent.group(1)) and _bare_verb_like(following)
                and not _TOLD.match(text, start)))


def _bare_verb_like(word: str) -> bool:
    """Whether ``word`` after "that" may be a verb in any form ("live"), not what opens
    what is told ("I told my sister that she ...", "... that Berlin is ...")."""
    return word.islower() and word not in _NO_VERB | _NO_BARE_VERB


def _is_someone(word: str) -> bool:
    """Whether ``word`` names someone: "friend", "sister", "guy", "dog"."""
    folded = word.casefold()
    return folded in _SOMEONE or relation_of(folded) is not None


def _verb_like(word: str) -> bool:
    """Whether ``word`` may be the verb of a clause: "works", "lived", "is"."""
    folded = word.casefold()
    return folded not in _NO_VERB and (folded in {"is", "was", "has", "had"} or bool(
        re.fullmatch(r"\w+(?:[^s]s|ed)", folded)))


#: Others the user says they are one of: "I'm someone who", "As somebody who". Read as
#: others, "someone" would make the clause another's.
_USER_AS_SOMEONE = re.compile(r"(\b(?:i['’]?m|i\s+am|i\s+was)\s+|^\s*as\s+)"
                              r"(?:someone|somebody)(?=\s+who\b)", re.IGNORECASE)


def only_the_user(text: str) -> str:
    """``text`` with "nobody but me" and its like said as the user alone, who is the one
    it speaks of: "Nobody except me uses vim" as "I alone uses vim" ("Nobody but me and
    my wife" as "Me and my wife", the user first among several), and "someone" the
    user says they are as the one they are: "I'm someone who uses vim" as "I'm one who
    uses vim"."""
    # "Nobody but me and my wife uses vim" is the user first among several: "Me and my wife".
    with_others = re.sub(_NO_ONE_BUT_ME.pattern + r"(?=\s+and\b)", "Me", text, flags=re.I)
    return _USER_AS_SOMEONE.sub(r"\1one", _NO_ONE_BUT_ME.sub("I alone", with_others))


#: A lead-in that is the user: "As someone who", "Being a person who".
_USER_LEAD_IN = re.compile(r"^\s*(?:as|being)\s+(?:a|an|someone|somebody|one)\b"
                           r"(?:\s+[\w'’-]+){0,2}?\s+who\b", re.IGNORECASE)


def opens_as_the_user(text: str) -> bool:
    """Whether ``text`` opens with a lead-in that is the user ("As someone who uses vim
    daily"): what it says is the user's, though it names no one."""
    return _USER_LEAD_IN.match(text) is not None


def is_no_one_but_me(text: str) -> bool:
    """Whether ``text`` is only "nobody but me" or its like: the start of a subject that
    may go on with others ("Nobody except me and Tom uses vim")."""
    return _NO_ONE_BUT_ME.fullmatch(text.strip()) is not None
