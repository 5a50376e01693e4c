"""The storage contract: what the engine needs from a backend, one Protocol per concern.

The tiers, search, lifecycle, snapshot and diagnostics talk only to these
Protocols; SQL lives in the backends (``memory/store/sqlite/``, and any other
that implements them). Values cross as the records of memory/store/records.py.

Rules every backend keeps (the conformance suite, tests/conformance/, checks them):

- **One writer.** Opening for writing takes the agent's writer lock, held until
  ``close``; a second writer gets ``StoreLockedError`` naming the holder. A
  read-only backend takes no lock, writes nothing, and ``transaction`` raises
  ``ReadOnlyError``.
- **Transactions nest.** The outermost ``transaction()`` is one database
  transaction; an inner one is a savepoint, so a failure inside it undoes only
  its own changes. Every write happens inside one. When the outermost commits,
  ``on_commit`` hooks run; after any rollback (outer or inner), ``on_rollback``
  hooks run, so state kept in memory (the core heap, counters, a derived vector
  index) reloads to match the database. ``depth`` tells a hook which level rolled
  back.
- **Errors are tiermem's.** Failures a user can act on surface as the errors of
  memory/errors.py (``StoreFullError``, ``StoreCorruptError``, ``ReadOnlyError``,
  ``StoreClosedError``, ``StoreError``), never as driver exceptions;
  ``translate_error`` maps one that escaped a read.
- **Ids are the backend's.** Facts, passages, messages and events get increasing
  integer ids; a passage's id is also its key in the vector index.
- **Recall is append-only.** A message's fields never change except ``status``
  and its vector; only ``MessageStore.erase`` removes one, recording the erasure
  first.
- **Erasure is physical.** ``FactStore.delete``, ``PassageStore.delete`` and
  ``MessageStore.erase`` remove rows with everything the backend derived from
  them (full-text entries, vectors); after the transaction commits,
  ``purge_erased`` makes the deleted content unrecoverable from the backend's
  own storage as far as the backend can reach, and says what it could not.
- **Rows own their vectors.** A passage or message is stored with its vector
  (``Passage.embedding``), and ``set_embeddings`` changes it later. The tier
  then tells the table's ``VectorIndex`` (``add``/``remove``) in the same
  transaction: a backend that keeps a derived index (SQLite's FAISS files)
  updates it there, one that searches the stored column (pgvector) has nothing
  to do. Dense search is exact by default: cosine = inner product on unit vectors.
- **Forgotten rows are tombstones.** ``ForgetStore.forget`` marks facts, passages and
  messages forgotten (``forgotten_at``); from then on no read of the contract returns
  them: not ``in_core``, ``all``, ``get``, ``by_norm``, ``get_many``, ``texts`` or the
  counts, not the full-text or dense search (a forgotten row leaves the lexical index
  and loses its vector, so totals do not count it either). The row itself stays,
  for the audit and for a later erasure, until it is erased; it is never un-forgotten.
  Snapshots and migrations carry it as it is (``forgotten_at`` set, no vector).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

import numpy as np

from tiermem.memory.errors import StoreError
from tiermem.memory.store.records import (
    DumpRow,
    DumpTable,
    Event,
    Fact,
    FactTotals,
    ForgetRequest,
    Forgotten,
    HistoryPoint,
    Message,
    Passage,
    RowFilter,
    TextTable,
    VectorTable,
)

__all__ = [
    "FactStore",
    "ForgetStore",
    "HistoryStore",
    "LexicalIndex",
    "LexicalRanking",
    "MessageStore",
    "PassageStore",
    "SettingsStore",
    "StorageBackend",
    "TableDump",
    "Transactions",
    "VectorIndex",
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

    def delete(self, fact_ids: Sequence[int]) -> list[Fact]:
        """Remove those of ``fact_ids`` that exist, with their full-text entries; returns
        them as they were."""
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
        ``VectorIndex`` in the same transaction."""
        ...


class MessageStore(Protocol):
    """Recall: every message, append-only (module docstring)."""

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
        returns the messages erased (without vectors)."""
        ...

    def in_turns_of(self, message_ids: Sequence[int], *,
                    forgotten: bool = False) -> list[Message]:
        """Every message of the turns (``Message.turn``) that the messages of ``message_ids``
        belong to, those included, in id order, without vectors; forgotten ones of
        ``message_ids`` name their turns too. Forgotten messages are returned only with
        ``forgotten`` (an erasure, which removes them as well)."""
        ...

    def passing(self, ids: Sequence[int], filt: RowFilter) -> list[int]:
        """Those of ``ids`` (in the order given) whose rows pass ``filt``."""
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


class ForgetStore(Protocol):
    """Tombstones (module docstring), the audit of forget requests, and the hashes of the
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

    def block(self, norm_hashes: Sequence[str], blocked_at: float) -> None:
        """Remember these norm hashes (``memory.ops.forget.norm_hash``) as forgotten."""
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


class LexicalRanking(Protocol):
    """One query's full-text matches in relevance order, read as deep as the caller needs.

    Scores are relevance (BM25 or the backend's ranking; higher is better), on a
    scale that fusion normalises by ``best``. With a window (``LexicalIndex.rank``)
    only the newest ``window`` matches are ranked and ``exact`` is False when more
    matched; ``total`` then counts the ones ranked.
    """

    #: Whether ``total`` counts every match (False: a window cut older ones off).
    exact: bool
    #: The matches handed out so far, by row id, best first.
    found: dict[int, float]
    #: The best score of all matches.
    best: float
    #: The last score handed out.
    cut: float

    @property
    def truncated(self) -> bool:
        """Whether matches remain below the ones handed out."""
        ...

    def top(self, depth: int) -> dict[int, float]:
        """The best ``depth`` matches (all if fewer), best first."""
        ...

    def scores_of(self, ids: Sequence[int]) -> dict[int, float]:
        """Scores of those ``ids``, not yet handed out, that match."""
        ...

    def everything(self) -> dict[int, float]:
        """Every match ranked (a window's worth at most), best first."""
        ...

    def total(self) -> int:
        """How many matches were ranked: every one, unless ``exact`` is False."""
        ...

    def close(self) -> None:
        ...


class LexicalIndex(Protocol):
    """Full-text search over one table (facts, passages or messages).

    ``terms`` are a query's content words (memory.search.lexical.query_terms: lowercased,
    stopwords out, symbols as their stand-in words); the backend quotes them and
    applies its own stemming. The indexed text of a row is
    ``memory.text.symbols.indexed_text`` of its text.
    """

    def rank(self, terms: Sequence[str], filt: RowFilter,
             window: int | None = None) -> LexicalRanking:
        """The rows matching any of ``terms`` and passing ``filt``, in relevance order;
        with ``window``, only the newest ``window`` matches are ranked."""
        ...

    def scores(self, terms: Sequence[str], every_term: bool = False,
               among: Collection[int] | None = None) -> dict[int, float]:
        """Every row matching any (or, with ``every_term``, every) term, with its score;
        with ``among``, only those of these rows (core's, out of every fact). The others
        are not scored, which is most of the cost (the matches are still walked)."""
        ...

    def common_terms(self, terms: Sequence[str], rows: int) -> set[str]:
        """Those ``terms`` found in more than half of the table's ``rows`` rows."""
        ...


class VectorIndex(Protocol):
    """Dense search over one table's stored vectors, by row id (inner product).

    With an exact index (``vector_index=exact``, and SQLite's ``auto`` below its
    size) every answer is exact. With an approximate one (``hnsw``, or ``auto``
    past the size; memory.store.vector_choice) ``search`` and ``nearest`` may
    miss near rows, and ``nearest``'s bound may be exceeded by a row left out;
    the similarities they return are still the rows' true ones. ``above`` and
    ``similarities`` are exact either way, so counts built on them are too.
    """

    def __len__(self) -> int:
        """How many rows have a vector."""
        ...

    @property
    def approximate(self) -> bool:
        """Whether ``search`` and ``nearest`` go through an approximate index now."""
        ...

    def ids(self) -> np.ndarray:
        """The ids of the rows with a vector (int64, any order)."""
        ...

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """These rows were stored with these vectors in the current transaction."""
        ...

    def remove(self, ids: np.ndarray) -> None:
        """These rows lost their vectors (or were deleted) in the current transaction."""
        ...

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest (ids, similarities), best first (approximately, through an
        approximate index)."""
        ...

    def nearest(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float]:
        """About the ``k`` nearest rows with their exact similarities, best first, and a
        similarity that no row left out exceeds (-inf when none is left out).

        The bound is exact with an exact index; through an approximate one it is the
        similarity of the nearest row found beyond the ``k``, which a row the index
        did not find may exceed."""
        ...

    def above(self, query: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """Every (id, similarity) with similarity >= ``threshold``, best first."""
        ...

    def similarities(self, ids: Sequence[int], query: np.ndarray) -> dict[int, float]:
        """The similarity of each of ``ids`` that has a vector."""
        ...

    def rebuild(self) -> None:
        """Make the index match the stored vectors again (after rows were written directly)."""
        ...

    def save(self) -> None:
        """Persist what a later open can reuse (nothing, for an index that is the table)."""
        ...

    def differences(self, limit: int = 5) -> list[str]:
        """How the index differs from the stored vectors; empty when it matches them."""
        ...


class TableDump(Protocol):
    """Whole tables in the snapshot's column form (records.DumpRow), ids included."""

    def export_rows(self, table: DumpTable) -> Iterator[DumpRow]:
        """Every row of ``table`` in id order (tick order for history)."""
        ...

    def import_rows(self, table: DumpTable, rows: Sequence[DumpRow]) -> None:
        """Insert rows with the ids they carry (the table is empty, or the ids are new)."""
        ...

    def clear(self) -> None:
        """Remove every row and setting of this memory (a restore that replaces it)."""
        ...


class Transactions(Protocol):
    """Nested transactions and the hooks that keep in-memory state in step with them."""

    def transaction(self) -> AbstractContextManager[None]:
        """A transaction, or a savepoint inside the one already open (module docstring).

        The calling thread holds ``lock`` until it ends.
        """
        ...

    @property
    def in_transaction(self) -> bool:
        ...

    @property
    def depth(self) -> int:
        """How many transactions and savepoints are open."""
        ...

    def on_begin(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` when an outermost transaction begins."""
        ...

    def on_commit(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` after the outermost transaction commits."""
        ...

    def on_rollback(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` after any rollback, with ``depth`` already back at the level
        that was rolled back to."""
        ...

    def on_release(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` after a savepoint is released into its enclosing transaction."""
        ...


class StorageBackend(Transactions, TableDump, Protocol):
    """One agent's memory in one backend, open for writing (holding the writer lock) or
    read-only."""

    @property
    def facts(self) -> FactStore:
        ...

    @property
    def passages(self) -> PassageStore:
        ...

    @property
    def messages(self) -> MessageStore:
        ...

    @property
    def history(self) -> HistoryStore:
        ...

    @property
    def settings(self) -> SettingsStore:
        ...

    @property
    def forgetting(self) -> ForgetStore:
        ...

    @property
    def lock(self) -> AbstractContextManager[object]:
        """A re-entrant lock that threads sharing this memory take turns on: every
        transaction and every public method of HierarchicalMemory holds it."""
        ...

    @property
    def read_only(self) -> bool:
        ...

    @property
    def closed(self) -> bool:
        ...

    @property
    def forked(self) -> bool:
        """Whether this object was inherited by a forked process (which must not use it)."""
        ...

    @property
    def location(self) -> str:
        """Where the memory lives, for messages (a directory, or a database and agent)."""
        ...

    @property
    def store_id(self) -> str | None:
        """A random id given to this memory's storage when it was created."""
        ...

    def lexical(self, table: TextTable) -> LexicalIndex:
        """The full-text search of ``table``."""
        ...

    def vectors(self, table: VectorTable, dim: int) -> VectorIndex:
        """The dense index of ``table``, for vectors of ``dim``; call once per table."""
        ...

    def translate_error(self, exc: BaseException) -> StoreError | None:
        """The tiermem error for a backend failure a user can act on; None for any other."""
        ...

    def purge_erased(self) -> list[str]:
        """Make the content of rows deleted so far unrecoverable from this backend's own
        storage (free pages, index segments, write-ahead log) as far as it can reach.

        Call it outside any transaction, after the deletions committed; it may rewrite
        the whole database. Returns what it could not reach, in words for the user
        (empty when nothing is left anywhere it writes). A backend's derived files
        (SQLite's FAISS indexes) are rewritten by their ``VectorIndex.save``.
        """
        ...

    def close(self) -> None:
        """Record a clean close, release the writer lock; idempotent."""
        ...
