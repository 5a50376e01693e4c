"""A denial followed by how the speaker does regard the same thing: "I don't like tea, I
love it" says what the user feels for tea, not that they do not care for it.

Read as a plain denial, it would retire "User likes tea" and store "User doesn't like
tea", a fact the user did not mean, beside "User loves it", which names nothing. So the
denial only ends what it denies, as "... anymore" does, and the later clause is told of
the thing the denial named ("I love tea"). Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["regraded"]

_DENIED = re.compile(r"^(?P<denial>I\s+(?:don['’]?t|do\s+not)\s+[a-z]+\s+(?P<what>.+?))"
                     r"\s*[.!]*$", re.IGNORECASE)
#: The later clause, which names the denied thing only as "it" or "them".
_REGARDED = re.compile(r"^I\s+(?P<verb>(?:really\s+)?[a-z]+)\s+(?:it|them)\s*(?P<end>[.!]*)$",
                       re.IGNORECASE)


def regraded(parts: list[str]) -> list[str]:
    """``parts`` (a denial and the statement joined to it) with a regrading ("I don't
    like tea", "I love it!") said as ending the denied fact and telling the new one
    ("I don't like tea anymore", "I love tea!"); other parts as they are."""
    if len(parts) != 2:
        return parts
    denied, regarded = _DENIED.match(parts[0].strip()), _REGARDED.match(parts[1].strip())
    if denied is None or regarded is None:
        return parts
    return [f"{denied['denial']} anymore",
            f"I {regarded['verb']} {denied['what']}{regarded['end']}"]
