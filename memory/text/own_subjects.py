"""Whose a part of a compound fact is when it opens with no subject of its own.

A part that opens with a pronoun ("... and she is allergic to cats") is told of the
subject of the part before it (of a name, whoever bears it: "My boss's name is Dana and
she ..." is about "User's boss"); one that opens with a verb of the statement list
("Customer 9034 uses SSO and is on the Team plan") or of liking ("User likes jazz and hate
country music") shares that subject too, unless cut off it would say something else.
memory/text/clauses.py cuts a fact into such parts. Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.given_names import pronoun_of_name
from tiermem.memory.text.relations import pronoun_of_relation, relation_of
from tiermem.memory.text.updates import SUBJECT_VERB

__all__ = ["POINTS_BACK", "SHARED_STATEMENT", "SHARED_SUBJECT", "STATEMENT", "THIS_TIME",
           "own_subject"]

_I = re.IGNORECASE
_APOS = "['’]"

#: A part that states something of its own: a subject, then a verb of being or having, or
#: one the extractor writes ("User lives in ...").
STATEMENT = re.compile(
    r"^(?P<subject>[\w'’ .-]{1,40}?)\s+(?P<verb>is|are|was|were|has|have|had|likes|loves|hates"
    rf"|prefers|lives|works|needs|wants|uses|owns|moved|relocated|doesn{_APOS}?t|does\s+not)\b"
    # the speaker's own, as versions that did not rewrite it kept it in a compound fact
    rf"|^i\s+(?:don{_APOS}?t|do\s+not)\b"
    # a plural pronoun, whose verb the extractor leaves as said ("We use Datadog", "they
    # work at Acme", "we're on the Team plan"); a later part may share it as its subject
    rf"|^(?P<plural>we|they)(?:\s+(?:live|work|use|need|want|own|like|love|hate|prefer|run"
    rf"|don{_APOS}?t|do\s+not)\b|{_APOS}re\b)", _I)

#: A part about someone named before it ("... and she is allergic to cats"): cut off as it
#: is, it would not say who, so the pronoun gives way to that subject.
_REFERS_BACK = re.compile(r"^(?P<pronoun>he|she|they|it|his|her|their|its)\s+", _I)
_POSSESSIVE = re.compile(r"['’]s?$")
_POSSESSIVE_PRONOUNS = frozenset({"his", "her", "their", "its"})
_SEXED = frozenset({"he", "she", "his", "her"})
#: A subject named by the part before ("User's boss is Tom"), whose first name may say
#: whether a pronoun after is them.
_NAMED_AS = re.compile(r"\s(?:is|was)\s+(?P<name>[A-Z][a-z]+)\W*$")
#: A subject said to be one of the user's kin ("Alex is User's sister"), whose relation
#: says whether a pronoun after is them where the name may be anyone's ("Alex", "Sam").
_KIN_AS = re.compile(rf"\s(?:is|was)\s+User{_APOS}s\s+(?P<kin>[a-z]+)\W*$")
#: A subject that is a name ("User's boss's name", "His name"): a part after it is about
#: whoever bears the name, never the name itself ("... and she works remotely").
_NAME_OF = re.compile(rf"^(?:(?P<pronoun>his|her|their|its)|(?P<bearer>.+?){_APOS}s)\s+name$",
                      _I)
#: A part that shares the subject of the one before it ("User likes jazz and hate country
#: music", as "I like jazz and hate country music" is told): a verb of liking, unconjugated.
SHARED_SUBJECT = re.compile(r"^(?P<verb>like|love|hate|prefer|enjoy|dislike)\s+(?=\w)", _I)
_PLURAL_SUBJECTS = frozenset({"i", "we", "they", "you"})
#: A part that shares the subject of the one before it and states something of its own
#: ("Customer 9034 uses SSO and is on the Team plan"): a verb of being, having or doing,
#: as told of the subject ("is", "uses") or, as the extractor leaves a later clause of the
#: speaker's ("User uses SSO and am on the Team plan"), as the speaker said it ("am").
SHARED_STATEMENT = re.compile(
    r"^(?P<verb>is|are|was|were|has|had|likes|loves|hates|prefers|lives|works|needs"
    rf"|wants|uses|owns|moved|relocated|doesn{_APOS}?t|does\s+not"
    rf"|(?P<said>am|have|live|work|need|want|use|own|don{_APOS}?t|do\s+not))\s+(?=\w)", _I)
#: The verb as told of one subject, for one the speaker said ("am on call": "is on call").
_TOLD_OF_ONE = {"am": "is", "have": "has", "don't": "doesn't", "dont": "doesn't",
                "don’t": "doesn’t", "do not": "does not"}
#: The verbs that say the subject before them is several ("The servers are in Frankfurt");
#: "had", "moved" and "relocated" say neither that nor that it is one.
_SEVERAL = frozenset({"are", "were", "have"})
_EITHER = frozenset({"had", "moved", "relocated"})
#: The verbs a part may share "we" or "they" with as said ("... and are on the Team plan").
_PLURAL_VERBS = frozenset({"are", "were", "had"})
#: A part that only points back to the one before it ("... and has been for years", "...
#: and is too"): with a subject of its own it would still say nothing.
_ELLIPTICAL = re.compile(
    r"^\w+(?:\s+(?:always|still|never|ever|not))?\s+(?:been|done|so|too|not)"
    r"(?:\s+(?:for|since|ever|all|too|so|either|now|today)\b|\W*$)", _I)
#: A word ending a subject read from the part before that qualifies its verb instead ("User
#: never uses SSO": "never is on the Team plan" would say something else).
_ADVERB = re.compile(r"(?:^|\s)(?:\w+ly|also|still|never|not|no|always|often|sometimes|just"
                     r"|even|only|already|again|once|ever|too|longer)$", _I)
#: Subjects that name nothing a statement could be about on its own ("There is ... and").
_NO_SUBJECT = frozenset({"there", "here", "it", "this", "that"})
#: A word of a part that points back into the one before it ("... and prefer it green").
POINTS_BACK = re.compile(r"\b(?:it|its|them|they|that|this|those|these|one|ones)\b", _I)
#: A time a part is said of, which points back at nothing ("am on call this week").
THIS_TIME = re.compile(r"\bthis\s+(?:week|weekend|month|year|morning|afternoon|evening"
                        r"|quarter|sprint|season|semester|term)\b", _I)
#: A relative clause, which a verb after "and" may continue ("people who like jazz and ...").
_RELATIVE = re.compile(r"\b(?:who|whom|that|which)\b", _I)


def _bearer(subject: str) -> str | None:
    """Who a part after one about ``subject`` is told of: ``subject`` itself, or whoever
    bears the name ``subject`` is ("User's boss" for "User's boss's name"); None when the
    name's is a pronoun ("His name"), whose only the sentences before say."""
    name = _NAME_OF.match(subject.strip())
    if name is None:
        return subject
    return name["bearer"]


def _shared_statement(piece: str, stated: re.Match[str], before: str) -> str | None:
    """``piece``, which opens with a verb of the statement list (``stated``), told of the
    subject of the part ``before`` it ("is on the Team plan" after "Customer 9034 uses SSO":
    "Customer 9034 is on the Team plan"); None when that subject is unclear."""
    # Its subject is the one a verb of that list follows ("The servers are ..."), not one a
    # plural after it might be read as the verb of ("The" + "servers").
    statement = STATEMENT.match(before.strip())
    if statement is None or (statement["subject"] or statement["plural"]) is None:
        return None
    if statement["subject"] is None:  # "We use Datadog and are on the Team plan"
        if stated["verb"].casefold() not in _PLURAL_VERBS:
            return None  # "We use Datadog and is great": Datadog is, not "we"
        owner, number = statement["plural"], "are"
    else:
        owner, number = _bearer(statement["subject"]), statement["verb"].casefold()
    if owner is None:
        return None  # "His name is Tom and is a nurse": whose is said before, not here
    if (POINTS_BACK.search(THIS_TIME.sub("", piece)) or _RELATIVE.search(before)
            or _ELLIPTICAL.match(piece)
            or _ADVERB.search(owner) or owner.casefold() in _NO_SUBJECT):
        # "and is proud of it", "people who use SSO and are on Team", "and has been for
        # years", "never uses SSO and is ...": cut off, it would say something else.
        return None
    if stated["said"] is None:
        return f"{owner} {piece}"
    # As the speaker said it ("User uses SSO and am on the Team plan"): told of the subject
    # as the verb before it is, when that says whether it is one or several.
    verb = stated["verb"]
    if number in _EITHER or owner.casefold() in _PLURAL_SUBJECTS:
        return None
    if number not in _SEVERAL:
        verb = _TOLD_OF_ONE.get(re.sub(r"\s+", " ", verb.casefold()), f"{verb}s")
    elif verb.casefold() == "am":
        return None
    return f"{owner} {verb} {piece[stated.end():]}"


def _never_the_pronoun(owner: str, pronoun: str) -> bool:
    """Whether ``owner`` ("Tom", "User's brother", "Tom's wife") is, by the last relation
    it says or else by a common first name after it, never ``pronoun`` ("she", "her"); nor
    is one of a sex ever an "it", nor the speaker, who says "I", ever a "she" or "it" ("User
    lives in Rome and she is a nurse"), nor two joined by "and", nor one's thing that names
    no one ("User's car"), ever a "he" or "she"."""
    words = [_POSSESSIVE.sub("", word).casefold() for word in owner.split()]
    if words == ["user"]:
        return True
    said = {"his": "he", "her": "she", "its": "it"}.get(pronoun, pronoun)
    kin = [at for at, word in enumerate(words) if relation_of(word) is not None]
    owns_a_thing = (len(words) > 1 and _POSSESSIVE.search(owner.split()[-2]) is not None
                    and kin[-1:] != [len(words) - 1])
    if said in ("he", "she") and ("and" in words or owns_a_thing):
        return True  # "Ana and Tom are ...", "User's car is ...": neither is a "she"
    sex = pronoun_of_relation(relation_of(words[kin[-1]])) if kin else None
    named = words[kin[-1] + 1:] if kin else words[:1]  # "User's friend Ana", "Tom"
    if sex is None and named:
        sex = pronoun_of_name(named[0])
    if said == "it":
        return sex is not None
    return said in ("he", "she") and sex not in (None, said)


def own_subject(piece: str, before: str) -> str | None:
    """``piece`` with a leading pronoun replaced by the subject of the part ``before`` it
    ("she works at Google" after "User's sister lives in Berlin": "User's sister works at
    Google"), or that subject given to a verb of liking that has none ("hate country music"
    after "User likes jazz": "User hates country music") or to one that states something
    (``_shared_statement``); None when that subject is unclear."""
    stated = SHARED_STATEMENT.match(piece)
    if stated is not None:
        return _shared_statement(piece, stated, before)
    back = _REFERS_BACK.match(piece)
    shared = SHARED_SUBJECT.match(piece)
    if back is None and shared is None:
        return piece
    subject = SUBJECT_VERB.match(before.strip())
    if subject is None:
        return None
    owner = _bearer(subject["subject"])
    if owner is None:
        # "His name is Tom and he works in Berlin": the pronoun names whom as well as the
        # name's does, and "His name works in Berlin" would say nothing.
        return piece if back is not None else None
    if back is not None:
        pronoun = back["pronoun"].casefold()
        named, kin = _NAMED_AS.search(before), _KIN_AS.search(before)
        if _never_the_pronoun(owner, pronoun) or (pronoun in _SEXED and (
                (named is not None and _never_the_pronoun(named["name"], pronoun))
                or (kin is not None and relation_of(kin["kin"]) is not None
                    and _never_the_pronoun(f"User's {kin['kin']}", pronoun)))):
            # "Tom is User's brother and she ...", "User's boss is Tom and she ...",
            # "Alex is User's sister and he ...": he is not Alex
            return None
        joined = f"{owner}'s " if pronoun in _POSSESSIVE_PRONOUNS else f"{owner} "
        return joined + piece[back.end():]
    if shared is None or POINTS_BACK.search(piece) or _RELATIVE.search(before):
        # "prefer it green", "hate that it keeps me up": cut off, "it" would name nothing;
        # "people who like jazz and hate noise": whose the verb is is unclear.
        return None
    verb = shared["verb"].casefold() + ("" if owner.casefold() in _PLURAL_SUBJECTS else "s")
    return f"{owner} {verb} {piece[shared.end():]}"
