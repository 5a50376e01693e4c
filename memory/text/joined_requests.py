"""A request to forget and what the sentences right after it say of what goes, read as one:
its new value ("Forget my PIN. It's 4321."), a remark on it ("It's old."), what was meant
("I meant 4321."), or a plan for it ("I will send you a new one."), each of which, alone,
was stored as a fact of nothing. What the request then changes is
memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re

from tiermem.memory.text.forget_beside import (
    NOT_CLEFT,
    PLAN_INSTEAD,
    insists,
    means_instead,
    named_in,
    names_which_one,
    of_what_goes,
)
from tiermem.memory.text.forget_openings import FORGET_NAMED
from tiermem.memory.text.given_names import names_another
from tiermem.memory.text.relations import relation_of
from tiermem.memory.text.restated import restated
from tiermem.memory.text.secret_names import a_secret_or_detail, names_a_secret

__all__ = ["ITS_REMARK", "asked_new_ones", "hedged_new_ones", "other_names_told", "plans_joined",
           "secrets_given_a_word", "slip_before_it"]

_I = re.IGNORECASE
_APOS = "['’]"


#: The new value of what a request just named, in a sentence of its own ("It's 4321.",
#: "It's now 4321."); whether it is one, or a number in a remark, is ``value_told``'s.
_ITS_VALUE = re.compile(rf"^\W*it(?:{_APOS}s|\s+is)\s+(?:(?:now|actually)\s+)?[^\s,;]*[\d@]", _I)
#: Any other thing said of it in a sentence of its own ("It's old.", "It's Eva, don't tell
#: anyone."), but in words of the speaker's own ("It's my birthday.") or a cleft of someone
#: named ("It's Maria who called."): stored alone, "It's old" was kept as a fact of nothing.
ITS_REMARK = re.compile(rf"^\W*it(?:{_APOS}s|\s+is)\s+(?!(?-i:[A-Z])\w*\s+(?:who|that)\b)"
                        r"(?![^.!?]*\b(?:my|our|i|we)\b)", _I)
#: "The new one" of what a request just named, in a sentence of its own ("The new one will
#: come by post."): alone, it was stored as a fact of nothing.
_NEW_ONE = re.compile(r"^\W*(?:the|my|our)\s+new\s+one\b", _I)
#: A slip word or a hedge before "it's" ("No wait, it's Maria.", "Maybe it's Maria."): of
#: what a request just named, as "It's Maria." is; alone, "No wait, it's Maria." asked
#: which word Maria corrects, and "Maybe it's Maria" was stored as a fact of nothing.
_HEDGES = r"maybe|perhaps|possibly|probably|i\s+think|i\s+guess"
_OPENED_ITS = re.compile(rf"^\W*(?:(?:no|nope|wait|sorry|oops|actually|{_HEDGES})\b[\s,!.-]*)+"
                         rf"(?=it(?:{_APOS}s|\s+is)\s{NOT_CLEFT})", _I)
#: What a secret is the same as, or is, in the speaker's own words ("It's the same as my
#: locker code.", "It's my bike lock's code."): of a secret just named, stored alone it kept
#: a clue to it; "It's my birthday." is still a statement. What any thing named is the same
#: as ("Forget my address. It's the same as my sister's.") was stored as a fact of nothing.
_ITS_CLUE = re.compile(
    rf"^\W*it(?:{_APOS}s|\s+is)\s+(?:(?:just|exactly)\s+)?(?:(?P<same>(?:the\s+)?same\s+as|like"
    r"|similar\s+to|based\s+on)|(?:my|our)\b[^.!?]*\b(?:code|number|pin|password|passcode"
    r"|combination)\b)", _I)


def slip_before_it(sentence: str) -> bool:
    """Whether ``sentence`` opens on a slip word or a hedge before "it's" ("No wait, it's
    Maria."), which after a request to forget tells of what it names, no slip of a fact."""
    return _OPENED_ITS.match(sentence) is not None


def _of_a_secret(request: str) -> bool:
    """Whether ``request`` asks to forget a secret ("Forget my PIN")."""
    words = named_in(request).split()
    return any(names_a_secret(words, at) for at in range(len(words)))


#: Where a statement of the speaker's own may follow what was meant ("I meant my brother
#: and I'm moving to Leeds"), and where what was meant is said.
_SAID_AFTER = re.compile(rf"(?:\s*[,;]\s*(?:and\s+)?|\s+and\s+)(?=i(?:{_APOS}(?:m|ve|ll|d))?\s+\w)",
                         _I)
_MEANT_AT = re.compile(r"\bi\s+meant?\b", _I)
#: A few words meant that no value's look tells ("I meant swordfish", "I meant four three
#: two one"): before a statement of the speaker's own, read as one with it, the new
#: password was kept in a quote no request to forget the password finds.
_FEW_WORDS_MEANT = re.compile(r"^i\s+meant?\s+(?:[^\s,;]+\s*){1,4}$", _I)
#: "I mean" before a statement of the speaker's own ("I mean my card is lost"), after a
#: request to forget: why it is asked, as "My card is lost." says; "User: I mean my card
#: is lost" was stored.
_I_MEAN = re.compile(r"(?:^|(?<=[,;])|(?<=\s))\s*i\s+mean\b[\s,:]*(?=(?:my|our|i|we)\b)", _I)


def _meant_apart(sentence: str, after_request: bool) -> list[str]:
    """``sentence`` split where the speaker says something of their own after what was
    meant instead of what a request named ("I meant my brother and I'm moving to Leeds.",
    "Forget my sister, I meant 4321 and I live in Leeds."), before or in it: read as one,
    "User's brother and I'm moving to Leeds" was stored, and the sister named first went.
    A short close ("and I'm done") is still of what was meant."""
    meant = _MEANT_AT.search(sentence)
    request = FORGET_NAMED.match(sentence.strip()) is not None
    if meant is None or means_instead(sentence[meant.start():]) or not (
            after_request or request):
        return [sentence]
    if (request and (hedge := _I_MEAN.search(sentence)) is not None and hedge.start() > 0
            and restated(sentence) == sentence):
        # "Forget my PIN, I mean my card is lost.": not said again of the PIN ("I mean my
        # PIN is old"), nor another thing meant ("I mean my password")
        return [sentence[:hedge.start()].rstrip(" ,;") + ".", _opened(sentence[hedge.end():])]
    for said in _SAID_AFTER.finditer(sentence, meant.end()):
        if (means_instead(what := sentence[meant.start():said.start()])
                or _FEW_WORDS_MEANT.match(what) is not None):
            return [sentence[:said.start()].rstrip(" ,;") + ".", _opened(sentence[said.end():])]
    return [sentence]


#: Where a statement may give way to a request to forget in the same sentence ("My card is
#: lost, forget my email too.", "I moved to Faro, so forget my address."), or with no comma
#: ("My card is lost and please forget my email"); "If I move, forget my address" asks only
#: on a condition, and "I lose my keys and forget my PIN" tells of the speaker.
_REQUEST_AFTER = re.compile(r"\s*[,;]\s*(?:(?:and|so|but|then)\b\s*)?|\s+(?:so|(?:and\s+)?then)\s+"
                            r"|\s+(?:and|but)\s+(?=(?:please|pls)\b)"
                            r"|\s+(?:and|but)\s+(?=forget\b)"
                            r"|\s+(?:and|but)\s+"
                            rf"(?=i\s+(?:want|need|would\s+like)\s|i{_APOS}d\s)", _I)
_ON_A_CONDITION = re.compile(r"^\W*(?:if|when|whenever|unless|once|in\s+case|before|after)\b", _I)
#: Words that quote someone else's request ("My wife said, forget my email").
_QUOTING = re.compile(r"\b(?:said|says|say|told\s+\w+|asked|asks|wrote|writes|goes)\W*$", _I)
#: The speaker's own doing, before a bare "and forget" or "then forget": "I lose my keys and
#: forget my PIN" tells of them, and so asks nothing.
_OWN_DOING = re.compile(r"^\W*(?:i|we)\s+(?!(?:am|was)\b)", _I)


#: A request to forget said as a wish ("I want my PIN gone as well", "I'd like my email
#: deleted"): stored, "User wants User's PIN gone" kept the PIN beside it.
_WISHED_GONE = re.compile(
    rf"^\W*(?:(?:and|also|so|oh|ok(?:ay)?|please)\b[\s,]*)*(?:i\s+(?:want|need|would\s+like)"
    rf"|i{_APOS}d\s+like)\s+(?P<thing>(?:my|our)\s+[^,;.!?]+?)\s+(?P<how>gone|deleted|removed"
    r"|erased|forgotten|wiped)(?:,?\s+(?:too|as\s+well|also|please|now|for\s+good))*"
    # what is said after it ("I want my email gone, my card is lost"), kept beside it; asked
    # ("I want my PIN gone?"), it is a question, and the PIN went
    r"(?:\s*[,;]\s*(?P<rest>\S.*?))?[^\w?]*$", _I)
#: A remark on what a wish named goes on from it ("..., she is mean", "..., it's old"), or
#: what is to stay ("..., but keep my email"): apart, "Keep User's email" was stored.
_OF_WHAT_GOES = re.compile(r"(?:it|she|he|they|that|this)\b|(?:but\s+)?(?:keep|not)\b", _I)


#: More words that name what memory holds of the speaker ("my card number", "my data").
_INFORMATION = re.compile(r"^(?:number|data|details|info|information)$", _I)


def _wish_to_forget(sentence: str) -> re.Match[str] | None:
    """``sentence`` read as a wish that memory lose a thing: one forgotten, or a secret or
    detail of the speaker's gone ("I want my PIN gone"). A person or a thing of the world
    gone or removed is a wish of the speaker's own ("I want my ex gone", "I need my tooth
    removed", "I want my debt gone"): read as a request, it was lost."""
    wish = _WISHED_GONE.match(sentence)
    if wish is None or wish["how"].casefold() == "forgotten":
        return wish
    words = wish["thing"].split()[1:]
    return wish if any(a_secret_or_detail(" ".join(words[at:])) for at in range(len(words))) or (
        _INFORMATION.match(words[-1]) is not None) else None


def _wished(sentence: str) -> list[str]:
    """``sentence`` said as the request to forget it wishes for ("Forget my PIN." of "I want
    my PIN gone as well."), and what is said after it as a sentence of its own, or as it is."""
    wish = _wish_to_forget(sentence)
    if wish is None:
        return [sentence]
    if wish["rest"] and _OF_WHAT_GOES.match(wish["rest"]):
        return [f"Forget {wish['thing']}, {wish['rest']}."]  # "..., she is mean": a remark
    return [f"Forget {wish['thing']}.", *([_opened(wish["rest"]) + "."] if wish["rest"] else [])]


def _request_apart(sentence: str) -> list[str]:
    """``sentence`` split where a request to forget follows a statement: read as one, the
    request was stored as part of a fact ("User's card is lost, forget User's email") and
    the email kept."""
    if FORGET_NAMED.match(sentence.strip()) is not None or _ON_A_CONDITION.match(sentence):
        return _wished(sentence)
    for brk in _REQUEST_AFTER.finditer(sentence):
        rest = sentence[brk.end():]
        # "I lock the door then forget my keys" tells of the speaker as "and" does
        bare = brk[0].strip(" ,;").casefold().split()[:1] in (["and"], ["but"], ["then"])
        if (brk.start() > 0 and (FORGET_NAMED.match(rest) is not None
                                 or _wish_to_forget(rest) is not None)
                and not (bare and _OWN_DOING.match(sentence) and rest[:6].casefold() == "forget")
                and _QUOTING.search(sentence[:brk.start()]) is None):
            return [sentence[:brk.start()].rstrip(" ,;") + ".", *_wished(_opened(rest))]
    return _wished(sentence)


def _opened(sentence: str) -> str:
    """``sentence`` with a capital, as a sentence of its own opens."""
    return sentence[:1].upper() + sentence[1:]


def plans_joined(sentences: list[str]) -> list[str]:
    """``sentences`` with a plan for what a request named ("Forget my password; I will send
    you a new one.") joined to the request, as if said after a comma: alone, it was stored
    as a quote that points at nothing; so is what was meant, a value ("Forget my PIN. I
    meant 4321."), which alone was read as a correction of the PIN gone, and lost with it,
    or another thing to forget ("I meant my brother", stored as "User's brother"), or which
    one of it ("I meant my new one", read as a correction), the
    speaker insisting on it ("I mean it", stored as "User: I mean it"), its new value
    ("Forget my PIN. It's 4321."), stored alone as "It's 4321", and a remark on it
    ("Forget my PIN. It's old."), stored alone as "It's old", and what a secret is the same
    as ("Forget my PIN. It's the same as my locker code."), or any thing is."""
    out: list[str] = []
    parts = [apart for at, whole in enumerate(sentences) for part in _meant_apart(
        whole, at > 0 and FORGET_NAMED.match(sentences[at - 1].strip()) is not None)
        for apart in _request_apart(part)]
    for sentence in parts:
        joined = f"{out[-1].strip().rstrip(' .!;')}, {sentence.strip()}" if out else ""
        if out and FORGET_NAMED.match(out[-1].strip()) is not None and (
                means_instead(sentence) or insists(sentence) or names_which_one(sentence)
                or restated(joined) != joined
                or _ITS_VALUE.match(sentence) is not None
                or ITS_REMARK.match(sentence) is not None
                or _NEW_ONE.match(sentence) is not None
                or slip_before_it(sentence)
                or ((clue := _ITS_CLUE.match(sentence)) is not None
                    and (clue["same"] is not None or _of_a_secret(out[-1])))):
            out[-1] = joined
        elif (out and FORGET_NAMED.match(out[-1].strip()) is not None
                and PLAN_INSTEAD.match(sentence) and of_what_goes(out[-1], sentence)):
            out[-1] = f"{out[-1].strip().rstrip(' .!;')}; {sentence.strip()}"
        elif (out and FORGET_NAMED.match(out[-1].strip()) is not None
                and (hedge := _I_MEAN.match(sentence)) is not None):
            out.append(_opened(sentence[hedge.end():]))
        else:
            out.append(sentence)
    return out


#: A new value asked after a request to forget ("Forget my PIN. It's 4321?"), no value told.
_ASKED_NEW = re.compile(rf"^\W*(?:it(?:{_APOS}s|\s+is)|(?:the|my)\s+new\s+one\s+is)\s+"
                        r"(?P<value>[^?]+?)\s*\?+\W*$", _I)


#: A new value said only to be likely ("Forget my boss. Maybe it's Maria."), no value told.
_HEDGED_NEW = re.compile(rf"^\W*(?:{_HEDGES})\b[\s,]*it(?:{_APOS}s|\s+is)\s+{NOT_CLEFT}"
                         r"(?P<value>[^!?]*?[\w@])\W*$", _I)


#: A capitalised word alone told as what a request forgets is ("Forget my boss. It's London.").
_ITS_WORD = re.compile(rf"^\W*it(?:{_APOS}s|\s+is)\s+(?P<value>(?-i:[A-Z][a-z]+))\W*$", _I)


def _requests_and_after(sentences: list[str]) -> list[tuple[str, str]]:
    """Each request to forget in ``sentences``, what it names and what is said after it."""
    pairs = []
    for sentence in plans_joined(sentences):
        opening = FORGET_NAMED.match(sentence.strip())
        after = sentence.strip()[opening.end():].split(",", 1) if opening else []
        if len(after) > 1:
            pairs.append((after[0], after[1]))
    return pairs


def asked_new_ones(sentences: list[str]) -> list[str]:
    """The values ``sentences`` ask of what a request in them forgets ("4321" of "Forget
    my PIN. It's 4321?"), which are not kept as its new one; '' for a secret's, never to
    be quoted back ("Forget my password. It's swordfish?")."""
    return ["" if _of_a_secret(f"Forget {named}") else value["value"]
            for named, after in _requests_and_after(sentences)
            if (value := _ASKED_NEW.match(after)) is not None]


def hedged_new_ones(sentences: list[str]) -> list[str]:
    """The values ``sentences`` say may be the new one of what a request in them forgets
    ("Maria" of "Forget my boss. Maybe it's Maria."), which are not kept as it; '' for a
    secret's, never to be quoted back."""
    return ["" if _of_a_secret(f"Forget {named}") else value["value"]
            for named, after in _requests_and_after(sentences)
            if (value := _HEDGED_NEW.match(after)) is not None]


def other_names_told(sentences: list[str]) -> list[str]:
    """The words ``sentences`` tell as the new name of someone a request forgets that name
    no one ("London" of "Forget my boss. It's London."), which are not kept as it."""
    return [value["value"] for named, after in _requests_and_after(sentences)
            if (value := _ITS_WORD.match(after)) is not None and named.split()
            and relation_of(named.split()[-1].strip(" .!")) is not None
            and names_another(value["value"])]


#: A capitalised word alone, after a slip word or none, told as what a request forgets is
#: ("Forget my PIN. No wait, it's Maria."), or a word as its new one ("..., my new one is
#: swordfish"): of a secret, no value of it is kept.
_SLIP_WORD = re.compile(rf"^\W*(?:(?:no|nope|wait|sorry|oops|actually)\b[\s,!.-]*)*"
                        rf"(?:it(?:{_APOS}s|\s+is)\s+(?-i:[A-Z][a-z]+)"
                        rf"|(?:my|our|the)\s+new\s+one(?:{_APOS}s|\s+is)\s+[a-z]+)[^\w?]*$", _I)


def secrets_given_a_word(sentences: list[str]) -> list[str]:
    """The secrets a request in ``sentences`` forgets and then tells a capitalised word as
    ("PIN" of "Forget my PIN. No wait, it's Maria."), a word not kept as the new one."""
    return [named.split(maxsplit=1)[-1].strip(" .!") for named, after
            in _requests_and_after(sentences)
            if _of_a_secret(f"Forget {named}") and _SLIP_WORD.match(after) is not None]

