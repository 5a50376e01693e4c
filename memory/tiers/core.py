"""Core memory: the bounded set of facts rendered into every prompt.

Core's size is measured in tokens of the facts' text (``unit="tokens"``) or
in facts (``unit="facts"``) and never exceeds ``limit`` after any operation.
This module keeps the facts in memory with an ``EvictionHeap`` and writes
every change to the store's facts; the hierarchy decides what eviction does
with a victim (it moves it to archival).

How facts enter and leave core (access counting, promotion) is in
memory/tiers/lifecycle.py.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator

from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.guard import read_fresh
from tiermem.memory.text.fact_keys import fact_norms
from tiermem.memory.tiers.policies import EvictionHeap, EvictionPolicy
from tiermem.memory.types import Fact

UNITS = ("tokens", "facts")

class CoreTier:
    """The facts in core, their policy heap, and their size against the limit."""

    def __init__(
        self,
        store: StorageBackend,
        policy: EvictionPolicy,
        limit: int,
        unit: str,
        count_tokens: Callable[[str], int],
        clock: Callable[[], float] | None = None,
    ) -> None:
        """``clock`` is the time facts' ``last_access`` is on; the heap keys a fact read
        after it as read now, as its score does (memory/tiers/policies.py)."""
        if unit not in UNITS:
            raise ValueError(f"core_limit_unit must be 'tokens' or 'facts', got {unit!r}")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"core_limit must be a positive integer, got {limit!r}")
        self.store = store
        self.policy = policy
        self.limit = limit
        self.unit = unit
        self.count_tokens = count_tokens
        self._facts: dict[int, Fact] = {}
        self._counted: dict[int, tuple[int, int, int]] = {}
        self._heap = EvictionHeap(policy, clock)
        self._used = 0
        self._tokens = 0
        self._durable = 0
        self.reload()
        store.on_rollback(self.reload)

    # -- state ----------------------------------------------------------------------------
    def reload(self) -> None:
        facts = self.store.facts.in_core()
        self._facts, self._counted = {}, {}
        self._used = self._tokens = self._durable = 0
        for fact in facts:
            self._add(fact)
        self._heap.reset(facts)

    def reconfigure(self, limit: int, unit: str, policy: EvictionPolicy) -> None:
        """Take another size and policy, and recount core by them (a reader following the
        settings its writer stored; a writer's core is sized when it opens)."""
        if (limit, unit, policy) == (self.limit, self.unit, self.policy):
            return
        self.limit, self.unit, self.policy = limit, unit, policy
        self._heap.policy = policy
        self.reload()

    def __len__(self) -> int:
        read_fresh(self.store)
        return len(self._facts)

    def __iter__(self) -> Iterator[Fact]:
        """Copies of core's facts, by id: an edit of one must go through the memory, or
        the prompt, the limit's accounting and the eviction order would change unstored
        (the lifecycle mutates the objects core holds, from ``get``)."""
        return iter([copy.copy(f) for f in self.held()])

    def held(self) -> list[Fact]:
        """Core's facts by id, the very objects core holds: for the memory's own reads that
        change none of them, such as every ``query()``, which copying each fact would slow
        by a share that grows with core."""
        read_fresh(self.store)
        return sorted(self._facts.values(), key=lambda f: f.id)

    def __contains__(self, fact_id: object) -> bool:
        read_fresh(self.store)
        return fact_id in self._facts

    def ids(self) -> list[int]:
        """The ids of the facts in core."""
        return list(self._facts)

    def get(self, fact_id: int) -> Fact | None:
        return self._facts.get(fact_id)

    @property
    def used(self) -> int:
        """Size in the limit's unit."""
        read_fresh(self.store)
        return self._used

    @property
    def tokens(self) -> int:
        return self._tokens

    @property
    def durable_count(self) -> int:
        return self._durable

    def size(self, fact: Fact) -> int:
        return fact.tokens if self.unit == "tokens" else 1

    def size_of_text(self, text: str) -> int:
        return self.count_tokens(text) if self.unit == "tokens" else 1

    def holds(self, size: int) -> bool:
        """Whether a fact of ``size`` units fits in core at all, with everything else out.

        A fact that does not belongs in archival from the start: no eviction makes room.
        """
        return size <= self.limit

    # -- planning (no mutation unless accepted) -------------------------------------------
    def plan_room(
        self, incoming: Fact, extra: int, exclude: int | None = None
    ) -> list[Fact] | None:
        """Victims to evict so ``extra`` more units fit; None if the policy protects one.

        Victims are taken off the heap; the caller either evicts them all or
        hands them back with ``give_back``.
        """
        need = self._used + extra - self.limit
        victims: list[Fact] = []
        skipped: list[Fact] = []
        freed = 0
        while freed < need:
            victim = self._heap.pop_min()
            if victim is None:
                break
            if victim.id == exclude:
                skipped.append(victim)
                continue
            if not self.policy.may_evict_for(victim, incoming):
                self.give_back([*victims, victim, *skipped])
                return None
            victims.append(victim)
            freed += self.size(victim)
        self.give_back(skipped)
        if freed < need:
            self.give_back(victims)
            return None
        return victims

    def give_back(self, facts: list[Fact]) -> None:
        for fact in facts:
            self._heap.push(fact)

    # -- mutation (inside a store transaction) --------------------------------------------
    def insert(self, fact: Fact, norm: str) -> Fact:
        fact.id = self.store.facts.insert(fact, norm)
        if fact.tier == "core":
            self._add(fact)
        return fact

    def save(self, fact: Fact, norm: str | None = None) -> None:
        """Write every mutable field of ``fact`` and keep the in-memory view in step."""
        self.store.facts.update(fact, norm)
        old = self._facts.get(fact.id)
        if old is not None:
            self._drop(old)
        if fact.tier == "core":
            self._add(fact)
        else:
            self._heap.remove(fact.id)

    def delete(self, fact_ids: list[int]) -> list[Fact]:
        """Remove facts for good, from core or archival (an erasure); returns them."""
        deleted = self.store.facts.delete(fact_ids)
        for fact in deleted:
            held = self._facts.get(fact.id)
            if held is not None:
                self._drop(held)
            self._heap.remove(fact.id)
        return deleted

    def _add(self, fact: Fact) -> None:
        # Remember what was counted, since callers mutate Fact objects in place.
        counted = (self.size(fact), fact.tokens, int(fact.durability == "durable"))
        self._facts[fact.id] = fact
        self._counted[fact.id] = counted
        self._heap.push(fact)
        self._used += counted[0]
        self._tokens += counted[1]
        self._durable += counted[2]

    def _drop(self, fact: Fact) -> None:
        del self._facts[fact.id]
        size, tokens, durable = self._counted.pop(fact.id)
        self._used -= size
        self._tokens -= tokens
        self._durable -= durable

    def find_by_norm(self, norm: str) -> Fact | None:
        """A fact with this normalised text in either tier."""
        found = self.store.facts.by_norm(norm)
        if found is None:
            return None
        return self._facts.get(found.id) or found

    def find_same(self, text: str) -> Fact | None:
        """The fact that states ``text``, in either tier: stored under its key, or under
        one an earlier version gave it (memory/text/fact_keys.py)."""
        for norm in fact_norms(text):
            found = self.find_by_norm(norm)
            if found is not None:
                return found
        return None

    def load(self, fact_id: int) -> Fact | None:
        if fact_id in self._facts:
            return self._facts[fact_id]
        return self.store.facts.get(fact_id)

    def source_messages(self, fact_ids: Iterable[int]) -> dict[int, int]:
        """The message each of ``fact_ids`` was learned from, by fact id (facts without
        one left out): core's from memory, the others read from the store at once."""
        found: dict[int, int] = {}
        others = []
        for i in set(fact_ids):
            fact = self._facts.get(i)
            if fact is None:
                others.append(i)
            elif fact.source_message_id is not None:
                found[i] = fact.source_message_id
        if others:
            found.update(self.store.facts.source_messages(sorted(others)))
        return found

    def all_rows(self) -> list[Fact]:
        """Every fact, core's as the objects core holds (a writer mutates those in place).
        A reader's are the rows as read: its copy of core may lag them by a commit made
        just before its call's read transaction (PostgreSQL, ``StorageBackend.reading``),
        and mixing the two would show facts in both tiers' places at once."""
        rows = self.store.facts.all()
        if self.store.read_only:
            return rows
        return [self._facts.get(f.id) or f for f in rows]
