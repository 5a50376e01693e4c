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
is Dana and I live in Lisbon", or with "also": "..., I also work there" -> "User also
works there", ``LATEST`` only) is rewritten the same way, as is a verb of the table that
shares the head's subject ("I live in Lisbon and work there" -> "User lives in Lisbon and
works there", ``LATEST`` only, and a verb joined straight to one told so: "... and works
and studies there"; not "I want to live ... and work", whose "work" is the
infinitive's), except inside a
quotation, after "says," and the like, and in "my wife and I", where "I" alone
becomes "{speaker}" ("User's wife and User moved to Porto"; ``BEFORE_RETURN`` on), as it
does in a later clause that says the speaker came, went or got back, or returned ("User
moved to Berlin but User came back"), and as "me" does in "my wife and me", also in a
sentence that opens otherwise ("Last year User's wife and User moved to Porto"), and as
the "I" of one that opens with a name does ("Tom and User work at Globex"; these
``LATEST`` only, which also reads a verb of the head table said of someone as the end of
such a subject: "my wife works at Acme and I work at Globex" is two clauses). After such
a rewrite, or when "my" is the only first-person word ("Alice is my
manager"), every "my" becomes "{speaker}'s"; other first-person words stay, in a later
clause ("but I call her Annie"), a quotation or someone's words ("My son says, I am
hungry"). One left in the head's own clause ("My wife thinks I'm vegan", "My sister loves
me") would be whoever reads the fact: that sentence is quoted (``LATEST`` only), a key
unchanged by it. Any other sentence with a first-person word is stored as
"{speaker}: <sentence>". Everything else ("We moved to Berlin", "The
production region is eu-west-1") is kept as written.

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

__all__ = ["BEFORE_JOINT", "BEFORE_NEGATION", "BEFORE_RETURN", "FIRST", "LATEST",
           "NEWER_HEAD_VERBS", "head", "third_person"]

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
#: What ends a head's own clause: a first person after it is in a clause of its own ("...
#: but I call her Annie"), a quotation or someone's words ("My son says, I am hungry").
_PAST_THE_HEAD_CLAUSE = re.compile(
    r"[,;:\"“]|\s[-–—]|(?<=\w)[–—]"
    r"|\s(?:and|but|so|or|yet|while|because|though|although|since|then|when|if)\s",
    _IGNORECASE)
#: When a sentence opens by saying ("Last year my wife and I moved to Porto").
_TIME_OPENING = (
    r"(?:(?:last|this|next)\s+(?:year|month|week|weekend|summer|winter|spring|autumn|fall"
    r"|night)|yesterday|today|tonight|recently|lately|in\s+\d{4}"
    r"|(?:a|an|one|two|three|few|\d+)\s+(?:\w+\s+)?ago)")
#: "my wife and I have ...": the first person shares its verb with a noun of a "my" that
#: opens the clause ("I live with my wife and I love her" is two clauses).
_JOINT_OPENING = (rf"(?:^(?:{_TIME_OPENING},?\s+)?|[,;]\s*"
                  r"|\b(?:and|but|so|or|when|if|while|because|since|after|before|that)\s+)")
_JOINT_SUBJECT = re.compile(
    rf"{_JOINT_OPENING}my(?:\s+(?!(?:is|are|was|were|has|have|had|does|did)\b)[\w'’-]+){{1,4}}"
    r"\s+(?:and|or)\s+$", _IGNORECASE)
#: As ``LATEST`` reads it: a verb of the head table's, said of someone, ends the subject
#: ("my wife likes jazz and I like it too" is two clauses, not "my wife ... and I").
_JOINT_SUBJECT_LATEST = re.compile(
    rf"{_JOINT_OPENING}my(?:\s+(?!(?:is|are|was|were|has|have|had|does|did|likes|loves|hates"
    r"|prefers|lives|works|needs|wants|uses|owns|speaks|moved|relocated)\b)[\w'’-]+){1,4}"
    r"\s+(?:and|or)\s+$", _IGNORECASE)
#: "Tom and I work at Globex": a sentence that opens with the speaker beside someone named.
_NAMED_JOINT_SUBJECT = re.compile(
    rf"^(?:{_TIME_OPENING},?\s+)?(?-i:[A-Z])[\w'’-]*(?:\s+(?-i:[A-Z])[\w'’-]*)?\s+and\s+$",
    _IGNORECASE)
#: "My son says, I am hungry": someone else's words.
_REPORTED = re.compile(
    r"\b(?:says?|said|tells?|told|asks?|asked|thinks?|thought|writes?|wrote|repl(?:y|ies|ied)"
    r"|yell(?:s|ed)?|shout(?:s|ed)?)\s*[,:]\s*$", _IGNORECASE)


def _joint_subject(version: int) -> re.Pattern[str]:
    return _JOINT_SUBJECT_LATEST if version >= LATEST else _JOINT_SUBJECT


def _opens_clause(before: str, version: int) -> bool:
    """Whether a first person right after ``before`` opens a clause of the speaker's own."""
    if _joint_subject(version).search(before) or _REPORTED.search(before):
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
    word, before = found[0].casefold(), found.string[:found.start()]
    if version >= LATEST and word in ("i", "me") and _NAMED_JOINT_SUBJECT.match(before):
        return True
    return (((word == "i" and version >= BEFORE_RETURN) or (word == "me" and version >= LATEST))
            and _joint_subject(version).search(before) is not None)


#: "..., I also work there": a later clause's "I" with "also" before a head verb.
_I_ALSO = re.compile(r"i\s+also\s+(?=\w)", _IGNORECASE)


def _head_after_also(rest: str, speaker: str, version: int) -> tuple[str, int] | None:
    """The head "I also" opens (``rest``: what follows it) as told of ``speaker``: "work
    there" -> "User also works", and how many characters of ``rest`` it replaces."""
    opening = head(f"I {rest}", speaker, version)
    if opening is None or opening[0].startswith(f"{speaker}'s"):
        return None  # "I also my ..." opens no head
    return f"{speaker} also{opening[0][len(speaker):]}", opening[1] - 2


def _later_clauses(text: str, start: int, speaker: str, version: int) -> str:
    """``text`` with the first person that opens a clause after ``start`` rewritten as a
    head is ("..., and I live in Lisbon" -> "..., and User lives in Lisbon"). A first
    person no head rule covers stays ("but I call her Annie", "and she loves me")."""
    while (found := _OTHER_FIRST_PERSON.search(text, start)) is not None:
        before = text[:found.start()]
        if _in_joint_subject(found, version):
            # "my wife and I moved": the speaker is half of the subject, so it is told of
            # them too ("User's wife and User moved"); read as the speaker's own words, it
            # would say "I" of whoever reads the fact.
            text = before + speaker + text[found.end():]
            start = found.start() + len(speaker)
            continue
        opens = _opens_clause(before, version)
        opening = head(text[found.start():], speaker, version) if opens else None
        also = _I_ALSO.match(text, found.start()) if version >= LATEST else None
        if opening is None and opens and also is not None:
            opening = _head_after_also(text[also.end():], speaker, version)
            if opening is not None:
                opening = opening[0], opening[1] + also.end() - found.start()
        if (opening is None and version >= LATEST and opens
                and _RETURN.match(text[found.start():])):
            opening = speaker, 1
        if opening is None:
            start = found.end()
            continue
        replacement, replaced = opening
        text = before + replacement + text[found.start() + replaced:]
        start = found.start() + len(replacement)
    return text


#: "... and work there" after a head of the speaker's: a verb of the head table that shares
#: the head's subject, so it is told of the speaker too ("User lives in Lisbon and works
#: there"). ``between`` is what lies from the head to it: a first conjunction with no
#: comma, clause word or infinitive before it ("I want to live and work in Lisbon": the
#: "work" is the infinitive's).
_SHARED_SUBJECT_VERB = re.compile(
    r"(?P<between>[^,;:\"“]*?),?\s(?:and|but)\s+(?:also\s+|still\s+|now\s+)?(?P<verb>"
    + "|".join(_HEAD_VERBS + NEWER_HEAD_VERBS) + r")\b", _IGNORECASE)
#: What in ``between`` says the verb is not of the head's subject: a clause word, or an
#: infinitive ("to live", not "to Lisbon" nor "to the city").
_NOT_THE_HEADS_SUBJECT = re.compile(
    r"\b(?:and|but|or|who|whom|that|which|where|when|how|if|because|while|since|though"
    r"|although|so|to\s+(?!(?:the|a|an|my|his|her|their|our|its|this|that)\b)(?-i:[a-z])\w*)\b",
    _IGNORECASE)


def _shared_subject_verb(told: str, start: int) -> str:
    """``told`` with a verb that shares the subject of the head ending at ``start`` told
    in the third person: "User lives in Lisbon and work there" -> "... and works there"."""
    shared = _SHARED_SUBJECT_VERB.match(told, start)
    if shared is None or _NOT_THE_HEADS_SUBJECT.search(shared["between"]):
        return _joined_verb(told, start)
    told = f"{told[:shared.start('verb')]}{shared['verb']}s{told[shared.end('verb'):]}"
    return _joined_verb(told, shared.end("verb") + 1)


#: A verb joined straight to one told of the speaker ("works and study there"), which
#: shares its subject: only one a place or "there" follows, as the "coffee" of "likes tea
#: and coffee" is a second thing, not a verb.
_JOINED_VERB = re.compile(
    r"\s+and\s+(?P<verb>(?-i:[a-z]+))(?=\s+(?:there|here|in|at|to|from|for|with|on|near)\b)",
    _IGNORECASE)
_IRREGULAR = {"have": "has", "do": "does", "go": "goes", "be": "is"}


def _joined_verb(told: str, end: int) -> str:
    """``told`` with a verb joined to the one ending at ``end`` in the third person too:
    "User lives in Lisbon and works and study there" -> "... and studies there"."""
    joined = _JOINED_VERB.match(told, end)
    if joined is None or joined["verb"].endswith("s"):
        return told  # "works and lives there" says it already
    verb = joined["verb"]
    if verb in _IRREGULAR:
        told_of_one = _IRREGULAR[verb]
    elif re.search(r"[^aeiou]y$", verb):
        told_of_one = verb[:-1] + "ies"
    else:
        told_of_one = verb + ("es" if verb.endswith(("sh", "ch", "x", "z", "o")) else "s")
    return told[:joined.start("verb")] + told_of_one + told[joined.end("verb"):]


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
        told = _MY.sub(lambda _m: possessive, opening[0] + rest[opening[1]:])
        if version >= LATEST and not opening[0].startswith(possessive) and not (
                _HEAD_DONT.match(text)):
            # "I don't live in Lisbon and work there": "work" is the negation's
            told = _shared_subject_verb(told, len(opening[0]))
        if version >= LATEST and any(
                not _PAST_THE_HEAD_CLAUSE.search(told, 0, found.start())
                for found in _OTHER_FIRST_PERSON.finditer(told)):
            # "My wife thinks I'm vegan": an "I" left in the fact would be whoever reads
            # it; quoted whole, it is the speaker's, under the key it had unquoted.
            return f"{speaker}: {text}"
        return told
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
