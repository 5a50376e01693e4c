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

from tiermem.memory.text.forget_openings import (
    FORGET_NAMED,
    FORGET_OPENING,
    NOT_KEPT,
    THANKS,
    WHAT_I_SAID,
    places_apart,
)
from tiermem.memory.text.named_lists import owned_already, things_listed
from tiermem.memory.text.plan_values import (
    as_held,
    as_one_listed,
    gives_a_value,
    held_of,
    new_contact_in,
    new_value_in,
    remembered_value,
    spelled_as_held,
    time_held,
    told_of,
)
from tiermem.memory.text.sentences import split_sentences

__all__ = ["CLAUSE_BREAK", "asks_to_forget", "beside_the_request", "brushes_off",
           "each_named_apart", "forget_opening",
           "forgets_the_last", "keeps_the_last", "names_what_to_forget", "not_taken_back",
           "requests_forgetting"]

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
#: "Scratch that", "strike that" and "disregard that" take it back the same way.
_BARE_FORGET = re.compile(
    FORGET_OPENING + rf"(?:forget\s+(?:about\s+)?|(?:scratch|strike|disregard)\s+|{NOT_KEPT})"
    rf"(?:that|it|this|{WHAT_I_SAID})"
    r"(?:,?\s+please)?\W*$", _I)


#: A request to keep that names nothing ("Never forget that.", "Remember this, please"):
#: what was said is kept anyway, so it asks for nothing that could change.
_BARE_KEEP = re.compile(
    r"^\W*(?:(?:oh|ok(?:ay)?|please|pls|and|just|also)\b[\s,]*)*"
    rf"(?:(?:(?:don{_APOS}?t|do\s+not)(?:\s+(?:you\s+)?ever)?|never(?:,?\s+ever)?)\s+"
    r"(?:let\s+(?:me|us)\s+)?forget|remember|keep\s+in\s+mind)"
    r"\s+(?:about\s+)?(?:that|it|this)(?:,?\s+please)?\W*$", _I)


def forgets_the_last(sentence: str) -> bool:
    """Whether ``sentence`` asks to forget, naming nothing, what the speaker just said."""
    return _BARE_FORGET.match(sentence) is not None


#: What the speaker will do instead ("I'll do it myself", "let's move on"): after a bare
#: "forget it" it says "never mind" of what was asked, not "take back" of what was told.
_PLAN_INSTEAD = re.compile(
    rf"^\W*(?:i{_APOS}ll|i\s+will|i{_APOS}m\s+going\s+to|i\s+(?:can|could)|we{_APOS}ll"
    rf"|we\s+will|let{_APOS}s|let\s+(?:me|us))\b", _I)
#: "Forget about it," with more said after it brushes off rather than takes back.
_FORGET_ABOUT_IT = re.compile(FORGET_OPENING + r"forget\s+about\s+it\b", _I)


def brushes_off(request: str, said_after: str) -> bool:
    """Whether the bare ``request`` ("Forget it"), with ``said_after`` beside it in one
    sentence, only says "never mind" ("Forget it, I'll do it myself", "Forget about it, my
    wife works at Acme"): what the speaker told last is then no more taken back than by a
    "never mind", as "Forget that, I'm vegetarian now" takes back "I'm vegan"."""
    return forgets_the_last(request) and (_PLAN_INSTEAD.match(said_after) is not None
                                          or _FORGET_ABOUT_IT.match(request) is not None)


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
                           rf"|forever|from\s+now\s+on|now|{THANKS}))+(?=\W*$)", _I)


def each_named_apart(sentences: list[str], held: Iterable[str] = ()) -> list[str]:
    """``sentences`` with a request naming several things to forget ("Forget my locker code
    and my gym.") made one request for each: read whole, the words of one outweigh the
    other's, and only the first would go. A list needs its "and" ("Forget my address,
    the one in Berlin" names one thing). A new value told beside the request ("Forget my
    number, it's 555-0199 now") is said as its own statement, when of the kind the value
    ``held`` (the facts held) for it is."""
    out: list[str] = []
    held = list(held)
    for whole in _plans_joined([part for said in sentences for part in places_apart(said)]):
        sentence, said_after = _named_and_said_after(whole, held)
        opening = FORGET_NAMED.match(sentence.strip())
        if opening is None:
            out.append(sentence)
            continue
        # "Don't keep my address on file", "Forget my password, please": where it is kept,
        # or a courtesy, is no word of what goes, and no fact held has it.
        sentence = _KEPT_IN.sub("", _SAID_WITH_IT.sub("", sentence.strip(), count=1), count=1)
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
    just_named: list[str] = []
    for said in out:
        thing = _named_in(said.strip())
        told += [said] if thing else split_sentences(as_one_listed(just_named, said))
        just_named = [*just_named, thing] if thing else []
    return told


def _as_held_asked(lead: str, thing: str, held: list[str]) -> str:
    """The request ``lead`` + ``thing`` as the facts ``held`` name the thing: the one fact
    that gives the time of "my alarm time", the bank of "my bank details", the email of
    "my e-mail"."""
    thing = spelled_as_held(thing, held)
    timed = time_held(thing, held)
    if timed is not None:
        return f"Forget that {timed}."
    return f"{lead}{as_held(thing, held)}."


def _plans_joined(sentences: list[str]) -> list[str]:
    """``sentences`` with a plan for what a request named ("Forget my password; I will send
    you a new one.") joined to the request, as if said after a comma: alone, it was stored
    as a quote that points at nothing."""
    out: list[str] = []
    for sentence in sentences:
        if (out and FORGET_NAMED.match(out[-1].strip()) is not None
                and _PLAN_INSTEAD.match(sentence) and _of_what_goes(out[-1], sentence)):
            out[-1] = f"{out[-1].strip().rstrip(' .!;')}; {sentence.strip()}"
        else:
            out.append(sentence)
    return out


#: Where a request naming what to forget gives way to the speaker's own statement ("Forget
#: the meeting, I live in Lisbon now"): "she moved" after "Forget my sister" is still of her.
_SPEAKER_AFTER = re.compile(rf"\s*[,;]\s*(?:(?:and|but|so)\s+)?(?=i(?:{_APOS}m)?\s)", _I)


#: Where a request naming what to forget gives way to what the speaker will do instead.
_PLAN_AFTER = re.compile(r"\s*[,;]\s*(?:(?:and|but|so)\s+)?(?="
                         + _PLAN_INSTEAD.pattern.removeprefix(r"^\W*") + ")", _I)
#: Where a request naming what to forget gives way to another ("Forget my password and tell
#: me my address", "... and remember my PIN 4321"): read as more named, the address went too.
_ASKED_AFTER = re.compile(r"\s*,?\s+and\s+(?:then\s+)?(?=[a-z]+\s+(?:me|us)\b"
                          r"|(?:remember|note|save|store|keep)\s)", _I)
#: Asking to remember what "it", the thing named, is now ("remember it's hunter3").
_REMEMBER_IT = re.compile(r"^(?:remember|note|save|store|keep)\s+(?:that\s+)?(?=it\b)", _I)
#: Another request that only asks for what goes, or its new value ("text me the new one").
_ASKED_FOR_IT = re.compile(r"^[a-z]+\s+(?:me|us)\s+(?:it|that|them|(?:the|a)\s+new\s+\w+)\W*$",
                           _I)
#: Where a request naming what to forget gives way to a remark on it ("Forget my password,
#: it's old", "..., she moved"): read as part of what is named, it matched no fact held.
_REMARK_AFTER = re.compile(r"\s*[,;]\s*(?:(?:and|but|so|because|since)\s+)?"
                           r"(?=(?:it|she|he|they|that|this)\b)", _I)
#: Where a remark on what a request named gives way to a statement of the speaker's
#: ("it's 2am, I'm off to bed", "it's 4321 now and my address is 9 Elm Road").
_MORE_SAID = re.compile(rf"\s*[,;]\s*(?:(?:and|but|so)\s+)?(?=i(?:{_APOS}m)?\s|(?:my|our)\s)"
                        rf"|,?\s+(?:and|but)\s+(?=i(?:{_APOS}m)?\s|(?:my|our)\s)", _I)
#: Where a request naming what to forget gives way to the new one of what it names.
_NEW_ONE_AFTER = re.compile(r"\s*[,;]?\s+(?:(?:and|but|so)\s+)?(?=(?:my|our)\s+new\s)", _I)
#: A word pointing back at what a request named ("I'll reset it", "I'll call her").
_BACK_AT_IT = re.compile(r"\b(?:it|that|them|this|one|him|her)\b", _I)


def _named_and_said_after(sentence: str, held: Iterable[str] = ()) -> tuple[str, str]:
    """``sentence`` as its request naming what to forget and the statement of the speaker's
    beside it ("I live in Lisbon now"); the whole and '' when it is no such request.
    ``held``: the facts held, whose values say what kind a new one told must be."""
    if FORGET_NAMED.match(sentence.strip()) is None:
        return sentence, ""
    plan = _PLAN_AFTER.split(sentence.strip(), maxsplit=1)
    if len(plan) > 1 and _of_what_goes(plan[0], plan[1]):
        request = plan[0].rstrip(" .!") + "."
        # "Forget my number, I'll text you from the new one, 555-0199": a new value is
        # news, and the thing it is the value of is the one named
        return request, (_new_value_of(request, plan[1]) if gives_a_value(plan[1]) else
                         # "Forget my password, I'll reset it": quoted without what goes,
                         # it says nothing
                         "")
    asked = _ASKED_AFTER.split(sentence.strip(), maxsplit=1)
    if len(asked) > 1 and _ASKED_FOR_IT.match(asked[1]):
        # "... and text me the new one": it gives no value, and read as the speaker's
        # statement it was stored as one
        return asked[0].rstrip(" .!") + ".", ""
    remember_it = _REMEMBER_IT.match(asked[1]) if len(asked) > 1 else None
    if remember_it:
        # "... and remember it's hunter3": "it" is the thing named, and quoted as asked,
        # "it's hunter3" was stored of nothing; with no new value of it, nothing is said
        return _value_told_of(asked[0].rstrip(" .!"), asked[1][remember_it.end():],
                              list(held)) or (asked[0].rstrip(" .!") + ".", "")
    if len(asked) > 1:
        return asked[0].rstrip(" .!") + ".", (remembered_value(asked[1])
                                              or asked[1][:1].upper() + asked[1][1:])
    remark = _REMARK_AFTER.split(sentence.strip(), maxsplit=1)
    if len(remark) > 1 and not gives_a_value(remark[1]):
        # "Forget my sister, it's Maria now" of a sister held by name tells her new one
        if told := _value_told_of(remark[0], remark[1], list(held)):
            return told
        # quoted without what goes, "it's old" says nothing
        return remark[0].rstrip(" .!") + ".", ""
    # "..., it's 4321 now and my address is 9 Elm Road": a statement of its own follows
    said, *more = _MORE_SAID.split(remark[-1], maxsplit=1)
    more = [f"{more[0][:1].upper()}{more[0][1:].rstrip(' .!')}."] if more else []
    if len(remark) > 1 and (told := _value_told_of(remark[0], said, list(held))):
        # "Forget my number, it's 555-0199 now": read whole, it matched nothing held,
        # and the new number, which is news, was lost with it
        return told[0], " ".join([told[1], *more])
    if len(remark) > 1 and held_of(_named_in(remark[0]), held, any_fact=True):
        # "Forget my password, it's 10 years old": no new value of what is held, so,
        # read whole, it only kept the password
        return remark[0].rstrip(" .!") + ".", " ".join(more)
    # "Forget my PIN, my new PIN is 4321", or "Forget my PIN and my password, my new PIN ..."
    request, *new = _NEW_ONE_AFTER.split(remark[-1], maxsplit=1)
    if new and (new_one := as_one_listed([_named_in(request)], new[0])) != new[0]:
        return request.rstrip(" .!") + ".", new_one
    parts = _SPEAKER_AFTER.split(sentence.strip(), maxsplit=1)
    if len(parts) < 2:
        return sentence, ""
    return parts[0].rstrip(" .!") + ".", parts[1][:1].upper() + parts[1][1:]


def _value_told_of(request: str, remark: str, held: list[str]) -> tuple[str, str] | None:
    """``request``, naming the thing as the fact held does, and the statement of the new
    value ``remark`` tells of it (``told_of``); None when it tells none."""
    request = spelled_as_held(request, held)
    opening = FORGET_NAMED.match(request)
    told = told_of(_named_in(request), remark, held) if opening is not None else None
    if opening is None or told is None:
        return None
    return f"{request[:opening.end()]}{told[0]}.", told[1]


def _named_in(request: str) -> str:
    """What ``request`` names to forget ("my number" of "Forget my number"), or ''."""
    opening = FORGET_NAMED.match(request)
    return request[opening.end():].rstrip(" .!") if opening is not None else ""


def _of_what_goes(request: str, plan: str) -> bool:
    """Whether ``plan`` is of what ``request`` names to forget: it points back at it ("I'll
    reset it") or gives its new number or email ("I'll text you from 555-0199")."""
    return _BACK_AT_IT.search(plan) is not None or new_contact_in(request, plan) is not None


def _new_value_of(request: str, plan: str) -> str:
    """What ``plan``, beside the ``request`` naming what to forget, says of it anew: "My
    phone number is 555-0199" of "Forget my phone number" and "I'll text you from the new
    one, 555-0199"; '' when it names no new one of what goes ("I'll change it in 2 days"),
    which, quoted without what goes, says nothing."""
    new_one = new_value_in(plan) or new_contact_in(request, plan)
    opening = FORGET_NAMED.match(request)
    named = request[opening.end():].rstrip(" .!") if opening is not None else ""
    if new_one is None or not owned_already(named):
        return ""
    return f"{named[:1].upper()}{named[1:]} is {new_one}."


def keeps_the_last(sentence: str) -> bool:
    """Whether ``sentence`` asks to keep, naming nothing, what the speaker just said."""
    return _BARE_KEEP.match(sentence) is not None


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
        return _named_and_said_after(text)[1].rstrip(" .!")
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
