"""A checked snapshot written into a store: its rows and settings, then the vectors it
came without.

``HierarchicalMemory.restore`` (memory/ops/snapshot.py) checks a snapshot whole and opens
the store; this writes it, inside the store's transaction: the rows read again from their
source a batch at a time, token counts counted again, vectors kept only when they were taken
with the embedder restoring, the settings (the erased-id marks only as the memory
snapshotted had them) and any erasure still owed promised again. Rows that should have a
vector and came without one are embedded a page at a time, so a memory of any size is
restored in bounded memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tiermem.memory.embed.checked import checked
from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.errors import SnapshotError
from tiermem.memory.ops.erase import promise_erasure
from tiermem.memory.ops.snapshot_schema import (
    ROW_MODELS,
    CheckedSnapshot,
    SnapshotSource,
    checked_rows,
    vector_of,
)
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.records import ERASED_ID_KEYS, DumpRow
from tiermem.memory.text.digest import is_replaced_detail, replaced_detail
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.memory.tiers.recall import EMBEDDED_ROLES

#: The settings a snapshot holds only when they are set, so that a memory that never
#: erased a row restores in older versions too.
ONLY_WHEN_SET = frozenset(ERASED_ID_KEYS.values())
#: ``progress(step, done, total)`` of a snapshot or a restore (memory/ops/snapshot.py).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ReadSnapshot:
    """A snapshot checked whole (``read_snapshot``), to be restored: its rows are read
    again from ``source`` as they are written."""

    source: SnapshotSource
    checked: CheckedSnapshot
    #: A file's SHA-256 when it was checked (None for a dict), to tell it is read unchanged.
    digest: str | None = None


#: Rows written to a store at a time.
WRITE_BATCH = 2000


def write_rows(store: StorageBackend, read: ReadSnapshot, embedder: Embedder,
               progress: Progress | None) -> None:
    """Every row and setting of ``read`` into ``store`` (inside its transaction), its rows
    read again a batch at a time."""
    valid = read.checked
    same_model = valid.include_vectors and (embedder.id, embedder.dim) == (
        valid.settings.embedder_id, valid.settings.embedder_dim)
    count = TokenCounter().count
    total, done = sum(valid.rows.values()), 0
    for table, table_rows in checked_rows(read.source, valid):
        # Column names come from the row models, never from the snapshot.
        columns = tuple(ROW_MODELS[table].model_fields)
        rows: list[DumpRow] = []
        for row, norm in table_rows:
            values = row.model_dump()
            if table == "facts":
                values["norm"] = norm
                values["tokens"] = count(row.text)
            if table == "events":
                # A snapshot taken before events stopped keeping text: restored without it.
                values["text"] = ""
                if values["kind"] == "replace" and not is_replaced_detail(values["detail"]):
                    values["detail"] = replaced_detail(values["detail"])
            if "embedding" in values:
                wanted = same_model and values["embedding"] is not None and (
                    values["embedder_id"] == embedder.id and _wants_vector(table, values))
                vector = vector_of(values["embedding"]) if wanted else None
                values["embedding"] = vector
                values["embedder_id"] = embedder.id if vector is not None else None
            rows.append({c: values[c] for c in columns})
            if len(rows) >= WRITE_BATCH:
                store.import_rows(table, rows)
                done += len(rows)
                rows = []
                if progress is not None and done < total:
                    progress("restoring", done, total)
        store.import_rows(table, rows)
        done += len(rows)
    if read.digest is not None and getattr(read.source, "digest", None) != read.digest:
        raise SnapshotError("the snapshot file changed while it was restored; nothing was "
                            "restored: restore it again", ("tables",))
    if progress is not None:
        progress("restoring", done, total)
    settings = {key: value for key, value in valid.settings.model_dump(
        exclude={"embedder_id", "embedder_dim", "erase_pending"}).items()
        if value or key not in ONLY_WHEN_SET}  # as the memory snapshotted had them
    meta: dict[str, Any] = {**valid.config.to_meta(), **settings,
                            "embedder_id": embedder.id, "embedder_dim": embedder.dim}
    meta.update({f"state.{key}": value for key, value in valid.state.items()})
    for key, value in meta.items():
        store.settings.set(key, value)
    if not valid.settings.model_fields_set >= ONLY_WHEN_SET:
        # Taken before the marks existed, or from a memory that never set one: the migration
        # that would derive them from the events and forget audit ran on empty tables.
        store.mark_erased_ids()
    # Taken by a version whose promotions left the eviction date on, the rows hold it still.
    store.clear_undone_evictions()
    for audit_id in valid.settings.erase_pending:
        promise_erasure(store, audit_id)
    _embed_missing(store, embedder, valid.config.recall_dense, progress)


def _wants_vector(table: str, values: dict[str, Any]) -> bool:
    """Whether the engine keeps a vector for this row (recall: user and assistant text)."""
    return table == "passages" or (values["role"] in EMBEDDED_ROLES and values["content"] != "")


def _embed_missing(store: StorageBackend, embedder: Embedder, recall_dense: bool,
                   progress: Progress | None) -> None:
    """Embed every row that should have a vector and was restored without one, a page at a
    time (the rows restored have a vector of ``embedder`` or none)."""
    total = store.passages.count_without_vector(embedder.id)
    if recall_dense:
        total += store.messages.count_without_vector(embedder.id, EMBEDDED_ROLES)
    done = _write_vectors(store, "passages", lambda after: store.passages.texts(
        after_id=after, limit=_EMBED_PAGE, without_vector=True), embedder, 0, total, progress)
    if recall_dense:
        _write_vectors(store, "messages", lambda after: store.messages.texts(
            EMBEDDED_ROLES, after_id=after, limit=_EMBED_PAGE, without_vector=True),
            embedder, done, total, progress)


#: Rows embedded at a time.
_EMBED_PAGE = 256


def _write_vectors(store: StorageBackend, table: str,
                   page: Callable[[int], list[tuple[int, str]]], embedder: Embedder,
                   done: int, total: int, progress: Progress | None) -> int:
    """Embed the rows ``page(after id)`` gives, page by page; ``done`` counted on."""
    stored = store.passages if table == "passages" else store.messages
    after = 0
    while chunk := page(after):
        matrix: np.ndarray = checked(embedder).embed_documents([text for _, text in chunk])
        stored.set_embeddings([i for i, _ in chunk], matrix, embedder.id)
        after = chunk[-1][0]
        done += len(chunk)
        if progress is not None:
            progress("embedding", done, total)
    return done
