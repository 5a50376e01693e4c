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
a word such as "from" is no part of a thing got. Nor is what one catches or is sent a
thing one has from then on: "I got a virus called Emotet" (or a cold, a call, a ticket, an
alert) is kept as said. A worm or a bug may be a pet as well as what a computer catches
or code holds: named so, it is a pet ("I got a worm named Wiggles"), unless a word before
it says otherwise ("a computer worm called Stuxnet", "a stomach bug").
"""

from __future__ import annotations

import re

__all__ = ["acquired_as_had"]

_THING_WORD = (r"(?!(?:from|by|with|for|to|of|at|in|on|about|who|that|which|and|or|but)\b)"
               r"[^\W\d_]+(?:-[^\W\d_]+)*")
#: What one catches or is sent, named so, which is no thing one keeps: its head word.
_NOT_HAD = frozenset({
    "virus", "trojan", "malware", "ransomware", "infection", "cold", "flu", "disease",
    "error", "exception", "alert", "page", "call", "email", "e-mail", "mail",
    "message", "text", "letter", "note", "notice", "notification", "ticket", "case", "issue",
    "incident", "warning", "fine", "bill", "invoice", "offer", "reply", "response", "request",
    "complaint", "report", "review", "diagnosis", "rash", "task", "job", "assignment"})
#: A word before "worm" or "bug" that makes it no pet: "a computer worm", "a stomach bug".
_NO_PET = re.compile(r"\b(?:computer|software|network|email|e-mail|code|stomach|tummy"
                     r"|flu|nasty)\s+(?:worm|bug)\b", re.IGNORECASE)
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
    if match is None or _head_word(match["thing"]) in _NOT_HAD or _NO_PET.search(match["thing"]):
        return None
    return f"{match['who']} have {match['thing']}"


def _head_word(thing: str) -> str:
    """The word a thing got is named by: "virus" of "a nasty virus called Emotet"."""
    return re.split(r"\s+(?:named|called)\s+", thing, flags=re.IGNORECASE)[0].split()[-1].casefold()
