"""A value taken back and said again in one breath ("My locker code is 1234. Forget that,
it's 5678."), said once as corrected: read as said, the request took the old value back and
"it's 5678", naming nothing, stored no new one. What a request to forget is, and what it
points back at, is memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re

from tiermem.memory.text.forget_beside import other_meant
from tiermem.memory.text.forget_requests import CLAUSE_BREAK, forgets_the_last
from tiermem.memory.text.fragments import meant_alone
from tiermem.memory.text.given_names import is_first_name, names_another, names_no_one
from tiermem.memory.text.joined_requests import ITS_REMARK
from tiermem.memory.text.named_as import said_as_owned
from tiermem.memory.text.plan_values import keeps_it, value_kind
from tiermem.memory.text.relations import relation_of

__all__ = ["corrected_in_place", "meant_unplaced", "values_of_another_kind"]

_I = re.IGNORECASE
_APOS = "['’]"


#: The new value said right after a bare "forget that" ("..., forget that, it's 5678").
_NEW_VALUE = re.compile(rf"^\W*it(?:{_APOS}s|\s+is)\s+(?P<value>\S.*)$", _I)
#: A value that names or counts ("5678", "at 9pm", "on Monday", "Ironworks"), not one
#: that says how the speaker feels about what went ("it's fine", "it's not important").
_NAMING_VALUE = re.compile(r"[\d@]|^(?:(?:at|on|in|from|by|until|to)\s+)?[A-Z]|\w[-./:]\w")
#: A word on what went that a capital or a number would pass for a value ("it's OK",
#: "it's TMI", "it's not 1234").
_REMARK = re.compile(r"^(?:ok(?:ay)?|fine|alright|all\s+right|tmi|not|no|none|nothing)\b", _I)
#: The old value named as taken back after the new one ("5678 not 1234", "..., not 1234",
#: "9pm instead of 7pm"): said again, it would stay in the corrected fact.
_NOT_THE_OLD = re.compile(r"(?:^|\s+)(?:and\s+|but\s+)?(?:not|instead\s+of|rather\s+than)"
                          r"\s+\S.*$", _I)
#: An hour or a day, which "it's" may tell as the time it is ("it's 2am and I'm tired",
#: "it's Friday"): a new value only of a value that was one too ("My alarm is 6am").
_TIME_OF_DAY = re.compile(
    r"^(?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\b|\d{1,2}:\d{2}\b|noon\b|midnight\b"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|tonight\b|today\b)", _I)
#: The preposition an hour or a day was said with ("at 6am", "on Monday", "set for 6am"),
#: which "it's 7am" leaves out yet means.
_TIME_PREPOSITION = re.compile(
    r"^(?P<word>(?:(?:set|scheduled|booked|planned|moved|due)\s+)?(?:at|on|by|until|from|for))"
    r"\s+", _I)
#: Words on the correction itself, no part of the value ("it's 5678 instead", "it's actually
#: 5678"): kept, "User's locker code is 5678 instead" read as news beside the old code.
_ASIDE = re.compile(r"^(?:actually|really)\s+|,?\s+(?:instead|actually)$", _I)
#: What may stand between a value and the "forget that" taking it back ("no wait", "oops").
_FILLER = re.compile(r"^\W*(?:(?:no|wait|sorry|oops|actually|hmm|um|ah|oh)\b\W*)+$", _I)
#: A statement of what one of the speaker's things is ("My locker code is 1234"), whose
#: value such a "forget that, it's ..." says again.
_VALUE_SAID = re.compile(
    rf"^\W*(?P<subject>(?:my|our|the|your|[\w-]+{_APOS}s)\s+[\w'’ -]{{1,60}}?)"
    r"\s+(?P<verb>is|are)\s+\S", _I)
#: Where a statement of another thing of the speaker's joins the one before ("... and my"),
#: or one of the speaker's own ("... and I live in Leeds"), whose value is no sister's.
_AND_NEXT = re.compile(rf"\s+and\s+(?=(?:my|our|the|your|i|we|[\w-]+{_APOS}s)\s)", _I)


#: An hour's day ("Friday", "today"): an hour said again as a day, or a day as an hour, says
#: another kind of value ("The meeting is on Friday. Scratch that, it's 7am.").
_DAY = re.compile(r"^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|today)\b", _I)
#: A name said as what a thing is called ("called Rex"), kept before the name said again.
_CALLED = re.compile(r"^(?:called|named|known\s+as)\s+", _I)

#: A title before a person's surname ("Dr. Patel", "Mr Smith").
_TITLE = re.compile(r"^(?:mr|mrs|ms|miss|dr|prof)\.?\s+", _I)


def _names_a_person(value: str) -> bool:
    """Whether ``value`` names a person as a first name does: one alone or before a surname
    ("Maria", "Maria Silva"), a title before a name ("Dr. Patel"), or a capitalised word
    alone that names no one else ("Zed")."""
    titled = _TITLE.match(value)
    words = value[titled.end() if titled else 0:].split()
    return bool(words) and all(word[:1].isupper() for word in words) and (
        titled is not None or is_first_name(words[0])
        or (len(words) == 1 and words[0].isalpha() and not names_another(words[0])))


def _no_value(value: str) -> bool:
    """Whether ``value`` says how things are, not what was meant: "it's OK", "it's fine",
    or a capital alone that names no one ("it's Complicated")."""
    return _REMARK.match(value) is not None or (" " not in value and names_no_one(value))


#: What a value is said after ("at 9pm", "in Porto", "on Monday"), beside its kind.
_PREPOSITION = re.compile(r"^(?:at|on|in|from|by|until|to|for)\s+", _I)


def _kind(value: str) -> tuple[str, str]:
    """What kind of value ``value`` is: the preposition it is said after, and an hour or a
    day, a number, an address, a name or a word ("a nurse", "failing")."""
    said_with = _PREPOSITION.match(value)
    bare = value[said_with.end():] if said_with else value
    if _TIME_OF_DAY.match(bare):
        return "", "time"  # "it's 7am" keeps the "at" of "at 6am"
    word = said_with.group().strip().casefold() if said_with else ""
    if "@" in bare:
        return word, "address"
    if re.search(r"\d", bare):
        return word, "number"
    return word, "name" if re.search(r"(?-i:\b[A-Z])", bare) else "word"


#: A statement whose value is one word after its verb ("I like tea", "I live in Lisbon",
#: "My gym is Ironworks"), which "Forget that, I meant coffee" says again in its place.
_ONE_VALUE = re.compile(
    r"^\W*(?P<said>(?:i|we|(?:my|our)\s+[\w-]+)\s+[\w'’-]+\s+"
    r"(?:(?:in|at|on|to|from|for|with|a|an|the)\s+)?)(?P<value>[\w'’-]+)\W*$", _I)
#: What one is ("My wife is a nurse", "I am a nurse"), which nothing tells "I meant coffee"
#: is another of: put in the place of "nurse", it stored "User's wife is a coffee".
_IS_A = re.compile(r"\b(?:is|are|am)\s+an?\s+$", _I)
#: One word or one name ("coffee", "Porto", "New York"): all that "I meant" puts in place.
_ONE_WORD = re.compile(r"[\w'’-]+|(?-i:[A-Z][\w'’-]*)(?:\s+(?-i:[A-Z][\w'’-]*))*")


def _meant(sentences: list[str], said_last: str | None) -> tuple[list[str], list[str]]:
    """``sentences`` with "Forget that, I meant coffee" after "I like tea" said as "Forget
    that." and "I like coffee.", and what "I meant" named that had no one value to take
    the place of ("I like green tea. Forget that, I meant coffee"), or one of another kind
    ("I live in Lisbon. Forget that, I meant coffee"); read as said, the
    request forgot the tea and "I meant coffee", no fact alone, was lost unsaid."""
    out: list[str] = []
    unplaced: list[str] = []
    for sentence in _meant_joined(sentences):
        clauses = _request_first(CLAUSE_BREAK.split(sentence.strip()))
        if len(clauses) > 1 and forgets_the_last(clauses[0]) and (
                thing := other_meant(", ".join(clauses[1:]))):
            # "Forget that, I meant my brother": the brother goes, not what was said last,
            # and "User's brother", which says nothing, is not stored
            out.append(f"Forget {thing}.")
            continue
        last = out[-1] if out else said_last or ""
        meant = _meant_or_its(", ".join(clauses[1:]), last) if len(clauses) > 1 else None
        if meant is None or not forgets_the_last(clauses[0]):
            out.append(sentence)
            continue
        old = _ONE_VALUE.match(last)
        meant = meant.strip(" '\"")
        # of another kind, "I meant coffee" after "I live in Lisbon" stored "... in coffee"
        if (old is None or _ONE_WORD.fullmatch(meant) is None or _IS_A.search(old["said"])
                or _kind(meant)[1] != _kind(old["value"])[1]):
            unplaced.append(meant)
            out.append(clauses[0] + ".")
            continue
        said = f"{old['said']}{meant}"
        out += [clauses[0] + ".", said[:1].upper() + said[1:] + "."]
    return out, unplaced


def _meant_or_its(said: str, last: str) -> str | None:
    """What ``said`` names as meant instead ("I meant Porto"), or as what "it" is ("it's
    Porto") of ``last``, a fact that says no "is" ("I live in Lisbon") but one value of
    the same kind: read as a value said again, no "is" was found to take its place, and
    "Porto" was lost."""
    meant = meant_alone(said)
    new = _NEW_VALUE.match(said.strip().rstrip(" .!")) if meant is None else None
    if new is None or _VALUE_SAID.match(last) or said_as_owned(last) is not None:
        return meant
    old = _ONE_VALUE.match(last)
    value = _ASIDE.sub("", _NOT_THE_OLD.sub("", new["value"])).strip(" ,.!")
    # a name or a number only: "it's late" or "it's true" says how things are
    fits = (old is not None and _ONE_WORD.fullmatch(value) is not None
            and _IS_A.search(old["said"]) is None and not _no_value(value)
            and _kind(value)[1] == _kind(old["value"])[1] != "word")
    return value if fits else None


def _request_first(clauses: list[str]) -> list[str]:
    """``clauses`` with what opens a request to forget ("Sorry", "No wait") joined to it:
    "Sorry, forget that, I meant coffee" is "Sorry, forget that" and "I meant coffee";
    apart, "Sorry" was no request, and the tea was forgotten and the coffee lost unsaid."""
    at = next((at for at in range(2, len(clauses))
               if forgets_the_last(", ".join(clauses[:at]))), None)
    return clauses if at is None else [", ".join(clauses[:at]), *clauses[at:]]


def _meant_joined(sentences: list[str]) -> list[str]:
    """``sentences`` with what was meant, said alone after a bare request to forget
    ("Forget that. I meant Porto."), joined to it as if said after a comma: apart, the
    request forgot "I live in Lisbon" and "I meant Porto" named no slip, and was lost."""
    out: list[str] = []
    for sentence in sentences:
        if out and forgets_the_last(out[-1].strip()) and (
                meant_alone(sentence) is not None or other_meant(sentence) is not None):
            out[-1] = f"{out[-1].strip().rstrip(' .!;')}, {sentence.strip()}"
        else:
            out.append(sentence)
    return out


def meant_unplaced(sentences: list[str], said_last: str | None = None) -> list[str]:
    """What "I meant" named after a request to forget that ``corrected_in_place`` put in
    the place of nothing, for the fact taken back has no one value it would replace."""
    return _meant(sentences, said_last)[1]


def corrected_in_place(sentences: list[str], said_last: str | None = None) -> list[str]:
    """``sentences`` with a value taken back and said again ("My locker code is 1234.
    Forget that, it's 5678.", "My flight is at 7pm, forget that, it's at 9pm") said once,
    as corrected ("My locker code is 5678."): read as said, the request took the old value
    back and "it's 5678", naming nothing, stored no new one. A message that opens so takes
    back the value ``said_last`` (the user's last statement before it) said."""
    return _corrected(_meant(sentences, said_last)[0], said_last)[0]


def values_of_another_kind(sentences: list[str], said_last: str | None = None) -> list[str]:
    """The new values ``corrected_in_place`` leaves out, as "it's X" said them, for they are
    of another kind than the one taken back: "My wife is a nurse. Ignore that, it's on
    Monday." would store "User's wife is on Monday", "The build is failing. Ignore that,
    it's 5678." "The build is 5678"."""
    return _corrected(_meant(sentences, said_last)[0], said_last)[1]


#: A clause in the speaker's own words ("I'm off to bed"), a statement after a remark.
_OWN_WORDS = re.compile(rf"^\W*(?:(?:and|but|so)\s+)?(?:i|we|my|our)(?:{_APOS}\w+)?\b", _I)


def _its_joined(sentences: list[str]) -> list[str]:
    """``sentences`` with what "it's" says right after a bare request to forget joined to
    it, as said after a comma ("Forget it. It's 4321." as "Forget it, it's 4321."): alone,
    "It's 4321, remember that." was stored as a fact of nothing."""
    out: list[str] = []
    for sentence in sentences:
        if out and forgets_the_last(out[-1]) and ITS_REMARK.match(sentence):
            out[-1] = f"{out[-1].strip().rstrip(' .!;')}, {sentence.strip()}"
        else:
            out.append(sentence)
    return out


def _corrected(sentences: list[str], said_last: str | None) -> tuple[list[str], list[str]]:
    out: list[str] = []
    other_kind: list[str] = []
    sentences = _its_joined(sentences)
    for at, sentence in enumerate(sentences):
        # A bare request and the new value said in the sentence after it ("Scratch that.
        # It's on Monday.") are read as one, when that finds a value taken back: read apart,
        # "It's on Monday" was stored as a fact of its own, of nothing named.
        if (at and out and out[-1] == sentences[at - 1]
                and _after_a_request(sentences[at - 1], sentence)):
            joined, kinds = out[:-1], list(other_kind)
            if _correct(f"{out[-1].strip().rstrip(' .!')}, {sentence.strip()}", joined, kinds,
                        said_last):
                out, other_kind = joined, kinds
                continue
        _correct(sentence, out, other_kind, said_last)
    return out, other_kind


def _after_a_request(before: str, sentence: str) -> bool:
    """Whether ``sentence`` says only a new value ("It's on Monday.") right after ``before``,
    a bare request to forget ("Scratch that.")."""
    new = _NEW_VALUE.match(sentence.strip().rstrip(" .!"))
    return (new is not None and CLAUSE_BREAK.search(before.strip()) is None
            and forgets_the_last(before))


def _correct(sentence: str, out: list[str], other_kind: list[str], said_last: str | None
             ) -> bool:
    """Appends to ``out`` ``sentence`` with a value it takes back and says again said once
    as corrected, and to ``other_kind`` a new value of another kind; whether it took back a
    value so."""
    clauses = CLAUSE_BREAK.split(sentence.strip().rstrip(" .!"))
    found = next(((at, new) for at in range(len(clauses) - 1)
                  if forgets_the_last(clauses[at])
                  and (new := _NEW_VALUE.match(clauses[at + 1])) is not None), None)
    if found is None:
        out.append(sentence)
        return False
    at, new = found
    value = _ASIDE.sub("", _NOT_THE_OLD.sub("", new["value"].rstrip(" .!")))
    while at + 2 < len(clauses) and value_kind(f"{value}, {clauses[at + 2]}") == "name":
        # the town of an address ("it's 9 Elm Road, Leeds"), no clause of its own
        value = f"{value}, {clauses.pop(at + 2)}"
    # "Forget that, it's not important": read whole, the remark was taken for what
    # to forget, which nothing held, and what was said last stayed; what follows it is
    # kept only in the speaker's own words ("..., I'm off to bed"): "Forget it, it's
    # late, time for bed" matched nothing and took nothing back
    after = clauses[at + 2:]
    if after and not _OWN_WORDS.match(after[0]):
        after = []
    remark = ", ".join([*clauses[:at + 1], *after]) + "."
    # "it's called Max" names as "it's Max" does: read as a remark, Max was lost unsaid
    if _NAMING_VALUE.search(_CALLED.sub("", value)) is None or _no_value(value):
        out.append(remark)
        return False
    # The value taken back is said in a clause before ("..., no wait, forget that"),
    # else in the sentence before, else in the message before.
    said = next((at for at in range(at - 1, -1, -1) if not _FILLER.match(clauses[at])),
                None)
    # Of statements joined by "and", the value taken back is the last one's: read
    # whole, "My flat is in Lisbon and my code is 1234" gave the flat the new code.
    *kept, last = _AND_NEXT.split((clauses[said] if said is not None else out[-1] if out
                                   else said_last or "").rstrip(" .!"))
    old = _VALUE_SAID.match(last)
    # "Ana is my sister. Scratch that, it's Maria.": the name is the value said again
    owned = said_as_owned(last) if old is None else None
    if owned is not None:
        old = _VALUE_SAID.match(last := owned)
    if old is None:
        # no value said for "it's" to take the place of ("I like tea. Forget that, it's
        # Monday."): the request still takes back what was said; read whole, the remark was
        # taken for what to forget, which nothing held, and the tea stayed
        out.append(remark)
        other_kind.append(clauses[at + 1].strip())
        return True
    old_value = last[old.end() - 1:]
    said_with = _TIME_PREPOSITION.match(old_value)
    if _TIME_OF_DAY.match(value):
        if not _TIME_OF_DAY.match(old_bare := old_value[said_with.end() if said_with else 0:]):
            out.append(remark)  # "it's 2am and I'm tired" is no locker code
            return False
        fits = bool(_DAY.match(value)) == bool(_DAY.match(old_bare))
        if said_with is not None:  # "My alarm is at 6am" said again as "it's 7am"
            value = f"{said_with['word']} {value}"
    else:
        called = _CALLED.match(old_value)
        old_bare = old_value[called.end():] if called else old_value
        # a first name of someone of the user's ("My boss is Tom"), not a pet, is said
        # again as one
        new_bare = _CALLED.sub("", value)
        fits = _kind(new_bare) == _kind(old_bare) and (
            relation_of(old["subject"].split()[-1]) in (None, "dog", "cat", "pet")
            or not is_first_name(old_bare) or _names_a_person(new_bare))
        if called and not _CALLED.match(value):
            value = f"{called.group()}{value}"  # "My dog is called Rex", "it's Porto"
    if not fits:
        # "it's on Monday" is no nurse, "it's 5678" no failing build, "it's 7am" no day
        # for "on Friday", "it's Porto" no one's name for "My sister is Ana"
        out.append(remark)
        other_kind.append(clauses[at + 1].strip())
        return True
    said_again = (f"{old['subject'].strip()} {old['verb']} {value}" if owned is None
                  else f"{_CALLED.sub('', value)} {old['verb']} {old['subject'].strip()}")
    corrected = " and ".join([*(kept if said is not None or out else []), said_again])
    rest = clauses[at + 2:]
    if rest and _NOT_THE_OLD.match(rest[0]):
        rest = rest[1:]  # "..., not 1234" names what was just taken back
    # "..., remember that", "..., don't tell anyone": of the value, no fact of its own
    rest = [said for said in rest if not keeps_it(said)]
    if said is not None:
        out.append(", ".join([*clauses[:said], corrected, *rest]) + ".")
        return True
    # Said of the message before, the request goes first, so that it takes the old value
    # back as it would in the same message: read alone, the new value left "The meeting is
    # on Friday" beside "The meeting is at 9pm", and "Forget it, it's Eva." kept Ana beside
    # Eva, as a sister may be one of several; of a message that said more ("I live in Leeds
    # and my sister is Ana"), the request names the one statement taken back, for "Forget
    # it" of two facts forgot neither, and Ana stayed beside Eva.
    request = ([] if out else [f"Forget that {last[:1].lower()}{last[1:]}."] if kept
               else [", ".join(clauses[:at + 1]) + "."])
    out[-1:] = [*request, corrected[:1].upper() + corrected[1:] + "."]
    if rest:  # what follows is a sentence of its own now
        out.append(rest[0][:1].upper() + ", ".join(rest)[1:] + ".")
    return True
