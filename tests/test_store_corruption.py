"""A damaged database is reported as StoreCorruptError with what to do next, wherever
it is found; an unclean close is followed by SQLite's quick_check; durability="full"."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory

from tiermem.memory.errors import InvalidInputError, StoreCorruptError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.errors import corrupt_message, salvage_command
from tiermem.memory.tiers.recall import NewMessage

REPO = Path(__file__).resolve().parents[1]


def _fill(home: Path) -> None:
    with make_memory(home) as m:
        for i in range(300):
            m.archival_insert(f"passage {i} about invoices, kubernetes and the tokyo office "
                              f"number {i * 7919 % 1000}")
        m.process_interaction("The production region is eu-west-1.", "Noted.")
        m.recall.append_many([NewMessage("user", f"message {i} about invoices and kubernetes",
                                         2) for i in range(300)])


def _damage_pages_of(home: Path, table: str) -> int:
    database = home / "memory.sqlite3"
    with sqlite3.connect(database) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))]
    assert pages, f"{table} has no pages"
    with database.open("r+b") as out:
        for page in pages:
            out.seek((page - 1) * page_size)
            out.write(bytes((page * 37 + i) % 251 for i in range(page_size)))
    return len(pages)


CALLS: dict[str, tuple[str, Callable[[HierarchicalMemory], Any]]] = {
    "archival_search": ("passages_fts_data", lambda m: m.archival_search("invoices kubernetes")),
    "query": ("passages_fts_data", lambda m: m.query("invoices kubernetes")),
    "archival_insert": ("passages_fts_data",
                        lambda m: m.archival_insert("another passage about invoices")),
    "recall_search": ("messages_fts_data", lambda m: m.recall_search("invoices kubernetes")),
    "process_interaction": ("messages_fts_data",
                            lambda m: m.process_interaction("More on invoices.", "Noted.")),
}


@pytest.mark.parametrize("path", list(CALLS))
def test_corruption_found_at_query_time_is_a_store_corrupt_error(tmp_path: Path,
                                                                  path: str) -> None:
    table, call = CALLS[path]
    home = tmp_path / "agent"
    _fill(home)
    _damage_pages_of(home, table)
    with make_memory(home) as m:  # closed cleanly last time: no check, the damage is unseen
        assert not m.store.quick_checked
        with pytest.raises(StoreCorruptError) as info:
            call(m)
        message = str(info.value)
        assert "is damaged" in message and str(info.value.__cause__) in message
        assert "HierarchicalMemory.restore" in message and ".dump" in message
        assert isinstance(info.value.__cause__, sqlite3.DatabaseError)
        assert not m.store.in_transaction


def test_a_database_that_is_not_one_is_refused_at_open(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    home.mkdir()
    (home / "memory.sqlite3").write_bytes(os.urandom(8192))
    with pytest.raises(StoreCorruptError, match=r"HierarchicalMemory\.restore"):
        make_memory(home)
    (home / "memory.sqlite3").unlink()
    make_memory(home).close()  # the failed open released the lock


# -- unclean close -------------------------------------------------------------------------------

_KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory
    m = HierarchicalMemory(sys.argv[1], embedder=HashingEmbedder())
    m.archival_insert("written just before the writer was killed")
    os.kill(os.getpid(), signal.SIGKILL)
""")


def _killed_writer(home: Path) -> None:
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(home)], cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == -9, done.stderr


def test_quick_check_runs_after_an_unclean_close_only(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    make_memory(home).close()
    with make_memory(home) as m:
        assert not m.store.quick_checked
    _killed_writer(home)
    with make_memory(home) as m:
        assert m.store.quick_checked
        assert m.archival_search("killed").total == 1
    with make_memory(home) as m:  # that session closed cleanly
        assert not m.store.quick_checked


def test_damage_after_an_unclean_close_is_found_at_open(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _fill(home)
    _killed_writer(home)
    # Checkpoint what the killed writer left in the WAL, then damage an index page.
    with sqlite3.connect(home / "memory.sqlite3") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _damage_pages_of(home, "passages_created")
    with pytest.raises(StoreCorruptError) as info:
        make_memory(home)
    assert "quick_check" in str(info.value) and ".dump" in str(info.value)


# -- durability ----------------------------------------------------------------------------------


def _database_file_alone(home: Path, copy: Path) -> list[str]:
    """The passages a copy of memory.sqlite3 holds without its -wal file."""
    copy.mkdir()
    shutil.copyfile(home / "memory.sqlite3", copy / "memory.sqlite3")
    with sqlite3.connect(copy / "memory.sqlite3") as conn:
        return [r[0] for r in conn.execute("SELECT text FROM passages")]


@pytest.mark.parametrize("durability", ["normal", "full"])
def test_full_durability_puts_every_commit_in_the_database_file(tmp_path: Path,
                                                                durability: str) -> None:
    home = tmp_path / "agent"
    make_memory(home).close()
    with make_memory(home, durability=durability) as m:
        sync = m.store.execute("PRAGMA synchronous").fetchone()[0]
        assert sync == {"normal": 1, "full": 2}[durability]
        m.archival_insert("committed while the session is open")
        alone = _database_file_alone(home, tmp_path / "copy")
    # With NORMAL the commit is in the WAL until a checkpoint: losing that file loses it.
    expected = ["committed while the session is open"] if durability == "full" else []
    assert alone == expected


def test_an_unknown_durability_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="'normal' or 'full'"):
        make_memory(tmp_path / "agent", durability="paranoid")


def test_the_salvage_command_the_message_gives_makes_a_memory_tiermem_opens(
        tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _fill(home)
    with make_memory(home) as m:
        before = sorted(f.text for f in m.facts())
    database = home / "memory.sqlite3"
    command = salvage_command(database)
    assert command in corrupt_message(database, "test")
    if shutil.which("sqlite3") is None:
        pytest.skip("the salvage command runs the sqlite3 shell, which is not installed")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    with make_memory(tmp_path / "NEW") as salvaged:
        assert sorted(f.text for f in salvaged.facts()) == before
        salvaged.add_fact("User likes jazz")  # a memory to go on with, not a read-only copy
