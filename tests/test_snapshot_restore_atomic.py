"""A restore that fails, or is refused, leaves the home and the memory in it as they were."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import make_memory
from snapshot_helpers import (
    check_restored,
    database_bytes,
    facts_of,
    leftovers,
    restore,
    small_snapshot,
)

import tiermem.memory as memory
import tiermem.memory.store.sqlite.restore  # noqa: F401
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import SnapshotError, StoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.restore import RESTORE_PREFIX


class FailingEmbedder(HashingEmbedder):
    """Fails on its second batch, half-way through re-embedding a snapshot."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("embedding service unavailable")
        return super().embed_documents(texts)


def _old_home(home: Path) -> dict[str, Any]:
    with make_memory(home) as m:
        m.add_fact("the old memory's fact")
        m.archival_insert("an old passage")
        before = m.snapshot()
    return before


def _sidecars(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in home.iterdir()
            if p.name.startswith(("archival.", "recall."))}


def test_a_restore_that_fails_midway_leaves_the_old_memory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    before = _old_home(home)
    files = database_bytes(home), _sidecars(home)
    assert files[1]  # the FAISS files exist, and must survive the failure
    snap = small_snapshot()
    for table in ("passages", "messages"):
        for row in snap["tables"][table]:
            row["embedding"] = None  # so the restore re-embeds, in two batches
    embedder = FailingEmbedder()
    with pytest.raises(RuntimeError, match="unavailable"):
        HierarchicalMemory.restore(snap, home, embedder=embedder, replace=True)
    assert embedder.calls == 2
    assert (database_bytes(home), _sidecars(home)) == files
    assert leftovers(home) == []
    with make_memory(home) as m:
        assert m.snapshot() == before
    with HierarchicalMemory.restore(snap, home, embedder=HashingEmbedder(), replace=True) as m:
        check_restored(m)
        assert [f.text for f in m.facts()] == [f["text"] for f in facts_of(snap)
                                                if f["forgotten_at"] is None]


def test_a_restore_that_fails_at_the_rename_leaves_the_old_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    before = _old_home(home)

    def disk_full(built: Path, target: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(memory.store.sqlite.restore, "place", disk_full)
    with pytest.raises(OSError, match="No space"):
        restore(small_snapshot(), home, replace=True)
    monkeypatch.undo()
    assert leftovers(home) == []
    with make_memory(home) as m:
        assert m.snapshot() == before
    with restore(small_snapshot(), home, replace=True) as m:
        assert m.snapshot() == small_snapshot()


def test_without_replace_a_home_that_holds_a_memory_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    before = _old_home(home)
    with pytest.raises(SnapshotError, match=r"already holds a memory.*replace=True"):
        restore(small_snapshot(), home)
    assert leftovers(home) == []
    with make_memory(home) as m:
        assert m.snapshot() == before


def test_stale_restore_files_are_removed_on_open(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for suffix in ("", "-wal", "-shm", "-journal"):
        (home / f"{RESTORE_PREFIX}123-deadbeef{suffix}").write_bytes(b"half a database")
    assert len(leftovers(home)) == 4
    with make_memory(home):
        assert leftovers(home) == []


def test_a_restore_whose_new_database_cannot_be_set_up_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk as the new database's schema is written (inside SQLiteStore's opening,
    before the restore holds the store): its files are removed, not left to fill the disk."""
    import sqlite3

    import tiermem.memory.store.sqlite.store as sqlite_store

    home = tmp_path / "home"
    before = _old_home(home)
    snap = small_snapshot()
    migrate = sqlite_store.migrate

    def disk_full(conn: sqlite3.Connection) -> None:
        migrate(conn)
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(sqlite_store, "migrate", disk_full)
    with pytest.raises(StoreError, match="disk is full"):
        restore(snap, home, replace=True)
    monkeypatch.undo()
    assert leftovers(home) == []
    with make_memory(home) as m:
        assert m.snapshot() == before


def test_a_retry_sweeps_a_killed_restore_s_files_before_it_creates_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a nearly full disk the files a killed restore left are the space the retry's new
    database needs: they are gone before it is created."""
    import sqlite3

    import tiermem.memory.store.sqlite.store as sqlite_store

    home = tmp_path / "home"
    before = _old_home(home)
    killed = f"{RESTORE_PREFIX}123-deadbeef"
    for suffix in ("", "-wal", "-shm"):
        (home / f"{killed}{suffix}").write_bytes(b"half a database")
    migrate = sqlite_store.migrate
    seen: list[list[str]] = []

    def disk_full(conn: sqlite3.Connection) -> None:
        seen.append([name for name in leftovers(home) if name.startswith(killed)])
        migrate(conn)
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(sqlite_store, "migrate", disk_full)
    with pytest.raises(StoreError, match="disk is full"):
        restore(small_snapshot(), home, replace=True)
    monkeypatch.undo()
    assert seen == [[]]
    assert leftovers(home) == []
    with make_memory(home) as m:
        assert m.snapshot() == before


@pytest.mark.parametrize("step", ["set up", "rename"])
def test_a_failed_restore_into_a_new_home_leaves_no_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """A home the restore created goes with it when the restore fails: a directory holding
    only the writer lock would pass for an agent that holds no memory. One that was there
    before stays."""
    import sqlite3

    import tiermem.memory.store.sqlite.store as sqlite_store

    def disk_full(*args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    def failing_rename(built: Path, target: Path) -> None:
        raise OSError(28, "No space left on device")

    if step == "set up":
        monkeypatch.setattr(sqlite_store, "migrate", disk_full)
    else:
        monkeypatch.setattr(memory.store.sqlite.restore, "place", failing_rename)
    home = tmp_path / "agents" / "new"
    with pytest.raises((StoreError, OSError)):
        restore(small_snapshot(), home)
    assert not home.exists()
    assert (tmp_path / "agents").is_dir()  # a parent may hold other agents: kept
    home.mkdir()
    with pytest.raises((StoreError, OSError)):
        restore(small_snapshot(), home)
    assert home.is_dir() and list(home.iterdir()) == [home / "writer.lock"]


def test_a_restore_over_a_hard_linked_database_leaves_its_other_name_as_it_was(
        tmp_path: Path) -> None:
    import os

    home = tmp_path / "home"
    _old_home(home)
    backup = tmp_path / "backup.sqlite3"
    os.link(home / "memory.sqlite3", backup)  # taken for a backup
    kept = backup.read_bytes()
    restore(small_snapshot(), home, replace=True).close()
    # Before: the old database was switched to a rollback journal through the link, so
    # the backup changed with it.
    assert backup.read_bytes() == kept and backup.stat().st_nlink == 1
    assert not leftovers(home) and (home / "memory.sqlite3").stat().st_nlink == 1


def test_a_restore_over_a_hard_linked_database_a_reader_holds_is_refused(
        tmp_path: Path) -> None:
    import os

    home = tmp_path / "home"
    _old_home(home)
    backup = tmp_path / "backup.sqlite3"
    os.link(home / "memory.sqlite3", backup)
    kept = backup.read_bytes()
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as reader:
        reader.facts()  # its lock is on the linked file, which a copy would not share
        # Before: the restore went ahead under the reader, as if no session read the memory.
        with pytest.raises(StoreError, match="is open in another process"):
            restore(small_snapshot(), home, replace=True).close()
        assert [f.text for f in reader.facts()] == ["the old memory's fact"]
    assert backup.read_bytes() == kept and not leftovers(home)


def test_a_restore_over_a_hard_linked_database_with_commits_in_its_wal_says_so(
        tmp_path: Path) -> None:
    import os
    import shutil

    running, home = tmp_path / "running", tmp_path / "home"
    with make_memory(running) as m:
        m.add_fact("a fact committed to the -wal")
        home.mkdir()  # the home as a writer killed now leaves it: commits in its -wal
        for name in ("memory.sqlite3", "memory.sqlite3-wal"):
            shutil.copy2(running / name, home / name)
    wal = (home / "memory.sqlite3-wal").read_bytes()
    assert wal
    backup = tmp_path / "backup.sqlite3"
    os.link(home / "memory.sqlite3", backup)
    kept = backup.read_bytes()
    # Before: "is open in another process, or a writer left commits in its -wal", which of
    # the two not told, and nothing said of what giving it a file of its own does to them.
    with pytest.raises(StoreError) as refused:
        restore(small_snapshot(), home, replace=True).close()
    said = str(refused.value)
    assert said.startswith(f"the memory at {home} has commits in memory.sqlite3-wal not yet "
                           f"in memory.sqlite3 (a session has it open, or one that stopped "
                           f"left them), and memory.sqlite3 is a hard link"), said
    assert "the -wal's commits then go into that file alone" in said
    assert backup.read_bytes() == kept and (home / "memory.sqlite3-wal").read_bytes() == wal
