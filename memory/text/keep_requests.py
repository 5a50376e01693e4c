"""Requests to keep a thing, or not to share it, worded otherwise than "Keep my PIN": "Keep my
PIN safe" (or "... handy", "... forever", "... on file"), "Remember not to forget my PIN",
"Make sure to keep my PIN", "Make sure you remember my PIN" and "Hold on to my PIN" (of a
thing held, a secret or a detail; "Hold on to my hand" is left as said) ask what "Keep my PIN" asks,
and are said again as it (``as_keep_request``), as "Keep my PIN code" and "Keep my new PIN"
are of the PIN held; read as statements, each was stored as itself ("Keep User's PIN
safe"). Of a thing neither held nor a secret, "Remember to keep my receipts" is a task, and
is left as said. "Remember not to share my PIN" tells a wish, said again as "I don't want
my PIN shared", which is stored as the user's, as is "Don't share my PIN" (not "Don't share
my screen", no detail of the user's). "Keep my address" (or "Remember my address", or "my
address" alone) of nothing held keeps nothing (``keeps_nothing_held``): only of a secret or
a detail of the user's, for "Keep my seat", "Keep my answers brief" and "Keep my PIN 4321"
ask otherwise; "my PIN" alone is stored as no fact of a PIN held either (``names_alone``).
"Keep my PIN, no wait" keeps the PIN, and "Remember my PIN, no, wait, it's 4321" tells it.
"Keep my kids safe" is a wish of its own, and left as said, as "Keep my sister safe" is of a
sister held ("Keep my sister secret" keeps what is held of her).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_requests import keeps_what_is_held
from tiermem.memory.text.plan_values import held_of
from tiermem.memory.text.relations import relation_of
from tiermem.memory.text.reminded_requests import kept_in_mind, of_what_is_held
from tiermem.memory.text.secret_names import DETAIL, a_secret_or_detail, names_a_secret

__all__ = ["as_keep_request", "keeps_nothing_held", "names_alone"]

_I = re.IGNORECASE
#: A thing of the speaker's, in a word or two ("my PIN", "my phone number").
_NAMED = r"(?P<named>(?:my|our)(?:\s+[\w'’-]+){1,2}?)"
#: How such a request may close (", please").
_END = r"(?:,?\s+please)?\W*$"
#: How a thing may be asked to be kept ("safe", "secret", "handy", "forever"): of what is
#: held, each asks what "Keep my PIN" asks, and of someone only "secret" and its like do.
_SAFE = (r"(?:\s+(?:(?P<unsaid>secret|private|confidential)|safe|secure|handy|close"
         r"|around|forever|always|stored|saved|noted|on\s+(?:file|record|hand)"
         r"|for\s+(?:now|later|good)|in\s+(?:mind|memory))"
         r"(?:\s+and\s+(?:safe|secret|sound|secure))?)")
#: Keeping a thing held or a secret safe ("Keep my PIN safe", "... secret").
_KEPT_SAFE = re.compile(
    r"^\W*(?:(?:please|pls|just|and|also)\b[\s,]*)*keep\s+" + _NAMED + _SAFE + _END, _I)
#: Words beside a thing that leave it the thing held ("my new PIN", "my PIN code").
#: "my old PIN" is the one held too: "Keep my old PIN" was stored as "Keep User's old PIN".
_AS_HELD = re.compile(r"^(?P<whose>my|our)\s+(?:(?:new|current|latest|old|previous)\s+)?"
                      r"(?P<thing>[\w-]+)(?P<kind>\s+(?:code|number))?$", _I)
#: What follows "remember to" ("keep my PIN", "remember my PIN"), or "not to" ("forget my
#: PIN"), when it asks to keep.
_TO_KEEP = re.compile(r"^(?:keep|remember)\s+" + _NAMED + _SAFE + "?" + _END, _I)
_NOT_TO_FORGET = re.compile(r"^(?:forget|lose)\s+" + _NAMED + _END, _I)
#: What follows "remember" or "don't forget" when it names a thing alone ("my address").
_BARE = re.compile("^" + _NAMED + _SAFE + "?" + _END, _I)
#: What follows "remember not to" when it asks that a thing be kept to memory.
_NOT_TO_SHARE = re.compile(
    r"^(?:share|reveal|disclose|give\s+out|pass\s+on|show|tell\s+(?:anyone|anybody|others))\s+"
    + _NAMED + r"(?:\s+with\s+(?:anyone|anybody|others))?" + _END, _I)
#: Someone's thing named, not the speaker's own ("my sister's number"): whose, as held.
_SOMEONES = re.compile(r"^(?:my|our)\s+(?P<whose>[\w-]+)['’]s\s", _I)
#: A request to keep a thing and nothing more ("Keep my address.").
_KEEP = re.compile(r"^\W*(?:please\s+)?keep\s+" + _NAMED + _END, _I)
#: A thing named and nothing said of it ("my PIN", "My email!"), not asked ("my PIN?").
_ALONE = re.compile(r"^\W*" + _NAMED + r"(?:,?\s+please)?[^\w?]*$", _I)
#: A request to keep a thing, taken back at once ("Keep my PIN - wait.", "..., no wait"),
#: and what it was said to be then (", no, wait, it's 4321").
_KEPT_WAIT = re.compile(
    r"^\W*(?:please\s+)?(?:keep|remember|(?:don['’]?t|do\s+not|never)\s+forget)\s+"
    + _NAMED + r"\s*(?:[,;:\u2013\u2014]|\s-)\s*(?:no\b[\s,]*)?wait\b[\s,.!]*"
    r"(?:(?:it['’]s|it\s+is)\s+(?P<value>[^,;]*\w[^,;]*$))?" + _END, _I)
#: "Hold on to", "hang onto", "keep hold of": "keep" in other words ("Hold on to my PIN").
_HOLD_ON_TO = re.compile(r"^\W*(?:please\s+)?(?:h(?:old|ang)\s+on\s*to|keep\s+hold\s+of)"
                         r"\s+(?=(?:my|our)\b)", _I)
#: Asking that a thing not be shared ("Don't share my PIN", "Never share my address").
_DO_NOT = re.compile(
    r"^\W*(?:please\s+)?(?:don['’]?t|do\s+not|never)(?:\s+ever)?\s+(?P<request>\w.*)$", _I)


def as_keep_request(sentence: str, held: Iterable[str] = ()) -> str:
    """``sentence`` said as the request to keep it words otherwise ("Make sure to keep my
    PIN." -> "Keep my PIN."), or as the wish it tells ("Remember not to share my PIN." ->
    "I don't want my PIN shared."); any other sentence as it is."""
    if sentence.strip().endswith("?"):
        return sentence  # "Remember my name?"
    if (hold := _HOLD_ON_TO.match(sentence.strip())) is not None:
        return _held_on_to(sentence, "Keep " + sentence.strip()[hold.end():], held)
    if (wait := _KEPT_WAIT.match(sentence.strip())) is not None:
        if (value := wait["value"]) is None:
            return f"Keep {wait['named']}."
        # "it's 5 Elm St." keeps the dot of its abbreviation
        return f"{wait['named'][:1].upper()}{wait['named'][1:]} is {value.rstrip(',!')}"
    if (safe := _KEPT_SAFE.match(sentence.strip())) is not None:
        if not safe["unsaid"] and relation_of(safe["named"].split()[-1]) is not None:
            return sentence  # "Keep my sister safe" is a wish, as "Keep my kids safe" is
        return f"Keep {_as_held(safe['named'], held)}." if _held_or_detail(
            safe["named"], held) else sentence
    if (keep := _KEEP.match(sentence.strip())) is not None and (
            named := _as_held(keep["named"], held)) != keep["named"]:
        return f"Keep {named}."  # "Keep my PIN code." of the PIN held
    if (kept := kept_in_mind(sentence)) is None:
        return _shared(sentence, held)
    negated, request = kept
    keep = _NOT_TO_FORGET.match(request) if negated else _TO_KEEP.match(request)
    if keep is not None:
        # "Remember to keep my receipts" of none held is a task
        return (f"Keep {_as_held(keep['named'], held)}." if _held_or_detail(keep["named"], held)
                else sentence)
    if not negated and (bare := _BARE.match(request)) is not None and a_secret_or_detail(
            bare["named"].split(None, 1)[1]):
        # "Remember my address"; "... my umbrella tomorrow"
        return f"Keep {_as_held(bare['named'], held)}."
    if negated and (share := _NOT_TO_SHARE.match(request)) is not None:
        return _unshared(share["named"])
    return sentence


def _held_on_to(sentence: str, keep: str, held: Iterable[str]) -> str:
    """``sentence``, asking to hold on to a thing, said as ``keep``, the request to keep
    it, when that asks to keep something held, a secret or a detail of the user's ("Hold on
    to my PIN."); else as it is ("Hold on to my hand.")."""
    held = list(held)
    told = as_keep_request(keep, held)
    named = _KEEP.match(told) or _KEPT_SAFE.match(told)
    if told != keep or (named is not None and (
            _held_or_detail(named["named"], held)
            or a_secret_or_detail(named["named"].split(None, 1)[1]))):
        return told
    return sentence


def _as_held(named: str, held: Iterable[str]) -> str:
    """``named`` as the fact ``held`` names it ("my PIN" of "my new PIN" or "my PIN code"
    and "User's PIN is 1234"), or as it is when it names none."""
    held = list(held)
    as_held = _AS_HELD.match(named)
    if as_held is None:
        return named
    if as_held["kind"] and not names_a_secret([as_held["thing"]], 0):
        return named  # "my phone number" is no "phone"
    bare = f"{as_held['whose']} {as_held['thing']}"
    return bare if held_of(bare, held, any_fact=True) else named


def _held_or_detail(named: str, held: Iterable[str]) -> bool:
    """Whether ``named`` ("my address") is held, a secret or a detail of the user's."""
    return of_what_is_held(named, list(held)) or DETAIL.match(named.split(None, 1)[1]) is not None


def _shared(sentence: str, held: Iterable[str]) -> str:
    """``sentence`` as the wish it tells when it asks that a thing held, a secret or a
    detail of the user's not be shared ("Don't share my PIN."); else as it is."""
    if (do_not := _DO_NOT.match(sentence.strip())) is None or (
            share := _NOT_TO_SHARE.match(do_not["request"])) is None:
        return sentence
    if not a_secret_or_detail((named := share["named"]).split(None, 1)[1]) and not (
            keeps_what_is_held(f"Keep {named}.", list(held))):
        return sentence  # "Don't share my screen", "... my PIN yet"
    return _unshared(named)


def _unshared(named: str) -> str:
    """The wish that ``named`` ("my PIN") not be shared, said as the speaker's."""
    who = "We" if named[:3].casefold() == "our" else "I"
    return f"{who} don't want {named[:1].lower()}{named[1:]} shared."


def keeps_nothing_held(sentence: str, held: Iterable[str]) -> str | None:
    """What ``sentence`` asks to keep ("your address" of "Keep my address."), when it only
    asks to keep (or names) a secret or a detail of the user's no fact ``held`` names; else None."""
    held = list(held)
    said = sentence.strip()
    keep = _KEPT_SAFE.match(said) or _KEEP.match(said) or _ALONE.match(said)
    if keep is None:
        return None
    # "my sister's number" is not "User's number is 555-1234": of that one held, "Keep User's
    # sister's number" was stored
    theirs = _SOMEONES.match(keep["named"])
    if theirs is None and keeps_what_is_held(f"Keep {keep['named']}.", held):
        return None
    thing = keep["named"].split(None, 1)[1]  # "Keep my kids safe" is a wish: no detail
    if not a_secret_or_detail(thing) or (
            held_of(keep["named"], held, any_fact=True) if theirs is None
            else any(f"{theirs['whose']}'s ".casefold() in fact.replace("’", "'").casefold()
                     for fact in held)):
        return None  # "Keep my seat", "Keep my answers brief" ask otherwise
    return "your " + thing


def names_alone(sentence: str) -> bool:
    """Whether ``sentence`` only names a secret or a detail of the user's ("my PIN", "My
    email!"): a fragment with no value, stored as "User's PIN" it would stand beside the
    PIN told, or for one never told."""
    named = _ALONE.match(sentence.strip())
    return named is not None and a_secret_or_detail(named["named"].split(None, 1)[1])
