"""Re-embedding a memory with another embedder, resumable after any interruption.

A store is embedded by one embedder (``embedder_id`` in meta). Moving it to
another takes many batches of model calls, too many for one transaction, so
the move is recorded before the first vector changes: ``reindex_to`` in meta
names the new embedder. Each batch commits its rows' new vectors together with
the last id done, and the last transaction switches the store's embedder,
invalidates the FAISS files and clears the record.

While the record is there the store holds vectors of two embedders, which no
index can search; opening it raises ReindexIncompleteError. Running the
reindex again with the same embedder continues after the last batch
committed; with another embedder it starts over.
"""

from __future__ import annotations

from pathlib import Path

from memory.embeddings import Embedder
from memory.errors import ReindexIncompleteError
from memory.recall import EMBEDDED_ROLES
from memory.store.sqlite import SQLiteStore
from memory.store.sqlite.vectors import bump_generation, vector_blob

#: Rows embedded and committed together; a crash loses at most one batch of work.
BATCH_ROWS = 256
TARGET_KEY = "reindex_to"


def check_no_reindex_pending(store: SQLiteStore) -> None:
    """Raise ReindexIncompleteError if a reindex of ``store`` was started and not finished."""
    target = store.get_meta(TARGET_KEY)
    if target is None:
        return
    done, total = _progress(store)
    raise ReindexIncompleteError(target, done, total)


def reembed_store(path: Path, embedder: Embedder, recall_dense: bool) -> None:
    """Re-embed every passage (and, with ``recall_dense``, every user and assistant
    message) of the memory at ``path`` with ``embedder``, resuming an earlier attempt
    with the same embedder."""
    store = SQLiteStore(path)
    try:
        if store.get_meta(TARGET_KEY) != embedder.id:
            with store.transaction():
                store.set_meta(TARGET_KEY, embedder.id)
                for table in ("passages", "messages"):
                    store.set_meta(_done_key(table), 0)
        _reembed_table(store, "passages", "text", "", embedder)
        if recall_dense:
            marks = ",".join("?" * len(EMBEDDED_ROLES))
            _reembed_table(store, "messages", "content",
                           f" AND role IN ({marks}) AND content != ''", embedder)
        with store.transaction():
            if not recall_dense:
                # Vectors of the old embedder would not fit the new one's index.
                store.execute("UPDATE messages SET embedding = NULL, embedder_id = NULL"
                              " WHERE embedding IS NOT NULL")
            store.set_meta("embedder_id", embedder.id)
            store.set_meta("embedder_dim", embedder.dim)
            for table in ("passages", "messages"):
                bump_generation(store, table)
            store.execute("DELETE FROM meta WHERE key IN (?, ?, ?)",
                          (TARGET_KEY, _done_key("passages"), _done_key("messages")))
    finally:
        store.close()


def _reembed_table(store: SQLiteStore, table: str, column: str, where: str,
                   embedder: Embedder) -> None:
    params: tuple[str, ...] = EMBEDDED_ROLES if where else ()
    last = int(store.get_meta(_done_key(table), "0") or 0)
    while True:
        rows = store.execute(
            f"SELECT id, {column} FROM {table} WHERE id > ?{where} ORDER BY id LIMIT ?",
            (last, *params, BATCH_ROWS)).fetchall()
        if not rows:
            return
        vectors = embedder.embed_documents([r[1] for r in rows])
        last = rows[-1][0]
        with store.transaction() as conn:
            conn.executemany(
                f"UPDATE {table} SET embedding = ?, embedder_id = ? WHERE id = ?",
                [(vector_blob(v), embedder.id, r[0]) for r, v in zip(rows, vectors, strict=True)])
            store.set_meta(_done_key(table), last)


def _done_key(table: str) -> str:
    return f"reindex_{table}_done"


def _progress(store: SQLiteStore) -> tuple[int, int]:
    """Passages re-embedded so far, and passages in all."""
    done = int(store.get_meta(_done_key("passages"), "0") or 0)
    count, total = store.execute(
        "SELECT coalesce(sum(id <= ?), 0), count(*) FROM passages", (done,)).fetchone()
    return int(count), int(total)
