"""A name alone asked to be deleted, erased or removed ("Delete Tom."): a request to forget
it when a fact held names it, as "Forget Tom." is; else a task, perhaps of another's list."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiermem.memory.text.forget_openings import FORGET_OPENING

__all__ = ["deleted_name", "name_held_deleted"]

_I = re.IGNORECASE

#: "Delete Tom", "Please erase Ana Lee": a name alone after "delete", "erase" or "remove",
#: which asks to forget it when a fact held names it; else it may be a task of another's.
_DELETE_NAME = re.compile(FORGET_OPENING + r"(?P<verb>delete|erase|remove)\s+"
                          r"(?P<name>(?-i:[A-Z][\w'’-]*)(?:\s+(?-i:[A-Z][\w'’-]*)){0,2})"
                          r"(?P<end>(?:,?\s+please)?\W*)$", _I)


def deleted_name(sentence: str, held: Iterable[str]) -> str:
    """The name ``sentence`` asks to delete, erase or remove ("Tom" of "Delete Tom."), when
    a fact ``held`` names it; else ""."""
    asked = _DELETE_NAME.match(sentence.strip())
    if asked is None or not any(re.search(rf"\b{re.escape(asked['name'])}\b", fact)
                                for fact in held):
        return ""
    return asked["name"]


def name_held_deleted(sentence: str, held: list[str]) -> str:
    """``sentence`` as "Forget Tom." when it asks to delete, erase or remove a name a fact
    ``held`` names: stored as the task "Delete Tom", it kept what it asked to forget."""
    if not deleted_name(sentence, held):
        return sentence
    text = sentence.strip()
    verb = _DELETE_NAME.match(text)
    assert verb is not None
    return f"{text[:verb.start('verb')]}forget{text[verb.end('verb'):]}"
