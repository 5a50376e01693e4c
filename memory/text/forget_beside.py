"""What a request naming what to forget says beside it, in the same sentence: a statement
of the speaker's own ("Forget the meeting, I live in Lisbon now"), a plan for what goes
("Forget my password, I'll reset it"), another request ("... and tell me my address"), a
remark on it ("..., it's old") or its new value ("..., it's 555-0199 now", "..., my new PIN
is 4321"). Which sentence is such a request is memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_openings import FORGET_NAMED, THANKS
from tiermem.memory.text.named_lists import owned_already
from tiermem.memory.text.new_one_named import as_one_listed
from tiermem.memory.text.plan_values import (
    gives_a_value,
    held_of,
    new_contact_in,
    new_value_in,
    remembered_value,
    spelled_as_held,
    told_of,
    value_told,
)
from tiermem.memory.text.restated import BREAK, restated

__all__ = ["NOT_CLEFT", "PLAN_INSTEAD", "insists", "means_instead", "named_and_said_after",
           "named_in", "names_which_one", "of_what_goes", "other_meant"]

_I = re.IGNORECASE
_APOS = "['’]"

#: What the speaker will do instead ("I'll do it myself", "let's move on"): after a bare
#: "forget it" it says "never mind" of what was asked, not "take back" of what was told.
PLAN_INSTEAD = re.compile(
    rf"^\W*(?:i{_APOS}ll|i\s+will|i{_APOS}m\s+going\s+to|i\s+(?:can|could)|we{_APOS}ll"
    rf"|we\s+will|let{_APOS}s|let\s+(?:me|us))\b", _I)


#: A dash after the request, read as its comma ("Forget my PIN - it's 4321"): spaced, or an
#: en or em dash typed with none; a hyphen within a word ("555-0199") is none.
_DASH_AFTER = re.compile(r"\s+[-\u2013\u2014]+\s*|(?<=\w)[\u2013\u2014]\s*")

#: Where a request naming what to forget gives way to the speaker's own statement ("Forget
#: the meeting, I live in Lisbon now"): "she moved" after "Forget my sister" is still of her.
_SPEAKER_AFTER = re.compile(rf"{BREAK}(?=i(?:{_APOS}(?:m|ve))?\s+\w)", _I)


#: Where a request naming what to forget gives way to what the speaker will do instead,
#: after a comma or a bare "and", "but" or "so" ("... and I'll reset it"), as a statement
#: does: read as one, "User: I will tell you the new one" was stored.
_PLAN_AFTER = re.compile(BREAK + "(?=" + PLAN_INSTEAD.pattern.removeprefix(r"^\W*") + ")", _I)
#: Where a request naming what to forget gives way to another ("Forget my password and tell
#: me my address", "... and remember my PIN 4321"): read as more named, the address went too.
_ASKED_AFTER = re.compile(r"\s*,?\s+(?:and\s+(?:then\s+)?(?=[a-z]+\s+(?:me|us)\b"
                          r"|(?:remember|note|save|store|keep)\s)"
                          # "... but remember my PIN is 4321", not "... but keep in touch"
                          r"|but\s+(?=(?:remember|note|save|store)\s+(?:that\s+)?(?:my|our|it)\b))",
                          _I)
#: A thing named as kept past whose it is: a few words that are no verb of their own and no
#: value ("PIN", "locker code", "brother's name").
_KEPT_WORD = r"(?![\w'’-]*[\d@])[\w'’-]+"  # "4321" is a new value: "remember my PIN 4321"
_KEPT_WORDS = (rf"{_KEPT_WORD}(?:\s+(?!(?:is|are|as|alone|intact|untouched|stays?|can|please)\b)"
               rf"{_KEPT_WORD}){{0,3}}")
_KEPT_THING = rf"(?:(?:my|our|your|the)\s+{_KEPT_WORDS}|everything\s+else|the\s+rest)"
#: Where a request naming what to forget gives way to another thing it keeps ("... but keep
#: my PIN", "... and leave my PIN alone", "..., not my PIN", "... but my PIN is fine"): read
#: whole, the PIN's words outweighed the address's and nothing went, or "Keep my PIN" and
#: "My PIN is fine" were stored as facts.
_KEPT_AFTER = re.compile(
    r"(?:\s*[,;]\s*(?:(?:and|but)\s+)?|\s+(?:and|but)\s+"
    r"|\s+(?=(?:except|apart\s+from|other\s+than)\s))"
    # "... but keep hold of my PIN", "... except my PIN": read whole, nothing went
    r"(?:(?:please\s+)?(?:keep(?:\s+hold\s+of)?|hold\s+on\s+to|hang\s+on\s+to|leave|retain"
    rf"|remember|(?:don{_APOS}?t|do\s+not)\s+(?:forget|delete|remove|erase|touch))\s+"
    rf"(?P<kept>{_KEPT_THING})"
    r"(?:\s+(?:alone|intact|untouched|be|as\s+(?:it\s+)?is))?"
    rf"|not\s+{_KEPT_THING}"
    # only of another thing: "... apart from the postcode" may be of the address itself
    rf"|(?:except(?:\s+for)?|apart\s+from|other\s+than)\s+(?P<spared>(?:my|our)\s+{_KEPT_WORDS})"
    rf"|(?:my|our)\s+{_KEPT_WORDS}"
    r"\s+(?:(?:is|are)\s+(?:fine|ok|okay|alright|all\s+right|safe|good)|stays?|can\s+stay))"
    # "... but keep my PIN, it's 4321 now": the new value of what is kept
    rf"(?:\s*[,;]\s*(?:it{_APOS}s|it\s+is)\s+(?P<value>[^\s,;]*[\d@][^\s,;]*?)(?:\s+now)?)?"
    rf"(?:,?\s+(?:please|pls|{THANKS}))*\W*$", _I)
#: The old value set aside after the new one told ("..., it's 4321, not the old one"): no
#: other thing kept, as read, "Forget my PIN, it's 4321" matched nothing and the PIN stayed.
_OLD_ONE = re.compile(r"\W*(?:(?:and|but)\s+)?not\s+(?:the|my|our)\s+(?:old|previous|former"
                      r"|current|original)\b", _I)
#: Another thing to forget named after a hedge ("... and I think my password too"): read as
#: the speaker's statement, "User: I think my password" was stored and the password kept.
_ALSO_NAMED = re.compile(r"(?:\s*[,;]\s*(?:and\s+)?|\s+and\s+)i\s+(?:think|guess|suppose)\s+"
                         r"(?P<thing>(?:my|our)(?:\s+(?!(?:is|are|was|were)\b)[\w'’-]+){1,4}?)"
                         r"\s+(?:too|as\s+well)\W*$", _I)
#: The speaker insisting on the request ("... and I mean it", ", I'm serious"): stored, it
#: was "User: I mean it".
_INSISTED = re.compile(rf"^i(?:\s+(?:really\s+)?(?:meant?\s+it|insist)"
                       rf"|(?:{_APOS}m|\s+am)\s+serious)\W*$", _I)
#: A short close after the thing meant, no more of it ("..., thanks", "... and I'm done",
#: ", too bad", ", thanks, bye"): read as of it, the sister named first went and "User's
#: brother, thanks" was stored, and "4321, thanks, bye" was no value.
_SIGNED_OFF = (rf"(?:(?:\s*,\s*|\s+)(?:and\s+)?(?:please|pls|{THANKS}|sorry|my\s+bad|too\s+bad"
               rf"|ok(?:ay)?|that{_APOS}s\s+(?:it|all)|i\s+(?:think|guess)|(?:good)?\s*bye|see\s+ya"
               rf"|i(?:{_APOS}m|\s+am)\s+(?:done|sure|certain|positive)(?:\s+now)?))")
#: The value the speaker meant instead of what goes ("..., I meant 4321", "... I meant to
#: say 7 Glass Street, not 1234"), or changed it to ("... and I changed it to 4321"): one
#: that opens with no number or email is no value ("I meant to do it 2 days ago"), and words
#: after it are of it only as names are ("7 Glass Street, Leeds", not "4321 but typed 1234");
#: a short close after it (", thanks") is no part of it, and read as one the value was lost.
_MEANT = re.compile(rf"^i(?:\s+meant(?:\s+to\s+(?:say|type|write|put))?"
                    rf"|(?:{_APOS}ve|\s+have)?\s+changed\s+it\s+to)\s+"
                    r"(?P<value>[^\s,;]*[\d@][^\s,;]*(?:,?\s+(?-i:[A-Z0-9])[^\s,;]*)*?)"
                    r"(?:\s+now)?(?:,?\s+(?:not|rather\s+than|instead\s+of)\s+[^;]*?)?"
                    rf"{_SIGNED_OFF}*\W*$", _I)
#: Another thing of the user's named, bare, as the one meant to forget ("I meant my
#: brother", "Sorry, I meant to say my PIN", "I mean my husband, not my wife").
#: "my brother's car" is a thing of its own, but "my brother's name" is the brother held;
#: "my brother Tom" is the brother, and "my brother too" another thing to forget as well.
_OWN_WORD = r"[a-z]+(?:-[a-z]+)*"
#: A second word of the thing meant, in lower case or an acronym ("my card number", "my
#: bank PIN"): read as no thing meant, the PIN the request named went in its place. Not
#: after a word that tells which of a kind ("my old PIN", "my little brother"), which no
#: fact held names so.
_SECOND_WORD = (r"(?<!\bold)(?<!\bnew)(?<!\bcurrent)(?<!\bprevious)(?<!\bformer)(?<!\bex)"
                r"(?<!\blittle)(?<!\bbig)(?<!\bolder)(?<!\byounger)(?<!\belder)(?<!\bother)"
                r"(?<!\bfirst)(?<!\bsecond)(?<!\breal)(?<!\busual)"
                r"\s+(?!(?:too|also|as|instead|not|and|rather|please|pls|thanks|thank|thx"
                r"|cheers|sorry|ok|okay|i|now|one|ones)\b)(?-i:[a-z]+(?:-[a-z]+)*|[A-Z]{2,})")
_OTHER_MEANT = (
    r"(?:(?:sorry|oops|no)\W+)?i\s+(?:meant(?:\s+to\s+(?:say|type|write|put))?|mean)\s+"
    rf"(?P<whose>(?:my|our)\s+{_OWN_WORD}(?:{_APOS}s\s+(?!name\b){_OWN_WORD}|{_SECOND_WORD})?)"
    rf"(?:{_APOS}s\s+name)?(?:\s+(?-i:[A-Z][a-z]+))?"
    rf"(?P<more>(?:,?\s+and\s+(?:(?:my|our)\s+)?{_OWN_WORD})*)"
    r"(?P<too>\s+(?:too|as\s+well|also))?(?:,?\s+instead)?"
    rf"(?:,?\s+(?:not|rather\s+than|instead\s+of)\s+(?:my|our|the)\s+{_OWN_WORD})?"
    rf"{_SIGNED_OFF}*\W*$")
_MEANT_OTHER = re.compile("^" + _OTHER_MEANT, _I)
#: Which one of what a request named was meant ("..., I meant my new one", "I mean the old
#: one"): it is still the thing named.
_WHICH_ONE = (r"i\s+meant?\s+(?:the|my|our)\s+(?:new|old|current|previous|other|first|second"
              rf"|last)\s+ones?{_SIGNED_OFF}*\W*$")
_WHICH_ONE_AFTER = re.compile(BREAK + _WHICH_ONE, _I)
#: The same in a sentence of its own ("Forget my PIN. I meant my new one."): alone, it was
#: read as a correction of the PIN gone, and asked which word it corrects.
_WHICH_ONE_ALONE = re.compile(r"^\W*" + _WHICH_ONE, _I)
#: Where a request naming what to forget gives way to the other thing meant.
_MEANT_OTHER_AFTER = re.compile(BREAK + _OTHER_MEANT, _I)
#: Asking to remember what "it", the thing named, is now ("remember it's hunter3").
_REMEMBER_IT = re.compile(r"^(?:remember|note|save|store|keep)\s+(?:that\s+)?(?=it\b)", _I)
#: Another request that only asks for what goes, or its new value ("text me the new one").
_ASKED_FOR_IT = re.compile(r"^[a-z]+\s+(?:me|us)\s+(?:it|that|them|(?:the|a)\s+new\s+\w+)\W*$",
                           _I)
#: Where a request naming what to forget gives way to a remark on it ("Forget my password,
#: it's old", "..., she moved"): read as part of what is named, it matched no fact held.
_REMARK_AFTER = re.compile(r"\s*[,;]\s*(?:(?:and|but|so|because|since)\s+)?"
                           r"(?=(?:it|she|he|they|that|this)\b)"
                           # "Forget my PIN and it's 4321": read whole, nothing went
                           rf"|\s+(?:and|but|so|because|since)\s+(?=it(?:{_APOS}s|\s+(?:is|was))\s)",
                           _I)
#: Where a remark on what a request named gives way to a statement of the speaker's
#: ("it's 2am, I'm off to bed", "it's 4321 now and my address is 9 Elm Road"); not to a
#: doubt closing it ("it's 4321, I think"), stored as "User: I think".
_OWN_SAID = rf"(?!i\s+(?:think|guess|believe|suppose)\W*$)(?=i(?:{_APOS}m)?\s|(?:my|our)\s)"
_MORE_SAID = re.compile(rf"\s*[,;]\s*(?:(?:and|but|so)\s+)?{_OWN_SAID}"
                        rf"|,?\s+(?:and|but)\s+{_OWN_SAID}", _I)
#: Where a request naming what to forget gives way to the new one of what it names.
_NEW_ONE_AFTER = re.compile(r"\s*[,;]?\s+(?:(?:and|but|so)\s+)?(?=(?:my|our|the)\s+new\s)", _I)
#: "The new one", which is of what a request named.
_NEW_ONE_ONLY = re.compile(r"^(?:the|my|our)\s+new\s+one\b", _I)
#: A word pointing back at what a request named ("I'll reset it", "I'll call her").
_BACK_AT_IT = re.compile(r"\b(?:it|that|them|this|one|him|her)\b", _I)
#: A statement of the speaker's own thing after a request ("Forget my email, my card is
#: lost"): read as more things named, the whole matched nothing and the statement was lost.
_THEIR_THING_SAID = re.compile(r"^(?:my|our)\s+(?!new\b|(?:\w+\s+)?ones?\b)[^,;]+?\s+"
                               rf"(?:is|are|was|were|has|have|had|got|{_APOS}s)\s", _I)
#: A remark opening on "it", the thing a request named ("it's 9 Elm Road, time for bed").
_OF_IT = re.compile(r"it\b", _I)
#: After "it's", no cleft ("it's Maria who called", "it's the one that broke"): a sentence
#: of its own, no value of what a request names.
NOT_CLEFT = r"(?![^,;.!?]*?\s(?:who|whom|that|which)\b)"
#: A slip word between a request and "it's" ("Forget my boss, no wait, it's Maria"): the
#: value after it is the new one, as after the comma alone; read whole, nothing went.
_SLIP_BEFORE_IT = re.compile(rf"(?<=[,;])(\s*)(?:(?:no|nope|wait|sorry|oops|actually)\b[\s,!.-]*)+"
                             rf"(?=it(?:{_APOS}s|\s+is)\s{NOT_CLEFT})", _I)
#: A hedge between a request and "it's" ("Forget my boss, maybe it's Maria"): no new one.
_HEDGED_AFTER = re.compile(r"\s*[,;]\s*(?:maybe|perhaps|possibly|probably|i\s+think|i\s+guess)"
                           rf"\b[\s,]*it(?:{_APOS}s|\s+is)\s{NOT_CLEFT}", _I)


def named_and_said_after(sentence: str, held: Iterable[str] = ()) -> tuple[str, str]:
    """``sentence`` as its request naming what to forget and the statement of the speaker's
    beside it ("I live in Lisbon now"); the whole and '' when it is no such request.
    ``held``: the facts held, whose values say what kind a new one told must be."""
    if FORGET_NAMED.match(sentence.strip()) is None:
        return sentence, ""
    sentence = restated(_DASH_AFTER.sub(", ", sentence, count=1))
    sentence = _SLIP_BEFORE_IT.sub(r"\1", sentence, count=1)
    hedged = _HEDGED_AFTER.search(sentence.strip())
    if hedged is not None and FORGET_NAMED.match(sentence.strip()[:hedged.start()]) is not None:
        # "Forget my boss, maybe it's Maria": the reply says the new one was not told
        return sentence.strip()[:hedged.start()].rstrip(" .!") + ".", ""
    if (other := _other_meant(sentence.strip())) is not None:
        # the one meant is the one to forget: the sister went, the brother stayed, and
        # "User's brother" was stored, which says nothing; "..., not my sister" is the
        # one named first, no other thing kept
        return other, ""
    if (which := _WHICH_ONE_AFTER.search(sentence.strip())) is not None and FORGET_NAMED.match(
            sentence.strip()[:which.start()]) is not None:
        # "Forget my PIN, I meant my new one": which of it, and read as what was said
        # instead, "User: I meant" was stored
        return sentence.strip()[:which.start()].rstrip(" .!") + ".", ""
    kept = _KEPT_AFTER.search(sentence.strip())
    if kept is not None and _OLD_ONE.match(kept[0]) and _tells_a_value(sentence[:kept.start()]):
        kept = None
    if kept is not None and FORGET_NAMED.match(sentence.strip()[:kept.start()]) is not None:
        # "Forget my address but keep my PIN": only the address goes, and nothing is said
        # but a new value of what is kept ("..., it's 4321 now": "My PIN is 4321.")
        thing = kept["kept"] or kept["spared"] or ""
        news = f"{thing[:1].upper()}{thing[1:]} is {kept['value']}." if kept["value"] else ""
        return sentence.strip()[:kept.start()].rstrip(" .!") + ".", news
    also = _ALSO_NAMED.search(sentence.strip())
    if also is not None and FORGET_NAMED.match(sentence.strip()[:also.start()]) is not None:
        return f"{sentence.strip()[:also.start()].rstrip(' .!')} and {also['thing']}.", ""
    plan = _PLAN_AFTER.split(sentence.strip(), maxsplit=1)
    if len(plan) > 1 and of_what_goes(plan[0], plan[1]):
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
    if len(remark) > 1 and (held_of(named_in(remark[0]), held, any_fact=True)
                            or _OF_IT.match(remark[1])):
        # "Forget my password, it's 10 years old": no new value of what is held, so,
        # read whole, it only kept the password; "Forget my address, it's 9 Elm Road, time
        # for bed", read whole, matched nothing, and kept "User lives at 7 Oak St."
        return remark[0].rstrip(" .!") + ".", " ".join(more)
    # "Forget my PIN, my new PIN is 4321", or "Forget my PIN and my password, my new PIN ..."
    request, *new = _NEW_ONE_AFTER.split(remark[-1], maxsplit=1)
    if new and (new_one := as_one_listed([named_in(request)], new[0])) != new[0]:
        return request.rstrip(" .!") + ".", new_one
    if new and _NEW_ONE_ONLY.match(new[0]):
        # "Forget my PIN, the new one will come by post": no value of it, and, read whole,
        # the request matched nothing and the PIN stayed
        return request.rstrip(" .!") + ".", ""
    if len(remark) == 1 and more and _THEIR_THING_SAID.match(more[0]):
        return said.rstrip(" .!") + ".", more[0]
    parts = _SPEAKER_AFTER.split(sentence.strip(), maxsplit=1)
    if len(parts) < 2:
        return sentence, ""
    if _INSISTED.match(parts[1]):
        return parts[0].rstrip(" .!") + ".", ""  # "... and I mean it" says nothing of the user
    if (meant := _MEANT.match(parts[1])) is not None:
        # "Forget my PIN, I meant 4321": the value meant is kept, not lost as a correction
        # of what went
        request = parts[0].rstrip(" .!") + "."
        told = _value_told_of(request[:-1], f"it's {meant['value']}", list(held))
        if told is None:
            return request, _named_is(request, meant["value"])
        # whose it is as the fact held says: "Forget the PIN" of "User's PIN is 1234"
        # stored "The PIN is 4321"; the value whole, as meant ("7 Glass Street, Leeds")
        return told[0], f"{told[1].split(' is ', 1)[0]} is {meant['value']}."
    return parts[0].rstrip(" .!") + ".", parts[1][:1].upper() + parts[1][1:]


def _other_meant(sentence: str) -> str | None:
    """The request to forget what ``sentence`` names as meant after the thing it first
    named ("Forget my brother." of "Forget my sister, I meant my brother"), or None."""
    other = _MEANT_OTHER_AFTER.search(sentence)
    opening = FORGET_NAMED.match(sentence[:other.start()]) if other is not None else None
    if other is None or opening is None:
        return None
    named = sentence[opening.end():other.start()].rstrip(" .!;") + " and " if other["too"] else ""
    # what was meant goes from memory, as what was named first would have: "Delete my
    # brother and Tom" asks a task on Tom, and "Delete Tom" was stored
    return f"Forget {named}{other['whose']}{other['more']}."


def other_meant(said: str) -> str | None:
    """What ``said``, bare, names as the thing meant ("my brother" of "Sorry, I meant my
    brother", "my brother and sister" of "I meant my brother and sister"), or None."""
    other = _MEANT_OTHER.match(said.strip())
    return f"{other['whose']}{other['more']}" if other is not None and not other["too"] else None


def names_which_one(said: str) -> bool:
    """Whether ``said`` only tells which one of what a request named was meant ("I meant my
    new one")."""
    return _WHICH_ONE_ALONE.match(said.strip()) is not None


def insists(said: str) -> bool:
    """Whether ``said`` only insists on the request before it ("I mean it", "I meant it")."""
    return _INSISTED.match(said.strip()) is not None


def _tells_a_value(request: str) -> bool:
    """Whether ``request`` closes on a remark telling a new value ("..., it's 4321")."""
    remark = _REMARK_AFTER.split(request.strip(), maxsplit=1)
    return len(remark) > 1 and value_told(remark[1]) is not None


def _value_told_of(request: str, remark: str, held: list[str]) -> tuple[str, str] | None:
    """``request``, naming the thing as the fact held does, and the statement of the new
    value ``remark`` tells of it (``told_of``); None when it tells none."""
    request = spelled_as_held(request, held)
    opening = FORGET_NAMED.match(request)
    told = told_of(named_in(request), remark, held) if opening is not None else None
    if opening is None or told is None:
        return None
    return f"{request[:opening.end()]}{told[0]}.", told[1]


def means_instead(said: str) -> bool:
    """Whether ``said`` only gives what was meant instead of what goes: its value ("I meant
    4321") or another thing of the user's, the one to forget ("I meant my brother")."""
    return _MEANT.match(said.strip()) is not None or _MEANT_OTHER.match(said.strip()) is not None


def named_in(request: str) -> str:
    """What ``request`` names to forget ("my number" of "Forget my number"), or ''."""
    opening = FORGET_NAMED.match(request)
    return request[opening.end():].rstrip(" .!;") if opening is not None else ""


def of_what_goes(request: str, plan: str) -> bool:
    """Whether ``plan`` is of what ``request`` names to forget: it points back at it ("I'll
    reset it") or gives its new number or email ("I'll text you from 555-0199")."""
    return _BACK_AT_IT.search(plan) is not None or new_contact_in(request, plan) is not None


def _new_value_of(request: str, plan: str) -> str:
    """What ``plan``, beside the ``request`` naming what to forget, says of it anew: "My
    phone number is 555-0199" of "Forget my phone number" and "I'll text you from the new
    one, 555-0199"; '' when it names no new one of what goes ("I'll change it in 2 days"),
    which, quoted without what goes, says nothing."""
    return _named_is(request, new_value_in(plan) or new_contact_in(request, plan))


def _named_is(request: str, value: str | None) -> str:
    """The statement that what ``request`` names to forget is ``value`` ("My PIN is 4321."
    of "Forget my PIN"); '' without a value, or when what it names is no one's."""
    opening = FORGET_NAMED.match(request)
    named = request[opening.end():].rstrip(" .!") if opening is not None else ""
    if value is None or not owned_already(named):
        return ""
    return f"{named[:1].upper()}{named[1:]} is {value}."
