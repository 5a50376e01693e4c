"""A shared "I am too", told in full: "My wife is vegan. I am too." -> "I am vegan".

A clause that only says the speaker shares what the one before it says ("I am too", "I do
too", "me too", "so do I", "I have as well"), or that someone of theirs does ("I'm vegan
and my wife is too", "... and Tom does too"), states nothing on its own: told in the third
person it would be stored as a fragment ("User is too"). ``with_ellipses_filled`` reads
it with the clause it points back to and says it in full ("My wife likes jazz and I do
too" -> "My wife likes jazz", "I like jazz"; "I'm vegan. My wife is too." -> "my wife is
vegan"). The speaker sharing what is not so ("I don't either", "Neither am I", "Me
neither") is told so too ("My wife doesn't eat meat" -> "I don't eat meat"), as is
someone sharing the speaker's ("I'm not vegan. Neither is my wife."). That clause
must open with a subject and a verb this module knows, the one
shared, and for the speaker's share with someone else (or, for "I do too", with any verb
in -s said of one of the user's or a name whose plain form is sure: "My wife jogs" -> "I
jog": memory/text/doings.py); when it does not ("I'm tired. Me
too", a message that opens with "Me too"), the clause is dropped, since what it shares
nothing here says; one that names its verb ("I am too", not "Me too") may share the
statement that closed the message before. A clause that leaves out only what follows its
adjective ("My son is allergic too" after "I'm allergic to peanuts"), or names only the
thing ("shellfish too", after a statement of being so to something or of liking
something), is told in full from the statement before it, which may close the message
before; a capitalised word alone ("Tom too", "Shellfish too") may name someone sharing it
or the thing, so it is dropped (after a name, only a first name: "Tom too" after "I like
Muse"; memory/text/given_names.py), as is a word alone the statement before it cannot be
told with ("Sam too" after "I work with Tom"; "the database too" after "The API is down" is
told: "The database is down"), and someone of the user's alone ("My wife too": sharing
it, or loved too?), unless the speaker's statement before it is one no person could be
the object of ("I'm vegan", "I live in Lisbon"); a person named after the adjective ("I'm
married to Anna") is not shared, nor is a statement pointing at a person ("My wife loves
me" is no "I love me"). Each may also close the sentence it shares ("The API is down, the
database too"). A sentence that only denies of someone what the one before it says ("Tom
smokes. Ana doesn't.") is told in full when it can be (memory/text/unsaid_denials.py).
Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.agreement import agreeing
from tiermem.memory.text.denied_shares import NEG_ALONE, NEG_CLOSING, neg_filled
from tiermem.memory.text.doings import PERSONAL, does_in_full
from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.shared_words import (
    AFTER,
    APOS,
    CLAUSE_BREAK,
    OPENING,
    SOMEONE,
    TOO,
    said_now,
)
from tiermem.memory.text.unsaid_denials import (
    denial_set_after,
    denies_nothing_said,
    names_a_person,
    names_a_thing,
    told_in_full,
)

__all__ = ["share_closing_dropped", "shares_alone", "with_ellipses_filled"]

_I = re.IGNORECASE

#: Verbs whose sharing can be told in full: the forms of "be" and "have", and these.
_VERBS = ("like", "love", "hate", "prefer", "enjoy", "live", "work", "speak", "use", "own",
          "need", "want", "eat", "drink", "play", "watch", "read", "drive", "cook", "swim",
          "teach", "know", "support")
_SHARED = (rf"(?P<said>i\s+(?:am|was|do|have)|i{APOS}(?:m|ve)|me){TOO}"
           # the verb said again of a place or thing: "I live there too", "I like it too"
           rf"|i\s+(?P<again>{'|'.join(_VERBS)})\s+(?:there|it|them){TOO}"
           r"|so\s+(?P<inverted>am|was|do|have)\s+i"
           # someone of the speaker's, or someone named ("my wife is too", "Tom does too")
           rf"|(?P<other>{SOMEONE})\s+(?P<other_verb>is|are|was|were|does|do|has|have)"
           rf"{TOO}"
           # the same, turned round: "so is my son", "so does Tom"
           rf"|so\s+(?P<so_verb>is|are|was|were|does|do|has|have)\s+(?P<so_other>{SOMEONE}){TOO}?")
#: A sentence that is nothing but such a clause ("I am too.", "And me too!").
_ALONE = re.compile(rf"^\W*(?:(?:and|but)\s+)?{OPENING}(?:{_SHARED}){AFTER}", _I)
#: A sentence that ends with one ("My wife is vegan and I am too"), or a comma alone joins
#: it: "I'm allergic to nuts, my son is too" is no "User's son is" cut from the rest.
_CLOSING = re.compile(
    rf"^(?P<before>.*?\w)\W*?(?:,\s*(?:(?:and|but)\s+)?|\s+(?:and|but)\s+)(?:{_SHARED}){AFTER}",
    _I | re.DOTALL)

_VERB = rf"(?P<stem>{'|'.join(_VERBS)})"
_REST = r"\s+(?P<rest>\S.*?)(?:\s+too)?\W*$"
_STATED = re.compile(
    r"^(?!(?:i|we|you)\b)(?:my\s+)?[\w'’-]+(?:\s+[\w'’-]+){0,2}?\s+"
    rf"(?P<verb>is|are|was|were|has|have|{_VERB}(?:e?s)?){_REST}", _I | re.DOTALL)
#: The same said by the speaker ("I'm vegan"), which someone else may share.
_STATED_OWN = re.compile(
    rf"^(?P<verb>i\s+am|i{APOS}m|i\s+was|i\s+have|i{APOS}ve|i\s+{_VERB}){_REST}",
    _I | re.DOTALL)
#: Which verb each shares: the one stated, by its kind ("be", "was", "have", or a verb).
#: A word that says whose a thing is, which told of the speaker would say another one.
_THEIRS = re.compile(r"\b(?:her|his|their|its)\b", _I)
#: The same, with the speaker's own: told of someone else, "my" would say whose wrongly.
_OWNERS = re.compile(r"\b(?:my|mine|myself|our|ours|ourselves|her|hers|herself|his|himself"
                     r"|their|theirs|themselves|its|itself)\b", _I)
#: A tie to one person that another shares only in kind: "I'm married to Anna, my son is
#: too" says the son is married, not to Anna, as was stored.
_PARTNERED = re.compile(r"^(?P<state>married|engaged|wed)\s+to\s+\S.*$", _I | re.DOTALL)
_SHARES = {"am": ("be",), "was": ("was",), "have": ("have",), "do": ("verb", "have"),
           "me": ("be", "was", "have", "verb"), "is": ("be",), "are": ("be",),
           "were": ("was",), "has": ("have",), "does": ("verb", "have")}


def _kind(verb: str) -> str:
    """"be", "was", "have" or "verb": what ``verb`` (as stated, "is", "I'm", "likes") is."""
    word = verb.casefold().replace("’", "'").split()[-1]
    return {"is": "be", "are": "be", "am": "be", "i'm": "be", "were": "was", "has": "have",
            "i've": "have"}.get(word, word if word in ("was", "have") else "verb")


def _told(subject: str, shared: str, kind: str, stem: str) -> str:
    """What ``subject`` says, sharing with ``shared`` a verb of ``kind`` (``stem``)."""
    if subject == "I":
        verb = {"be": "am", "was": "was", "have": "have"}.get(kind, stem)
    elif kind == "verb":  # "does" takes the verb's -s, "do" none
        ending = "es" if stem.endswith(("ch", "sh", "s", "x")) else "s"
        verb = stem + ending if shared == "does" else stem
    else:
        verb = "has" if shared == "does" and kind == "have" else shared
        verb = "have" if verb == "do" else verb
    return f"{subject[:1].upper()}{subject[1:]} {verb}"


def _points_elsewhere(subject: str, rest: str) -> bool:
    """Whether ``rest``, told of ``subject`` instead, would point at another person: "My
    wife loves me" is no "I love me", nor "I love my job" "My wife loves my job"."""
    return bool((PERSONAL if subject == "I" else _OWNERS).search(rest))


def _in_full(stated: str, subject: str, shared: str) -> str | None:
    """What ``subject`` ("I", or someone else) says sharing with ``shared`` (the verb said:
    "am", "does", or "me" for any) what ``stated`` says, in full; None when ``stated`` opens
    otherwise or its verb is another."""
    clauses = [part for part in CLAUSE_BREAK.split(stated.strip()) if part.strip()]
    patterns = (_STATED,) if subject == "I" else (_STATED_OWN, _STATED)
    for clause in (clauses[-1], stated.strip()) if clauses else ():
        match = next(filter(None, (pattern.match(clause) for pattern in patterns)), None)
        if match is None:
            continue
        kind = "verb" if match["stem"] else _kind(match["verb"])
        if _points_elsewhere(subject, match["rest"]) or (
                (subject == "I" or names_a_person(subject)) and match.re is _STATED
                and names_a_thing(clause[:match.start("verb")])):
            # "Tom's car is red. I am too." is no "I am red": a thing's state is no person's
            return None
        if kind in _SHARES[shared]:
            stem = (match["stem"] or "").casefold()
            rest = _PARTNERED.sub(r"\g<state>", match["rest"])
            return f"{_told(subject, shared, kind, stem)} {rest}"
    if subject == "I" and "verb" in _SHARES[shared]:
        return next(filter(None, map(does_in_full, (clauses[-1:] or [stated]))), None)
    return None


def _filled(stated: str | None, match: re.Match[str]) -> list[str]:
    """The shared clause ``match`` read in full after ``stated``: one sentence, or none."""
    if match["other"] or match["so_other"]:
        subject = match["other"] or match["so_other"]
        shared = (match["other_verb"] or match["so_verb"]).casefold()
    else:
        subject = "I"
        said = (match["said"] or match["inverted"] or "do").casefold().replace("’", "'")
        shared = {"i'm": "am", "i've": "have"}.get(said.split()[-1], said.split()[-1])
    said_in_full = _in_full(stated, subject, shared) if stated is not None else None
    if match["again"] and (not (said_in_full or "").casefold().startswith(
            f"i {match['again'].casefold()} ") or _THEIRS.search(said_in_full or "")):
        return []  # another verb, or "her job" would read as the speaker's own
    if said_in_full is None:
        return []
    # Kept as said: a "now" marks the shared fact as a change, ending what it replaces.
    return [f"{said_in_full}{said_now(match)}"]


#: Someone said to be so too, with the words after the adjective left out: "My son is
#: allergic too" after "I'm allergic to peanuts".
_CUT_SHORT = re.compile(
    rf"^\W*(?:(?:and|but)\s+)?(?P<who>{SOMEONE})\s+(?P<verb>is|are|was|were)\s+"
    rf"(?P<said>[\w'’-]+){TOO}{AFTER}", _I)
#: A thing alone, said to be so too: "Shellfish too" after "I'm allergic to peanuts".
#: Someone ("me", "my son") would share the statement rather than be its object.
_THING_TOO = re.compile(
    r"^\W*(?:(?:and|but|also)\s+)?(?P<thing>(?!(?:me|i|my|it|this|that|he|she|they|we|you"
    rf"|him|her|us|them|so|me)\b)[\w'’-]+(?:\s+[\w'’-]+)?){TOO}{AFTER}", _I)
#: Someone of the user's alone, said to be or do so too: "My wife too." Whether she is
#: allergic too or the user loves her too, nothing says, and read alone it is a fragment
#: ("User's wife too").
_THEIRS_TOO = re.compile(
    rf"^\W*(?:(?:and|but|also)\s+)?(?P<who>my\s+[\w'’-]+(?:\s+(?:and\s+(?:my\s+)?)?[\w'’-]+)?)"
    rf"(?:{TOO}|,?\s+also){AFTER}", _I)
#: A thing named with its article, no name of a person: "the database".
_DETERMINED = re.compile(r"^the\s", _I)
#: A sentence closing with someone of the user's or a thing sharing what it says: "The API
#: is down, the database too", "I live in Lisbon, my wife too".
_SHARE_CLOSING = re.compile(
    rf"^(?P<before>.*?\w)\W*?(?:,\s*(?:and\s+)?|\s+and\s+)(?P<share>(?:my\s+[\w'’-]+\s+and\s+"
    rf"(?:my\s+)?[\w'’-]+|(?:the|my)\s+[\w'’-]+(?:\s+(?!(?:is|are|was|were|does|do|did|has"
    rf"|have)\b)[\w'’-]+)?){TOO}{AFTER})",
    _I | re.DOTALL)
#: A word that may be someone's name: one capital, opening it ("Tom", "Shellfish").
_NAME_ALONE = re.compile(r"(?-i:[A-Z][a-z]+)$")
#: Verbs of liking, whose thing another may stand beside: "I like jazz. Blues too."; not
#: "I live in Lisbon. Porto too.", which may say another home or a move.
_LIKING = frozenset({"like", "love", "hate", "prefer", "enjoy", "eat", "drink", "play",
                     "watch", "read", "speak"})
#: Where the object of an adjective starts: "allergic to", "afraid of".
_OBJECT_AFTER = re.compile(r"^(?P<head>.*\b(?:to|of|with|about|from|on|in|for))\s+\S", _I)


def _stated_of(before: str) -> re.Match[str] | None:
    """What the clause ``before`` ends with states, read as a statement with its verb."""
    clauses = [part for part in CLAUSE_BREAK.split(before.strip()) if part.strip()]
    last = clauses[-1] if clauses else before
    return _STATED_OWN.match(last) or _STATED.match(last)


def _short_filled(before: str | None, sentence: str) -> list[str] | None:
    """``sentence`` told in full after ``before`` when it leaves out what follows an
    adjective ("My son is allergic too") or names only the thing ("Shellfish too"); None
    when it is neither, or ``before`` does not say what it leaves out."""
    stated = _stated_of(before) if before is not None else None
    thing = _THING_TOO.match(sentence)
    if stated is None:
        # "Sam too" with nothing before it to share is no fact: stored, it reads as one
        return [] if thing is not None else None
    rest, head = stated["rest"], _OBJECT_AFTER.match(stated["rest"])
    cut = _CUT_SHORT.match(sentence)
    if cut is not None:
        if (_kind(stated["verb"]) != "be" or head is None
                or not rest.casefold().startswith(cut["said"].casefold() + " ")
                # "My brother is married too" after "I'm married to Anna": to someone
                # named, the adjective is shared and the person is not.
                or rest[len(head["head"]):].strip()[:1].isupper()):
            return None
        return [f"{cut['who']} {cut['verb']} {rest}{said_now(cut)}"]
    if thing is None:
        return None
    if stated.re is _STATED and _kind(stated["verb"]) in ("be", "was") and head is None:
        # "The database too" after "The API is down": only the database can be down too
        return [f"{thing['thing'][:1].upper()}{thing['thing'][1:]} {stated['verb']} {rest}"
                f"{said_now(thing)}"] if _DETERMINED.match(thing["thing"]) else []
    if _kind(stated["verb"]) == "be" and head is not None:
        said_of = f"{head['head']} "  # "Shellfish too" -> "I'm allergic to shellfish"
    elif (stated["stem"] or "").casefold() in _LIKING:  # "Blues too" -> "I like blues"
        said_of = ""
    else:
        # "Sam too" after "I work with Tom": Sam works with Tom, or the user with Sam?
        # Either way it is no fact as said, and stored it would read as one.
        return []
    word, beside_a_name = thing["thing"], not rest[len(said_of):][:1].islower()
    if _NAME_ALONE.match(word) and (said_of or not beside_a_name or is_first_name(word)):
        # "Tom too" after "I'm allergic to peanuts" says Tom is so too far more likely
        # than that the user is so to Tom, and "Shellfish" opening a sentence looks the
        # same: nothing here tells a name from a thing, so neither is stored. After
        # "I'm married to Anna", a name says who else is, not whom the user married, and
        # after "I like Muse", a first name who else likes Muse.
        return []
    said = word[:1].lower() + word[1:] if not beside_a_name else word
    return [f"{_before_verb(stated)} {said_of}{said}{said_now(thing)}"]


#: Verbs whose place ("in Lisbon", "at Acme") no person can stand in: "My wife too" after
#: "I live in Lisbon" can only share it.
_PLACED = re.compile(r"^(?:live|work)$", _I)
_AT_A_PLACE = re.compile(r"^(?:in|at)\s+(?-i:[A-Z])")


def _theirs_filled(before: str | None, sentence: str) -> list[str]:
    """"My wife too" told in full after the speaker's own statement that no person could be
    the object of ("I'm vegan", "I live in Lisbon": "My wife is vegan", "My wife lives in
    Lisbon"); none after one that may say whom the speaker loves or is with ("I love
    jazz", "I'm married to Ana", "I work with Tom"), which it leaves unclear."""
    stated = _stated_of(before) if before is not None else None
    theirs = _THEIRS_TOO.match(sentence)
    if stated is None or theirs is None or stated.re is not _STATED_OWN:
        return []
    kind = "verb" if stated["stem"] else _kind(stated["verb"])
    if kind in ("be", "was") and _OBJECT_AFTER.match(stated["rest"]) is None:
        shared = "is" if kind == "be" else "was"
    elif kind == "verb" and _PLACED.match(stated["stem"]) and _AT_A_PLACE.match(stated["rest"]):
        shared = "does"
    else:
        return []
    told = _in_full(stated.string, theirs["who"], agreeing(shared, theirs["who"]))
    return [f"{told}{said_now(theirs)}"] if told is not None else []


def shares_alone(sentence: str) -> bool:
    """Whether ``sentence`` only names someone or something sharing what was said before
    ("Shellfish too.", "My wife too."), which alone tells no fact, or shares it by its verb
    ("I am too."), which may not share what a thing is ("Tom's car is red"). A bare "Me
    too" may answer the assistant."""
    alone = _ALONE.match(sentence)
    by_verb = alone is not None and (alone["said"] or "").casefold() != "me"
    return by_verb or _THING_TOO.match(sentence) is not None or _THEIRS_TOO.match(
        sentence) is not None


#: What opens a share closing a sentence, past the statement before it: ", and ".
_SHARE_OPENING = re.compile(r"^\W*(?:(?:and|but)\s+)?", _I)


def share_closing_dropped(sentence: str) -> str | None:
    """The share closing ``sentence`` ("so does my wife" of "I love my job, so does my
    wife.", "Luna is too" of "Rex is my dog, Luna is too.") that ``with_ellipses_filled``
    leaves out, as what it shares cannot be told of the sharer; None when none is."""
    closing = _CLOSING.match(sentence)
    if closing is None or closing["again"] or (
            with_ellipses_filled([sentence]) != with_ellipses_filled([closing["before"]])):
        return None
    return _SHARE_OPENING.sub("", sentence[closing.end("before"):]).rstrip(" .!")


def _before_verb(stated: re.Match[str]) -> str:
    """The words of ``stated`` before what it says: its subject and its verb."""
    return stated.string[:stated.start("rest")].rstrip()


def with_ellipses_filled(sentences: list[str], before: str | None = None) -> list[str]:
    """``sentences`` with each clause that only shares what the one before it says told in
    full, or dropped when that cannot be told (module docstring): one closing a sentence
    becomes a sentence of its own after it. ``before`` is the statement said just before
    them, in an earlier message, which a first one saying what it shares in part ("My son
    is allergic too", "Shellfish too") or with its verb ("I am too", "So do I", "My wife
    is too") may point back to; "Me too" opening a message is more likely said to the
    assistant, and is still dropped."""
    filled: list[str] = []
    for sentence in sentences:
        if filled and not filled[-1].rstrip().endswith("?") and denies_nothing_said(sentence):
            # "Tom smokes. Ana doesn't.": that Ana doesn't smoke, dropped, was lost
            in_full = told_in_full(filled[-1], sentence)
            joined = denial_set_after(filled[-1], sentence) if in_full is None else None
            if joined is not None:
                filled[-1] = joined  # "Tom smokes and drinks, Ana doesn't": kept as said
            else:
                filled.append(in_full or sentence)
            continue
        if not filled and before is not None and denies_nothing_said(sentence) and (
                in_full := told_in_full(before, sentence)) is not None:
            filled.append(in_full)  # "Ana doesn't." after "Tom smokes." told last time
            continue
        denied_alone = NEG_ALONE.match(sentence)
        if denied_alone is not None:
            filled += neg_filled(filled[-1] if filled else None, denied_alone)
            continue
        denied_closing = NEG_CLOSING.match(sentence)
        if denied_closing is not None:
            filled += [denied_closing["before"],
                       *neg_filled(denied_closing["before"], denied_closing)]
            continue
        alone = _ALONE.match(sentence)
        if alone is not None:
            # "I am too" names its verb, which must be the one shared, so it may complete
            # the last message's statement; a bare "Me too" may answer the assistant.
            bare = (alone["said"] or "").casefold() == "me"
            told = _filled(filled[-1] if filled else None if bare else before, alone)
            # "I love it too" after "My wife loves her job" says what "it" is only with it.
            filled += told or ([sentence] if alone["again"] else [])
            continue
        if _THEIRS_TOO.match(sentence):
            filled += _theirs_filled(filled[-1] if filled else before, sentence)
            continue
        short = _short_filled(filled[-1] if filled else before, sentence)
        if short is not None:
            filled += short
            continue
        closing = _CLOSING.match(sentence)
        if closing is None:
            share = _SHARE_CLOSING.match(sentence)
            shared = [] if share is None else (_theirs_filled(share["before"], share["share"])
                                               or _short_filled(share["before"], share["share"]))
            filled += [share["before"], *shared] if share is not None and shared else [sentence]
            continue
        # a share before it told in full first: after "Tom is a nurse, so is Ana", "so am
        # I" shares being a nurse, not being Ana
        heads = with_ellipses_filled([closing["before"]])
        told = _filled(heads[-1], closing)
        filled += [*heads, *told] if told or not closing["again"] else [sentence]
    return filled
