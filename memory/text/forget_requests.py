"""Requests to forget, or to keep, read from one sentence of the user's.

"Forget that." and "Please forget it" name nothing and point back at what the speaker said
last (``forgets_the_last``); "Never forget that." asks for nothing (``keeps_the_last``);
"Forget my sister" or "Delete my address" open by naming what to forget
(``names_what_to_forget``), and a list of them ("my locker code and my gym", "my address
and phone number") is one request for each (``each_named_apart``). "Don't let me forget
that ..." asks to keep, and "I always forget that ..." tells of the speaker: neither asks
to forget (``asks_to_forget``). What such a request then changes is
memory/text/statements.py's, which reads it as a retraction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import takewhile

from tiermem.memory.text.deleted_names import name_held_deleted
from tiermem.memory.text.forget_beside import (
    PLAN_INSTEAD,
    named_and_said_after,
    named_in,
)
from tiermem.memory.text.forget_openings import (
    FORGET_NAMED,
    FORGET_OPENING,
    MATE,
    NOT_KEPT,
    THANKS,
    WHAT_I_SAID,
    places_apart,
)
from tiermem.memory.text.joined_requests import plans_joined
from tiermem.memory.text.named_lists import things_listed
from tiermem.memory.text.new_one_named import as_one_listed
from tiermem.memory.text.plan_values import (
    as_held,
    held_of,
    name_held,
    spelled_as_held,
    time_held,
)
from tiermem.memory.text.secret_names import names_a_secret
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.value_looks import value_kind

__all__ = ["CLAUSE_BREAK", "asks_to_forget", "beside_the_request", "brushes_off",
           "brushes_off_about_it", "each_named_apart", "fine_as_it_is", "forget_opening",
           "forgets_the_last", "keeps_the_last", "keeps_what_is_held", "named_last",
           "names_what_to_forget", "never_minded", "not_taken_back", "requests_forgetting"]

_I = re.IGNORECASE
_APOS = "['’]"

#: A request to forget ("..., forget that", "forget that X", "let me forget that"); not
#: "don't forget that ...", "don't let me forget that ..." or "don't ever let me forget that
#: ...", which ask to keep what follows (``_asks_to_forget``).
_FORGET_CLAUSE = re.compile(r"\bforget\s+(?:about\s+)?(?:that|it)\b", _I)
#: What, right before "forget that", makes it a request to keep: a negation, then the words
#: that may stand between it and "forget" ("don't ever let me", "don't you ever", "do not
#: let us ever", "never, ever").
_KEPT_BY = re.compile(
    rf"(?:n{_APOS}t|not|\bnever|\bdont),?\s+(?:(?:ever|you|just|let|me|us)\s+){{0,4}}$",
    _I)


#: A request to forget that names nothing ("Forget that.", "Please forget it"): it points
#: back at what the speaker said last, as "Let me forget that" (rather "never mind") does not.
#: "Scratch that", "strike that", "disregard that" and "ignore that" take it back the same way.
_BARE_FORGET = re.compile(
    FORGET_OPENING
    + rf"(?:forget\s+(?:about\s+)?|(?:scratch|strike|disregard|ignore)\s+|{NOT_KEPT})"
    rf"(?:that|it|this|{WHAT_I_SAID})"
    r"(?:,?\s+please)?\W*$", _I)


#: A request to keep that names nothing ("Never forget that.", "Remember this, please",
#: "Keep that.", "Hold on to that."): what was said is kept anyway, so it asks for nothing
#: that could change.
_BARE_KEEP = re.compile(
    r"^\W*(?:(?:oh|ok(?:ay)?|please|pls|and|just|also)\b[\s,]*)*"
    rf"(?:(?:(?:don{_APOS}?t|do\s+not)(?:\s+(?:you\s+)?ever)?|never(?:,?\s+ever)?)\s+"
    r"(?:let\s+(?:me|us)\s+)?forget|remember|keep(?:\s+(?:in\s+mind|hold\s+of))?|save|store"
    r"|note(?:\s+down)?|h(?:old|ang)\s+on\s*to)"
    # "Keep that in mind, please" and "Keep it secret" ask no more ("Keep it down" does)
    r"\s+(?:about\s+)?(?:that|it|this)(?:\s+(?:in\s+mind|safe|secret|private|to\s+yourself))?"
    r"(?:,?\s+please)?\W*$", _I)


def forgets_the_last(sentence: str) -> bool:
    """Whether ``sentence`` asks to forget, naming nothing, what the speaker just said."""
    return _BARE_FORGET.match(sentence) is not None


#: "Forget about it," with more said after it brushes off rather than takes back.
_FORGET_ABOUT_IT = re.compile(FORGET_OPENING + r"forget\s+about\s+it\b", _I)


def brushes_off_about_it(request: str) -> bool:
    """Whether ``request`` opens with "Forget about it", which brushes off whatever follows
    it rather than taking back what was said last."""
    return _FORGET_ABOUT_IT.match(request) is not None


#: A thing of the speaker's said to be fine as it is ("my PIN is fine", "... stays"): after
#: "Forget it" it says "never mind". Read as the PIN's new value, "fine" ended "1234".
_FINE_AS_IT_IS = re.compile(
    r"^\W*(?:my|our)\s+(?P<thing>[\w'’ -]+?)\s+(?:(?:is|are)\s+(?:still\s+)?"
    r"(?P<how>fine|ok|okay|alright|all\s+right|safe|good|correct|right|unchanged)"
    r"(?:\s+as\s+(?:it\s+|they\s+)?(?:is|are)"
    r"|\s+(?P<now>now))?|stays?|can\s+stay)\W*$", _I)
#: What names a thing, in a value held ("at Acme", "1234", "a@b.com"): no state "fine" ends.
_NAMES = re.compile(r"[A-Z\d@]")


def fine_as_it_is(said: str, held: Iterable[str] = ()) -> bool:
    """Whether ``said`` only says a thing of the speaker's is fine as it is ("my PIN is
    fine"), which is no news of it; not when it is so "now" and a fact ``held`` says how
    that thing was in plain words naming nothing ("My server is down"): "fine" is then its
    new state, and what it ends goes. Without "now", of "at Acme" or of a secret, it is a
    "never mind": read as the new state, "blue" or "hunter" was lost for "fine"."""
    fine = _FINE_AS_IT_IS.match(said)
    if fine is None:
        return False
    was = re.compile(rf"^(?:user|i)(?:{_APOS}s)?\s+{re.escape(fine['thing'])}\s+(?:is|are)\s+"
                     r"(?P<value>.+?)\W*$", _I)
    words = fine["thing"].split()
    if fine["now"] is None or any(names_a_secret(words, at) for at in range(len(words))):
        return True  # a secret has no state: "hunter" is no "sick" that "fine" ends
    return not any(
        (state := was.match(fact)) is not None and value_kind(fact) == "plain"
        and _NAMES.search(state["value"]) is None
        and state["value"].casefold() != fine["how"].casefold() for fact in held)


#: "Never mind" said on its own, or opening what follows ("Never mind, my PIN is fine").
_NEVER_MIND = re.compile(r"^\W*(?:never\s*mind|no\s+worries)(?:\W*$|\s*[,;:-]\s*)", _I)


def never_minded(sentences: list[str], held: Iterable[str] = ()) -> list[str]:
    """``sentences`` without an opening "Forget it." or "Never mind" and the remark beside
    it that a thing of the speaker's is fine as it is ("Forget it. My PIN is fine.", "Never
    mind, my PIN is fine"): together they say "never mind"; read apart, "My PIN is 1234"
    was taken back, or kept beside "User's PIN is fine"."""
    if len(sentences) > 1 and (forgets_the_last(sentences[0]) or _NEVER_MIND.fullmatch(
            sentences[0]) is not None) and fine_as_it_is(sentences[1], held):
        return sentences[2:]
    if sentences and (opening := _NEVER_MIND.match(sentences[0])) is not None and fine_as_it_is(
            sentences[0][opening.end():], held):
        return sentences[1:]
    return sentences


def brushes_off(request: str, said_after: str, held: Iterable[str] = ()) -> bool:
    """Whether the bare ``request`` ("Forget it"), with ``said_after`` beside it in one
    sentence, only says "never mind" ("Forget it, I'll do it myself", "Forget about it, my
    wife works at Acme", "Forget it, my PIN is fine"): what the speaker told last is then
    no more taken back than by a "never mind", as "Forget that, I'm vegetarian now" takes
    back "I'm vegan"."""
    return forgets_the_last(request) and (PLAN_INSTEAD.match(said_after) is not None
                                          or fine_as_it_is(said_after, held)
                                          or brushes_off_about_it(request))


#: All a clause may hold before a "forget that" said to the assistant ("So, please forget
#: it"): "People often forget that I'm deaf" and "Don't let anyone forget it" ask nothing.
_SAID_TO_IT = re.compile(r"^\W*(?:(?:and|so|but|then|you\s+can|let\s+(?:me|us))\b[\s,]*)?"
                         + FORGET_OPENING.removeprefix(r"^\W*") + "$", _I)


def asks_to_forget(sentence: str) -> bool:
    """Whether ``sentence`` is a request to forget ("Forget that I live in Porto", "Delete
    my address", "Forget this."), which states nothing true or untrue of itself."""
    text = sentence.strip()
    return _opens_named(text) or forgets_the_last(text) or any(
        _SAID_TO_IT.match(re.split(r"[,;:]", text[:m.start()])[-1])
        for m in _FORGET_CLAUSE.finditer(text))


def _opens_named(text: str) -> bool:
    """Whether ``text``, or its request of a thing from memory beside another place ("Delete
    my address from memory and from the CRM"), opens by naming what to forget."""
    return any(FORGET_NAMED.match(part) is not None for part in places_apart(text))


def names_what_to_forget(sentence: str) -> bool:
    """Whether ``sentence`` opens by naming what to forget ("Forget my sister"): every
    fact about it goes, not only the one that says the least else."""
    return FORGET_NAMED.match(sentence.strip()) is not None


#: Where a thing named to forget is kept, closing the request ("on file", "in the database").
_KEPT_IN = re.compile(r"\s+(?:on\s+(?:file|record)|(?:in|from)\s+(?:(?:your|the|my)\s+)?(?:memory"
                      r"|mind|head|notes|database|system|records?|files?))(?=\W*$)", _I)

#: Words closing a request naming what to forget that say how it is asked ("please",
#: "anymore", "for good"), not what goes.
_SAID_WITH_IT = re.compile(r"(?:,?\s+(?:please|pls|any\s*more|anywhere|anyway|for\s+good"
                           rf"|forever|from\s+now\s+on|now|(?:and\s+)?{THANKS})|,\s+{MATE})+"
                           r"(?=\W*$)", _I)
#: "ty" or "ta" closing a request after "and" ("Forget my PIN and ty"): read as a name, it
#: asked to forget "my ty".
_AND_TY = re.compile(r"\s+and\s+(?-i:(?P<word>ty|ta))(?=\W*$)")


def _thanked(sentence: str, held: list[str]) -> str:
    """``sentence`` without the "and ty" or "and ta" closing it, which thanks, unless a fact
    ``held`` names a Ty or a Ta, who may be the one to forget."""
    said = _AND_TY.search(sentence)
    if said is None or any(re.search(rf"\b{said['word']}\b", fact, _I) for fact in held):
        return sentence
    return sentence[:said.start()] + sentence[said.end():]


def each_named_apart(sentences: list[str], held: Iterable[str] = (),
                     named_before: Iterable[str] = ()) -> list[str]:
    """``sentences`` with a request naming several things to forget ("Forget my locker code
    and my gym.") made one request for each: read whole, the words of one outweigh the
    other's, and only the first would go. A list needs its "and" ("Forget my address,
    the one in Berlin" names one thing). A new value told beside the request ("Forget my
    number, it's 555-0199 now") is said as its own statement, when of the kind the value
    ``held`` (the facts held) for it is. ``named_before``: what the requests closing the
    message before named (``named_last``), whose new one is told as of a request here."""
    out: list[str] = []
    held = list(held)
    for whole in plans_joined([part for said in sentences for part in places_apart(said)]):
        sentence, said_after = named_and_said_after(name_held_deleted(whole, held), held)
        opening = FORGET_NAMED.match(sentence.strip())
        if opening is None:
            out.append(sentence)
            continue
        # "Don't keep my address on file", "Forget my password, please": where it is kept,
        # or a courtesy, is no word of what goes, and no fact held has it.
        sentence = _KEPT_IN.sub("", _SAID_WITH_IT.sub("", _thanked(sentence.strip(), held),
                                                       count=1), count=1)
        if said_after:
            out += [*each_named_apart([sentence]), *split_sentences(said_after)]
            continue
        named = sentence.strip()[opening.end():]
        lead = sentence.strip()[:opening.end()]
        items = things_listed(named)
        if items is None:
            thing = named.rstrip(" .!")
            asked = _as_held_asked(lead, thing, held)
            out.append(sentence if asked == f"{lead}{thing}." else asked)
            continue
        # each thing of a list as the facts held name it: "Forget my alarm time and my
        # PIN" forgot no alarm held as "User's alarm is 6am"
        out += [_as_held_asked(lead, item, held) for item in items]
    # "Forget my PIN. My new PIN is 4321.": the new one is the PIN, and so it is of any
    # of the requests just before it ("Forget my PIN. Forget my password.")
    told: list[str] = []
    just_named: list[str] = list(named_before)
    for said in out:
        thing = named_in(said.strip())
        told += [said] if thing else split_sentences(as_one_listed(just_named, said))
        just_named = [*just_named, thing] if thing else []
    return told


def named_last(message: str) -> list[str]:
    """What the requests closing ``message`` name to forget ("my PIN" of "Forget my PIN."):
    "My new PIN is 4321." said next is the PIN, as it is said in the same message. Kept as
    "User's new PIN is 4321", it stood apart from the PIN it replaced."""
    named = [named_in(said.strip()) for said in each_named_apart(split_sentences(message))]
    return list(takewhile(bool, reversed(named)))[::-1]


def _as_held_asked(lead: str, thing: str, held: list[str]) -> str:
    """The request ``lead`` + ``thing`` as the facts ``held`` name the thing: the one fact
    that gives the time of "my alarm time", the bank of "my bank details", the email of
    "my e-mail"."""
    thing = spelled_as_held(thing, held)
    timed = time_held(thing, held) or name_held(thing, held)
    if timed is not None:
        return f"Forget that {timed}."
    return f"{lead}{as_held(thing, held)}."


#: A request to keep a thing named, and nothing more ("Don't forget my PIN.", "Keep my PIN").
_KEEP_NAMED = re.compile(
    rf"^\W*(?:please\s+)?(?:(?:don{_APOS}?t|do\s+not|never)\s+forget|keep|remember)\s+"
    r"(?P<named>(?:my|our)(?:\s+[\w'’-]+){1,2}?)(?:,?\s+please)?\W*$", _I)


def keeps_the_last(sentence: str, held: Iterable[str] = ()) -> bool:
    """Whether ``sentence`` asks to keep, naming nothing, what the speaker just said, or
    only a thing ``held`` already names ("Keep my PIN" of "User's PIN is 1234"), which
    read as a statement was stored as "Keep User's PIN"."""
    return _BARE_KEEP.match(sentence) is not None or keeps_what_is_held(sentence, held)


def keeps_what_is_held(sentence: str, held: Iterable[str]) -> bool:
    """Whether ``sentence`` only asks to keep a thing a fact ``held`` names, each word of
    it ("my umbrella tomorrow" of an umbrella held asks for a reminder)."""
    if (named := _KEEP_NAMED.match(sentence)) is None:
        return False
    words = {word.casefold() for word in named["named"].split()[1:]}
    return any(words <= {word.casefold() for word in subject.split()}
               for subject, _ in held_of(named["named"], held, any_fact=True))


#: What, right before "forget that", makes it something the speaker tells of themselves
#: ("I always forget that the backup runs at 2am", "I forget that every time"): their own
#: "I" as its subject, then only words of how often.
_TOLD_OF_ONESELF = re.compile(
    r"\bi\s+(?:(?:always|often|sometimes|usually|still|also|just|keep|tend\s+to|kind\s+of"
    r"|sort\s+of)\s+)*$", _I)


def _asks_to_forget(text: str) -> bool:
    """Whether ``text`` asks to forget: a "forget that" no negation before it keeps, and
    not one the speaker tells of themselves, or an opening "forget my X"."""
    return _opens_named(text) or any(
        not _KEPT_BY.search(before) and not _TOLD_OF_ONESELF.search(before)
        for m in _FORGET_CLAUSE.finditer(text)
        for before in [text[max(0, m.start() - 60):m.start()]])


def requests_forgetting(text: str) -> bool:
    """Whether ``text``, as written, asks to forget something named or what was said last."""
    return _asks_to_forget(text) or forgets_the_last(text)


def forget_opening(text: str) -> re.Match[str] | None:
    """The words that open a request naming what to forget ("Please forget "), or None."""
    return FORGET_NAMED.match(text)


#: Where a sentence asking to forget may hold a statement beside the request ("I moved to
#: Faro, so forget that I live in Porto").
CLAUSE_BREAK = re.compile(r"\s*[,;]\s*")


def beside_the_request(sentence: str) -> str:
    """What ``sentence`` says beside its request to forget: "I moved to Faro, so forget that
    I live in Porto" -> "I moved to Faro". '' when nothing else is said; of a request that
    opens by naming what to forget, only a statement of the speaker's own ("Forget the
    meeting, I live in Lisbon now"): "Forget my sister, she moved" is all about what goes."""
    text = sentence.strip()
    if forget_opening(text) is not None:
        return named_and_said_after(text)[1].rstrip(" .!")
    kept: list[str] = []
    for part in CLAUSE_BREAK.split(text.rstrip(" .!")):
        if forgets_the_last(part):
            kept = []  # "My code is 1234, forget that": it asks to forget what came before
        elif part and not asks_to_forget(part):
            kept.append(part)
    joined = ", ".join(kept)
    return joined[:1].upper() + joined[1:]


def not_taken_back(sentences: list[str]) -> list[str]:
    """``sentences`` without the bare requests to forget among them and the sentence each
    points back at: "My locker code is 1234. Please forget it." keeps nothing."""
    return [sentence for at, sentence in enumerate(sentences)
            if not forgets_the_last(sentence)
            and not (at + 1 < len(sentences) and forgets_the_last(sentences[at + 1]))]
