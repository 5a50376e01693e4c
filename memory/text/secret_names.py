"""The names of secrets: a thing whose value is whatever word follows it ("my password
swordfish", "my API key sk-123", "my recovery phrase ..."), whatever that word looks like;
and the details of the user's ("address", "phone number") memory holds as facts."""

from __future__ import annotations

import re

_I = re.IGNORECASE

#: A thing whose next word is its value, whatever it looks like ("my password swordfish").
_SECRET_WORD = re.compile(r"^(?:password|passcode|passphrase|pin|token|secret)$", _I)
#: The word before "key" that makes it a secret ("my API key"), not a thing ("my house key").
_SECRET_KEY_KIND = re.compile(r"^(?:api|access|secret|ssh|private|license|licence|auth"
                              r"|recovery|product|encryption)$", _I)
#: The word before "phrase" that makes it a wallet's secret words ("my recovery phrase"),
#: whose value is several plain words: none looked like a value, and all were stored.
_SECRET_PHRASE_KIND = re.compile(r"^(?:recovery|seed|secret|backup|mnemonic)$", _I)


#: A detail of the user's that memory holds as a fact ("address", "phone number").
DETAIL = re.compile(
    r"^(?:(?:home|work|postal|mailing|billing|email|e-mail)\s+address|address"
    r"|(?:phone|mobile|cell)(?:\s+number)?|number|e-?mail(?:\s+address)?|birthday|date\s+of\s+birth"
    r"|(?:full\s+|last\s+|first\s+|middle\s+)?name|surname)$", _I)


def names_a_secret(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` names a secret: kept in a task as said, "Remove my API key
    sk-123 from the repo" stored the key."""
    if _SECRET_WORD.match(words[at]):
        return True
    kind = {"key": _SECRET_KEY_KIND, "phrase": _SECRET_PHRASE_KIND}.get(words[at].casefold())
    return kind is not None and at > 0 and kind.match(words[at - 1]) is not None


#: A secret of the speaker's said as new or current ("My new password is hunter3") or as
#: kept ("My password is still hunter2"): one value, a word, after it.
_SECRET_SAID = re.compile(
    r"^(?P<owner>my|our)\s+(?:(?P<new>new|current)\s+)?(?P<thing>[\w-]+(?:\s+[\w-]+)?)"
    r"\s+(?P<verb>is|['’]s)\s+(?:(?P<still>still)\s+)?(?P<value>[^\s,;]+?)(?P<end>[.!]*)$", _I)

#: Words that say how a secret is, not what it is ("My password is still secret", "My new
#: password is strong").
_HOW_IT_IS = re.compile(r"^(?:secret|private|safe|hidden|unknown|unchanged|the same|valid|active"
                        r"|expired|set|unset|blank|empty|weak|strong|encrypted|shared|mine"
                        r"|long|longer|short|stronger|random|complex|simple)$", _I)


#: A secret of the speaker's said changed, then its value ("I changed my password, it's still
#: hunter2", "I reset my PIN, it's now 4321"): the secret told as "My password is ..." would.
_CHANGED_THEN_SAID = re.compile(
    r"^i\s+(?:just\s+)?(?:changed|updated|reset|renewed|rotated)\s+(?P<mine>my|our)\s+"
    r"(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s*[,;]\s*(?:and\s+|but\s+)?it(?:['’]s|\s+is)\s+"
    r"(?:now\s+)?(?P<rest>[^\s,;]+(?:\s+[^\s,;]+)?)$", _I)


#: A secret of the speaker's named, then its value after a comma ("My password, it's still
#: hunter2", "My PIN, it's 4321"): the secret told as "My password is ..." would.
_NAMED_THEN_SAID = re.compile(
    r"^(?P<mine>my|our)\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s*[,;:–—]\s*it(?:['’]s|\s+is)\s+"
    r"(?P<rest>(?:(?:still|now)\s+)?[^\s,;]+)$", _I)


def secret_said_plainly(text: str) -> str | None:
    """``text`` as the secret it tells is told plainly, or None (and so when a word of how
    it is follows, not a value: "My new password is strong"): one held at a time, a new
    or current password is the password ("My password is hunter3" of "My new password is
    hunter3"), and one still held is held as it was ("My password is hunter2" of "My
    password is still hunter2"), and so is one said changed ("I changed my password, it's
    still hunter2") or named before its value ("My password, it's still hunter2"), so a
    request to forget the password, or the value said again, finds it."""
    changed = _CHANGED_THEN_SAID.match(text.strip()) or _NAMED_THEN_SAID.match(text.strip())
    if changed is not None:  # said as new: "my new password is ...", or as still held
        rest = changed["rest"]
        if rest.casefold().startswith("now "):
            rest = rest[4:]
        new = "" if rest.casefold().startswith("still ") else "new "
        text = f'{changed["mine"]} {new}{changed["thing"]} is {rest}'
    match = _SECRET_SAID.match(text.strip())
    if match is None or not (match["new"] or match["still"]) \
            or _HOW_IT_IS.match(match["value"]):
        return None
    words = match["thing"].split()
    if not names_a_secret(words, len(words) - 1):
        return None
    return f'{match["owner"]} {match["thing"]} {match["verb"]} {match["value"]}{match["end"]}'


def a_secret_or_detail(thing: str) -> bool:
    """Whether ``thing`` ("PIN", "PIN code", "phone number") is a secret or a detail of the
    user's, and nothing more ("PIN 4321", "seat", "answers brief" are not)."""
    # someone's ("sister's number") as the user's own: "Keep my sister's number safe" of
    # none held was stored as "Keep User's sister's number safe"
    thing = re.sub(r"^[\w-]+['’]s\s+(?=\w)", "", thing)
    words = thing.split()
    return (DETAIL.match(thing) is not None or names_a_secret(words, len(words) - 1)
            or (len(words) == 2 and names_a_secret(words, 0)
                and words[1].casefold() in ("code", "number")))
