"""The name of someone of the user's, kept when a fact about them changes without it: "My
wife works at Acme now" after "User's wife Ana works at Globex" is "User's wife Ana works
at Acme", not a fact that drops the only place her name was held. Only kin's: "My boss
works at Globex now" may be a new boss, whom Ana's name would misname. Pure functions
over strings, for the offline policy's statements (agent/offline_statements.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from tiermem.memory.text.appositions import naming
from tiermem.memory.text.owners import owner_of
from tiermem.memory.text.relations import is_family, may_be_several, relation_of

__all__ = ["with_the_name_kept"]

#: Words that give someone a name ("her name is Eva", "named Eva"): a fact saying one
#: names them anew, so the name held before would contradict it.
_NAMING = re.compile(r"\b(?:name\s+is|named|called)\b", re.IGNORECASE)


def with_the_name_kept(new: str, replaced: Sequence[str], held: Iterable[str] = ()
                       ) -> str | None:
    """``new``, which changes the facts ``replaced``, with the name the first of them to
    give one gives the one of the user's all are about ("User's wife Ana", "User's mother
    Ana Silva"); None when ``new`` names them itself ("User's wife is Eva"), none names
    anyone, one of several may be another ("my brother"), they are no kin ("my boss" may
    be a new one), or a fact ``held`` names them otherwise ("User's wife's name is Eva"):
    the name kept would then say what is no longer so."""
    # "User's wife is Eva" names her anew: "Ana" kept would make it "User's wife Ana is Eva"
    if _NAMING.search(new) or naming(new) is not None:
        return None
    kept = next(filter(None, (_named(new, old) for old in replaced)), None)
    if kept is None:
        return None
    who, had_who, name = kept
    whose = "|".join(map(re.escape, {who, had_who}))
    said_otherwise = re.compile(
        rf"^(?:{whose})(?:['’]s\s+name)?\s+(?:is\s+(?:named\s+|called\s+)?|named\s+"
        rf"|called\s+)(?!{re.escape(name)}\b)(?-i:[A-Z])", re.IGNORECASE)
    if any(said_otherwise.match(fact.strip()) for fact in held):
        return None
    return f"{who} {name}{new[len(who):]}"


def _named(new: str, old: str) -> tuple[str, str, str] | None:
    """Whose ``new`` and ``old`` are about, as each says it ("User's mom", "User's
    mother"), and the name ``old`` gives them ("Ana"), when ``new`` gives none and they
    are one of one at a time."""
    changed, had = owner_of(new), owner_of(old)
    if (changed is None or had is None or changed.name is not None or had.name is None
            or not changed.relations or changed.relations != had.relations
            or any(map(may_be_several, changed.relations))
            # "My boss works at Globex now" may be a new boss: Ana's name is kept for kin
            or not all(map(is_family, changed.relations))):
        return None
    named = re.match(rf"^(?P<who>.*?)\s+(?P<name>{re.escape(had.name)}"
                     r"(?:\s+(?-i:[A-Z])[\w'’-]*)*)\b", old.strip(), re.IGNORECASE)
    if named is None:
        return None
    # "My mom lives in Porto now" is about "User's mother Ana": her name follows "mom"
    had_who = named["who"]
    who = " ".join(new.split()[:len(had_who.split())])
    relation = relation_of(who.rpartition(" ")[2])
    if who != had_who and (relation is None
                           or relation != relation_of(had_who.rpartition(" ")[2])):
        return None
    return who, had_who, named["name"]
