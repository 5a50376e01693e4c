"""First person told as third: "I'm vegan" -> "User is vegan", for fact extraction.

memory/text/extract.py stores a user's statement as a fact about the speaker; this module
rewrites its first person. Pure functions over strings; the regular expressions are
compiled once at import.

First person becomes third person with the speaker's name, and only
through this small table, anchored at the start of the sentence (the head):
"I am"/"I'm" -> "{speaker} is", "I was" -> "{speaker} was",
"I have"/"I've" -> "{speaker} has", "My" -> "{speaker}'s", and
"I <verb>" -> "{speaker} <verb>s" for like, love, hate, prefer, live,
work, need, want, use, own, speak, "I moved"/"I relocated" -> "{speaker}
moved"/"{speaker} relocated", and "I don't"/"I do not" -> "{speaker} doesn't"/"{speaker}
does not". After such a head, a later clause that opens
with one of these (after a comma, semicolon, dash or conjunction: "My name
is Dana and I live in Lisbon") is rewritten the same way, except inside a
quotation, after "says," and the like, and in "my wife and I", where "I" alone
becomes "{speaker}" ("User's wife and User moved to Porto"; ``BEFORE_RETURN`` on), as it
does in a later clause that says the speaker came, went or got back, or returned ("User
moved to Berlin but User came back"), and as "me" does in "my wife and me", also in a
sentence that opens otherwise ("Last year User's wife and User moved to Porto"; these
``LATEST`` only). After such
a rewrite, or when "my" is the only first-person word ("Alice is my
manager"), every "my" becomes "{speaker}'s"; other first-person words stay.
Any other sentence with a first-person word is stored as
"{speaker}: <sentence>". Everything else ("We moved to Berlin", "The
production region is eu-west-1") is kept as written.

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

The head table is also the de-duplication key's (memory/text/fact_keys.py), so a fact
stored as "User likes tea" and one typed "I like tea" are the same fact. "speak"
(``NEWER_HEAD_VERBS``) and "I don't" are the exceptions: earlier versions stored "I speak
Hebrew" as "User: I speak Hebrew", under the key "i speak hebrew" (and "I'm vegetarian, and
I don't drink coffee" whole, as "User is vegetarian, and I don't drink coffee"), and
forgotten facts are blocked by their key's hash. A key table that read "I speak" as "User
speaks" would give that stored fact the key of "User speaks Hebrew", which may be stored
beside it (a model wrote it so): two stored facts with one key, which a snapshot cannot
restore. So keys stay as they were, and the extracted fact says what earlier versions
stored (third_person's ``version``: ``FIRST``, the head alone without "speak", is
``ExtractedFact.former``; ``BEFORE_NEGATION``, later clauses and "speak" but not "I
don't" nor the "I" of "my wife and I", is its ``previous``; ``BEFORE_JOINT``, "I don't"
but not that "I", is its ``unjoined``; ``BEFORE_RETURN``, that "I" in a head's sentence
but not the one of "I came back" nor "me", is its ``unreturned``), by which a fact stored
or forgotten in that form is still known.
"""

from __future__ import annotations

import re

from tiermem.memory.text.durability import LANGUAGES, classify_durability

__all__ = ["BEFORE_JOINT", "BEFORE_NEGATION", "BEFORE_RETURN", "FIRST", "LATEST",
           "NEWER_HEAD_VERBS", "asks_a_call", "called", "head", "introduced", "third_person",
           "with_introductions"]

_IGNORECASE = re.IGNORECASE
_APOS = "['’]"

_HEAD_IS = re.compile(rf"^(?:i\s+am|i{_APOS}m)\b", _IGNORECASE)
_HEAD_WAS = re.compile(r"^i\s+was\b", _IGNORECASE)
_HEAD_HAS = re.compile(rf"^(?:i\s+have|i{_APOS}ve)\b", _IGNORECASE)
_HEAD_VERBS = ("like", "love", "hate", "prefer", "live", "work", "need", "want", "use", "own")
#: Head verbs earlier versions did not rewrite (module docstring): "I speak Hebrew" was
#: quoted, "User: I speak Hebrew".
NEWER_HEAD_VERBS = ("speak",)
_HEAD_VERB = re.compile(rf"^i\s+({'|'.join(_HEAD_VERBS + NEWER_HEAD_VERBS)})\b", _IGNORECASE)
_EARLIER_HEAD_VERB = re.compile(rf"^i\s+({'|'.join(_HEAD_VERBS)})\b", _IGNORECASE)
_HEAD_PAST = re.compile(r"^i\s+(moved|relocated)\b", _IGNORECASE)
#: "I don't drink coffee": added last (``LATEST``), and the one head that keeps its
#: negation ("{speaker} doesn't drink coffee").
_HEAD_DONT = re.compile(rf"^i\s+(?:(?P<full>do\s+not)|don(?P<apos>{_APOS})?t)\b", _IGNORECASE)

#: The versions of the head table, oldest first (module docstring): the head alone, without
#: ``NEWER_HEAD_VERBS``; later clauses too, and those verbs; "I don't" too; the "I" of "my
#: wife and I" too; the "I" of a later "I came back", and "me" or a sentence with no head in
#: "my wife and I/me", too.
FIRST, BEFORE_NEGATION, BEFORE_JOINT, BEFORE_RETURN, LATEST = 0, 1, 2, 3, 4
_HEAD_MY = re.compile(r"^my\b", _IGNORECASE)
_MY = re.compile(r"\bmy\b", _IGNORECASE)
_OTHER_FIRST_PERSON = re.compile(
    rf"(?<![\w'’.\-/])(?:i(?:{_APOS}(?:m|ve|d|ll))?|me|myself|mine)(?![\w'’/\-]|\.\w)",
    _IGNORECASE,
)


#: A later clause in which the speaker comes back ("..., but I came back"): no head rule
#: covers the verb, and read as the speaker's own words its "I" would be whoever reads it.
_RETURN = re.compile(r"^i(?=\s+(?:(?:came|went|got)\s+back|returned)\b)", _IGNORECASE)
#: What ends the text before a later clause: a comma, semicolon or dash, or a conjunction.
_CLAUSE_BREAK = re.compile(
    r"(?:[,;]|\s[-–—]|(?<=\w)[–—])\s*(?:(?:and|but|so|or|yet)\s+)?(?:then\s+)?$"
    r"|\s(?:and|but|so|or|while|because|though|although|since|(?:and\s+)?then)\s+$",
    _IGNORECASE)
#: When a sentence opens by saying ("Last year my wife and I moved to Porto").
_TIME_OPENING = (
    r"(?:(?:last|this|next)\s+(?:year|month|week|weekend|summer|winter|spring|autumn|fall"
    r"|night)|yesterday|today|tonight|recently|lately|in\s+\d{4}"
    r"|(?:a|an|one|two|three|few|\d+)\s+(?:\w+\s+)?ago)")
#: "my wife and I have ...": the first person shares its verb with a noun of a "my" that
#: opens the clause ("I live with my wife and I love her" is two clauses).
_JOINT_SUBJECT = re.compile(
    rf"(?:^(?:{_TIME_OPENING},?\s+)?|[,;]\s*"
    r"|\b(?:and|but|so|or|when|if|while|because|since|after|before|that)\s+)"
    r"my(?:\s+(?!(?:is|are|was|were|has|have|had|does|did)\b)[\w'’-]+){1,4}\s+(?:and|or)\s+$",
    _IGNORECASE)
#: "My son says, I am hungry": someone else's words.
_REPORTED = re.compile(
    r"\b(?:says?|said|tells?|told|asks?|asked|thinks?|thought|writes?|wrote|repl(?:y|ies|ied)"
    r"|yell(?:s|ed)?|shout(?:s|ed)?)\s*[,:]\s*$", _IGNORECASE)


def _opens_clause(before: str) -> bool:
    """Whether a first person right after ``before`` opens a clause of the speaker's own."""
    if _JOINT_SUBJECT.search(before) or _REPORTED.search(before):
        return False
    if before.count('"') % 2 or before.count("“") > before.count("”"):
        return False  # inside a quotation
    return _CLAUSE_BREAK.search(before) is not None


def head(text: str, speaker: str, version: int = LATEST) -> tuple[str, int] | None:
    """The third-person form of ``text``'s first-person head ("I am", "my", "I live"), and
    how many characters of ``text`` it replaces; None when it opens otherwise. ``version``:
    as that version of the table read it (``FIRST``, ``BEFORE_NEGATION``, ``BEFORE_JOINT``)."""
    for pattern, replacement in (
        (_HEAD_IS, f"{speaker} is"),
        (_HEAD_WAS, f"{speaker} was"),
        (_HEAD_HAS, f"{speaker} has"),
        (_HEAD_MY, f"{speaker}'s"),
    ):
        match = pattern.match(text)
        if match:
            return replacement, match.end()
    verb = (_EARLIER_HEAD_VERB if version == FIRST else _HEAD_VERB).match(text)
    if verb:
        return f"{speaker} {verb.group(1).casefold()}s", verb.end()
    past = _HEAD_PAST.match(text)
    if past:
        return f"{speaker} {past.group(1).casefold()}", past.end()
    negated = _HEAD_DONT.match(text) if version >= BEFORE_JOINT else None
    if negated:
        apostrophe = negated["apos"] or "'"  # "I dont" is written "doesn't"
        said = "does not" if negated["full"] else f"doesn{apostrophe}t"
        return f"{speaker} {said}", negated.end()
    return None


def _in_joint_subject(found: re.Match[str], version: int) -> bool:
    """Whether the first person ``found`` is the speaker's half of a subject a "my" opens
    ("my wife and I", "my wife and me"), as ``version`` read it."""
    word = found[0].casefold()
    return (((word == "i" and version >= BEFORE_RETURN) or (word == "me" and version >= LATEST))
            and _JOINT_SUBJECT.search(found.string[:found.start()]) is not None)


def _later_clauses(text: str, start: int, speaker: str, version: int) -> str:
    """``text`` with the first person that opens a clause after ``start`` rewritten as a
    head is ("..., and I live in Lisbon" -> "..., and User lives in Lisbon"). A first
    person no head rule covers stays ("but I call her Annie", "she loves me")."""
    while (found := _OTHER_FIRST_PERSON.search(text, start)) is not None:
        before = text[:found.start()]
        if _in_joint_subject(found, version):
            # "my wife and I moved": the speaker is half of the subject, so it is told of
            # them too ("User's wife and User moved"); read as the speaker's own words, it
            # would say "I" of whoever reads the fact.
            text = before + speaker + text[found.end():]
            start = found.start() + len(speaker)
            continue
        opening = (head(text[found.start():], speaker, version) if _opens_clause(before)
                   else None)
        if (opening is None and version >= LATEST and _opens_clause(before)
                and _RETURN.match(text[found.start():])):
            opening = speaker, 1
        if opening is None:
            start = found.end()
            continue
        replacement, replaced = opening
        text = before + replacement + text[found.start() + replaced:]
        start = found.start() + len(replacement)
    return text


def third_person(text: str, speaker: str, version: int = LATEST) -> str:
    """``text`` told of ``speaker``: a first-person head and every "my" rewritten, and so
    the first person that opens a later clause; a sentence that opens otherwise but speaks
    in the first person is quoted as the speaker's ("User: I think ..."). ``version``: as
    that version of the table told it (memory/text/extract.py's ``ExtractedFact.former``,
    ``previous``, ``unjoined`` and ``unreturned``); ``FIRST`` rewrote no later clause."""
    possessive = f"{speaker}'s"
    opening = head(text, speaker, version)
    if opening is not None:
        # Later clauses are read in the words as written ("my wife and I"), then the head.
        rest = (text if version == FIRST
                else _later_clauses(text, opening[1], speaker, version))
        return _MY.sub(lambda _m: possessive, opening[0] + rest[opening[1]:])
    if _OTHER_FIRST_PERSON.search(text):
        # "Last year my wife and I moved to Porto": with no head, a joint subject is the
        # only first person a sentence may still be told of the speaker by.
        joint = (_OTHER_FIRST_PERSON.sub(
            lambda found: speaker if _in_joint_subject(found, version) else found[0], text)
            if version >= LATEST else text)
        if joint == text or _OTHER_FIRST_PERSON.search(joint):
            return f"{speaker}: {text}"
        text = joint
    return _MY.sub(lambda _m: possessive, text)


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


#: A greeting, as an introduction opens ("Hi", "Hello there", "Good morning, everyone").
_GREETING = (r"(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening))"
             r"(?:\s+(?:there|all|everyone|everybody|folks))?")
_GREETING_ALONE = re.compile(rf"^\W*{_GREETING}\W*$", _IGNORECASE)
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


def _apart_from_affiliation(sentence: str) -> list[str]:
    """``[introduction, "I'm from ..."]`` for an introduction followed by where the speaker is
    from ("Hi, I'm Sam from the platform team": "Hi, I'm Sam", "I'm from the platform
    team"), which names the speaker and states that too; ``[sentence]`` otherwise."""
    for match in _AFFILIATION.finditer(sentence):
        if introduced(sentence[:match.start()]) is not None:
            return [sentence[:match.start()], f"I'm {sentence[match.end():]}"]
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
