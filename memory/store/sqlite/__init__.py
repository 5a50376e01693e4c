"""The SQLite backend: one database file per agent home, with FAISS files derived from it."""

from tiermem.memory.store.sqlite.files import DB_FILE, FILE_META_KEYS
from tiermem.memory.store.sqlite.store import SQLiteStore

__all__ = ["DB_FILE", "FILE_META_KEYS", "SQLiteStore"]
