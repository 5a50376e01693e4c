"""The things a request to forget names as a list ("my locker code and my gym", "my address,
phone number and email", "my mum's and my dad's address"), each on its own: read whole, the
words of one outweigh the other's, and only the first would go. Which sentence is such a
request is memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re

__all__ = ["owned_already", "things_listed"]

_I = re.IGNORECASE
_APOS = "['’]"

#: Where a request naming what to forget names the next thing of a list ("my locker code
#: and my gym", "my gym, my dentist and my locker code"): before each owner word.
_NEXT_NAMED = re.compile(r"\s*,\s*(?:and\s+)?(?=(?:my|our|the|your)\s+\w)"
                         r"|\s+and\s+(?=(?:my|our|the|your)\s+\w)", _I)
#: A possessive ending a thing named ("my mum's", "my parents'"), which names no thing.
_OWNER_ALONE = re.compile(rf"\w{_APOS}s?$", _I)
#: The thing the last possessive of a thing named owns ("my dad's address": "address").
_OWNED_THING = re.compile(rf"\w{_APOS}s?\s+(?P<thing>[^'’]+)$", _I)


#: Where a list of a few words each is joined ("my address, phone number and email").
_ITEM_JOIN = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", _I)
#: A word that makes what follows a join a clause, not one more thing named ("my address
#: and I'll tell you why", "my address and then my phone").
_CLAUSE_WORD = re.compile(
    r"\b(?:i|we|you|he|she|they|it|is|are|was|were|has|have|had|do|does|did|will|can|then"
    rf"|that|which|who|please)\b|\w{_APOS}(?:ll|re|ve|d|m|t)\b", _I)
_MAX_ITEM_WORDS = 4
#: What a thing named opens with that says whose it is ("my ", "my brother's ").
_OWNER_WORDS = re.compile(rf"^(?:my|our|the|your)\s+(?:[\w-]+{_APOS}s?\s+)*", _I)
_OWNED_ALREADY = re.compile(r"^(?:my|our|the|your)\b", _I)
_SOMEONE_ELSES = re.compile(r"^(?:his|her|their|its)\b", _I)


def _short_items(named: str) -> list[str] | None:
    """``named`` as a list of a few words each, joined by a closing "and", with each item
    that names no owner given the first one's: "my address and phone number" names "my
    phone number" too, which, read whole, lost to the address and was kept. None when it
    is no such list."""
    seps = list(_ITEM_JOIN.finditer(named))
    if not seps or "and" not in seps[-1].group().casefold().split():
        return None
    items = _ITEM_JOIN.split(named)
    # "my sister and her husband" is one: he is named by whose he is, and goes with her.
    if any(not item or len(item.split()) > _MAX_ITEM_WORDS or _CLAUSE_WORD.search(item)
           or _SOMEONE_ELSES.match(item) for item in items):
        return None
    owner = _OWNER_WORDS.match(items[0])
    prefix = owner.group() if owner is not None else ""
    return [item if _OWNED_ALREADY.match(item) or item[:1].isupper() else prefix + item
            for item in items]


def _owners_share_things(items: list[str]) -> list[str]:
    """``items`` with each owner alone given the thing an owner near it names: "my mum's
    and my dad's address" names two addresses, "my mum's address and my dad's" too, and
    "my dog's and my cat's vet, and my gym" two vets, "my gym and my dad's" two gyms.
    Alone, "my mum's" would take every fact about her. The next owned thing is taken
    first, the one before it otherwise."""
    things = [_thing_named(item) for item in items]
    shared = []
    for at, item in enumerate(items):
        thing = next((t for t in things[at + 1:] if t is not None), None) or next(
            (t for t in reversed(things[:at]) if t is not None), None)
        shared.append(f"{item} {thing}" if thing and _OWNER_ALONE.search(item) else item)
    return shared


def _thing_named(item: str) -> str | None:
    """The thing ``item`` names past whose it is ("address" of "my dad's address", "gym" of
    "my gym": "my gym and my dad's" names two gyms); None for an owner alone."""
    if _OWNER_ALONE.search(item):
        return None
    owned = _OWNED_THING.search(item)
    if owned is not None:
        return owned.group("thing")
    owner = _OWNER_WORDS.match(item)
    return (item[owner.end():] or None) if owner is not None else None


def things_listed(named: str) -> list[str] | None:
    """What ``named`` (all a request to forget names) lists, each with its owner and thing
    ("my mum's and my dad's address" -> "my mum's address", "my dad's address"); None when
    it lists nothing: a list needs its "and" ("my address, the one in Berlin" is one)."""
    items = _short_items(named.rstrip(" .!"))
    if items is None:
        seps = list(_NEXT_NAMED.finditer(named))
        if not seps or "and" not in seps[-1].group().casefold().split():
            return None
        items = [item.rstrip(" .!") for item in _NEXT_NAMED.split(named)]
    return _owners_share_things(items)


def owned_already(named: str) -> bool:
    """Whether ``named`` opens by saying whose it is ("my phone number", "the gym")."""
    return _OWNED_ALREADY.match(named) is not None
