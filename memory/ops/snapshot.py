"""Exact, JSON-serialisable snapshots of a memory, and their restore.

A snapshot holds the memory's ``MemoryConfig`` and every row of every table
that carries state (facts, passages, messages, history, events, erasures, the
forget audit and the forgotten norms), forgotten rows included as tombstones,
ids included, so access counts, timestamps, durability and tier membership
come back exactly. Its settings hold the highest ids erased (with the erasure
records, which hold the messages'), so the restored memory never gives a new
row an id that named an erased one; a snapshot without them (taken before they
existed) gets them from its own events and forget audit, as a migrated memory
does. Embeddings are included as base64 float32 by default so a restore needs
no model; without them (or for another embedder), restore re-embeds with the
embedder given. ``snapshot_text`` gives the same snapshot as its JSON text, the bytes
``json.dumps`` gives, a row at a time (``HierarchicalMemory.write_snapshot``, the chat's
``/snapshot``), so a memory of any size is written in bounded memory. A NUL or a lone
surrogate an older version stored is held as U+FFFD, as a migrate copies it
(memory/store/unstorable.py), and a warning names the values so changed; a restore holds one
that a snapshot an older version wrote holds the same way, and says so too.

An erasure still owed (a forget asked to erase, killed before the erasure; a
writer finishes it on opening, so it is seen mostly from a read-only open) is
carried as ``settings.erase_pending``, only when there is one, so snapshots
owing none restore in earlier versions too. The restored memory erases those
rows when it opens, before anything can read them: a snapshot never brings
forgotten rows back without the promise to erase them.

Restore trusts nothing in the snapshot (memory/ops/snapshot_schema.py): fields
outside the allow-list, values out of bounds and broken invariants raise
``SnapshotError`` before anything is written. A snapshot file is read in a stream
(memory/ops/snapshot_source.py): checked whole a row at a time, keeping of each row only
its id and references, then read again as its rows are written, a batch at a time, so a
memory of any size is restored in bounded memory; a file that changed between the two
readings (its SHA-256) restores nothing. ``progress`` hears of both readings. The rows
are written by memory/ops/snapshot_rows.py; token counts are counted again.
A core that is over its limit after the recount (a snapshot edited by hand,
or taken with another tokenizer) is brought within it the way opening with a
smaller limit does: the snapshot's own policy evicts to archival, in one
interaction (the clock advances by one). Into a directory, the new database
is built aside and renamed into place only when complete
(memory/store/sqlite/restore.py), so a failed or killed restore leaves the directory
as it was, and a retry works. Into another backend, the rows are written in one
transaction of it; an empty store is marked first (``RESTORING_KEY``), a PostgreSQL
agent the restore creates in the transaction that creates it, so one killed before that
transaction commits says so when opened instead of passing for an empty memory, and a
retry works.

A snapshot reads the memory through ``SnapshottedMemory``, the members of it that it
uses, and a restore opens the memory it wrote through ``MemoryOpener``, so this module
does not import the facade that imports it.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

from tiermem.memory.config import MemoryConfig
from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.errors import InvalidConfigError, InvalidInputError, SnapshotError
from tiermem.memory.ops.erase import pending_erasures
from tiermem.memory.ops.protocols import StoredMemory
from tiermem.memory.ops.reindex import MemoryOpener
from tiermem.memory.ops.restore_target import store_refusal
from tiermem.memory.ops.snapshot_rows import ONLY_WHEN_SET, Progress, ReadSnapshot, write_rows
from tiermem.memory.ops.snapshot_schema import (
    SNAPSHOT_FORMAT,
    CheckedSnapshot,
    check_snapshot,
    parse_snapshot,
)
from tiermem.memory.ops.snapshot_source import DictSource, NotStreamable, SnapshotFile
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.opening import open_store
from tiermem.memory.store.records import (
    DUMP_TABLES,
    ERASED_ID_KEYS,
    RESTORING_KEY,
    UNFINISHED_COPY_KEYS,
    DumpTable,
)
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.transfer import held_by, storable_rows
from tiermem.memory.store.unstorable import (
    Replaced,
    is_storable,
    merged_keys,
    merged_settings_error,
    storable_text,
)
from tiermem.user_paths import expanded

_SETTINGS = ("tick", "core_seq", "embedder_id", "embedder_dim", "archival_searches",
             "archival_searches_with_hits", *ERASED_ID_KEYS.values())
M = TypeVar("M")
#: Rows between two calls of ``progress``.
PROGRESS_EVERY = 1000
#: The setting that marks a store a restore is filling (``RESTORING_KEY``: what from).
_MARK = (RESTORING_KEY, "a snapshot")
_log = logging.getLogger(__name__)


class SnapshottedMemory(StoredMemory, Protocol):
    """What a snapshot uses of a memory (``HierarchicalMemory``)."""

    @property
    def config(self) -> MemoryConfig:
        ...

    @property
    def counters(self) -> dict[str, int]:
        ...

    def stored_config(self) -> MemoryConfig:
        ...


def take_snapshot(memory: SnapshottedMemory, include_vectors: bool = True) -> dict[str, Any]:
    replaced = Replaced()
    snapshot = _header(memory, include_vectors, replaced)
    snapshot["tables"] = {table: list(_rows(memory.store, table, include_vectors, replaced))
                          for table in DUMP_TABLES}
    _say_replaced(replaced)
    return snapshot


def snapshot_text(memory: SnapshottedMemory, include_vectors: bool = True,
                  progress: Progress | None = None) -> Iterator[str]:
    """The JSON text of ``take_snapshot(memory)``, ``json.dumps``'s exactly, piece by piece:
    one row at a time is held, so a memory of any size is written in bounded memory.
    ``progress("snapshot", done, total)`` is called as rows are written (every
    ``PROGRESS_EVERY`` and at the end)."""
    store = memory.store
    replaced = Replaced()
    header = _header(memory, include_vectors, replaced)
    total = sum(store.count_rows(table) for table in DUMP_TABLES) if progress else 0
    # What json.dumps writes for a dict: ", " between items, ": " after keys.
    yield "{" + "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in header.items())
    yield '"tables": {'
    done = 0
    for n, table in enumerate(DUMP_TABLES):
        yield f'{", " if n else ""}{json.dumps(table)}: ['
        first = True
        for row in _rows(store, table, include_vectors, replaced):
            yield json.dumps(row) if first else ", " + json.dumps(row)
            first = False
            done += 1
            if progress is not None and done % PROGRESS_EVERY == 0 and done < total:
                progress("snapshot", done, total)
        yield "]"
    yield "}}"
    _say_replaced(replaced)
    if progress is not None:
        progress("snapshot", done, max(total, done))


def _say_replaced(replaced: Replaced) -> None:
    # As a migrate does (memory/store/transfer.py): the restore of an earlier version
    # refuses a NUL or a lone surrogate, so a snapshot holding one would be a backup that
    # version cannot use.
    if replaced:
        _log.warning("the snapshot holds U+FFFD in place of each NUL or lone surrogate an "
                     "older version stored, which no store of this version holds: %s; the "
                     "memory keeps them as they were", replaced)


def _kept_config(memory: SnapshottedMemory) -> MemoryConfig:
    """The settings the memory keeps for its next open, not a session's own (a chat's
    ``--core-limit``, a reader's ``tau``): a snapshot restores the memory as stored. A
    stored setting that cannot be read, which the session was opened to repair, gives way
    to the session's."""
    try:
        return memory.stored_config()
    except InvalidConfigError:
        return memory.config


def _header(memory: SnapshottedMemory, include_vectors: bool, replaced: Replaced
            ) -> dict[str, Any]:
    """Everything of a snapshot but its tables, in the order a snapshot holds it; each
    state value held as a restore takes it is named in ``replaced``, as ``_rows`` does."""
    store = memory.store
    if not store.in_transaction and not store.read_only:
        with store.transaction():
            for key, value in memory.counters.items():
                store.settings.set(key, value)
    settings: dict[str, Any] = {}
    for key in _SETTINGS:
        stored = store.settings.get(key)
        if key in ONLY_WHEN_SET and not int(stored or 0):
            continue  # a memory that never erased a row restores in older versions too
        settings[key] = stored if key == "embedder_id" else int(stored or 0)
    owed = pending_erasures(store)
    if owed:
        # Mostly seen from a read-only open (a writer erases it on opening); the tombstones
        # it covers are in the tables, so without the mark a restore would keep them for good.
        settings["erase_pending"] = owed
    # What the layers above keep with set_state (the agent's context and summary).
    state: dict[str, str] = {}
    state_settings = store.settings.items("state.")
    merged = merged_keys(setting for setting, _ in state_settings)
    if merged is not None:
        raise merged_settings_error(*merged, "a snapshot")
    for setting, text in state_settings:
        if not (is_storable(setting) and is_storable(text)):
            replaced.add("setting", repr(setting))
        state[storable_text(setting.removeprefix("state."))] = storable_text(text)
    return {
        "format": SNAPSHOT_FORMAT,
        "config": _kept_config(memory).as_json(),
        "settings": settings,
        "state": state,
        "include_vectors": include_vectors,
    }


def _rows(store: StorageBackend, table: DumpTable, include_vectors: bool,
          replaced: Replaced) -> Iterator[dict[str, Any]]:
    """The rows of ``table`` as a snapshot holds them, one at a time: as a migrate copies
    them, each value changed named in ``replaced``."""
    for record in storable_rows(store, table, replaced):
        if "embedding" in record:
            blob = record["embedding"]
            record["embedding"] = (
                base64.b64encode(blob).decode("ascii") if blob and include_vectors else None
            )
        yield record


def read_snapshot(snapshot: Any, progress: Progress | None = None) -> ReadSnapshot:
    """``snapshot`` (a dict, or the path of a snapshot file) checked whole, a row at a time;
    SnapshotError naming what is wrong (a file that is not JSON, cut short or not UTF-8,
    included: its ``__cause__`` is the decoding error, with the place), OSError if a file
    cannot be read.

    A file is read in a stream, in bounded memory, with ``progress("reading", bytes read,
    size)``; one laid out otherwise than tiermem writes one (``NotStreamable``) is read
    whole, as every snapshot once was."""
    if isinstance(snapshot, ReadSnapshot):
        return snapshot
    if isinstance(snapshot, os.PathLike):
        file = SnapshotFile(snapshot)
        on_read = None if progress is None else (
            lambda done, size: progress("reading", done, size))
        try:
            try:
                return ReadSnapshot(file, check_snapshot(file, on_read), file.digest)
            except NotStreamable:
                snapshot = json.loads(file.path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            # A damaged file is a damaged snapshot: the caller catches one error for both.
            raise SnapshotError(f"{file.path} is not a snapshot (not JSON: {exc}); restore a "
                                f"file that write_snapshot() wrote") from exc
    if isinstance(snapshot, str):
        # A file name given as a str is the likely mistake; it is not taken for a path, as
        # the text of a snapshot is a str too.
        raise SnapshotError(
            "restore takes the dict snapshot() returned, or a snapshot file's path as a "
            "pathlib.Path, not a str: pass Path(name) for a file, or json.loads(text) for "
            "JSON text")
    if not isinstance(snapshot, dict):
        parse_snapshot(snapshot)  # raises: no snapshot
    source = DictSource(snapshot)
    return ReadSnapshot(source, check_snapshot(source))


def restore_snapshot(
    cls: MemoryOpener[M],
    snapshot: Any,
    path: str | Path | None,
    embedder: Embedder | None,
    replace: bool = False,
    store: StorageBackend | str | None = None,
    agent: str | None = None,
    progress: Progress | None = None,
) -> M:
    """The body of ``HierarchicalMemory.restore``: into ``store`` (a PostgreSQL DSN names
    agent ``agent``), else into the home at ``path``, else into a new in-memory store."""
    if store is not None and path is not None:
        raise InvalidInputError("give a path or a store, not both")
    # Checked whole before any store is opened: opening a DSN can create its agent.
    read = read_snapshot(snapshot, progress)
    valid = read.checked
    if store is None and path is None:
        store = SQLiteStore(None)
    elif isinstance(store, str):
        # An agent this creates is marked as it is created: a kill between the two would
        # leave an empty agent that opens as a memory.
        store = open_store(store, agent, mark_if_new=_MARK)
    if store is not None:
        try:
            embedder = embedder if embedder is not None else _embedder_for(valid)
            if not held_by(store) and store.settings.get(RESTORING_KEY) is None:
                # Committed on its own: a restore killed before its rows commit leaves the
                # store marked, never taken for an empty memory (memory/session.py refuses
                # to open it), and the restore can be run again. Its rows take the mark away.
                with store.transaction():
                    store.settings.set(*_MARK)
            with store.transaction():
                held = held_by(store)
                if held:
                    if not replace:
                        raise store_refusal(store.location, held)
                    store.clear()
                write_rows(store, read, embedder, progress)
                store.settings.delete(list(UNFINISHED_COPY_KEYS))
        except BaseException:
            store.close()
            raise
        _committed(read, progress)
        try:
            return cls(store=store, embedder=embedder)
        except BaseException:
            # A memory that failed to open has closed a store it took; one stopped before
            # taking it (a Ctrl-C) would keep the store's writer lock until collected.
            store.close()
            raise
    assert path is not None, "restore needs a path or a store"
    if embedder is None:
        embedder = _embedder_for(valid)
    from tiermem.memory.store.sqlite.restore import database_aside

    home = expanded(path)
    with database_aside(home, replace) as aside, aside.transaction():
        write_rows(aside, read, embedder, progress)
    _committed(read, progress)
    # Opening rebuilds the FAISS indexes from the restored vectors and fits core.
    return cls(home, embedder=embedder)


def _committed(read: ReadSnapshot, progress: Progress | None) -> None:
    """``progress("committed", rows, rows)``: the restored memory is in place (its
    transaction committed, or its database renamed into the home); what is left is
    opening it, and a caller stopped from here on must not say it left the memory as it
    was."""
    if read.checked.replaced:
        _log.warning("restored with U+FFFD in place of each NUL or lone surrogate the "
                     "snapshot holds, which no store of this version holds: %s; the snapshot "
                     "keeps them as they were", read.checked.replaced)
    if progress is not None:
        rows = sum(read.checked.rows.values())
        progress("committed", rows, rows)


def _embedder_for(valid: CheckedSnapshot) -> Embedder:
    from tiermem.memory.embed.embeddings import HashingEmbedder, default_embedder

    stored, dim = valid.settings.embedder_id or "", valid.settings.embedder_dim
    if stored.startswith("hashing-") and dim is not None and dim >= 8:
        return HashingEmbedder(dim)
    return default_embedder()
