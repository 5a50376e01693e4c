"""A denial of someone that leaves what it denies unsaid ("Tom doesn't", "Ana isn't
anymore"), and what it says after the statement it is joined to.

``denies_only(text)``: "Tom doesn't", "Ana isn't anymore": a denial, of someone, of
what is not said, no ellipsis having filled it, so on its own it says nothing ("Tom
smokes and Ana doesn't" is a statement joined to one, not a denial of "Tom smokes and
Ana"). Said as
a sentence of its own, "The DB doesn't either" still says something: it shares the denial
before it (``denies_nothing_said``). Set after
a statement by a comma alone, ``without_denial_after_comma`` cuts it off; after one saying
what someone is or does, ``denial_after_comma_in_full`` tells it in full ("The DB isn't
slow", "Ana doesn't smoke"), as ``denial_joined_in_full`` does one joined by a word alone
("Tom smokes but Ana doesn't"), and ``told_in_full`` one cut off already.
Pure functions over strings, like the rest of memory/text.
"""

from __future__ import annotations

import re

from tiermem.memory.text.bare_denials import DENIES_ALREADY
from tiermem.memory.text.doings import doing_of, unquoted
from tiermem.memory.text.given_names import is_first_name
from tiermem.memory.text.platforms import is_common_word, kind_of_place, same_kind_of_place
from tiermem.memory.text.relations import relation_of

__all__ = ["denial_after_comma_in_full", "denial_joined_in_full", "denial_set_after",
           "denies_a_things", "denies_nothing_said", "denies_only", "names_a_person",
           "names_a_thing", "told_in_full", "without_denial_after_comma"]

#: A word closing a bare denial that contrasts or weighs it, no part of what is denied:
#: "Ana doesn't, though" is "Ana doesn't smoke" after "Tom smokes".
_AFTERTHOUGHT = (r"(?:,?\s+(?:though|however|sadly|unfortunately|luckily|fortunately"
                 r"|thankfully))?")
_CLOSING_AFTERTHOUGHT = re.compile(_AFTERTHOUGHT[:-1] + r"(?=\W*$)", re.IGNORECASE)
#: "Tom doesn't", "User's wife isn't anymore": what is denied left unsaid, of one named in
#: at most four words ("I work at Acme and Tom doesn't" says what Tom does not).
#: "My parents don't" too, but not the speaker's own "I don't", "we don't".
_BARE_DENIAL = re.compile(
    r"^(?:(?!(?:i|we|you|they)\b)[\w'’.-]+(?:\s+[\w'’.-]+){0,3}?\s+(?:don['’]?t|do\s+not)"
    r"|[\w'’.-]+(?:\s+[\w'’.-]+){0,3}?\s+(?:(?:does|did|is|was|are|were|has|have|can|will)n['’]?t"
    r"|won['’]?t|(?:does|did|is|are|has|can|will)\s+not))"
    r"(?:\s+(?:any\s?more|any\s+longer|either|now))?" + _AFTERTHOUGHT + r"\W*$", re.IGNORECASE)


#: A statement and a bare denial joined, not one denial of "Tom smokes and Ana": "but"
#: joins no one, and "Tom and Ana" would take "don't" (a joining word that opens it, "but
#: Ana doesn't", is no part of who).
_CLAUSES_JOINED = re.compile(
    r"\w\s+(?:but\b|and\b.*\s(?:(?:does|is|was|has)n['’]?t|(?:does|is|has)\s+not)\b)",
    re.IGNORECASE)


def denies_only(text: str) -> bool:
    """Whether ``text`` denies, of someone, what it leaves unsaid (module docstring)."""
    return (_BARE_DENIAL.match(text.strip()) is not None
            and _CLAUSES_JOINED.search(text) is None)


#: "Ana doesn't either": it shares a denial said before it.
_EITHER = re.compile(r"\beither" + _AFTERTHOUGHT + r"\W*$", re.IGNORECASE)


def denies_nothing_said(text: str) -> bool:
    """Whether ``text``, a sentence of its own, denies what it leaves unsaid and shares no
    denial said before it: "Tom doesn't" after "I work at Acme" says nothing, where "Redis
    doesn't either" after "The API doesn't respond" says Redis is down too, which cut off
    would be lost."""
    return denies_only(text) and _EITHER.search(text) is None


#: A denial in what comes before a bare one, which the bare one then shares.
_DENIED = re.compile(r"n['’]t\b|\b(?:not|never|no\s+longer|neither|nor)\b", re.IGNORECASE)


def without_denial_after_comma(text: str) -> str:
    """``text`` without a bare denial set after it by a comma alone ("User works at Acme,
    Tom doesn't" is "User works at Acme"), which no joining word marks as a clause of its
    own; ``text`` when it has none, too little before it to state anything ("Well, Tom
    doesn't"), or a denial before it, which it shares ("The API doesn't respond, the DB
    doesn't" says the DB is down too: cut off, that would be lost)."""
    head, comma, tail = text.rpartition(",")
    if (comma and len(head.split()) >= 2 and denies_only(tail)
            and not _DENIED.search(head)):
        return head.rstrip()
    return text


#: "The API is slow": a subject, a form of "be", and what it is (no comma in either).
_BEING_SAID = re.compile(r"^(?P<subject>[^,]+?)\s+(?:is|are|was|were)\s+(?P<what>[^,]+?)\W*$",
                         re.IGNORECASE)
#: The same with "be" joined to a subject of a few words: "Prod's down" (not "has", "Tom's
#: been sick", whose "Ana isn't" is no "Ana isn't been sick").
_BEING_SAID_SHORT = re.compile(r"^(?P<subject>[^,\s]+(?:\s+[^,\s]+){0,2}?)['’](?:s|re)\s+"
                               r"(?!(?:been|got|gotten|had)\b)(?P<what>[^,]+?)\W*$",
                               re.IGNORECASE)
#: A word that may join a bare denial to the statement before it ("but staging isn't"): no
#: part of who.
_JOINING = r"(?:but|though|although|while|whereas|yet|and)"
#: "the DB isn't (anymore)", "Ana doesn't", "my parents don't": who, and "be" or a doing
#: denied.
_BEING_DENIED = re.compile(
    rf"^\s*(?:{_JOINING}\s+)?"
    r"(?P<who>[^,]+?)\s+(?:(?P<denied>(?:is|are|was|were)(?:n['’]?t|\s+not))"
    r"|(?P<doing>do(?:es)?n['’]?t|do(?:es)?\s+not))"
    r"(?P<more>\s+(?:any\s?more|any\s+longer|now))?" + _AFTERTHOUGHT + r"\W*$", re.IGNORECASE)
#: A word saying whose, which told of another would name the wrong owner ("his job").
_THIRD_PERSON_WHOSE = re.compile(r"\b(?:his|him|her|hers|their|them|its)\b", re.IGNORECASE)
#: Another "be" in what is said: "The server that is in Paris is down" cannot tell which
#: one staging is denied.
_ANOTHER_BEING = re.compile(r"\b(?:is|are|was|were)\b", re.IGNORECASE)
#: The user's own in a doing: "Tom doesn't" after "User loves User's dog" may deny that he
#: loves the user's dog or his own.
_USERS = re.compile(r"\bUser\b")
#: Doings joined in one: "Tom smokes and drinks" told of Ana would keep "drinks" as said.
_MORE_DOINGS = re.compile(r"\b(?:and|or|but|nor)\b", re.IGNORECASE)
#: Someone of the user's by a noun for them: "my parents", "User's wife".
_USERS_OWN = re.compile(r"^(?:my|our|User['’]s)\s+(?P<noun>[\w-]+)$", re.IGNORECASE)
#: Who a bare denial names that no statement can be told of: a pronoun, whose "He isn't
#: anymore" takes back what was said of him, or a thing left unnamed ("Tom's isn't", "Mine
#: isn't", "That one doesn't": told in full, "That one doesn't work" names nothing).
_NOT_TOLD_OF = re.compile(r"^(?:he|she|it|they|we|you|i|this|that|these|those|mine|ours"
                          r"|yours|his|hers|theirs)$|['’]s?$|\bones?$", re.IGNORECASE)
#: A pronoun denying alone: "He isn't anymore" takes back what was said before it.
_PRONOUN = re.compile(r"^(?:he|she|it|they|we|you|i|this|that)$", re.IGNORECASE)
#: A word opening a sentence before who denies: "Actually Tom doesn't" may correct.
_OPENER = re.compile(r"^(?:actually|well|honestly|oh|yes|yeah|no|okay|ok|so|now|in\s+fact)\b",
                     re.IGNORECASE)
#: Others of the kind the statement is of: "Prod runs 1.4, the other clusters don't".
_THE_OTHERS = re.compile(r"^(?:the\s+)?(?:other|rest)\b", re.IGNORECASE)
#: How long or besides whom the statement is so, which the denial told in full leaves
#: out: "The API is still slow. Redis isn't." is no "Redis isn't still slow".
_STILL = re.compile(r"^(?:still|also)\s+", re.IGNORECASE)
#: Where or what with a doing is done: "works on web", "fails in Chrome", "works for CSV".
_WHERE_OR_WITH = re.compile(r"\b(?:on|in|at|for|with|from|under|over|via|through|using|"
                            r"without|inside|outside|locally)\b", re.IGNORECASE)


def _may_do_it(who: str) -> bool:
    """Whether ``who`` may do what the statement's subject does: a person (``names_a_person``)
    or others of the subject's kind ("the other clusters"). "Mobile", "Safari" or
    "staging" may be where or what the doing is done with ("Login works on web but mobile
    doesn't"), not one who does it."""
    return names_a_person(who) or _THE_OTHERS.match(who.strip()) is not None


def names_a_person(who: str) -> bool:
    """Whether ``who`` is a person, by a common first name ("Ana") or as one of the
    user's ("my parents")."""
    own, who = _USERS_OWN.match(who.strip()), who.strip()
    return is_first_name(who) or (own is not None and relation_of(own["noun"]) is not None)


#: A thing by a noun, or "it": "The API", "my car", "Tom's car" (a person if the noun is a
#: relation: "my wife", "Tom's wife").
_THING_SUBJECT = re.compile(r"^(?:it|(?:the|this|that|these|those|our|my|your|[\w-]+['’]s)\s+"
                            r"(?P<nouns>(?:[\w-]+\s+)*[\w-]+))$", re.IGNORECASE)
#: People together, whose state may be a person's too: "The team is remote. I am too."
_PEOPLE = frozenset({"team", "teams", "company", "family", "department", "class", "crew",
                     "staff", "household", "band", "club", "group"})


def names_a_thing(subject: str) -> bool:
    """Whether the ``subject`` of a statement is a thing, by "it" or a noun for no person:
    neither a relation nor people together, nor named ("my dog Rex")."""
    noun = _THING_SUBJECT.match(subject.strip())
    if noun is None or noun["nouns"] is None:
        return noun is not None
    words = noun["nouns"].split()
    return not is_first_name(words[-1]) and not any(
        relation_of(word) is not None or word.casefold() in _PEOPLE for word in words)


def denies_a_things(stated: str, denial: str) -> bool:
    """Whether the bare ``denial`` is of a person and ``stated`` says what a thing is or
    does ("Tom's car is red" then "Ana isn't", "It works" then "Ana doesn't"): a thing's
    state is no person's, so ``told_in_full`` does not tell it."""
    denied = _BEING_DENIED.match(denial)
    if denied is None or not names_a_person(denied["who"]):
        return False
    if denied["doing"]:
        return doing_of(stated) is None and doing_of(stated, of_a_thing=True) is not None
    being = _BEING_SAID.match(stated.strip()) or _BEING_SAID_SHORT.match(stated.strip())
    return being is not None and names_a_thing(being["subject"])


#: A word saying which, lower case within a sentence: "the Mac".
_DETERMINER_WORD = re.compile(r"^(?:the|my|our|your|this|that)$", re.IGNORECASE)
#: A doing said at one place or with one thing alone: "work on iOS", "run on Linux".
_AT_ONE_PLACE = re.compile(r"^(?P<verb>[\w-]+\s+(?:on|in|at|for|with|under|via|using))\s+"
                           r"(?P<place>[^,]+)$", re.IGNORECASE)


def _subject_of(stated: str, doing: tuple[str, str]) -> str:
    """Who or what does ``doing`` in ``stated``: "Search" of "Search works on iOS"."""
    return " ".join(stated.split()[:-len(f"{doing[0]}{doing[1]}".split())])


#: A thing named by one word of its own, as a feature or a job is ("Search", "Payroll"),
#: and what such a thing does: "Search works on iOS", "Payroll runs on Fridays".
_ONE_WORD_NAME = re.compile(r"^[A-Z][\w-]*$")
_THINGS_DOING = re.compile(r"^(?:work|run)\b")


def _a_things_doing(stated: str, doing: tuple[str, str]) -> bool:
    """Whether ``stated`` is what a thing named by one word does, no person's doing: told
    of a person, "Search works on iOS" is no "Ana doesn't work on iOS"."""
    subject = _subject_of(stated, doing)
    return (_ONE_WORD_NAME.match(subject) is not None and not is_first_name(subject)
            and not _USERS.match(subject) and _THINGS_DOING.match(doing[1]) is not None)


def _done_elsewhere(stated: str, doing: tuple[str, str], who: str) -> str | None:
    """What "Android doesn't" says after ``stated``, a thing's ``doing`` said at one place
    ("Search works on iOS"): that it is not done at that one, "Search doesn't work on
    Android", written as the place said ("Login works on web. Mobile doesn't." is "...
    on mobile"). None for any other doing, of one not named ("It works in Chrome"), or
    when ``who`` may be another that does it, as no place of the kind said is ("Python runs
    on Linux but Ruby doesn't", "Chrome works on Windows but Firefox doesn't") nor one of
    the subject's kind."""
    at_one = _AT_ONE_PLACE.match(doing[1])
    subject = _subject_of(stated, doing)
    if (at_one is None or _WHERE_OR_WITH.search(at_one["place"]) or not subject
            or _NOT_TOLD_OF.search(subject) or names_a_person(subject) or _USERS.search(subject)
            or not same_kind_of_place(at_one["place"], who)
            or kind_of_place(subject) == kind_of_place(who)):
        return None
    first, *rest = who.split(None, 1)
    if _DETERMINER_WORD.match(first) or (at_one["place"].islower() and is_common_word(first)):
        first = first.casefold()  # told from its first letter up, as a sentence
    return f"{subject} doesn't {at_one['verb']} {' '.join([first, *rest])}"


def told_in_full(stated: str, denial: str) -> str | None:
    """What the bare ``denial`` says after ``stated``, told in full: "The DB isn't slow"
    for "the DB isn't" after "The API is slow", "Ana doesn't smoke" for "Ana doesn't"
    after "Tom smokes" (memory/text/doings.py). None when ``stated`` says what someone is
    or does in words told of another would point elsewhere, or neither, when ``denial`` is
    of a pronoun ("He isn't anymore" takes back "Tom is my boss"; "It isn't anymore", told
    "It isn't slow anymore", takes back "The API is slow") or of one's thing unnamed
    ("Tom's isn't"), and when ``denial`` is of no person and ``stated`` says where or with
    what it is done ("Login works on web but mobile doesn't" may contrast places), but at
    one place alone, which it is not done at instead, if of the kind ("Login doesn't work
    on mobile")."""
    denied = _BEING_DENIED.match(denial)
    if denied is None:
        return None
    if _NOT_TOLD_OF.search(denied["who"].strip()) and not (
            denied["who"].strip().casefold() == "it" and denied["more"]):
        return None  # "It isn't anymore" takes back "The API is slow" when told in full
    who = denied["who"][:1].upper() + denied["who"][1:]
    more = denied["more"] or ""
    if denied["doing"]:
        # a thing's doing ("The API works") is told of "it" or another thing, no person;
        # the speaker's quoted ("User: I drink coffee"), of one named
        stated = unquoted(stated) if is_first_name(who) else stated
        doing = doing_of(stated, of_a_thing=not _may_do_it(who))
        if (doing is None or _USERS.search(doing[1]) or _MORE_DOINGS.search(doing[1])
                or (names_a_person(who) and _a_things_doing(stated, doing))):
            return None
        if _WHERE_OR_WITH.search(doing[1]) and not _may_do_it(who):
            # "Login works on web but mobile doesn't" is no "Mobile doesn't work on web":
            # another thing is told only a doing not said where or with what ("Acme pays
            # monthly. Globex doesn't." is "Globex doesn't pay monthly"), but mobile may
            # be another place it is done: "Login doesn't work on mobile"
            in_full = _done_elsewhere(stated, doing, denied["who"].strip())
            return None if in_full is None else in_full + more
        does = "doesn't" if denied["doing"][:4].casefold() == "does" else "don't"
        # "The old API still works. The DB doesn't." is no "doesn't still work"
        return f"{who} {does} {_STILL.sub('', doing[0])}{doing[1]}{more}"
    being = _BEING_SAID.match(stated.strip()) or _BEING_SAID_SHORT.match(stated.strip())
    if (being is None or _THIRD_PERSON_WHOSE.search(being["what"])
            or _ANOTHER_BEING.search(being["what"]) or DENIES_ALREADY.match(being["what"])):
        # "Tom is never late. Ana isn't." is no "Ana isn't never late": kept as said
        return None
    if names_a_person(who) and names_a_thing(being["subject"]):
        # "Tom's car is red. Ana isn't." is no "Ana isn't red": a thing's state is no
        # person's
        return None
    return f"{who} {denied['denied']} {_STILL.sub('', being['what'])}{more}"


#: A first word of a denial that is lower case once set after a comma: "..., that one
#: doesn't", "..., mine isn't", not "..., That one doesn't".
_SAID_LOWER = frozenset({"my", "our", "the", "his", "her", "their", "that", "this", "these",
                         "those", "mine", "ours", "yours", "hers", "theirs", "one", "ones"})


def denial_set_after(stated: str, denial: str) -> str | None:
    """The bare ``denial`` a sentence of its own after ``stated`` set after it by a comma, as
    one sentence said so would be ("I live in Lisbon. My parents don't." is "I live in
    Lisbon, my parents don't"), which is told in full or kept as said: alone it says nothing
    and was lost. None for a pronoun's ("He isn't anymore", "Actually I don't anymore" take
    back what ``stated`` said) and one opened by a word such as "actually"."""
    denied = _BEING_DENIED.match(denial)
    if (denied is None or _PRONOUN.match(denied["who"].split()[-1])
            or _OPENER.match(denied["who"].strip())):
        return None
    first, _, rest = _CLOSING_AFTERTHOUGHT.sub("", denial.strip()).partition(" ")
    if first.casefold() in _SAID_LOWER:
        first = first.casefold()
    return f"{stated.rstrip().rstrip('.!;:')}, {first} {rest}"


def denial_after_comma_in_full(text: str) -> str | None:
    """What a bare denial that ``without_denial_after_comma`` cuts off says, told in full
    (``told_in_full``): "The API is slow, the DB isn't" -> "The DB isn't slow". Cut off
    alone, that the DB is fine would be lost. None for any other sentence."""
    head, comma, tail = text.rpartition(",")
    if not comma or without_denial_after_comma(text) == text:
        return None
    return told_in_full(head, tail)


#: A bare denial joined by a word alone to the statement before it: "Tom smokes but Ana
#: doesn't".
_JOINED = re.compile(rf"^(?P<head>.*\w)\s+(?P<tail>{_JOINING}\s+\S.*)$", re.IGNORECASE)


def denial_joined_in_full(text: str) -> tuple[str, str] | None:
    """The statement of ``text`` and the bare denial joined to it by a word alone, told in
    full ("Tom smokes but Ana doesn't": "Tom smokes", "Ana doesn't smoke"); None when it
    joins none, or one ``told_in_full`` cannot tell."""
    joined = _JOINED.match(text.strip())
    if (joined is None or len(joined["head"].split()) < 2 or _DENIED.search(joined["head"])
            or not _BARE_DENIAL.match(joined["tail"].split(None, 1)[1])):
        return None
    in_full = told_in_full(joined["head"], joined["tail"])
    return None if in_full is None else (joined["head"], in_full)
