"""Who to ask, and what is said of them, in one sentence: "Ask Tom, he runs the DB."

"Ask ..." opening a sentence is a request, and a request is no fact, so read whole that
sentence stored nothing and "who runs the DB?" had no answer. ``with_asks_apart`` puts
the clause after the comma in a sentence of its own ("Ask Tom." "Tom runs the DB."),
its pronoun said as the one to ask.
Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.relations import relation_of

__all__ = ["with_asks_apart"]

#: "Ask Tom, he ...", "Ask Tom about the DB - she ...": the request, then the clause
#: opened by a pronoun that goes on to say something of the one asked.
_ASK_THEN_PRONOUN = re.compile(
    r"^(?P<ask>\s*ask\s+[^,;:\u2013\u2014-]+?)\s*(?:,|\s[\u2013\u2014-])\s*"
    r"(?P<clause>(?P<pronoun>he|she)\b\S*\s+\S.*)$", re.IGNORECASE)
#: Someone the clause names by "him" or "her": in "Ask Tom, she knows him" the one asked
#: is more likely "him" than "she", and read as "she" it stored "Tom knows him", which
#: says of no one. So is any "her" of a "he" ("he runs her team", stored "Tom runs her
#: team"), and a "her" of a "she" where it is no owner ("she knows her"), but after a
#: name the clause says first.
_HER = r"her(?=\s*(?:[.,;!?]|$))"
_SOMEONE_ELSE = {"he": re.compile(r"\b(?:him|her|hers|herself)\b", re.IGNORECASE),
                 "she": re.compile(rf"\b(?:him|his|himself|{_HER})\b", re.IGNORECASE)}
#: What the one asked is asked about ("Ask Tom about the DB"), which an "it" of the
#: clause is: "Ask Tom about the DB, he runs it." stored "Tom runs it". Not when to ask
#: ("... about the DB if it breaks"): taken in, it stored "Tom runs the DB if it breaks".
_ASKED_ABOUT = re.compile(
    r"\babout\s+(?P<topic>(?!(?:it|this|that|them|her|him)\b)\S.*?)(?=\s+(?:if|when"
    r"|whenever|once|unless|because|since|while|before|after|until)\b|\s*$)", re.IGNORECASE)
#: Several asked about, of which an "it" is one: "Ask Tom about the DB and Ana, he runs
#: it." stored "Tom runs the DB and Ana".
_SEVERAL_ASKED_ABOUT = re.compile(r"\s(?:and|or|&)\s|,", re.IGNORECASE)
_IT = re.compile(r"\b(?P<it>it|its)\b", re.IGNORECASE)
#: A name said in the clause, whom a "her" or "his" after it may be: "he works with Ana on
#: her project". Read as no one named, what Tom does was not stored.
_NAME = re.compile(r"(?<![\w'’])(?-i:[A-Z][a-z-]+)")
#: The one asked by name, all the request says but what about ("Ask Tom about the DB"):
#: the pronoun after it is theirs. Left as "He runs the DB.", it was read among all those
#: named before, and after "I work with Tom and Ana." named no one, so nothing was stored.
_ASKED_BY_NAME = re.compile(r"\s*ask\s+(?P<who>(?-i:[A-Z][a-z-]+)(?:\s+(?-i:[A-Z][a-z-]+))?)"
                            r"(?:\s+about\b.*)?$", re.IGNORECASE)
#: What puts a firm or a place after it ("at Globex"), no one a "her" may be.
_PLACED = re.compile(r"\b(?:at|in|near|from|into)\s+$", re.IGNORECASE)
#: How far before a name "at" is looked for: searched from the start, each name of a long
#: request rescanned all before it.
_REACH = 40


def with_asks_apart(sentences: list[str]) -> list[str]:
    """``sentences`` with each that asks someone and then says what they do ("Ask Tom,
    he runs the DB.") said as two: "Ask Tom." and "Tom runs the DB." (its pronoun kept
    when the one asked is no name: "Ask my boss, she ..."); not when the clause
    names someone by "him" or "her" ("Ask Tom, she knows him."), nor by an "it" that is
    not what the one asked is asked about ("Ask Tom about the DB, he runs it." is "He runs
    the DB.")."""
    apart: list[str] = []
    for sentence in sentences:
        found = _ASK_THEN_PRONOUN.match(sentence)
        if found is None or _names_one_unnamed(found["clause"], found["pronoun"]):
            apart.append(sentence)
            continue
        clause = _with_it_said(found["clause"], found["ask"])
        if clause is None:
            apart.append(sentence)
            continue
        ending = "" if clause.rstrip()[-1:] in ".!?" else "."
        if ((asked := _ASKED_BY_NAME.match(found["ask"])) is not None
                and not _asked_about_someone(found["ask"])):
            clause = f"{asked['who']}{clause[len(found['pronoun']):]}"
        apart += [f"{found['ask']}.", f"{clause[:1].upper()}{clause[1:]}{ending}"]
    return apart


def _asked_about_someone(ask: str) -> bool:
    """Whether ``ask`` asks about a person ("Ask Tom about Ana", "... about his wife"),
    whom the pronoun after it may as well be: said as the one asked, "Ask Tom about Ana,
    she runs the DB." stored "Tom runs the DB"."""
    about = _ASKED_ABOUT.search(ask)
    if about is None:
        return False
    words = re.findall(r"[\w'’-]+", about["topic"])
    return any((word[:1].isupper() and is_first_name(word))
               or relation_of(word.casefold()) is not None for word in words)


def _with_it_said(clause: str, ask: str) -> str | None:
    """``clause`` with each "it" said as what ``ask`` asks about ("he runs it" after
    "Ask Tom about the DB" is "he runs the DB"); None when an "it" or "its" is of nothing
    asked about, as stored so it says of nothing."""
    its = list(_IT.finditer(clause))
    if not its:
        return clause
    about = _ASKED_ABOUT.search(ask)
    # "its" said as the topic would need an owner's mark, and a topic saying "it" itself
    # would leave the "it" unread.
    if (about is None or any(it["it"].casefold() != "it" for it in its)
            or _IT.search(about["topic"]) or _SEVERAL_ASKED_ABOUT.search(about["topic"])):
        return None
    # Every "it" is the topic: "he runs it and fixes it" left apart as one sentence, the
    # request and all, stored nothing of what he does.
    topic = about["topic"].strip()
    return _IT.sub(lambda _: topic, clause)


def _names_one_unnamed(clause: str, pronoun: str) -> bool:
    """Whether ``clause``, opened by ``pronoun``, names by "him" or "her" someone it does
    not name first ("she knows him", "he runs her team")."""
    names = [name.start() for name in _NAME.finditer(clause, len(pronoun))
             if not _PLACED.search(clause, max(0, name.start() - _REACH), name.start())]
    return any(not any(start < other.start() for start in names)
               for other in _SOMEONE_ELSE[pronoun.casefold()].finditer(clause))
