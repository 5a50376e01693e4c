"""Requests to forget worded as something to keep in mind: "Remember to forget my PIN",
"Don't forget to delete my PIN", "Make sure you forget my PIN", "Remember not to keep my
PIN", "Keep my PIN out of memory", "Reminder: forget my PIN", "Note to self: forget
the PIN" and "Don't forget my PIN, no wait, delete it" ask what "Forget my PIN" asks, and
are said again as it (``as_forget_request``); "Keep my PIN, forget my address" asks what
"Forget my address" asks. Read as a reminder or a statement, they kept the PIN and stored
the request beside it. "Remember to delete my old emails" is a task, "Remember to forget
about work this weekend" a wish: "forget", "delete", "erase" and "remove" ask to forget
here only of a thing memory holds or of a secret. Questions ("Remember to forget my PIN?")
are left as asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_requests import asks_to_forget
from tiermem.memory.text.plan_values import held_of
from tiermem.memory.text.secret_names import names_a_secret

__all__ = ["as_forget_request", "kept_in_mind", "of_what_is_held"]

_I = re.IGNORECASE
_APOS = "['’]"
_LEAD = r"^\W*(?:(?:oh|ok(?:ay)?|so|and|also|just|please|pls)\b[\s,]*)*"

#: What asks that the request after it be kept in mind: "remember to", "don't forget:",
#: "make sure you", "be sure to", "note to self:"; "not to" or "don't" after it asks not to keep.
_KEPT_IN_MIND = re.compile(
    _LEAD + rf"(?:(?:remember|(?:don{_APOS}?t|do\s+not|never)\s+forget|(?:make|be)\s+sure)"
    r"(?:\s*[:,\u2013\u2014-]\s*|\s+(?:that\s+)?(?:you\s+)?(?:to\s+)?)"
    r"|reminder\s*:\s*|note\s+to\s+self\s*[:,\u2013\u2014-]\s*)"
    rf"(?P<not>(?:not\s+to|don{_APOS}?t|do\s+not)\s+)?(?P<request>\w.*)$", _I)
#: How such a request may close (", please").
_END = r"(?P<end>(?:,?\s+please)?\W*)$"
#: Keeping a thing out of memory ("Keep my PIN out of memory", "... off the record").
_KEPT_OUT = re.compile(
    _LEAD + r"keep\s+(?P<named>\w.*?)\s+(?:out\s+of\s+(?:your\s+|the\s+)?"
    r"(?:memory|mind|head|notes|records?|database)|off\s+(?:the\s+)?record)" + _END, _I)
#: Deleting it, said right after asking to keep it (", delete it", " - just erase it").
_THEN_DELETED = (r"\s*[,;:\u2013\u2014-]+\s*(?:(?:just|actually|i\s+mean|rather|instead|no|wait|"
                 r"on\s+second\s+thought)[\s,]+)*"
                 r"(?:forget|delete|erase|remove)\s+(?:it|them)")
#: A thing asked to be kept, then at once to be deleted ("Don't forget my PIN, delete it").
_KEPT_THEN_DELETED = re.compile(
    _LEAD + rf"(?:(?:don{_APOS}?t|do\s+not|never)\s+forget|keep|remember)\s+"
    r"(?P<named>(?:my|our)\s+[^,;.!?]+?)" + _THEN_DELETED + _END, _I)
#: A thing asked to be kept, then another to be forgotten ("Keep my PIN, forget my address",
#: "Keep my PIN but delete my address"): the second is the request, when either thing is
#: held or a secret; "Keep your head, forget your troubles" is advice, and "Keep my PIN,
#: forget the rest" names no one thing.
_KEPT_THEN_OTHER = re.compile(
    _LEAD + rf"(?:(?:don{_APOS}?t|do\s+not|never)\s+forget|keep|remember)\s+"
    r"(?P<kept>(?:my|our)(?:\s+[\w-]+){1,2}?)(?:\s*[,;]\s*(?:(?:but|and)\s+)?|\s+(?:but|and)\s+)"
    r"(?P<request>(?:forget|delete|erase|remove)\s+"
    r"(?P<named>(?:my|our|the)\s(?!rest\b|others?\b)[^,;.!?]+).*)$", _I)
#: The verbs that ask to forget only of a thing memory holds or a secret, after "remember to".
_OF_A_THING = re.compile(
    r"^(?:delete|erase|remove|forget(?:\s+about)?)\s+(?P<named>.+?)(?:,?\s+please)?\W*$", _I)


def of_what_is_held(named: str, held: list[str]) -> bool:
    """Whether ``named`` ("my PIN") is a secret or a thing a fact ``held`` names."""
    words = named.split()
    if named.casefold() in ("it", "that", "this", "them"):
        return bool(held)  # "Remember to forget it" of what was just told
    return (any(names_a_secret(words, at) for at in range(len(words)))
            or bool(held_of(named, held, any_fact=True)))


def kept_in_mind(sentence: str) -> tuple[bool, str] | None:
    """What ``sentence`` asks be kept in mind ("Remember not to share my PIN." -> (True,
    "share my PIN."), True of what not to do), or None when it asks nothing so."""
    kept = _KEPT_IN_MIND.match(sentence.strip())
    return None if kept is None else (bool(kept["not"]), kept["request"])


def as_forget_request(sentence: str, held: Iterable[str] = ()) -> str:
    """``sentence`` said as the request to forget it words as one to keep in mind
    ("Remember to forget my PIN." -> "Forget my PIN."), or as it is."""
    text = sentence.strip()
    if text.endswith("?"):
        return sentence
    for told in _told_apart(text, list(held)):
        if told != text and asks_to_forget(told):
            return told
    return sentence


def _told_apart(text: str, held: list[str]) -> Iterable[str]:
    """The requests to forget ``text`` may word as one to keep in mind."""
    if (out := _KEPT_OUT.match(text) or _KEPT_THEN_DELETED.match(text)) is not None:
        yield f"Forget {out['named']}{out['end'] or '.'}"
    if (other := _KEPT_THEN_OTHER.match(text)) is not None and (
            of_what_is_held(other["kept"], held) or of_what_is_held(other["named"], held)):
        yield other["request"][:1].upper() + other["request"][1:]
    if (kept := _KEPT_IN_MIND.match(text)) is not None:
        request = kept["request"]
        thing = _OF_A_THING.match(request)
        if kept["not"]:
            yield "Don't " + request
        elif thing is None or of_what_is_held(thing["named"], held):
            yield request[:1].upper() + request[1:]
