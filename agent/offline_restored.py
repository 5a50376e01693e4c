"""What a fact taken back puts back: "Forget that." after "I moved to Porto" holds
"User lives in Lisbon" again, as it was before the move ended it, unless the memory forgot
it since. Both work on the offline policy's facts to retire and to append
(agent/offline_statements.py) in place.
"""

from __future__ import annotations

from collections.abc import Callable

from tiermem.memory.text.joint_shares import member_shares

__all__ = ["not_forgotten", "put_back"]


def put_back(ended: tuple[dict[str, str], dict[str, str]], current: dict[str, str],
             new: dict[str, str], retired: list[str]) -> None:
    """Hold again the facts a sentence taken back had ended: ``ended`` is those it took
    from ``current`` (the core) and those it took from ``new`` (this message's); a joint
    fact held again retires the share of each member held apart."""
    from_core, from_message = ended
    for fact, kind in from_core.items():
        if fact in retired:
            retired.remove(fact)
            current[fact] = kind
    for fact, kind in from_message.items():
        new.setdefault(fact, kind)
    for fact in [*from_core, *from_message]:
        # "I work at Acme now" split "Tom works at Globex" off "Tom and User work at
        # Globex": held again, the joint fact says it, and the split is taken back too.
        for share in member_shares(fact):
            if current.pop(share, None) is not None:
                retired.append(share)
            new.pop(share, None)


def not_forgotten(facts: dict[str, str], forgotten: Callable[[str], bool] | None,
                  held: Callable[[str], bool] | None = None) -> dict[str, str]:
    """``facts`` but those the memory forgot: putting one back would store it again, and
    an append in the user's stead would lift what keeps extraction from storing it. With
    ``held`` (whether the memory still holds a fact, in either tier), also but those it
    no longer holds: an erasure leaves no mark of the fact, only the messages that told
    it, and "Forget that." must not store again what the user had erased."""
    return {fact: kind for fact, kind in facts.items()
            if not (forgotten is not None and forgotten(fact))
            and (held is None or held(fact))}
