"""How the offline policy cuts a user's sentence into the statements it reads one by one
(agent/offline_statements.py): a retraction, a denial or a correction joined to another
statement of the speaker's is read apart from it."""

from __future__ import annotations

from collections.abc import Callable

from tiermem.memory.text.corrections import correction_apart
from tiermem.memory.text.forget_requests import brushes_off, fine_as_it_is
from tiermem.memory.text.own_denials import denies_of_self, withdraws_bare
from tiermem.memory.text.regradings import regraded
from tiermem.memory.text.retractions import retracted
from tiermem.memory.text.statements import (
    forgets_the_last,
    left_for_another,
    now_apart,
    own_clauses,
    past_apart,
    past_then_more,
    read_statement,
    without_aside,
)
from tiermem.memory.text.updates import replaces

__all__ = ["parts_of"]

#: What a message changes in a core (agent/offline_statements.py's ``core_changes``):
#: the facts retired and those appended.
Changes = Callable[[str, dict[str, str]], tuple[list[str], dict[str, str]]]


def parts_of(sentence: str, held: Callable[[], dict[str, list[str]]],
             changes: Changes) -> list[str]:
    """A retraction or a denial joined to another statement of the speaker's ("I'm
    not vegetarian anymore, I eat fish now", "I'm not vegan, I'm vegetarian") is read
    apart from it, when on its own it denies something held: read whole, the
    other's words outweighed what it denies. A correction so joined ("I meant
    Portland, not Seattle, and I work at Acme") is read apart from it always
    (``correction_apart``), as a bare "Forget that" is."""
    sentence = without_aside(sentence)
    if len(apart := correction_apart(sentence)) > 1:
        return apart
    if len(apart := past_then_more(sentence)) > 1:
        return [part for clause in apart for part in parts_of(clause, held, changes)]
    for ended in (past_apart(sentence), left_for_another(sentence, list(held()))):
        if ended != [sentence] and retracted(
                (withdrawal := read_statement(ended[0])).denied, list(held()),
                withdrawal.about):
            # only when it ends something held: "I left Paris for Lisbon" is a trip
            return ended
    if (ended := past_apart(sentence)) != [sentence]:
        # Ending nothing held, "I like tea but now I don't" is still no tea: cut at
        # its "now", it stored "User likes tea". "I smoked, now I don't" keeps the
        # past as said, as a job left does.
        return ended[-1:]
    if len(apart := now_apart(sentence)) > 1:
        return apart
    parts = own_clauses(sentence)
    if len(parts) > 1 and brushes_off(parts[0], parts[1], held()):
        # "Forget it, I'll do it myself": a "never mind", which takes nothing back, as
        # "..., my PIN is fine" tells nothing
        return [part for part in parts[1:] if not fine_as_it_is(part, held())]
    if len(parts) > 1 and (forgets_the_last(parts[0]) or any(map(withdraws_bare, parts))):
        # "Forget that, I'm vegetarian now": the request names nothing, so read whole
        # it would take the new fact for what to forget and store nothing; read whole,
        # "I don't anymore, but I vape" was stored as a fact, garbled.
        return parts
    if len(parts) > 1 and read_statement(sentence).change == "retraction" and any(
            retracted(reading.denied, list(held()), reading.about)
            for reading in map(read_statement, parts) if reading.change == "retraction"):
        return parts
    if len(parts) > 1 and denies_of_self(parts[0]) and any(
            replaces(denied, old, None) for denied in changes(parts[0], {})[1]
            for old in held()):
        # "I'm not vegan, I'm vegetarian": read whole, the denial ends nothing held
        # and the fact it denies stays beside it.
        return regraded(parts)
    return [sentence]
