"""Whether a statement opens with the user's one of what was just named ("Mine is Rex."
after "Everyone I know has a dog."), for reading whose a fact of the user's is
(memory/text/asserted.py, memory/ops/fact_said.py). Pure functions over strings.
"""

from __future__ import annotations

import re

from tiermem.memory.text.wording import concepts

__all__ = ["opens_with_mine"]


#: The user's one of what was just named: "mine is Rex", "Ours is called Max"; not one
#: said to be a kind of its own ("Mine is a cat" after "Everyone has a dog"), nor said
#: not to be one ("Mine isn't a dog": of no kind named, it may be no pet at all).
_MINE = re.compile(r"\s*(?:mine|ours)\b(?!(?:\s+(?:is|was)(?:n['’]t|\s+not)?|['’]s(?:\s+not)?)"
                   r"\s+(?:a|an)\b)", re.IGNORECASE)


#: "Mine" said to be the young of what was just named: a puppy is a dog, a kitten a cat.
_MINE_YOUNG = re.compile(r"\s*(?:mine|ours)(?:\s+(?:is|was)|['’]s)\s+an?\s+(?:[a-z]+\s+)?"
                         r"(?P<young>puppy|pup|kitten)\b", re.IGNORECASE)
_GROWN = {"puppy": "dog", "pup": "dog", "kitten": "cat"}
#: "Mine" said not to be of a kind: of the one just named ("Mine isn't a dog"), it may be
#: no pet at all; of another ("Mine isn't a puppy anymore"), it is still the user's one.
_MINE_NOT = re.compile(r"\s*(?:mine|ours)(?:\s+(?:is|was)(?:n['’]t|\s+not)|['’]s\s+not)\s+an?\s+"
                       r"(?P<kind>[a-z]+(?:\s+[a-z]+){0,2})", re.IGNORECASE)


def opens_with_mine(statement: str, before: str = "") -> bool:
    """Whether ``statement`` opens with the user's one of what was just named ("Mine is
    Rex"), whoever that was said of, and says it is no other kind ("Mine is a cat"), but
    maybe its young (a puppy, of a dog named ``before``), nor not that kind ("Mine isn't
    a dog"; "Mine isn't a puppy" still is one)."""
    denied = _MINE_NOT.match(statement)
    if denied is not None:
        return not concepts(denied["kind"]) & concepts(before)
    young = _MINE_YOUNG.match(statement)
    return _MINE.match(statement) is not None or (
        young is not None and concepts(_GROWN[young["young"].casefold()]) <= concepts(before))
