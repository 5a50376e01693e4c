"""The memory's clock and its journal of what happened to facts.

Time is logical by default: the clock is the interaction count (``tick``), so
eviction order is deterministic in tests; with ``kind="wall"`` recency is
measured in seconds. The journal logs each fact event (add, evict, promote,
bypass, replace, ...) and keeps running totals of evictions and promotions,
so recording history after an interaction stays O(1) however large core grows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.records import Event
from tiermem.memory.types import Fact


class InteractionClock:
    """The interaction count, and the time on the memory's clock."""

    def __init__(self, kind: str, wall: Callable[[], float]) -> None:
        self.kind = kind
        self.wall = wall
        #: Interactions so far.
        self.tick = 0

    def now(self) -> float:
        """Wall-clock time (Unix seconds)."""
        return self.wall()

    def clock_now(self) -> float:
        """The time that recency is measured in: the tick, or wall-clock seconds."""
        return float(self.tick) if self.kind == "logical" else self.wall()


class Journal:
    """Fact events in the store, and the running totals of evictions and promotions."""

    def __init__(self, store: StorageBackend, clock: InteractionClock) -> None:
        self.store = store
        self.clock = clock
        self.totals = {"evictions": 0, "promotions": 0}

    def reload(self) -> None:
        totals = self.store.facts.totals()
        self.totals = {"evictions": totals.evictions, "promotions": totals.promotions}

    def record(self, kind: str, fact: Fact | None, detail: str = "") -> None:
        """Log what happened to a fact, for timelines and audits.

        ``detail`` must not quote the fact or any user text, nor a digest of it (a
        replace keeps the length, memory.text.digest.replaced_detail): the event
        outlives edits and erasures.
        """
        self.store.history.add_event(Event(
            tick=self.clock.tick, kind=kind, fact_id=fact.id if fact else None,
            detail=detail, created_at=self.clock.now()))

    def events_since(self, event_id: int,
                     load: Callable[[int], Fact | None]) -> list[dict[str, Any]]:
        """The events after ``event_id``, each with the text its fact has now (``load``
        finds the fact; "" for one erased since): events store no text of their own."""
        events = self.store.history.events_since(event_id)
        texts: dict[int, str] = {}
        for fact_id in {e.fact_id for e in events if e.fact_id is not None}:
            fact = load(fact_id)
            texts[fact_id] = fact.text if fact is not None else ""
        return [{"id": e.id, "tick": e.tick, "kind": e.kind, "fact_id": e.fact_id,
                 "text": texts.get(e.fact_id, "") if e.fact_id is not None else "",
                 "detail": e.detail, "created_at": e.created_at}
                for e in events]
