"""A secret of the speaker's pointed back at with "it", right after it was told: "My
password is hunter2." then "It's still hunter2." says the password again, and "Oops, it's
not bob." says only what the password is not.

Read alone, "It's still hunter2" named nothing and was stored as said, a copy of the
secret that "Forget my password." never reached; "It's not bob" told nothing of its own.
``with_secret_named`` reads such an "it" as the secret told just before (in the same
message, else the user's last one), and leaves out what only says what the secret is not
(``secret_denied``, for the reply) or a value it is with no word of which ("It's hunter3":
``secret_meant``, which the reply asks of, as it does of "Sorry, it's hunter3"). Pure
functions over strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.identifiers import identifies
from tiermem.memory.text.secret_names import names_a_secret, secret_said_plainly

__all__ = ["named_secret_denied", "secret_denied", "secret_meant", "secret_told",
           "with_secret_named"]

_I = re.IGNORECASE
#: The fewest digits a PIN has.
_SHORTEST_PIN = 4

#: What a secret is told by: "My password is hunter2" (its value one word), or held as:
#: "User's password is hunter2".
_TOLD = re.compile(r"^\W*(?P<owner>my|our|user['’]s)\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s+"
                   r"(?:is|['’]s)\s+(?P<value>[^\s,;]+?)[.!]*$", _I)
#: Words said before "it's" that only open the sentence ("Oops,", "Err,", "Well,").
_OPENERS = (r"^\W*(?P<opened>(?:(?:sorry|oops|whoops|no|nope|oh|err+|erm|um+|uh+|hmm+|well"
            r"|wait|ok(?:ay)?|yes|yeah|yep|so|and|but|actually|h(?:old|ang)\s+on|my\s+bad)\b"
            r"[\s,:;!.–—-]*)*)")
#: "It's still hunter2": the value held, said again.
_STILL = re.compile(_OPENERS + r"it(?:['’]s|\s+is)\s+still\s+(?P<value>[^\s,;]+?)[.!]*$", _I)
#: "Oops, it's not bob": what the value is not.
_NOT = re.compile(_OPENERS + r"it(?:['’]s\s+not|\s+is\s+not|\s+isn['’]t)\s+"
                  r"(?P<value>[^\s,;]+?)[.!]*$", _I)
#: "My password, it's not bob": a secret named, then what its value is not.
_NAMED_NOT = re.compile(r"^\W*(?:my|our)\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s*[,;:–—]\s*"
                        r"it(?:['’]s\s+not|\s+is\s+not|\s+isn['’]t)\s+(?P<value>[^\s,;]+?)"
                        r"[.!]*$", _I)
#: "It's hunter3": a value of its own, which may be a slip's correction or the new value.
_IS = re.compile(_OPENERS + r"it(?:['’]s|\s+is)\s+(?P<value>[^\s,;]+?)[.!]*$", _I)
#: An hour said bare ("It's 5pm", "It's 10:30"): the clock's, not a secret's.
_HOUR = re.compile(r"^\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?$|^\d{1,2}(?::\d{2})?[ap]\.?m\.?$", _I)
#: A word that says how a thing is, not what it is: "It's not working", "It's still valid".
_HOW = re.compile(r"^(?:[a-z]+(?:ing|ed|en|ful|less|able|ible|ive|ous|al|ent|ant|ure|ic)"
                  r"|secret|private|safe|hidden|unknown|valid|active|set|blank|empty|weak"
                  r"|strong|mine|long|short|simple|random|right|wrong|ok(?:ay)?|fine|good|bad"
                  r"|new|old|same|true|false|there|here|on|off|up|down|in|out|it|that|this|correct"
                  r"|incorrect|lost|gone|over|done|known|needed|required|important|urgent"
                  r"|so|too|very|really|just|yet|now|a|an|the|my|your|easy|hard|case)$")


def secret_told(sentence: str) -> tuple[str, str, str] | None:
    """The owner, the secret and its value ``sentence`` tells ("My", "password", "hunter2"
    of "My password is hunter2."), or None: it tells no secret of the speaker's."""
    match = _TOLD.match(secret_said_plainly(sentence.strip()) or sentence.strip())
    if match is None:
        return None
    words = match["thing"].split()
    if not names_a_secret(words, len(words) - 1):
        return None
    return match["owner"], match["thing"], match["value"]


def _a_value(value: str, opened: bool) -> bool:
    """Whether ``value`` is what a secret may be, not how it is: one with a digit or a
    mark ("hunter2", "sk-1"), a capital ("Bob"), or, after a word that opens the sentence
    ("Oops, it's not bob"), any but a word of how things are."""
    if not value.isalpha() or not value.islower():
        return True
    return opened and _HOW.match(value) is None


#: A degree said short ("30C", "-5°F"): a reading, though its letter is a capital.
_DEGREES = re.compile(r"^-?\d+(?:\.\d+)?°?[CF]$")


def _of_its_kind(value: str, secret: str) -> bool:
    """Whether ``value`` may be the secret whose value is ``secret``: no reading ("$40",
    "100%", "5pm", "Monday", "30C"), and digits as many as a PIN has ("2" is a count) or,
    of a secret not all digits, a letter ("1-0", "24/7" and "2.5" are numbers)."""
    if not identifies(value) or _DEGREES.match(value):
        return False
    if value.isdigit():
        return len(value) >= _SHORTEST_PIN
    return not secret.isdigit() and any(char.isalpha() for char in value)


def named_secret_denied(sentence: str) -> tuple[str, str] | None:
    """The secret ``sentence`` names and the value it says that secret is not ("password",
    "bob" of "My password, it's not bob."), or None: "..., it's not working" says how."""
    match = _NAMED_NOT.match(sentence.strip())
    if match is None or not _a_value(match["value"], opened=True):
        return None
    words = match["thing"].split()
    return (match["thing"], match["value"]) if names_a_secret(words, len(words) - 1) else None


def secret_denied(sentence: str, before: str | None) -> str | None:
    """The value ``sentence`` says the secret ``before`` told is not ("bob" of "Oops, it's
    not bob." after "My password is hunter2."), or None."""
    match = _NOT.match(sentence.strip())
    if (match is None or before is None or secret_told(before) is None
            or not _a_value(match["value"], bool(match["opened"].strip()))):
        return None
    return match["value"]


def secret_meant(sentence: str, before: str | None) -> str | None:
    """The value ``sentence`` says "it" is ("hunter3" of "It's hunter3." after "My password
    is hunter2."), one with a digit or a mark, not an hour, or None: which the secret's new
    value is and which a slip's, nothing says, so the reply asks, as after "Sorry, it's
    hunter3"."""
    match = _IS.match(sentence.strip())
    told = secret_told(before) if before is not None else None
    if (match is None or told is None or told[2] == match["value"]
            or match["value"].isalpha() or _HOUR.match(match["value"])
            or match["value"].casefold() in ("still", "not")
            or not _of_its_kind(match["value"], told[2])):
        return None
    return match["value"]


def _said_again(sentence: str, before: str | None, held: Iterable[str]) -> str | None:
    """``sentence`` as the secret ``before`` told said again ("My password is still
    hunter2." of "It's still hunter2." or "It's hunter2."), or as the one secret ``held``
    whose value it says ("It's still hunter2" after "I like tea"), or None."""
    still = _STILL.match(sentence.strip())
    match = still or _IS.match(sentence.strip())
    if match is None:
        return None
    value = match["value"]
    told = secret_told(before) if before is not None else None
    if told is None or told[2] != value:
        alike = {said[1:] for fact in held
                 if (said := secret_told(fact)) is not None and said[2] == value}
        if len(alike) == 1:
            told = ("my", *next(iter(alike)))
        elif still is None or told is None or not _of_its_kind(value, told[2]):
            return None
    _, thing, _ = told
    return f"My {thing} is still {value}."


def with_secret_named(sentences: list[str], said_last: str | None,
                      held: Iterable[str] = ()) -> list[str]:
    """``sentences`` with "it" read as the secret told just before (``said_last``: the
    user's last statement, for the first sentence), or as the one secret ``held`` (the
    facts held) of the value it says: said again as that secret, and left out when it only
    says what the secret is not (module docstring)."""
    out: list[str] = []
    before = said_last
    for sentence in sentences:
        again = _said_again(sentence, before, held)
        if again is None and (secret_denied(sentence, before) is not None
                              or named_secret_denied(sentence) is not None
                              or secret_meant(sentence, before) is not None):
            continue  # the secret said before is still the one "it" points at
        out.append(again or sentence)
        before = out[-1]
    return out
