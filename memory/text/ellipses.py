"""The speaker's "I am too", told in full: "My wife is vegan. I am too." -> "I am vegan".

A clause that only says the speaker shares what the one before it says ("I am too", "I do
too", "me too", "so do I", "I have as well") states nothing on its own: told in the third
person it would be stored as a fragment ("User is too"). ``with_ellipses_filled`` reads
it with the clause it points back to and says it in full, as the speaker would have ("My
wife likes jazz and I do too" -> "My wife likes jazz", "I like jazz"). That clause must
open with someone other than the speaker and a verb this module knows; when it does not
("I'm tired. Me too", a message that opens with "I do too"), the clause is dropped, since
what it shares nothing here says. Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["with_ellipses_filled"]

_I = re.IGNORECASE
_APOS = "['’]"

_SHARED = (rf"(?P<said>i\s+(?:am|was|do|have)|i{_APOS}(?:m|ve)|me)(?:,?\s+(?:too|as\s+well))"
           r"|so\s+(?P<inverted>am|was|do|have)\s+i")
#: A sentence that is nothing but such a clause ("I am too.", "And me too!").
_ALONE = re.compile(rf"^\W*(?:(?:and|but)\s+)?(?:{_SHARED})\W*$", _I)
#: A sentence that ends with one ("My wife is vegan and I am too").
_CLOSING = re.compile(rf"^(?P<before>.*?\w)\W*?(?:,\s*|\s+)(?:and|but)\s+(?:{_SHARED})\W*$",
                      _I | re.DOTALL)

#: Verbs whose sharing can be told in full: the forms of "be" and "have", and these.
_VERBS = ("like", "love", "hate", "prefer", "enjoy", "live", "work", "speak", "use", "own",
          "need", "want", "eat", "drink", "play", "watch", "read", "drive", "cook", "swim",
          "teach", "know", "support")
_STATED = re.compile(
    r"^(?!(?:i|we|you)\b)(?P<subject>(?:my\s+)?[\w'’-]+(?:\s+[\w'’-]+){0,2}?)\s+"
    rf"(?P<verb>is|are|was|were|has|have|(?P<stem>{'|'.join(_VERBS)})(?:e?s)?)\s+"
    r"(?P<rest>\S.*?)(?:\s+too)?\W*$", _I | re.DOTALL)
#: Where a clause of its own opens in the sentence a shared clause points back to.
_CLAUSE_BREAK = re.compile(r"[,;]\s*(?:(?:and|but)\s+)?|\s+(?:and|but)\s+(?=my\b)", _I)


def _verb_shared(said: str) -> str:
    """Which verb the speaker shares: "am", "was", "do", "have" or "me" (any of them)."""
    word = said.casefold().replace("’", "'").split()[-1]
    return {"i'm": "am", "i've": "have"}.get(word, word)


def _in_full(stated: str, shared: str) -> str | None:
    """What the speaker says sharing (``shared``: ``_verb_shared``) what ``stated`` says,
    in full; None when ``stated`` opens otherwise or its verb is another."""
    clauses = [part for part in _CLAUSE_BREAK.split(stated.strip()) if part.strip()]
    for clause in (clauses[-1], stated.strip()) if clauses else ():
        match = _STATED.match(clause)
        if match is None:
            continue
        verb, rest = match["verb"].casefold(), match["rest"]
        if verb in ("is", "are") and shared in ("am", "me"):
            return f"I am {rest}"
        if verb in ("was", "were") and shared in ("was", "me"):
            return f"I was {rest}"
        if verb in ("has", "have") and shared in ("have", "do", "me"):
            return f"I have {rest}"
        if match["stem"] and shared in ("do", "me"):
            return f"I {match['stem'].casefold()} {rest}"
    return None


def with_ellipses_filled(sentences: list[str]) -> list[str]:
    """``sentences`` with each clause that only shares what the one before it says told in
    full, or dropped when that cannot be told (module docstring): one closing a sentence
    becomes a sentence of its own after it."""
    filled: list[str] = []
    for sentence in sentences:
        alone = _ALONE.match(sentence)
        if alone is not None:
            shared = _verb_shared(alone["said"] or alone["inverted"])
            said = _in_full(filled[-1], shared) if filled else None
            filled += [said] if said is not None else []
            continue
        closing = _CLOSING.match(sentence)
        if closing is None:
            filled.append(sentence)
            continue
        before = closing["before"]
        said = _in_full(before, _verb_shared(closing["said"] or closing["inverted"]))
        filled += [before] + ([said] if said is not None else [])
    return filled
