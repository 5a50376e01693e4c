"""A clause saying what held once and no longer does: "I worked at Globex, now I don't",
"I like tea but now I don't", "I'm vegan, but not anymore".

memory/text/statements.py reads it as the withdrawal of what it names; memory/text/
denied_shares.py tells from it what "my wife doesn't either" denies of her. Both need the
verb's plain form ("smoked" -> "smoke"), given here only when its ending makes it sure.
Pure functions over strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["HeldOnce", "held_once", "plain_of_past"]

_I = re.IGNORECASE
_APOS = "['’]"

#: The clause itself. What follows the verb is left out when nothing does ("I smoked but
#: now I don't"), never a bare "but" or "and" taken for it.
_NOW_NOT = re.compile(
    rf"^(?P<said>i(?:{_APOS}m\s+(?P<state>[^,;]+?)"
    r"|\s+(?P<verb>[\w'’]+)(?:\s+(?P<rest>[^,;]*?[^\s,;])(?<!\bbut)(?<!\band))?))"
    r"\s*,?\s*"
    rf"(?:but\s+|and\s+)?(?:now\s+i(?:\s+(?:don{_APOS}?t|do\s+not|am\s+not)|{_APOS}m\s+not)"
    r"|not\s+any\s?more|(?:but\s+)?no\s+longer)[\s.!]*$", _I)
_PAST = re.compile(r"^(?:\w+ed|was|had|used)$", _I)
#: What follows "used": "to" and the habit's plain verb, said as it is ("to smoke").
_USED_TO = re.compile(r"^to\s+(?P<plain>[\w'’]+)(?:\s+(?P<rest>.+))?$", _I)
#: Endings a verb's stem may have before "-ed" with nothing dropped: "worked", "played".
_KEPT_WHOLE = re.compile(r"(?:[aeiou]{2}[^aeiouy]|[aeiou][yw]|rk|lk|nk|sk|ck|lp|mp|sp|nt|nd|rn|rm"
                         r"|ll|ss|sh|ch|ft|lt|pt|ct|xt|rt|ld|wn|rl|lm|rd|rp|dd)$")


@dataclass(frozen=True)
class HeldOnce:
    """What such a clause says: ``said`` as the speaker put it ("I worked at Globex"),
    ``verb`` ("worked"; None for "I'm ..."), ``rest`` after it ("at Globex", or ""),
    ``plain``, the verb's plain form (None when unsure), and whether it was ``past``.
    After "used to", ``plain`` is the verb it is used with and ``rest`` what follows that."""

    said: str
    verb: str | None
    rest: str
    plain: str | None
    past: bool


def plain_of_past(verb: str) -> str | None:
    """The plain form of a verb in -ed ("worked" -> "work", "smoked" -> "smoke", "stopped"
    -> "stop", "studied" -> "study"); None when its ending leaves it unsure ("hated": hat
    or hate?) or it is no such verb."""
    word = verb.casefold()
    stem = word[:-2]
    if not word.endswith("ed") or len(stem) < 2:
        return None
    if stem.endswith("i") and len(stem) > 2:
        return stem[:-1] + "y"
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsfzd":
        return stem[:-1]
    if stem.endswith("v") or re.search(r"[^aeiou][aeiou][kz]$", stem):
        # English has no verb ending in v, and "smok" or "lik" none either
        return stem + "e"
    return stem if _KEPT_WHOLE.search(stem) else None


def held_once(clause: str) -> HeldOnce | None:
    """``clause`` read as what held once and no longer does; None when it is not one."""
    said = _NOW_NOT.match(clause.strip())
    if said is None:
        return None
    # "I am vegan, now I'm not" is "I'm vegan, ..."
    verb = None if (said["verb"] or "am").casefold() == "am" else said["verb"]
    rest = said["state"] or said["rest"] or ""
    if verb is not None and verb.casefold() == "used" and (habit := _USED_TO.match(rest)):
        # "I used to smoke, now I don't" ends the smoking: read as "used", it denied
        # "I no longer used to smoke", whose words match no habit held
        if habit["plain"].casefold() == "be":  # "I used to be vegan": a state, as "I'm vegan"
            return HeldOnce(said["said"], None, habit["rest"] or "", None, False)
        return HeldOnce(said["said"], verb, habit["rest"] or "", habit["plain"], True)
    past = verb is not None and _PAST.match(verb) is not None
    plain = None if verb is None else plain_of_past(verb) if past else verb
    return HeldOnce(said["said"], verb, rest, plain, past)
