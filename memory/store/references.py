"""What a row refers to, checked before a store writes it: what a snapshot's restore
refuses across rows (memory/ops/snapshot_checks.py), as memory/store/bounds.py checks
each row alone.

A fact's passage must be one the store holds (an archived fact's, one not forgotten:
it is searched through it); a passage's fact must be one the store holds; a vector must
have as many values as the memory's embedder gives. Each backend looks the rows up;
the checks run before the write, so a refused write leaves the store as it was.

A fact's marks on the counters its memory keeps (``core_seq``, and on the interaction
clock ``tick``) must not pass them: a restore refuses a fact that entered core after the
last entry its memory counted, or was read after its memory's last interaction. Nor may
a counter be set below what its rows hold (``CounterSettingCheck``).

An archived fact needs its passage too, but a fact filed straight into archival is
written before its passage, which takes the fact's id, and is then given the passage's
id in the same transaction: written in a transaction, it is checked as that commits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from tiermem.memory.errors import InvalidInputError, StoreError
from tiermem.memory.store.millisecond_times import CLOCK_SETTING, WALL
from tiermem.memory.store.nesting import NestedTransactions
from tiermem.memory.store.records import REINDEX_TARGET_KEY, HistoryPoint, Passage
from tiermem.memory.types import Fact

#: A passage's id to None when the store holds no such passage, else whether it is
#: forgotten.
PassageForgotten = Callable[[int], bool | None]
#: Of the ids given, those of facts the store holds, forgotten ones too.
FactsHeld = Callable[[list[int]], set[int]]
#: Whether the fact of this id is archived, not forgotten, without a passage.
WithoutPassage = Callable[[int], bool]
#: A setting's value, None when it is not set.
Setting = Callable[[str], str | None]
#: The settings that bound a row's counters, read in one lookup: those set, by key.
COUNTER_SETTINGS = ("core_seq", "tick", CLOCK_SETTING)
Counters = Callable[[], dict[str, str]]


def check_fact_counters(fact: Fact, counters: Counters,
                        stored: Callable[[], Fact | None] | None = None) -> None:
    """``fact``'s entry into core and its clock readings, before an insert, or an update
    (given ``stored``, read only for a value refused: a value written back as stored, or
    an update that writes nothing, is let be, as an older version may have stored it)."""
    settings = counters()
    clock = settings.get(CLOCK_SETTING)
    if clock is None:
        return  # no memory has opened the store: it keeps no counters yet
    bounds = [("entered_core_seq", int(settings.get("core_seq") or 0), "core_seq",
               "the last entry into core it counted")]
    if clock != WALL:  # readings of a wall clock may be in the future
        tick = int(settings.get("tick") or 0)
        bounds += [(field, tick, "tick", "its last interaction")
                   for field in ("created_tick", "last_access")]
    for field, bound, key, meaning in bounds:
        value = getattr(fact, field)
        if value <= bound:
            continue
        if stored is not None:
            held = stored()
            if held is None or getattr(held, field) == value:
                continue
        raise InvalidInputError(
            f"fact {field} is {value!r:.40}, past this memory's {key} ({bound}, {meaning}); "
            f"give a value up to it, or set {key!r} first (settings.set) as the memory does")


#: The highest marks the rows hold on the counters, read only for a counter set back:
#: ``core_seq`` (a fact's entry into core), ``tick`` (a history point's), and ``reading``
#: (a fact's creation or last access, on the memory's clock); None where no row holds one.
CounterFloors = Callable[[], dict[str, float | None]]


class CounterBehindRowsError(StoreError):
    """A stored counter below what the memory's rows hold cannot move on; the message
    names the command that raises it to their level."""


class CounterSettingCheck:
    """A counter (``core_seq``, ``tick``) set below what the rows hold is refused, as a
    restore refuses the memory's snapshot, whether set back or moved on from a value an
    older version left below the rows. The store writes no row past its counters, so
    once the stored counter is seen at or above the rows, a value not below it costs the
    one lookup; a store no memory has opened, or one without the counter yet (a copy
    writes its rows first), keeps no bound to check. ``repair`` is the command that
    raises a stored counter left below its rows (``behind``), None for a memory no
    command can open (one held in memory only)."""

    def __init__(self, counters: Counters, floors: CounterFloors,
                 repair: str | None) -> None:
        self._counters = counters
        self._floors = floors
        self._repair = repair
        self._above_rows: set[str] = set()

    def forget(self) -> None:
        """The counters or the clock were written past this check: read the rows again."""
        self._above_rows.clear()

    def behind(self) -> dict[str, tuple[str, int]]:
        """Each counter stored below what its rows hold: its value, and the rows' level."""
        settings = self._counters()
        clock = settings.get(CLOCK_SETTING)
        if clock is None:
            return {}
        highest = self._floors()
        found = {}
        for key in ("core_seq", "tick"):
            held = settings.get(key)
            bound = math.ceil(_bound(key, clock, highest))
            if held is not None and (not held.isdigit() or int(held) < bound):
                found[key] = (held, bound)
        return found

    def check(self, key: str, value: object) -> None:
        if key not in ("core_seq", "tick"):
            if key == CLOCK_SETTING:
                self.forget()
            return
        settings = self._counters()
        clock, held = settings.get(CLOCK_SETTING), settings.get(key)
        if clock is None or held is None:
            return
        given = str(value)
        if not given.isascii() or not given.isdigit():
            counts = "entries into core" if key == "core_seq" else "interactions"
            raise InvalidInputError(f"setting {key!r} counts the memory's {counts}: give a "
                                    f"whole number of 0 or more, like {held}; got "
                                    f"{value!r:.40}")
        held_number = int(held) if held.isdigit() else None
        if key in self._above_rows and held_number is not None and int(given) >= held_number:
            return
        bound = _bound(key, clock, self._floors())
        if held_number is not None and held_number >= bound:
            self._above_rows.add(key)
        if int(given) >= bound:
            return
        if held_number is None or held_number < bound:
            # Only the stored counter can be mended here: the memory moves it on by one.
            level = math.ceil(bound)
            mend = (f"set it to {level} or more (settings.set)" if self._repair is None else
                    f"run `{self._repair}`, which raises it to {level} and changes nothing "
                    f"else")
            raise CounterBehindRowsError(
                f"this memory's counter {key!r} holds {held}, below what its rows hold "
                f"({bound:g}), as an older tiermem or an edit of its database can leave "
                f"it, so it cannot move on to {given}: {mend}")
        what = ("a fact's entry into core" if key == "core_seq"
                else "the memory's history or a fact's reading of its clock")
        raise InvalidInputError(
            f"setting {key!r} to {given} sets it below {what} ({bound:g}), and a snapshot "
            f"of the memory would not restore; give {math.ceil(bound)} or more (it holds "
            f"{held})")


def _bound(key: str, clock: str, highest: dict[str, float | None]) -> float:
    """The least value counter ``key`` may hold, given the rows' ``highest`` marks."""
    marks = [highest["core_seq"]] if key == "core_seq" else [
        highest["tick"], highest["reading"] if clock != WALL else None]
    return max((mark for mark in marks if mark is not None), default=0)


def check_point_tick(point: HistoryPoint, counters: Counters) -> None:
    """A history point: taken at an interaction its memory has counted."""
    settings = counters()
    if CLOCK_SETTING not in settings:
        return
    tick = int(settings.get("tick") or 0)
    if point.tick > tick:
        raise InvalidInputError(
            f"history tick is {point.tick}, past this memory's tick ({tick}, its last "
            f"interaction); record a point in an interaction, or set 'tick' first "
            f"(settings.set) as the memory does")


def check_fact_passage(fact: Fact, forgotten: PassageForgotten,
                       fact_live: Callable[[], bool] | None = None) -> None:
    """``fact``'s passage, before an insert, or an update (given ``fact_live``, read only
    for a passage refused: an update of a forgotten fact writes nothing, so it is let
    be, as before)."""
    passage_id = fact.passage_id
    if passage_id is None:
        return
    state = forgotten(int(passage_id))
    if state is None:
        problem = ("is no passage of this memory; give the id of a passage the store "
                   "holds (passages.insert_many returns them), or None")
    elif state and fact.tier == "archival":
        problem = ("is a forgotten passage, and an archived fact is found through its "
                   "passage; give one not forgotten, or forget the fact with it")
    else:
        return
    if fact_live is not None and not fact_live():
        return
    raise InvalidInputError(f"fact passage_id {passage_id} {problem}")


def _unfiled(fact: Fact) -> bool:
    return fact.tier == "archival" and fact.passage_id is None


def _without_passage(fact_id: object) -> str:
    return (f"fact {fact_id} is archived without a passage, and an archived fact is found "
            f"through its passage; in one transaction, insert the fact, then its passage "
            f"(fact_id the fact's id), then update the fact with the passage's id")


def refuse_archived_alone(fact: Fact, transactions: NestedTransactions) -> None:
    """Before a write outside a transaction: an archived ``fact`` needs its passage, which
    no later write of that transaction can give it."""
    if _unfiled(fact) and not transactions.in_transaction:
        raise InvalidInputError(_without_passage(fact.id if fact.id > 0 else "(new)"))


def check_archived_at_commit(fact: Fact, fact_id: int, transactions: NestedTransactions,
                             without_passage: WithoutPassage) -> None:
    """An archived ``fact`` written as ``fact_id`` without a passage, in a transaction:
    by its commit, its passage must be written and its id given to the fact."""
    if not _unfiled(fact):
        return

    def check() -> None:
        if without_passage(fact_id):
            raise InvalidInputError(_without_passage(fact_id))

    transactions.check_at_commit(check)


def check_passage_facts(passages: Sequence[Passage], held: FactsHeld) -> None:
    """The facts ``passages`` were made from, all looked up at once."""
    wanted = sorted({int(p.fact_id) for p in passages if p.fact_id is not None})
    if not wanted:
        return
    found = held(wanted)
    missing = next((i for i in wanted if i not in found), None)
    if missing is not None:
        raise InvalidInputError(f"passage fact_id {missing} is no fact of this memory; give "
                                f"the id of a fact the store holds (facts.insert returns "
                                f"them), or None")


def check_dimensions(vectors: Iterable[tuple[Any, str | None]], setting: Setting,
                     what: str) -> None:
    """Each (vector, embedder id) to write: as many values as the
    memory's embedder gives (its stored ``embedder_dim``), but for a vector of the embedder
    a reindex is under way to, whose dimension is stored when the reindex ends. A store
    no memory has opened knows no dimension, and takes any."""
    vectors = list(vectors)
    if not vectors:
        return
    dim = int(setting("embedder_dim") or 0)
    if not dim:
        return
    other_sizes = [(at, length, embedder_id) for at, (vector, embedder_id) in enumerate(vectors)
                   if (length := int(np.size(vector))) != dim]
    if not other_sizes:
        return
    # Read once for the whole write: a reindex writes every vector in another size.
    target = setting(REINDEX_TARGET_KEY)
    for at, length, embedder_id in other_sizes:
        if embedder_id is not None and embedder_id == target:
            continue
        place = f"{what} {at}" if len(vectors) > 1 else what
        raise InvalidInputError(f"{place} has {length} values, but this memory's embedder "
                                f"gives {dim}; embed the text with the memory's embedder, or "
                                f"reindex the memory to another one first")
