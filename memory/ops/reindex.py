"""Re-embedding a memory with another embedder, resumable after any interruption.

A store is embedded by one embedder (``embedder_id`` in meta). Moving it to
another takes many batches of model calls, too many for one transaction, so
the move is recorded before the first vector changes: the ``reindex_to``
setting names the new embedder. Each batch commits its rows' new vectors
together with the last id done, and the last transaction switches the store's
embedder and clears the record (a backend with a derived index knows from
``set_embeddings`` that it is out of date).

While the record is there the store holds vectors of two embedders, which no
index can search; opening it raises ReindexIncompleteError. Running the
reindex again with the same embedder continues after the last batch
committed; with another embedder it starts over.

The reindexed memory is opened through ``MemoryOpener`` (the facade's constructor, which
calls this), so this module does not import the facade back.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any, Protocol, TypeVar

from tiermem.memory.embed.checked import checked
from tiermem.memory.embed.embeddings import Embedder, check_embedder_argument, default_embedder
from tiermem.memory.errors import InvalidInputError, ReindexIncompleteError
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.opening import open_store
from tiermem.memory.store.records import REINDEX_TARGET_KEY
from tiermem.memory.store.sqlite import DB_FILE, SQLiteStore
from tiermem.memory.store.transfer import Progress
from tiermem.memory.tiers.recall import EMBEDDED_ROLES
from tiermem.user_paths import expanded

M = TypeVar("M")
M_co = TypeVar("M_co", covariant=True)

#: Rows embedded and committed together; a crash loses at most one batch of work.
BATCH_ROWS = 256
#: The store's vector writes take this embedder's dimension while the reindex runs.
TARGET_KEY = REINDEX_TARGET_KEY


class MemoryOpener(Protocol[M_co]):
    """What opens a memory (``HierarchicalMemory`` itself): in the agent home at ``path``,
    or in ``store``, with ``embedder``."""

    def __call__(self, path: str | Path | None = None, *, embedder: Embedder | None = None,
                 store: StorageBackend | str | None = None, agent: str | None = None) -> M_co:
        ...


def check_no_reindex_pending(store: StorageBackend) -> None:
    """Raise ReindexIncompleteError if a reindex of ``store`` was started and not finished."""
    target = store.settings.get(TARGET_KEY)
    if target is None:
        return
    done, total = _progress(store)
    # A reader may open while the reindex runs (it holds the writer lock): "stopped, run
    # it again" would be wrong, and running it again is refused while it holds the lock.
    raise ReindexIncompleteError(target, done, total,
                                 running=store.read_only and store.writer_active())


def reindex_memory(
    cls: MemoryOpener[M], path: str | Path | None, embedder: Embedder | None,
    store: str | None, agent: str | None, options: dict[str, Any],
    progress: Progress | None = None,
) -> M:
    """The body of ``HierarchicalMemory.reindex``: the store re-embedded, then opened with
    ``embedder`` and ``options``; ``progress`` as in ``reembed_store``."""
    if (path is None) == (store is None):
        raise InvalidInputError("give the path of an agent home or a store, one of them")
    # Checked before any vector is rewritten: a mistake found after a long re-embed, or a
    # new empty memory made at a mistyped path, would cost the user the whole run.
    check_embedder_argument(embedder)
    try:
        inspect.signature(cls).bind(path, embedder=embedder, **options)
    except TypeError as exc:
        raise InvalidInputError(f"reindex: {exc}; it takes HierarchicalMemory's options") from None
    embedder = embedder if embedder is not None else default_embedder()
    if store is None:
        if not isinstance(path, str | os.PathLike):
            raise InvalidInputError(f"path must be a str or a Path, not {type(path).__name__}")
        home = expanded(path)
        if not (home / DB_FILE).is_file():
            raise InvalidInputError(
                f"no memory at {home} ({DB_FILE} does not exist): reindex re-embeds a memory "
                f"that exists; give the directory of an agent home")
    backend = (open_store(store, agent) if store is not None
               else SQLiteStore(expanded(path)))  # type: ignore[arg-type]
    try:
        reembed_store(backend, embedder, options.get("recall_dense", True), progress)
    finally:
        backend.close()
    if store is not None:
        return cls(store=store, agent=agent, embedder=embedder, **options)
    return cls(path, embedder=embedder, **options)


def reembed_store(store: StorageBackend, embedder: Embedder, recall_dense: bool,
                  progress: Progress | None = None) -> None:
    """Re-embed every passage (and, with ``recall_dense``, every user and assistant
    message) of ``store`` with ``embedder``, resuming an earlier attempt with the same
    embedder. ``progress`` is called after each batch commits with the table, its rows
    done (those an earlier attempt did too) and its rows in all."""
    settings = store.settings
    if settings.get(TARGET_KEY) != embedder.id:
        with store.transaction():
            settings.set(TARGET_KEY, embedder.id)
            for table in ("passages", "messages"):
                settings.set(_done_key(table), 0)
    last = int(settings.get(_done_key("passages"), "0") or 0)
    done, total = store.passages.count_through(last), store.passages.count()
    while rows := store.passages.texts(after_id=last, limit=BATCH_ROWS):
        last = _reembed_batch(store, "passages", rows, embedder)
        done += len(rows)
        if progress is not None:
            progress("passages", done, total)
    if recall_dense:
        last = int(settings.get(_done_key("messages"), "0") or 0)
        done = store.messages.count_texts(EMBEDDED_ROLES, through_id=last)
        total = store.messages.count_texts(EMBEDDED_ROLES)
        while rows := store.messages.texts(EMBEDDED_ROLES, after_id=last, limit=BATCH_ROWS):
            last = _reembed_batch(store, "messages", rows, embedder)
            done += len(rows)
            if progress is not None:
                progress("messages", done, total)
    with store.transaction():
        if not recall_dense:
            # Vectors of the old embedder would not fit the new one's index.
            store.messages.clear_embeddings()
        settings.set("embedder_id", embedder.id)
        settings.set("embedder_dim", embedder.dim)
        settings.delete([TARGET_KEY, _done_key("passages"), _done_key("messages")])


def _reembed_batch(store: StorageBackend, table: str, rows: list[tuple[int, str]],
                   embedder: Embedder) -> int:
    """Embed and store one batch with the record of it; returns the batch's last id."""
    vectors = checked(embedder).embed_documents([text for _, text in rows])
    ids = [i for i, _ in rows]
    with store.transaction():
        rows_of = store.passages if table == "passages" else store.messages
        rows_of.set_embeddings(ids, vectors, embedder.id)
        store.settings.set(_done_key(table), ids[-1])
    return ids[-1]


def _done_key(table: str) -> str:
    return f"reindex_{table}_done"


def _progress(store: StorageBackend) -> tuple[int, int]:
    """Passages re-embedded so far, and passages in all."""
    done = int(store.settings.get(_done_key("passages"), "0") or 0)
    return store.passages.count_through(done), store.passages.count()
