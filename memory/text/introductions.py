"""How a speaker names themselves or asks for a call: "Call me Liz", "Hi, I'm Maya".

memory/text/extract.py reads these before telling a statement in the third person
(memory/text/person.py): a name given so is stored as "My name is X" says it, and a request
for a call is no fact at all. Pure functions over strings; the regular expressions are
compiled once at import.

"Call me X" on its own, X one or two capitalised words, names the speaker: it reads as
"My name is X" (``called``), and is then a name like any other ("Please call me Sammy",
"You can call me Dr Lee"; not "Call me Monday", "call me back", "call me when it's done").
"Call me Liz, everyone does" says no more than "Call me Liz". Those ask for a call
(``asks_a_call``: "call me (back)" alone, or followed by when or how: "later", "Monday",
"when it's done", "at 3pm"), or for a service called for the speaker ("Call me a taxi",
"... a cab to the station"; not "Call me a car guy", a noun after it), which is a request,
not a fact; one that
gives a number to call ("Call me at 555-0101") and an idiom ("Call me crazy, but I like
it") are not such requests.

A greeting followed by "I'm X" and nothing more, X one or two capitalised words, is an
introduction: it reads as "My name is X" too (``introduced``: "Hi! I'm Maya", "Hello, I'm
Maya Lopez.", "Hey there, I'm Maya"), the greeting said in a sentence of its own or not
(``with_introductions`` joins them). Where the speaker is from may follow the name ("Hi,
I'm Sam from the platform team", "... on the payments team"): ``with_introductions`` cuts
it off as a statement of its own, "I'm from the platform team". Without the greeting "I'm
X" stays "{speaker} is X", and a capitalised word that says what, not who, names no one
("Hi, I'm British", "Hi, I'm Catholic", "Hi, I'm Vegan", "Hi, I'm Tired", "Hi, I'm Late"):
a language or nationality, a faith, a diet, a mood, where one is or one's part on a shift
("Away", "Primary"), a word "Call me" does not take for a name, or one the durability
rules already read ("vegan"). No list of such words is whole ("Hi, I'm Nervous"), so an
introduction never replaces a name held (``stated_beside`` in memory/text/updates.py).
"""

from __future__ import annotations

import re

from tiermem.memory.text.durability import LANGUAGES, classify_durability

__all__ = ["asks_a_call", "called", "introduced", "with_introductions"]

_IGNORECASE = re.IGNORECASE
_APOS = "['’]"

_NAME_WORD = r"(?-i:[A-Z])[\w'’.-]*"
_CALL_ME = re.compile(
    r"^(?:(?:please|pls|just|you\s+can|you\s+may|feel\s+free\s+to"
    rf"|i{_APOS}?d\s+like\s+you\s+to|i\s+would\s+like\s+you\s+to),?\s+)*"
    rf"call\s+me\s+(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD})?)(?:,?\s+(?:please|pls)"
    # "Call me Liz, everyone does": who else calls the speaker so, which names no one else.
    r"|\s*(?:[,;:–—]|\s-)\s*(?:everyone|everybody|people|most\s+people|(?:all\s+)?my"
    r"\s+(?:friends|family|colleagues)|friends)(?:\s+else)?\s+(?:does|do)(?:,?\s+too)?)?$",
    _IGNORECASE)
#: Capitalised words after "call me" that say when, not what.
_NOT_NAMES = frozenset({
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "asap",
    "today", "tonight", "tomorrow", "later", "back", "when", "if", "after", "before", "now",
    "anytime", "sometime", "maybe", "at", "on", "in",
    # more times of day and week, and what a person is called by others, not by name
    "soon", "whenever", "next", "this", "noon", "midnight", "morning", "afternoon", "evening",
    "weekend", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
    "mom", "mum", "dad",
})


#: "Call me (back)", alone or followed by when or how: a request for a call.
_CALL_REQUEST = re.compile(
    r"^(?:(?:please|pls|just|and|then|so),?\s+)*call\s+(?:me|us)(?:\s+(?:back|again|up))?"
    r"(?P<rest>\s+(?P<word>[\w'’]+).*)?$", _IGNORECASE | re.DOTALL)
#: Words that open what follows such a call: when, or how to reach the speaker.
_WHEN_WORDS = _NOT_NAMES | frozenset({
    "once", "as", "until", "till", "around", "by", "between", "any", "first", "asap",
    "please", "pls", "whenever", "right", "tmrw", "tmr", "either",
})
#: What the speaker asks to be called ("Call me a taxi"): a request, as a call back is.
_CALLED_FOR = frozenset({
    "taxi", "cab", "minicab", "uber", "lyft", "car", "ride", "ambulance", "doctor", "nurse",
    "plumber", "electrician", "locksmith", "mechanic", "tow",
})
#: What is called for, then nothing or when, where or how ("Call me a taxi to the station"):
#: a noun after it makes it a description of the speaker ("Call me a car guy").
_CALLED_THING = re.compile(
    r"\s+an?\s+(?P<thing>[\w'’-]+)(?:\s+(?:truck|cab|service))?"
    r"(?:\W*|[\s,]+(?P<next>[\w'’]+).*)$",
    _IGNORECASE | re.DOTALL)
#: Words that may follow what is called for: when, or where it goes.
_AFTER_CALLED = _WHEN_WORDS | frozenset({"to", "for", "from", "here", "there", "now", "quickly"})
#: A number to call: seven digits or more, with the separators phone numbers are written with.
_PHONE_NUMBER = re.compile(r"\d(?:[\s().+-]*\d){6,}")
#: Another clause after the call ("Call me back, I live in Lisbon now"): it may state a fact.
_ANOTHER_CLAUSE = re.compile(
    r"[,;:–—]\s*(?!(?:please|pls|thanks|thank\s+you|ok|okay)\W*$)\w", _IGNORECASE)


def asks_a_call(statement: str) -> bool:
    """Whether ``statement`` only asks the assistant to call ("Call me back later", "call me
    when it's done", "Call me Mom") or to call something for the speaker ("Call me a
    taxi"): a request, no fact. Not when it gives a number to call
    ("Call me at 555-0101"), or goes on to say more ("Call me back, I live in Lisbon now"),
    nor for "Call me crazy, but ...": module docstring."""
    match = _CALL_REQUEST.match(statement.strip().rstrip(".!"))
    if match is None or _PHONE_NUMBER.search(statement) or _ANOTHER_CLAUSE.search(statement):
        return False
    if match["rest"] is None:
        return True
    word = match["word"].casefold()
    if word in ("a", "an"):  # "Call me a taxi", not "Call me a romantic"
        thing = _CALLED_THING.match(match["rest"])
        return (thing is not None and thing["thing"].casefold() in _CALLED_FOR
                and (thing["next"] is None or thing["next"].casefold() in _AFTER_CALLED))
    return word in _WHEN_WORDS


def called(statement: str) -> str | None:
    """"My name is X" for a statement "call me X" (module docstring); None otherwise."""
    match = _CALL_ME.match(statement.strip())
    if match is None or any(w.casefold().strip(".") in _NOT_NAMES
                            for w in match["name"].split()):
        return None
    return f"My name is {match['name']}"


#: A greeting, as an introduction opens ("Hi", "Hello there", "Good morning, everyone",
#: "Hi Tom,", "Hello Dr Lee,").
_GREETING = (r"(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening))"
             r"(?:\s+(?:there|all|everyone|everybody|folks)"
             # the one greeted, by name, before the mark that ends the greeting: "Hi Tom,"
             r"|\s+(?-i:(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z]+)(?=\s*(?:[,!.:;–—]|$)))?")
_GREETING_ALONE = re.compile(rf"^\W*{_GREETING}\W*$", _IGNORECASE)
_GREETING_OPENING = re.compile(rf"^\W*{_GREETING}\b", _IGNORECASE)
_INTRODUCTION = re.compile(
    rf"^\W*{_GREETING}\s*(?:(?P<end>[!.;])[,!.:;]*|[,:–—]+|\s-)?\s*"
    rf"(?P<own>(?:i\s+am|i{_APOS}m)\s+"
    r"(?P<name>[^\W\d_]+(?:[-'’][^\W\d_]+)*(?:\s+[^\W\d_]+(?:[-'’][^\W\d_]+)*)?))"
    r"\s*[.!]*$", _IGNORECASE)
_LANGUAGE = re.compile(rf"^{LANGUAGES}$", _IGNORECASE)
#: Capitalised words after "I'm" that say what the speaker is, not who: nationalities
#: (languages are ``LANGUAGES``), faiths, politics, diets and states of mind or body.
_NOT_A_NAME = _NOT_NAMES | frozenset({
    "american", "british", "canadian", "australian", "aussie", "kiwi", "mexican",
    "brazilian", "argentinian", "argentine", "chilean", "colombian", "peruvian", "cuban",
    "venezuelan", "jamaican", "haitian", "dominican", "puerto", "indian", "pakistani",
    "bangladeshi", "sri", "nigerian", "kenyan", "ghanaian", "ethiopian", "egyptian",
    "moroccan", "algerian", "tunisian", "israeli", "palestinian", "iranian", "iraqi",
    "syrian", "lebanese", "jordanian", "saudi", "emirati", "scottish", "scots", "belgian",
    "swiss", "austrian", "european", "asian", "african", "latino", "latina", "latinx",
    "hispanic", "south", "north", "new", "native", "indigenous", "texan", "californian",
    "catholic", "christian", "protestant", "orthodox", "jewish", "muslim", "hindu",
    "buddhist", "sikh", "jain", "mormon", "lutheran", "baptist", "methodist", "anglican",
    "evangelical", "quaker", "atheist", "agnostic", "pagan", "democrat", "republican",
    "liberal", "conservative", "libertarian", "socialist", "green", "pescatarian",
    "keto", "kosher", "halal", "gluten", "tired", "exhausted", "sleepy", "hungry", "thirsty",
    "fine", "good", "great", "ok", "okay", "well", "sick", "ill", "sorry", "here", "home",
    "ready", "done", "busy", "bored", "happy", "sad", "excited", "stressed", "confused",
    "lost", "stuck", "curious", "glad", "sure", "free", "single", "married", "divorced",
    "pregnant", "retired", "unemployed", "human", "alive", "awake", "online", "offline",
    "out", "off", "gay", "straight", "bi", "trans", "deaf", "blind", "autistic", "diabetic",
    "left", "right", "not", "so", "just", "also", "still", "really", "very", "a", "an",
    "the", "your", "yours", "his", "her",
    # where one is, and one's part on a shift ("Hi, I'm Late", "Hi, I'm Primary")
    "late", "early", "away", "back", "remote", "around", "available", "unavailable", "afk",
    "ooo", "swamped", "slammed", "covering", "paging", "working", "leaving", "driving",
    "travelling", "traveling", "primary", "secondary", "backup", "senior", "junior", "staff",
    "lead", "temp", "interim", "acting", "escalating", "investigating", "onboarding",
})


def without_greeting(sentence: str) -> str:
    """``sentence`` without the greeting it opens with ("Hi Tom, thanks": ", thanks"), so
    a greeting to one by name says no more than "Hi there" does."""
    return _GREETING_OPENING.sub("", sentence, count=1)


def _a_name(word: str) -> bool:
    """Whether ``word`` may be a name: capitalised, not all capitals, and not a word that
    says what the speaker is (``_NOT_A_NAME``, ``LANGUAGES``)."""
    return (word[:1].isupper() and any(c.islower() for c in word)
            and word.casefold() not in _NOT_A_NAME and _LANGUAGE.match(word) is None)


def introduced(sentence: str) -> tuple[str, str | None] | None:
    """``("My name is X", said)`` for a greeting followed by "I'm X" and nothing more (module
    docstring), None otherwise. ``said`` is "I'm X" when the greeting ended a sentence of its
    own ("Hi! I'm X"), which earlier versions read apart from it, else None."""
    match = _INTRODUCTION.match(sentence.strip())
    if match is None or not all(map(_a_name, match["name"].split())):
        return None
    if classify_durability(f"I'm {match['name']}")[1] is not None:
        return None  # the durability rules read it as a lasting trait ("Vegan")
    return f"My name is {match['name']}", match["own"] if match["end"] else None


#: Where an introduction may go on to say where the speaker is from ("Hi, I'm Sam from the
#: platform team", "... on the payments team").
_AFFILIATION = re.compile(r"\s+(?=(?:from|on\s+the)\s+\S)", _IGNORECASE)
#: Where an introduction may go on with a statement of the speaker's own ("Hey Sam, I'm
#: Maya and I live in Porto"): read whole, it was kept as said and named no one.
_AND_MORE = re.compile(r",?\s+and\s+(?=(?:i|my)\b|i['’](?:m|ve|d|ll)\b)", _IGNORECASE)


def _apart_from_affiliation(sentence: str) -> list[str]:
    """``[introduction, "I'm from ..."]`` for an introduction followed by where the speaker is
    from ("Hi, I'm Sam from the platform team": "Hi, I'm Sam", "I'm from the platform
    team"), which names the speaker and states that too, or by "and" and a statement of the
    speaker's ("..., I'm Maya and I live in Porto": "I live in Porto"); ``[sentence]``
    otherwise."""
    for match in (*_AFFILIATION.finditer(sentence), *_AND_MORE.finditer(sentence)):
        if introduced(sentence[:match.start()]) is not None:
            rest = sentence[match.end():]
            return [sentence[:match.start()],
                    f"I'm {rest}" if match.re is _AFFILIATION else rest[:1].upper() + rest[1:]]
    return [sentence]


def with_introductions(sentences: list[str]) -> list[str]:
    """``sentences`` with a greeting said alone joined to the introduction after it ("Hi!",
    "I'm Maya": "Hi! I'm Maya"), which only together name the speaker, and an introduction
    cut from where the speaker is from (``_apart_from_affiliation``)."""
    joined: list[str] = []
    for sentence in sentences:
        if joined and _GREETING_ALONE.match(joined[-1]):
            parts = _apart_from_affiliation(f"{joined[-1]} {sentence}")
            if introduced(parts[0]) is not None:
                joined[-1:] = parts
                continue
        joined += _apart_from_affiliation(sentence)
    return joined
