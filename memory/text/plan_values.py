"""The new value a plan beside a request to forget gives ("Forget my phone number, I'll text
you from the new one, 555-0199"): news of the thing named, where a plan that only points
back at it ("I'll reset it") says nothing; and the new value a remark beside it tells ("Forget
my number, it's 555-0199 now"), when of the kind the one held is. Which request names what,
and what the plan is, is memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_openings import THANKS
from tiermem.memory.text.given_names import is_first_name, names_another, names_no_one
from tiermem.memory.text.named_lists import owned_already, things_listed
from tiermem.memory.text.relations import relation_of

__all__ = ["as_held", "gives_a_value", "held_of",
           "keeps_it", "name_held", "new_contact_in", "new_value_in", "no_email",
           "remembered_value", "spelled_as_held", "time_held", "told_of", "value_kind",
           "value_told"]

_I = re.IGNORECASE
_APOS = "['’]"

#: A value a plan may give ("555-0199", "bob@example.com", "12 Oak St"), not "the new one".
_A_VALUE = re.compile(r"\d|\w@\w")
#: The new one a plan names with its value ("from the new one, 555-0199", "the new one:
#: 12 Oak St", "I'll reset it to hunter3").
_NEW_ONE_IS = re.compile(r"(?:\bnew\s+one\b[\s,:–—-]+(?:(?:which|that)\s+)?(?:is\s+)?"
                         r"|\b(?:change|reset|set|update|switch)\s+it\s+to\s+)"
                         r"(?P<value>[^,;]*?[\w)])\W*$", _I)

#: A number or an email the speaker will reach us from, said last ("I'll text you from
#: 555-0199"): no "it" points back at what goes, yet it is the new one of it.
_NEW_CONTACT = re.compile(r"\b(?:from|at|on)\s+(?P<value>\+?\(?\d[\d ().-]{4,}\d"
                          r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)\W*$", _I)
#: What a number, or an email, is the new one of ("my phone number", "my email").
_KIND_OF = {False: re.compile(r"\b(?:phone|number|mobile|cell)\b", _I),
            True: re.compile(r"\be-?mail\b", _I)}


def gives_a_value(plan: str) -> bool:
    """Whether ``plan`` holds anything that may be a value ("555-0199", "bob@example.com")."""
    return _A_VALUE.search(plan) is not None


def new_value_in(plan: str) -> str | None:
    """The new one of what goes that ``plan`` names ("555-0199" of "I'll text you from the
    new one, 555-0199"); None when it names none ("I'll change it in 2 days")."""
    new_one = _NEW_ONE_IS.search(plan)
    if new_one is None or _A_VALUE.search(new_one["value"]) is None:
        return None
    return new_one["value"]


#: Asking to remember a thing's value with no verb between them ("remember my PIN 4321",
#: "save my number as 555-0199"), as a request beside one to forget may.
_REMEMBER_VALUE = re.compile(
    r"^\W*(?:please\s+)?(?:remember|note|save|store|keep)\s+"
    # a word of place or time ends the thing: "my appointment at 3pm" was said as
    # "My appointment at is 3pm."; so does a verb, as in "my birthday is May 3", which
    # was said as "My birthday is May is 3."
    r"(?P<thing>(?:my|our)(?:\s+(?!(?:at|on|in|into|for|to|from|with|by|until|before"
    r"|after|is|are|was|were|=)\b)[\w-]+)+?)"
    r"\s*(?::|\s(?:as|=))?\s+(?P<value>[^\s,;]*[\d@][^\s,;]*)(?:,?\s+(?:please|instead))?\W*$",
    _I)


def remembered_value(asked: str) -> str | None:
    """The statement of the value ``asked`` asks to remember ("My PIN is 4321." of "remember
    my PIN 4321"); None when it asks no such thing. Quoted as asked, "User's PIN 4321" was
    stored beside the PIN held, which it is the new value of."""
    asked_for = _REMEMBER_VALUE.match(asked)
    if asked_for is None:
        return None
    thing = asked_for["thing"]
    return f"{thing[:1].upper()}{thing[1:]} is {asked_for['value'].rstrip('.!')}."


def new_contact_in(request: str, plan: str) -> str | None:
    """The number or email ``plan`` gives for the one ``request`` names to forget
    ("555-0199" of "Forget my phone number" and "I'll text you from 555-0199"); None of a
    number for "my address", or of "I'll call you at 5pm"."""
    contact = _NEW_CONTACT.search(plan)
    if contact is None or not _KIND_OF["@" in contact["value"]].search(request):
        return None
    return contact["value"]


#: A remark beside a request to forget that tells the thing's value ("it's 555-0199 now"),
#: with the words on the change itself ("now", "actually", "instead") left out.
_IT_IS = re.compile(rf"^\W*it(?:{_APOS}s|\s+is)\s+(?:(?:now|actually|really)\s+)?"
                    r"(?P<value>\S.*?)(?:,?\s+(?:now|instead|actually|these\s+days))?\W*$", _I)
#: What a value told is for, said after it ("hunter3 for the VPN"): no part of its kind,
#: yet read with it the value was of none, and "... remember it's hunter3 for the VPN" lost it.
_WHAT_FOR = re.compile(r"\s+for\s+(?:the|my|our)\s+\w.*$", _I)
#: Where one clause of a remark gives way to the next ("it's 555-0199 now, call me").
_CLAUSE_BREAK = re.compile(r"\s*[,;]\s+")
#: A clause that sets aside the old value ("not 1234"), not one that tells another.
_NOT_THAT = re.compile(r"^(?:and\s+|but\s+)?not\b", _I)
#: The preposition a time may be said with ("at 6am", "on Monday", "set for 6am").
_TIME_SAID_WITH = re.compile(r"^(?:(?:set|scheduled|booked|moved)\s+)?(?:at|on|by|for)\s+", _I)
#: An hour or a day, which "it's" also tells as the time it is ("it's 2am, I'm tired"), or
#: all of them: "it's 24/7" tells when a thing is open, which no code or name held would be.
_A_TIME = re.compile(r"^(?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?|\d{1,2}:\d{2}|noon|midnight"
                     r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day|24\s*/\s*7)$", _I)
#: One word that holds a digit or an @ ("555-0199", "hunter3", "bob@example.com").
_A_CODE = re.compile(r"^\S*[\d@]\S*$")
#: Capitalized words or numbers only ("Rome", "12 Oak St", "Mercedes-Benz"), not "10 years
#: old", nor a word stressed whose last part after a hyphen is not capitalized: "Forget my
#: car, it's a Write-off now." stored "User's car is a Write-off". A part between may be
#: lower case, as in "Stratford-upon-Avon", which a rule on every part lost.
#: Each word ends at a space: let a word end anywhere, a long capitalized word took time
#: that doubled with each letter to be found no name ("it's ABCDEFGHIJKLMNOPQRSTUVWXYZ x").
_NAME_WORD = r"(?:\d[\w/-]*|[A-Z][\w.'’]*(?:(?:-[\w.'’]+)*-[A-Z\d][\w.'’]*)?)"
_A_NAME = re.compile(rf"^{_NAME_WORD}(?:\s+{_NAME_WORD})*\s*$")
#: A place after a number and a name, with its town after a comma ("9 Elm Road, Leeds"):
#: cut at the comma, "Forget my address, it's 9 Elm Road, Leeds." lost the new address. A
#: name after a number alone ("4321, Tom") is said to someone.
_AN_ADDRESS = re.compile(rf"^\d[\w/-]*(?:\s+{_NAME_WORD})+"
                         rf"(?:,\s+{_NAME_WORD}(?:\s+{_NAME_WORD})*)+\s*$")
#: An article before a capitalized word ("a Tesla", "an Audi").
_ARTICLE_BEFORE_NAME = re.compile(r"^(?:an?|the)\s+(?=[A-Z])")
#: A word of the change itself ("it's Maria now", "it's actually Maria").
_CHANGE_SAID = re.compile(r"\b(?:now|instead|actually|these\s+days)\b", _I)
#: A single capitalized word, which may stress a remark ("it's Complicated") as well as
#: name someone.
_ONE_CAPITAL = re.compile(r"^[A-Z][a-z'’-]*$")
#: A word on the thing, not a value, that a capital would pass for one ("it's OK", "it's TMI").
_NO_VALUE = re.compile(r"^(?:ok(?:ay)?|fine|alright|tmi|not|no|none|nothing|gone|over)\b", _I)


#: What names an email address ("my email", "my work e-mail address").
_AN_EMAIL = re.compile(r"\be-?mail(?:\s+address)?$", _I)


def no_email(thing: str, value: str) -> bool:
    """Whether ``value`` ("4321") is no email address, of the one ``thing`` names ("my
    email"): "Forget my email. It's 4321." stored "User's email is 4321"."""
    return _AN_EMAIL.search(thing.strip()) is not None and "@" not in value


def value_kind(value: str) -> str | None:
    """What kind of value ``value`` is: "time" ("7am", "at 6am"), "code" ("555-0199"),
    "name" ("Rome", "12 Oak St"); None for what tells no value ("old", "10 years old")."""
    value = _TIME_SAID_WITH.sub("", value.strip().rstrip(" .!"), count=1)
    # "a Tesla" names a make as "Tesla" does: with the article, the car held as "a Honda"
    # was of no kind, and the new one was lost
    value = _ARTICLE_BEFORE_NAME.sub("", value, count=1)
    if _NO_VALUE.match(value):
        return None
    for kind, shape in (("time", _A_TIME), ("code", _A_CODE), ("name", _A_NAME),
                        ("name", _AN_ADDRESS)):
        if shape.match(value):
            return kind
    return None


#: A clause that only asks the assistant for something or thanks it ("call me", "thanks",
#: "remember that", "but don't tell anyone": of the value told, which it asks to keep, or
#: to keep to itself).
#: Asking to keep the value told, or keep it to itself ("remember that", "keep it secret",
#: "don't tell anyone").
_KEEP_IT = (r"(?:remember|note|save|keep)\s+(?:that|it|this)"
            r"(?:\s+(?:secret|private|safe|to\s+yourself))?(?:\s+please)?\W*$"
            rf"|(?:don{_APOS}t|do\s+not|never)\s+(?:tell|share|show|give|mention)\s+"
            r"(?:it\s+(?:to\s+)?)?(?:anyone|anybody|it|that|this)\W*$")
_OPENS_ASIDE = r"^(?:(?:and|but|so)\s+)?(?:(?:please|pls)\s+)?"
_ASIDE = re.compile(rf"{_OPENS_ASIDE}(?:[a-z]+\s+(?:me|us)\b|{THANKS}\W*$|please\W*$|{_KEEP_IT})",
                    _I)
_KEEPS_IT = re.compile(rf"{_OPENS_ASIDE}(?:{_KEEP_IT})", _I)


def keeps_it(clause: str) -> bool:
    """Whether ``clause``, after a value told, only asks to keep it, or keep it to itself
    ("remember that", "but don't tell anyone")."""
    return _KEEPS_IT.match(clause.strip()) is not None


def value_told(remark: str) -> str | None:
    """The value ``remark`` tells of the thing a request to forget named ("555-0199" of
    "it's 555-0199 now"); None when it tells none ("it's old"). A clause after the value
    ("it's 555-0199 now, call me") is no part of it: read with it, the number was lost.
    Such a clause leaves a value told only when it is told as the new one ("now"), or the
    clause sets aside the old one ("not 1234") or asks or thanks ("call me"): a number
    inside a remark ("it's 2024, time to change", "it's 4321, I think") is no value."""
    clauses = _CLAUSE_BREAK.split(remark)
    for end in range(len(clauses), 0, -1):
        told = _IT_IS.match(", ".join(clauses[:end]))
        if told is not None and value_kind(_WHAT_FOR.sub("", told["value"])):
            rest = clauses[end:]
            news = _CHANGE_SAID.search(", ".join(clauses[:end])) is not None
            if news or all(_NOT_THAT.match(said) or _ASIDE.match(said) for said in rest):
                return told["value"]
            return None
        if gives_a_value(clauses[end - 1]) and not _NOT_THAT.match(clauses[end - 1]):
            # "it's hunter3, no, hunter4": which value is meant is not for a rule to guess
            return None
    return None


#: A fact's subject and value ("User's alarm is 6am").
_FACT_VALUE = re.compile(r"^(?P<subject>.+?)\s+(?:is|are)\s+(?P<value>\S.*)$", _I)
_USERS = re.compile(rf"^user{_APOS}s\s+", _I)
#: Words of a thing named that say whose it is, not what it is.
_OWNER_WORD = re.compile(rf"^(?:my|our|the|your|user|[\w-]+{_APOS}s?)$", _I)


def held_of(named: str, held: Iterable[str],
            any_fact: bool = False) -> set[tuple[str, str | None]]:
    """The subject and kind of value of each fact ``held`` of the thing ``named``
    ("User's alarm", "time" of "User's alarm is 6am" for "my alarm time"); with
    ``any_fact``, of facts that say no value too ("User's sister lives in Berlin")."""
    words = {word.casefold() for word in named.split() if not _OWNER_WORD.match(word)}
    return {(held_as["subject"], value_kind(held_as["value"])) if held_as else (fact, None)
            for fact in held
            if ((held_as := _FACT_VALUE.match(fact)) is not None or any_fact)
            and words & {word.casefold() for word in (held_as["subject"] if held_as
                                                        else fact).split()}}


#: A word after a thing named that asks for all of it, not another thing ("my bank
#: details", "my login info"), or that only says what it is ("my email address" of an
#: email held as "User's email is a@b.com").
_ALL_OF_IT = re.compile(r"(?:\s+(?:details|info|information)|(?<=mail)\s+address)$", _I)
_ITS_TIME = re.compile(r"\s+time$", _I)


def as_held(named: str, held: Iterable[str]) -> str:
    """``named`` as the facts ``held`` name it: "my bank" of "my bank details" when "User's
    bank is Chase" is held and no fact names bank details; else ``named`` itself. Read with
    the word, the request matched no fact, and the bank stayed."""
    trailing = _ALL_OF_IT.search(named)
    if trailing is None:
        return named
    held = list(held)
    asked = {word.casefold() for word in named.split() if not _OWNER_WORD.match(word)}
    subjects = [{word.casefold() for word in subject.split()}
                for subject, _ in held_of(named, held)]
    thing = asked - {trailing.group().strip().casefold()}
    if any(asked <= subject for subject in subjects):
        return named
    # "address" after "email" names no other thing, held or not: kept when no work email
    # is held, "Forget my work email address" forgot the work address held
    if not _MAIL_ADDRESS.search(named) and not any(thing <= subject for subject in subjects):
        return named
    return named[:trailing.start()]


_MAIL_ADDRESS = re.compile(r"mail\s+address$", _I)
#: A name asked for by whose it is ("my brother's name").
_NAME_OF = re.compile(rf"^(?P<whose>(?:my|our)\s+(?P<who>[\w-]+)){_APOS}s\s+name$", _I)
#: A value that is a person's name ("Tom", "Ana Silva").
_PERSONS_NAME = re.compile(r"^[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\W*$")


def name_held(named: str, held: Iterable[str]) -> str | None:
    """The fact ``held`` that gives the name ``named``, said as the user would ("my brother
    is Tom" of "my brother's name" when "User's brother is Tom" is held); None when a fact
    names that name itself ("User's brother's name is Tom"), or none gives it. Only that
    fact goes: read as asked, the request matched no fact, and the name stayed."""
    asked = _NAME_OF.match(named.strip())
    if asked is None:
        return None
    whose = f"user's {asked['who'].casefold()}"
    facts = [told for fact in held if (told := _FACT_VALUE.match(fact)) is not None]
    subjects = [told["subject"].casefold().replace("’", "'") for told in facts]
    if f"{whose}'s name" in subjects:
        return None
    names = [told["value"] for told, subject in zip(facts, subjects, strict=True)
             if subject == whose and _PERSONS_NAME.match(told["value"])]
    return f"{asked['whose']} is {names[0]}" if len(names) == 1 else None


def spelled_as_held(named: str, held: Iterable[str]) -> str:
    """``named`` with a word spelled as the facts ``held`` spell it, with a hyphen or
    without: "my email" of "my e-mail" when "User's email is a@b.com" is held. Spelled
    otherwise, the request matched no fact, and the email stayed."""
    forms: dict[str, set[str]] = {}
    for fact in held:
        for word in _A_WORD.findall(fact):
            forms.setdefault(word.replace("-", "").casefold(), set()).add(word.casefold())

    def as_held_word(said: re.Match[str]) -> str:
        word = said.group()
        held_forms = forms.get(word.replace("-", "").casefold(), set())
        if not held_forms or word.casefold() in held_forms:
            return word
        return min(held_forms)

    return _A_WORD.sub(as_held_word, named)


_A_WORD = re.compile(r"\w+(?:-\w+)*")


def time_held(named: str, held: Iterable[str]) -> str | None:
    """The one fact ``held`` that gives the time of the thing ``named``, said as the user
    would ("my alarm is 6am" of "my alarm time" when "User's alarm is 6am" is held); None
    when a fact names that time itself ("User's alarm time is flexible"), or none or
    several give it. Only that fact goes: named as "my alarm", the alarm's sound went with
    it, and "my screen time" took the screen's size."""
    trailing = _ITS_TIME.search(named)
    if trailing is None:
        return None
    asked = [word.casefold() for word in named.split() if not _OWNER_WORD.match(word)]
    told: list[str] = []
    for fact in held:
        held_as = _FACT_VALUE.match(fact)
        if held_as is None or _USERS.match(held_as["subject"]) is None:
            continue
        subject = [word.casefold() for word in _USERS.sub("", held_as["subject"]).split()]
        if subject == asked:
            return None
        if subject == asked[:-1] and _gives_a_time(held_as["value"]):
            told.append(_USERS.sub("my ", fact))
    return told[0].rstrip(" .!") if len(told) == 1 else None


def _gives_a_time(value: str) -> bool:
    """Whether ``value`` gives a time, alone ("6am") or first ("at 6am on weekdays"): held
    so, the alarm was no alarm with a time, and "Forget my alarm time" forgot nothing."""
    words = _TIME_SAID_WITH.sub("", value.strip().rstrip(" .!"), count=1).split()
    return any(value_kind(" ".join(words[:length])) == "time" for length in (1, 2, len(words)))


def told_of(named: str, remark: str, held: Iterable[str]) -> tuple[str, str] | None:
    """What a request to forget ``named`` should name, and the statement of the new value
    ``remark`` tells of it ("my number", "My number is 555-0199." of "it's 555-0199
    now"), when it is of the kind the value held for that thing is ("it's 7am" of an
    alarm held as "6am"; with none held, no hour, as "it's 2am" may tell the time it is).
    Both name the thing as the fact held does ("my alarm" for "my alarm time" of "User's
    alarm is 6am"): else the request matched nothing, and the old value stayed beside the
    new. Of a list named ("my address and my PIN"), "it" is the last. None otherwise, and
    when the value told is the one held ("it's 1234" of a PIN held as 1234): it tells which
    thing goes, and said anew it came straight back."""
    held = list(held)
    # asked, not told ("It's 4321?"): stored, "User's PIN is 4321" answered the question
    new_one = None if remark.rstrip().endswith("?") else value_told(remark)
    items = things_listed(named)
    thing = items[-1] if items else named
    if new_one is None or not owned_already(thing):
        return None
    said = held_of(thing, held)
    kinds = {kind for _, kind in said if kind is not None}
    value = _WHAT_FOR.sub("", new_one)
    if value_kind(value) not in (kinds or {"code", "name"}) or no_email(thing, value):
        return None
    if relation_of(thing.split()[-1]) is not None and (
            value_kind(value) != "name" or re.search(rf"{_APOS}s?$", value)):
        # someone of the user's is named by no number, and "Eva's" is no one's name:
        # "Forget my sister and it's 4321." stored "User's sister is 4321", and "Forget my
        # sister. It's Eva's now." "User's sister is Eva's"
        return None
    if not gives_a_value(value) and "name" not in kinds:
        # a capital alone ("it's Important") tells a name only of a thing held by one
        return None
    if (_ONE_CAPITAL.match(value) and _CHANGE_SAID.search(remark) is None
            and not is_first_name(value)
            and (relation_of(thing.split()[-1]) is None or names_no_one(value)
                 or names_another(value) or not value.isalpha())):
        # and with no word of the change: "Forget my boss, it's Complicated." of a boss
        # held as Ann stored "User's boss is Complicated", where "it's Maria now" of a
        # sister held as Ana tells her new name, as does "it's Eva", a first name, and
        # "it's Zed" of someone held by name (Zed was lost as a remark), but not "Eva's"
        return None
    subjects = {subject for subject, _ in said}
    subject = subjects.pop() if len(subjects) == 1 else ""
    if f"{subject} is {new_one}".casefold() in {fact.casefold() for fact in held}:
        return None
    mine = _USERS.sub("my ", subject) if _USERS.match(subject) else thing
    return (named if items else mine), f"{mine[:1].upper()}{mine[1:]} is {new_one}."
