"""Requests to forget said in another form than "Forget my password.": asked as a question
("Can you forget my password?", "Could you please delete my phone number?"), which is
still a request, or with a verb that asks to forget only of what memory holds ("Drop my
phone number from memory", "Wipe my address from your notes"), or of the fact told ("Delete
the fact that I live in Porto"), and so said again as one.
"Did you forget my password?" and "Can you remember my password?" ask about memory and
are left as asked. What a request to forget is, is memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_openings import FROM_ELSEWHERE, THANKS
from tiermem.memory.text.forget_requests import asks_to_forget
from tiermem.memory.text.keep_requests import as_keep_request
from tiermem.memory.text.reminded_requests import as_forget_request
from tiermem.memory.text.sentences import split_sentences

__all__ = ["as_request", "as_requests"]

_I = re.IGNORECASE

#: A request asked as a question: "can you", then the request itself. A bare "Will you
#: forget my birthday?" asks what will happen; "Will you please forget ..." asks for it.
_ASKED = re.compile(
    r"^\W*(?:(?:so|ok(?:ay)?|hey|hi|please|pls|and|also|then)\b[\s,]*)*"
    r"(?:(?:can|could|would)\s+you\s+(?:(?:please|pls|kindly|just|now)\s+)*"
    r"|will\s+you\s+(?:(?:please|pls|kindly|just|now)\s+)+)"
    r"(?P<request>\w.*?)"
    rf"(?:,?\s+(?:please|pls|for\s+me|{THANKS}))*\s*\?+\W*$", _I)


#: A verb that asks to forget with the memory named ("Drop my phone number from memory"),
#: or of a thing memory holds of the speaker: "Drop my kids at school" and "Wipe my
#: laptop" are steps told.
#: How a request to drop a thing may close: a courtesy, then a remark on what goes ("...,
#: it's old"), which leaves it the request.
_CLOSING = (rf"(?:,?\s+(?:please|pls|{THANKS}))*"
            r"(?:\s*[,;]\s*(?:it|that|this)\b[^.!?]*)?\W*$")
_FROM_MEMORY = re.compile(
    r"^(?P<lead>\W*(?:(?:please|pls|just|and|also)\b[\s,]*)*)(?:"
    r"(?:drop|wipe|clear|purge)\s+"
    r"(?=(?:my|our)\s+\w[^.!?]*\s(?:from|out\s+of|off)\s+(?:your\s+|the\s+)?"
    rf"(?:memory|mind|notes|records?|database|system){_CLOSING}"
    # with no memory named, only of what memory holds of the speaker, said alone ("Drop my
    # password."): "Drop my kids at school" and "Clear my desk" are steps told, and so is
    # "Clear my email, it's full", of an inbox, where "my email address" is the address
    r"|(?:my|our)\s+(?:[\w-]+\s+){0,2}(?:password|passcode|passphrase|pin|address"
    r"|(?:phone|mobile|cell|card|account|passport|social\s+security)\s+number|number|ssn"
    rf"|iban|birthday|date\s+of\s+birth){_CLOSING})"
    # no inbox is dropped: "Drop my email" is of the email held, and was stored as a step
    rf"|drop\s+(?=(?:my|our)\s+(?:[\w-]+\s+){{0,2}}e-?mail{_CLOSING}))", _I)

#: What a "from" in a fact told may follow, as part of it ("I came from Brazil", "I'm from
#: the Netherlands", "I got back from the gym"): no place the fact is deleted from.
_ORIGIN = "".join(rf"(?<!\b{word}\sfrom\s)" for word in (
    "came", "come", "comes", "moved", "move", "back", "am", "m", "is", "are", "was", "were",
    "graduated", "escaped", "fled", "emigrated", "returned", "retired", "resigned",
    "recovered", "away", "hail", "hails"))
#: A place other than memory the fact is deleted from ("... from the report", "... from my
#: CV"), named as a thing is: "from Lisbon" in "I moved from Lisbon" is part of the fact.
_PLACE_ELSEWHERE = rf"{FROM_ELSEWHERE}{_ORIGIN}(?:the|my|our|this|that|his|her|their)\s"
#: A request naming what was told as a fact ("Delete the fact that I live in Porto"): said
#: so, "delete" named nothing of the speaker's, and the request was stored as a fact. From
#: another place ("... from the report") it is a task on that place, and Porto stays.
_THE_FACT = re.compile(
    r"^(?P<lead>\W*(?:(?:please|pls|just|and|also)\b[\s,]*)*)"
    r"(?:forget|delete|erase|remove|drop|wipe|clear)\s+(?:about\s+)?"
    rf"the\s+(?:fact|part|bit)\s+(?=that\s)(?!{_PLACE_ELSEWHERE})", _I)


def as_request(sentence: str) -> str:
    """``sentence`` said as the request it asks ("Can you forget my password?" -> "Forget
    my password."): asked, it went down the question path, which kept what it named and
    quoted it back; "Drop my password from memory." -> "Forget my password from memory.",
    which was stored as said. Any other sentence is returned as it is."""
    asked = _ASKED.match(sentence.strip())
    request = asked["request"] + "." if asked is not None else sentence.strip()
    request = _FROM_MEMORY.sub(r"\g<lead>forget ", request, count=1)
    request = _THE_FACT.sub(r"\g<lead>forget ", request, count=1)
    told = f"{request[:1].upper()}{request[1:]}"
    return told if told != sentence.strip() and asks_to_forget(told) else sentence


def as_requests(text: str, held: Iterable[str] = ()) -> str:
    """``text`` with each request to forget said in another form said as a request, and
    each worded as one to keep in mind ("Remember to forget my PIN") of what is ``held``;
    a request to keep worded otherwise ("Keep my PIN safe") is said as "Keep my PIN"."""
    held = list(held)
    for sentence in split_sentences(text):
        told = as_keep_request(as_forget_request(as_request(sentence), held), held)
        if told != sentence:
            text = text.replace(sentence, told, 1)
    return text
