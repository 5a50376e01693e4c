"""The files the SQLite backend keeps in an agent home, by name."""

from __future__ import annotations

from pathlib import Path

DB_FILE = "memory.sqlite3"
#: Meta keys that describe this database file rather than the memory in it: a
#: snapshot does not carry them, and a restored copy has its own.
FILE_META_KEYS = ("store_id", "writer_state", "recall_rewrites", "archival_rewrites")
#: How many times recall's rows were cleared or imported in this file: only ever counts up,
#: so a process holding recall's words in memory sees another one replace the rows
#: (memory/store/sqlite/lexical_appends.py).
REWRITES_KEY = "recall_rewrites"
#: How many archival passages were deleted, forgotten or edited in this file (the schema's
#: triggers count them): only ever counts up, for the same reason.
ARCHIVAL_REWRITES_KEY = "archival_rewrites"
#: The saved FAISS index of each tier (with sidecars beside them).
ARCHIVAL_INDEX_FILE = "archival.faiss"
RECALL_INDEX_FILE = "recall.faiss"
#: Every file of an unfinished restore starts with this (SQLite adds -wal, -shm, -journal).
RESTORE_PREFIX = f"{DB_FILE}.restore-"


def discard_restore_leftovers(home: Path) -> None:
    """Delete what unfinished restores left in ``home``; call only under its writer lock."""
    for path in home.glob(f"{RESTORE_PREFIX}*"):
        path.unlink(missing_ok=True)
