"""The writer lock: a clear error for a bad lock path, and a lock that stays with the
process that took it (a forked child neither keeps it nor may use the parent's memory)."""

from __future__ import annotations

import contextlib
import fcntl
import gc
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from memory_helpers import collector_off, make_memory

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import StoreError, StoreLockedError
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.sqlite.writer_lock import LOCK_FILE


def test_a_directory_at_the_lock_path_is_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    (home / LOCK_FILE).mkdir(parents=True)
    with pytest.raises(StoreError) as info:
        make_memory(home)
    message = str(info.value)
    assert not isinstance(info.value, IsADirectoryError)
    assert f"rmdir {home / LOCK_FILE}" in message and "is a directory" in message
    (home / LOCK_FILE).rmdir()
    with make_memory(home) as m:  # nothing was left half-open
        m.add_fact("opens once the directory is gone")


def test_a_home_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    home.write_text("not a directory")
    with pytest.raises(StoreError, match="cannot create the agent home"):
        make_memory(home)


@contextlib.contextmanager
def _forked_child(work: Callable[[], bytes]) -> Iterator[bytes]:
    """Fork a child that runs ``work``; yield what it returned while it lives on (it exits
    when the block ends), then check that it exited cleanly."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, say it is ready, wait to be told to exit
        code = 0
        try:
            os.write(report_w, work())
            os.write(ready_w, b"r")
            os.read(go_r, 1)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    try:
        assert os.read(ready_r, 1) == b"r"
        yield os.read(report_r, 16)
    finally:
        os.write(go_w, b"g")
        _, status = os.waitpid(pid, 0)
        for fd in (ready_r, ready_w, go_r, go_w, report_r, report_w):
            os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_forked_child_does_not_keep_the_writer_lock(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    m = make_memory(home)
    m.add_fact("written by the parent")

    def child_uses_the_inherited_memory() -> bytes:
        try:
            m.add_fact("written by the child")
        except StoreError as exc:
            text = str(exc)
            return b"refused" if f"opened by process {os.getppid()}" in text else b"wrong"
        return b"allowed"

    with _forked_child(child_uses_the_inherited_memory) as report:
        assert report == b"refused"
        # The parent lets go while its child lives on: the home is free.
        m.close()
        with make_memory(home) as again:
            assert [f.text for f in again.core] == ["written by the parent"]
            # ...and the refusal names the live holder, not a process that has gone.
            with pytest.raises(StoreLockedError) as info:
                SQLiteStore(home)
            assert info.value.holder_pid == os.getpid()


def test_closing_in_a_forked_child_leaves_the_parent_working(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    m = make_memory(home)

    def child_closes() -> bytes:
        m.close()
        return b"closed"

    try:
        with _forked_child(child_closes) as report:
            assert report == b"closed"
            m.archival_insert("the parent still writes after the child closed its copy")
            assert m.archival_search("parent still writes").total == 1
            with pytest.raises(StoreLockedError):
                SQLiteStore(home)
    finally:
        m.close()


def test_closing_in_a_forked_child_runs_no_close_hooks(tmp_path: Path) -> None:
    # The hooks stop the parent's threads (a graph build), which the child does not have.
    m = make_memory(tmp_path / "agent")
    calls: list[int] = []
    m.store.on_close(lambda: calls.append(os.getpid()))

    def child_closes() -> bytes:
        m.close()
        return b"ran" if calls else b"skipped"

    with _forked_child(child_closes) as report:
        assert report == b"skipped"
    m.close()
    assert calls == [os.getpid()]


def test_a_lock_whose_recorded_holder_has_exited_does_not_name_it(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    home.mkdir()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)  # a pid that is certainly gone
    fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.pwrite(fd, str(pid).encode(), 0)
        with pytest.raises(StoreLockedError) as info:
            SQLiteStore(home)
        assert info.value.holder_pid is None
        assert f"process {pid}, which took the lock, has exited" in str(info.value)
    finally:
        os.close(fd)


def test_a_memory_dropped_without_close_lets_the_home_be_opened_again(tmp_path: Path) -> None:
    memory = HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder())
    memory.add_fact("User likes green tea")
    with pytest.raises(StoreLockedError):  # held while the first one lives
        HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder())
    del memory
    gc.collect()
    with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as again:
        assert [f.text for f in again.core] == ["User likes green tea"]


def _add_a_fact_and_drop(home: Path) -> None:
    memory = HierarchicalMemory(home, embedder=HashingEmbedder())
    memory.add_fact("User likes green tea")


def test_a_memory_dropped_in_a_function_lets_the_same_process_open_it_again(
        tmp_path: Path) -> None:
    # With the automatic collector off, only the open itself can free the dropped one.
    with collector_off():
        _add_a_fact_and_drop(tmp_path / "agent")
        with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as again:
            assert [f.text for f in again.core] == ["User likes green tea"]


def test_a_home_another_holder_locks_is_refused_without_a_collection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "agent"
    home.mkdir()
    collections: list[int] = []
    collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: collections.append(1) or collect(*a))
    fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(StoreLockedError):
            SQLiteStore(home)
    finally:
        os.close(fd)
    assert collections == []


def test_a_home_this_process_still_has_open_is_refused_with_close_it(tmp_path: Path) -> None:
    # Waiting for the holder to exit is no advice when the holder is the refused process.
    with (HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()),
          pytest.raises(StoreLockedError) as refused):
        HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder())
    assert refused.value.this_process
    said = str(refused.value)
    assert (f"by process {os.getpid()}" in said
            and "this process: a memory it opened there is not closed; close() that memory"
            in said)
    assert "wait for it to exit" not in said


def test_a_holder_that_records_this_pid_from_another_process_table_is_not_this_process(
        tmp_path: Path) -> None:
    # Two containers sharing a home each run tiermem as pid 1: the holder's recorded pid
    # is this process's own, though no memory of this process holds the home.
    home = tmp_path / "agent"
    home.mkdir()

    def hold_as_parent() -> bytes:
        fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.pwrite(fd, str(os.getppid()).encode(), 0)
        return b"held"

    with _forked_child(hold_as_parent) as said, pytest.raises(StoreLockedError) as refused:
        assert said == b"held"
        SQLiteStore(home)
    assert not refused.value.this_process
    assert "close() that memory" not in str(refused.value)
    assert "close that session (or wait for it to exit)" in str(refused.value)


def test_a_lock_file_removed_between_its_open_and_its_lock_is_not_held(tmp_path: Path) -> None:
    """A failed restore removes the home it made, lock file and all, while it holds the
    lock. A process that opened that lock file just before, and locks it once the restore
    lets go, must not take the lock of a file no longer in the home: a third process would
    lock a new one there beside it."""
    from tiermem.memory.store.sqlite.restore import remove_made_home
    from tiermem.memory.store.sqlite.writer_lock import WriterLock

    home = tmp_path / "agent"
    home.mkdir()
    (home / LOCK_FILE).write_text("")
    late = WriterLock(home)
    real_open = late._open

    def open_then_removed() -> int:
        fd = real_open()
        remove_made_home(home)  # the restore, between this open and the flock
        return fd

    late._open = open_then_removed  # type: ignore[method-assign]
    with pytest.raises(StoreError):
        late.acquire()
    home.mkdir()
    other = WriterLock(home)
    other.acquire()  # the home's one writer
    other.release()


def test_a_writer_lock_handed_to_the_store_is_its_own_and_must_be_this_homes(
        tmp_path: Path) -> None:
    from tiermem.memory.errors import InvalidInputError
    from tiermem.memory.store.sqlite.writer_lock import WriterLock

    home, other = tmp_path / "agent", tmp_path / "other"
    other.mkdir()
    elsewhere = WriterLock(other)
    elsewhere.acquire()
    try:
        with pytest.raises(InvalidInputError, match="writer_lock is the lock of an agent home"):
            SQLiteStore(home, writer_lock=elsewhere)
    finally:
        elsewhere.release()
    home.mkdir()
    held = WriterLock(home)
    with pytest.raises(InvalidInputError, match=r"writer_lock is not held: acquire\(\) it"):
        SQLiteStore(home, writer_lock=held)  # a second writer could open beside it
    held.acquire()
    store = SQLiteStore(home, writer_lock=held)
    with pytest.raises(StoreLockedError):
        SQLiteStore(home)
    store.close()  # releases the lock it was given
    SQLiteStore(home).close()


def test_a_writer_lock_is_this_homes_however_the_path_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.store.sqlite.writer_lock import WriterLock

    (tmp_path / "agent").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "agent")
    monkeypatch.chdir(tmp_path)
    for given, home in ((tmp_path / "agent", Path("agent")), (Path("agent"), tmp_path / "link")):
        lock = WriterLock(given)
        lock.acquire()
        store = SQLiteStore(home, writer_lock=lock)
        with pytest.raises(StoreLockedError):
            SQLiteStore(tmp_path / "agent")
        store.close()
        assert not lock.held


def test_a_writer_lock_handed_over_is_released_when_the_home_cannot_be_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tiermem.memory.store.sqlite.store as sqlite_store
    from tiermem.memory.store.sqlite.writer_lock import WriterLock

    home = tmp_path / "agent"
    home.mkdir()
    lock = WriterLock(home)
    lock.acquire()

    def refused(path: Path) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(sqlite_store, "make_home", refused)
    with pytest.raises(StoreError, match=r"cannot create the agent home .*Permission denied"):
        SQLiteStore(home, writer_lock=lock)
    assert not lock.held
    monkeypatch.undo()
    SQLiteStore(home).close()  # no writer holds the home
