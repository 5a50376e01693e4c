"""Which of the user's people a changed fact is about, when the facts it would change are
of more than one: "My partner works at Globex now" may be the boyfriend's or the
girlfriend's, and "No, my brother is Ben" names one brother of several. Where nothing
says which, every such fact stays. Pure functions over strings, for the offline policy's
statements (agent/offline_statements.py).
"""

from __future__ import annotations

import re
from itertools import combinations

from tiermem.memory.text.kin_values import another_of_several
from tiermem.memory.text.owners import may_be_same_kin
from tiermem.memory.text.slots import ATTRIBUTE, member_slots
from tiermem.memory.text.updates import role_of, slot_of

__all__ = ["of_one_person", "one_of_several"]


def of_one_person(fact: str, replaced: list[str]) -> list[str]:
    """``replaced``, the facts ``fact`` changes, but for those of one of the user's named
    otherwise when they are of two people: "My partner works at Globex now" may be of the
    boyfriend or of the girlfriend, and which one, nothing says, so both stay."""
    slot = slot_of(fact)
    if slot is None:
        return replaced
    # Each of a joint subject ("Tom and Anna work at Globex") is named by name, not otherwise.
    named_otherwise = [old for old in replaced
                       if (old_slot := slot_of(old)) is not None and old_slot != slot
                       and role_of(old_slot) == role_of(slot)
                       and old_slot not in member_slots(fact)]
    if any(not may_be_same_kin(one, other) for one, other in combinations(named_otherwise, 2)):
        return [old for old in replaced if old not in named_otherwise]
    return replaced


def one_of_several(fact: str, replaced: list[str], recent: list[str]) -> list[str]:
    """``replaced``, the facts ``fact`` changes, but of the names of two or more of the
    user's one may have several of ("User's brother is Tom", "... is Sam") only the one
    the user named last (``recent``: their earlier messages, newest first): "No, my
    brother is Ben" corrects one brother's name, not both. When no message names one of
    them alone, which one it corrects nothing says, so all of them stay."""
    several = [old for old in replaced if another_of_several(fact, old)]
    if len(several) < 2:
        return replaced
    rest = [old for old in replaced if old not in several]
    for message in recent:
        named = [old for old in several
                 if (match := ATTRIBUTE.match(old.strip())) is not None
                 and re.search(rf"\b{re.escape(match['value'].strip(' .'))}\b", message)]
        if named:
            return rest + named if len(named) == 1 else rest
    return rest
