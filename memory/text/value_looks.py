"""What an "X is V" fact's value looks like, and so which of two values of one thing may
replace the other: a name or code ("db-01"), a kind of thing ("a replica") or plain words
("down"). A thing keeps its name in every state, and "my new" names another of a secret
whatever its value looks like. memory/text/updates.py decides with these; pure functions
over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text import identifiers as _ids
from tiermem.memory.text.relations import may_be_several
from tiermem.memory.text.secret_names import names_a_secret
from tiermem.memory.text.slots import ATTRIBUTE

__all__ = ["name_beside_state", "names_over_state", "new_one_beside", "new_one_named",
           "secret_length", "secret_told_anew", "value_kind"]

_I = re.IGNORECASE


def value_kind(fact: str) -> str:
    """What an "X is V" fact's value looks like: a name or code ("Ana", "eu-west-1",
    "555-0101"), a kind of thing ("a nurse") or plain words ("pregnant", "overloaded")."""
    match = ATTRIBUTE.match(fact.strip())
    value = match["value"].strip() if match else ""
    if re.match(r"(?:a|an)\s", value, _I):
        return "kind"
    # "the Beatles" is a name; "down until 5pm" a state, its time no part of a name
    value = _ids.without_when(re.sub(r"^the\s+", "", value, flags=_I))
    if _ids.is_state_compound(value):  # "read-only" says how, where "db-primary" names
        return "plain"
    if re.search(r"[\d@]|^[A-Z]|\w[-./:]\w", value):
        return "name"
    return "plain"


def name_beside_state(new: str, old: str) -> bool:
    """Whether one of two values names the thing ("db-01", "Postgres 16") and the other
    says how it is ("down", "read-only", "sev1") or what kind of thing it is ("a
    replica"): a thing keeps its name in every state and role, so neither replaces the
    other, with a change cue or without."""
    values = [match["value"] if (match := ATTRIBUTE.match(fact.strip())) else ""
              for fact in (new, old)]
    names = [_ids.identifies(value) for value in values]
    kinds = [value_kind(fact) == "kind" and not _ids.names_a_make(value)
             for fact, value in zip((new, old), values, strict=True)]
    if any(kinds):
        # "a replica" is neither a name nor a state: it says what db-01 is, so it keeps
        # the name, though a state or a kind may end it.
        return any(names)
    return names[0] != names[1]


def names_over_state(new: str, old: str) -> bool:
    """Whether ``new`` names what a thing is ("The database is PostgreSQL 16") where ``old``
    says how it is ("The database is overloaded"): a change cue ("... 16 now") makes the
    name a new one, not the end of the state. A word in capitals alone ("OK", "UP") may be
    a state itself, so it names nothing here."""
    match = ATTRIBUTE.match(new.strip())
    return (value_kind(new) == "name" and value_kind(old) == "plain" and match is not None
            and re.search(r"[a-z\d]", match["value"]) is not None)


def new_one_named(new: str, old: str, slot: str, change: str | None) -> bool:
    """Whether ``new``, said of "my new", names another of what ``old`` names: a secret
    ("my new password"), held one at a time, whatever word it is said to be (so with any
    cue: "My password is now swordfish" after "hunter2"), or what kind of thing it is
    beside the old one's kind ("a Pixel" after "an iPhone")."""
    words = slot.rpartition("/")[2].split()
    return (change is not None and names_a_secret(words, len(words) - 1)) or (
        change == "my new" and value_kind(new) == value_kind(old) == "kind")


#: What one may have several of at once that names no one of the user's people: "my new
#: client" is one more client, as "my new friend" is one more friend.
_SEVERAL_THINGS = frozenset({"hobby", "client", "customer", "project", "interest", "student",
                             "patient", "course", "class"})
#: A value that is the old one's ("the same as the old one", "unchanged"): it names no new
#: one, and read as one, "My new password is the same as the old one" ended "hunter2".
_THE_OLD_ONE = re.compile(
    r"^(?:(?:still\s+)?(?:(?:the\s+)?same|unchanged|as\s+(?:it\s+was|before))"
    r"(?:\s+as\s+(?:before|it\s+was|(?:the|my|user['’]s)\s+(?:old|last|previous)\b[\w ]*))?"
    r"|what\s+it\s+was)\W*$", _I)
#: What names a thing in a value ("at Acme", "an iPhone", "5 Glass St.").
_NAMING = re.compile(r"[A-Z\d@]")


def new_one_beside(new: str, old: str, slot: str, change: str | None) -> bool:
    """Whether ``new``, said of "my new" (its slot ``slot``), leaves the one ``old`` names:
    one of several ("My new friend is Tom" beside Ana, "My new client is Globex" beside
    Acme), or how the new one is, in plain words beside what names the old one ("My new job
    is hard" beside "at Acme", "My new phone is great" beside "an iPhone"), or one said to
    be the old one ("the same as the old one"). A secret's new value ends the old one
    whatever it is (``new_one_named``)."""
    values = [match["value"] if (match := ATTRIBUTE.match(fact.strip())) else ""
              for fact in (new, old)]
    if change == "my new" and _THE_OLD_ONE.match(values[0].strip()):
        return True  # "My new password is the same as the old one" keeps "hunter2"
    if change != "my new" or new_one_named(new, old, slot, change):
        return False
    noun = slot.rpartition("/")[2]
    return (may_be_several(noun) or noun in _SEVERAL_THINGS
            or (value_kind(new) == "plain" and _NAMING.search(values[0]) is None
                and _NAMING.search(values[1]) is not None))


#: How a secret is, not what it is ("My password is strong", "My PIN is expired"), or
#: where or whose ("here", "mine"): said plainly, it leaves the value held beside it.
_SECRET_STATE = re.compile(
    r"^(?:strong|weak|secure|insecure|safe|unsafe|expired|wrong|right|correct|incorrect"
    r"|long|short|new|old|simple|easy|hard|complex|complicated|changed|compromised|leaked"
    r"|stolen|reset|locked|blocked|lost|forgotten|private|secret|fine|good|bad|ok|okay"
    r"|valid|invalid|active|inactive|unchanged|same|different|temporary|default"
    r"|it|this|that|here|there|elsewhere|none|nothing|everything|mine|yours|gone|due|set"
    r"|overdue|blank|empty|fake|real|true|false|free|paid|ready|slow|fast|known|random"
    r"|lowercase|uppercase)\W*$", _I)
#: A word in lowercase that reads as how a thing is ("revoked", "pending", "memorable",
#: "personal", "unknown"), by its ending or its "un-"; "read-only" is one too.
_STATE_WORD = re.compile(
    r"^(?:un[a-z]{3,}|[a-z]+(?:ed|en|ing|able|ible|ful|less|ous|ive|al|ic|ent|ant|ary"
    r"|ory))\W*$")


#: How long a secret is ("12 characters long", "four digits"), not what it is.
_LENGTH = re.compile(r"^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
                     r"\s+(?:characters?|chars?|digits?|letters?|words?|numbers?)(?:\s+long)?\W*$",
                     _I)


def secret_length(new: str, old: str, slot: str) -> bool:
    """Whether one of two values of a secret (``slot``) says how long it is ("My password is
    12 characters long"): that is no value, so neither ends the other."""
    words = slot.rpartition("/")[2].split()
    return names_a_secret(words, len(words) - 1) and any(
        _LENGTH.match(match["value"].strip()) for fact in (new, old)
        if (match := ATTRIBUTE.match(fact.strip())))


def secret_told_anew(new: str, old: str, slot: str) -> bool:
    """Whether ``new`` gives a secret (``slot``: "user/password", "user/PIN") a value in
    place of the one ``old`` gives, said plainly: a password is held one at a time, so
    "My password is swordfish" ends "hunter2", as "My PIN is 4321" ends "1234". Each value
    is one word that says no state of it ("strong", "expired", "revoked", "here"), which
    leaves the value held; a secret named "secret" ("My secret is ...") may be one of
    several."""
    words = slot.rpartition("/")[2].split()
    if not names_a_secret(words, len(words) - 1) or words[-1].casefold() == "secret":
        return False
    values = [match["value"].strip().rstrip(".!") if (match := ATTRIBUTE.match(fact.strip()))
              else "" for fact in (new, old)]
    return all(len(value.split()) == 1 and _SECRET_STATE.match(value) is None
               and _STATE_WORD.match(value) is None and not _ids.is_state_compound(value)
               for value in values)
