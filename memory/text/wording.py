"""Matching words the way a reader would: by stem, and a few everyday synonyms as one concept.

Rule-based answering and fact matching compare *concepts*: a content word
(memory/search/lexical.py's stopwords out) reduced by a light suffix stemmer, or,
for the few words in ``SYNONYMS``, the name of their group. So "live",
"lives", "living" and "lived" match each other, and "Where do I live?"
matches "User's address is ..." and "User moved to Porto". The stemmer only
strips common English endings; it is meant to make inflections meet, not to
be a linguist's stemmer.

An identifier with a digit ("ap-southeast-2", "db-01", "v1.2.3", "10.0.0.1",
"2024-03-05") is one concept, whole; its words stay concepts ("southeast"), but
its numbers do not stand on their own: the "2" of "ap-southeast-2" is no answer
to "What's 2+2?". A number standing alone ("port 8080", "Postgres 15") is a
concept like any word. "On call" ("on-call", "oncall") is one concept, not "call".
"""

from __future__ import annotations

import re

from tiermem.memory.search.lexical import query_terms

__all__ = ["SYNONYMS", "concepts", "stem"]

#: Words that name the same thing in everyday questions, by group. Each group stands for
#: one single-valued attribute of a person, so a new value of any of them replaces the old.
#: A hometown is where one comes from, not where one lives: of that group, "Forget my
#: hometown" took "User lives in York".
SYNONYMS: dict[str, frozenset[str]] = {
    "residence": frozenset({"live", "lives", "living", "lived", "reside", "resides", "city",
                            "address", "home", "town", "based", "moved", "relocated"}),
    "work": frozenset({"work", "works", "working", "worked", "job", "employer", "company",
                       "occupation"}),
    "allergy": frozenset({"allergic", "allergy", "allergies"}),
}

# Endings stripped by the stemmer, longest first; the replacement keeps "-ies" words apart
# from "-y" words' other forms ("allergies" -> "allergy").
_ENDINGS = (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))
_MIN_STEM = 3


def stem(word: str) -> str:
    """``word`` without a common English ending: live/lives/living/lived -> "liv"."""
    word = word.casefold()
    for ending, replacement in _ENDINGS:
        if not word.endswith(ending) or len(word) - len(ending) < _MIN_STEM:
            continue
        if ending == "s" and word.endswith(("ss", "us", "is")):  # address, status, analysis
            break
        word = word[: -len(ending)] + replacement
        if len(word) > _MIN_STEM and word[-1] == word[-2] and word[-1] not in "lsz":
            word = word[:-1]  # preferred -> prefer, running -> run
        break
    if len(word) > _MIN_STEM and word.endswith("e") and not word.endswith("ee"):
        word = word[:-1]  # live -> liv, so it meets lives and living
    return word


_GROUP_OF = {stem(word): group for group, words in SYNONYMS.items() for word in words}


#: Words joined by "-", ".", "/", ":" or "_" into one token: an identifier when one holds a digit.
_JOINED = re.compile(r"[^\W_]+(?:[-./:_][^\W_]+)+")
_JOINT = re.compile(r"[-./:_]")
#: "On call" is one concept, a duty: "Who is on call?" asks nothing of "Call me if sev1 fires".
_ON_CALL = re.compile(r"\bon[-\s]?call\b", re.IGNORECASE)
#: "Home town" is one concept, a hometown: read as "home" and "town", it was a residence.
_HOME_TOWN = re.compile(r"\bhome[-\s]town\b", re.IGNORECASE)


def concepts(text: str) -> set[str]:
    """The concepts of ``text``: its content words stemmed, synonyms as their group's name,
    and each identifier with a digit whole (module docstring)."""
    found = set()

    def identifier(match: re.Match[str]) -> str:
        token = match.group(0)
        if not any(ch.isdigit() for ch in token):
            return token
        found.add(token.casefold())
        return " ".join(part for part in _JOINT.split(token) if not part.isdigit())

    text = _HOME_TOWN.sub("hometown", _ON_CALL.sub("oncall", text))
    for word in query_terms(_JOINED.sub(identifier, text)):
        stemmed = stem(word)
        found.add(_GROUP_OF.get(stemmed, stemmed))
    return found
