"""Who to ask, and what is said of them, in one sentence: "Ask Tom, he runs the DB."

"Ask ..." opening a sentence is a request, and a request is no fact, so read whole that
sentence stored nothing and "who runs the DB?" had no answer. ``with_asks_apart`` puts
the clause after the comma in a sentence of its own ("Ask Tom." "He runs the DB."), so
its pronoun is read as the one to ask, as after "Ask Tom. He runs the DB.".
Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["with_asks_apart"]

#: "Ask Tom, he ...", "Ask Tom about the DB - she ...": the request, then the clause
#: opened by a pronoun that goes on to say something of the one asked.
_ASK_THEN_PRONOUN = re.compile(
    r"^(?P<ask>\s*ask\s+[^,;:\u2013\u2014-]+?)\s*(?:,|\s[\u2013\u2014-])\s*"
    r"(?P<clause>(?P<pronoun>he|she)\b\S*\s+\S.*)$", re.IGNORECASE)
#: Someone the clause names by "him" or "her": in "Ask Tom, she knows him" the one asked
#: is more likely "him" than "she", and read as "she" it stored "Tom knows him", which
#: says of no one. "her" only where it is no owner ("he runs her team").
_HER = r"her(?=\s*(?:[.,;!?]|$))"
_SOMEONE_ELSE = {"he": re.compile(rf"\b(?:him|herself|{_HER})\b", re.IGNORECASE),
                 "she": re.compile(rf"\b(?:him|himself|{_HER})\b", re.IGNORECASE)}


def with_asks_apart(sentences: list[str]) -> list[str]:
    """``sentences`` with each that asks someone and then says what they do ("Ask Tom,
    he runs the DB.") said as two: "Ask Tom." and "He runs the DB."; not when the clause
    names someone by "him" or "her" ("Ask Tom, she knows him.")."""
    apart: list[str] = []
    for sentence in sentences:
        found = _ASK_THEN_PRONOUN.match(sentence)
        if found is None or _SOMEONE_ELSE[found["pronoun"].casefold()].search(found["clause"]):
            apart.append(sentence)
            continue
        clause = found["clause"]
        ending = "" if clause.rstrip()[-1:] in ".!?" else "."
        apart += [f"{found['ask']}.", f"{clause[:1].upper()}{clause[1:]}{ending}"]
    return apart
