"""Tombstones and the forget audit in SQLite (memory.store.contract.ForgetStore).

Marking a fact or a passage forgotten fires the schema's ``*_forget`` trigger, which
takes it out of the full-text index (memory/store/sqlite/schema_search.py, migration 5).
Messages leave recall's index here, in a few statements whatever their number
(``FORGET_IN_BULK`` says why), with the context the next message took from each. Vectors
are dropped here, so the FAISS index rebuilt from stored vectors never holds them again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from tiermem.memory.store.bounds import check_forget_request, check_hashes, check_moment
from tiermem.memory.store.records import ForgetRequest, Forgotten, tombstone_norm
from tiermem.memory.store.sqlite.schema_search import (
    CONTEXT_HEIRS,
    INDEX_APPENDED,
    INDEX_LISTED,
    UNINDEX_LISTED,
)
from tiermem.memory.store.sqlite.vectors import bump_generation

if TYPE_CHECKING:
    from tiermem.memory.store.sqlite.store import SQLiteStore


class SQLiteForgetting:
    """memory.store.contract.ForgetStore over the tiers' ``forgotten_at`` columns and the
    ``forget_requests`` and ``forgotten_norms`` tables."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def forget(self, facts: Sequence[int], passages: Sequence[int],
               messages: Sequence[int], forgotten_at: float) -> Forgotten:
        check_moment(forgotten_at, "forgotten_at")
        # Recall's index is changed around the tombstones: all of it happens or none.
        with self.store.transaction():
            fact_ids = self._mark("facts", facts, "forgotten_at = ?, tier = 'archival'",
                                  (forgotten_at,))
            for fact_id in fact_ids:
                self.store.execute("UPDATE facts SET norm = ? WHERE id = ?",
                                   (tombstone_norm(fact_id), fact_id))
            dropped = "forgotten_at = ?, embedding = NULL, embedder_id = NULL"
            passage_ids = self._mark("passages", passages, dropped, (forgotten_at,))
            message_ids = self._forget_messages(messages, dropped, forgotten_at)
            for table, ids in (("passages", passage_ids), ("messages", message_ids)):
                if ids:
                    bump_generation(self.store, table)  # a saved FAISS file is out of date
        return Forgotten(tuple(fact_ids), tuple(passage_ids), tuple(message_ids))

    def _forget_messages(self, ids: Sequence[int], sets: str, forgotten_at: float) -> list[int]:
        """Tombstone the messages and take them out of recall's index, their heirs'
        entries (``CONTEXT_HEIRS``) written again with the context they have after."""
        if not ids:
            return []
        heirs = leave_index(self.store, listed_ids(ids))
        forgotten = self._mark("messages", ids, sets, (forgotten_at,))
        self.store.execute(INDEX_LISTED, (heirs,))
        return forgotten

    def _mark(self, table: str, ids: Sequence[int], sets: str,
              params: tuple[object, ...]) -> list[int]:
        return sorted(int(r[0]) for r in self.store.execute(
            f"UPDATE {table} SET {sets} WHERE id IN (SELECT value FROM json_each(?))"
            " AND forgotten_at IS NULL RETURNING id", (*params, listed_ids(ids))))

    def record(self, request: ForgetRequest) -> int:
        check_forget_request(request)
        cursor = self.store.execute(
            "INSERT INTO forget_requests (created_at, request_hash, mode, outcome, facts,"
            " passages, messages, detail) VALUES (?,?,?,?,?,?,?,?)",
            (request.created_at, request.request_hash, request.mode, request.outcome,
             *request.id_lists(), request.detail))
        return int(cursor.lastrowid or 0)

    def requests(self, newest: int | None = None) -> list[ForgetRequest]:
        columns = f"SELECT {', '.join(ForgetRequest.COLUMNS)} FROM forget_requests"
        if newest is None:
            rows = self.store.execute(f"{columns} ORDER BY id")
        else:
            rows = self.store.execute(f"{columns} ORDER BY id DESC LIMIT ?", (newest,))
        return [ForgetRequest.from_row(tuple(r)) for r in rows]

    def conceal(self, audit_ids: Sequence[int], hashes: Sequence[str]) -> None:
        check_hashes(hashes, "forget request hash")
        self.store.executemany("UPDATE forget_requests SET request_hash = ? WHERE id = ?",
                               list(zip(hashes, audit_ids, strict=True)))

    def block(self, norm_hashes: Sequence[str], blocked_at: float) -> None:
        check_hashes(norm_hashes, "forgotten norm hash")
        check_moment(blocked_at, "forgotten_at")
        self.store.executemany(
            "INSERT OR IGNORE INTO forgotten_norms (norm_hash, forgotten_at) VALUES (?, ?)",
            [(h, blocked_at) for h in norm_hashes])

    def unblock(self, norm_hash: str) -> None:
        self.store.execute("DELETE FROM forgotten_norms WHERE norm_hash = ?", (norm_hash,))

    def blocked_norms(self) -> set[str]:
        return {str(r[0]) for r in self.store.execute("SELECT norm_hash FROM forgotten_norms")}


def listed_ids(ids: Iterable[int]) -> str:
    """Ids as the one JSON parameter a statement reads them from, however many they are."""
    return json.dumps(sorted({int(i) for i in ids}))


def leave_index(store: SQLiteStore, listed: str) -> str:
    """Take the ``listed`` messages (``listed_ids``) out of recall's index, with their
    heirs' entries (``CONTEXT_HEIRS``), before they are forgotten or erased; returns the
    heirs, listed, for ``INDEX_LISTED`` to write again once the messages are gone."""
    # Every message has its entry before any entry is deleted (a delete of an entry FTS5
    # does not hold would corrupt it).
    store.execute(INDEX_APPENDED)
    heirs = listed_ids(int(r[0]) for r in store.execute(CONTEXT_HEIRS, (listed,)))
    store.execute(UNINDEX_LISTED, (listed,))
    store.execute(UNINDEX_LISTED, (heirs,))
    return heirs
