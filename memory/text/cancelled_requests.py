"""A request to forget taken back in the same message: "Forget my PIN. Never mind.", "Forget
it, no wait, don't", "Forget my PIN... never mind, keep it". Nothing is then forgotten, and
nothing is stored for the words that took it back: read apart, the request went through,
and "Keep it" or "No wait, don't" was stored as a fact. A "never mind" before the request
("Never mind, forget that.") opens it instead, and takes nothing back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_requests import asks_to_forget, never_minded

__all__ = ["cancelled_requests", "still_asked"]

_I = re.IGNORECASE
_APOS = "['’]"

#: Words that only lead up to taking a request back ("no wait", "actually", "on second
#: thought").
_LEAD = (r"(?:no|nope|wait|hold\s+on|hang\s+on|actually|hmm+|oh|sorry|um+|uh+|ok(?:ay)?"
         r"|on\s+second\s+thoughts?|scratch\s+that)")
#: Words that take back the request just made ("never mind", "don't", "keep it", "leave it");
#: not "don't keep it", which insists on it.
_UNDO = (rf"(?:never\s*mind|nvm|(?:don{_APOS}?t|do\s+not)"
         r"(?!\s+(?:keep|leave|hold|retain|store|save))(?:\s+(?:forget|delete|remove|erase|do)"
         r"\s+(?:it|that|them))?|(?:keep|leave)\s+(?:it|that|them)(?:\s+(?:alone|be|then|please))?"
         r"|i\s+changed\s+my\s+mind)")
_GAP = r"[\s,;:.!-]*"
#: What, said right after a request to forget, takes it back and says nothing else.
_TAKES_BACK = re.compile(rf"^\W*(?:{_LEAD}\b{_GAP})*{_UNDO}\b(?:{_GAP}(?:{_LEAD}|{_UNDO})\b)*"
                         r"\W*$", _I)
#: What, said right after a request to forget, only insists on it ("Wait, don't keep it",
#: "Don't leave it"): stored, it was a fact, and after a comma it was read as what goes.
_INSISTS = re.compile(rf"^\W*(?:(?:{_LEAD}|and|please|just|really)\b{_GAP})*"
                      rf"(?:don{_APOS}?t|do\s+not|never)\s+(?:keep|leave|hold\s+on\s+to|retain"
                      r"|store|save|remember)\s+(?:it|that|them)(?:\s+(?:either|anymore|please))?"
                      r"\W*$", _I)
#: Where, in one sentence, a request may give way to the words taking it back.
_BREAK = re.compile(r"\s*(?:[,;:]|\.{2,}|…|\s-+|--)\s*")

#: Where a request may give way to the words insisting on it ("... and don't keep it").
_INSIST_BREAK = re.compile(_BREAK.pattern + r"|\s+and\s+", _I)


def _takes_back(said: str) -> bool:
    return _TAKES_BACK.match(said) is not None


def _cut(sentence: str) -> tuple[str, str] | None:
    """``sentence`` as a request to forget and the words after it that take it back
    ("Forget my PIN, no wait, don't"), or None when it holds no such pair."""
    for at in _BREAK.finditer(sentence):
        request, after = sentence[:at.start()], sentence[at.end():]
        if asks_to_forget(request) and _takes_back(after):
            return request, after
    return None


def cancelled_requests(sentences: list[str]) -> tuple[list[str], list[str]]:
    """``sentences`` without each request to forget that the sentence after it, or the rest
    of its own, takes back, nor the words that take it back; and those requests."""
    kept: list[str] = []
    taken_back: list[str] = []
    for sentence in sentences:
        if (cut := _cut(sentence)) is not None:
            taken_back.append(cut[0])
        elif (insisted := _insisted(sentence)) is not None:
            kept.append(insisted)
        elif kept and asks_to_forget(kept[-1]) and _takes_back(sentence):
            taken_back.append(kept.pop())
        elif not (kept and asks_to_forget(kept[-1]) and _INSISTS.match(sentence)):
            kept.append(sentence)
    return kept, taken_back


def _insisted(sentence: str) -> str | None:
    """The request of ``sentence`` without the words after it that insist on it ("Forget
    my PIN, don't keep it"), or None when it holds no such pair."""
    for at in _INSIST_BREAK.finditer(sentence):
        request, after = sentence[:at.start()], sentence[at.end():]
        if asks_to_forget(request) and _INSISTS.match(after):
            return request + "."
    return None


def still_asked(sentences: list[str], held: Iterable[str] = ()) -> list[str]:
    """``sentences`` without the requests to forget taken back in them
    (``cancelled_requests``) and without the "never mind"s of ``never_minded``."""
    return never_minded(cancelled_requests(sentences)[0], held)
