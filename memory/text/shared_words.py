"""The words a clause sharing what another says is made of: who may share it ("my wife",
"Tom"), what may open and close it ("Actually, ...", "... too now"), and where a clause
of its own opens in the sentence it points back to. Shared by memory/text/ellipses.py
(what is so too) and memory/text/denied_shares.py (what is not so either).
"""

from __future__ import annotations

import re

__all__ = ["AFTER", "APOS", "CLAUSE_BREAK", "OPENING", "SOMEONE", "TOO", "said_now"]

APOS = "['’]"

TOO = r"(?:,?\s+(?:too|as\s+well))"
#: Someone of the speaker's, or someone named: "my wife", "my best friend", "Tom".
SOMEONE = (r"my\s+[\w'’-]+(?:\s+(?:and\s+(?:my\s+)?)?(?!(?:too|now|actually)\b)[\w'’-]+)?"
           r"|(?!(?:it|this|that|he|she|they|there|we|you)\b)(?-i:[A-Z][a-z]+)")
#: What may follow the shared clause: "I am too now" says the speaker has become so, and
#: "I am too, actually" no less than "I am too" that they are.
AFTER = r"(?:,?\s+(?P<after>now|actually))?\W*$"
#: What may open a sentence that is only the shared clause: "Actually, I am too", "Now I
#: am too" (a change, as a closing "now" is).
OPENING = (r"(?:(?:actually|well|honestly|oh|yes|yeah|okay|ok|in\s+fact)\s*,?\s+"
           r"|(?P<opening_now>now)\s*,?\s+)?")
#: Where a clause of its own opens in the sentence a shared clause points back to.
CLAUSE_BREAK = re.compile(r"[,;]\s*(?:(?:and|but)\s+)?|\s+(?:and|but)\s+(?=my\b)", re.IGNORECASE)


def said_now(match: re.Match[str]) -> str:
    """" now" when the shared clause ``match`` says it with "now", before it or after."""
    now = (match["after"] or "").casefold() == "now" or match.groupdict().get("opening_now")
    return " now" if now else ""
