"""Where "there" is when the sentence before it says the one place the user lives: "I live
in Lisbon. I also work there." works in Lisbon.

Stored as said, "User works there" names nowhere a later question can find. ``placed``
reads "there" as the place of the sentence right before it in the same message, and only
when that sentence is the user's own statement of where they live or moved, of a single
place named and nothing else, and the sentence with "there" says the user works, studies
or teaches there: "I live in Lisbon and Porto. I work there." names two places, and "I
go there" would not be "in Lisbon". Anything else is left as said. Pure functions over
strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.relations import relation_of

__all__ = ["placed"]

_I = re.IGNORECASE
#: A place named: one to four capitalised words ("Lisbon", "New York", "St. Petersburg").
#: Each word is matched as short as it can be, so the stop ending the sentence is not
#: taken into the place: put in the middle of the next sentence, it would end it there.
_PLACE = r"(?-i:[A-Z][\w'’.-]*?)(?:\s+(?-i:[A-Z][\w'’.-]*?)){0,3}"
#: How the user says where they live: "I live in", "I moved to", "I'm based in"; "I moved
#: from Paris to" too, or "..., my wife works there" was held whole with the move and a
#: later move ended her job.
_LIVE_IN = (r"i(?:\s+(?:now\s+)?live\s+in|\s+(?:moved|relocated)(?:\s+from\s+"
            rf"{_PLACE})?\s+to|(?:['’]m|\s+am)\s+based\s+in)")
#: The user saying where they live, and nothing else: "I live in Lisbon.", "I moved to
#: Porto!"
_WHERE_I_LIVE = re.compile(rf"^\s*{_LIVE_IN}\s+(?P<place>{_PLACE})\s*[.!]?\s*$", _I)
#: The user, or someone of theirs, doing there what one does in a place: "I also work
#: there", "I study there too", "my wife works there".
_THERE = re.compile(r"^(?P<before>\s*(?:i\s+(?:also\s+)?(?:work|study|teach)|my\s+(?P<noun>"
                    r"[a-z][\w-]*)\s+(?:also\s+)?(?:works|studies|teaches|lives))\s+)there\b", _I)


#: The user saying what they do for a living, there or anywhere: "I also work at Globex",
#: "I work remotely" (no place of the home's: a move away leaves it standing).
_OWN_WORK = re.compile(
    r"^\s*i\s+(?:also\s+)?(?:work|study|teach)\s+(?:at|for|in|as|there|remotely|from)\b",
    _I)
#: Someone of the user's telling where they work or live: "my wife works at Globex", or
#: "there", said as the home before it; "my wife and I work at Globex" shares the job.
_KINS_PLACE = re.compile(r"^\s*my\s+(?P<noun>[a-z][\w-]*)\s+(?:and\s+i\s+(?:also\s+)?"
                         r"(?:work|study|teach|live)|(?:also\s+)?"
                         r"(?:works|studies|teaches|lives))\b", _I)
#: Where a second clause opens after a comma or a dash: "I live in Lisbon, I also work
#: there", "...; my wife works at Globex", "I live in Munich — my wife lives in Berlin" (a
#: hyphen typed with no space joins words, as in "well-known").
_CLAUSE_AFTER_COMMA = re.compile(r"(?:\s*[,;]|\s[-–—]|(?<=\w)[–—])\s*(?:and\s+)?"
                                 r"(?=(?:i|my)\s)", _I)


def placed(sentences: list[str]) -> list[str]:
    """``sentences``, those of one message in order, with the "there" of "I (also) work
    there" or "my wife works there" said as the place the sentence before it says the
    user lives ("I also work in Lisbon"), when that is the one place it names. A comma
    joining the two ("I live in Lisbon, I also work there", "..., I also work at Globex"
    or "..., my wife works there") joins two sentences: stored as one fact, a move away
    from Lisbon ended the job with it, and "User also works there" alone names nowhere."""
    told = [part for sentence in sentences for part in _apart(sentence)]
    sentences = list(told)
    for at in range(1, len(told)):
        lives = _WHERE_I_LIVE.match(sentences[at - 1])
        there = _THERE.match(told[at])
        if lives is not None and there is not None and (
                there["noun"] is None or relation_of(there["noun"].casefold()) is not None):
            told[at] = f"{there['before']}in {lives['place']}{told[at][there.end():]}"
    return told


def _apart(sentence: str) -> list[str]:
    """``sentence`` as the two it joins when it is "I live in X, I (also) work there",
    "..., I also work at Globex" or "..., my wife works at Globex": held as one fact, a move
    away ended the job too."""
    joins = list(_CLAUSE_AFTER_COMMA.finditer(sentence))
    if len(joins) != 1:
        return [sentence]
    lives, there = sentence[:joins[0].start()], sentence[joins[0].end():]
    if _WHERE_I_LIVE.match(lives) is None or not (_OWN_WORK.match(there) or _of_kin(there)):
        return [sentence]
    return [lives, there]


def _of_kin(clause: str) -> bool:
    """Whether ``clause`` tells where someone of the user's works or lives: held with the
    user's home as one fact, a move away ended their job or home too."""
    said = _KINS_PLACE.match(clause)
    return said is not None and relation_of(said["noun"].casefold()) is not None
