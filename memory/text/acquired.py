"""A named thing just got, told as one had: "I got a dog named Rex" -> "I have a dog named Rex".

memory/text/extract.py words a user's statement as a fact; a sentence that says the speaker
(or "we") got, adopted, bought or rescued a thing named so-and-so says what they have from
then on, and is read as "I have ..." reads, so "What is my dog's name?" finds it as it finds
"User has a dog named Rex". Pure functions over strings; the regular expression is compiled
once at import.

Only a thing of one to three plain words ("a dog", "a little black kitten") followed by
"named"/"called" and a capitalised name that ends the sentence (a time after it, "last
week", is dropped, as the fact outlasts it) is read so. "I got a letter named in the
lawsuit" names no one, and "I got a call from a guy named Tom" gives the speaker no guy:
a word such as "from" is no part of a thing got.
"""

from __future__ import annotations

import re

__all__ = ["acquired_as_had"]

_THING_WORD = (r"(?!(?:from|by|with|for|to|of|at|in|on|about|who|that|which|and|or|but)\b)"
               r"[^\W\d_]+(?:-[^\W\d_]+)*")
_NAME_WORD = r"(?-i:[A-Z])[^\W\d_]*(?:['’-][^\W\d_]+)*"
_AFTER_NAME = (r"(?:\s+(?:yesterday|today|recently|last\s+(?:week|month|year|weekend)"
               r"|this\s+(?:week|month|year|weekend)))?")
_ACQUIRED = re.compile(
    rf"^(?P<who>i|we)\s+(?:just\s+|recently\s+|finally\s+)?"
    r"(?:got|adopted|bought|rescued)\s+"
    rf"(?P<thing>(?:a|an)(?:\s+{_THING_WORD}){{1,3}}?\s+(?:named|called)\s+"
    rf"{_NAME_WORD}(?:\s+{_NAME_WORD})?){_AFTER_NAME}\W*$",
    re.IGNORECASE)


def acquired_as_had(statement: str) -> str | None:
    """"I have <thing named X>" for "I got/adopted/bought <thing named X>" (module
    docstring), "We have ..." for "We got ..."; None for any other statement."""
    match = _ACQUIRED.match(statement.strip())
    if match is None:
        return None
    return f"{match['who']} have {match['thing']}"
