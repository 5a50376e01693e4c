"""What a joint fact still says of those a change leaves out: after "User works at Acme
now", "Tom and User work at Globex" still says Tom works at Globex.

A change of one member's value ends the joint fact (memory/text/updates.py,
``replaces``), as it no longer holds of all of them; dropped whole, it would take with it
what it said of the others, though the user said nothing new of them. ``shares_kept``
gives each of them that share as a fact of its own, as ``shares_not_denied`` does when
one member's retraction ("I no longer work at Globex") retires it; ``member_shares`` is
every member's, which the joint fact says again when held again. A member named through
a pronoun of the other's ("Tom and his wife") is named by that other ("Tom's wife works at
Globex"), as "His wife works at Globex" alone would name no one; with no one else to name
them ("He and his wife"), no member gets a share.
Pure functions over strings.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tiermem.memory.text.agreement import names_several
from tiermem.memory.text.owners import Owner, may_be_one, owner_of, same_kin
from tiermem.memory.text.slots import joint_members, member_slots, slot_of

__all__ = ["member_shares", "of_no_member", "shares_kept", "shares_not_denied"]

#: Two people and the verb both are the subject of, in the plural.
_JOINT = re.compile(
    r"^(?P<first>[\w' .-]{1,60}?)\s+and\s+(?P<second>[\w' .-]{1,60}?)\s+(?P<verb>"
    r"live\s+in|reside\s+in|are\s+living\s+in|are\s+based\s+in|work\s+(?:at|for|as)"
    r"|are\s+working\s+(?:at|for)|(?:have\s+)?(?:moved|relocated)\s+(?:back\s+)?to)"
    r"\s+(?P<value>\S.*)$",
    re.IGNORECASE,
)
#: The plural words of those verbs and the ones said of one person.
_SINGULAR = {"live": "lives", "reside": "resides", "are": "is", "work": "works",
             "have": "has"}
#: A member named through the other's pronoun: "his wife", "her older brother".
_OF_THE_OTHER = re.compile(r"(?:his|her)\s+(?P<noun>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)",
                           re.IGNORECASE)
#: Owners who are no one without the sentence before them.
_UNNAMED = re.compile(r"(?:he|she|they|his|her|their|its|the|a|an)\b", re.IGNORECASE)


def shares_kept(new: str, old: str) -> list[str]:
    """What the joint fact ``old`` ("Tom and User work at Globex"), which ``new`` ("User
    works at Acme") ends, says of each member ``new`` does not set a value for ("Tom works
    at Globex"); none when ``old`` is of one subject or ``new`` is of every member."""
    changed = set(member_slots(new)) or {slot_of(new) or slot_of(_of_one(new)) or ""}
    return _all_named([share for slot, share in _shares(old) if slot not in changed])


def shares_not_denied(old: str, about: Owner | None) -> list[str]:
    """What the joint fact ``old`` ("Tom and User work at Globex"), which a retraction of
    ``about`` ("I no longer work at Globex": the user) retires, says of each other member
    ("Tom works at Globex"); none when it is unclear whom the retraction is about."""
    if about is None:
        return []
    members = _members(old)
    # "Tom's wife no longer works at Globex" is read as of Tom, by whose she is, yet it
    # names her: of "Tom and his wife work at Globex" it is hers alone, and Tom keeps his.
    hers = [member for member in members if member.whose is not None
            and about.words & member.nouns and may_be_one(about, owner_of(member.whose))]
    kept = [member.share for member in members if member.share is None or (
        member not in hers if hers else not _may_be_of(about, member))]
    return _all_named(kept) if len(kept) < len(members) else []


def of_no_member(about: Owner | None, old: str) -> bool:
    """Whether ``about`` ("Ana" of "Ana no longer works at Globex") is clearly none of the
    members of the joint fact ``old`` ("Tom and User work at Globex"), whose owner alone
    is unclear: what is said of Ana then says nothing of theirs."""
    if about is None:
        return False
    members = _members(old)
    if about.user and any(member.whose is not None and set(about.relations) & member.nouns
                          for member in members):
        # "My wife" beside "Tom and his wife": the user's wife is neither Tom nor his wife
        return True
    return bool(members) and all(member.share is not None and not _may_be_of(about, member)
                                 for member in members)


def member_shares(old: str) -> list[str]:
    """What the joint fact ``old`` says of each of its members, as facts of their own;
    none when it is of one subject or names a member only through a pronoun."""
    return _all_named([share for _, share in _shares(old)])


class _Member(NamedTuple):
    """One member of a joint fact: their slot, their share (None when nothing names them),
    and, for one named through the other's pronoun ("his wife"), that other ("Tom") and
    the words naming them ("wife")."""
    slot: str
    share: str | None
    whose: str | None = None
    nouns: frozenset[str] = frozenset()


def _shares(old: str) -> list[tuple[str, str | None]]:
    """Each member's slot and share of the joint fact ``old``; none when it is of one
    subject."""
    return [(member.slot, member.share) for member in _members(old)]


def _members(old: str) -> list[_Member]:
    """The members of the joint fact ``old``; none when it is of one subject."""
    joint = _JOINT.match(old.strip())
    slots = member_slots(old)
    if joint is None or len(slots) != 2:
        return []
    singular = re.sub(r"^\w+", lambda word: _SINGULAR.get(word[0].casefold(), word[0]),
                      joint["verb"])
    owners = (joint["first"], joint["second"])
    # "User's wife and kids": the kids are the user's too, and live, not "lives"
    named = joint_members(" and ".join(owners))
    members = []
    for at, (owner, slot) in enumerate(zip(owners, slots, strict=True)):
        other = owners[1 - at]
        verb = joint["verb"] if names_several(named[at]) else singular
        said = f"{verb} {joint['value'].rstrip()}"
        owner = named[at] if len(named) == 2 else owner
        of_other = _OF_THE_OTHER.fullmatch(owner)
        if of_other is not None and at == 1 and not _UNNAMED.match(other):
            # "Tom and his wife": the wife is Tom's
            members.append(_Member(slot, f"{other}'s {of_other['noun']} {said}", other,
                                   frozenset(of_other["noun"].casefold().split())))
        else:
            members.append(_Member(slot, None if _UNNAMED.match(owner)
                                   else f"{owner[:1].upper()}{owner[1:]} {said}"))
    return members


def _may_be_of(about: Owner, member: _Member) -> bool:
    """Whether what is said of ``about`` may be said of ``member``. "Tom's wife" would be
    read as Tom, by whose she is: Tom named is not her, unless her own noun is named too
    ("Tom's wife no longer works at Globex"); someone else named ("Ana") may be."""
    if member.whose is None:
        owner = owner_of(member.share or "")
        return may_be_one(about, owner) and same_kin(about, owner)
    if about.user and not about.relations:
        return False  # the user is no one's "his wife"
    return bool(about.words & member.nouns) or not may_be_one(about, owner_of(member.whose))


def _of_one(fact: str) -> str:
    """``fact`` with its first verb as said of one: "User's kids live in Porto" sets where
    they live as "User's kids lives in Porto" would."""
    return re.sub(r"\b(?:live|reside|are|work|have)\b",
                  lambda verb: _SINGULAR[verb[0].casefold()], fact, count=1, flags=re.I)


def _all_named(shares: list[str | None]) -> list[str]:
    """``shares``, or none when one is of a member named only through a pronoun: "His
    wife works at Globex" would say whose wife nowhere."""
    named = [share for share in shares if share is not None]
    return named if len(named) == len(shares) else []
