"""A schema migration SQLite itself rolled back (a full disk) fails with SQLite's error,
not with "cannot rollback - no transaction is active" in its place."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tiermem.memory.store.sqlite.connection import connect
from tiermem.memory.store.sqlite.errors import opening_error
from tiermem.memory.store.sqlite.schema import migrate


class FullAfter:
    """A connection whose ``n``-th statement fails as a full disk does at a WAL write:
    SQLite rolls the whole transaction back, then reports SQLITE_FULL."""

    def __init__(self, conn: sqlite3.Connection, n: int) -> None:
        self.conn, self.left = conn, n

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self.left -= 1
        if self.left == 0:
            self.conn.execute("ROLLBACK")
            exc = sqlite3.OperationalError("database or disk is full")
            exc.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
            raise exc
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


@pytest.mark.parametrize("n", [3, 6])
def test_a_migration_sqlite_rolled_back_reports_the_full_disk(tmp_path: Path, n: int) -> None:
    conn = connect(tmp_path / "memory.sqlite3")
    try:
        with pytest.raises(sqlite3.OperationalError) as raised:
            migrate(FullAfter(conn, n))  # type: ignore[arg-type]
        assert "disk is full" in str(raised.value), raised.value
        said = str(opening_error(raised.value, tmp_path / "memory.sqlite3"))
        assert "is full" in said and "Free some space" in said, said
    finally:
        conn.close()
