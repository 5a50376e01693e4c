"""The user's earlier messages said again, in order, to an empty core: what a "Forget that."
or "back on" points back at is what the last of them did when it was said ("I moved to
Porto" ended "User lives in Lisbon"), which the messages before it decide. The reading of
one message is the offline policy's (``core_changes`` in agent/offline_statements.py),
passed in, so this module does not import the one that uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import lru_cache
from typing import NamedTuple

from tiermem.memory.text.clauses import clauses_of
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.statements import as_news

__all__ = ["Changes", "Step", "ended_by_last", "only_retracted", "replayed", "stated_by_last"]

#: How one message changes core: (message, core before it, the earlier messages newest
#: first) -> (the facts it ended, the facts it stated with their durability).
Changes = Callable[[str, dict[str, str], list[str]], tuple[list[str], dict[str, str]]]
#: Replays of the user's recent messages kept: a window of them replays each of its
#: shorter ends, and a turn's window shares none of those with the next turn's.
_REPLAYS_KEPT = 64


class Step(NamedTuple):
    """One earlier message said again: the facts held before it, those it ended, those
    held after it and those it stated."""
    before: dict[str, str]
    ended: list[str]
    after: dict[str, str]
    stated: dict[str, str]


def replayed(recent: list[str], changes: Changes) -> tuple[Step, ...]:
    """The user's earlier messages (``recent``, newest first) said again in order to an
    empty core, oldest first. Each is read with the ones before it, so a "Forget that."
    among them takes back what it did when said. A fact said before them all is not known
    here. The steps are shared: none may be changed."""
    return _replay_of(tuple(recent), changes)


@lru_cache(maxsize=_REPLAYS_KEPT)
def _replay_of(recent: tuple[str, ...], changes: Changes) -> tuple[Step, ...]:
    # A "Forget that." or "back on" among the messages replays the ones before it in
    # turn; built on the replay of those, kept here, each message is read once a window
    # rather than once for every such message after it (twice as often per one).
    if not recent:
        return ()
    earlier = _replay_of(recent[1:], changes)
    before = earlier[-1].after if earlier else {}
    ended, stated = changes(recent[0], before, list(recent[1:]))
    after = {fact: kind for fact, kind in before.items() if fact not in ended} | stated
    return (*earlier, Step(before, ended, after, stated))


def ended_by_last(steps: tuple[Step, ...], core: dict[str, str]) -> dict[str, str]:
    """The facts the last message replayed (``steps``, oldest first) ended that ``core``
    no longer holds, with their durability."""
    if not steps:
        return {}
    last = steps[-1]
    return {fact: last.before[fact] for fact in last.ended if fact not in core}


def stated_by_last(steps: tuple[Step, ...], held: Collection[str]) -> list[str]:
    """The statements of ``held`` the last message replayed (``steps``, oldest first)
    stated that none held before it did."""
    if not steps:
        return []
    last = steps[-1]
    return [part for fact in last.stated if fact not in last.before
            for part in clauses_of(fact) if part in held]


def only_retracted(recent: list[str], steps: tuple[Step, ...]) -> bool:
    """Whether the user's last message (``recent[0]``; ``steps`` its replay) ended what was
    held and told nothing in its place, without asking to forget anything: "I no longer
    work at Globex", which a "Forget that." takes back, not "I moved to Porto" (a new
    home told) or "Forget my gym" (a request, which no "Forget that." undoes)."""
    return (bool(recent) and bool(steps) and bool(steps[-1].ended) and not steps[-1].stated
            and all(as_news(said) is not None for said in split_sentences(recent[0])))
