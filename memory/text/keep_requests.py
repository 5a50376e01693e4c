"""Requests to keep a thing, or not to share it, worded otherwise than "Keep my PIN":
"Keep my PIN safe", "Remember not to forget my PIN", "Make sure to keep my PIN" and "Make
sure you remember my PIN" ask what "Keep my PIN" asks, and are said again as it
(``as_keep_request``); read as statements, each was stored as itself ("Keep User's PIN
safe"). Of a thing neither held nor a secret, "Remember to keep my receipts" is a task, and
is left as said. "Remember not to share my PIN" tells a wish, said again as "I don't want
my PIN shared", which is stored as the user's. "Keep my address" of nothing held keeps nothing
(``keeps_nothing_held``): only of a secret or a detail of the user's, for "Keep my seat",
"Keep my answers brief" and "Keep my PIN 4321" ask otherwise. "Keep my kids safe" is a wish
of its own, and left as said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_requests import keeps_what_is_held
from tiermem.memory.text.plan_values import held_of
from tiermem.memory.text.reminded_requests import kept_in_mind, of_what_is_held
from tiermem.memory.text.secret_names import names_a_secret

__all__ = ["as_keep_request", "keeps_nothing_held"]

_I = re.IGNORECASE
#: A thing of the speaker's, in a word or two ("my PIN", "my phone number").
_NAMED = r"(?P<named>(?:my|our)(?:\s+[\w-]+){1,2}?)"
#: How such a request may close (", please").
_END = r"(?:,?\s+please)?\W*$"
#: How a thing may be asked to be kept ("safe", "secret").
_SAFE = (r"(?:\s+(?:safe|secret|private|secure|confidential)"
         r"(?:\s+and\s+(?:safe|secret|sound|secure))?)")
#: Keeping a thing held or a secret safe ("Keep my PIN safe", "... secret").
_KEPT_SAFE = re.compile(
    r"^\W*(?:(?:please|pls|just|and|also)\b[\s,]*)*keep\s+" + _NAMED + _SAFE + _END, _I)
#: What follows "remember to" ("keep my PIN", "remember my PIN"), or "not to" ("forget my
#: PIN"), when it asks to keep.
_TO_KEEP = re.compile(r"^(?:keep|remember)\s+" + _NAMED + _SAFE + "?" + _END, _I)
_NOT_TO_FORGET = re.compile(r"^(?:forget|lose)\s+" + _NAMED + _END, _I)
#: What follows "remember not to" when it asks that a thing be kept to memory.
_NOT_TO_SHARE = re.compile(
    r"^(?:share|reveal|disclose|give\s+out|pass\s+on|show|tell\s+(?:anyone|anybody|others))\s+"
    + _NAMED + r"(?:\s+with\s+(?:anyone|anybody|others))?" + _END, _I)
#: A request to keep a thing and nothing more ("Keep my address.").
_KEEP = re.compile(r"^\W*(?:please\s+)?keep\s+" + _NAMED + _END, _I)
#: A detail of the user's that memory holds as a fact ("address", "phone number").
_DETAIL = re.compile(
    r"^(?:(?:home|work|postal|mailing|billing|email|e-mail)\s+address|address"
    r"|(?:phone|mobile|cell)(?:\s+number)?|e-?mail(?:\s+address)?|birthday|date\s+of\s+birth"
    r"|(?:full\s+|last\s+|first\s+|middle\s+)?name|surname)$", _I)


def as_keep_request(sentence: str, held: Iterable[str] = ()) -> str:
    """``sentence`` said as the request to keep it words otherwise ("Make sure to keep my
    PIN." -> "Keep my PIN."), or as the wish it tells ("Remember not to share my PIN." ->
    "I don't want my PIN shared."); any other sentence as it is."""
    if (safe := _KEPT_SAFE.match(sentence.strip())) is not None:
        return f"Keep {safe['named']}." if of_what_is_held(safe["named"], list(held)) else sentence
    if (kept := kept_in_mind(sentence)) is None:
        return sentence
    negated, request = kept
    keep = _NOT_TO_FORGET.match(request) if negated else _TO_KEEP.match(request)
    if keep is not None:
        # "Remember to keep my receipts" of none held is a task
        return f"Keep {keep['named']}." if of_what_is_held(keep["named"], list(held)) else sentence
    if negated and (share := _NOT_TO_SHARE.match(request)) is not None:
        named = share["named"]
        who = "We" if named[:3].casefold() == "our" else "I"
        return f"{who} don't want {named[:1].lower()}{named[1:]} shared."
    return sentence


def _a_secret_or_detail(thing: str) -> bool:
    """Whether ``thing`` ("PIN", "PIN code", "phone number") is a secret or a detail of the
    user's, and nothing more ("PIN 4321", "seat", "answers brief" are not)."""
    words = thing.split()
    return (_DETAIL.match(thing) is not None or names_a_secret(words, len(words) - 1)
            or (len(words) == 2 and names_a_secret(words, 0)
                and words[1].casefold() in ("code", "number")))


def keeps_nothing_held(sentence: str, held: Iterable[str]) -> str | None:
    """What ``sentence`` asks to keep ("your address" of "Keep my address."), when it only
    asks to keep a secret or a detail of the user's no fact ``held`` names; else None."""
    held = list(held)
    if (_KEPT_SAFE.match(sentence.strip()) or (keep := _KEEP.match(sentence.strip())) is None
            or keeps_what_is_held(sentence, held)):
        return None  # "Keep my kids safe" is a wish
    thing = keep["named"].split(None, 1)[1]
    if not _a_secret_or_detail(thing) or held_of(keep["named"], held, any_fact=True):
        return None  # "Keep my seat", "Keep my answers brief" ask otherwise
    return "your " + thing
