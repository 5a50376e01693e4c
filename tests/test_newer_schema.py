"""A memory a newer version of tiermem wrote: every open, for writing or read-only, refuses
it with NewerSchemaError before writing anything, and the command line says to upgrade
tiermem."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.memory import HierarchicalMemory
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import NewerSchemaError, StoreError
from tiermem.memory.store.sqlite import DB_FILE
from tiermem.memory.store.sqlite.schema import SCHEMA_VERSION

REPO = Path(__file__).resolve().parents[1]
NEWER = SCHEMA_VERSION + 1


def _newer_home(home: Path) -> Path:
    """A filled home whose database a newer version has written: its schema number, and a
    column this version does not know."""
    with make_memory(home) as memory:
        memory.add_fact("User likes green tea", "durable")
        memory.archival_insert("the billing runbook lives in the wiki")
    with contextlib.closing(sqlite3.connect(home / DB_FILE)) as conn:
        conn.execute("ALTER TABLE facts ADD COLUMN weight REAL NOT NULL DEFAULT 1")
        conn.execute(f"PRAGMA user_version = {NEWER}")
    return home


def _files(home: Path) -> dict[str, str]:
    """What every file of the home holds (an empty WAL and the WAL index aside: SQLite makes
    them for any connection to the database, a reader's too)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(home.iterdir())
            if not p.name.endswith("-shm") and not (p.name.endswith("-wal")
                                                    and p.stat().st_size == 0)}


@pytest.mark.parametrize("read_only", [False, True])
def test_an_open_of_a_newer_schema_is_refused_and_changes_no_byte(
        tmp_path: Path, read_only: bool) -> None:
    home = _newer_home(tmp_path / "agent")
    before = _files(home)
    with pytest.raises(NewerSchemaError, match="written by a newer version of tiermem") as info:
        make_memory(home, read_only=read_only)
    refused = info.value
    assert (refused.found, refused.current) == (NEWER, SCHEMA_VERSION)
    assert "left as it was; install a newer tiermem the way this one was installed (update " \
        "the checkout and run `python -m pip install .` in it)" in str(refused)
    assert "pip install -U" not in str(refused)  # on PyPI, tiermem names another project
    assert _files(home) == before
    # Errors cross process boundaries (forked workers, the crash harness) by pickle.
    copy = pickle.loads(pickle.dumps(refused))
    assert (type(copy), str(copy), copy.where, copy.found, copy.current) == (
        NewerSchemaError, str(refused), refused.where, NEWER, SCHEMA_VERSION)
    assert isinstance(copy, StoreError)


def _tiermem(tmp_path: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "cli.py", *command], cwd=REPO, input="hello\n",
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO),
                               "TIERMEM_HOME": str(tmp_path)})


@pytest.mark.parametrize("command", [
    ["chat", "--agent", "ada", "--offline"],
    ["chat", "--agent", "ada", "--offline", "--embedder", "hashing"],  # no settings lookup
    ["forget", "--agent", "ada", "--embedder", "hashing", "User likes green tea"],
    ["config", "--agent", "ada", "core_limit", "500"],
    ["diagnostics", "--agent", "ada"],
    ["upgrade", "--agent", "ada"],
])
def test_a_command_on_a_newer_home_fails_saying_to_upgrade_tiermem(
        tmp_path: Path, command: list[str]) -> None:
    home = _newer_home(tmp_path / "agents" / "ada")
    before = _files(home)
    done = _tiermem(tmp_path, *command)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(
        f"tiermem: agent ada's memory was written by a newer version of tiermem (schema "
        f"{NEWER}; this version knows schemas up to {SCHEMA_VERSION}) and was left as it "
        f"was; install a newer tiermem the way this one was installed (update the checkout "
        f"and run `python -m pip install .` in it), or use the version that wrote it")
    assert ("not tiermem itself" in done.stderr) == (command[0] == "upgrade")
    assert _files(home) == before


def test_a_restore_does_not_replace_a_newer_memory(tmp_path: Path) -> None:
    with make_memory(tmp_path / "other") as other:
        other.add_fact("User likes black coffee")
        snapshot = other.snapshot(include_vectors=False)
    (tmp_path / "snap.json").write_text(json.dumps(snapshot), encoding="utf-8")
    home = _newer_home(tmp_path / "agents" / "ada")
    before = _files(home)
    with pytest.raises(NewerSchemaError):
        HierarchicalMemory.restore(snapshot, path=home, replace=True,
                                   embedder=HashingEmbedder())
    assert _files(home) == before
    done = _tiermem(tmp_path, "restore", str(tmp_path / "snap.json"), "--agent", "ada",
                    "--replace")
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(
        "tiermem: agent ada's memory was written by a newer version of tiermem"), done.stderr
    assert _files(home) == before
    assert [p.name for p in home.iterdir() if "restore" in p.name] == []


#: What tiermem writes, and what a version that ignored the schema version wrote on its
#: first open (the open session's mark), then in a session.
_OLD_WRITES = (
    "UPDATE meta SET value = 'open' WHERE key = 'writer_state'",
    "INSERT INTO meta (key, value) VALUES ('old_setting', '1')",
    "INSERT INTO facts (text, norm, durability, tier, created_at, created_tick, last_access,"
    " last_counted_tick, tokens) VALUES ('Old code wrote this', 'old code wrote this',"
    " 'durable', 'core', 1, 0, 0, 0, 4)",
    "INSERT INTO messages (role, content, created_at) VALUES ('user', 'hi', 1)",
    "UPDATE passages SET text = 'changed'",
    "DELETE FROM facts",
    "DELETE FROM messages",
    "INSERT INTO erasures (message_id, reason, erased_at) VALUES (99, 'x', 1)",
)


@pytest.mark.parametrize("write", _OLD_WRITES)
def test_a_version_that_ignores_the_schema_version_fails_at_its_first_write(
        tmp_path: Path, write: str) -> None:
    """Versions before the check of the schema version on every open (commit 612317d) wrote
    into a memory this one had upgraded; its triggers now call a function they do not
    register, so their first write fails and changes nothing."""
    from memory_helpers import database_digest

    from tiermem.memory.text.symbols import SQL_FUNCTION, indexed_text

    home = tmp_path / "agent"
    with make_memory(home) as memory:
        memory.add_fact("User likes green tea", "durable")
        memory.archival_insert("the billing runbook lives in the wiki")
        memory.process_interaction("Hello there.", "Hi.")
    before = database_digest(home)
    with contextlib.closing(sqlite3.connect(home / DB_FILE, isolation_level=None)) as old:
        old.create_function(SQL_FUNCTION, 1, indexed_text)  # what those versions registered
        with pytest.raises(sqlite3.OperationalError,
                           match="no such function: tiermem_needs_a_newer_version"):
            old.execute(write)
    assert database_digest(home) == before
    with make_memory(home) as memory:  # this version writes on as before
        memory.add_fact("User likes figs", "durable")
        assert [f.text for f in memory.facts()] == ["User likes green tea", "User likes figs"]


def test_every_table_tiermem_writes_is_guarded_against_older_writers(tmp_path: Path) -> None:
    with make_memory(tmp_path / "agent"):
        pass
    with contextlib.closing(sqlite3.connect(tmp_path / "agent" / DB_FILE)) as conn:
        objects = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    fts = {name for kind, name, _, sql in objects
           if kind == "table" and sql and "VIRTUAL TABLE" in sql.upper()}
    tables = {name for kind, name, _, _ in objects if kind == "table"
              and not name.startswith("sqlite_") and name not in fts
              and not any(name.startswith(f"{f}_") for f in fts)}
    guarded = {(table, sql.split()[4]) for kind, _, table, sql in objects
               if kind == "trigger" and "tiermem_needs_a_newer_version()" in sql}
    assert guarded == {(table, op) for table in tables for op in ("INSERT", "UPDATE", "DELETE")}


#: What a newer version might change under a reader: a column this one reads, renamed
#: (reads would fail on it), or one added that withholds rows (reads would show them).
_UPGRADES = ("ALTER TABLE facts RENAME COLUMN text TO body",
             "ALTER TABLE facts ADD COLUMN withheld INTEGER NOT NULL DEFAULT 1")


@pytest.mark.parametrize("change", _UPGRADES)
def test_a_reader_open_when_a_newer_version_upgrades_the_file_reads_no_more(
        tmp_path: Path, change: str) -> None:
    """A read-only session (a dashboard, a long diagnostics run) needs no writer lock, so a
    newer tiermem can take the lock and upgrade the file while it is open. Each read after
    that raises NewerSchemaError, not a raw sqlite3 error nor rows of a schema this version
    does not know, and leaves no read transaction open; a read with nothing new committed
    runs no statement more than it did."""
    home = tmp_path / "agent"
    with make_memory(home) as memory:
        memory.add_fact("User likes green tea", "durable")
        memory.archival_insert("the billing runbook lives in the wiki")
    with make_memory(home, read_only=True) as reader:
        assert [f.text for f in reader.core] == ["User likes green tea"]
        statements: list[str] = []
        reader.store.conn.set_trace_callback(statements.append)
        assert len(reader.core) == 1
        assert statements == ["BEGIN DEFERRED", "PRAGMA data_version", "COMMIT"]
        with contextlib.closing(sqlite3.connect(home / DB_FILE)) as newer:
            newer.execute(change)
            newer.execute(f"PRAGMA user_version = {NEWER}")
            newer.commit()
        for read in (lambda: len(reader.core), lambda: reader.facts(),
                     lambda: reader.archival_search("billing runbook")):
            with pytest.raises(NewerSchemaError, match="install a newer tiermem") as info:
                read()
            assert (info.value.found, info.value.current) == (NEWER, SCHEMA_VERSION)
            assert not reader.store.conn.in_transaction
