"""A denial of the user's that names nothing ("I'm not anymore, but my wife is"): what it
denies is what the statement before it said someone is ("I'm vegan.", "Priya is on call.").
Said of the user alone after what another is or does ("My wife is a nurse. I'm not.",
"Tom smokes. I don't."), it denies that of the user: "I'm not a nurse", "I don't smoke".

Left bare, it denied nothing held, so the user's fact stayed, and the share of whoever takes
it over was lost with it. ``with_bare_denials_filled`` says such a denial in full ("I'm not
vegan anymore, but my wife is."), for memory/text/handed_over.py to read. Pure functions
over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.doings import PERSONAL, doing_of
from tiermem.memory.text.owners import owner_of

__all__ = ["DENIES_ALREADY", "with_bare_denials_filled"]

_I = re.IGNORECASE
_APOS = "['’]"
#: "I'm not anymore", "I am not any longer", "I'm no longer", and what follows it.
_BARE_DENIAL = re.compile(
    rf"^(?P<me>i(?:{_APOS}m|\s+am))\s+(?:not\s+(?:any\s?more|any\s+longer)|no\s+longer)"
    r"(?P<rest>(?:\s*[,;]|\s+but\b|\s[-–—]).*|[\s.!]*)$", _I)
#: "I'm not", "I am not", "I don't", "I do not" and nothing more: the user not being or
#: doing what another was just said to.
_NOT_SO = re.compile(
    rf"^i(?:(?P<be>{_APOS}m|\s+am)\s+not|\s+(?:don{_APOS}?t|do\s+not))[\s.!]*$", _I)
#: How sure or how often another is so, which the user's "I'm not" does not deny: "Tom is
#: still vegan. I'm not." is "I'm not vegan", no "I'm not still vegan".
_HOW = re.compile(r"^(?:also|still|really|definitely|probably|certainly|surely|always|usually"
                  r"|often|sometimes|regularly|just|actually)\s+", _I)
#: What denies already: "Tom is never late. I'm not." is no "I'm not never late", nor
#: "Tom is no longer late. Ana isn't." "Ana isn't no longer late".
DENIES_ALREADY = re.compile(r"^(?:never|rarely|seldom|hardly|barely|scarcely|nowhere|nothing"
                            r"|neither|none|not|no)\b", _I)
#: A thing, or a thing of another's ("It works", "Tom's car is red"): what it is or does is
#: no "I don't work" or "I'm not red" of the user's.
_THING = re.compile(r"^(?:it\b|[\w-]+['’]s\s)", _I)
#: What a statement says someone is: "vegan" of "I'm vegan.", "on call" of "Priya is on
#: call." Not a denial, nor a clause joined to another.
_IS = re.compile(
    rf"^(?:i{_APOS}m|i\s+am|(?!i\b)[\w'’-]+(?:\s+[\w'’-]+)?\s+(?:is|are))\s+"
    r"(?P<what>(?!not\b|no\b)[^,;]+?)[\s.!]*$", _I)


def with_bare_denials_filled(sentences: list[str], said_before: str | None) -> list[str]:
    """``sentences`` with each bare denial of the user's said in full with what the
    sentence before it (or ``said_before``, the last statement of the message before, for
    the first) says someone is; one with nothing before it to fill it is left as said."""
    filled: list[str] = []
    for sentence in sentences:
        before = filled[-1] if filled else said_before
        denial = _BARE_DENIAL.match(sentence.strip())
        what = _IS.match(before.strip()) if denial is not None and before else None
        if denial is None or what is None or not _says_what_someone_is(what.group()):
            filled.append(_not_so(before, sentence) or sentence)
            continue
        filled.append(f"{denial['me']} not {what['what']} anymore{denial['rest']}")
    return filled


def _says_what_someone_is(sentence: str) -> bool:
    """Whether ``sentence`` says what a person is (the user, one named, one of the user's):
    "My name is Maya" or "My manager is Priya" says who or what a thing of the user's is,
    and filled from it, "I'm not anymore" erased the name or the manager held."""
    owner = owner_of(sentence)
    if owner is None or owner.known_as:
        return False
    return bool(not owner.user or owner.relations or re.match(rf"i(?:{_APOS}m|\s+am)\b",
                                                              sentence, _I))


def _not_so(before: str | None, sentence: str) -> str | None:
    """The user's bare "I'm not" or "I don't" (``sentence``) said in full after what
    another is or does in ``before`` ("My wife is a nurse": "I'm not a nurse"; "Tom
    smokes": "I don't smoke"; how sure or how often left out: "Tom still smokes": "I don't
    smoke"); None when it is neither, or ``before`` is the user's own, of a thing ("It
    works", "Tom's car is red"), denies already ("Tom is never late") or says it in words
    that told of the user would point elsewhere ("Tom is my boss", "proud of himself")."""
    denial = _NOT_SO.match(sentence.strip())
    if denial is None or before is None or re.match(r"\W*(?:i|we)\b", before.strip(), _I):
        return None
    if _THING.match(before.strip()) and getattr(owner_of(before), "kin", None) is None:
        return None
    if denial["be"]:
        what = _IS.match(before.strip())
        if what is None or PERSONAL.search(what["what"]) or DENIES_ALREADY.match(
                what["what"]) or not _says_what_someone_is(what.group()):
            return None
        return f"I'm not {_HOW.sub('', what['what'])}."
    doing = doing_of(before)
    return None if doing is None else f"I don't {doing[1]}."
