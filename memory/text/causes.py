"""A cause said before the speaker's own statement: "Thanks to Tom I work at Acme now" is
read as "I work at Acme now thanks to Tom". Opening it, the cause hid the statement from
what reads one by its first words, so it was quoted whole and ended no job held. Pure
functions over strings, for the offline policy's statements (memory/text/statements.py).
"""

from __future__ import annotations

import re

__all__ = ["cause_behind", "without_cause"]

#: "Thanks to Tom", "Because of the merger," before a clause of the speaker's own; the
#: shortest cause that one follows, so "Thanks to my wife my son ..." credits "my wife".
_CAUSE_FIRST = re.compile(
    r"^(?P<cause>(?:thanks|owing|due)\s+to|because\s+of)\s+"
    r"(?P<what>(?:[\w'’.&-]+\s+){0,4}?[\w'’.&-]+)\s*,?\s+"
    r"(?P<said>(?:i|i['’](?:m|ve|d|ll)|my|we|our)\b[^.!?]*?)(?P<end>[.!?]*)$",
    re.IGNORECASE)


#: A cause closing a statement: "... anymore due to the layoffs", "..., because of my
#: health", "... because they closed". A bare "since" is left: it may say from when.
_CAUSE_LAST = re.compile(r"\s*,?\s+(?:(?:thanks|owing|due)\s+to|because)\s+\S.*$",
                         re.IGNORECASE | re.DOTALL)


def without_cause(sentence: str) -> str:
    """``sentence`` without the cause it gives, opening or closing it: what "I don't work at
    Globex anymore due to the layoffs" denies is the job, not layoffs; read with its cause,
    it matched no fact held and left the job in place."""
    return _CAUSE_LAST.sub("", cause_behind(sentence))


def cause_behind(sentence: str) -> str:
    """``sentence`` with a cause opening it moved behind the statement it is given for
    ("Thanks to Tom I work at Acme now." is "I work at Acme now thanks to Tom."), or as
    said when none opens it."""
    first = _CAUSE_FIRST.match(sentence.strip())
    if first is None:
        return sentence
    said = first["said"].rstrip(" ,")
    return f"{said[:1].upper()}{said[1:]} {first['cause'].lower()} {first['what']}{first['end']}"
