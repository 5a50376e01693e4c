"""Moves: a thing moved from where or when another fact put it, and a move the user said
they took back.

``moved_from(new, old)`` says whether one fact moves a thing ("The meeting moved to
Friday") from where or when the other put it ("The meeting is on Thursday");
``undoes_a_move(fact)`` whether a fact says a move and then that the user came back ("User
moved to Berlin but User is back"), which leaves where the user lived; and
``takes_back(new, old)`` whether such a fact takes back the very move another states
("User moved to Berlin"), which then no longer holds. ``places_left`` names the places a
move leaves ("I moved from Berlin to Munich": Berlin), where the user is no longer, and
``places_reached`` those named after it but not as left: where it went (Munich). Pure
functions over strings, for memory/text/updates.py's ``replaces``,
memory/text/clauses.py and the reading of what a user's message states
(memory/text/asserted.py, memory/ops/fact_said.py).
"""

from __future__ import annotations

import re

from tiermem.memory.text.slots import CHANGE_WORDS, DETERMINERS
from tiermem.memory.text.wording import concepts

__all__ = ["left_unsaid", "lived_before_moving", "moved_from", "places_left", "places_reached",
           "says_a_move", "takes_back", "undoes_a_move", "without_places_left"]

_I = re.IGNORECASE


#: A thing's move ("The meeting moved to Friday", "The incident was moved to sev2") and where
#: or when it is ("The meeting is on Thursday"): "the" or such names the thing, as a person's
#: move is ``slot_of``'s residence.
_MOVED = re.compile(
    r"^(?P<subject>[\w' .-]{2,60}?)\s+(?:(?:has\s+been|was|got|has)\s+)?(?:moved|relocated)"
    r"\s+(?:back\s+)?(?:from\s+[^.;]{1,60}?\s+)?to\s+(?P<value>.+)$", _I)
_STANDS = re.compile(r"^(?P<subject>[\w' .-]{2,60}?)\s+(?:is|are)\s+(?P<at>(?:on|at|in)\s+)?"
                     r"(?P<value>.+)$", _I)
#: When a value is said to hold, which is no part of it ("sev1 right now").
_WHEN_SAID = re.compile(r"\s+(?:right\s+now|now|currently|at\s+the\s+moment|for\s+now|today"
                        r"|tonight|this\s+(?:week|month|morning|afternoon|evening))$", _I)
#: A value that is a day or a time ("Friday", "3pm", "14:30").
_DAY_OR_TIME = re.compile(
    r"^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june"
    r"|july|august|september|october|november|december|\d{1,2}(?::\d\d)?\s?[ap]m"
    r"|\d{1,2}:\d\d)\b", _I)


def moved_from(new: str, old: str) -> bool:
    """Whether one fact moves a thing ("The meeting moved to Friday") from where or when the
    other put it ("The meeting is on Thursday", or moved it): only to a value of the same
    look ("sev1" and "sev2", "Thursday" and "Friday", "Building 4" and "Building 5"), so
    "The team moved to the new office" leaves "The team is great", and "moved to
    Frankfurt" leaves "The server is Ubuntu", which says what, not where."""
    moved, other = _MOVED.match(new.strip()), _MOVED.match(old.strip())
    if moved is None:
        moved, other = other, _STANDS.match(new.strip())
    elif other is None:
        other = _STANDS.match(old.strip())
    if moved is None or other is None:
        return False
    subjects = [[w for w in re.findall(r"[\w'’-]+", m["subject"].casefold())
                 if w not in CHANGE_WORDS] for m in (moved, other)]
    if subjects[0] != subjects[1] or subjects[0][0] not in DETERMINERS:
        return False
    values = [re.sub(r"^the\s+", "", _WHEN_SAID.sub("", m["value"].strip()), flags=_I)
              for m in (moved, other)]
    shapes = [re.sub(r"[A-Z]+", "A", re.sub(r"[a-z]+", "a", re.sub(r"\d+", "9", v)))
              for v in values]
    if shapes[0] != shapes[1] or not re.search(r"[A-Z\d]", values[0]):  # a name or code
        return False
    # A place or time: said with "on", "at" or "in", or moved to before, or a day or a
    # time, or a code that differs in its number ("sev1", "sev2").
    return (other.groupdict().get("at") is not None or other.re is _MOVED
            or all(_DAY_OR_TIME.match(v) for v in values)
            or len({re.sub(r"\d+", "", v) for v in values}) == 1)


#: A move said undone after it ("User moved to Berlin but User is back", "... and came
#: back"): where the user lives is where they lived before. Back to another place is a
#: move; back from a trip, at work or into running, or returning a thing, undoes none.
_BACK_SINCE = re.compile(
    r"\b(?:moved|relocated)\s+to\s.*?\b(?:is|are|has\s+come|have\s+come|came|got|moved|went)"
    r"\s+back\b(?!\s+(?:to|from|at|into|on|onto|in\s+touch|with|up|out)\b)"
    r"|\b(?:moved|relocated)\s+to\s.*?\breturned\b"
    r"(?!\s+(?:to|from|the|an|my|our|his|her|their|its|it|them|this|that|some)\b)", _I)


def undoes_a_move(fact: str) -> bool:
    """Whether ``fact`` says a move and then that the user came back ("User moved to Berlin
    but User has moved back"), which leaves where the user lives as it was."""
    return _BACK_SINCE.search(fact) is not None


#: Where a move went, named in capitals ("Berlin" of "User moved to Berlin last year").
_MOVED_TO = re.compile(
    r"\b(?:moved|relocated)\s+to\s+(?P<place>(?-i:[A-Z][\w'’.-]*)(?:\s+(?-i:[A-Z][\w'’.-]*))*)",
    _I)


def takes_back(new: str, old: str) -> bool:
    """Whether ``new`` takes back the very move ``old`` states ("User moved to Berlin but
    User has moved back" after "User moved to Berlin"): that move holds no more, where a
    move elsewhere, or one already taken back, is another fact."""
    if not undoes_a_move(new) or undoes_a_move(old):
        return False
    places = [match["place"].casefold() if (match := _MOVED_TO.search(fact)) else None
              for fact in (new, old)]
    return places[0] is not None and places[0] == places[1]


_MOVING = re.compile(r"\b(?:mov(?:e|es|ed|ing)|relocat(?:e|es|ed|ing)|emigrat(?:e|es|ed|ing))\b",
                     _I)
#: The place one moved from, up to where the sentence goes on: "away from Berlin (in 2020)".
_LEFT = re.compile(r"\b(?:away\s+from|out\s+of|from)\s+.*?(?=\s+(?:to|into|in|on|at|since|after"
                   r"|before|when|because|and)\b|$)", _I)
#: A capitalised word past the first of what ``_LEFT`` finds: the name of the place left.
_CAPITALISED = re.compile(r"(?<=\s)[A-Z][\w'’-]*")


def says_a_move(text: str) -> bool:
    """Whether ``text`` says a move of someone's: "moved", "relocating", "emigrate"."""
    return _MOVING.search(text) is not None


def without_places_left(text: str) -> str:
    """``text`` without the places a move in it leaves ("I moved from Berlin to Paris"
    keeps only Paris), as the place where one is no longer."""
    return _LEFT.sub("", text) if says_a_move(text) else text


def places_left(text: str) -> set[str]:
    """The concepts of the names of the places a move in ``text`` leaves: Berlin of "I
    moved from Berlin, where I lived, to Munich" and of "User moved from Berlin"."""
    if not says_a_move(text):
        return set()
    return concepts(" ".join(name for left in _LEFT.finditer(text)
                             for name in _CAPITALISED.findall(left.group())))


#: A home said after the move as one it left: "I moved to Munich after living in Berlin".
_LIVED_BEFORE_IT = re.compile(r"\bafter\s+(?:living|having\s+lived|years\s+of\s+living)"
                              r"\s+(?:[\w'’]+\s+){0,3}?(?:in|at)\s+"
                              r"(?P<place>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")


def places_reached(text: str) -> set[str]:
    """The concepts of the names of the places a move in ``text`` goes to: those named
    after the move that it does not leave. A place named before it is no destination:
    "I lived in Berlin, then moved to Munich" reached Munich only, as did "I moved to
    Munich after living in Berlin"."""
    move = _MOVING.search(text)
    if move is None:
        return set()
    after = _LIVED_BEFORE_IT.sub("", text[move.start():])
    return concepts(" ".join(_CAPITALISED.findall(without_places_left(after))))


#: Someone else a clause of its own goes on with: "..., and Tom lived", "; my parents
#: lived", "but she moved"; not "in Berlin as a student" nor "where Tom worked", where
#: the speaker is still the one who goes on.
_ANOTHER_GOES_ON = (r"(?:[,;]|\b(?:and|but)\b)\s+(?:(?:then|so)\s+)?"
                    r"(?:he|she|they|(?!I\b)(?-i:[A-Z])\w*|(?:my|his|her|their)\s+\w+)"
                    r"\s+\w{2,}(?:ed|s)\b")
#: The speaker's own move, said as done: "I moved", "we relocated", "..., then moved",
#: "I lived in Berlin for years before moving"; not another's ("then she moved", "...
#: and Tom lived in Hamburg before moving"), a plan ("I might move") or a denial ("I
#: didn't move").
_OWN_MOVE = re.compile(r"(?:\b(?:I|we)|\b(?:then|but|and|so|later))\s+(?:\w+ly\s+)?"
                       r"(?:moved|relocated|emigrated)\b"
                       rf"|\b(?:I|we)\s(?:(?!{_ANOTHER_GOES_ON})[^.!?])*?"
                       r"\bbefore\s+(?:moving|relocating|emigrating)\b", _I)


def left_unsaid(text: str) -> bool:
    """Whether ``text`` says the speaker moved without naming where from: the place left
    may then be one said before it ("I lived in Berlin, then moved to Munich"), where
    "I moved to Munich from Hamburg" left Hamburg alone."""
    return _OWN_MOVE.search(text) is not None and not places_left(text)


#: A place said lived in: "lived in Berlin", "grew up with my aunt in Berlin", "was based
#: in Berlin", or left ("left Berlin"). Being born, working, studying or having been there
#: is no home left.
_LIVED_IN = re.compile(r"\b(?:(?:lived|grew\s+up|resided|(?:was|were|had\s+been)\s+(?:living"
                       r"|based))\s+(?:[\w'’]+\s+){0,3}?(?:in|at)|left)"
                       r"\s+(?P<place>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")

#: The speaker as the subject of what follows: "I ", "we'd ", "I had always ", "I studied
#: and ". Another's home is none the speaker's move left: "Anna lived in Berlin, then I
#: moved to Munich".
_BY_THE_SPEAKER = re.compile(r"\b(?:I|we)(?:['’](?:d|ve))?(?:\s+(?:had|have|once|also|always"
                             r"|first|\w+ly))*\s+(?:[a-z]+ed\s+and\s+)?$", _I)


def lived_before_moving(text: str) -> set[str]:
    """The concepts of the places ``text`` says the speaker lived in before a move it says:
    the place a move that names none it left may have left ("I lived in Berlin, then moved
    to Munich", "I left Berlin and moved to Munich", "I moved to Munich after living in
    Berlin"); "I visited Berlin, then moved
    to Munich" left no Berlin, nor "Anna lived in Berlin, then I moved to Munich"."""
    move = _MOVING.search(text)
    if move is None:
        return set()
    before = [m["place"] for m in _LIVED_IN.finditer(text[:move.start()])
              if _BY_THE_SPEAKER.search(text[:m.start()])]
    after = [m["place"] for m in _LIVED_BEFORE_IT.finditer(text, move.end())]
    return concepts(" ".join(before + after))
