"""What the user no longer does and someone else does: "I don't work at Google anymore, but
my wife still does" says two things, that the user's job ended and that the wife works at
Google.

Read whole, the sentence is a retraction and the other person's share of it ("my wife
still does") is lost with it. ``with_handed_over`` says such a sentence as the two it
joins: the user's denial alone ("I don't work at Google anymore.") and the other person's
statement in full ("My wife works at Google."). Only a denial of the user's own, followed
by one other person (a "my X" or a name) and the auxiliary that fits it ("does" after
"don't work", "is" after "I'm not"), is split; anything else is left as said. Pure
functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["with_handed_over"]

_I = re.IGNORECASE
_APOS = "['’]"
#: How long a time the denial may say it has stopped for.
_STOPPED = r"(?:\s+any\s?more|\s+now)?"
#: Someone else: "my wife", "my older sister", "Priya", "Tom Smith"; not a pronoun, which
#: would need the sentence before it to name anyone.
_ONE = (r"(?:(?:my|our)\s+[a-z-]+(?:\s+(?!(?:still|now|does|do|is|are|and)\b)[a-z-]+)?"
        r"|(?-i:[A-Z][a-z'’-]+)(?:\s+(?-i:[A-Z][a-z'’-]+))?)")
#: One other or two ("Priya and Sam are", "my wife and brother do"): unread, two sharing
#: it left the sentence a plain retraction, and the share of both was lost.
_OTHER = (rf"(?P<other>{_ONE}(?:\s+and\s+(?:{_ONE}|(?!(?:still|now|does|do|is|are|i|he|she"
          r"|it|they|we|you)\b)[a-z-]+))?)")
#: What separates the two: a comma, a spaced dash or "but"; no mark at all only right after
#: "anymore", where the denial plainly ends ("I'm not on call anymore Priya is").
_MARK = r"(?:[,;]|\s[-–—]|(?<=\w)[–—])"
_JOIN = rf"(?:\s*{_MARK}\s*(?:but\s+)?|\s+but\s+)"
_ANYMORE_JOIN = rf"(?:\s*{_MARK}?\s*(?:but\s+)?)"
#: "... my brother does too" (or "does now", "still does though") still says the brother
#: has what the user no longer has; left out of the match, "my wife does now" was stored.
#: "..., Priya is, and Sam too" hands it to Sam as well: unread, the sentence was held
#: whole and the user's own fact, which it denies, was kept beside it.
#: Said "and my parents do too" or "and so is Sam", the second one's own auxiliary is
#: no part of their name ("My parents do works at Google" was stored) and tells their
#: number.
_ALSO = (r"(?:\s*,?\s+and\s+(?:" + _OTHER.replace("?P<other>", "?P<also>")
         + r"(?:\s+(?P<also_aux>does|do|is|are))?\s+(?:too|as\s+well)"
         + r"|so\s+(?P<so_aux>does|do|is|are)\s+" + _OTHER.replace("?P<other>", "?P<so>")
         + r"))?")
_AUX = (r"\s+(?:still\s+|now\s+)?(?P<aux>does|do|is|are)"
        rf"(?:\s+(?:too|now|though|instead|as\s+well))?{_ALSO}\s*[.!]?\s*$")
#: "I don't work at Google anymore, but my wife still does".
_DOES = re.compile(
    rf"^\s*i\s+(?:don{_APOS}?t|do\s+not|no\s+longer)\s+(?P<verb>[a-z]+)\s+(?P<rest>.+?)"
    rf"(?:(?:\s+any\s?more){_ANYMORE_JOIN}|{_STOPPED}{_JOIN}){_OTHER}{_AUX}", _I)
#: "I'm not on call anymore, Priya is".
_IS = re.compile(
    rf"^\s*i(?:{_APOS}m|\s+am)\s+(?:not|no\s+longer)\s+(?P<rest>.+?)"
    rf"(?:(?:\s+any\s?more){_ANYMORE_JOIN}|{_STOPPED}{_JOIN}){_OTHER}{_AUX}", _I)
#: Verbs whose third person is not the base form with an "s".
_THIRD_PERSON = {"have": "has", "do": "does", "go": "goes", "be": "is"}
_NO_VERB = frozenset({"think", "know", "mean", "say", "want", "care", "mind"})
_PLURAL_AUX = frozenset({"do", "are"})
_PRONOUNS = frozenset({"i", "he", "she", "it", "they", "we", "you"})


def with_handed_over(sentences: list[str]) -> list[str]:
    """``sentences`` with each one that denies something of the user and says someone
    else still has it ("I'm not on call anymore, Priya is") said as the two it joins."""
    told: list[str] = []
    for sentence in sentences:
        told.extend(_handed_over(sentence) or [sentence])
    return told


def _handed_over(sentence: str) -> list[str] | None:
    """The denial and the other person's statement ``sentence`` joins, or None."""
    does, is_ = _DOES.match(sentence), _IS.match(sentence)
    found = does or is_
    if found is None:
        return None
    aux = found["aux"].casefold()
    sharers = [(found["other"], aux)]
    if also := found["also"] or found["so"]:
        sharers.append((also, (found["also_aux"] or found["so_aux"] or aux).casefold()))
    if {one.casefold() for one, _ in sharers} & _PRONOUNS:
        return None
    rest = found["rest"].strip()
    if re.fullmatch(r"any\s?more|now", rest, _I):
        return None  # "I'm not anymore, but Sam is" says not what: "Sam is anymore" was stored
    if any((does is not None) != (their_aux in {"does", "do"}) for _, their_aux in sharers):
        return None  # "I don't smoke, Tom is" pairs nothing it could repeat
    if does is not None and does["verb"].casefold() in _NO_VERB:
        return None  # "I don't think so, my wife does" is an opinion, not a fact
    verb = None if does is None else does["verb"].casefold()
    denial = re.sub(r"\s+but$", "", sentence[:found.start("other")].rstrip(" ,;-–—"),
                    flags=_I).rstrip(" ,;-–—")
    return [f"{denial}.", *(f"{one[:1].upper()}{one[1:]} {_share(verb, plural, rest)}."
                            for one, their_aux in sharers
                            for plural in [their_aux in _PLURAL_AUX or " and " in one])]


def _share(verb: str | None, plural: bool, rest: str) -> str:
    """What another (or others, ``plural``) has that the user no longer has, said after
    their name: "works at Google" (``verb`` "work"), "are on call" (no verb)."""
    if verb is None:
        return f"{'are' if plural else 'is'} {rest}"
    return f"{verb if plural else _third_person(verb)} {rest}"


def _third_person(verb: str) -> str:
    """``verb`` as said of one other person: "work" is "works", "teach" "teaches"."""
    if verb in _THIRD_PERSON:
        return _THIRD_PERSON[verb]
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return f"{verb}es"
    if re.search(r"[^aeiou]y$", verb):
        return f"{verb[:-1]}ies"
    return f"{verb}s"
