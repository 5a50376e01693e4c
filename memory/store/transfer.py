"""Move an agent's memory between backends (an agent home directory, a PostgreSQL database).

The source is opened read-only, so nothing in it changes whatever happens.
The copy is written in one transaction of the target: every table in the
snapshot's column form (memory/store/records.py) and every setting, then
counted and hashed again inside that transaction. When the counts or the
content hash differ from the source's, the transaction rolls back and the
target is left as it was.

A NUL or a lone surrogate an older version stored in an agent home is copied as U+FFFD
(memory/store/unstorable.py). The report names the values so changed; the source keeps them
as they were.

Until that transaction commits the target is marked (``MIGRATING_KEY``), so a
copy cut short is never taken for an empty memory. ``migration_target`` makes a
new target so that no kill leaves it unmarked: a PostgreSQL agent is created with
the mark in one transaction, and a new agent home gets its database built aside
and renamed into place once the copy committed, so until then it holds none.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tiermem.memory.config import MemoryConfig
from tiermem.memory.errors import (
    StoreError,
    TargetHoldsMemoryError,
    UnfinishedMigrationError,
    UnfinishedRestoreError,
)
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.location_text import is_dsn
from tiermem.memory.store.opening import open_backend
from tiermem.memory.store.records import (
    DUMP_TABLES,
    MIGRATING_KEY,
    RESTORING_KEY,
    STATE_PREFIX,
    UNFINISHED_COPY_KEYS,
    DumpRow,
    DumpTable,
)
from tiermem.memory.store.unstorable import (
    Replaced,
    is_storable,
    merged_keys,
    merged_settings_error,
    storable_text,
)
from tiermem.user_paths import expanded

__all__ = ["MigrationReport", "builds_aside", "check_filled", "content_digest", "held_by",
           "migrate", "migration_target", "open_backend", "storable_rows"]

#: Settings that describe one backend's storage rather than the memory: never copied.
#: An agent home counts its vector rewrites (``*_vector_generation``, which date its
#: FAISS files) and bumps them as rows arrive, so the count is the target's own.
STORAGE_KEYS = frozenset({"store_id", "writer_state", "recall_rewrites",
                          "archival_rewrites", "purge_pending",
                          "passages_vector_generation", "messages_vector_generation",
                          *UNFINISHED_COPY_KEYS})
BATCH = 5000

Progress = Callable[[str, int, int], None]


@dataclass
class MigrationReport:
    """What was copied: rows per table, settings, the content hash both sides share, and
    the values copied with U+FFFD in place of a NUL or a lone surrogate (``replaced``, said
    as ``facts 3 (text)`` or ``setting 'KEY'``)."""

    rows: dict[str, int] = field(default_factory=dict)
    settings: int = 0
    digest: str = ""
    replaced: Replaced = field(default_factory=Replaced)


def _settings(backend: StorageBackend, replaced: Replaced | None = None
              ) -> list[tuple[str, str]]:
    kept = [(k, v) for k, v in backend.settings.items() if k not in STORAGE_KEYS]
    if replaced is None:
        return kept
    merged = merged_keys(key for key, _ in kept)
    if merged is not None:
        raise merged_settings_error(*merged, "a copy")
    for key, value in kept:
        if not (is_storable(key) and is_storable(value)):
            replaced.add("setting", repr(key))
    return [(storable_text(k), storable_text(v)) for k, v in kept]


def storable_rows(backend: StorageBackend, table: DumpTable,
                  replaced: Replaced | None) -> Iterator[DumpRow]:
    """``table``'s rows, or, given ``replaced``, each as a copy stores it (module docstring),
    with each value changed added to ``replaced`` by its row's id (its place when it has
    none) and column."""
    if replaced is None:
        yield from backend.export_rows(table)
        return
    for place, row in enumerate(backend.export_rows(table), start=1):
        yield replaced.row(table, str(row.get("id", f"row {place}")), row)


def _canonical(row: DumpRow) -> bytes:
    return json.dumps({k: (v.hex() if isinstance(v, bytes) else v) for k, v in row.items()},
                      sort_keys=True, separators=(",", ":")).encode()


def content_digest(backend: StorageBackend, replaced: Replaced | None = None
                   ) -> tuple[dict[str, int], int, str]:
    """Rows per table, settings, and a SHA-256 of every row and setting in order; given
    ``replaced``, of them as a copy stores them, each value changed added to it."""
    digest = hashlib.sha256()
    rows: dict[str, int] = {}
    for table in DUMP_TABLES:
        digest.update(f"\x00table {table}\x00".encode())
        count = 0
        for row in storable_rows(backend, table, replaced):
            digest.update(_canonical(row) + b"\n")
            count += 1
        rows[table] = count
    settings = _settings(backend, replaced)
    digest.update(b"\x00settings\x00" + json.dumps(settings).encode())
    return rows, len(settings), digest.hexdigest()


def _batches(rows: Iterable[DumpRow], size: int) -> Iterable[list[DumpRow]]:
    batch: list[DumpRow] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def held_by(store: StorageBackend) -> tuple[str, ...]:
    """What ``store`` holds that a migrate or a restore without ``replace`` into it would
    overwrite or mix with its copy: each table with a row, the state values stored beside
    them (the chat's prompt history among them; ``stored state: KEYS``), and settings other
    than the defaults every new memory stores (``settings: NAMES``, a ``config`` change).
    Empty for a memory created and never used, whose defaults the copy's settings replace
    as they would a new one's."""
    held: list[str] = [t for t in DUMP_TABLES
                       if next(iter(store.export_rows(t)), None) is not None]
    state = [key.removeprefix(STATE_PREFIX) for key, _ in store.settings.items(STATE_PREFIX)]
    if state:
        held.append(f"stored state: {', '.join(state)}")
    changed = [name for name, default in MemoryConfig().to_meta().items()
               if store.settings.get(name) not in (None, default)]
    if changed:
        held.append(f"settings: {', '.join(changed)}")
    return tuple(held)


def check_filled(store: StorageBackend) -> None:
    """Raise when a migrate or a restore into ``store`` marked it and has not filled it.

    Else such a store passes for an empty memory: a session would write to it, and the
    copy's next run would refuse it as one already holding a memory.
    """
    for key, error in ((MIGRATING_KEY, UnfinishedMigrationError),
                       (RESTORING_KEY, UnfinishedRestoreError)):
        source = store.settings.get(key)
        if source is not None:
            raise error(store.location, source, running=store.read_only and store.writer_active())


def target_holds_memory(location: str, agent: str | None) -> TargetHoldsMemoryError | None:
    """Whether the memory at ``location`` (an agent home, or agent ``agent`` of a DSN)
    already holds a memory, looked at read-only, creating nothing: the refusal ``migrate``
    would give, for a caller that checks anything else about the target after this. None
    when there is no memory there, or when it cannot be opened to read (``migrate``'s own
    opening then says why)."""

    from tiermem.memory.errors import TiermemError
    from tiermem.memory.store.location_text import is_dsn
    from tiermem.memory.store.sqlite.files import DB_FILE

    if is_dsn(location):
        from tiermem.memory.store.postgres.connection import stored_agents

        if agent not in (stored_agents(location) or []):
            return None
    elif not (expanded(location).absolute() / DB_FILE).is_file():
        return None
    try:
        store = open_backend(location, agent, read_only=True)
    except TiermemError:
        return None
    try:
        held = held_by(store)
        return TargetHoldsMemoryError(store.location, held) if held else None
    finally:
        store.close()


def builds_aside(location: str) -> bool:
    """Whether ``migration_target(location, ...)`` builds the target's database aside: an
    agent home that holds no memory database yet, or only one whose creation never
    finished (0 bytes, or cut short before it stored anything), which the copy replaces
    whole as a restore does, rather than finishing its creation in place."""
    return not is_dsn(location) and _holds_no_memory(expanded(location))


def _holds_no_memory(home: Path) -> bool:
    from tiermem.memory.store.sqlite.connection import holds_no_memory_yet
    from tiermem.memory.store.sqlite.files import DB_FILE

    return not (home / DB_FILE).exists() or holds_no_memory_yet(home / DB_FILE)


@contextlib.contextmanager
def migration_target(location: str, agent: str | None,
                     source: StorageBackend) -> Iterator[StorageBackend]:
    """The target a migrate of ``source`` writes into, at ``location`` (as ``open_backend``),
    closed after the block. A new agent home's database is built aside and renamed into
    place when the block succeeds, under the home's writer lock: a kill before that leaves
    the home without one (memory/store/sqlite/restore.py; the next open sweeps the file
    aside), where a database created in place would pass for an empty memory until the
    mark committed. A PostgreSQL agent this creates is marked in the transaction that
    creates it. An existing memory is opened where it is (``migrate`` marks it)."""
    if builds_aside(location):
        from tiermem.memory.store.sqlite.restore import database_aside

        with database_aside(expanded(location).absolute(), replace=False,
                            refusal=_made_meanwhile) as aside:
            yield aside
        return
    target = open_backend(location, agent, read_only=False,
                          mark_if_new=(MIGRATING_KEY, source.location))
    try:
        yield target
    finally:
        target.close()


def _made_meanwhile(home: Path) -> StoreError | None:
    if _holds_no_memory(home):
        return None
    return StoreError(f"another process created a memory in {home} as this migrate began; "
                      f"nothing was copied: run the migrate again")


def migrate(source: StorageBackend, target: StorageBackend,
            progress: Progress | None = None) -> MigrationReport:
    """Copy ``source``'s memory into ``target``, which must hold none yet."""
    check_filled(source)
    replaced = Replaced()
    counts, settings, digest = content_digest(source, replaced)
    held = held_by(target)
    if held:
        raise TargetHoldsMemoryError(target.location, held)
    # Committed first, on its own: a copy killed half-way leaves the target marked, so it
    # is never taken for an empty memory (memory/session.py refuses to open it), and the
    # migrate can be run again. The copy's own transaction takes the mark away. A
    # PostgreSQL agent ``migration_target`` created is marked already.
    if target.settings.get(MIGRATING_KEY) != source.location:
        with target.transaction():
            target.settings.set(MIGRATING_KEY, source.location)
    with target.transaction():
        for table in DUMP_TABLES:
            done = 0
            for batch in _batches(storable_rows(source, table, Replaced()), BATCH):
                target.import_rows(table, batch)
                done += len(batch)
                if progress is not None:
                    progress(table, done, counts[table])
        for key, value in _settings(source, Replaced()):
            target.settings.set(key, value)
        target.settings.delete(list(UNFINISHED_COPY_KEYS))
        copied, copied_settings, copied_digest = content_digest(target)
        if (copied, copied_settings, copied_digest) != (counts, settings, digest):
            raise StoreError(_mismatch(counts, copied, digest, copied_digest, target.location))
    return MigrationReport(rows=counts, settings=settings, digest=digest, replaced=replaced)


def _mismatch(expected: dict[str, int], got: dict[str, Any], digest: str, got_digest: str,
              where: str) -> str:
    differing = [f"{t}: {expected[t]} in the source, {got.get(t)} copied"
                 for t in expected if expected[t] != got.get(t)]
    what = "; ".join(differing) if differing else (
        f"the content hash differs ({digest[:12]} against {got_digest[:12]})")
    return (f"the copy in {where} does not match the source ({what}); nothing was written to "
            f"it. Report this as a bug, with both backends' versions")
