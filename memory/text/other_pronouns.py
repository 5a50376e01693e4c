"""Where a statement goes on about someone else by a pronoun of the other sex: "Tom is my
brother and she is my colleague", "He is a lawyer and she is a doctor". The "she" is not
Tom, so the part is no part of his fact; memory/text/pronoun_subjects.py reads it as a
sentence of its own, whose "she" may be the one woman named before. Kept whole, the
fact said of Tom that "she is User's colleague", of no one. Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.given_names import pronoun_of_name
from tiermem.memory.text.people_named import people_in

__all__ = ["other_pronoun_apart"]

_I = re.IGNORECASE
#: The joint before a pronoun that opens a statement of its own: ", and she is ...", "and
#: he works ...", ", she lives ...".
_JOINED = re.compile(r"(?P<joint>,?\s+(?:and|but)\s+|,\s+)(?P<pronoun>he|she)"
                     r"(?=\s+(?:is|was|has|had|[a-z]+s)\s+\w|['’]s\s+\w)", _I)
#: What the later part may not say to stand apart: anyone else by a pronoun ("she likes
#: him", "she said he is tall"), nor only that it is so too ("and she is too").
_LEANS = re.compile(r"\b(?:he|him|his|she|her|hers|they|them|their|it|its|too|either"
                    r"|so|as\s+well)\b", _I)
_OPENING_PRONOUN = re.compile(r"^\s*(?P<pronoun>he|she)\b", _I)
_FIRST_WORD = re.compile(r"^\s*(?P<word>[A-Z][a-z'’-]+)\b")
_KIN_SAID = re.compile(r"^\s*[A-Z][a-z'’-]+\s+(?:is|was)\s+(?:[Mm]y|[Oo]ur)\s")


def other_pronoun_apart(sentence: str) -> tuple[str, str, str] | None:
    """``sentence`` as the statement before a later part whose pronoun is of the other sex
    than its subject, the joint, and that part as a sentence of its own ("Tom is my
    brother.", " and ", "She is my colleague."); None when there is none so, or when the
    subject's sex is unknown ("Sam is my friend and she ...", which may be Sam)."""
    found = _JOINED.search(sentence)
    if found is None or _LEANS.search(sentence, found.end("pronoun")) is not None:
        return None
    before = sentence[:found.start()]
    sex = _sex_of_subject(before)
    if sex is None or sex == found["pronoun"].casefold():
        return None
    later = sentence[found.start("pronoun"):]
    end = re.search(r"[.!]*\s*$", sentence)
    stop = end.group().strip() if end is not None else ""
    return f"{before}{stop or '.'}", found["joint"], later[:1].upper() + later[1:]


def _sex_of_subject(said: str) -> str | None:
    """"he" or "she" of the one ``said`` opens with: a pronoun, one of the user's whose
    relation says it ("My dad", "Tom is my brother"), or a common first name ("Ana")."""
    if (opened := _OPENING_PRONOUN.match(said)) is not None:
        return opened["pronoun"].casefold()
    first = _FIRST_WORD.match(said)
    people = people_in(said)
    if not people or first is None:
        return None
    person, _, sex = people[0]
    word = first["word"]
    # a name given to either sex is of the one its relation says: "Alex is my sister"
    if not (person.split()[0] == word or (word.casefold() in ("my", "our"))
            or pronoun_of_name(word) is not None or _KIN_SAID.match(said) is not None):
        return None
    return sex or pronoun_of_name(word)
