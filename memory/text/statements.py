"""One sentence read as a change: a retraction, an update or correction, or a plain statement.

Rule-based, like memory/text/extract.py; everything here is a pure function over strings.
What such a statement then changes among the facts held is memory/text/updates.py's.

``read_statement(sentence)`` sorts one sentence into

- a *retraction*: "I no longer work at Acme", "I'm not allergic to peanuts
  anymore", "..., forget that", an opening "forget (or delete, erase) my X" (not "don't
  (let me) forget that ...", which asks to keep what follows; a bare "Forget that." names
  nothing, and ``forgets_the_last`` says it points back at what was said last, and a bare
  "Never forget that." asks for nothing:
  ``keeps_the_last``), "I quit my job at Acme", "I stopped eating meat". It states
  no new fact; ``denied`` holds the concepts (memory/text/wording.py) of what
  it says is no longer true, and ``about`` whose they are ("I ...": the user's, "My
  sister ...": hers; memory/text/owners.py). When no fact holds them, ``as_news`` reads it as
  a plain statement: it is then news;
- an *update* or *correction*: a statement with a change cue. Leading
  "actually", "sorry", "no,", "I meant", "correction", "now", "these days"; "actually" and
  "now" anywhere, "from now on" whole, with the commas around either (not "right now", "for
  now", "just now", "now that"); "my
  new X"; "moved (from X) to"; a closing ", not X". Its ``text`` drops the
  cue, and "I changed (or updated, switched) my X to Y" or "My X (has) changed to" a code,
  a number or a secret's value reads as "my X is Y" (memory/text/changed_to.py), and "my X
  isn't (or is no longer) Y, it's Z" as "my X is Z", a correction;
- a closing "too" (or "as well") of what someone or something is or does ("No, my son is
  Eva too", "I like coffee too", "The database is down too"), or an "also" after its
  subject or verb ("The API is also down"), says one more beside what is held: no change,
  whatever the cue, and none it ends (``beside``); its ``text`` drops a "too", and an
  "also" after "I" ("I also live in Porto" -> "I live in Porto");
- or a plain statement, returned as it is.

``own_clauses(sentence)`` cuts a sentence where a clause of the speaker's own opens, so
that a retraction joined to another statement ("I'm not vegetarian anymore, I eat fish now",
"... anymore but I eat fish now") can be read alone. How a stored compound fact splits into
its statements is memory/text/clauses.py's. What asks to forget, or to keep, is
memory/text/forget_requests.py's; its functions are named here too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tiermem.memory.text.causes import cause_behind, without_cause
from tiermem.memory.text.changed_to import changed_to
from tiermem.memory.text.forget_requests import (
    asks_to_forget,
    each_named_apart,
    forget_opening,
    forgets_the_last,
    keeps_the_last,
    keeps_what_is_held,
    names_what_to_forget,
    requests_forgetting,
)
from tiermem.memory.text.fragments import corrects_nothing, without_asides
from tiermem.memory.text.no_longer import held_once
from tiermem.memory.text.owners import Owner, owner_of
from tiermem.memory.text.retractions import reporting_denied, workplace_denied, workplaces_held
from tiermem.memory.text.wording import concepts, stem

__all__ = ["Statement", "as_news", "asks_to_forget", "each_named_apart", "forgets_the_last",
           "keeps_the_last", "keeps_what_is_held", "left_for_another", "names_what_to_forget",
           "now_apart", "own_clauses", "past_apart",
           "read_statement", "without_aside"]

_I = re.IGNORECASE
_APOS = "['’]"


@dataclass(frozen=True)
class Statement:
    """One sentence as a change: its text without cues, the cue, what it denies, and
    whose it denies it (a retraction's ``about``: memory/text/owners.py; None when
    unclear); ``beside`` when it says, with "too" or "also", that it holds as well as
    what is held, and so ends none of it."""

    text: str
    change: str | None = None
    denied: frozenset[str] = frozenset()
    about: Owner | None = None
    beside: bool = False


# ---------------------------------------------------------------------------
# Reading a sentence



_RETRACTION = re.compile(
    r"\bno\s+longer\b"
    rf"|(?:\bnot|n{_APOS}t)\b[^.;]*?\b(?:any\s?more|any\s+longer)\b"
    rf"|^i(?:\s+have|{_APOS}ve)?\s+(?:quit|stopped)\b",
    _I,
)
#: Leaving a workplace ("I left Globex", "I've left my job at Acme last month", "I quit
#: Globex for Acme"): it ends
#: where the user works; "I left my job", naming none, whichever job is held. "I left
#: Paris" may be a trip, so what it denies is always working there too
#: (memory/text/retractions.py, ``workplace_denied``), of which a home in Paris, or work
#: in Paris, holds too little to be retired.
_NAME = r"(?-i:[A-Z])[\w&.'’-]*(?:\s+(?-i:[A-Z])[\w&.'’-]*){0,2}"
_LEFT = (rf"^i(?:\s+have|{_APOS}ve)?\s+(?:just\s+|recently\s+)?(?:left|quit)\s+"
         rf"(?P<place>{_NAME}|my\s+job\s+at\s+\S.*?|my\s+(?:old\s+)?job)")
#: When, or that it is for good: "I left Globex for good" (or "last May") ended nothing,
#: and was quoted beside the job it says is over.
_WHEN_LEFT = (r"(?:\s+(?:last\s+(?:week|month|year|summer|winter|spring|autumn|fall|\w+day"
              r"|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*"
              r"|nov\w*|dec\w*)|in\s+\w+|for\s+good"
              r"|(?:a|an|one|two|three|\d+)\s+\w+\s+ago))?")
_LEFT_A_JOB = re.compile(rf"{_LEFT}{_WHEN_LEFT}\W*$", _I)
#: A job left for another ("I left Globex for Initech"): read whole, it was stored as a
#: quote and the old job stayed held beside it. A name alone after "for" may be a city
#: ("I left Globex for Berlin"), so only one said to be a job ("for a job at", "to work
#: at", "and joined") or held as a workplace is taken for the next employer.
_LEFT_FOR = re.compile(
    rf"(?P<left>{_LEFT}{_WHEN_LEFT})\s+(?:for\s+(?P<job>a\s+(?:new\s+)?job\s+(?:at|with)\s+)?"
    r"|(?P<work>(?:to\s+(?:work\s+(?:at|for)|join)|and\s+(?:then\s+)?joined)\s+))"
    rf"(?P<next>{_NAME}){_WHEN_LEFT}\W*$", _I)
#: A job left for one at a kind of employer ("I left Globex for a startup"): it ends the
#: job left, and says no employer's name to hold as the next one.
_LEFT_FOR_A_KIND = re.compile(
    rf"(?P<left>{_LEFT}{_WHEN_LEFT})\s+for\s+(?:a|an|another)\s+(?:[\w-]+\s+)?(?:startup"
    r"|start-up|company|firm|job|position|role|competitor|agency|bank|consultancy"
    rf"|non-?profit){_WHEN_LEFT}\W*$", _I)
#: A job left to join what is no employer's name ("... and joined a gym", "the army",
#: "Acme's board"): the job still ends, and what was joined is kept as said.
_LEFT_AND_JOINED = re.compile(rf"(?P<left>{_LEFT}{_WHEN_LEFT})\s+and\s+(?:then\s+)?joined\s+\S",
                              _I)
#: Words of a retraction that say it is one, not what it denies.
_RETRACTION_WORDS = frozenset(stem(w) for w in ("longer", "anymore", "forget", "true", "wrong",
                                                "quit", "stopped", "delete", "erase"))
#: Words around a withdrawal that say how it is said, not what it ends: alone beside
#: "I don't anymore" they name nothing, as the bare withdrawal names nothing.
_MANNER_WORDS = frozenset(stem(w) for w in ("actually", "well", "sorry", "anyway", "though",
                                            "honestly", "oh", "ok", "okay", "so", "yeah"))

#: "No," and "I meant" say, as "sorry" does, that what the speaker said before was wrong
#: ("No, my son is Eva"): not "No one ...", nor "I meant it" or "I meant to call", where
#: no statement of the speaker's follows.
_LEADING_CUE = re.compile(
    r"^(?:(?:actually|sorry|oops|correction|update|in\s+fact|now|these\s+days|nowadays"
    r"|no(?:pe)?(?=\s*[,:;!-])"
    # a slip noticed ("Hold on, my PIN is 4321"): not "Wait for me", "Hold on to it"
    r"|(?:(?:no\s+)?wait|h(?:old|ang)\s+on|whoops)(?=\s*[,:;!-])"
    rf"|i\s+meant(?:\s+to\s+say)?(?=[\s,:]+(?:my|i|i{_APOS}(?:m|ve)|we|our)\b))"
    r"\b[\s,:;!-]*)+",
    _I,
)
_ACTUALLY = re.compile(r",?\s*\bactually\b,?", _I)
# "now" as "from now on", not as "at this moment" (a short-lived cue) or "now that"; "from
# now on" is taken whole, or "The standup is cancelled from now on" keeps "from on". Set
# off by commas ("The standup, now, is at 10am"), both go, or the subject keeps one.
_NOW_CUE = (r"(?:\bfrom\s+now\s+on\b|(?<!right )(?<!for )(?<!just )(?<!until )(?<!by )"
            r"\bnow\b(?!\s+that\b))")
_NOW = re.compile(rf",\s*{_NOW_CUE}\s*,(?=\s)|,?\s*{_NOW_CUE}", _I)
_NOT_CLAUSE = re.compile(r",\s*(?:and\s+|but\s+)?not\s+[^,;]+$", _I)
_OTHER_CUES = (("my new", re.compile(r"\bmy\s+new\b", _I)),
               ("moved to", re.compile(
                   r"\b(?:moved|relocated)\s+(?:back\s+)?(?:from\s+[^.;]{1,60}?\s+)?to\b",
                   _I)))
_SPACES = re.compile(r"\s{2,}")
#: "My son is Eva too", "I like coffee too": a closing "too" (or "as well") of what someone
#: or something is or does says one more beside what is held, so it changes nothing, whatever
#: cue opens it ("No, ..."), and is no part of the value. A clause that only points back
#: ("My wife does too", "Me too"), or one joined to another ("Ana lives in Berlin and I
#: live there too"), is left whole, for what it points back to says what it is.
_ONE_MORE = re.compile(
    r"(?P<said>[^,;]*?(?:\s(?:is|are)|\w['’](?:m|re|s))\s.+?"
    r"|(?![^,;]*\s(?:and|but)\s)[^,;]*?\S\s+\S+\s+"
    r"(?!(?:does|do|did|is|are|am|was|were|has|have|had|can|could|will|would|should"
    r"|i|me|us|him|them)\b)[^,;\s]+?),?\s+(?:too|as\s+well)\W*", _I)
#: "The API is also down", "My wife also jogs": an "also" after the subject (of a few words,
#: no other clause before it) or its verb of being says what holds beside what is held,
#: as a closing "too" does. One opening the sentence ("Also, ...") only goes on talking.
_ALSO = re.compile(
    r"^(?!also\b)(?:(?!\b(?:and|but)\b)[^,;\s])+(?:\s+(?:(?!(?:and|but|also)\b)[^,;\s])+)"
    rf"{{0,4}}?(?:\s+(?:is|are|am|was|were)|{_APOS}(?:s|re|m))?\s+also\s+\w", _I)
_I_ALSO = re.compile(r"^(?P<i>i)\s+also\s+", _I)
#: "My name isn't Sam, it's Samuel": what a thing is not, then what it is, is a new value of
#: it ("My name is Samuel") given as a correction; "no longer" too, and of someone ("My son
#: is no longer Ana, he's Eva"), which read as a retraction would lose the new value. Its
#: subject names the thing: not a bare pronoun ("It isn't broken, it's slow" keeps both
#: halves) nor the speaker.
_NOT_THIS_BUT = re.compile(
    rf"^(?P<subject>(?!(?:it|this|that|he|she|they|i|we|you)\b)[^,;]{{1,60}}?)"
    rf"(?:\s+(?P<one>is)\s+(?:not|no\s+longer)|\s+(?P<one_n>is)n{_APOS}?t"
    rf"|{_APOS}s\s+(?P<one_s>not|no\s+longer)|\s+(?P<several>are)\s+(?:not|no\s+longer)"
    rf"|\s+aren{_APOS}?t|{_APOS}re\s+(?:not|no\s+longer))\s+[^,;]+?\s*[,;]\s*"
    rf"(?:but\s+|rather\s+)?(?:(?:it|s?he){_APOS}?s|(?:it|s?he)\s+is|they{_APOS}re|they\s+are)"
    r"\s+(?P<value>\S.*?)"
    r"[\s.!]*$", _I)



#: A dash between clauses: spaced, or an en or em dash typed with none ("Lisbon—I moved");
#: a hyphen with none joins words ("well-known").
_DASH = r"\s[-–—]|(?<=\w)[–—]"
#: Where a clause of the speaker's own opens after another: a comma, semicolon or dash
#: ("and", "but" or "so" may follow), or a bare "but", then "I", "I'm", "my" or "we".
_OWN_CLAUSE = re.compile(
    rf"(?:\s*(?:[,;]|{_DASH})\s*(?:(?:and|but|so)\s+)?|\s+but\s+)"
    rf"(?=(?:i|i{_APOS}(?:m|ve)|my|we)\b)", _I)


#: A clause that only points back to the one before it ("..., my wife does", "..., we
#: still do", "..., my son is"): cut off, it would say nothing, and lose what it said.
_ELLIPTICAL = re.compile(
    rf"\b(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|am|too|also"
    rf"|{_APOS}s|{_APOS}re|{_APOS}m)\W*$", _I)


#: A last clause in which someone else takes over what a retraction denies ("I'm not on
#: call anymore, Priya is", "..., but my wife still does"): who it names is not denied.
_TAKEN_OVER = re.compile(
    rf"\s*(?:[,;]|{_DASH})\s*(?:(?:and|but|so)\s+)?(?:now\s+)?[\w'’-]+(?:\s+[\w'’-]+){{0,3}}?"
    r"\s+(?:still\s+)?(?:does|do|is|are|has|have|will|can)(?:\s+(?:too|now|instead))?\W*$",
    _I)


def own_clauses(sentence: str) -> list[str]:
    """``sentence`` cut where a clause of the speaker's own opens ("I'm not vegetarian
    anymore, I eat fish now": two), so that a retraction joined to another statement can
    be read on its own; ``[sentence]`` when it has no such clause, or one of them only
    points back to another ("I don't work at Google anymore, my wife does")."""
    parts = [part for part in _OWN_CLAUSE.split(sentence.strip()) if part]
    if any(_ELLIPTICAL.search(part) for part in parts[1:]):
        return [sentence]
    return parts


#: Where a clause of the speaker's own says what holds now after one saying what held
#: before ("I used to work at Globex, now I work at Acme", "... but now I ...").
_NOW_CLAUSE = re.compile(
    rf"(?:\s*,\s*(?:(?:and|but)\s+)?|\s+(?:and|but)\s+)"
    rf"(?=now\s*,?\s+(?:i|i{_APOS}(?:m|ve)|my|we)\b)", _I)
#: An aside set off by commas ("now I think of it,"), which says nothing that holds now:
#: cut there, "My wife Ana, now I think of it, works at Acme" loses whose job it is.
_ASIDE = (r"now\s+i\s+(?:come\s+to\s+)?(?:think|remember|recall|realize|see)"
          r"(?:\s+(?:of|about)\s+it)?")
_NOW_ASIDE = re.compile(rf"^{_ASIDE}\s*,", _I)
_SET_OFF_ASIDE = re.compile(rf"\s*,\s*{_ASIDE}\s*(?:,\s*|(?=[.!?]*$))", _I)


def without_aside(sentence: str) -> str:
    """``sentence`` without a "now I think of it" set off by a comma, at its start or
    within: left in, "My wife Ana, now I think of it, works at Acme" (or "Now I think of it,
    my wife works at Acme") was stored as a garbled quote of the user; a cause opening it
    ("Thanks to Tom I work at Acme") is read after what it is given for."""
    sentence = cause_behind(_NOW_ASIDE.sub("", sentence.lstrip(), count=1).lstrip())
    return _SET_OFF_ASIDE.sub(lambda aside: " " if aside[0].rstrip()[-1] == "," else "", sentence)


def now_apart(sentence: str) -> list[str]:
    """``sentence`` cut where a clause saying what holds now opens after a clause of its
    own ("I was unemployed for a year, now I work at Acme": two), each read on its own:
    read whole, the cue "now" was cut from its middle and the two stored as one garbled
    quote, which ended no job held. ``[sentence]`` when it has none, or what comes before
    is no clause ("My wife, now I think of it, ...") or "now" opens an aside."""
    parts = _NOW_CLAUSE.split(sentence.strip(), maxsplit=1)
    if len(parts) < 2 or len(parts[0].split()) < 3 or _NOW_ASIDE.match(parts[1]):
        return [sentence]
    return [parts[0], parts[1][:1].upper() + parts[1][1:]]


def left_for_another(sentence: str, held: Sequence[str] = ()) -> list[str]:
    """``sentence`` cut into leaving a job and working at the next one ("I left Globex for
    Initech": "I left Globex", "I work at Initech"), when the next one is said to be a job
    or ``held`` names it a workplace; else into leaving the job and the sentence kept as
    said ("I left Globex for Berlin", "... for a startup", "... and joined a gym");
    ``[sentence]`` when it leaves no job for another."""
    left = _LEFT_FOR.match(sentence.strip())
    if left is None:
        kind = (_LEFT_FOR_A_KIND.match(sentence.strip())
                or _LEFT_AND_JOINED.match(sentence.strip()))
        return [sentence] if kind is None else [kind["left"], sentence]
    if left["job"] or left["work"] or concepts(left["next"]) & workplaces_held(held):
        return [left["left"], f"I work at {left['next']}"]
    return [left["left"], sentence]


#: What held once and no longer does: "I used to work at Globex", "I worked at Globex, now
#: I don't" (or "..., but not anymore"). Read as a plain statement, it was quoted beside the
#: job it ends.
#: It says nothing of what holds now ("..., but now I work at Acme" is read apart).
_USED_TO = re.compile(r"^i\s+used\s+to\s+(?P<rest>(?:(?!\b(?:but|and|now)\b)[^,;])+?)[\s.!]*$",
                      _I)
#: What no longer holds joined to more by a bare "and": "I worked at Globex but now I
#: don't and my wife lives in Rome", which no comma cuts into its own clauses.
_NOW_NOT_AND = re.compile(rf"^(?P<first>.+?\bnow\s+i(?:\s+(?:don{_APOS}?t|do\s+not|am\s+not)"
                          rf"|{_APOS}m\s+not))\s*,?\s+and\s+(?P<more>\S.*)$", _I | re.DOTALL)


def past_apart(sentence: str) -> list[str]:
    """``sentence``, saying what held once and no longer does, as the withdrawal of it and
    what it keeps of the past ("I used to work at Globex": "I no longer work at Globex",
    "I used to work at Globex"; "I'm vegan, now I'm not": the withdrawal alone);
    ``[sentence]`` when it says no such thing."""
    text = sentence.strip()
    if (used := _USED_TO.match(text)) is not None:
        return [f"I no longer {used['rest']}", text]
    if (said := held_once(text)) is None:
        return [sentence]
    if said.verb is None:
        return [f"I am no longer {said.rest}"]
    # "I no longer smoked" would be garbled: the plain form, when sure
    rest = f" {said.rest}" if said.rest else ""
    denial = f"I no longer {said.plain or said.verb}{rest}"
    return [denial, said.said] if said.past else [denial]


def past_then_more(sentence: str) -> list[str]:
    """``sentence`` cut into its own clauses when the first says what held once and no
    longer does and others follow ("I worked at Globex, now I don't, and I live in Rome");
    read whole, the bare "now I don't" was cut from what it denies and stored as "User
    doesn't". ``[sentence]`` otherwise."""
    parts = own_clauses(sentence)
    if len(parts) == 1 and (joined := _NOW_NOT_AND.match(sentence.strip())) is not None:
        parts = [joined["first"], joined["more"]]
    if len(parts) > 1 and past_apart(parts[0]) != [parts[0]]:
        return parts
    return [sentence]


def as_news(sentence: str) -> Statement | None:
    """A retraction read as a plain statement: when it denies nothing known, what it says
    is news ("I can't eat gluten anymore"). None for one that asks to forget ("forget that
    my locker code is 1234"): that is never to be stored."""
    if requests_forgetting(sentence):
        return None
    text = _SPACES.sub(" ", sentence.strip()).strip(" ,")
    return Statement(text[:1].upper() + text[1:])


def read_statement(sentence: str) -> Statement:
    """``sentence`` as a retraction, an update without its cue, or a plain statement."""
    text = sentence.strip()
    leading = _LEADING_CUE.match(text)
    contrast = _NOT_THIS_BUT.match(text[leading.end():] if leading else text)
    left_a_job = _LEFT_A_JOB.match(text)
    if ((contrast is None and (_RETRACTION.search(text) or left_a_job is not None))
            or requests_forgetting(text)):  # "Forget this."
        named = forget_opening(text)
        if named is not None:  # "Please forget my sister": the words before deny nothing
            text = text[named.end():]
        text = without_cause(text) or text
        denied = concepts(_TAKEN_OVER.sub("", text)) or concepts(text)
        if left_a_job is not None:  # not when it was left: "last month" is no workplace
            denied = set(workplace_denied(left_a_job["place"]))
        if not denied - _RETRACTION_WORDS - _MANNER_WORDS:  # "Actually I don't anymore"
            denied = set()
        return Statement("", "retraction",
                         frozenset(denied - _RETRACTION_WORDS) | reporting_denied(text),
                         owner_of(text))
    if corrects_nothing(without_asides(text)):  # "I meant my brother (and I'm done)": no slip
        return Statement("")
    cue = None
    if contrast is not None:  # "Actually, my name isn't Sam, it's Samuel": one correction
        verb = "is" if contrast["one"] or contrast["one_n"] or contrast["one_s"] else "are"
        cue, text = "correction", f"{contrast['subject']} {verb} {contrast['value']}"
    for name, pattern in (("actually", _ACTUALLY), ("now", _NOW), (", not", _NOT_CLAUSE)):
        stripped = pattern.sub("", text)
        if stripped != text:
            cue, text = cue or name, stripped
    leading = _LEADING_CUE.match(text)
    if leading and leading.end() < len(text):
        cue = cue or leading.group(0).strip(" ,:;!-").casefold()
        text = text[leading.end():]
    one_more = _ONE_MORE.fullmatch(text)
    also = _ALSO.match(text) if one_more is None else None
    if one_more is not None:
        cue, text = None, one_more["said"]
    elif also is not None:
        # The word stays where a fact says it ("User is also vegan"); after "I" it would
        # keep the sentence in the first person, quoted as "User: I also live in Porto".
        cue, text = None, _I_ALSO.sub(r"\g<i> ", text)
    if (changed := changed_to(text)) is not None:
        cue, text = cue or "changed my", changed
    for name, pattern in _OTHER_CUES:
        if cue is None and pattern.search(text):
            cue = name
    text = _SPACES.sub(" ", text).strip(" ,")
    return Statement(text[:1].upper() + text[1:], cue,
                     beside=one_more is not None or also is not None)
