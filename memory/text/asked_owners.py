"""Whether a fact answers a question about someone else of the user's.

"Is my brother allergic to shellfish?" is not answered by "User is allergic to
shellfish", nor "Am I ...?" by the sister's: ``about_another`` says so from whom the
question asks about (``owners.owner_asked``) and whose each statement of the text is
(``owners.owner_of``). Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.owners import (
    MAX_SUBJECT_WORDS,
    POSSESSIVE,
    Owner,
    may_be_one,
    owner_asked,
    owner_of,
    statements_apart,
    words_of,
)
from tiermem.memory.text.relations import relation_of, relations_named
from tiermem.memory.text.subject_words import SPEAKER, SUBJECT_ENDS

_FIRST_VERB = re.compile(r"\s(?:is|are|was|were|has|have|had)\s", re.IGNORECASE)


def about_another(question: str, text: str) -> bool:
    """Whether ``text``, a stored fact or a statement in the user's words, is about another
    person of the user's than the one ``question`` asks about: the user's own for "Is my
    brother ...?", the sister's for "Am I ...?" or "Is my brother ...?". Not one of someone
    the question names by the relation ("Do I have a sister?" is answered by the
    sister's), nor when either is someone named: a question may name a thing of the
    user's ("What is the Wi-Fi password at Acme?"), or mean someone it does not name
    ("Acme is on the Enterprise plan" for "What plan am I on?"). A text of several
    statements ("My gym is FitLife and my dentist is Dr. Lee") is so only when each is."""
    asked = owner_asked(question)
    if asked is None:
        return False
    return all(_of_another(question, asked, part) for part in statements_apart(text))


def _of_another(question: str, asked: Owner, text: str) -> bool:
    owner = owner_of(text)
    if owner is None or not (asked.user and owner.user):
        return False
    words = [POSSESSIVE.sub("", word).casefold() for word in words_of(question)]
    if owner.relations and owner.relations[-1] in relations_named(words):
        return False
    if not owner.relations and asked.relations and _speaks_of_user(question):
        return False  # "What did my doctor say about my cholesterol?" asks of the user's too
    if owner.relations and not asked.relations and _fills(text, question):
        return False  # a relative may be what the user has: "my emergency contact"
    return not may_be_one(asked, owner)


def _speaks_of_user(question: str) -> bool:
    """Whether ``question`` speaks of the user themself besides someone of theirs: by "I"
    or "me" ("How much rent do I pay my landlord?"), or by a "my" whose words up to the
    next "my" or verb name no one ("my appointment with my dentist"), where "Is my
    brother allergic to shellfish?" speaks of the brother alone."""
    words = [POSSESSIVE.sub("", word).casefold() for word in words_of(question)]
    return bool((SPEAKER - {"user"}).intersection(words)) or bool(_things_of_user(question))


def _things_of_user(question: str) -> list[list[str]]:
    """The words of each "my" in ``question`` that names no one, up to the next "my" or
    verb ("my emergency contact", "my appointment with")."""
    words = [POSSESSIVE.sub("", word).casefold() for word in words_of(question)]
    things = []
    for at, word in enumerate(words):
        if word != "my":
            continue
        after = []
        for later in words[at + 1:at + 2 + MAX_SUBJECT_WORDS]:
            if later == "my" or later in SUBJECT_ENDS:
                break
            after.append(later)
        if after and not any(relation_of(later) for later in after):
            things.append(after)
    return things


def _fills(text: str, question: str) -> bool:
    """Whether ``text``, a fact about someone of the user's, says that they are or have
    what ``question`` asks of the user's own, after its subject ("User's wife Maria is the
    emergency contact" for "Who is my emergency contact?"); not when it is theirs ("User's
    sister's phone number is ..." for "What is my phone number?")."""
    parts = _FIRST_VERB.split(text, maxsplit=1)
    if len(parts) < 2:
        return False
    subject = {w.casefold() for w in words_of(parts[0])}
    said = {w.casefold() for w in words_of(parts[-1])}
    return any(set(thing) <= said and not set(thing) <= subject
               for thing in _things_of_user(question))
