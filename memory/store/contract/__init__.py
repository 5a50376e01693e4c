"""The storage contract: what the engine needs from a backend, one Protocol per concern.

The Protocols live by what they cover: the tables' stores in ``stores.py``
(facts, passages, messages, history, forgetting, settings), the search indexes in
``indexes.py`` (full-text and dense), the backend as a whole in ``backend.py``
(dumps, transactions, ``StorageBackend``). Import them from here.

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
  memory/errors.py (``StoreFullError``, ``StoreCorruptError``, ``StoreBusyError``,
  ``ReadOnlyError``, ``StoreClosedError``, ``StoreError``), never as driver exceptions;
  ``translate_error`` maps one that escaped a read.
- **Ids are the backend's.** Facts, passages, messages and events get increasing
  integer ids; a passage's id is also its key in the vector index. An id names one
  row for good: a new fact, passage or message takes an id past every one erased
  (a message's is in its erasure record, a fact's or passage's in the setting of
  ``ERASED_ID_KEYS``, memory/store/records.py, written in the erasure's transaction).
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

from tiermem.memory.store.contract.backend import StorageBackend, TableDump, Transactions
from tiermem.memory.store.contract.indexes import LexicalIndex, LexicalRanking, VectorIndex
from tiermem.memory.store.contract.stores import (
    FactStore,
    ForgetStore,
    HistoryStore,
    MessageStore,
    PassageStore,
    SettingsStore,
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
