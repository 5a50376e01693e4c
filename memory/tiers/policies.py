"""Eviction policies and the heap that finds each one's victim in O(log n).

Every policy maps a core fact to a sort key; the fact with the smallest key
is evicted first. A key must not change as time passes unless the fact itself
changes, so a min-heap stays exact. That holds for all five built-ins,
including frequency x recency: with exponential decay

    score_i(t) = f_i * exp(-(t - t_i) / tau)

the order of scores is the order of ``ln f_i + t_i / tau``, and ``t`` drops out.

One reading breaks that: a last access after ``t`` (a wall clock set back since, another
machine's snapshot). Its score counts it as just read (``score_at``), so its key must be
taken with ``t_i = t``, and that key does move with ``t``. The heap keys such a fact as
read now and keys it again whenever the clock has moved (``EvictionHeap``), until the clock
passes its reading; every other key stays fixed.

A policy may also *protect* a fact: under ``freq_recency_durable`` a durable
fact is never evicted to make room for a short-lived one. When the next victim
is protected, the incoming fact goes straight to archival instead.

Policies are looked up by name; ``register_policy`` adds one (for example, a
policy under test in the benchmark battery) next to the five built-ins.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.types import Fact

DEFAULT_TAU = 50.0


class EvictionPolicy(Protocol):
    """Decides which core fact leaves first."""

    @property
    def name(self) -> str:
        """Short identifier, stored with the memory and shown in reports."""
        ...

    def key(self, fact: Fact) -> tuple[float, ...]:
        """Sort key; the smallest key is evicted first. Must not depend on the clock (a
        reading after the clock is the heap's to cap: ``EvictionHeap``)."""
        ...

    def may_evict_for(self, victim: Fact, incoming: Fact) -> bool:
        """Whether ``victim`` may leave core to make room for ``incoming``.

        Core takes victims in key order and stops at the first one refused, so a
        protected fact must sort after every fact that ``incoming`` may evict: a
        protection that skips around the key order would send the incoming fact to
        archival while evictable facts stay. (``freq_recency_durable`` sorts every
        durable fact after every short-lived one for this reason.) Stopping there
        keeps an insert O(k log n) instead of a walk over all protected facts.
        """
        ...


def _seq(fact: Fact) -> float:
    # entered_core_seq breaks ties by age in core, then id makes the order total.
    return float(fact.entered_core_seq)


@dataclass(frozen=True)
class Fifo:
    """Oldest entry into core leaves first, whatever its use."""

    name: str = "fifo"

    def key(self, fact: Fact) -> tuple[float, ...]:
        return (_seq(fact), fact.id)

    def may_evict_for(self, victim: Fact, incoming: Fact) -> bool:
        return True


@dataclass(frozen=True)
class Lru:
    """Least recently accessed leaves first."""

    name: str = "lru"

    def key(self, fact: Fact) -> tuple[float, ...]:
        return (fact.last_access, _seq(fact), fact.id)

    def may_evict_for(self, victim: Fact, incoming: Fact) -> bool:
        return True


@dataclass(frozen=True)
class Lfu:
    """Least frequently accessed leaves first; ties go to the least recent."""

    name: str = "lfu"

    def key(self, fact: Fact) -> tuple[float, ...]:
        return (fact.access_count, fact.last_access, _seq(fact), fact.id)

    def may_evict_for(self, victim: Fact, incoming: Fact) -> bool:
        return True


@dataclass(frozen=True)
class FreqRecency:
    """Lowest frequency x exponentially decayed recency leaves first."""

    tau: float = DEFAULT_TAU
    name: str = "freq_recency"

    def key(self, fact: Fact) -> tuple[float, ...]:
        return (log_score(fact, self.tau), _seq(fact), fact.id)

    def may_evict_for(self, victim: Fact, incoming: Fact) -> bool:
        return True


@dataclass(frozen=True)
class FreqRecencyDurable:
    """Frequency x recency within a class; short-lived facts always go before durable ones."""

    tau: float = DEFAULT_TAU
    name: str = "freq_recency_durable"

    def key(self, fact: Fact) -> tuple[float, ...]:
        rank = 1.0 if fact.durability == "durable" else 0.0
        return (rank, log_score(fact, self.tau), _seq(fact), fact.id)

    def may_evict_for(self, victim: Fact, incoming: Fact) -> bool:
        return not (victim.durability == "durable" and incoming.durability != "durable")


def log_score(fact: Fact, tau: float) -> float:
    """``ln f + t_last / tau``: monotone in frequency x recency at any fixed time."""
    return math.log(max(fact.access_count, 1)) + fact.last_access / tau


def score_at(fact: Fact, now: float, tau: float) -> float:
    """The frequency x recency score itself, for display. A fact read after ``now`` (a clock
    set back, or a stored time past it) counts as just read: its exponent would overflow."""
    return max(fact.access_count, 1) * math.exp(min(0.0, -(now - fact.last_access) / tau))


POLICY_NAMES = ("fifo", "lru", "lfu", "freq_recency", "freq_recency_durable")

#: Builds a policy for a memory's recency constant ``tau``.
PolicyFactory = Callable[[float], EvictionPolicy]

_REGISTRY: dict[str, PolicyFactory] = {
    "fifo": lambda tau: Fifo(),
    "lru": lambda tau: Lru(),
    "lfu": lambda tau: Lfu(),
    "freq_recency": lambda tau: FreqRecency(tau=tau),
    "freq_recency_durable": lambda tau: FreqRecencyDurable(tau=tau),
}


def register_policy(name: str, factory: PolicyFactory, *, replace: bool = False) -> None:
    """Make ``make_policy(name)`` (and so ``HierarchicalMemory(policy=name)``) use ``factory``.

    The policy's ``name`` must equal ``name``: it is stored with the memory,
    and reopening the memory looks the policy up by it. A mistake raises
    InvalidInputError (a ValueError).
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError(f"a policy name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise InvalidInputError(
            f"the factory for {name!r} must be a callable that takes tau (a float) and "
            f"returns the policy, like lambda tau: MyPolicy(); got {type(factory).__name__}")
    if name in _REGISTRY and not replace:
        raise InvalidInputError(
            f"eviction policy {name!r} is already registered; pass replace=True")
    built = getattr(factory(DEFAULT_TAU), "name", None)
    if built != name:
        raise InvalidInputError(f"the factory for {name!r} builds a policy named {built!r}")
    _REGISTRY[name] = factory


def policy_names() -> tuple[str, ...]:
    """Every policy ``make_policy`` knows: the built-ins, then those registered."""
    return tuple(_REGISTRY)


def make_policy(name: str, tau: float = DEFAULT_TAU) -> EvictionPolicy:
    """A built-in or registered policy by name."""
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(
            f"unknown eviction policy {name!r}; choose one of {', '.join(_REGISTRY)}"
        )
    return factory(tau)


class EvictionHeap:
    """A min-heap of core facts by policy key, with lazy invalidation.

    Updating a fact pushes a fresh entry with a new version; stale entries are
    skipped when they surface. Versions come from one counter that only ever
    increases, so an entry left behind by ``remove`` or ``pop_min`` can never
    pass for live when the same fact is pushed again later (retired, then
    promoted back). The heap is compacted when stale entries outnumber live
    ones, so memory stays O(n) and each operation O(log n) amortised.

    ``clock`` is the memory's clock (the time ``last_access`` is on). A fact read after
    it is keyed as read at that time, as its score counts it (module docstring). A second
    heap, of the latest readings, finds the facts the clock has fallen behind (it was set
    back) without a scan; those are keyed again before a pop whenever the clock has moved,
    so the order popped is the order of the scores at the time of the pop. Without a
    clock, keys take the readings as they are.
    """

    def __init__(self, policy: EvictionPolicy,
                 clock: Callable[[], float] | None = None) -> None:
        self.policy = policy
        self._clock = clock
        self._heap: list[tuple[tuple[float, ...], int, int]] = []
        #: (-last_access, version, id) of the facts keyed with their own reading.
        self._latest: list[tuple[float, int, int]] = []
        self._version: dict[int, int] = {}
        self._facts: dict[int, Fact] = {}
        self._next_version = itertools.count()
        #: The facts read after the clock, by id: the time they were keyed as read at.
        self._ahead: dict[int, float] = {}

    def __len__(self) -> int:
        return len(self._facts)

    def reset(self, facts: Iterable[Fact]) -> None:
        self._facts = {f.id: f for f in facts}
        self._version = {fact_id: next(self._next_version) for fact_id in self._facts}
        self._ahead = {}
        now = self._now()
        self._heap, self._latest = [], []
        for fact in self._facts.values():
            version = self._version[fact.id]
            self._heap.append((self._key(fact, now), version, fact.id))
            if fact.id not in self._ahead:
                self._latest.append((-fact.last_access, version, fact.id))
        heapq.heapify(self._heap)
        heapq.heapify(self._latest)

    def push(self, fact: Fact) -> None:
        """Insert ``fact`` or re-key it after it changed."""
        self._push(fact, self._now())

    def _push(self, fact: Fact, now: float | None) -> None:
        version = next(self._next_version)
        self._version[fact.id] = version
        self._facts[fact.id] = fact
        heapq.heappush(self._heap, (self._key(fact, now), version, fact.id))
        if fact.id not in self._ahead:
            heapq.heappush(self._latest, (-fact.last_access, version, fact.id))
        if len(self._heap) > 2 * len(self._facts) + 64:
            self._compact()

    def remove(self, fact_id: int) -> None:
        self._facts.pop(fact_id, None)
        self._version.pop(fact_id, None)
        self._ahead.pop(fact_id, None)

    def pop_min(self) -> Fact | None:
        """Remove and return the fact with the smallest key."""
        self._rekey_ahead()
        while self._heap:
            _, version, fact_id = heapq.heappop(self._heap)
            if self._version.get(fact_id) == version:
                self._version.pop(fact_id)
                self._ahead.pop(fact_id, None)
                return self._facts.pop(fact_id)
        return None

    def _now(self) -> float | None:
        return self._clock() if self._clock is not None else None

    def _key(self, fact: Fact, now: float | None) -> tuple[float, ...]:
        if now is not None and fact.last_access > now:
            # Scored as just read (score_at): with its own reading, a fact read "30 days
            # ahead" would outrank e^30 accesses and never leave core.
            self._ahead[fact.id] = now
            return self.policy.key(dataclasses.replace(fact, last_access=now))
        self._ahead.pop(fact.id, None)
        return self.policy.key(fact)

    def _rekey_ahead(self) -> None:
        """Key as read now the facts whose reading the clock is behind: those it fell
        behind since they were keyed (the latest readings first, so only they are looked
        at), and those keyed as read at another time. Usually there are none, and a pop
        stays O(log n)."""
        now = self._now()
        if now is None:
            return
        while self._latest and (self._version.get(self._latest[0][2]) != self._latest[0][1]
                                or -self._latest[0][0] > now):
            # (self._latest, not a name for it: a push may compact it into a new list)
            _, version, fact_id = heapq.heappop(self._latest)
            if self._version.get(fact_id) == version:
                self._push(self._facts[fact_id], now)  # now ahead: keyed as read now
        for fact_id, keyed_at in list(self._ahead.items()):
            if keyed_at != now:
                self._push(self._facts[fact_id], now)

    def _compact(self) -> None:
        self._heap = [e for e in self._heap if self._version.get(e[2]) == e[1]]
        heapq.heapify(self._heap)
        self._latest = [e for e in self._latest if self._version.get(e[2]) == e[1]]
        heapq.heapify(self._latest)
