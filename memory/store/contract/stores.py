"""The stores of the tables a backend keeps: facts, passages, messages, history and
events, forgetting, settings (the rules they keep: memory/store/contract/__init__.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from tiermem.memory.store.records import (
    Event,
    Fact,
    FactTotals,
    ForgetRequest,
    Forgotten,
    HistoryPoint,
    Message,
    Passage,
    RowFilter,
)

__all__ = [
    "FactStore",
    "ForgetStore",
    "HistoryStore",
    "MessageStore",
    "PassageStore",
    "SettingsStore",
]


class FactStore(Protocol):
    """Facts and core membership (``Fact.tier`` is ``core`` or ``archival``).

    ``norm`` is a fact's normalised text (memory.text.extract.fact_norm), unique across
    both tiers.
    """

    def in_core(self) -> list[Fact]:
        """Every fact in core, in id order."""
        ...

    def all(self) -> list[Fact]:
        """Every fact ever added, in either tier, in id order."""
        ...

    def get(self, fact_id: int) -> Fact | None:
        ...

    def source_messages(self, fact_ids: Sequence[int]) -> dict[int, int]:
        """The message each of ``fact_ids`` was learned from (``source_message_id``), by fact
        id, read at once; a fact that is gone, forgotten or has no source is left out."""
        ...

    def by_norm(self, norm: str) -> Fact | None:
        """The fact with this normalised text, in either tier."""
        ...

    def insert(self, fact: Fact, norm: str) -> int:
        """Store a new fact (its ``id`` is ignored); returns the id given to it."""
        ...

    def update(self, fact: Fact, norm: str | None = None) -> None:
        """Write every mutable field of ``fact`` (all but id, created_at, created_tick,
        source, source_message_id), and ``norm`` when given."""
        ...

    def totals(self) -> FactTotals:
        """Evictions, promotions and promote-evict cycles summed over every fact."""
        ...

    def cycling(self, min_cycles: int, limit: int) -> list[Fact]:
        """Up to ``limit`` facts with at least ``min_cycles`` cycles, most cycles first."""
        ...

    def learned_from(self, message_ids: Sequence[int]) -> list[int]:
        """Ids of the facts whose ``source_message_id`` is one of ``message_ids``, in order."""
        ...

    def forgotten_from(self, message_ids: Sequence[int]) -> list[Fact]:
        """The facts forgotten and not yet erased whose ``source_message_id`` is one of
        ``message_ids``, in id order: what a kept message was the source of."""
        ...

    def delete(self, fact_ids: Sequence[int]) -> list[Fact]:
        """Remove those of ``fact_ids`` that exist, with their full-text entries; returns
        them as they were. Their ids are never given again (``ERASED_ID_KEYS``)."""
        ...


class PassageStore(Protocol):
    """Archival passages. Tags and metadata are stored as given (the tier cleans them)."""

    def count(self) -> int:
        ...

    def insert_many(self, passages: Sequence[Passage]) -> list[int]:
        """Store passages in order, each with its vector; returns their ids."""
        ...

    def get_many(self, ids: Sequence[int]) -> dict[int, Passage]:
        """The passages of ``ids`` that exist, by id, without their vectors."""
        ...

    def mark_evicted(self, passage_id: int, evicted_at: float) -> None:
        """Record that core evicted this passage's fact (``was_in_core`` becomes True)."""
        ...

    def clear_evicted(self, passage_id: int) -> None:
        """Record that this passage's fact is back in core: ``evicted_at`` becomes None
        until the next ``mark_evicted``; ``was_in_core`` is kept."""
        ...

    def replace_text(self, passage_id: int, text: str, embedding: np.ndarray,
                     embedder_id: str) -> None:
        """A fact's passage takes the fact's edited text and its new vector."""
        ...

    def set_metadata(self, passage_id: int, metadata: dict[str, object]) -> None:
        """Replace the passage's metadata whole."""
        ...

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        """Those of ``ids`` (in the order given) whose rows pass ``filt``."""
        ...

    def holding(self, text: str) -> list[int]:
        """Ids of the passages not forgotten whose text is exactly ``text``, in id order;
        read through an index, not by reading every passage."""
        ...

    def texts(self, *, after_id: int = 0, limit: int | None = None,
              without_vector: bool = False) -> list[tuple[int, str]]:
        """(id, text) of passages after ``after_id`` in id order, up to ``limit``;
        with ``without_vector``, only those stored without one."""
        ...

    def set_embeddings(self, ids: Sequence[int], vectors: np.ndarray,
                       embedder_id: str) -> None:
        """Store row ``i`` of ``vectors`` as the vector of ``ids[i]``."""
        ...

    def count_without_vector(self, embedder_id: str) -> int:
        """Passages with no vector, or one from another embedder than ``embedder_id``."""
        ...

    def count_through(self, last_id: int) -> int:
        """Passages whose id is at most ``last_id`` (progress of a re-embedding)."""
        ...

    def made_from(self, fact_ids: Sequence[int]) -> list[int]:
        """Ids of the passages whose ``fact_id`` is one of ``fact_ids``, in order."""
        ...

    def filed_from(self, message_ids: Sequence[int]) -> list[int]:
        """Ids of the passages whose ``source_message_id`` is one of ``message_ids``, in
        order (forgotten ones too, as ``made_from``)."""
        ...

    def delete(self, ids: Sequence[int]) -> list[Passage]:
        """Remove those of ``ids`` that exist, with their full-text entries and stored
        vectors; returns them as they were (without vectors). The tier tells the table's
        ``VectorIndex`` in the same transaction. Their ids are never given again
        (``ERASED_ID_KEYS``)."""
        ...


class MessageStore(Protocol):
    """Recall: every message, append-only (the contract's rules)."""

    def count(self) -> int:
        ...

    def max_id(self) -> int:
        """The newest message's id (0 when there is none)."""
        ...

    def append_many(self, messages: Sequence[Message], *, bulk: bool = False) -> list[int]:
        """Store messages in order, each with its vector if it has one; returns their ids.

        ``bulk`` says many are loaded at once (an import): a backend may index their
        text in one pass after the rows are in. Same result, same transaction.
        """
        ...

    def get_many(self, ids: Sequence[int]) -> dict[int, Message]:
        """The messages of ``ids`` that exist, by id, without their vectors."""
        ...

    def set_status(self, message_id: int, status: str) -> None:
        ...

    def resolve_pending(self, status: str) -> list[int]:
        """Give every message still ``pending`` this status; returns their ids."""
        ...

    def erase(self, message_ids: Sequence[int], reason: str, erased_at: float) -> list[Message]:
        """Record an erasure for each message of ``message_ids`` that exists, then delete it;
        returns the messages erased (without vectors). No message stored later takes the
        id of one erased."""
        ...

    def in_turns_of(self, message_ids: Sequence[int], *,
                    forgotten: bool = False) -> list[Message]:
        """Every message of the turns (``Message.turn``) that the messages of ``message_ids``
        belong to, those included, in id order, without vectors; forgotten ones of
        ``message_ids`` name their turns too. Forgotten messages are returned only with
        ``forgotten`` (an erasure, which removes them as well)."""
        ...

    def in_turns(self, turns: Sequence[int], *, forgotten: bool = False) -> list[Message]:
        """Every message of these turns (``Message.turn``), in id order, without vectors;
        forgotten ones only with ``forgotten``."""
        ...

    def after(self, after_id: int, limit: int) -> list[Message]:
        """Up to ``limit`` messages with ids past ``after_id``, in id order, forgotten ones
        included, without vectors: all of recall read a page at a time (an erasure's
        search for copies of what it takes)."""
        ...

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        """Those of ``ids`` (in the order given) whose rows pass ``filt``."""
        ...

    def context_sources(self, ids: Sequence[int]) -> dict[int, int]:
        """For each of ``ids`` whose full-text entry holds a context (memory/tiers/recall.py),
        the id of the message that context is the text of."""
        ...

    def matching_own_text(self, terms: Sequence[str], ids: Sequence[int]) -> set[int]:
        """Those of ``ids`` (not forgotten) whose own text, without their context, holds one
        of ``terms`` as full-text search reads words (stemmed alike)."""
        ...

    def texts(self, roles: Sequence[str], *, after_id: int = 0, limit: int | None = None,
              ids: Sequence[int] | None = None,
              without_vector: bool = False) -> list[tuple[int, str]]:
        """(id, content) of non-empty messages of ``roles`` after ``after_id``, in id order,
        up to ``limit``; only those of ``ids`` when given, only those stored without a
        vector with ``without_vector``."""
        ...

    def set_embeddings(self, ids: Sequence[int], vectors: np.ndarray,
                       embedder_id: str) -> None:
        """Store row ``i`` of ``vectors`` as the vector of ``ids[i]``."""
        ...

    def clear_embeddings(self) -> None:
        """Drop every message's vector (recall no longer searched by meaning)."""
        ...

    def has_vectors(self) -> bool:
        """Whether any message has a vector."""
        ...

    def count_without_vector(self, embedder_id: str, roles: Sequence[str]) -> int:
        """Non-empty messages of ``roles`` with no vector, or one from another embedder."""
        ...

    def count_texts(self, roles: Sequence[str], through_id: int | None = None) -> int:
        """Messages ``texts(roles)`` returns, those with an id of at most ``through_id``
        only when it is given (progress of a re-embedding)."""
        ...


class HistoryStore(Protocol):
    """Events (what happened to facts) and history (the memory's size per interaction)."""

    def record(self, point: HistoryPoint) -> None:
        """Store the point for its tick, replacing one already stored for that tick."""
        ...

    def points(self, newest: int | None = None) -> list[HistoryPoint]:
        """Every point in tick order, or only the ``newest`` ones, newest first."""
        ...

    def add_event(self, event: Event) -> int:
        """Store an event (its ``id`` is ignored); returns its id."""
        ...

    def last_event_id(self) -> int:
        """The newest event's id (0 when there is none)."""
        ...

    def events_since(self, event_id: int) -> list[Event]:
        """Events after ``event_id``, oldest first."""
        ...

    def durable_evictions(self) -> int:
        """How many evict events concern a fact that is durable now."""
        ...

    def retirements(self) -> int:
        """How many facts the memory holds as retired (moved to archival as no longer
        true): not one stated again since, nor one whose retirement was taken back, nor one
        forgotten."""
        ...


class ForgetStore(Protocol):
    """Tombstones (the contract's rules), the audit of forget requests, and the hashes of the
    forgotten facts' norms that keep automatic extraction from storing them again."""

    def forget(self, facts: Sequence[int], passages: Sequence[int],
               messages: Sequence[int], forgotten_at: float) -> Forgotten:
        """Tombstone those rows that exist and are not forgotten yet; returns their ids.

        A forgotten fact leaves core (its tier becomes ``archival``) and its norm
        becomes ``records.tombstone_norm(id)``. The caller tells the vector indexes.
        """
        ...

    def record(self, request: ForgetRequest) -> int:
        """Add a request to the audit (its ``id`` is ignored); returns its id."""
        ...

    def requests(self, newest: int | None = None) -> list[ForgetRequest]:
        """The audit in id order, or only the ``newest`` requests, newest first."""
        ...

    def conceal(self, audit_ids: Sequence[int], hashes: Sequence[str]) -> None:
        """Give these audit rows the request hashes ``hashes`` (in order), which an erasure
        makes up: the text a request was made with is then no longer checkable."""
        ...

    def block(self, norm_hashes: Sequence[str], blocked_at: float) -> None:
        """Remember these norm hashes (``memory.text.digest.norm_hash``) as forgotten."""
        ...

    def unblock(self, norm_hash: str) -> None:
        """The fact was stated again explicitly: forget that it was forgotten."""
        ...

    def blocked_norms(self) -> set[str]:
        """Every norm hash remembered as forgotten."""
        ...


class SettingsStore(Protocol):
    """Named string values: the memory's config, counters, the agent's state (``state.*``),
    and the backend's own bookkeeping."""

    def get(self, key: str, default: str | None = None) -> str | None:
        ...

    def set(self, key: str, value: object) -> None:
        """Store ``str(value)`` under ``key``."""
        ...

    def delete(self, keys: Iterable[str]) -> None:
        ...

    def items(self, prefix: str = "") -> list[tuple[str, str]]:
        """Every (key, value) whose key starts with ``prefix``, by key."""
        ...

    def counters_behind(self) -> dict[str, tuple[str, int]]:
        """Each counter (``core_seq``, ``tick``) stored below what the rows hold, as an
        older version could leave it: its stored value and the rows' level."""
        ...
